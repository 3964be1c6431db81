//! Scanning primitives with the semantics of the real package's regexes.
//!
//! The dialect patterns are compiled by Python's `re` with `re.IGNORECASE` on `str`
//! patterns, which differs from Rust's `regex` in three ways that change results:
//! `\s` is `str.isspace` (it includes `\x1c`-`\x1f`), case folding adds `İ`/`ı` to `i`
//! (and `ſ` to `s`, `K` to `k`), and `\b` uses Python's `\w` (`str.isalnum` or `_`). The
//! patterns are small and fixed, so each dialect is a hand-written scanner over these
//! primitives: linear time, and exactly Python's character classes.
//!
//! Text is generalized UTF-8 (see `py::pystr`), offsets are byte offsets.

use crate::py::pystr::decode_code_point;
use crate::py::unicode;

/// Byte equality, for constant evaluation (the registry's and the probe's tables).
pub const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The set of `bytes` as a table, `table[b]` for byte `b`: one lookup tells whether a
/// byte is in it, where a search function would cost a call per short text.
pub const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

/// Which of `<` and `[` a text holds. A marker holding one the text lacks cannot occur
/// in it (case folding never makes either byte), so a scanner or a reasoning marker that
/// needs it is not searched for: a reply of Mistral or Phi-4 calls, which has no `<`,
/// otherwise pays a search of the whole reply per tag dialect.
#[derive(Clone, Copy, Debug)]
pub struct MarkerBytes {
    /// Whether the text holds a `<`.
    pub angle: bool,
    /// Whether the text holds a `[`.
    pub bracket: bool,
}

impl MarkerBytes {
    /// The marker bytes `text` holds.
    pub fn of(text: &[u8]) -> MarkerBytes {
        MarkerBytes {
            angle: memchr::memchr(b'<', text).is_some(),
            bracket: memchr::memchr(b'[', text).is_some(),
        }
    }

    /// Whether `marker` may occur in the text: it holds each of `<` and `[` that
    /// `marker` holds.
    pub fn may_hold(self, marker: &[u8]) -> bool {
        (self.angle || !marker.contains(&b'<')) && (self.bracket || !marker.contains(&b'['))
    }
}

/// The code point at `i` and its length in bytes, or `None` at the end.
#[inline]
pub fn cp_at(text: &[u8], i: usize) -> Option<(u32, usize)> {
    decode_code_point(text.get(i..)?)
}

/// The code point that ends right before `i`, or `None` at the start.
pub fn cp_before(text: &[u8], i: usize) -> Option<u32> {
    cp_at(text, cp_start_before(text, i)?).map(|(cp, _)| cp)
}

/// Where the code point that ends right before `i` starts, or `None` at the start.
pub fn cp_start_before(text: &[u8], i: usize) -> Option<usize> {
    text[..i].iter().rposition(|&b| b & 0xC0 != 0x80)
}

/// The offset after the run of `\s` (Python `str.isspace`) that starts at `i`.
#[inline]
pub fn skip_space(text: &[u8], mut i: usize) -> usize {
    while let Some(&b) = text.get(i) {
        if b < 0x80 {
            if !unicode::is_space(b as u32) {
                break;
            }
            i += 1;
        } else {
            match cp_at(text, i) {
                Some((cp, len)) if unicode::is_space(cp) => i += len,
                _ => break,
            }
        }
    }
    i
}

/// Matches the ASCII literal `pattern` at `i` as `re.IGNORECASE` would, returning the end.
///
/// Letters match either ASCII case and every non-ASCII code point that `re.I` folds to
/// them (`İ`, `ı` for `i`, `ſ` for `s`, `K` for `k`); other pattern bytes match exactly.
///
/// Every pattern byte takes at least one byte of text, so a match needs the
/// `pattern.len()` bytes at `i`. When they are ASCII, as they are in nearly every reply,
/// one branch-free pass over them decides (the scans call this at every `<` and every
/// `a`, so the per-byte loop that decodes was a third of a `<tool_call>` flood's cost);
/// only a window holding a non-ASCII byte is decoded. Always inlined: with the pattern a
/// constant, the pass compiles to a few compares.
#[inline(always)]
pub fn match_folded(text: &[u8], i: usize, pattern: &[u8]) -> Option<usize> {
    let window = text.get(i..i.checked_add(pattern.len())?)?;
    if window.is_ascii() {
        let differs = window.iter().zip(pattern).fold(0, |acc, (&b, &p)| {
            let case = if p.is_ascii_alphabetic() { 0x20 } else { 0 };
            acc | ((b | case) ^ (p | case))
        });
        return (differs == 0).then_some(i + pattern.len());
    }
    match_folded_decoding(text, i, pattern)
}

/// `match_folded` one code point at a time, for text that is not ASCII.
#[cold]
#[inline(never)]
fn match_folded_decoding(text: &[u8], mut i: usize, pattern: &[u8]) -> Option<usize> {
    for &p in pattern {
        let b = *text.get(i)?;
        if b < 0x80 {
            if !b.eq_ignore_ascii_case(&p) {
                return None;
            }
            i += 1;
        } else {
            let (cp, len) = cp_at(text, i)?;
            if !p.is_ascii_alphabetic()
                || unicode::ignorecase_ascii(cp) != Some(p.to_ascii_lowercase())
            {
                return None;
            }
            i += len;
        }
    }
    Some(i)
}

/// Whether `cp` is in the name class `[a-zA-Z0-9_\-]` under `re.IGNORECASE`.
#[inline]
pub fn is_name_char(cp: u32) -> bool {
    match u8::try_from(cp) {
        Ok(b) if b < 0x80 => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
        _ => unicode::ignorecase_ascii(cp).is_some(),
    }
}

