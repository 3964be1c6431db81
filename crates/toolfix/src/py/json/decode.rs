//! The decoder: `json/decoder.py`'s `JSONDecoder.decode` and `raw_decode` over CPython
//! 3.11's C scanner (`scan_once_unicode`, `scanstring_unicode`, `_parse_object_unicode`,
//! `_parse_array_unicode`, `_match_number_unicode`).
//!
//! CPython recurses once per container; this decoder keeps the open containers in an
//! explicit stack instead, so no input can exhaust the thread's stack, but it visits the
//! text in the same order and so raises the same first error.

use memchr::memchr2;

use super::{DecodeError, DecodeLimits};
use crate::py::{Dict, PyInt, PyStr, Value};

const EXPECTING_VALUE: &str = "Expecting value";
const EXPECTING_NAME: &str = "Expecting property name enclosed in double quotes";
const EXPECTING_COLON: &str = "Expecting ':' delimiter";
const EXPECTING_COMMA: &str = "Expecting ',' delimiter";
const INVALID_CONTROL: &str = "Invalid control character at";
const UNTERMINATED: &str = "Unterminated string starting at";
const INVALID_ESCAPE: &str = "Invalid \\escape";
const INVALID_U_ESCAPE: &str = "Invalid \\uXXXX escape";
const EXTRA_DATA: &str = "Extra data";
const UNEXPECTED_BOM: &str = "Unexpected UTF-8 BOM (decode using utf-8-sig)";

/// U+FEFF in UTF-8.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// json.loads(s) for a str `s` given as generalized UTF-8 bytes (a `&str` or `PyStr::as_bytes()`).
///
/// Bytes that are not generalized UTF-8 cannot come from a Python `str`; should they occur
/// inside a JSON string anyway, each invalid byte decodes to U+FFFD so the result is still
/// a valid `PyStr`.
pub fn loads(text: &[u8], limits: DecodeLimits) -> Result<Value, DecodeError> {
    if text.starts_with(BOM) {
        return Err(syntax(UNEXPECTED_BOM, 0));
    }
    let (value, end) = raw_decode(text, skip_whitespace(text, 0), limits)?;
    let end = skip_whitespace(text, end);
    if end != text.len() {
        return Err(syntax(EXTRA_DATA, end));
    }
    Ok(value)
}

/// json.JSONDecoder().raw_decode(s, pos): decode one value starting exactly at byte `pos` (no whitespace skipping), return it and the byte offset where it ends; trailing text is ignored.
pub fn raw_decode(
    text: &[u8],
    pos: usize,
    limits: DecodeLimits,
) -> Result<(Value, usize), DecodeError> {
    Scanner {
        text,
        limits,
        build: true,
    }
    .scan(pos)
}

/// `raw_decode` without building the value: where the value at `pos` ends, or the error
/// `raw_decode` raises there, the same one. A reader that decodes many values before it
/// knows whether it wants them (the elements of an array that may break at its end)
/// checks first, and pays for no allocation when it does not.
pub fn raw_check(text: &[u8], pos: usize, limits: DecodeLimits) -> Result<usize, DecodeError> {
    Scanner {
        text,
        limits,
        build: false,
    }
    .scan(pos)
    .map(|(_, end)| end)
}

fn syntax(msg: &'static str, pos: usize) -> DecodeError {
    DecodeError::Syntax { msg, pos }
}

