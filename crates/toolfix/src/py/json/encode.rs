//! The encoder: `json.dumps(v)` with every default, which runs CPython 3.11's C encoder
//! (`c_make_encoder`) with `ensure_ascii=True`, `allow_nan=True` and the separators
//! `", "` and `": "`.
//!
//! Containers are walked with an explicit stack so that no value, however deep, can
//! exhaust the thread's stack.

use smallvec::SmallVec;

use super::EncodeError;
use crate::py::float_repr::float_repr;
use crate::py::pystr::decode_code_point;
use crate::py::{PyStr, Value};

/// json.dumps(v) with every default: ensure_ascii=True, separators (", ", ": "), allow_nan=True, insertion order. Output is ASCII.
pub fn dumps(v: &Value) -> Result<String, EncodeError> {
    // Room for a typical call's arguments up front, rather than growing from nothing.
    let mut out = String::with_capacity(64);
    dump_into(&mut out, v)?;
    Ok(out)
}

/// `json.dumps(v)` appended to `out`, for a writer that puts a value inside text of its
/// own (the arguments of a format without JSON, `salvage::schema`). On an error `out`
/// holds part of the value.
pub fn dump_into(out: &mut String, v: &Value) -> Result<(), EncodeError> {
    // The containers being written; a call's arguments rarely nest past the inline room.
    let mut open: SmallVec<[Items<'_>; 8]> = SmallVec::new();
    let mut value = v;
    loop {
        if let Some((items, first)) = write_value(out, value)? {
            open.push(items);
            value = first;
            continue;
        }
        match next_item(out, &mut open) {
            Some(next) => value = next,
            None => return Ok(()),
        }
    }
}

/// The rest of a container being written.
enum Items<'a> {
    List(std::slice::Iter<'a, Value>),
    Dict(indexmap::map::Iter<'a, PyStr, Value>),
}

/// Writes `value` if it is a scalar or an empty container and returns `None`; otherwise
/// writes the opening of the container up to its first value, and returns the container's
/// remaining items and that first value.
fn write_value<'a>(
    out: &mut String,
    value: &'a Value,
) -> Result<Option<(Items<'a>, &'a Value)>, EncodeError> {
    match value {
        Value::None => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => out.push_str(i.as_decimal()),
        Value::Float(x) => write_float(out, *x),
        Value::Str(s) => write_str(out, s.as_bytes()),
        Value::Opaque(_) => return Err(EncodeError::NotSerializable),
        Value::List(list) => {
            let mut items = list.iter();
            match items.next() {
                Some(first) => {
                    out.push('[');
                    return Ok(Some((Items::List(items), first)));
                }
                None => out.push_str("[]"),
            }
        }
        Value::Dict(dict) => {
            let mut items = dict.iter();
            match items.next() {
                Some((key, first)) => {
                    out.push('{');
                    write_key(out, key.as_bytes());
                    return Ok(Some((Items::Dict(items), first)));
                }
                None => out.push_str("{}"),
            }
        }
    }
    Ok(None)
}

/// Closes every finished container and writes the separator (and key) before the next
/// value, which it returns; `None` once the outermost container is closed.
fn next_item<'a>(out: &mut String, open: &mut SmallVec<[Items<'a>; 8]>) -> Option<&'a Value> {
    loop {
        match open.last_mut()? {
            Items::List(items) => match items.next() {
                Some(value) => {
                    out.push_str(", ");
                    return Some(value);
                }
                None => out.push(']'),
            },
            Items::Dict(items) => match items.next() {
                Some((key, value)) => {
                    out.push_str(", ");
                    write_key(out, key.as_bytes());
                    return Some(value);
                }
                None => out.push('}'),
            },
        }
        open.pop();
    }
}

/// A dict key (a string's generalized UTF-8) and the separator after it.
pub fn write_key(out: &mut String, key: &[u8]) {
    write_str(out, key);
    out.push_str(": ");
}

