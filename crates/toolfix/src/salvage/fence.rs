//! Fence masking: a call shown inside a Markdown code fence is documentation, not a call.
//!
//! The real package blanks every match of
//! ``(?P<fence>`{3,}|~{3,})[\s\S]*?(?:(?P=fence)|\Z)`` with one space per code point,
//! then scans the dialects over the result. The regex has a back-reference, which Rust's
//! `regex` lacks by design, and CPython runs it in quadratic time on long fences; this is
//! the same match sequence found in one pass:
//!
//! * a fence opens at the leftmost run of three or more identical backticks or tildes, and
//!   the opening fence is the *whole* run (the lazy body can always end at `\Z`, so the
//!   greedy run never gives characters back);
//! * it closes at the first later occurrence of exactly that string, anywhere (mid-line,
//!   right away, or as the first characters of a longer run), or else at the end;
//! * backticks never close tildes, and a run of 3 never closes a run of 4;
//! * scanning resumes right after the close, so the rest of a longer closing run can open
//!   the next fence.

use std::borrow::Cow;
use std::ops::Range;

use memchr::{memchr, memchr2};

use super::text::count_code_points;

/// The fenced ranges of `text`, in order, as byte ranges of the original text.
pub fn fenced_ranges(text: &[u8]) -> Vec<Range<usize>> {
    fenced_ranges_around(text, &[])
}

/// The fenced ranges of `text`, where no fence opens inside an `opaque` range (sorted,
/// disjoint) that itself starts outside every fence: a dialect whose own syntax holds a
/// fence (DeepSeek V3 writes its JSON between ` ```json ` and ` ``` ` inside its call
/// tokens) is not an example. An opaque range that starts inside a fence is masked with
/// it, like any text there.
pub fn fenced_ranges_around(text: &[u8], opaque: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut i = 0;
    let mut next_opaque = 0;
    while let Some(found) = memchr2(b'`', b'~', &text[i..]) {
        let open = i + found;
        while opaque.get(next_opaque).is_some_and(|o| o.end <= open) {
            next_opaque += 1;
        }
        if let Some(block) = opaque.get(next_opaque).filter(|o| o.start <= open) {
            i = block.end;
            next_opaque += 1;
            continue;
        }
        let mark = text[open];
        let run = run_length(text, open, mark);
        if run < 3 {
            i = open + run;
            continue;
        }
        let end = close_of(text, open + run, mark, run).unwrap_or(text.len());
        ranges.push(open..end);
        while opaque.get(next_opaque).is_some_and(|o| o.start < end) {
            next_opaque += 1;
        }
        i = end;
    }
    ranges
}

/// The first fence at or after `from`, read as [`fenced_ranges`] reads one: where a
/// reading that finds fences itself (`template`) asks for the next.
#[cfg_attr(not(feature = "template"), allow(dead_code))]
pub fn next_fence(text: &[u8], from: usize) -> Option<Range<usize>> {
    let mut i = from;
    while let Some(found) = memchr2(b'`', b'~', &text[i..]) {
        let open = i + found;
        let mark = text[open];
        let run = run_length(text, open, mark);
        if run >= 3 {
            return Some(open..close_of(text, open + run, mark, run).unwrap_or(text.len()));
        }
        i = open + run;
    }
    None
}

/// The length of the run of `mark` bytes starting at `i`.
fn run_length(text: &[u8], i: usize, mark: u8) -> usize {
    text[i..].iter().take_while(|&&b| b == mark).count()
}

/// The end of the first occurrence, at or after `from`, of `len` consecutive `mark`s.
fn close_of(text: &[u8], from: usize, mark: u8, len: usize) -> Option<usize> {
    let mut i = from;
    while let Some(found) = memchr(mark, &text[i..]) {
        let start = i + found;
        let run = run_length(text, start, mark);
        if run >= len {
            return Some(start + len);
        }
        i = start + run;
    }
    None
}

/// One fenced range: where it is in the original text and in the masked text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    original: Range<usize>,
    masked: Range<usize>,
}

/// The text as the real package scans it (every fenced code point blanked to one space),
/// with the map back to the original offsets.
///
/// Blanking is per code point, not per byte, because the payload is decoded from the
/// masked text: ```` "```é```" ```` must become seven spaces in the argument, as in Python.
#[derive(Debug)]
pub struct Masked<'a> {
    original: &'a [u8],
    text: Cow<'a, [u8]>,
    regions: Vec<Region>,
}