/// The end of the run of name-class characters starting at `i` (`i` itself if none).
pub fn name_run_end(text: &[u8], mut i: usize) -> usize {
    while let Some((cp, len)) = cp_at(text, i) {
        if !is_name_char(cp) {
            break;
        }
        i += len;
    }
    i
}

/// The start of the run of `\s` (Python `str.isspace`) that ends at `i`.
///
/// A run can be long (masked fences, reasoning and calls are blanked to spaces, and a
/// `:` after them is looked back from), and decoding each of its code points cost the
/// ReAct scan a third of such a reply: blanks are stepped over eight at a time, other
/// ASCII whitespace a byte at a time, and only the rest is decoded.
pub fn skip_space_back(text: &[u8], mut i: usize) -> usize {
    const BLANKS: [u8; 8] = [b' '; 8];
    loop {
        while i >= BLANKS.len() && text[i - BLANKS.len()..i] == BLANKS {
            i -= BLANKS.len();
        }
        while i > 0 && text[i - 1] < 0x80 && unicode::is_space(u32::from(text[i - 1])) {
            i -= 1;
        }
        match cp_start_before(text, i) {
            Some(start)
                if cp_at(text, start)
                    .is_some_and(|(cp, _)| cp >= 0x80 && unicode::is_space(cp)) =>
            {
                i = start;
            }
            _ => return i,
        }
    }
}

/// Whether `\b` holds at `i` given that the code point at `i` is a word character:
/// the one before it (if any) must not be one, by Python's `\w`.
pub fn word_boundary_before(text: &[u8], i: usize) -> bool {
    cp_before(text, i).is_none_or(|cp| !unicode::is_word(cp))
}

/// The number of code points in `text`: its bytes less its continuation bytes
/// (`10xxxxxx`), counted eight at a time (masking a long reasoning block counts a whole
/// reply; a byte at a time, that was 4 % of salvaging one).
pub fn count_code_points(text: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = text.chunks_exact(8);
    let mut continuations = 0;
    for chunk in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Bit 7 set and bit 6 clear, in each byte.
        continuations += (w & !(w << 1) & HIGH).count_ones() as usize;
    }
    let rest = words.remainder();
    continuations += rest.iter().filter(|&&b| b & 0xC0 == 0x80).count();
    text.len() - continuations
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Patterns the dialects match, and text built from their bytes, case variants and
    /// the non-ASCII code points `re.I` folds to ASCII letters.
    fn folded_text() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just("<".to_owned()),
            Just("tool_call".to_owned()),
            Just("TOOL_CALL".to_owned()),
            Just("Action".to_owned()),
            Just("ſ".to_owned()),
            Just("İ".to_owned()),
            Just("ı".to_owned()),
            Just("\u{212a}".to_owned()),
            Just("_".to_owned()),
            // After a non-ASCII first letter, the rest of a pattern (`İnput`).
            Just("nput".to_owned()),
            Just("s".to_owned()),
            Just("\x7f".to_owned()),
            Just(">".to_owned()),
            "[a-zA-Z<>|=_ ]{0,3}",
        ];
        prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat().into_bytes())
    }

    proptest! {
        /// The ASCII window test answers what decoding every code point answers.
        #[test]
        fn ascii_window_agrees_with_decoding(
            text in folded_text(),
            pattern in prop::sample::select(vec![
                &b"<tool_call>"[..], b"</tool_call>", b"action", b"input", b"<function=",
                b"[tool_call]", b"<|python_tag|>", b"is",
            ]),
        ) {
            // The scans call it at code point boundaries only.
            let boundaries = (0..=text.len()).filter(|&i| text.get(i).is_none_or(|b| b & 0xC0 != 0x80));
            for i in boundaries {
                prop_assert_eq!(
                    match_folded(&text, i, pattern),
                    match_folded_decoding(&text, i, pattern),
                    "at {} of {:?}", i, String::from_utf8_lossy(&text)
                );
            }
        }
    }

    proptest! {
        /// Counting eight bytes at a time answers what counting each byte answers.
        #[test]
        fn code_points_counted_by_words(text in any::<Vec<u8>>(), s in "\\PC{0,40}") {
            for bytes in [&text[..], s.as_bytes()] {
                let slow = bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
                prop_assert_eq!(count_code_points(bytes), slow);
            }
        }
    }

    proptest! {
        /// Stepping over ASCII bytes answers what decoding every code point answers.
        #[test]
        fn skip_space_back_agrees_with_decoding(text in folded_text(), spaces in "[ \t\n\u{a0}\u{3000}\u{1c}\u{85}x]{0,8}( {8,20}[ \n]{0,3}){0,2}") {
            let text = [text, spaces.into_bytes()].concat();
            let mut slow = text.len();
            while let Some(start) = cp_start_before(&text, slow) {
                if !cp_at(&text, start).is_some_and(|(cp, _)| unicode::is_space(cp)) {
                    break;
                }
                slow = start;
            }
            prop_assert_eq!(skip_space_back(&text, text.len()), slow);
        }
    }

    #[test]
    fn folds_letters_only() {
        assert_eq!(match_folded(b"<TOOL_CALL>", 0, b"<tool_call>"), Some(11));
        assert_eq!(match_folded(b"<tool\x7fcall>", 0, b"<tool_call>"), None);
        assert_eq!(match_folded("acſ".as_bytes(), 0, b"acs"), Some(4));
        assert_eq!(match_folded(b"actio", 0, b"action"), None);
        assert_eq!(match_folded(b"action", 7, b"action"), None);
    }
}
