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
//! checked exactly (`marker_at`):
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

use crate::profile::Profile;

use super::dialect::tokens::{phi4, react};
use super::dialect::{PROBE_NEW, PROBE_PRAISONAI};

/// `action`, the only marker of the real package's that is a word: found through its
/// `c` and `n` (`avx2`), which the constant asserts below keep true.
const ACTION: &[u8] = react::ACTION.as_bytes();
const _: () = assert!(ACTION.len() == 6 && ACTION[1] == b'c' && ACTION[5] == b'n');

/// Phi-4's `functools[`, found at its `[`: the word before it, and where it ends.
const FUNCTOOLS: &[u8] = phi4::FUNCTOOLS.as_bytes();
const FUNCTOOLS_WORD: usize = FUNCTOOLS.len() - 1;
const _: () = assert!(FUNCTOOLS[FUNCTOOLS_WORD] == b'[');

/// The length of the shortest marker: no marker starts in the last `SHORTEST - 1` bytes.
const SHORTEST: usize = 6;

/// Whether `text.lower()` contains a marker of a dialect `profile` recovers.
pub fn has_marker(text: &[u8], profile: Profile) -> bool {
    let every = profile.reads_native_formats();
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { avx2::has_marker(text, every) } || (every && functools_in_tail(text));
    }
    portable::has_marker(text, every)
}

/// Whether Phi-4's `functools[` ends in the last `SHORTEST - 1` bytes. It is found at its
/// `[`, so it can; the vector search tests only where a marker can start, which is never
/// there.
fn functools_in_tail(text: &[u8]) -> bool {
    let from = text.len().saturating_sub(SHORTEST - 1).max(FUNCTOOLS_WORD);
    (from..text.len()).any(|i| text[i] == b'[' && functools_before(text, i))
}

/// Whether a marker starts at `i` (of the six dialects of praisonaiagents, or of `every`
/// dialect), or (for `functools[`, under `every`) ends there.
#[inline]
fn marker_at(text: &[u8], i: usize, every: bool) -> bool {
    let tail = &text[i..];
    let Some(&first) = tail.first() else {
        return false;
    };
    let table = match first {
        b'<' => &STARTS[0],
        b'[' => &STARTS[1],
        _ => return starts_with_ignore_case(tail, ACTION),
    };
    let lists = if every { u32::MAX } else { PRAISONAI };
    let mut markers = tail.get(1).map_or(0, |&b| table[usize::from(b)]) & lists;
    while markers != 0 {
        if starts_with_ignore_case(tail, tag_marker(markers.trailing_zeros() as usize)) {
            return true;
        }
        markers &= markers - 1;
    }
    every && first == b'[' && functools_before(text, i)
}

/// How many of the probe's markers are the real package's: they come first in the
/// numbering [`STARTS`] uses, so [`PRAISONAI`] selects them.
const PRAISONAI_LEN: usize = PROBE_PRAISONAI.len();
const _: () = assert!(PRAISONAI_LEN + PROBE_NEW.len() <= 32);
/// The bits of [`STARTS`] that are markers of the real package's dialects.
const PRAISONAI: u32 = (1 << PRAISONAI_LEN) - 1;

/// The probe's marker number `k`: the real package's, then the others, in registry order.
const fn tag_marker(k: usize) -> &'static [u8] {
    match k < PRAISONAI_LEN {
        true => PROBE_PRAISONAI[k].as_bytes(),
        false => PROBE_NEW[k - PRAISONAI_LEN].as_bytes(),
    }
}

/// For a marker start at `<` (`STARTS[0]`) or `[` (`STARTS[1]`), and each byte after it,
/// the markers (by [`tag_marker`] number) that begin with those two bytes in any ASCII
/// case. A reply full of `<` or `[` (markup, ASCII art, a flood) then costs a lookup at
/// each and a comparison only with the markers that can still match, not with every one.
static STARTS: [[u32; 256]; 2] = {
    let mut table = [[0; 256]; 2];
    let mut k = 0;
    while k < PRAISONAI_LEN + PROBE_NEW.len() {
        let marker = tag_marker(k);
        let side = match marker[0] {
            b'<' => 0,
            b'[' => 1,
            _ => usize::MAX,
        };
        if side != usize::MAX {
            table[side][marker[1].to_ascii_lowercase() as usize] |= 1 << k;
            table[side][marker[1].to_ascii_uppercase() as usize] |= 1 << k;
        }
        k += 1;
    }
    table
};