/// The offset of the first byte at or after `pos` that is not JSON whitespace
/// (`[ \t\n\r]`, the only whitespace `json` knows).
pub(crate) fn skip_whitespace(text: &[u8], mut pos: usize) -> usize {
    while matches!(text.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// A container that has been opened and not yet closed, with what it holds so far.
enum Open {
    List(Vec<Value>),
    /// The entries so far and the key whose value is being decoded.
    Dict(Dict, PyStr),
}

impl Open {
    /// Stores the value just decoded for this container.
    fn add(&mut self, value: Value) {
        match self {
            Open::List(items) => items.push(value),
            Open::Dict(entries, key) => {
                entries.insert(std::mem::take(key), value);
            }
        }
    }

    fn closer(&self) -> u8 {
        match self {
            Open::List(_) => b']',
            Open::Dict(..) => b'}',
        }
    }

    fn into_value(self) -> Value {
        match self {
            Open::List(items) => Value::List(items),
            Open::Dict(entries, _) => Value::Dict(entries),
        }
    }
}

/// What follows a decoded value.
enum Step {
    /// No container is left open: the outermost value and the offset just past it.
    Done(Value, usize),
    /// The offset of the next value to decode inside the innermost open container.
    Next(usize),
}

/// `scan_once_unicode` and its helpers, over one text.
struct Scanner<'a> {
    text: &'a [u8],
    limits: DecodeLimits,
    /// Whether values are built; without it every string, list and dict comes back empty
    /// and every number `None`, and the errors are the same.
    build: bool,
}

impl Scanner<'_> {
    /// Decodes the value at `pos`; returns it and the offset just past it.
    fn scan(&self, pos: usize) -> Result<(Value, usize), DecodeError> {
        let mut open = Vec::new();
        self.scan_nested(&mut open, pos)
            .map_err(|e| self.raised_at_depth(e, open.len()))
    }

    /// `scan`, with `open` left holding the containers open where an error was met.
    fn scan_nested(
        &self,
        open: &mut Vec<Open>,
        mut pos: usize,
    ) -> Result<(Value, usize), DecodeError> {
        loop {
            let container = match self.text.get(pos) {
                Some(b'[') => Some(Open::List(Vec::new())),
                Some(b'{') => Some(Open::Dict(Dict::default(), PyStr::new())),
                _ => None,
            };
            let (value, end) = match container {
                Some(container) => {
                    self.enter(open.len(), &container)?;
                    let first = skip_whitespace(self.text, pos + 1);
                    if self.text.get(first) == Some(&container.closer()) {
                        (container.into_value(), first + 1)
                    } else {
                        open.push(container);
                        pos = self.item_start(open, first)?;
                        continue;
                    }
                }
                None => self.scalar(pos)?,
            };
            match self.close(open, value, end)? {
                Step::Done(value, end) => return Ok((value, end)),
                Step::Next(next_pos) => pos = next_pos,
            }
        }
    }

    /// `_Py_EnterRecursiveCall` before opening `container`, with `depth` containers open.
    fn enter(&self, depth: usize, container: &Open) -> Result<(), DecodeError> {
        if depth >= self.limits.max_depth {
            let in_object = matches!(container, Open::Dict(..));
            return Err(DecodeError::TooDeep { in_object });
        }
        Ok(())
    }

    /// What CPython raises for `e`, met with `depth` containers open.
    ///
    /// The C scanner raises a syntax error by calling the Python class `JSONDecodeError`,
    /// which takes three more recursion levels (the call, the `__init__` frame, its call of
    /// `ValueError.__init__`). With fewer left, the call itself fails with a
    /// `RecursionError` naming the step that found no room. `Expecting value` is the
    /// exception: the scanner signals it with a bare `StopIteration` that Python turns into
    /// a `JSONDecodeError` at the top.
    fn raised_at_depth(&self, e: DecodeError, depth: usize) -> DecodeError {
        match e {
            DecodeError::Syntax { msg, pos } if msg != EXPECTING_VALUE => {
                match self.limits.max_depth.saturating_sub(depth) {
                    0 | 2 => DecodeError::RecursionInRaise {
                        while_calling: true,
                        msg,
                        pos,
                    },
                    1 => DecodeError::RecursionInRaise {
                        while_calling: false,
                        msg,
                        pos,
                    },
                    _ => e,
                }
            }
            _ => e,
        }
    }

    /// Hands a decoded value (ending at `end`) to the open containers, closing each that
    /// ends right after it.
    fn close(
        &self,
        open: &mut Vec<Open>,
        mut value: Value,
        mut end: usize,
    ) -> Result<Step, DecodeError> {
        while let Some(mut top) = open.pop() {
            if self.build {
                top.add(value);
            }
            let after = skip_whitespace(self.text, end);
            let delimiter = self.text.get(after);
            if delimiter == Some(&top.closer()) {
                value = top.into_value();
                end = after + 1;
                continue;
            }
            open.push(top);
            if delimiter != Some(&b',') {
                return Err(syntax(EXPECTING_COMMA, after));
            }
            let item = skip_whitespace(self.text, after + 1);
            return self.item_start(open, item).map(Step::Next);
        }
        Ok(Step::Done(value, end))
    }

    /// At `pos`, where an item of the innermost open container starts: reads the key and
    /// its `:` when that container is a dict. Returns the offset of the item's value.
    fn item_start(&self, open: &mut [Open], pos: usize) -> Result<usize, DecodeError> {
        match open.last_mut() {
            Some(Open::Dict(_, key)) => {
                let (next_key, value_pos) = self.key(pos)?;
                *key = next_key;
                Ok(value_pos)
            }
            _ => Ok(pos),
        }
    }

    /// An object's key and its `:` at `pos`; returns the key and the offset of its value.
    fn key(&self, pos: usize) -> Result<(PyStr, usize), DecodeError> {
        if self.text.get(pos) != Some(&b'"') {
            return Err(syntax(EXPECTING_NAME, pos));
        }
        let (key, end) = self.string(pos + 1)?;
        let colon = skip_whitespace(self.text, end);
        if self.text.get(colon) != Some(&b':') {
            return Err(syntax(EXPECTING_COLON, colon));
        }
        Ok((key, skip_whitespace(self.text, colon + 1)))
    }

    /// A string, a named constant or a number at `pos`.
    fn scalar(&self, pos: usize) -> Result<(Value, usize), DecodeError> {
        let rest = self.text.get(pos..).unwrap_or_default();
        let constant = match rest.first() {
            Some(b'"') => {
                let (s, end) = self.string(pos + 1)?;
                return Ok((Value::Str(s), end));
            }
            Some(b'n') => constant(rest, b"null", Value::None),
            Some(b't') => constant(rest, b"true", Value::Bool(true)),
            Some(b'f') => constant(rest, b"false", Value::Bool(false)),
            Some(b'N') => constant(rest, b"NaN", Value::Float(f64::NAN)),
            Some(b'I') => constant(rest, b"Infinity", Value::Float(f64::INFINITY)),
            Some(b'-') => constant(rest, b"-Infinity", Value::Float(f64::NEG_INFINITY)),
            _ => None,
        };
        match constant {
            Some((value, len)) => Ok((value, pos + len)),
            None => self.number(pos),
        }
    }

    /// `_match_number_unicode`: the longest prefix at `start` that is a JSON number, where
    /// a `.` or exponent without digits after it is left out rather than an error.
    fn number(&self, start: usize) -> Result<(Value, usize), DecodeError> {
        let text = self.text;
        let int_start = start + usize::from(text.get(start) == Some(&b'-'));
        let int_end = match text.get(int_start) {
            Some(b'0') => int_start + 1,
            Some(b'1'..=b'9') => digits_end(text, int_start + 1),
            _ => return Err(syntax(EXPECTING_VALUE, start)),
        };
        let mut end = int_end;
        if text.get(end) == Some(&b'.') && text.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end = digits_end(text, end + 2);
        }
        if matches!(text.get(end), Some(b'e' | b'E')) {
            let exp_digits = end + 1 + usize::from(matches!(text.get(end + 1), Some(b'+' | b'-')));
            let exp_end = digits_end(text, exp_digits);
            if exp_end > exp_digits {
                end = exp_end;
            }
        }
        let literal = std::str::from_utf8(&text[start..end]).unwrap_or_default();
        let value = if end == int_end {
            self.int(literal, int_end - int_start)?
        } else {
            literal.parse().ok().map(Value::Float)
        };
        value
            .map(|v| (v, end))
            .ok_or_else(|| syntax(EXPECTING_VALUE, start))
    }

    /// `int(literal)` for `digits` decimal digits: refused past `int_max_str_digits`, as
    /// `PyLong_FromString` refuses.
    fn int(&self, literal: &str, digits: usize) -> Result<Option<Value>, DecodeError> {
        match self.limits.int_max_str_digits {
            Some(max) if digits > max => Err(DecodeError::IntTooLong { digits }),
            _ if !self.build => Ok(Some(Value::None)),
            _ => Ok(PyInt::from_decimal(literal).map(Value::Int)),
        }
    }

    /// `scanstring_unicode`: the string whose opening quote is just before `start`; returns
    /// it and the offset just past its closing quote.
    fn string(&self, start: usize) -> Result<(PyStr, usize), DecodeError> {
        let begin = start - 1;
        let mut out = PyStr::new();
        let mut pos = start;
        loop {
            let rest = self.text.get(pos..).unwrap_or_default();
            let stop = memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
            let chunk = &rest[..stop];
            if let Some(control) = chunk.iter().position(|&b| b < 0x20) {
                return Err(syntax(INVALID_CONTROL, pos + control));
            }
            let Some(&delimiter) = rest.get(stop) else {
                return Err(syntax(UNTERMINATED, begin));
            };
            if self.build {
                push_raw(&mut out, chunk);
            }
            pos += stop;
            if delimiter == b'"' {
                return Ok((out, pos + 1));
            }
            pos = self.escape(&mut out, pos, begin)?;
        }
    }

    /// The escape whose backslash is at `backslash`, in a string whose opening quote is at
    /// `begin`; returns the offset after the escape.
    fn escape(
        &self,
        out: &mut PyStr,
        backslash: usize,
        begin: usize,
    ) -> Result<usize, DecodeError> {
        let decoded = match self.text.get(backslash + 1) {
            None => return Err(syntax(UNTERMINATED, begin)),
            Some(b'u') => return self.unicode_escape(out, backslash + 1),
            Some(&c @ (b'"' | b'\\' | b'/')) => c,
            Some(b'b') => 0x08,
            Some(b'f') => 0x0C,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(_) => return Err(syntax(INVALID_ESCAPE, backslash)),
        };
        out.push(decoded.into());
        Ok(backslash + 2)
    }

    /// A `\uXXXX` escape whose `u` is at `u`. A high surrogate directly followed by a
    /// `\uXXXX` low surrogate combines with it; every other surrogate stays alone.
    fn unicode_escape(&self, out: &mut PyStr, u: usize) -> Result<usize, DecodeError> {
        let unit = self.hex4(u)?;
        let end = u + 5;
        let is_high = (0xD800..0xDC00).contains(&unit);
        if is_high && self.text.get(end..end + 2) == Some(&b"\\u"[..]) {
            // CPython decodes these digits before deciding, so bad ones fail here.
            let low = self.hex4(end + 1)?;
            if (0xDC00..0xE000).contains(&low) {
                out.push(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                return Ok(end + 6);
            }
        }
        out.push(unit);
        Ok(end)
    }

    /// The four hex digits after the `u` at `u`. CPython also insists on one more
    /// character after them, so a text ending right after the digits is an error too.
    fn hex4(&self, u: usize) -> Result<u32, DecodeError> {
        let invalid = || syntax(INVALID_U_ESCAPE, u);
        if self.text.len() <= u + 5 {
            return Err(invalid());
        }
        self.text[u + 1..u + 5].iter().try_fold(0, |unit, &b| {
            let digit = char::from(b).to_digit(16).ok_or_else(invalid)?;
            Ok(unit << 4 | digit)
        })
    }
}

