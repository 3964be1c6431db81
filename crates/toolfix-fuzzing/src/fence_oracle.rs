//! The fence regex, evaluated the obvious way, to check the one-pass scanner against.
//!
//! `re.finditer(r"(?P<fence>`{3,}|~{3,})[\s\S]*?(?:(?P=fence)|\Z)", text)` by definition:
//! at each position from the left, try to match; the greedy run takes every fence
//! character it can (the lazy body can always end at `\Z`, so nothing is given back), the
//! body extends one character at a time until the same run follows or the text ends, and
//! the search resumes after the match.

use std::ops::Range;

/// Every match of the fence regex, as byte ranges.
pub fn fenced_ranges(text: &[u8]) -> Vec<Range<usize>> {
    let mut matches = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        match match_at(text, pos) {
            Some(end) => {
                matches.push(pos..end);
                pos = end;
            }
            None => pos += 1,
        }
    }
    matches
}

/// The end of the match starting at `start`, if one does.
fn match_at(text: &[u8], start: usize) -> Option<usize> {
    let mark = *text.get(start).filter(|&&b| b == b'`' || b == b'~')?;
    let run = text[start..].iter().take_while(|&&b| b == mark).count();
    if run < 3 {
        return None;
    }
    // The body ends at the first offset the same run follows: where a streak of `mark`
    // counted from the body's start (which is not `mark`: the run took them all) first
    // reaches `run`. Counted byte by byte rather than comparing a slice at each offset,
    // whose `memcmp` libFuzzer intercepts at a cost that made this oracle most of the
    // `fence` target's time.
    let body_start = start + run;
    let mut streak = 0;
    let closed = text[body_start..].iter().position(|&b| {
        streak = if b == mark { streak + 1 } else { 0 };
        streak == run
    });
    Some(closed.map_or(text.len(), |k| body_start + k + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<(usize, usize)> {
        fenced_ranges(text.as_bytes())
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    #[test]
    fn follows_the_regex() {
        assert_eq!(spans("a ```x``` b"), [(2, 9)]);
        assert_eq!(spans("```x`````y"), [(0, 7)]);
        assert_eq!(spans("``x``"), []);
        assert_eq!(spans("~~~x```"), [(0, 7)]);
        assert_eq!(spans("````x```` ```"), [(0, 9), (10, 13)]);
    }
}
