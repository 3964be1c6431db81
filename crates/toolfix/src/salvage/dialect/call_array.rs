//! A JSON array of call objects after a dialect's marker: Mistral v3's `[TOOL_CALLS][…]`,
//! Granite's `<|tool_call|>[…]`, Phi-4's `functools[…]`.
//!
//! Each object of the array is a call when its `name` is a string that was offered and
//! its `arguments` (or `parameters`) are a JSON object (absent: `{}`); any other object is
//! rejected, keeping its span reserved. An array that does not close (a truncated reply)
//! makes no call at all: what was read is reserved.

use std::ops::Range;

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::Dialect;
use crate::py::Value;

/// A JSON array of call objects whose `[` is at `bracket`, for the marker at `start`. Each
/// object is its own candidate (the first one's span starts at `[TOOL_CALLS]`, the last
/// one's ends at `]`); an array that does not close makes no call and reserves what was
/// read. Returns where scanning resumes.
pub fn scan(
    payloads: &Payloads<'_>,
    start: usize,
    bracket: usize,
    dialect: Dialect,
    out: &mut Vec<Candidate>,
) -> usize {
    let rejected = |span| Candidate {
        span,
        dialect,
        found: None,
    };
    let Some((items, end)) = elements(payloads, bracket + 1) else {
        out.push(rejected(start..bracket + 1));
        return bracket + 1;
    };
    if items.is_empty() {
        out.push(rejected(start..end));
        return end;
    }
    let last = items.len() - 1;
    for (k, (item, span)) in items.into_iter().enumerate() {
        let from = if k == 0 { start } else { span.start };
        let to = if k == last { end } else { span.end };
        out.push(Candidate {
            span: from..to,
            dialect,
            found: call_object(payloads, item),
        });
    }
    end
}

/// An element of the array and its span.
type Element = (Value, Range<usize>);

/// The elements of the JSON array whose first element (or `]`) is at or after `at`, each
/// with its span, and the end of the array; `None` when it is not a well-formed array.
fn elements(payloads: &Payloads<'_>, mut at: usize) -> Option<(Vec<Element>, usize)> {
    let text = payloads.text();
    let mut items = Vec::new();
    at = json_space(text, at);
    if text.get(at) == Some(&b']') {
        return Some((items, at + 1));
    }
    loop {
        let (value, end) = payloads.value_at(at)?;
        items.push((value, at..end));
        at = json_space(text, end);
        match text.get(at)? {
            b',' => at = json_space(text, at + 1),
            b']' => return Some((items, at + 1)),
            _ => return None,
        }
    }
}

/// The first byte at or after `at` that is not JSON whitespace.
fn json_space(text: &[u8], mut at: usize) -> usize {
    while matches!(text.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// One object of the array as a call.
fn call_object(payloads: &Payloads<'_>, item: Value) -> Option<Found> {
    let Value::Dict(mut dict) = item else {
        return None;
    };
    let name = dict.get("name".as_bytes())?.as_py_str()?.clone();
    let args = dict
        .swap_remove("arguments".as_bytes())
        .or_else(|| dict.swap_remove("parameters".as_bytes()))
        .unwrap_or_else(|| Value::Dict(Default::default()));
    (payloads.allows(&name) && matches!(args, Value::Dict(_))).then_some(Found { name, args })
}
