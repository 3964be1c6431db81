//! Where a streamed reply stops being plain text: the first byte at which a call, a
//! fence or reasoning could begin.
//!
//! Everything before that byte can be shown at once and forgotten: no dialect's match, no
//! fence and no reasoning block starts in it, and none reads it, except for the one code
//! point before a match that `\b` looks at (kept by the stream). What starts a match:
//!
//! * `<` and `[`: every tag and token of every dialect, and reasoning;
//! * `` ` `` and `~`: fences;
//! * `action` (with `re.IGNORECASE` folds): a ReAct step;
//! * `functools[` (any ASCII case): Phi-4's calls;
//! * `to=`: a Harmony recipient, which can precede its channel tokens; any recipient,
//!   since a message to a built-in tool (`to=browser.search`) makes no call but reserves
//!   its body, so a call written in it never runs.
//!
//! A chunk can end in the middle of a word marker (`act`, `functoo`); those bytes are
//! held until the next chunk says whether the marker goes on.

use super::super::dialect::tokens::{harmony, phi4, react};
use super::super::text::{byte_set, cp_at, match_folded};
use crate::py::unicode;

/// The word markers: where each starts a match, and whether it folds like `re.I`.
const WORDS: [(&[u8], Fold); 3] = [
    (react::ACTION.as_bytes(), Fold::RegexIgnoreCase),
    (FUNCTOOLS, Fold::AsciiCase),
    (RECIPIENT, Fold::Exact),
];

/// Phi-4's `functools[`, found through its `[`.
const FUNCTOOLS: &[u8] = phi4::FUNCTOOLS.as_bytes();
/// A Harmony recipient, found through its `=`.
const RECIPIENT: &[u8] = harmony::RECIPIENT.as_bytes();
const _: () = assert!(RECIPIENT.len() == 3 && RECIPIENT[2] == b'=');

/// Text this short is first read byte by byte for a byte of `FOUND_THROUGH`: cheaper
/// than setting up the vector searches for it.
const SHORT: usize = 16;

/// The bytes [`scan`] finds markers through, `FOUND_THROUGH[b]` for byte `b`: the tag and
/// fence bytes, `action`'s `c` and `C`, and a recipient's `=`.
const FOUND_THROUGH: [bool; 256] = byte_set(b"<[`~cC=");

/// How a word marker compares.
#[derive(Clone, Copy)]
enum Fold {
    /// Python's `re.IGNORECASE` on a `str` pattern.
    RegexIgnoreCase,
    /// ASCII letters in either case.
    AsciiCase,
    /// Byte for byte.
    Exact,
}

/// What the text from `from` on holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// A match could begin at this offset.
    Marker(usize),
    /// No match begins before this offset; what follows it could begin a word marker
    /// once more text arrives.
    Partial(usize),
    /// Nothing could begin a match.
    Clear,
}

/// Scans `text` from `from` for the first place a match could begin.
///
/// Prose is searched with memchr, not byte by byte: the tag and fence bytes directly; the
/// words through a byte each holds that prose rarely does (`action` through its `c`,
/// `to=` through its `=`, `functools[` through its `[`, a tag byte already).
pub fn scan(text: &[u8], from: usize) -> Scan {
    let from = from.min(text.len());
    // A tag or fence byte right at `from`, or after a few spaces and line breaks (where no
    // word begins), is the first place. The reading asks here at each call of a flood of
    // calls, each on a line of its own: cheaper than setting up the searches.
    if let Some(at) = tag_after_space(text, from) {
        return Scan::Marker(at);
    }
    let rest = &text[from..];
    // A few bytes (a streamed token) without a byte any marker is found through begin
    // none: only a word they may cut short is left to look for.
    if rest.len() <= SHORT && !rest.iter().any(|&b| FOUND_THROUGH[usize::from(b)]) {
        return cut_word(text, from).map_or(Scan::Clear, Scan::Partial);
    }
    let tag = [
        memchr::memchr3(b'<', b'[', b'`', rest),
        memchr::memchr(b'~', rest),
    ]
    .into_iter()
    .flatten()
    .min()
    .map(|i| from + i);
    let limit = tag.unwrap_or(text.len());
    let words = [
        action_before(text, from, limit),
        recipient_before(text, from, limit),
    ];
    let functools = tag.filter(|&t| text[t] == b'[').and_then(|t| {
        let word = &FUNCTOOLS[..FUNCTOOLS.len() - 1];
        let start = t.checked_sub(word.len())?;
        (start >= from && text[start..t].eq_ignore_ascii_case(word)).then_some(start)
    });
    match words.into_iter().flatten().chain(functools).min().or(tag) {
        Some(at) => Scan::Marker(at),
        None => match cut_word(text, from) {
            Some(at) => Scan::Partial(at),
            None => Scan::Clear,
        },
    }
}

/// The tag or fence byte at `from`, or after at most [`SHORT`] ASCII spaces and line
/// breaks from it.
fn tag_after_space(text: &[u8], from: usize) -> Option<usize> {
    let near = &text[from..text.len().min(from + SHORT + 1)];
    let at = from + near.iter().position(|b| !b.is_ascii_whitespace())?;
    matches!(text[at], b'<' | b'[' | b'`' | b'~').then_some(at)
}

