//! Where a byte is followed by a given byte, a letter in either ASCII case: the openers of
//! the dialects whose tags `re.I` matches (`<t` for `<tool_call>`, `<f` for `<function=`,
//! `[t` for `[TOOL_CALL]`), and `<|` for Llama's `<|python_tag|>`, found in one forward
//! pass.
//!
//! A search for the pair, not a stop at every first byte: a flood of another dialect's
//! tags (`<|tool_call_begin|>`, Mistral's `[ARGS]`) puts one every few bytes. Two
//! `memmem` searches (one per case of the letter) were the search before; in a flood of
//! the pair itself (`<tool_call>` × n) each of their hits cost about 190 instructions of
//! searcher set-up, half of the whole salvage. Here one pass tests 64 starts at a
//! time, both cases at once (setting bit 0x20 folds exactly a letter's two cases), and
//! keeps the block's hits as bits: a hit costs a few instructions, a block without one
//! about as much as `memmem` spends on it. With AVX2 a block is two vectors; elsewhere,
//! and for the last starts, the same test runs byte by byte.

/// Starts tested per block.
const BLOCK: usize = 64;

/// The offsets of `first` followed by `second` (a letter in either case), in order.
pub struct PairStarts<'t> {
    text: &'t [u8],
    first: u8,
    second: u8,
    /// What is set in the byte after `first` before it is compared with `second`: 0x20
    /// for a letter, whose two cases it folds together, else nothing.
    fold: u8,
    /// The first start of the block `hits` belongs to.
    base: usize,
    /// The hits of that block not given out yet, one bit per start.
    hits: u64,
    /// The first start not yet tested.
    next: usize,
}

impl<'t> PairStarts<'t> {
    /// The pairs `first`, `second` of `text`; a letter `second` is given in lower case
    /// and found in either.
    pub fn new(text: &'t [u8], first: u8, second: u8) -> PairStarts<'t> {
        debug_assert!(!second.is_ascii_uppercase());
        PairStarts {
            text,
            first,
            second,
            fold: if second.is_ascii_lowercase() { 0x20 } else { 0 },
            base: 0,
            hits: 0,
            next: 0,
        }
    }

    /// The first block of starts from `self.next` that has a hit, as its first start and
    /// its hits (one bit per start); or, when none has, the last block, with no hits.
    fn next_block(&self) -> (usize, u64) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            let (text, (first, second, fold)) = (self.text, (self.first, self.second, self.fold));
            // SAFETY: the CPU supports AVX2, checked just above.
            let (at, hits) = unsafe { avx2::next_hits(text, self.next, first, second, fold) };
            return (at, if hits != 0 { hits } else { self.bytewise(at) });
        }
        (self.next, self.bytewise(self.next))
    }

    /// The hits of the `BLOCK` starts from `at` (fewer at the end), byte by byte.
    fn bytewise(&self, at: usize) -> u64 {
        let text = self.text;
        let end = (at + BLOCK).min(text.len().saturating_sub(1));
        (at..end).fold(0, |hits, i| {
            let hit = text[i] == self.first && text[i + 1] | self.fold == self.second;
            hits | u64::from(hit) << (i - at)
        })
    }
}

impl Iterator for PairStarts<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.hits == 0 {
            if self.next + 1 >= self.text.len() {
                return None;
            }
            (self.base, self.hits) = self.next_block();
            self.next = self.base + BLOCK;
        }
        let start = self.base + self.hits.trailing_zeros() as usize;
        self.hits &= self.hits - 1;
        Some(start)
    }
}

/// The block test in two 32-byte AVX2 vectors.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    // Since Rust 1.87 the intrinsics that take no pointer are safe to call inside an
    // AVX2 function; the crate's MSRV (1.85) still needs these `unsafe` blocks.
    #![allow(unused_unsafe)]

    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };

    use super::BLOCK;

    /// The first block of `BLOCK` starts from `from` whose window (`BLOCK + 1` bytes) lies
    /// in `text` and holds a pair, as its first start and its hits; or where such windows
    /// end, with no hits. A pair is `first` followed by a byte that is `second` once `fold`
    /// is set in it.
    ///
    /// The hot loop: it runs to the next hit without leaving AVX2 code, so a block
    /// without one costs a few vector operations.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn next_hits(
        text: &[u8],
        from: usize,
        first: u8,
        second: u8,
        fold: u8,
    ) -> (usize, u64) {
        // SAFETY (every `unsafe` below): AVX2 is enabled for this function.
        unsafe {
            let (first, second) = (
                _mm256_set1_epi8(first as i8),
                _mm256_set1_epi8(second as i8),
            );
            let fold = _mm256_set1_epi8(fold as i8);
            let mut at = from;
            while let Some(window) = text.get(at..at + BLOCK + 1) {
                let window: &[u8; BLOCK + 1] = window.try_into().unwrap();
                let half = |k: usize| {
                    let here = _mm256_cmpeq_epi8(load(window, k), first);
                    let next =
                        _mm256_cmpeq_epi8(_mm256_or_si256(load(window, k + 1), fold), second);
                    _mm256_movemask_epi8(_mm256_and_si256(here, next)) as u32 as u64
                };
                let hits = half(0) | half(32) << 32;
                if hits != 0 {
                    return (at, hits);
                }
                at += BLOCK;
            }
            (at, 0)
        }
    }

    /// The 32 bytes at `offset` of `window`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(window: &[u8; BLOCK + 1], offset: usize) -> __m256i {
        let bytes: &[u8; 32] = window[offset..offset + 32].try_into().unwrap();
        // SAFETY: `bytes` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }
}

#[cfg(test)]
mod tests {
    use memchr::memchr_iter;
    use proptest::prelude::*;

    use super::*;

    /// The definition: a stop at every `first`, kept when the byte after it is `second`
    /// in either ASCII case.
    fn filtered(text: &[u8], first: u8, second: u8) -> Vec<usize> {
        memchr_iter(first, text)
            .filter(|&i| {
                text.get(i + 1)
                    .is_some_and(|b| b.eq_ignore_ascii_case(&second))
            })
            .collect()
    }

    proptest! {
        /// In order, each once, the two cases interleaved, across whole blocks, the last
        /// starts, and a pair that straddles two blocks.
        #[test]
        fn pairs_are_found_where_the_first_byte_and_the_folded_next_are(
            text in "[<\\[tTfF|\\\\x ]{0,300}",
        ) {
            let text = text.as_bytes();
            for (first, second) in [(b'<', b't'), (b'<', b'f'), (b'[', b't'), (b'<', b'|')] {
                let found: Vec<usize> = PairStarts::new(text, first, second).collect();
                prop_assert_eq!(found, filtered(text, first, second));
            }
        }
    }

    #[test]
    fn a_flood_gives_every_pair() {
        let text = b"<tool_call>".repeat(100);
        let found: Vec<usize> = PairStarts::new(&text, b'<', b't').collect();
        assert_eq!(found, (0..100).map(|k| k * 11).collect::<Vec<_>>());
        assert_eq!(PairStarts::new(b"<", b'<', b't').count(), 0);
        assert_eq!(PairStarts::new(b"", b'<', b't').count(), 0);
    }
}
