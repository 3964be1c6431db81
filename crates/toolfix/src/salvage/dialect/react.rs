//! ReAct: `Action: NAME` then `Action Input: {…}`.
//!
//! Pattern: `\bAction\s*:\s*([a-zA-Z0-9_\-]+)\s*Action\s*Input\s*:` with `re.IGNORECASE`,
//! then the object is `raw_decode`d after it. Three details of Python's engine matter:
//! `\b` uses Python's `\w` (so `transaction:` never starts a match); the name is greedy
//! with backtracking, so `Action: searchAction Input:` names `search`; and a match whose
//! input is not an object adds nothing, not even a reservation.

use memchr::memchr_iter;

use super::super::SalvageError;
use super::super::payload::{ObjectAt, Payloads};
use super::super::span::{Candidates, Found};
use super::super::text::{
    cp_at, is_name_char, match_folded, skip_space, skip_space_back, word_boundary_before,
};
use super::Dialect;
use super::tokens::react;
use crate::py::{PyStr, unicode};

const ACTION: &[u8] = react::ACTION.as_bytes();
const INPUT: &[u8] = react::INPUT.as_bytes();

/// Adds a candidate for every ReAct step whose input is a JSON object.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) -> Result<(), SalvageError> {
    let text = payloads.text();
    let mut resume = 0;
    for start in action_starts(text) {
        if start < resume || !word_boundary_before(text, start) {
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
            out.push(start..end, Dialect::React, found);
        }
    }
    Ok(())
}

/// In text order, the start of every `action` (as `re.I` matches it) that is followed,
/// after whitespace, by a `:` or by the end of the text: the only ones a step can start
/// at (`step_at`) or a streamed reply can still complete (`step_may_go_on`).
///
/// It looks back from each `:` instead of forward from each `a`: prose that mentions
/// actions holds far fewer colons than `a`s (one in sixteen bytes), and visiting every
/// `a` was four fifths of salvaging such prose.
fn action_starts(text: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let before_colons = memchr_iter(b':', text).filter_map(|colon| action_before(text, colon));
    before_colons.chain(action_before(text, text.len()))
}

/// The start of the `action` that ends where the whitespace before `i` starts.
#[inline]
fn action_before(text: &[u8], i: usize) -> Option<usize> {
    // The byte before the colon rules out most at once: ASCII, neither `n` nor blank.
    if let Some(&byte) = text[..i].last() {
        if byte < 0x80 && byte | 0x20 != b'n' && !unicode::is_space(u32::from(byte)) {
            return None;
        }
    }
    let end = skip_space_back(text, i);
    // Most colons follow no `n`, and nothing but `n` and `N` folds to it: one byte rules
    // them out before the word is matched.
    if end == 0 || text[end - 1] | 0x20 != b'n' {
        return None;
    }
    // `re.I` folds no non-ASCII letter into `action` but `İ` and `ı` (two bytes each) for
    // its `i`, so the word takes six bytes or seven.
    [6, 7].into_iter().find_map(|len| {
        let start = end.checked_sub(len)?;
        let at_boundary = text[start] & 0xC0 != 0x80;
        (at_boundary && match_folded(text, start, ACTION) == Some(end)).then_some(start)
    })
}

/// Matches `Action\s*:\s*NAME\s*Action\s*Input\s*:` at `start`: the name's range and the
/// end of the match. Among the name's possible lengths the longest that lets the rest
/// match wins, as Python's backtracking finds it.
fn step_at(text: &[u8], start: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let after_word = match_folded(text, start, ACTION)?;
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
    let Some(after_word) = match_folded(text, start, ACTION) else {
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
    let i = match_folded(text, skip_space(text, i), ACTION)?;
    let i = match_folded(text, skip_space(text, i), INPUT)?;
    let i = skip_space(text, i);
    (text.get(i) == Some(&b':')).then_some(i + 1)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What `action_starts` must find, the slow way: every code point where `action`
    /// matches and is followed, after whitespace, by a `:` or the end.
    fn action_starts_by_visiting_each_a(text: &[u8]) -> Vec<usize> {
        memchr::memchr2_iter(b'a', b'A', text)
            .filter(|&start| {
                match_folded(text, start, ACTION).is_some_and(|end| {
                    let after = skip_space(text, end);
                    matches!(text.get(after), None | Some(b':'))
                })
            })
            .collect()
    }

    proptest! {
        #[test]
        fn looking_back_from_colons_finds_every_action_start(
            pieces in prop::collection::vec(prop::sample::select(vec![
                "action", "Action", "ACTİON", "actıon", "actio", "ction", "a", ":", " ",
                "\u{3000}", "\u{a0}", "\n", "x", "é", "İ", "Input", "transaction",
            ]), 0..12),
        ) {
            let text = pieces.concat();
            let text = text.as_bytes();
            prop_assert_eq!(
                action_starts(text).collect::<Vec<_>>(),
                action_starts_by_visiting_each_a(text)
            );
        }
    }

    #[test]
    fn an_action_is_found_before_its_colon_and_at_the_end() {
        let text = "Action\u{3000}: x. actİon :y action \n".as_bytes();
        assert_eq!(action_starts(text).collect::<Vec<_>>(), [0, 14, 25]);
    }
}
