//! Values on the wire: JSON lines, plus the `$float` and `$opaque` wrappers.

use toolfix::py::json::{self, DecodeLimits};
use toolfix::py::{Dict, Value};

/// Limits for reading a protocol line: deep enough for any case, and no integer limit
/// (a case may carry a 5000-digit integer inside its content on purpose).
const LINE_LIMITS: DecodeLimits = DecodeLimits {
    max_depth: 4096,
    int_max_str_digits: None,
};

/// Decodes one line into a value, unwrapping `$float` and `$opaque`.
pub fn decode_line(line: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(line).map_err(|e| format!("the line is not UTF-8: {e}"))?;
    let value = json::loads(text.trim_end_matches(['\r', '\n']).as_bytes(), LINE_LIMITS)
        .map_err(|e| format!("the line is not JSON: {}", e.python_message()))?;
    Ok(unwrap(value))
}

/// Encodes a value as one line (no newline), wrapping what JSON cannot hold.
pub fn encode_line(value: &Value) -> String {
    json::dumps(&wrap(value)).unwrap_or_else(|_| unreachable_opaque())
}

/// `wrap` leaves no `Opaque` behind, so `dumps` cannot fail; this keeps the protocol
/// answering even if that ever changed.
fn unreachable_opaque() -> String {
    r#"{"errored": "internal error: a value could not be encoded"}"#.to_owned()
}

/// Replaces `{"$float": "nan"|"inf"|"-inf"}` and `{"$opaque": S}` by the values they stand for.
pub fn unwrap(value: Value) -> Value {
    match value {
        Value::List(items) => Value::List(items.into_iter().map(unwrap).collect()),
        Value::Dict(dict) => match wrapper(&dict) {
            Some(v) => v,
            None => Value::Dict(dict.into_iter().map(|(k, v)| (k, unwrap(v))).collect()),
        },
        other => other,
    }
}

/// The value a one-key wrapper object stands for, if `dict` is one.
fn wrapper(dict: &Dict) -> Option<Value> {
    if dict.len() != 1 {
        return None;
    }
    let (key, inner) = dict.first()?;
    let text = inner.as_py_str()?;
    match key.as_str()? {
        "$opaque" => Some(Value::Opaque(text.clone())),
        "$float" => match text.as_str()? {
            "nan" => Some(Value::Float(f64::NAN)),
            "inf" => Some(Value::Float(f64::INFINITY)),
            "-inf" => Some(Value::Float(f64::NEG_INFINITY)),
            _ => None,
        },
        _ => None,
    }
}

/// Replaces non-finite floats and opaque objects by their wrappers.
pub fn wrap(value: &Value) -> Value {
    match value {
        Value::Float(f) if !f.is_finite() => {
            let text = if f.is_nan() {
                "nan"
            } else if *f > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            one_key("$float", Value::str(text))
        }
        Value::Opaque(text) => one_key("$opaque", Value::Str(text.clone())),
        Value::List(items) => Value::List(items.iter().map(wrap).collect()),
        Value::Dict(dict) => Value::Dict(dict.iter().map(|(k, v)| (k.clone(), wrap(v))).collect()),
        other => other.clone(),
    }
}

/// `{key: value}`.
pub fn one_key(key: &str, value: Value) -> Value {
    Value::dict([(key, value)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_round_trip() {
        let line = r#"{"a": [{"$float": "nan"}, {"$float": "-inf"}, {"$opaque": "{1, 2}"}], "n": 123456789012345678901234567890}"#;
        let value = decode_line(line.as_bytes()).unwrap();
        assert!(
            matches!(&value.get("a").unwrap(), Value::List(l) if matches!(l[2], Value::Opaque(_)))
        );
        assert_eq!(encode_line(&value), line);
    }

    #[test]
    fn lone_surrogates_survive() {
        let line = r#"{"content": "\ud800x"}"#;
        assert_eq!(encode_line(&decode_line(line.as_bytes()).unwrap()), line);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for line in ["", "{", "\u{0}", "[1,]", "{\"a\": 1} x"] {
            assert!(decode_line(line.as_bytes()).is_err(), "{line:?}");
        }
        assert!(decode_line(&[0xff, 0xfe]).is_err());
    }
}