/// Matches the named constant `word` at the start of `rest`: `(value, length)`.
fn constant(rest: &[u8], word: &[u8], value: Value) -> Option<(Value, usize)> {
    rest.starts_with(word).then_some((value, word.len()))
}

/// The offset of the first byte at or after `pos` that is not an ASCII digit.
fn digits_end(text: &[u8], pos: usize) -> usize {
    let rest = text.get(pos..).unwrap_or_default();
    pos + rest.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Appends raw string content: generalized UTF-8 as is, any other byte as U+FFFD.
fn push_raw(out: &mut PyStr, mut chunk: &[u8]) {
    loop {
        match std::str::from_utf8(chunk) {
            Ok(_) => return out.push_generalized_utf8(chunk),
            Err(e) => {
                let (valid, rest) = chunk.split_at(e.valid_up_to());
                out.push_generalized_utf8(valid);
                let len = match surrogate_len(rest) {
                    Some(len) => {
                        out.push_generalized_utf8(&rest[..len]);
                        len
                    }
                    None => {
                        out.push(0xFFFD);
                        1
                    }
                };
                chunk = &rest[len..];
            }
        }
    }
}

/// 3 when `bytes` starts with an encoded surrogate (`ED A0..BF 80..BF`), the one sequence
/// generalized UTF-8 adds to UTF-8.
fn surrogate_len(bytes: &[u8]) -> Option<usize> {
    match bytes {
        [0xED, 0xA0..=0xBF, 0x80..=0xBF, ..] => Some(3),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::dumps;
    use super::*;

    /// CPython's limits when `json.loads` is called from a module-level function.
    const LIMITS: DecodeLimits = DecodeLimits {
        max_depth: 993,
        int_max_str_digits: Some(4300),
    };

    /// `ok <json.dumps of the value>` or the exception, with ` @<byte offset>` for a
    /// `JSONDecodeError`: the form the tables below were printed in by CPython 3.11.7.
    fn describe(decoded: Result<Value, DecodeError>) -> String {
        match decoded {
            Ok(value) => format!("ok {}", dumps(&value).unwrap()),
            Err(e @ DecodeError::Syntax { pos, .. }) => format!("{} @{pos}", e.python_message()),
            Err(e) => e.python_message(),
        }
    }

    fn check_loads(cases: &[(&str, &str)]) {
        for (text, want) in cases {
            assert_eq!(
                describe(loads(text.as_bytes(), LIMITS)),
                *want,
                "json.loads({text:?})"
            );
        }
    }

    fn code_points(decoded: Result<Value, DecodeError>) -> Vec<u32> {
        match decoded {
            Ok(Value::Str(s)) => s.code_points().collect(),
            other => panic!("not a string: {other:?}"),
        }
    }

    /// Expectations printed by CPython 3.11.7.
    #[test]
    fn constants_and_whitespace() {
        check_loads(&[
            ("null", "ok null"),
            ("true", "ok true"),
            ("false", "ok false"),
            ("NaN", "ok NaN"),
            ("Infinity", "ok Infinity"),
            ("-Infinity", "ok -Infinity"),
            ("Null", "JSONDecodeError: Expecting value @0"),
            ("nul", "JSONDecodeError: Expecting value @0"),
            ("NULL", "JSONDecodeError: Expecting value @0"),
            ("nan", "JSONDecodeError: Expecting value @0"),
            ("-infinity", "JSONDecodeError: Expecting value @0"),
            ("-Inf", "JSONDecodeError: Expecting value @0"),
            ("Infinityx", "JSONDecodeError: Extra data @8"),
            (" \t\n\rtrue\r\n", "ok true"),
            ("\u{a0}true", "JSONDecodeError: Expecting value @0"),
            ("true\u{a0}", "JSONDecodeError: Extra data @4"),
            ("\u{3000}true", "JSONDecodeError: Expecting value @0"),
            (
                "\u{feff}true",
                "JSONDecodeError: Unexpected UTF-8 BOM (decode using utf-8-sig) @0",
            ),
            ("", "JSONDecodeError: Expecting value @0"),
            (" ", "JSONDecodeError: Expecting value @1"),
            ("[1] [2]", "JSONDecodeError: Extra data @4"),
        ]);
    }

    /// Expectations printed by CPython 3.11.7.
    #[test]
    fn numbers() {
        check_loads(&[
            ("0", "ok 0"),
            ("-0", "ok 0"),
            ("-0.0", "ok -0.0"),
            ("0.0", "ok 0.0"),
            ("12", "ok 12"),
            ("-12", "ok -12"),
            ("01", "JSONDecodeError: Extra data @1"),
            ("-01", "JSONDecodeError: Extra data @2"),
            ("1.", "JSONDecodeError: Extra data @1"),
            ("1.e5", "JSONDecodeError: Extra data @1"),
            (".5", "JSONDecodeError: Expecting value @0"),
            ("1e", "JSONDecodeError: Extra data @1"),
            ("1e+", "JSONDecodeError: Extra data @1"),
            ("1E5", "ok 100000.0"),
            ("1e-5", "ok 1e-05"),
            ("1.5e-07", "ok 1.5e-07"),
            ("1e16", "ok 1e+16"),
            ("12345678901234567890.5", "ok 1.2345678901234567e+19"),
            ("1e400", "ok Infinity"),
            ("-1e400", "ok -Infinity"),
            ("1e-400", "ok 0.0"),
            ("-1e-400", "ok -0.0"),
            ("1e99999999999999999999", "ok Infinity"),
            ("0e99999999999999999999", "ok 0.0"),
            ("-", "JSONDecodeError: Expecting value @0"),
            ("-x", "JSONDecodeError: Expecting value @0"),
            ("--1", "JSONDecodeError: Expecting value @0"),
            ("+1", "JSONDecodeError: Expecting value @0"),
            ("\u{661}", "JSONDecodeError: Expecting value @0"),
            ("1\u{661}", "JSONDecodeError: Extra data @1"),
            ("0x1", "JSONDecodeError: Extra data @1"),
            ("1_0", "JSONDecodeError: Extra data @1"),
            (
                "123456789012345678901234567890",
                "ok 123456789012345678901234567890",
            ),
            ("[-]", "JSONDecodeError: Expecting value @1"),
            ("[1.]", "JSONDecodeError: Expecting ',' delimiter @2"),
            ("[01]", "JSONDecodeError: Expecting ',' delimiter @2"),
        ]);
    }

    /// Expectations printed by CPython 3.11.7.
    #[test]
    fn strings_and_escapes() {
        check_loads(&[
            ("\"\"", "ok \"\""),
            (
                "\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"",
                "ok \"a\\\"b\\\\c/d\\be\\ff\\ng\\rh\\ti\"",
            ),
            (
                "\"\\u0041\\u00e9\\u00E9\\uABCD\"",
                "ok \"A\\u00e9\\u00e9\\uabcd\"",
            ),
            (
                "\"\\ud83d\\ude0\"",
                "JSONDecodeError: Invalid \\uXXXX escape @8",
            ),
            (
                "\"\\ud83d\\uzzzz\"",
                "JSONDecodeError: Invalid \\uXXXX escape @8",
            ),
            (
                "\"\\ud83d\\ude00",
                "JSONDecodeError: Invalid \\uXXXX escape @8",
            ),
            ("\"\\u0041", "JSONDecodeError: Invalid \\uXXXX escape @2"),
            ("\"\\u004\"", "JSONDecodeError: Invalid \\uXXXX escape @2"),
            ("\"\\u004g\"", "JSONDecodeError: Invalid \\uXXXX escape @2"),
            (
                "\"\\u00\u{e9}x\"",
                "JSONDecodeError: Invalid \\uXXXX escape @2",
            ),
            ("\"\\x\"", "JSONDecodeError: Invalid \\escape @1"),
            ("\"\\U0041\"", "JSONDecodeError: Invalid \\escape @1"),
            (
                "\"\\",
                "JSONDecodeError: Unterminated string starting at @0",
            ),
            (
                "\"abc",
                "JSONDecodeError: Unterminated string starting at @0",
            ),
            (
                "\"a\u{0}b\"",
                "JSONDecodeError: Invalid control character at @2",
            ),
            (
                "\"a\u{1f}",
                "JSONDecodeError: Invalid control character at @2",
            ),
            (
                "\"a\u{7f}\u{2028}\u{1f600}\"",
                "ok \"a\\u007f\\u2028\\ud83d\\ude00\"",
            ),
            (
                "\"\u{1f}\\q\"",
                "JSONDecodeError: Invalid control character at @1",
            ),
            ("\"\\q\u{1f}\"", "JSONDecodeError: Invalid \\escape @1"),
            (
                "[\"\u{e9}\", \"\\x\"]",
                "JSONDecodeError: Invalid \\escape @8",
            ),
        ]);
    }

    /// Which escaped surrogates pair up, as CPython 3.11.7 decides.
    #[test]
    fn escaped_surrogates() {
        let cases: &[(&str, &[u32])] = &[
            ("\"\\ud83d\\ude00\"", &[0x1F600]),
            ("\"\\uD83D\\uDE00\"", &[0x1F600]),
            ("\"\\udbff\\udfff\"", &[0x10FFFF]),
            ("\"\\ud83d\"", &[0xD83D]),
            ("\"\\ude00\"", &[0xDE00]),
            ("\"\\ude00\\ud83d\"", &[0xDE00, 0xD83D]),
            ("\"\\ud83d\\ud83d\\ude00\"", &[0xD83D, 0x1F600]),
            ("\"\\ud83d\\u0041\"", &[0xD83D, 0x41]),
            ("\"\\ud83dx\\ude00\"", &[0xD83D, 0x78, 0xDE00]),
            ("\"\\ud83d\\n\"", &[0xD83D, 0x0A]),
            ("\"\\u0000\"", &[0]),
        ];
        for (text, want) in cases {
            assert_eq!(code_points(loads(text.as_bytes(), LIMITS)), *want, "{text}");
        }
    }

    /// Raw surrogates (generalized UTF-8 `ED A0..BF xx`) are copied as they are and never
    /// pair up, with each other or with escapes, as in CPython 3.11.7.
    #[test]
    fn raw_surrogates_stay_alone() {
        let cases: &[(&[u8], &[u32])] = &[
            (b"\"\xED\xA0\xBD\xED\xB8\x80\"", &[0xD83D, 0xDE00]),
            (b"\"\xED\xA0\xBD\\ude00\"", &[0xD83D, 0xDE00]),
            (b"\"\\ud83d\xED\xB8\x80\"", &[0xD83D, 0xDE00]),
            (
                b"\"a\xED\xBF\xBF\xF0\x9F\x98\x80\"",
                &[0x61, 0xDFFF, 0x1F600],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(code_points(loads(text, LIMITS)), *want, "{text:?}");
        }
    }

    /// Bytes no Python `str` can hold become U+FFFD instead of an invalid `PyStr`.
    #[test]
    fn invalid_bytes_become_replacement_characters() {
        let cases: &[(&[u8], &[u32])] = &[
            (b"\"\xFF\"", &[0xFFFD]),
            (b"\"a\xE2\x82\"", &[0x61, 0xFFFD, 0xFFFD]),
            (b"\"\xC0\x80\xED\xA0\"", &[0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD]),
            (b"\"\x80\xE2\x82\xAC\"", &[0xFFFD, 0x20AC]),
        ];
        for (text, want) in cases {
            assert_eq!(code_points(loads(text, LIMITS)), *want, "{text:?}");
        }
        assert_eq!(
            loads(b"\xFF", LIMITS),
            Err(DecodeError::Syntax {
                msg: EXPECTING_VALUE,
                pos: 0
            })
        );
    }

    /// Expectations printed by CPython 3.11.7.
    #[test]
    fn containers() {
        check_loads(&[
            ("[]", "ok []"),
            ("{}", "ok {}"),
            ("[ ]", "ok []"),
            ("{ \n}", "ok {}"),
            ("[1,2]", "ok [1, 2]"),
            (" [ 1 , [ 2 , { } ] ] ", "ok [1, [2, {}]]"),
            ("[1,]", "JSONDecodeError: Expecting value @3"),
            ("[,1]", "JSONDecodeError: Expecting value @1"),
            ("[1 2]", "JSONDecodeError: Expecting ',' delimiter @3"),
            ("[1,,2]", "JSONDecodeError: Expecting value @3"),
            ("[", "JSONDecodeError: Expecting value @1"),
            ("[1", "JSONDecodeError: Expecting ',' delimiter @2"),
            ("[1,", "JSONDecodeError: Expecting value @3"),
            ("]", "JSONDecodeError: Expecting value @0"),
            (
                "{",
                "JSONDecodeError: Expecting property name enclosed in double quotes @1",
            ),
            ("{\"a\"", "JSONDecodeError: Expecting ':' delimiter @4"),
            ("{\"a\":", "JSONDecodeError: Expecting value @5"),
            ("{\"a\":1", "JSONDecodeError: Expecting ',' delimiter @6"),
            (
                "{\"a\":1,",
                "JSONDecodeError: Expecting property name enclosed in double quotes @7",
            ),
            (
                "{\"a\":1,}",
                "JSONDecodeError: Expecting property name enclosed in double quotes @7",
            ),
            (
                "{,}",
                "JSONDecodeError: Expecting property name enclosed in double quotes @1",
            ),
            ("{\"a\" 1}", "JSONDecodeError: Expecting ':' delimiter @5"),
            (
                "{\"a\":1 \"b\":2}",
                "JSONDecodeError: Expecting ',' delimiter @7",
            ),
            (
                "{'a':1}",
                "JSONDecodeError: Expecting property name enclosed in double quotes @1",
            ),
            (
                "{a:1}",
                "JSONDecodeError: Expecting property name enclosed in double quotes @1",
            ),
            (
                "{1:1}",
                "JSONDecodeError: Expecting property name enclosed in double quotes @1",
            ),
            ("{\"a\":1,\"b\":2,\"a\":3}", "ok {\"a\": 3, \"b\": 2}"),
            (
                "{\"a\":{\"b\":[1,{\"c\":null}]},\"d\":[]}",
                "ok {\"a\": {\"b\": [1, {\"c\": null}]}, \"d\": []}",
            ),
            ("{\"\":\"\"}", "ok {\"\": \"\"}"),
            ("[1]]", "JSONDecodeError: Extra data @3"),
            (
                "[\"a\" \"b\"]",
                "JSONDecodeError: Expecting ',' delimiter @5",
            ),
            ("[1e, 2]", "JSONDecodeError: Expecting ',' delimiter @2"),
            (
                "{\"\\ud83d\\ude00\":\"\\ud800\"}",
                "ok {\"\\ud83d\\ude00\": \"\\ud800\"}",
            ),
            ("{\"a\" : 1 , \"b\"\t:\n[ ] }", "ok {\"a\": 1, \"b\": []}"),
        ]);
    }

    /// `raw_decode(s, pos)`: `(text, byte pos, outcome)`, printed by CPython 3.11.7.
    /// `raw_check` ends where `raw_decode` ends and raises what it raises, on values and
    /// on every kind of error, under tight limits too.
    #[test]
    fn raw_check_agrees_with_raw_decode() {
        let texts = [
            r#"{"a": [1, 2.5, "x\u00e9\ud83d\ude00", true, null], "b": {}} tail"#,
            r#"[{"name": "a", "arguments": {"x": "y"}}, "#,
            r#"{"a": "unterminated"#,
            r#"{"a" 1}"#,
            r#"[1, 2 3]"#,
            r#"{"a": "bad \q escape"}"#,
            r#"{"a": "\u12"}"#,
            "[\"control \u{1} char\"]",
            "[[[[[[[[1]]]]]]]]",
            "[[[[[[[[1, }]]]]]]]",
            "12345678901234567890",
            "-Infinity NaN",
            "",
        ];
        let tight = DecodeLimits {
            max_depth: 3,
            int_max_str_digits: Some(5),
        };
        for limits in [LIMITS, tight] {
            for text in texts {
                let decoded = raw_decode(text.as_bytes(), 0, limits);
                assert_eq!(
                    raw_check(text.as_bytes(), 0, limits),
                    decoded.map(|(_, end)| end),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn raw_decode_ends() {
        let cases: &[(&str, usize, &str)] = &[
            ("1.", 0, "ok 1 end=1"),
            ("1e", 0, "ok 1 end=1"),
            ("1e+", 0, "ok 1 end=1"),
            ("1.5e", 0, "ok 1.5 end=3"),
            ("01", 0, "ok 0 end=1"),
            ("-0x", 0, "ok 0 end=2"),
            ("12abc", 0, "ok 12 end=2"),
            ("  1", 0, "JSONDecodeError: Expecting value @0"),
            ("  1", 2, "ok 1 end=3"),
            ("[1] x", 0, "ok [1] end=3"),
            ("abc", 3, "JSONDecodeError: Expecting value @3"),
            ("abc", 5, "JSONDecodeError: Expecting value @5"),
            ("x{}", 1, "ok {} end=3"),
            ("\"a\"b", 0, "ok \"a\" end=3"),
            ("nullnull", 4, "ok null end=8"),
            ("[1,2] [3]", 6, "ok [3] end=9"),
            ("\u{e9}1", 2, "ok 1 end=3"),
            ("\u{e9}1", 1, "JSONDecodeError: Expecting value @1"),
            ("\u{e9}\u{e9}[1]", 4, "ok [1] end=7"),
            ("\u{1f600}{}", 4, "ok {} end=6"),
            ("\u{feff}1", 3, "ok 1 end=4"),
            ("NaN1", 0, "ok NaN end=3"),
            ("-Infinityx", 0, "ok -Infinity end=9"),
            ("-Infinit", 0, "JSONDecodeError: Expecting value @0"),
            ("{\"a\":1}}", 0, "ok {\"a\": 1} end=7"),
            ("truefalse", 4, "ok false end=9"),
            ("1e5x", 0, "ok 100000.0 end=3"),
            ("0.5.5", 0, "ok 0.5 end=3"),
            ("-0.0e", 0, "ok -0.0 end=4"),
            ("1E-2.", 0, "ok 0.01 end=4"),
            ("\"\u{e9}\"", 0, "ok \"\\u00e9\" end=4"),
            ("[1, 2", 0, "JSONDecodeError: Expecting ',' delimiter @5"),
            ("\u{e9}", 0, "JSONDecodeError: Expecting value @0"),
        ];
        for (text, pos, want) in cases {
            let got = match raw_decode(text.as_bytes(), *pos, LIMITS) {
                Ok((value, end)) => format!("ok {} end={end}", dumps(&value).unwrap()),
                Err(e) => describe(Err(e)),
            };
            assert_eq!(got, *want, "raw_decode({text:?}, {pos})");
        }
    }

    /// An over-long integer raises where the scan meets it, before any later syntax error
    /// but after any earlier one; floats have no limit. Messages printed by CPython 3.11.7.
    #[test]
    fn long_integers() {
        let digits = |n| "1".repeat(n);
        let too_long = |n| {
            format!(
                "ValueError: Exceeds the limit (4300 digits) for integer string conversion: \
                 value has {n} digits; use sys.set_int_max_str_digits() to increase the limit"
            )
        };
        let cases = [
            (format!("[{}, ]]]", digits(5000)), too_long(5000)),
            (format!("{{\"a\": {}, x", digits(4301)), too_long(4301)),
            (format!("-{}", digits(4301)), too_long(4301)),
            (
                format!("[1, ]{}", digits(5000)),
                "JSONDecodeError: Expecting value @4".to_owned(),
            ),
            (
                format!("[\"\\q\", {}]", digits(4301)),
                "JSONDecodeError: Invalid \\escape @2".to_owned(),
            ),
            (format!("[{}, \"\\q\"]", digits(4301)), too_long(4301)),
            (digits(4300), format!("ok {}", digits(4300))),
            (format!("{}.0", digits(4301)), "ok Infinity".to_owned()),
        ];
        for (text, want) in &cases {
            assert_eq!(
                describe(loads(text.as_bytes(), LIMITS)),
                *want,
                "{}",
                &text[..20]
            );
        }
        let unlimited = DecodeLimits {
            int_max_str_digits: None,
            ..LIMITS
        };
        let huge = digits(100_000);
        assert_eq!(
            describe(loads(huge.as_bytes(), unlimited)),
            format!("ok {huge}")
        );
        let five = DecodeLimits {
            int_max_str_digits: Some(5),
            ..LIMITS
        };
        assert_eq!(
            loads(b"-12345", five).map(|v| dumps(&v).unwrap()),
            Ok("-12345".to_owned())
        );
        assert_eq!(
            loads(b"123456", five),
            Err(DecodeError::IntTooLong { digits: 6 })
        );
        assert_eq!(loads(b"123456.0", five), Ok(Value::Float(123456.0)));
    }

    /// Opening a container with `max_depth` open raises at once, before whatever follows;
    /// an error met earlier in the scan wins. (CPython shows the same at its own limit:
    /// see the replayed test data.)
    #[test]
    fn depth_limit() {
        let three = DecodeLimits {
            max_depth: 3,
            ..LIMITS
        };
        let array = Err(DecodeError::TooDeep { in_object: false });
        let object = Err(DecodeError::TooDeep { in_object: true });
        assert!(loads(b"[[[]]]", three).is_ok());
        assert!(loads(b"[{\"a\":[1, {}, []]}, []]", three).is_err());
        assert!(loads(b"[{\"a\":[1, 2]}, [], {}]", three).is_ok());
        assert_eq!(loads(b"[[[[]]]]", three), array);
        assert_eq!(loads(b"[[[{}]]]", three), object);
        assert_eq!(loads(b"[[[[\"\\q", three), array);
        assert_eq!(loads(b"[[{\"a\":{", three), object);
        assert_eq!(loads(b"[{\"a\":[[", three), array);
        let five = DecodeLimits {
            max_depth: 5,
            ..LIMITS
        };
        assert_eq!(
            loads(b"[1 2 [[[[[[", five),
            Err(DecodeError::Syntax {
                msg: EXPECTING_COMMA,
                pos: 3
            })
        );
        assert_eq!(
            loads(b"[[[x", three),
            Err(DecodeError::Syntax {
                msg: EXPECTING_VALUE,
                pos: 3
            })
        );
        assert_eq!(
            raw_decode(b"[[[[", 1, three),
            Err(DecodeError::Syntax {
                msg: EXPECTING_VALUE,
                pos: 4
            })
        );
        assert_eq!(
            DecodeError::TooDeep { in_object: true }.python_message(),
            "RecursionError: maximum recursion depth exceeded while decoding a JSON object \
             from a unicode string"
        );
    }

    /// A syntax error met with `max_depth - k` containers open for k < 3 is a
    /// RecursionError, as CPython 3.11.7 shows at its limit (see the replayed test data):
    /// k = 0 and 2 fail calling `JSONDecodeError`, k = 1 entering its `__init__`.
    #[test]
    fn syntax_errors_too_deep_to_raise() {
        let three = DecodeLimits {
            max_depth: 3,
            ..LIMITS
        };
        // The message Python prints, and where the error it stands for was found.
        let raised = |text: &[u8], limits| {
            loads(text, limits).map_err(|e| match e {
                DecodeError::RecursionInRaise { pos, .. } => (e.python_message(), pos),
                e => (e.python_message(), usize::MAX),
            })
        };
        let calling = |pos| {
            Err((
                "RecursionError: maximum recursion depth exceeded while calling a Python object"
                    .to_owned(),
                pos,
            ))
        };
        let plain = |pos| {
            Err((
                "RecursionError: maximum recursion depth exceeded".to_owned(),
                pos,
            ))
        };
        assert_eq!(raised(b"[[[1 2", three), calling(5));
        assert_eq!(raised(b"[[{\"a\" 1", three), calling(7));
        assert_eq!(raised(b"[[\"\\q\"", three), plain(3));
        assert_eq!(raised(b"[{1", three), plain(2));
        assert_eq!(raised(b"[\"\x00\"", three), calling(2));
        assert_eq!(
            loads(b"\"\\u12\"", three),
            Err(DecodeError::Syntax {
                msg: INVALID_U_ESCAPE,
                pos: 2
            })
        );
        assert_eq!(raised(b"[[[]] x", three), calling(6));
        let four = DecodeLimits {
            max_depth: 4,
            ..LIMITS
        };
        assert_eq!(
            loads(b"[[[]] x", four),
            Err(DecodeError::Syntax {
                msg: EXPECTING_COMMA,
                pos: 6
            })
        );
        assert_eq!(
            loads(b"[[[]]] x", three),
            Err(DecodeError::Syntax {
                msg: EXTRA_DATA,
                pos: 7
            })
        );
        let zero = DecodeLimits {
            max_depth: 0,
            ..LIMITS
        };
        assert_eq!(raised(b"\"\\q\"", zero), calling(1));
        assert_eq!(loads(b"1", zero), Ok(Value::int(1)));
        // A text cut short at that depth may still decode once it goes on.
        let cut = loads(b"[[[1", three).unwrap_err();
        assert!(matches!(cut, DecodeError::RecursionInRaise { .. }));
        assert!(cut.may_be_cut_short(4));
    }

    /// Depth costs heap, not stack: a text nested far deeper than any thread's stack
    /// allows is scanned to its end.
    #[test]
    fn deep_nesting_does_not_use_the_stack() {
        let deep = "[".repeat(1_000_000);
        let limits = DecodeLimits {
            max_depth: 2_000_000,
            ..LIMITS
        };
        assert_eq!(
            loads(deep.as_bytes(), limits),
            Err(DecodeError::Syntax {
                msg: EXPECTING_VALUE,
                pos: 1_000_000
            })
        );
        let nested = format!("{}1{}", "[{\"k\":".repeat(2048), "}]".repeat(2048));
        let decoded = loads(
            nested.as_bytes(),
            DecodeLimits {
                max_depth: 4096,
                ..LIMITS
            },
        );
        let printed = format!("{}1{}", "[{\"k\": ".repeat(2048), "}]".repeat(2048));
        assert_eq!(dumps(&decoded.unwrap()), Ok(printed));
    }
}
