//! Mistral's `[TOOL_CALLS]`, as its tokenizers (`mistral-common`) write calls:
//!
//! * tokenizers v2 to v7 (Mistral 7B v0.3, Mixtral 8x22B, Nemo): one `[TOOL_CALLS]` then
//!   a JSON array of `{"name", "arguments"}` objects (an `"id"` may be there too), read
//!   as `call_array` reads such arrays;
//! * v11 and later (Mistral Small 3.1+, Ministral 3, Devstral, Magistral): each call is
//!   `[TOOL_CALLS]NAME[ARGS]{…}`, or `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}` where the
//!   template carries call ids.
//!
//! Text before the first `[TOOL_CALLS]` is the reply's content. The arguments are a JSON
//! object with no closing token: they end where the object ends. A v11 call may also be
//! followed directly by the next `NAME[ARGS]{…}` without a second `[TOOL_CALLS]`, as some
//! generations write it. Arguments that are not an object make no call (mistral-common
//! rejects them), and the block stays reserved.

use std::ops::Range;

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::call_array;
use super::token::at;
use crate::py::{PyStr, Value};

const TOOL_CALLS: &[u8] = b"[TOOL_CALLS]";
const ARGS: &[u8] = b"[ARGS]";
const CALL_ID: &[u8] = b"[CALL_ID]";
/// The longest name or call id read before `[ARGS]`: longer is not a call.
const MAX_NAME: usize = 256;

/// Adds a candidate for every call after a `[TOOL_CALLS]`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    let mut resume = 0;
    for start in memchr::memmem::find_iter(text, TOOL_CALLS) {
        if start < resume {
            continue;
        }
        let body = skip_space(text, start + TOOL_CALLS.len());
        resume = if text.get(body) == Some(&b'[') {
            call_array::scan(payloads, start, body, Dialect::Mistral, out)
        } else {
            calls(payloads, start, body, out)
        };
    }
}

/// The v11 form: `NAME[ARGS]{…}` (or with `[CALL_ID]ID`) at `at`, and any calls that follow
/// it directly. Returns where scanning resumes.
fn calls(payloads: &Payloads<'_>, start: usize, mut at: usize, out: &mut Vec<Candidate>) -> usize {
    let text = payloads.text();
    let mut first = Some(start);
    loop {
        let Some((name, args)) = head(text, at) else {
            if let Some(start) = first {
                out.push(rejected(start..at));
            }
            return at;
        };
        let call_start = first.take().unwrap_or(at);
        let Some((value, end)) = payloads.value_at(args) else {
            out.push(rejected(call_start..args));
            return args;
        };
        let found = match value {
            Value::Dict(_) if payloads.allows(&name) => Some(Found { name, args: value }),
            _ => None,
        };
        out.push(Candidate {
            span: call_start..end,
            dialect: Dialect::Mistral,
            found,
        });
        at = skip_space(text, end);
        if at == text.len() || text[at..].starts_with(TOOL_CALLS) {
            return end;
        }
    }
}

/// `NAME[ARGS]` or `NAME[CALL_ID]ID[ARGS]` at `at`: the name and where the arguments start.
fn head(text: &[u8], at: usize) -> Option<(PyStr, usize)> {
    let name_end = token_word(text, at)?;
    let name = PyStr::from_generalized_utf8(&text[at..name_end]);
    if let Some(args) = at_token(text, name_end, ARGS) {
        return Some((name, args));
    }
    let id_start = at_token(text, name_end, CALL_ID)?;
    let id_end = token_word(text, id_start)?;
    Some((name, at_token(text, id_end, ARGS)?))
}

/// The end of a run of 1 to `MAX_NAME` bytes at `at` with no whitespace and no `[`.
fn token_word(text: &[u8], at: usize) -> Option<usize> {
    let len = text
        .get(at..)?
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|b| !b.is_ascii_whitespace() && **b != b'[')
        .count();
    (1..=MAX_NAME).contains(&len).then_some(at + len)
}

/// The end of `token` at `i`, whitespace after it skipped.
fn at_token(text: &[u8], i: usize, token: &[u8]) -> Option<usize> {
    at(text, i, token).map(|end| skip_space(text, end))
}

fn rejected(span: Range<usize>) -> Candidate {
    Candidate {
        span,
        dialect: Dialect::Mistral,
        found: None,
    }
}
