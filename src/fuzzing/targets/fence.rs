//! The `fence` target: fence masking against the regex it replaces.

use std::ops::Range;

use crate::fuzzing::fence_oracle;
use crate::salvage::fence::{Masked, fenced_ranges};

/// Checks `fenced_ranges` and masking on the bytes as lossy UTF-8: the ranges are the
/// regex's matches (so sorted and disjoint, each opening with three or more identical
/// backticks or tildes), masking blanks each fenced code point to one space and keeps the
/// code-point count, and masked offsets map back to the original ones.
pub fn fence(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let ranges = fenced_ranges(text.as_bytes());
    assert_eq!(
        ranges,
        fence_oracle::fenced_ranges(text.as_bytes()),
        "the fence regex's matches"
    );
    for pair in ranges.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "sorted and disjoint: {ranges:?}"
        );
    }
    for range in &ranges {
        let run = &text.as_bytes()[range.start..range.end.min(range.start + 3)];
        assert!(
            run.len() == 3 && matches!(run[0], b'`' | b'~') && run.iter().all(|&b| b == run[0]),
            "{range:?} does not open with a fence"
        );
    }
    check_masking(&text, &ranges);
}

/// How many code points of each fenced range have their offset mapped back: mapping an
/// offset inside a range costs the range's length, so checking every one would make the
/// check quadratic.
const CHECKED_PER_FENCE: usize = 8;

/// Masking against the obvious construction: every code point keeps its bytes outside the
/// fenced ranges and becomes one space inside them, and `to_original` maps each masked
/// offset back to its code point.
fn check_masking(text: &str, ranges: &[Range<usize>]) {
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
    assert_eq!(
        masked.text().len(),
        at,
        "the masked text has one space per fenced code point"
    );
}
