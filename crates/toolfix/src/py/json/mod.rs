//! CPython 3.11's `json` module: `json.loads`, `JSONDecoder.raw_decode` and `json.dumps`
//! with their default arguments, reproduced exactly.
//!
//! The real package decodes model output with `json.loads` and `raw_decode`, so whether a
//! tool call is salvaged, and which one, hinges on every quirk of CPython's C scanner
//! (`Modules/_json.c`): which partial numbers `raw_decode` accepts, how escaped surrogates
//! pair up, which error is raised first. The decoder follows that scanner step by step;
//! the encoder follows `c_make_encoder` with `ensure_ascii=True`.
//!
//! Text is generalized UTF-8 (see [`PyStr`]) and every position is a byte
//! offset. Every character the scanner acts on is ASCII, so a byte offset names the same
//! character CPython's code-point index names.

pub(crate) mod decode;
mod encode;
pub(crate) mod transcode;

use std::fmt;

use super::INT_MAX_STR_DIGITS;
use super::exception::PyException;
use super::pystr::PyStr;

pub use decode::{loads, raw_decode};
pub(crate) use decode::{raw_check, skip_whitespace};
pub use encode::dumps;
pub(crate) use encode::{dump_into, write_key, write_str};
// The transcoder is how salvage reads payloads, not part of the JSON API: the fuzz
// targets reach it through `crate::internals`.
pub(crate) use transcode::{
    GaveUp, Transcoded, raw_decode_after, read_back, transcode, transcode_flat_first,
    transcode_object_text,
};

/// Limits the decoder enforces, standing for CPython's interpreter limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Containers (`[`/`{`) that may be open at once; opening one more fails with `TooDeep`
    /// (CPython's RecursionError). Must be <= 4096 (the decoder may recurse this deep).
    ///
    /// This decoder keeps its open containers on the heap, so larger values are safe too,
    /// but the bound keeps the decoded value shallow enough for recursive consumers.
    pub max_depth: usize,
    /// CPython's `sys.get_int_max_str_digits()` (4300): an integer literal with more digits
    /// fails with `IntTooLong` (ValueError). `None` = no limit.
    pub int_max_str_digits: Option<usize>,
}

/// Why `json.loads` or `raw_decode` raised.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// json.JSONDecodeError (a subclass of ValueError in Python, but a different outcome here)
    Syntax {
        /// CPython's `msg`, e.g. `Expecting value`.
        msg: &'static str,
        /// Byte offset of the character CPython's `pos` names.
        pos: usize,
    },
    /// ValueError: "Exceeds the limit (4300 digits) for integer string conversion: value has N digits; use sys.set_int_max_str_digits() to increase the limit"
    IntTooLong {
        /// The digits of the integer literal, sign excluded.
        digits: usize,
    },
    /// RecursionError: "maximum recursion depth exceeded while decoding a JSON array from a unicode string" (or "... a JSON object ...")
    TooDeep {
        /// Whether the container that could not be opened is an object (`{`).
        in_object: bool,
    },
    /// RecursionError: "maximum recursion depth exceeded" (plus " while calling a Python
    /// object" when `while_calling`), raised instead of a `JSONDecodeError` that CPython's C
    /// scanner found with nearly every recursion level in use: building the exception runs
    /// Python code, which needs up to three more levels. `Expecting value` is never
    /// replaced this way, as CPython builds that one at the top.
    RecursionInRaise {
        /// Whether the message ends in " while calling a Python object".
        while_calling: bool,
        /// The message of the syntax error that could not be raised.
        msg: &'static str,
        /// Where that error was found: a text that ends near it may have failed only
        /// because it ended (`may_be_cut_short`).
        pos: usize,
    },
}

impl From<DecodeError> for PyException {
    /// The exception Python raises: `JSONDecodeError`, `ValueError` or `RecursionError`.
    fn from(error: DecodeError) -> PyException {
        let text = error.python_message();
        let message = PyStr::from(text.split_once(": ").map_or("", |(_, text)| text));
        match error {
            DecodeError::Syntax { .. } => PyException::JSONDecodeError { message },
            DecodeError::IntTooLong { .. } => PyException::ValueError { message },
            DecodeError::TooDeep { .. } | DecodeError::RecursionInRaise { .. } => {
                PyException::RecursionError { message }
            }
        }
    }
}

impl DecodeError {
    /// Whether the decode of a text `len` bytes long may have failed only because the
    /// text ended there, so that more text could decode: an unterminated string, or a
    /// syntax error within the last few bytes (a literal, number or `\u` escape cut
    /// short: `tru`, `1.`, `-Infin`, `"\u00`). A syntax error CPython could not raise
    /// for want of recursion levels (`RecursionInRaise`) counts by where it was found:
    /// cut short, the same text may decode once it goes on. Too deep and too long stay
    /// errors whatever follows.
    pub fn may_be_cut_short(&self, len: usize) -> bool {
        /// Longer than any literal (`-Infinity`), number tail (`1e+`) or escape (`\uXXXX`)
        /// that a continuation could still complete.
        const SHORT: usize = 12;
        match self {
            DecodeError::Syntax { msg, pos } | DecodeError::RecursionInRaise { msg, pos, .. } => {
                msg.starts_with("Unterminated string") || pos + SHORT >= len
            }
            _ => false,
        }
    }