/// [`scan`], looking at a window of the text from `from` that grows until it holds the
/// answer: what a reading that asks again and again from places further on needs, so that
/// the asking costs the distance to each answer, not to the end of the text each time.
/// No marker (word, tag or fence mark) holds a byte that ends another, so a marker found
/// in a window is the first in the text.
pub fn scan_near(text: &[u8], from: usize) -> Scan {
    let mut window = 64;
    loop {
        let mut end = from.saturating_add(window).min(text.len());
        // On a code point's first byte, so the window is text.
        while text.get(end).is_some_and(|&b| b & 0xC0 == 0x80) {
            end += 1;
        }
        let found = scan(&text[..end], from);
        if matches!(found, Scan::Marker(_)) || end == text.len() {
            return found;
        }
        window *= 2;
    }
}

/// The first `action` (with `re.I` folds) that begins in `from..limit`, found through its
/// `c`.
fn action_before(text: &[u8], from: usize, limit: usize) -> Option<usize> {
    let end = (limit + 1).min(text.len());
    memchr::memchr2_iter(b'c', b'C', &text[from..end])
        .map(|i| from + i)
        .filter_map(|c| c.checked_sub(1))
        .filter(|&a| a >= from && a < limit)
        .find(|&a| matches!(text[a], b'a' | b'A') && match_folded(text, a, WORDS[0].0).is_some())
}

/// The first `to=` that begins in `from..limit`, found through its `=`.
fn recipient_before(text: &[u8], from: usize, limit: usize) -> Option<usize> {
    let end = (limit + 2).min(text.len());
    memchr::memchr_iter(b'=', &text[from..end])
        .map(|i| from + i)
        .filter_map(|eq| eq.checked_sub(2))
        .filter(|&t| t >= from && t < limit)
        .find(|&t| text[t..].starts_with(RECIPIENT))
}

/// Where a word marker that the end of `text` cuts short begins (`act`, `functoo`), at or
/// after `from`.
pub fn cut_word(text: &[u8], from: usize) -> Option<usize> {
    /// Longer than any word marker, folds included.
    const LONGEST: usize = 16;
    let start = text.len().saturating_sub(LONGEST).max(from);
    (start..text.len())
        .filter(|&i| matches!(text[i], b'a' | b'A' | b'f' | b'F' | b't'))
        .find(|&i| word_at(text, i) == Word::Prefix)
}

/// Whether a word marker starts at `i`, or could once the text goes on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Whole,
    Prefix,
    No,
}

fn word_at(text: &[u8], i: usize) -> Word {
    let mut best = Word::No;
    for (word, fold) in WORDS {
        match compare(text, i, word, fold) {
            Word::Whole => return Word::Whole,
            Word::Prefix => best = Word::Prefix,
            Word::No => {}
        }
    }
    best
}

/// Compares `word` with the text at `i`: all of it there, the text ending inside it, or
/// a mismatch.
fn compare(text: &[u8], i: usize, word: &[u8], fold: Fold) -> Word {
    if let Fold::RegexIgnoreCase = fold {
        return match match_folded(text, i, word) {
            Some(_) => Word::Whole,
            None if folded_prefix(text, i, word) => Word::Prefix,
            None => Word::No,
        };
    }
    let available = &text[i..text.len().min(i + word.len())];
    let same = match fold {
        Fold::AsciiCase => available.eq_ignore_ascii_case(&word[..available.len()]),
        _ => *available == word[..available.len()],
    };
    match (same, available.len() == word.len()) {
        (true, true) => Word::Whole,
        (true, false) => Word::Prefix,
        (false, _) => Word::No,
    }
}

/// Whether the text from `i` to its end is a proper prefix of `word` under `re.I`.
fn folded_prefix(text: &[u8], mut i: usize, word: &[u8]) -> bool {
    for &p in word {
        let Some((cp, len)) = cp_at(text, i) else {
            return true;
        };
        let same = match u8::try_from(cp) {
            Ok(b) if b < 0x80 => b.eq_ignore_ascii_case(&p),
            _ => {
                p.is_ascii_alphabetic()
                    && unicode::ignorecase_ascii(cp) == Some(p.to_ascii_lowercase())
            }
        };
        if !same {
            return false;
        }
        i += len;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_partial_words_and_clear_text() {
        assert_eq!(scan(b"It is sunny.", 0), Scan::Clear);
        assert_eq!(scan(b"see <tool_call>", 0), Scan::Marker(4));
        assert_eq!(scan(b"\n \t<tool_call>", 0), Scan::Marker(3));
        assert_eq!(scan(b"\n action <x>", 0), Scan::Marker(2));
        assert_eq!(scan(b"a ~ b", 0), Scan::Marker(2));
        assert_eq!(scan(b"the transaction", 0), Scan::Marker(9));
        assert_eq!(scan("the act\u{131}on".as_bytes(), 0), Scan::Marker(4));
        assert_eq!(scan(b"an act", 0), Scan::Partial(3));
        assert_eq!(scan(b"FuncTools[", 0), Scan::Marker(0));
        assert_eq!(scan(b"use functoo", 0), Scan::Partial(4));
        assert_eq!(scan(b"x to=functions.get", 0), Scan::Marker(2));
        assert_eq!(scan(b"x to=browser.search", 0), Scan::Marker(2));
        assert_eq!(scan(b"x t", 0), Scan::Partial(2));
        assert_eq!(scan(b"fact", 0), Scan::Partial(1));
        assert_eq!(scan(b"after", 0), Scan::Clear);
    }
}
