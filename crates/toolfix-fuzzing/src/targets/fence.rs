//! The `fence` target: fence masking against the regex it replaces.

use crate::fence_oracle;
use toolfix::salvage::fenced_ranges;

/// Checks `fenced_ranges` on the bytes as lossy UTF-8: the ranges are the regex's matches,
/// so sorted and disjoint, each opening with three or more identical backticks or tildes.
/// (How masking blanks the ranges is a property test of the core crate's `fence`.)
pub fn fence(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let ranges = fenced_ranges(&*text);
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
}
