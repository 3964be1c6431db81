//! `repr()` and `str()` of the values tool calls carry, as CPython 3.11 prints them.
//!
//! The real package puts `str(value)` and `repr(value)` into messages the model reads and
//! into error texts, so the quoting and escaping must be CPython's exactly: `repr` of a
//! `str` picks its quote from the content and escapes what `str.isprintable()` rejects,
//! which depends on CPython's Unicode 14 tables (see `py::unicode`).

use memchr::memchr;

use super::INT_MAX_STR_DIGITS;
use super::exception::PyException;
use super::float_repr::float_repr;
use super::pystr::{PyStr, push_code_point};
use super::unicode::is_printable;
use super::value::Value;

/// `repr(s)` for a `str`: `'...'`, or `"..."` when `s` contains `'` and no `"`; escapes
/// `\\`, the chosen quote, `\t \n \r`, other control characters as `\xNN`, and any other
/// non-printable character as `\xNN`, `\uNNNN` or `\UNNNNNNNN` (lone surrogates included).
pub fn repr_str(s: &PyStr) -> PyStr {
    let mut out = Vec::with_capacity(s.byte_len() + 2);
    write_repr_str(&mut out, s);
    PyStr::from_generalized_utf8_unchecked(out)
}

/// `repr(v)`: `None`, `True`, `1`, `1.5`, `nan`, `'a'`, `[1, 'a']`, `{'a': 1}`, and an opaque
/// object's own text.
pub fn repr(v: &Value) -> PyStr {
    let mut out = Vec::new();
    write_repr(&mut out, v);
    PyStr::from_generalized_utf8_unchecked(out)
}

/// `str(v)`: a `str` is itself; every other value prints as its `repr` (Python 3's
/// `str(float)` is `repr(float)`, and containers show their items' `repr`).
pub fn str_of(v: &Value) -> PyStr {
    match v {
        Value::Str(s) => s.clone(),
        _ => repr(v),
    }
}

/// Writes `repr(s)` of a `str` to `out` (generalized UTF-8).
fn write_repr_str(out: &mut Vec<u8>, s: &PyStr) {
    let bytes = s.as_bytes();
    let quote = if memchr(b'\'', bytes).is_some() && memchr(b'"', bytes).is_none() {
        b'"'
    } else {
        b'\''
    };
    out.push(quote);
    if bytes
        .iter()
        .all(|&b| (0x20..0x7F).contains(&b) && b != b'\\' && b != quote)
    {
        // Printable ASCII with nothing to escape, the common case of a tool name: as is.
        out.extend_from_slice(bytes);
    } else {
        s.code_points().for_each(|cp| write_escaped(out, cp, quote));
    }
    out.push(quote);
}

/// Writes one code point of a `str` repr, as CPython's `unicode_repr` does.
fn write_escaped(out: &mut Vec<u8>, cp: u32, quote: u8) {
    match cp {
        0x5C => out.extend_from_slice(b"\\\\"),
        _ if cp == u32::from(quote) => out.extend_from_slice(&[b'\\', quote]),
        0x09 => out.extend_from_slice(b"\\t"),
        0x0A => out.extend_from_slice(b"\\n"),
        0x0D => out.extend_from_slice(b"\\r"),
        0..=0x1F | 0x7F => write_hex_escape(out, b'x', cp, 2),
        0x20..=0x7E => push_code_point(out, cp),
        _ if is_printable(cp) => push_code_point(out, cp),
        0x80..=0xFF => write_hex_escape(out, b'x', cp, 2),
        0x100..=0xFFFF => write_hex_escape(out, b'u', cp, 4),
        _ => write_hex_escape(out, b'U', cp, 8),
    }
}

/// Writes `\` + `kind` + `cp` as `digits` lowercase hex digits.
fn write_hex_escape(out: &mut Vec<u8>, kind: u8, cp: u32, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(&[b'\\', kind]);
    for shift in (0..digits).rev().map(|d| d * 4) {
        out.push(HEX[((cp >> shift) & 0xF) as usize]);
    }
}