/// A finite float as its `repr`; the others as the JavaScript names `allow_nan` permits.
fn write_float(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x == f64::INFINITY {
        out.push_str("Infinity");
    } else if x == f64::NEG_INFINITY {
        out.push_str("-Infinity");
    } else {
        out.push_str(&float_repr(x));
    }
}

/// A string with `ensure_ascii`: printable ASCII as is (`/` included), the usual short
/// escapes, and `\uXXXX` in lowercase hex for everything else, a supplementary code point
/// as a surrogate pair and a lone surrogate as itself. `s` is a string's generalized
/// UTF-8 (a [`PyStr`]'s bytes, or a slice of them at character boundaries).
pub fn write_str(out: &mut String, s: &[u8]) {
    out.push('"');
    let mut rest = s;
    loop {
        // Printable ASCII other than `"` and `\` is written as is: copy each run whole (a
        // run of ASCII is always valid UTF-8).
        let plain = rest
            .iter()
            .position(|&b| !matches!(b, 0x20..=0x7E) || b == b'"' || b == b'\\')
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(plain);
        out.push_str(std::str::from_utf8(run).unwrap_or_default());
        let Some((cp, len)) = decode_code_point(tail) else {
            break;
        };
        rest = &tail[len..];
        match cp {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            _ => u_escape(cp, |b| out.push(char::from(b))),
        }
    }
    out.push('"');
}

