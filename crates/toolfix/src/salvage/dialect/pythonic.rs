//! Pythonic calls: a Python list of calls with keyword arguments,
//! `[get_weather(city="Paris"), search(q='x', n=3)]`, as Llama 3.2 and Llama 4's model
//! cards and chat templates ask for, and as engines read it with a Python parser.
//!
//! Where it is read:
//! * the whole reply, once stripped, is such a list (Llama 3.2, most models prompted for
//!   it); a list that does not read whole is prose (`[1] See the docs`) and falls through
//!   to the other dialects; one that reads but names no offered tool is reserved;
//! * anywhere, between Llama 4's `<|python_start|>` and `<|python_end|>`, or LFM2's
//!   `<|tool_call_start|>` and `<|tool_call_end|>`; there, a list that does not read, or
//!   whose closer never comes, makes no call and stays reserved.
//!
//! The arguments are Python literals, read and never evaluated: strings in either quote
//! (triple-quoted and `r`/`u`-prefixed too, with Python's escapes), integers (exact at
//! any size, `_` separators allowed), floats, `True`, `False`, `None`, lists, tuples (as
//! lists) and dicts with string keys, a `-` before a number. Anything else (a variable, an
//! expression, a call as a value) makes the list unreadable: nothing in it runs.

use std::ops::Range;

use super::super::call::Call;
use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::{Allowlist, SalvageError};
use super::Dialect;
use super::token::Blocks;
use super::whole_json::Whole;
use crate::profile::{Profile, STRICT_MAX_DEPTH};
use crate::py::unicode::strip;
use crate::py::{Dict, PyInt, PyStr, Value};

/// The wrappers other templates put around the list.
const WRAPPERS: [(&[u8], &[u8]); 2] = [
    (b"<|python_start|>", b"<|python_end|>"),
    (b"<|tool_call_start|>", b"<|tool_call_end|>"),
];

/// The whole-content form: the stripped reply is a list of calls.
pub fn recover_whole(
    content: &[u8],
    allowed: &Allowlist,
    profile: Profile,
) -> Result<Whole, SalvageError> {
    let stripped = strip(content);
    if stripped.first() != Some(&b'[') {
        return Ok(Whole::NotCalls);
    }
    let start = stripped.as_ptr() as usize - content.as_ptr() as usize;
    let Some((calls, end)) = Reader(stripped).calls(0) else {
        return Ok(Whole::NotCalls);
    };
    if end != stripped.len() {
        return Ok(Whole::NotCalls);
    }
    let span = start..start + stripped.len();
    let mut recovered = Vec::new();
    for ((name, args), _) in calls {
        if allowed.contains(&name) {
            let position = (Dialect::Pythonic, recovered.len());
            recovered.push(Call::build(
                Value::Str(name),
                args,
                span.clone(),
                position,
                profile,
            )?);
        }
    }
    Ok(match recovered.is_empty() {
        true => Whole::Reserved,
        false => Whole::Calls(recovered),
    })
}

/// Adds a candidate for every call of every wrapped list.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    for (open, close) in WRAPPERS {
        for block in Blocks::new(text, open, close, super::token::any) {
            if !block.closed {
                out.push(Candidate {
                    span: block.span,
                    dialect: Dialect::Pythonic,
                    found: None,
                });
                continue;
            }
            let body = super::token::trimmed(text, block.body.clone());
            push_list(payloads, &text[..body.end], body.start, block.span, out);
        }
    }
}

/// The calls of the list at `start` of `text` (which must end with it), each its own
/// candidate (the first from the start of `span`, the last to its end), as `call_array`
/// reads a JSON list; one rejected candidate for `span` when the list does not read whole.
fn push_list(
    payloads: &Payloads<'_>,
    text: &[u8],
    start: usize,
    span: Range<usize>,
    out: &mut Vec<Candidate>,
) {
    let calls = match Reader(text).calls(start) {
        Some((calls, end)) if end == text.len() && !calls.is_empty() => calls,
        _ => {
            out.push(Candidate {
                span,
                dialect: Dialect::Pythonic,
                found: None,
            });
            return;
        }
    };
    let last = calls.len() - 1;
    for (k, ((name, args), call)) in calls.into_iter().enumerate() {
        let from = if k == 0 { span.start } else { call.start };
        let to = if k == last { span.end } else { call.end };
        out.push(Candidate {
            span: from..to,
            dialect: Dialect::Pythonic,
            found: payloads.allows(&name).then_some(Found { name, args }),
        });
    }
}