/// A piece of pending output while writing nested containers.
enum Pending<'a> {
    Value(&'a Value),
    Key(&'a PyStr),
    Text(&'static str),
}

/// Writes `repr(v)`, with an explicit stack so deeply nested values cannot exhaust the
/// call stack.
fn write_repr(out: &mut Vec<u8>, v: &Value) {
    let mut pending = vec![Pending::Value(v)];
    while let Some(piece) = pending.pop() {
        match piece {
            Pending::Value(v) => write_value(out, v, &mut pending),
            Pending::Key(k) => write_repr_str(out, k),
            Pending::Text(t) => out.extend_from_slice(t.as_bytes()),
        }
    }
}

/// Writes a scalar, or opens a container and schedules its items (pushed in reverse,
/// since `pending` is a stack).
fn write_value<'a>(out: &mut Vec<u8>, v: &'a Value, pending: &mut Vec<Pending<'a>>) {
    match v {
        Value::None => out.extend_from_slice(b"None"),
        Value::Bool(true) => out.extend_from_slice(b"True"),
        Value::Bool(false) => out.extend_from_slice(b"False"),
        Value::Int(i) => out.extend_from_slice(i.as_decimal().as_bytes()),
        Value::Float(f) => out.extend_from_slice(float_repr(*f).as_bytes()),
        Value::Str(s) => write_repr_str(out, s),
        Value::Opaque(text) => out.extend_from_slice(text.as_bytes()),
        Value::List(items) => {
            out.push(b'[');
            pending.push(Pending::Text("]"));
            for (k, item) in items.iter().enumerate().rev() {
                pending.push(Pending::Value(item));
                if k > 0 {
                    pending.push(Pending::Text(", "));
                }
            }
        }
        Value::Dict(dict) => {
            out.push(b'{');
            pending.push(Pending::Text("}"));
            for (k, (key, item)) in dict.iter().enumerate().rev() {
                pending.push(Pending::Value(item));
                pending.push(Pending::Text(": "));
                pending.push(Pending::Key(key));
                if k > 0 {
                    pending.push(Pending::Text(", "));
                }
            }
        }
    }
}

/// How CPython prints a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Printer {
    /// `json.dumps(value)`.
    JsonDumps,
    /// `repr(value)`, which is also `str()` of a container.
    Repr,
}

/// The exception CPython raises printing `value` with `printer` when at most `max_depth`
/// containers fit on its stack: the first problem met in printing order (depth first,
/// left to right), if any. `json.dumps` also rejects an opaque object (`TypeError`);
/// both refuse an `int` of more than 4300 digits (`ValueError`).
pub fn printing_error(value: &Value, printer: Printer, max_depth: usize) -> Option<PyException> {
    let mut stack = vec![(value, 1)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::List(_) | Value::Dict(_) if depth > max_depth => {
                let what = match printer {
                    Printer::JsonDumps => "encoding a JSON object",
                    Printer::Repr => "getting the repr of an object",
                };
                let message = format!("maximum recursion depth exceeded while {what}");
                return Some(PyException::RecursionError {
                    message: message.into(),
                });
            }
            Value::List(items) => stack.extend(items.iter().rev().map(|v| (v, depth + 1))),
            Value::Dict(dict) => stack.extend(dict.values().rev().map(|v| (v, depth + 1))),
            Value::Opaque(_) if printer == Printer::JsonDumps => {
                return Some(PyException::TypeError {
                    message: PyStr::from("Object of type object is not JSON serializable"),
                });
            }
            Value::Int(_) => {
                if let Err(e) = check_int_str_limit(value) {
                    return Some(e);
                }
            }
            _ => {}
        }
    }
    None
}