/// A code point as `ensure_ascii` escapes it, byte by byte into `push`: one `\uXXXX`
/// (lowercase hex) in the Basic Multilingual Plane, a surrogate pair above it.
pub(super) fn u_escape(cp: u32, mut push: impl FnMut(u8)) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let units = match cp.checked_sub(0x10000) {
        Some(offset) => [
            Some(0xD800 | (offset >> 10)),
            Some(0xDC00 | (offset & 0x3FF)),
        ],
        None => [Some(cp), None],
    };
    for unit in units.into_iter().flatten() {
        push(b'\\');
        push(b'u');
        for shift in [12, 8, 4, 0] {
            push(HEX[((unit >> shift) & 0xF) as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::{Dict, PyInt};

    fn py_str(code_points: &[u32]) -> Value {
        let mut s = PyStr::new();
        code_points.iter().for_each(|&cp| s.push(cp));
        Value::Str(s)
    }

    fn dict(entries: Vec<(&str, Value)>) -> Value {
        Value::Dict(
            entries
                .into_iter()
                .map(|(k, v)| (PyStr::from(k), v))
                .collect::<Dict>(),
        )
    }

    /// `(value, json.dumps(value))` as printed by CPython 3.11.7.
    #[test]
    fn scalars_match_cpython() {
        let big = PyInt::from_decimal("-1000000000000000000000000000000").unwrap();
        let cases: Vec<(Value, &str)> = vec![
            (Value::None, "null"),
            (Value::Bool(true), "true"),
            (Value::Bool(false), "false"),
            (Value::int(0), "0"),
            (Value::int(-7), "-7"),
            (Value::Int(big), "-1000000000000000000000000000000"),
            (Value::Float(1.0), "1.0"),
            (Value::Float(100.0), "100.0"),
            (Value::Float(1e16), "1e+16"),
            (Value::Float(1e15), "1000000000000000.0"),
            (Value::Float(1.5e-7), "1.5e-07"),
            (Value::Float(0.0001), "0.0001"),
            (Value::Float(1e-5), "1e-05"),
            (Value::Float(-0.0), "-0.0"),
            (Value::Float(0.1), "0.1"),
            (Value::Float(1e22), "1e+22"),
            (Value::Float(5e-324), "5e-324"),
            (Value::Float(f64::MAX), "1.7976931348623157e+308"),
            (Value::Float(123456789.12345679), "123456789.12345679"),
            (Value::Float(f64::NAN), "NaN"),
            (Value::Float(f64::INFINITY), "Infinity"),
            (Value::Float(f64::NEG_INFINITY), "-Infinity"),
        ];
        for (value, want) in cases {
            assert_eq!(dumps(&value).as_deref(), Ok(want), "{value:?}");
        }
    }

    /// `(code points, json.dumps(str))` as printed by CPython 3.11.7.
    #[test]
    fn strings_match_cpython() {
        let controls: Vec<u32> = (0..0x20).collect();
        let cases: Vec<(Vec<u32>, &str)> = vec![
            (vec![], r#""""#),
            (
                "plain / text".chars().map(u32::from).collect(),
                r#""plain / text""#,
            ),
            (
                "\"quoted\" back\\slash".chars().map(u32::from).collect(),
                r#""\"quoted\" back\\slash""#,
            ),
            (
                controls,
                r#""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f""#,
            ),
            (
                vec![0x7F, 0x80, 0x9F, 0xA0, 0xFF],
                r#""\u007f\u0080\u009f\u00a0\u00ff""#,
            ),
            (vec![0x2028, 0x2029], r#""\u2028\u2029""#),
            (vec![0xE9, 0x4E2D, 0xFFFF], r#""\u00e9\u4e2d\uffff""#),
            (vec![0x1F600], r#""\ud83d\ude00""#),
            (vec![0x10000, 0x10FFFF], r#""\ud800\udc00\udbff\udfff""#),
            (vec![0xD800], r#""\ud800""#),
            (vec![0xDFFF], r#""\udfff""#),
            (vec![0xD83D, 0xDE00], r#""\ud83d\ude00""#),
            (vec![0x7E, 0x20, 0x21], r#""~ !""#),
        ];
        for (code_points, want) in cases {
            assert_eq!(
                dumps(&py_str(&code_points)).as_deref(),
                Ok(want),
                "{code_points:x?}"
            );
        }
    }

    /// `(value, json.dumps(value))` as printed by CPython 3.11.7.
    #[test]
    fn containers_match_cpython() {
        let cases: Vec<(Value, &str)> = vec![
            (Value::List(vec![]), "[]"),
            (dict(vec![]), "{}"),
            (Value::List(vec![Value::List(vec![])]), "[[]]"),
            (Value::List(vec![dict(vec![])]), "[{}]"),
            (dict(vec![("", Value::List(vec![]))]), r#"{"": []}"#),
            (
                Value::List(vec![
                    Value::int(1),
                    Value::str("a"),
                    Value::None,
                    Value::List(vec![
                        Value::Bool(true),
                        dict(vec![("k", Value::Float(2.5))]),
                    ]),
                ]),
                r#"[1, "a", null, [true, {"k": 2.5}]]"#,
            ),
            (
                dict(vec![
                    ("b", Value::int(1)),
                    (
                        "a",
                        dict(vec![("c", Value::List(vec![Value::int(1), Value::int(2)]))]),
                    ),
                    ("\u{e9}", py_str(&[0xD800])),
                ]),
                r#"{"b": 1, "a": {"c": [1, 2]}, "\u00e9": "\ud800"}"#,
            ),
        ];
        for (value, want) in cases {
            assert_eq!(dumps(&value).as_deref(), Ok(want), "{value:?}");
        }
    }

    /// CPython raises TypeError for an unserializable object wherever it sits.
    #[test]
    fn opaque_anywhere_is_not_serializable() {
        let opaque = || Value::Opaque(PyStr::from("{1, 2}"));
        let cases = [
            opaque(),
            Value::List(vec![Value::int(1), opaque()]),
            dict(vec![
                ("a", Value::int(1)),
                ("b", Value::List(vec![dict(vec![("c", opaque())])])),
            ]),
        ];
        for value in cases {
            assert_eq!(dumps(&value), Err(EncodeError::NotSerializable));
        }
    }

    /// Containers are walked with a heap stack, so nesting costs no thread stack.
    #[test]
    fn deep_values_are_encoded() {
        let mut value = Value::int(0);
        for _ in 0..4096 {
            value = Value::List(vec![value]);
        }
        let want = format!("{}0{}", "[".repeat(4096), "]".repeat(4096));
        assert_eq!(dumps(&value), Ok(want));
    }
}
