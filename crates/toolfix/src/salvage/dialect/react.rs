//! ReAct: `Action: NAME` then `Action Input: {…}`.
//!
//! Pattern: `\bAction\s*:\s*([a-zA-Z0-9_\-]+)\s*Action\s*Input\s*:` with `re.IGNORECASE`,
//! then the object is `raw_decode`d after it. Three details of Python's engine matter:
//! `\b` uses Python's `\w` (so `transaction:` never starts a match); the name is greedy
//! with backtracking, so `Action: searchAction Input:` names `search`; and a match whose
//! input is not an object adds nothing, not even a reservation.

use memchr::memchr2_iter;

use super::super::SalvageError;
use super::super::payload::{ObjectAt, Payloads};
use super::super::span::{Candidate, Found};
use super::super::text::{cp_at, is_name_char, match_folded, skip_space, word_boundary_before};
use super::Dialect;
use crate::py::{PyStr, unicode};

/// Adds a candidate for every ReAct step whose input is a JSON object.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) -> Result<(), SalvageError> {
    let text = payloads.text();
    let mut resume = 0;
    for start in memchr2_iter(b'a', b'A', text) {
        // Most `a`s start no `action`; that test is cheaper than `\b`, so it goes first.
        let starts_action = match_folded(text, start, b"action").is_some();
        if start < resume || !starts_action || !word_boundary_before(text, start) {
            continue;
        }
        let Some((name, input_start)) = step_at(text, start) else {
            if step_may_go_on(text, start) {
                payloads.reaches_end(start);
            }
            continue;
        };
        resume = input_start;
        if let ObjectAt::Object { value, end } = payloads.object_at(start, input_start)? {
            let name = PyStr::from_generalized_utf8(&text[name]);
            let found = match value {
                Some(args) if payloads.allows(&name) => Some(Found {
                    name,
                    args: args.into_args(),
                }),
                _ => None,
            };
            out.push(Candidate {
                span: start..end,
                dialect: Dialect::React,
                found: found.map(Box::new),
            });
        }
    }
    Ok(())
}

/// Matches `Action\s*:\s*NAME\s*Action\s*Input\s*:` at `start`: the name's range and the
/// end of the match. Among the name's possible lengths the longest that lets the rest
/// match wins, as Python's backtracking finds it.
fn step_at(text: &[u8], start: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let after_word = match_folded(text, start, b"action")?;
    let colon = skip_space(text, after_word);
    if text.get(colon) != Some(&b':') {
        return None;
    }
    let name_start = skip_space(text, colon + 1);
    let mut best = None;
    let mut i = name_start;
    while let Some((cp, len)) = cp_at(text, i) {
        if !is_name_char(cp) {
            break;
        }
        i += len;
        if let Some(end) = input_marker(text, i) {
            best = Some((name_start..i, end));
        }
    }
    best
}

/// Whether the text from `start` to its end could still become a step: what is there
/// matches `Action\s*:\s*NAME` as far as it goes, and too little follows the name to
/// rule out `Action\s*Input\s*:` (which backtracking may also find inside the name, as
/// in `searchAction Input:`). A streamed reply may complete it.
fn step_may_go_on(text: &[u8], start: usize) -> bool {
    /// More than `Action Input:` without its spaces.
    const MARKER: usize = 16;
    let Some(after_word) = match_folded(text, start, b"action") else {
        return false;
    };
    let colon = skip_space(text, after_word);
    match text.get(colon) {
        None => return true,
        Some(b':') => {}
        Some(_) => return false,
    }
    let mut i = skip_space(text, colon + 1);
    while let Some((cp, len)) = cp_at(text, i) {
        if !is_name_char(cp) {
            break;
        }
        i += len;
    }
    let mut seen = 0;
    while let Some((cp, len)) = cp_at(text, i) {
        if !unicode::is_space(cp) {
            seen += 1;
            if seen == MARKER {
                return false;
            }
        }
        i += len;
    }
    true
}

/// Matches `\s*Action\s*Input\s*:` at `i`, returning its end.
fn input_marker(text: &[u8], i: usize) -> Option<usize> {
    let i = match_folded(text, skip_space(text, i), b"action")?;
    let i = match_folded(text, skip_space(text, i), b"input")?;
    let i = skip_space(text, i);
    (text.get(i) == Some(&b':')).then_some(i + 1)
}