/// A call as read: its name and its keyword arguments as a dict.
type Read = (PyStr, Value);

/// A call as read and its span.
type Spanned = (Read, Range<usize>);

/// Reads Python literal syntax out of a byte string.
struct Reader<'t>(&'t [u8]);

impl Reader<'_> {
    /// `[call, …]` at `i`: the calls with their spans, and the end of the list.
    fn calls(&self, i: usize) -> Option<(Vec<Spanned>, usize)> {
        let mut i = self.expect(i, b'[')?;
        let mut calls = Vec::new();
        loop {
            i = self.space(i);
            if self.0.get(i) == Some(&b']') {
                return Some((calls, i + 1));
            }
            let (call, end) = self.call(i)?;
            calls.push((call, i..end));
            i = self.space(end);
            match *self.0.get(i)? {
                b',' => i += 1,
                b']' => return Some((calls, i + 1)),
                _ => return None,
            }
        }
    }

    /// `NAME(key=value, …)` at `i`.
    fn call(&self, i: usize) -> Option<(Read, usize)> {
        let name_end = self.identifier(i)?;
        let name = PyStr::from_generalized_utf8(&self.0[i..name_end]);
        let mut i = self.expect(self.space(name_end), b'(')?;
        let mut args = Dict::default();
        loop {
            i = self.space(i);
            if self.0.get(i) == Some(&b')') {
                return Some(((name, Value::Dict(args)), i + 1));
            }
            let key_end = self.identifier(i)?;
            let key = PyStr::from_generalized_utf8(&self.0[i..key_end]);
            let eq = self.expect(self.space(key_end), b'=')?;
            let (value, end) = self.value(eq, 0)?;
            args.insert(key, value);
            i = self.space(end);
            match *self.0.get(i)? {
                b',' => i += 1,
                b')' => return Some(((name, Value::Dict(args)), i + 1)),
                _ => return None,
            }
        }
    }

    /// A literal at `i` (after whitespace) and its end.
    fn value(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        if depth > STRICT_MAX_DEPTH {
            return None;
        }
        let i = self.space(i);
        match *self.0.get(i)? {
            b'[' => self.sequence(i + 1, b']', depth + 1),
            b'(' => self.sequence(i + 1, b')', depth + 1),
            b'{' => self.dict(i + 1, depth + 1),
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(i),
            b'"' | b'\'' => self.string(i, false),
            b'r' | b'R' | b'u' | b'U' if matches!(self.0.get(i + 1), Some(b'"' | b'\'')) => {
                self.string(i + 1, matches!(self.0[i], b'r' | b'R'))
            }
            _ => self.constant(i),
        }
    }

    /// `[a, b]` or `(a, b)` after its opener, as a list. Parentheses around one value and
    /// no comma are no tuple: `(1)` is `1`, as Python reads it (`(1,)` is a tuple).
    fn sequence(&self, mut i: usize, close: u8, depth: usize) -> Option<(Value, usize)> {
        let mut items = Vec::new();
        loop {
            i = self.space(i);
            if self.0.get(i) == Some(&close) {
                return Some((Value::List(items), i + 1));
            }
            let (value, end) = self.value(i, depth)?;
            items.push(value);
            i = self.space(end);
            match *self.0.get(i)? {
                b',' => i += 1,
                b')' if close == b')' && items.len() == 1 => return Some((items.pop()?, i + 1)),
                c if c == close => return Some((Value::List(items), i + 1)),
                _ => return None,
            }
        }
    }

    /// `{key: value, …}` after its `{`; every key must be a string.
    fn dict(&self, mut i: usize, depth: usize) -> Option<(Value, usize)> {
        let mut dict = Dict::default();
        loop {
            i = self.space(i);
            if self.0.get(i) == Some(&b'}') {
                return Some((Value::Dict(dict), i + 1));
            }
            let (Value::Str(key), key_end) = self.value(i, depth)? else {
                return None;
            };
            let colon = self.expect(self.space(key_end), b':')?;
            let (value, end) = self.value(colon, depth)?;
            dict.insert(key, value);
            i = self.space(end);
            match *self.0.get(i)? {
                b',' => i += 1,
                b'}' => return Some((Value::Dict(dict), i + 1)),
                _ => return None,
            }
        }
    }

    /// `True`, `False` or `None` at `i`.
    fn constant(&self, i: usize) -> Option<(Value, usize)> {
        let end = self.identifier(i)?;
        let value = match &self.0[i..end] {
            b"True" => Value::Bool(true),
            b"False" => Value::Bool(false),
            b"None" => Value::None,
            _ => return None,
        };
        Some((value, end))
    }

    /// A decimal integer or float literal at `i`, with an optional sign.
    fn number(&self, i: usize) -> Option<(Value, usize)> {
        let sign = usize::from(matches!(self.0[i], b'-' | b'+'));
        let len = self.0[i + sign..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-'))
            .count();
        let end = i + sign + len;
        let literal = std::str::from_utf8(&self.0[i + sign..end]).ok()?;
        let negative = self.0[i] == b'-';
        Some((number_value(literal, negative)?, end))
    }

    /// A string literal whose opening quote is at `i`.
    fn string(&self, i: usize, raw: bool) -> Option<(Value, usize)> {
        let quote = self.0[i];
        let triple = self.0[i..].starts_with(&[quote; 3]);
        let delimiter: &[u8] = if triple {
            &self.0[i..i + 3]
        } else {
            &self.0[i..i + 1]
        };
        let mut j = i + delimiter.len();
        let mut out = PyStr::new();
        loop {
            let &b = self.0.get(j)?;
            if self.0[j..].starts_with(delimiter) {
                return Some((Value::Str(out), j + delimiter.len()));
            }
            if b == b'\n' && !triple {
                return None;
            }
            if b == b'\\' {
                j = escape(self.0, j, raw, &mut out)?;
                continue;
            }
            let (cp, len) = super::super::text::cp_at(self.0, j)?;
            out.push(cp);
            j += len;
        }
    }

    /// The end of the identifier at `i` (ASCII letters, digits and `_`, not starting with
    /// a digit).
    fn identifier(&self, i: usize) -> Option<usize> {
        let first = *self.0.get(i)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let len = self.0[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        Some(i + len)
    }

    /// The end of `byte` at `i`.
    fn expect(&self, i: usize, byte: u8) -> Option<usize> {
        (self.0.get(i) == Some(&byte)).then_some(i + 1)
    }

    /// The first offset at or after `i` that is not ASCII whitespace.
    fn space(&self, mut i: usize) -> usize {
        while self.0.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    }
}

/// The value of a Python number literal (without its sign): an `int` when it is digits
/// (with `_` between digits), else a `float` Python would read.
fn number_value(literal: &str, negative: bool) -> Option<Value> {
    let valid_underscores = !literal.starts_with('_')
        && !literal.ends_with('_')
        && !literal.contains("__")
        && literal
            .as_bytes()
            .windows(2)
            .all(|w| !(w.contains(&b'_') && !(w[0].is_ascii_digit() || w[1].is_ascii_digit())));
    if !valid_underscores {
        return None;
    }
    let plain: String = literal.chars().filter(|&c| c != '_').collect();
    let sign = if negative { "-" } else { "" };
    if plain.bytes().all(|b| b.is_ascii_digit()) {
        // Python rejects leading zeros on a non-zero integer (`007`).
        if plain.len() > 1 && plain.starts_with('0') && plain.bytes().any(|b| b != b'0') {
            return None;
        }
        return PyInt::from_decimal(&format!("{sign}{plain}")).map(Value::Int);
    }
    let is_float_syntax = plain
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && plain.bytes().any(|b| b.is_ascii_digit());
    if !is_float_syntax {
        return None;
    }
    let value: f64 = plain.parse().ok()?;
    Some(Value::Float(if negative { -value } else { value }))
}

/// Reads the escape sequence whose `\` is at `i` into `out`; returns where the string
/// goes on. In a raw string the backslash and the character after it are kept.
fn escape(text: &[u8], i: usize, raw: bool, out: &mut PyStr) -> Option<usize> {
    let &next = text.get(i + 1)?;
    if raw {
        out.push(u32::from(b'\\'));
        let (cp, len) = super::super::text::cp_at(text, i + 1)?;
        out.push(cp);
        return Some(i + 1 + len);
    }
    let simple = match next {
        b'\n' => return Some(i + 2),
        b'\\' => Some('\\'),
        b'\'' => Some('\''),
        b'"' => Some('"'),
        b'a' => Some('\x07'),
        b'b' => Some('\x08'),
        b'f' => Some('\x0c'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        b'v' => Some('\x0b'),
        _ => None,
    };
    if let Some(c) = simple {
        out.push(c as u32);
        return Some(i + 2);
    }
    let hex_len = match next {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        b'0'..=b'7' => return octal(text, i + 1, out),
        _ => {
            // Python keeps an unknown escape as written, backslash included.
            out.push(u32::from(b'\\'));
            return Some(i + 1);
        }
    };
    let digits = text.get(i + 2..i + 2 + hex_len)?;
    let cp = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
    if cp > 0x10FFFF || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    out.push(cp);
    Some(i + 2 + hex_len)
}

/// An octal escape of one to three digits starting at `i`.
fn octal(text: &[u8], i: usize, out: &mut PyStr) -> Option<usize> {
    let len = text[i..]
        .iter()
        .take(3)
        .take_while(|b| (b'0'..=b'7').contains(b))
        .count();
    let cp = u32::from_str_radix(std::str::from_utf8(&text[i..i + len]).ok()?, 8).ok()?;
    out.push(cp);
    Some(i + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Vec<(String, String)>> {
        let (calls, end) = Reader(text.as_bytes()).calls(0)?;
        (end == text.len()).then(|| {
            calls
                .into_iter()
                .map(|((n, a), _)| (n.to_string(), crate::py::json::dumps(&a).unwrap()))
                .collect()
        })
    }

    #[test]
    fn reads_literals_as_python_does() {
        let calls = read(
            r#"[get_weather(city="Paris", days=3), search(q='it''s', n=-1.5e3, ok=True, none=None, tags=["a", ('b',)], meta={"k": 1_000})]"#,
        );
        assert_eq!(calls, None, "adjacent literals are an expression");
        let calls = read(
            r#"[get_weather(city="Paris", days=3), search(q='it\'s\n', n=-1.5e3, ok=True, none=None, tags=["a", ('b',)], meta={"k": 1_000})]"#,
        )
        .unwrap();
        assert_eq!(
            calls[0],
            (
                "get_weather".into(),
                r#"{"city": "Paris", "days": 3}"#.into()
            )
        );
        assert_eq!(
            calls[1].1,
            r#"{"q": "it's\n", "n": -1500.0, "ok": true, "none": null, "tags": ["a", ["b"]], "meta": {"k": 1000}}"#
        );
    }

    #[test]
    fn strings_quotes_and_escapes() {
        let calls = read(r#"[f(a="""x"y""", b=r'\d+', c='\x41\u00e9\101', d='\q')]"#).unwrap();
        assert_eq!(
            calls[0].1,
            r#"{"a": "x\"y", "b": "\\d+", "c": "A\u00e9A", "d": "\\q"}"#
        );
    }

    #[test]
    fn parentheses_around_one_value_are_no_tuple() {
        let calls = read("[f(a=(1), b=(1,), c=(), d=((2)), e=(1, 2))]").unwrap();
        assert_eq!(
            calls[0].1,
            r#"{"a": 1, "b": [1], "c": [], "d": 2, "e": [1, 2]}"#
        );
    }

    #[test]
    fn expressions_do_not_read() {
        for text in [
            "[f(a=b)]",
            "[f(a=1+2)]",
            "[f(a=g())]",
            "[f(1)]",
            "[f(a=007)]",
            "[f(a=1__0)]",
            "[f(a='x)]",
            "[f(a={1: 2})]",
            "[f(a=1)",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        assert_eq!(read("[]"), Some(vec![]));
    }
}