impl<'a> Masked<'a> {
    /// Masks the fences of `original`, as the real package does; borrows it unchanged when
    /// it has no fence.
    #[cfg(test)]
    pub fn new(original: &'a [u8]) -> Masked<'a> {
        Masked::with_ranges(original, fenced_ranges(original))
    }

    /// Masks `ranges` (sorted, disjoint byte ranges on code-point boundaries) of
    /// `original`.
    pub fn with_ranges(original: &'a [u8], ranges: Vec<Range<usize>>) -> Masked<'a> {
        if ranges.is_empty() {
            return Masked {
                original,
                text: Cow::Borrowed(original),
                regions: Vec::new(),
            };
        }
        let mut text = Vec::with_capacity(original.len());
        let mut regions = Vec::with_capacity(ranges.len());
        let mut copied = 0;
        for range in ranges {
            text.extend_from_slice(&original[copied..range.start]);
            let blanks = count_code_points(&original[range.clone()]);
            let start = text.len();
            text.resize(start + blanks, b' ');
            regions.push(Region {
                masked: start..text.len(),
                original: range.clone(),
            });
            copied = range.end;
        }
        text.extend_from_slice(&original[copied..]);
        Masked {
            original,
            text: Cow::Owned(text),
            regions,
        }
    }

    /// The masked text.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// The original offset of masked offset `pos`.
    ///
    /// Inside a fenced range, the `n`th blank maps to the `n`th code point of the fence.
    pub fn to_original(&self, pos: usize) -> usize {
        let before = self.regions.partition_point(|r| r.masked.start < pos);
        match before.checked_sub(1).map(|k| &self.regions[k]) {
            None => pos,
            Some(r) if pos >= r.masked.end => pos - r.masked.end + r.original.end,
            Some(r) => {
                r.original.start
                    + nth_code_point_offset(
                        &self.original[r.original.clone()],
                        pos - r.masked.start,
                    )
            }
        }
    }

    /// The original text.
    pub fn original(&self) -> &'a [u8] {
        self.original
    }

    /// The masked ranges, as byte ranges of the original text.
    #[cfg(test)]
    pub fn fenced(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.regions.iter().map(|r| r.original.clone())
    }
}

/// The byte offset of the `n`th code point of `text` (its length if there are fewer).
fn nth_code_point_offset(text: &[u8], n: usize) -> usize {
    text.iter()
        .enumerate()
        .filter(|(_, b)| *b & 0xC0 != 0x80)
        .nth(n)
        .map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(text: &str) -> String {
        String::from_utf8(Masked::new(text.as_bytes()).text().to_vec()).unwrap()
    }

    /// Expectations from `_mask_protected_ranges` in praisonaiagents 1.7.17 (§4 F).
    #[test]
    fn masks_like_the_fence_regex() {
        assert_eq!(masked("a ```x``` b"), "a         b");
        assert_eq!(masked("````x``` y"), "          ");
        assert_eq!(masked("~~~x``` y~~~z"), "            z");
        assert_eq!(masked("``x``"), "``x``");
        assert_eq!(masked("```x`````y"), "       ``y");
        assert_eq!(masked("```é```!"), "       !");
        assert_eq!(masked("``````abc"), "         ");
        assert_eq!(masked("```\n```"), "       ");
        assert_eq!(masked("no fence"), "no fence");
    }

    #[test]
    fn maps_offsets_back_to_the_original() {
        let text = "é```é```ü<x>";
        let m = Masked::new(text.as_bytes());
        let masked_x = m.text().iter().position(|&b| b == b'<').unwrap();
        assert_eq!(m.to_original(masked_x), text.find('<').unwrap());
        assert_eq!(m.to_original(0), 0);
        assert_eq!(m.to_original(2), 2);
        assert_eq!(m.to_original(5), 2 + "```".len());
        assert_eq!(m.to_original(6), 2 + "```é".len());
        assert_eq!(m.fenced().collect::<Vec<_>>(), vec![2..2 + "```é```".len()]);
    }

    /// How many code points of each fenced range have their offset mapped back: mapping
    /// an offset inside a range costs the range's length, so checking every one would
    /// make the check quadratic.
    const CHECKED_PER_FENCE: usize = 8;

    /// Masking against the obvious construction: every code point keeps its bytes outside
    /// the fenced ranges and becomes one space inside them, and `to_original` maps each
    /// masked offset back to its code point.
    fn check_masking(text: &str) {
        let ranges = fenced_ranges(text.as_bytes());
        let masked = Masked::new(text.as_bytes());
        assert_eq!(masked.fenced().collect::<Vec<_>>(), ranges);
        let (mut at, mut next, mut in_fence) = (0, 0, 0);
        for (original, c) in text.char_indices() {
            while ranges.get(next).is_some_and(|r| r.end <= original) {
                next += 1;
            }
            let fenced = ranges.get(next).is_some_and(|r| r.start <= original);
            in_fence = if fenced { in_fence + 1 } else { 0 };
            let written: &[u8] = match fenced {
                true => b" ",
                false => &text.as_bytes()[original..original + c.len_utf8()],
            };
            assert_eq!(
                masked.text().get(at..at + written.len()),
                Some(written),
                "at {at}"
            );
            if in_fence <= CHECKED_PER_FENCE {
                assert_eq!(masked.to_original(at), original, "masked offset {at}");
            }
            at += written.len();
        }
        assert_eq!(masked.text().len(), at, "one space per fenced code point");
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn masking_blanks_each_fenced_code_point(text in "[`~é\\nx<>]{0,64}") {
            check_masking(&text);
        }

        #[test]
        fn masking_any_text(text in any::<String>()) {
            check_masking(&text);
        }
    }
}