/// Whether the word of `functools[` ends right before the `[` at `i`, in any ASCII case.
fn functools_before(text: &[u8], i: usize) -> bool {
    i >= FUNCTOOLS_WORD
        && text[i - FUNCTOOLS_WORD..i].eq_ignore_ascii_case(&FUNCTOOLS[..FUNCTOOLS_WORD])
}

#[inline]
fn starts_with_ignore_case(text: &[u8], marker: &[u8]) -> bool {
    text.len() >= marker.len() && text[..marker.len()].eq_ignore_ascii_case(marker)
}

/// The search with memchr alone: for targets without AVX2, and for short texts.
mod portable {
    use memchr::memchr2_iter;

    use super::{marker_at, starts_with_ignore_case};

    pub fn has_marker(text: &[u8], every: bool) -> bool {
        has_tag_marker(text, every) || has_action(text)
    }

    /// The markers that start with `<` or `[`.
    fn has_tag_marker(text: &[u8], every: bool) -> bool {
        memchr2_iter(b'<', b'[', text).any(|i| marker_at(text, i, every))
    }

    /// `action`, in any ASCII case, found through its second letter (rarer in prose than
    /// `a`).
    fn has_action(text: &[u8]) -> bool {
        memchr2_iter(b'c', b'C', text)
            .any(|i| i >= 1 && starts_with_ignore_case(&text[i - 1..], super::ACTION))
    }
}