    /// What Python prints for the exception: class name, colon, message. A
    /// `JSONDecodeError` is given without CPython's `: line L column C (char N)` suffix.
    pub fn python_message(&self) -> String {
        match self {
            DecodeError::Syntax { msg, .. } => format!("JSONDecodeError: {msg}"),
            DecodeError::IntTooLong { digits } => format!(
                "ValueError: Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer \
                 string conversion: value has {digits} digits; use sys.set_int_max_str_digits() \
                 to increase the limit"
            ),
            DecodeError::TooDeep { in_object } => format!(
                "RecursionError: maximum recursion depth exceeded while decoding a JSON {} \
                 from a unicode string",
                if *in_object { "object" } else { "array" }
            ),
            DecodeError::RecursionInRaise { while_calling, .. } => format!(
                "RecursionError: maximum recursion depth exceeded{}",
                if *while_calling {
                    " while calling a Python object"
                } else {
                    ""
                }
            ),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.python_message())?;
        match self {
            DecodeError::Syntax { pos, .. } => write!(f, " (at byte {pos})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why `json.dumps` raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// TypeError: Object of type ... is not JSON serializable (a Value::Opaque anywhere inside)
    NotSerializable,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::NotSerializable => {
                f.write_str("TypeError: an opaque object is not JSON serializable")
            }
        }
    }
}

impl std::error::Error for EncodeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::Value;

    /// Outcomes CPython 3.11.7 recorded by `scripts/gen_pyjson_testdata.py`.
    const CPYTHON_CASES: &str = include_str!("testdata/cpython-3.11.jsonl");

    /// Limits for reading the test data itself.
    const READ: DecodeLimits = DecodeLimits {
        max_depth: 8,
        int_max_str_digits: None,
    };

    /// One outcome in the shape of a test data line.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        ok: Option<String>,
        end: Option<usize>,
        error: Option<String>,
        error_pos: Option<usize>,
    }

    fn text<'a>(case: &'a Value, name: &str) -> Option<&'a str> {
        case.get(name)?.as_py_str()?.as_str()
    }

    fn number(case: &Value, name: &str) -> Option<usize> {
        match case.get(name)? {
            Value::Int(i) => usize::try_from(i.to_i64()?).ok(),
            _ => None,
        }
    }

    fn expected(case: &Value) -> Outcome {
        Outcome {
            ok: text(case, "ok").map(str::to_owned),
            end: number(case, "end"),
            error: text(case, "error").map(str::to_owned),
            error_pos: number(case, "error_pos"),
        }
    }

    fn actual(decoded: Result<(Value, Option<usize>), DecodeError>) -> Outcome {
        match decoded {
            Ok((value, end)) => Outcome {
                ok: Some(dumps(&value).expect("decoded values are serializable")),
                end,
                error: None,
                error_pos: None,
            },
            Err(e) => Outcome {
                ok: None,
                end: None,
                error: Some(e.python_message()),
                error_pos: match e {
                    DecodeError::Syntax { pos, .. } => Some(pos),
                    _ => None,
                },
            },
        }
    }

    /// Replays every case CPython recorded and requires the identical outcome: the same
    /// `json.dumps` of the decoded value and end offset, or the same exception, message
    /// and position.
    #[test]
    fn replays_cpython_outcomes() {
        let mut lines = CPYTHON_CASES.lines();
        let header = loads(lines.next().unwrap().as_bytes(), READ).unwrap();
        assert_eq!(text(&header, "python"), Some("3.11.7"));
        let limits = |op: &str| DecodeLimits {
            max_depth: number(&header, &format!("max_depth_{op}")).unwrap(),
            int_max_str_digits: number(&header, "int_max_str_digits"),
        };
        let mut failures = Vec::new();
        let mut count = 0;
        for (n, line) in lines.enumerate() {
            let case = loads(line.as_bytes(), READ).unwrap();
            let input = case
                .get("input")
                .and_then(Value::as_py_str)
                .unwrap()
                .as_bytes();
            let op = text(&case, "op").unwrap();
            let got = actual(match op {
                "loads" => loads(input, limits(op)).map(|v| (v, None)),
                "raw_decode" => raw_decode(input, number(&case, "pos").unwrap(), limits(op))
                    .map(|(v, end)| (v, Some(end))),
                _ => panic!("unknown op {op:?}"),
            });
            let want = expected(&case);
            if got != want {
                failures.push(format!("line {}: {line}\n  got {got:?}", n + 2));
            }
            count += 1;
        }
        assert!(count > 800, "only {count} cases");
        assert!(
            failures.is_empty(),
            "{} of {count} cases differ:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
