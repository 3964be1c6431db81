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

/// Whether `text` holds a `<` or a `[`. Every marker but ReAct's `Action` (each token,
/// tag and bracket dialect's opener, every reasoning marker) holds one, and case folding
/// never makes either byte, so text without them (most prose, which reaches the scan
/// through a word like `action`) is settled by one memchr pass instead of a search per
/// marker.
#[inline]
pub fn may_hold_tag(text: &[u8]) -> bool {
    memchr::memchr2(b'<', b'[', text).is_some()
}

/// The code point at `i` and its length in bytes, or `None` at the end.
#[inline]
pub fn cp_at(text: &[u8], i: usize) -> Option<(u32, usize)> {
    decode_code_point(text.get(i..)?)
}

/// The code point that ends right before `i`, or `None` at the start.
pub fn cp_before(text: &[u8], i: usize) -> Option<u32> {
    let start = text[..i].iter().rposition(|&b| b & 0xC0 != 0x80)?;
    cp_at(text, start).map(|(cp, _)| cp)
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
pub fn match_folded(text: &[u8], mut i: usize, pattern: &[u8]) -> Option<usize> {
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

/// Whether `\b` holds at `i` given that the code point at `i` is a word character:
/// the one before it (if any) must not be one, by Python's `\w`.
pub fn word_boundary_before(text: &[u8], i: usize) -> bool {
    cp_before(text, i).is_none_or(|cp| !unicode::is_word(cp))
}

/// The number of code points in `text`.
pub fn count_code_points(text: &[u8]) -> usize {
    text.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}