/// `str()` of an `int` of more than 4300 decimal digits raises in CPython, inside a
/// container too: the error any printing of `value` would raise, if any.
pub fn check_int_str_limit(value: &Value) -> Result<(), PyException> {
    if value.max_int_digits() <= INT_MAX_STR_DIGITS {
        return Ok(());
    }
    let message = format!(
        "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string conversion; \
         use sys.set_int_max_str_digits() to increase the limit"
    );
    Err(PyException::ValueError {
        message: message.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::value::{Dict, PyInt};

    fn py(cps: &[u32]) -> PyStr {
        let mut s = PyStr::new();
        cps.iter().for_each(|&c| s.push(c));
        s
    }

    /// Each pair is `(s, repr(s))` as printed by CPython 3.11.7.
    #[test]
    fn repr_str_matches_cpython() {
        let cases = [
            ("", "''"),
            ("'", r#""'""#),
            ("\"", r#"'"'"#),
            ("'\"", r#"'\'"'"#),
            ("it's", r#""it's""#),
            ("say \"hi\"", r#"'say "hi"'"#),
            ("a\\b", r"'a\\b'"),
            ("\\'", r#""\\'""#),
            ("\\\"", r#"'\\"'"#),
            (
                "\x00\x01\x1f\x7f\u{80}\u{9f}\u{a0}\u{ad}\u{ff}",
                r"'\x00\x01\x1f\x7f\x80\x9f\xa0\xadÿ'",
            ),
            ("\u{100}\u{2028}\u{feff}\u{ffff}", r"'Ā\u2028\ufeff\uffff'"),
            (
                "\u{1F600}\u{1F6DC}\u{E0001}\u{10FFFF}",
                r"'😀\U0001f6dc\U000e0001\U0010ffff'",
            ),
            ("\r\n\t\x0b\x0c", r"'\r\n\t\x0b\x0c'"),
            ("日本語 ✓", "'日本語 ✓'"),
            ("\u{378}", r"'\u0378'"),
        ];
        for (text, want) in cases {
            assert_eq!(repr_str(&PyStr::from(text)), want, "repr({text:?})");
        }
        assert_eq!(repr_str(&py(&[0xD800, 0xDFFF])), r"'\ud800\udfff'");
    }

    /// The brief's example, printed by CPython 3.11.7.
    #[test]
    fn str_of_list_matches_cpython() {
        let items = [
            "it's",
            "say \"hi\"",
            "both'\"",
            "tab\t",
            "é",
            "\u{200b}",
            "\x7f",
        ];
        let list = Value::List(items.into_iter().map(Value::str).collect());
        assert_eq!(
            str_of(&list),
            r#"["it's", 'say "hi"', 'both\'"', 'tab\t', 'é', '\u200b', '\x7f']"#
        );
    }

    /// `repr` of nested values, as printed by CPython 3.11.7.
    #[test]
    fn repr_of_values_matches_cpython() {
        let mut inner = Dict::default();
        inner.insert(PyStr::from("b"), Value::None);
        let mut outer = Dict::default();
        outer.insert(
            PyStr::from("a"),
            Value::List(vec![Value::int(1), Value::Dict(inner)]),
        );
        outer.insert(PyStr::from("it's"), Value::str("q\""));
        outer.insert(py(&[0xD800]), Value::Float(2.5));
        let big = PyInt::from_decimal("1000000000000000000000000000000").unwrap();
        let value = Value::List(vec![
            Value::None,
            Value::Bool(true),
            Value::Bool(false),
            Value::int(0),
            Value::int(-12),
            Value::Int(big),
            Value::Float(1.0),
            Value::Float(1e16),
            Value::Float(-0.0),
            Value::Float(f64::NAN),
            Value::Float(f64::INFINITY),
            Value::Float(f64::NEG_INFINITY),
            Value::str("x"),
            Value::List(vec![]),
            Value::Dict(Dict::default()),
            Value::Dict(outer),
        ]);
        assert_eq!(
            repr(&value),
            concat!(
                "[None, True, False, 0, -12, 1000000000000000000000000000000, 1.0, 1e+16, ",
                r#"-0.0, nan, inf, -inf, 'x', [], {}, {'a': [1, {'b': None}], "it's": 'q"', "#,
                r"'\ud800': 2.5}]"
            )
        );
    }

    #[test]
    fn str_of_scalars_and_opaque_objects() {
        assert_eq!(str_of(&Value::str("it's")), "it's");
        assert_eq!(str_of(&Value::Float(1.5e-7)), "1.5e-07");
        assert_eq!(str_of(&Value::None), "None");
        let set = Value::Opaque(PyStr::from("{1, 2}"));
        assert_eq!(str_of(&set), "{1, 2}");
        assert_eq!(repr(&Value::List(vec![set])), "[{1, 2}]");
    }

    #[test]
    fn deep_nesting_does_not_exhaust_the_stack() {
        let depth = 100_000;
        let mut value = Value::List(vec![]);
        for _ in 0..depth {
            value = Value::List(vec![value]);
        }
        let text = repr(&value);
        assert_eq!(text.byte_len(), 2 * (depth + 1));
        // Dropping is recursive; unwind the nesting by hand.
        let mut rest = Some(value);
        while let Some(Value::List(mut items)) = rest {
            rest = items.pop();
        }
    }
}
