//! A JSON array of call objects after a dialect's marker: Mistral v3's `[TOOL_CALLS][…]`,
//! Granite's `<|tool_call|>[…]`, Phi-4's `functools[…]`.
//!
//! Each object of the array is a call when its `name` is a string that was offered and
//! its `arguments` (or `parameters`) are a JSON object (absent: `{}`); any other object is
//! rejected, keeping its span reserved. An array that does not read whole (a truncated
//! reply, a malformed object) makes no call at all, and what was written of it is reserved
//! (`Payloads::payload_or_reach`): a call quoted in a cut-off argument never runs.

use std::ops::Range;

use super::super::call::Args;
use super::super::payload::{Payload, Payloads, arguments_member, read_back};
use super::super::span::{Candidates, Found};
use super::Dialect;
use crate::py::Value;
use crate::py::json::skip_whitespace;

/// A JSON array of call objects whose `[` is at `bracket`, for the marker at `start`. Each
/// object is its own candidate (the first one's span starts at `[TOOL_CALLS]`, the last
/// one's ends at `]`); an array that does not read makes no call and reserves what was
/// written of it. Returns where scanning resumes: the end of the array, or of the reserved
/// span.
pub fn scan(
    payloads: &Payloads<'_>,
    start: usize,
    bracket: usize,
    dialect: Dialect,
    out: &mut Candidates,
) -> usize {
    match read(payloads, start, bracket, dialect) {
        Ok((mut candidates, end)) => {
            out.append(&mut candidates);
            end
        }
        Err(reach) => {
            out.push(start..reach, dialect, None);
            reach
        }
    }
}

/// `scan`'s candidates and the end of the array, for a dialect that decides what the
/// array is by what follows it; when the array does not read, how far what was written of
/// it reaches.
pub fn read(
    payloads: &Payloads<'_>,
    start: usize,
    bracket: usize,
    dialect: Dialect,
) -> Result<(Candidates, usize), usize> {
    let (items, end) = elements(payloads, bracket + 1).map_err(|reach| {
        if reach >= payloads.text().len() {
            // Cut short by the end of the text: a streamed reply may go on with the rest.
            payloads.reaches_end(start);
        }
        reach.max(bracket + 1)
    })?;
    if items.is_empty() {
        let mut empty = Candidates::new();
        empty.push(start..end, dialect, None);
        return Ok((empty, end));
    }
    let last = items.len() - 1;
    let mut candidates = Candidates::new();
    for (k, (item, span)) in items.into_iter().enumerate() {
        let span = if k == 0 { start } else { span.start }..if k == last { end } else { span.end };
        candidates.push(span, dialect, call_object(payloads, item));
    }
    Ok((candidates, end))
}

/// An element of the array and its span.
type Element<'a> = (Payload<'a>, Range<usize>);

/// The elements of the JSON array whose first element (or `]`) is at or after `at`, each
/// with its span, and the end of the array; when it is not a well-formed array, how far
/// what was written of it reaches.
///
/// The array is read once checking syntax only, then again building its elements: one
/// that breaks at its end (a reply cut off after thousands of calls) costs a pass that
/// allocates nothing.
fn elements<'a>(payloads: &Payloads<'a>, at: usize) -> Result<(Vec<Element<'a>>, usize), usize> {
    each_element(payloads, at, |at| payloads.check_or_reach(at))?;
    each_element(payloads, at, |at| payloads.payload_or_reach(at))
}

/// The elements `read` reads from `at` on, each with its span, and the end of the array,
/// or how far what was written of it reaches.
#[allow(clippy::type_complexity)]
fn each_element<T>(
    payloads: &Payloads<'_>,
    mut at: usize,
    read: impl Fn(usize) -> Result<(T, usize), usize>,
) -> Result<(Vec<(T, Range<usize>)>, usize), usize> {
    let text = payloads.text();
    let mut items = Vec::new();
    at = skip_whitespace(text, at);
    if text.get(at) == Some(&b']') {
        return Ok((items, at + 1));
    }
    loop {
        let (value, end) = read(at)?;
        items.push((value, at..end));
        at = skip_whitespace(text, end);
        match text.get(at) {
            Some(b',') => at = skip_whitespace(text, at + 1),
            Some(b']') => return Ok((items, at + 1)),
            _ => return Err(at),
        }
    }
}

/// One object of the array as a call: its `name` a string that was offered, its
/// `arguments` (or `parameters`) an object.
pub(super) fn call_object(payloads: &Payloads<'_>, item: Payload<'_>) -> Option<Found> {
    let (name, args) = match item {
        Payload::Plain(plain) => {
            let text = payloads.text();
            let Value::Str(name) = read_back(plain.get(text, "name")?)? else {
                return None;
            };
            let args = arguments_member(plain, text);
            let args = args
                .as_bytes()
                .starts_with(b"{")
                .then_some(Args::Written(args))?;
            (name, args)
        }
        Payload::Decoded(Value::Dict(mut dict)) => {
            let name = dict.get("name".as_bytes())?.as_py_str()?.clone();
            let args = dict
                .swap_remove("arguments".as_bytes())
                .or_else(|| dict.swap_remove("parameters".as_bytes()))
                .unwrap_or_else(|| Value::Dict(Default::default()));
            let args = matches!(args, Value::Dict(_)).then_some(Args::Decoded(args))?;
            (name, args)
        }
        Payload::Decoded(_) => return None,
    };
    payloads.allows(&name).then_some(Found { name, args })
}
