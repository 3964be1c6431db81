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
use crate::py::PyStr;

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
                Some(args) if payloads.allows(&name) => Some(Found { name, args }),
                _ => None,
            };
            out.push(Candidate {
                span: start..end,
                dialect: Dialect::React,
                found,
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
/// matches `Action\s*:\s*NAME\s*Action\s*Input\s*:` as far as it goes (a streamed reply
/// may complete it).
fn step_may_go_on(text: &[u8], start: usize) -> bool {
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
    i == text.len() || marker_may_go_on(text, i)
}

/// Whether the text from `i` to its end is a prefix of `\s*Action\s*Input\s*:`.
fn marker_may_go_on(text: &[u8], i: usize) -> bool {
    let mut i = skip_space(text, i);
    for word in [b"action".as_slice(), b"input"] {
        if i == text.len() {
            return true;
        }
        match match_folded(text, i, word) {
            Some(end) => i = skip_space(text, end),
            None => return folded_prefix(&text[i..], word),
        }
    }
    i == text.len()
}

/// Whether `rest` is a proper prefix of the ASCII `word`, ASCII case folded (the folds
/// `re.I` adds are non-ASCII and never cut a word short in practice: a reply cut inside
/// one is held by the stream's tail anyway).
fn folded_prefix(rest: &[u8], word: &[u8]) -> bool {
    rest.len() < word.len() && rest.eq_ignore_ascii_case(&word[..rest.len()])
}

/// Matches `\s*Action\s*Input\s*:` at `i`, returning its end.
fn input_marker(text: &[u8], i: usize) -> Option<usize> {
    let i = match_folded(text, skip_space(text, i), b"action")?;
    let i = match_folded(text, skip_space(text, i), b"input")?;
    let i = skip_space(text, i);
    (text.get(i) == Some(&b':')).then_some(i + 1)
}
