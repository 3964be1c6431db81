//! Lone surrogates that pair up on a round trip through JSON text, as in CPython.
//!
//! A Python `str` can hold a lone high surrogate followed by a lone low one as two code
//! points (`json.loads` copies raw surrogates from its input as they are). `json.dumps`
//! writes each as a `\uXXXX` escape, and `json.loads` reads an escaped high-low pair as
//! the one astral character it encodes: in CPython, `json.loads(json.dumps(s)) != s` for
//! such a string. toolfix reproduces that, so a round-trip check compares against the value
//! with those pairs joined.

use toolfix::py::{PyStr, Value};

/// `value` with every high surrogate that is directly followed by a low surrogate, in
/// every string and key, joined with it into the astral character they encode.
pub fn joined(value: &Value) -> Value {
    match value {
        Value::Str(s) => Value::Str(join(s)),
        Value::List(items) => Value::List(items.iter().map(joined).collect()),
        Value::Dict(dict) => Value::Dict(dict.iter().map(|(k, v)| (join(k), joined(v))).collect()),
        other => other.clone(),
    }
}

/// One string with its surrogate pairs joined.
fn join(s: &PyStr) -> PyStr {
    let mut out = PyStr::with_capacity(s.byte_len());
    let mut code_points = s.code_points().peekable();
    while let Some(cp) = code_points.next() {
        match (cp, code_points.peek()) {
            (0xD800..=0xDBFF, Some(&low @ 0xDC00..=0xDFFF)) => {
                code_points.next();
                out.push(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00));
            }
            _ => out.push(cp),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolfix::py::json::{DecodeLimits, dumps, loads};

    #[test]
    fn a_lone_pair_reads_back_as_one_character_as_in_cpython() {
        let mut s = PyStr::from("a");
        s.push(0xD83D);
        s.push(0xDE00);
        s.push(0xDE00);
        let value = Value::Str(s);
        let limits = DecodeLimits {
            max_depth: 4,
            int_max_str_digits: None,
        };
        let text = dumps(&value).unwrap();
        assert_eq!(text, r#""a\ud83d\ude00\ude00""#);
        let back = loads(text.as_bytes(), limits).unwrap();
        assert_ne!(back, value);
        let mut expected = PyStr::from("a\u{1F600}");
        expected.push(0xDE00);
        assert_eq!(back, Value::Str(expected.clone()));
        assert_eq!(joined(&value), Value::Str(expected));
    }
}