/// The candidate search in 32-byte AVX2 vectors.
///
/// A vector covers the 32 starts `p..p + 32`. Three unaligned loads give the bytes at `p`,
/// `p + 1` and `p + 5`, and a lane is a candidate when its byte at `p` is `<` or `[`, or
/// its bytes at `p + 1` and `p + 5` are `c` and `n` after setting bit 0x20 (which folds
/// exactly `C`/`c` and `N`/`n` together): eight vector operations per 32 bytes. The hot
/// loop (`next_block`) tests four vectors, 128 starts, at once.
///
/// In a block that has candidates, the lanes are first narrowed to those whose start byte
/// is a tag byte or an `a` (`narrow`), which drops the `-ction` words before any lane is
/// checked one by one (each costs a mispredicted branch there). Narrowing in the hot loop
/// instead would cost three more operations per vector on every block.
///
/// Every load reads a fixed-size window (`&[u8; N]`) taken once per block, so bounds are
/// checked once per block, and each load is in bounds by its constant offset.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    // Since Rust 1.87 the intrinsics that take no pointer are safe to call inside an
    // AVX2 function; the crate's MSRV (1.85) still needs these `unsafe` blocks.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_shuffle_epi8,
        _mm256_testz_si256,
    };

    use super::{SHORTEST, marker_at, portable};

    /// Bytes per vector, and starts tested per vector.
    const LANES: usize = 32;
    /// Bytes read past a start: the `n` of `action`.
    const REACH: usize = 5;
    /// Bytes one vector of starts reads.
    const WINDOW: usize = LANES + REACH;
    /// Starts per iteration of the hot loop.
    const BLOCK: usize = 4 * LANES;

    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn has_marker(text: &[u8], every: bool) -> bool {
        if text.len() < WINDOW {
            return portable::has_marker(text, every);
        }
        // SAFETY (every `unsafe` below): AVX2 is enabled for this function.
        let mut start = 0;
        loop {
            match unsafe { next_block(text, start) } {
                Ok((block, lanes)) if any_marker(text, block, lanes, every) => return true,
                Ok((block, _)) => start = block + BLOCK,
                Err(rest) => {
                    start = rest;
                    break;
                }
            }
        }
        if start + SHORTEST > text.len() {
            return false;
        }
        // The starts left over, in one last block or vector that may overlap starts
        // already checked (checking one twice is harmless).
        if let Some(last) = text.len().checked_sub(BLOCK + REACH) {
            return match unsafe { next_block(text, last) } {
                Ok((block, lanes)) => any_marker(text, block, lanes, every),
                Err(_) => false,
            };
        }
        while let Some(window) = text.get(start..start + WINDOW) {
            if any_marker(
                text,
                start,
                unsafe { lanes(window.try_into().unwrap()) },
                every,
            ) {
                return true;
            }
            start += LANES;
        }
        let last = text.len() - WINDOW;
        any_marker(
            text,
            last,
            unsafe { lanes(text[last..].try_into().unwrap()) },
            every,
        )
    }

    /// The first block of `BLOCK` starts from `start` that has candidates left after
    /// narrowing, with those candidates as bits; or, if none has, where the whole blocks
    /// end.
    ///
    /// This is the hot loop, kept out of line and free of calls so that its constants stay
    /// in registers.
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    unsafe fn next_block(text: &[u8], mut start: usize) -> Result<(usize, u128), usize> {
        while let Some(block) = text.get(start..start + BLOCK + REACH) {
            let block: &[u8; BLOCK + REACH] = block.try_into().unwrap();
            let window = |k: usize| block[k * LANES..k * LANES + WINDOW].try_into().unwrap();
            // SAFETY: AVX2 is enabled for this function.
            unsafe {
                let vectors = [0, 1, 2, 3].map(|k| candidates(window(k)));
                let any = _mm256_or_si256(
                    _mm256_or_si256(vectors[0], vectors[1]),
                    _mm256_or_si256(vectors[2], vectors[3]),
                );
                if _mm256_testz_si256(any, any) == 0 {
                    let lanes = (0..4).rev().fold(0, |lanes, k| {
                        lanes << LANES | bits(narrow(window(k), vectors[k]))
                    });
                    if lanes != 0 {
                        return Ok((start, lanes));
                    }
                }
            }
            start += BLOCK;
        }
        Err(start)
    }

    /// Whether a marker starts at `start + i` for some bit `i` of `lanes`.
    fn any_marker(text: &[u8], start: usize, mut lanes: u128, every: bool) -> bool {
        while lanes != 0 {
            if marker_at(text, start + lanes.trailing_zeros() as usize, every) {
                return true;
            }
            lanes &= lanes - 1;
        }
        false
    }

    /// The narrowed candidates of the 32 starts at the beginning of `window`, as bits.
    #[target_feature(enable = "avx2")]
    unsafe fn lanes(window: &[u8; WINDOW]) -> u128 {
        // SAFETY: AVX2 is enabled for this function.
        unsafe { bits(narrow(window, candidates(window))) }
    }

    /// The candidate lanes (0xFF) of the 32 starts at the beginning of `window`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn candidates(window: &[u8; WINDOW]) -> __m256i {
        // SAFETY: AVX2 is enabled for this function.
        unsafe {
            let fold = _mm256_set1_epi8(0x20);
            let second = _mm256_or_si256(load(window, 1), fold);
            let sixth = _mm256_or_si256(load(window, REACH), fold);
            let action = _mm256_and_si256(
                _mm256_cmpeq_epi8(second, _mm256_set1_epi8(b'c' as i8)),
                _mm256_cmpeq_epi8(sixth, _mm256_set1_epi8(b'n' as i8)),
            );
            _mm256_or_si256(tags(load(window, 0)), action)
        }
    }

    /// `candidates` keeping only the lanes whose start byte is `<`, `[` or `a`/`A`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn narrow(window: &[u8; WINDOW], candidates: __m256i) -> __m256i {
        // SAFETY: AVX2 is enabled for this function.
        unsafe {
            let first = load(window, 0);
            let a = _mm256_cmpeq_epi8(
                _mm256_or_si256(first, _mm256_set1_epi8(0x20)),
                _mm256_set1_epi8(b'a' as i8),
            );
            _mm256_and_si256(candidates, _mm256_or_si256(tags(first), a))
        }
    }

    /// The lanes of `bytes` that are `<` or `[`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn tags(bytes: __m256i) -> __m256i {
        // SAFETY: AVX2 is enabled for this function.
        unsafe {
            // `TABLE[b & 15] == b` exactly for `b` in `<` (0x3C) and `[` (0x5B): `pshufb`
            // reads the table by the low nibble (and gives 0 for bytes with the top bit
            // set), and every other entry differs from its index in the low nibble.
            #[rustfmt::skip]
            let table = _mm256_setr_epi8(
                1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 0x5B, 0x3C, 12, 15, 14,
                1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 0x5B, 0x3C, 12, 15, 14,
            );
            _mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, bytes), bytes)
        }
    }

    /// One bit per lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn bits(lanes: __m256i) -> u128 {
        // SAFETY: AVX2 is enabled for this function.
        unsafe { _mm256_movemask_epi8(lanes) as u32 as u128 }
    }

    /// The 32 bytes at `offset` of `window`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(window: &[u8; WINDOW], offset: usize) -> __m256i {
        let bytes: &[u8; LANES] = window[offset..offset + LANES].try_into().unwrap();
        // SAFETY: `bytes` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The real package's markers.
    fn markers() -> Vec<&'static [u8]> {
        PROBE_PRAISONAI.iter().map(|m| m.as_bytes()).collect()
    }

    /// The definition: some marker at some offset.
    fn naive(text: &[u8]) -> bool {
        (0..text.len()).any(|i| {
            markers()
                .iter()
                .any(|m| starts_with_ignore_case(&text[i..], m))
        })
    }

    #[test]
    fn strict_finds_the_markers_of_every_dialect_and_praisonai_only_its_own() {
        for text in [
            "[TOOL_CALLS]get_weather[ARGS]{}",
            "x <｜tool▁calls▁begin｜>",
            "<｜tool▁call▁begin｜>",
            "<｜DSML｜function_calls>",
            "<|tool_calls_section_begin|>",
            "<|tool_call_begin|>functions.a:0",
            "commentary to=functions.a <|constrain|>json<|message|>{}",
            "<start_function_call>call:a{}",
            "<minimax:tool_call>",
            "<|tool_call|>[]",
            "<|tool_call>call:a{}<tool_call|>",
            "<|python_start|>[a()]<|python_end|>",
            "<|tool_call_start|>[a()]<|tool_call_end|>",
            "functools[{}]",
        ] {
            let padded = format!("{text}{}", " padding".repeat(20));
            for t in [text.to_owned(), padded] {
                assert!(has_marker(t.as_bytes(), Profile::Strict), "{t}");
                assert!(has_marker(t.as_bytes(), Profile::Portable), "{t}");
                assert!(!has_marker(t.as_bytes(), Profile::PraisonAi), "{t}");
            }
        }
        assert!(!has_marker(b"functools [x] functool[", Profile::Strict));
    }

    #[test]
    fn finds_each_marker_in_any_ascii_case() {
        for text in [
            "x <TOOL_CALL> y",
            "<Function=a>",
            "[Tool_Request]",
            "<|PYTHON_TAG|>",
            "a transaction",
            "ACTION",
        ] {
            assert!(has_marker(text.as_bytes(), Profile::PraisonAi), "{text}");
        }
    }

    #[test]
    fn ignores_near_misses() {
        for text in [
            "<tool call>",
            "act ion",
            "Ａction",
            "actİon",
            "<functıon=",
            "plain prose",
            "a function and an instruction, each one in its section",
        ] {
            assert!(!has_marker(text.as_bytes(), Profile::PraisonAi), "{text}");
        }
    }

    /// A marker written over every offset of texts long enough to take each path of the
    /// vector search (main loop, single vectors, the overlapping last vector), cut short
    /// where it runs past the end.
    #[test]
    fn finds_a_marker_at_every_offset() {
        let filler = b"ction cn <tool call [tool n c ".repeat(20);
        for len in [0, 5, 36, 37, 38, 100, 132, 133, 134, 165, 261, 262, 300] {
            let base = &filler[..len];
            assert!(
                !naive(base) && !has_marker(base, Profile::PraisonAi),
                "{len}"
            );
            for marker in markers() {
                for at in 0..=len {
                    let mut text = base.to_vec();
                    for (slot, &b) in text[at..].iter_mut().zip(marker) {
                        *slot = b;
                    }
                    assert_eq!(
                        has_marker(&text, Profile::PraisonAi),
                        naive(&text),
                        "{len} {at}"
                    );
                }
            }
        }
    }

    /// Phi-4's `functools[` is found at its `[`, so it can end in the last bytes, where no
    /// other marker starts and the vector search does not look. Found by the `salvage`
    /// fuzz target: a clean reply whose folded `actİon` call was let through under
    /// `strict` by a quoted `"functools["` four bytes from its end, which the probe missed.
    #[test]
    fn finds_functools_at_every_offset() {
        let filler = b"ction cn <tool call [tool n c ".repeat(20);
        for len in [0, 5, 36, 37, 38, 100, 132, 133, 134, 165, 261, 262, 300] {
            for at in 0..=len {
                let mut text = filler[..len].to_vec();
                for (slot, &b) in text[at..].iter_mut().zip(b"functools[") {
                    *slot = b;
                }
                let whole = text.windows(10).any(|w| w == b"functools[");
                assert_eq!(has_marker(&text, Profile::Strict), whole, "{len} {at}");
            }
        }
    }

    /// The definition under `strict`: a marker of any dialect at some offset.
    fn naive_every(text: &[u8]) -> bool {
        let every: Vec<&[u8]> = PROBE_PRAISONAI
            .iter()
            .chain(&PROBE_NEW)
            .map(|m| m.as_bytes())
            .collect();
        (0..text.len()).any(|i| every.iter().any(|m| starts_with_ignore_case(&text[i..], m)))
    }

    /// Bytes drawn mostly from the markers' letters in both cases, so that random texts
    /// hold candidates, near misses and markers.
    fn marker_heavy() -> impl Strategy<Value = Vec<u8>> {
        let alphabet = b"aAcCtTiIoOnN<[|_=]>fFpPlLrR \n\x00\x80\xc4\xb0x".to_vec();
        proptest::collection::vec(proptest::sample::select(alphabet), 0..400)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn agrees_with_the_naive_search(text in marker_heavy()) {
            prop_assert_eq!(has_marker(&text, Profile::PraisonAi), naive(&text));
            prop_assert_eq!(portable::has_marker(&text, false), naive(&text));
        }

        /// Under `strict` every dialect's marker counts, in any ASCII case: the table of
        /// second bytes (`STARTS`) lets none through that the definition would not.
        #[test]
        fn strict_agrees_with_the_naive_search(
            text in marker_heavy(),
            marker in proptest::sample::select(PROBE_NEW.to_vec()),
            at in any::<proptest::sample::Index>(),
            upper in proptest::collection::vec(any::<bool>(), 32),
        ) {
            prop_assert_eq!(has_marker(&text, Profile::Strict), naive_every(&text));
            let mut text = text;
            let at = at.index(text.len() + 1);
            let cased = marker
                .bytes()
                .zip(&upper)
                .map(|(b, &u)| if u { b.to_ascii_uppercase() } else { b });
            text.splice(at..at, cased);
            prop_assert!(has_marker(&text, Profile::Strict));
        }

        #[test]
        fn agrees_on_arbitrary_bytes(text in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(has_marker(&text, Profile::PraisonAi), naive(&text));
        }

        #[test]
        fn finds_a_marker_in_any_case_anywhere(
            text in marker_heavy(),
            marker in proptest::sample::select(markers()),
            at in any::<proptest::sample::Index>(),
            upper in proptest::collection::vec(any::<bool>(), 14),
        ) {
            let mut text = text;
            let at = at.index(text.len() + 1);
            let cased = marker
                .iter()
                .zip(&upper)
                .map(|(&b, &u)| if u { b.to_ascii_uppercase() } else { b });
            text.splice(at..at, cased);
            prop_assert!(has_marker(&text, Profile::PraisonAi));
        }
    }
}
