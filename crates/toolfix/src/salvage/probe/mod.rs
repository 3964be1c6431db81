//! The marker probe: the cheap test that lets clean replies skip every scanner.
//!
//! The real package lowercases the whole reply (`str.lower()`) and looks for six markers
//! as substrings: `<tool_call>`, `<function=`, `[tool_call]`, `[tool_request]`,
//! `<|python_tag|>`, `action`. Every marker is ASCII, and the only non-ASCII code points
//! whose `lower()` contains ASCII are `İ` (to `i` + U+0307, which breaks any marker it
//! lands in) and `K` (to `k`, in no marker), so the probe is exactly an ASCII
//! case-insensitive search of the raw bytes. It allocates nothing.
//!
//! Almost every reply is clean, so this is the whole cost of salvage on most replies, and
//! BENCHMARKS.md holds it to at most twice a `memchr::memmem` scan of the same bytes. One
//! pass finds *candidate* starts, positions where a marker could begin, and only those are
//! checked exactly (`markers_at`):
//!
//! * the tags start with `<` or `[`, and each candidate there is compared only with the
//!   markers that begin with its first two bytes (`STARTS`), so a reply of markup or a
//!   flood of `<` pays a table lookup per candidate, not a comparison with every marker;
//! * `action` has `c` one byte after its start and `n` five bytes after it, in either
//!   case. Testing two letters at a fixed distance (memchr's "packed pair") leaves about
//!   one false candidate per 450 bytes of English, mostly words ending in `-ction`; a
//!   single letter would flag every few dozen bytes.
//!
//! No crate offers that test case-insensitively in one pass (memchr's packed pair is
//! exact-byte, aho-corasick drops its SIMD prefilters under `ascii_case_insensitive`), and
//! the compiler does not vectorize it well from plain code (2.5-3.5x the floor, measured),
//! so on x86-64 with AVX2 the pass is written with intrinsics (`avx2`). Everywhere else,
//! and for texts shorter than one vector, `portable` does the same search with memchr.
//! Both are checked against a naive search in the tests below.
//!
//! The same candidates, sieved by which markers are still wanted, make the presence pass
//! (`present`): which markers of every dialect and of reasoning a text holds, in one pass,
//! so the reading searches for none it lacks.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod markers;
mod portable;
mod present;
#[cfg(target_arch = "x86_64")]
mod sieve;
#[cfg(test)]
mod tests;

use crate::profile::Profile;
use markers::{
    ACTION, ACTION_BIT, FUNCTOOLS, FUNCTOOLS_BIT, FUNCTOOLS_WORD, PRAISONAI, PROBE, SHORTEST,
    STARTS, marker, side,
};
pub use present::Present;

/// Whether `text.lower()` contains a marker of a dialect `profile` recovers.
pub fn has_marker(text: &[u8], profile: Profile) -> bool {
    let wanted = match profile.reads_native_formats() {
        true => PROBE,
        false => PRAISONAI,
    };
    starts(text, |i| markers_at(text, i, wanted) != 0)
}

/// Calls `visit` at every place a marker may start (or `functools[` end), in no fixed
/// order and maybe more than once, until it returns `true`; whether it did.
#[inline]
fn starts(text: &[u8], mut visit: impl FnMut(usize) -> bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { avx2::starts(text, &mut visit) } || brackets_in_tail(text, &mut visit);
    }
    portable::starts(text, &mut visit)
}

/// Visits each `[` in the last `SHORTEST - 1` bytes, where Phi-4's `functools[` can end:
/// it is found at its `[`, and the vector search tests only where a marker can start,
/// which is never there.
fn brackets_in_tail(text: &[u8], visit: &mut impl FnMut(usize) -> bool) -> bool {
    let from = text.len().saturating_sub(SHORTEST - 1).max(FUNCTOOLS_WORD);
    (from..text.len()).any(|i| text[i] == b'[' && visit(i))
}

/// The markers among `wanted` that start at `i`, or (for `functools[`) end there.
#[inline]
fn markers_at(text: &[u8], i: usize, wanted: u64) -> u64 {
    let tail = &text[i..];
    let Some(&first) = tail.first() else {
        return 0;
    };
    let Some(side) = side(first) else {
        let action = ACTION_BIT & wanted != 0 && starts_with_ignore_case(tail, ACTION);
        return if action { ACTION_BIT } else { 0 };
    };
    let table = &STARTS[side];
    let mut markers = tail.get(1).map_or(0, |&b| table[usize::from(b)]) & wanted;
    let mut found = 0;
    while markers != 0 {
        let k = markers.trailing_zeros();
        if starts_with_ignore_case(tail, marker(k as usize)) {
            found |= 1 << k;
        }
        markers &= markers - 1;
    }
    if first == b'[' && FUNCTOOLS_BIT & wanted != 0 && functools_before(text, i) {
        found |= FUNCTOOLS_BIT;
    }
    found
}

/// Whether the word of `functools[` ends right before the `[` at `i`, in any ASCII case.
fn functools_before(text: &[u8], i: usize) -> bool {
    i >= FUNCTOOLS_WORD
        && text[i - FUNCTOOLS_WORD..i].eq_ignore_ascii_case(&FUNCTOOLS[..FUNCTOOLS_WORD])
}

#[inline]
fn starts_with_ignore_case(text: &[u8], marker: &[u8]) -> bool {
    text.len() >= marker.len() && text[..marker.len()].eq_ignore_ascii_case(marker)
}
