//! The presence pass in 32-byte AVX2 vectors, sieved by the tag markers still wanted.
//!
//! A block of 128 starts without a `<` or `[` is passed over with two comparisons per
//! vector. In a vector that has one, a lane (a start `p`) is a candidate when its four
//! bytes can begin a marker still wanted: `<` or `[`, then three bytes that one of them
//! has second, third and fourth (`<think>` is not `<tool_call>`, nor `</think>`
//! `</tool_call>`). Each byte's class comes from a lookup of each of its nibbles (as in
//! Hyperscan's "shufti"), with the wanted markers spread over four classes per first
//! byte: it may let through bytes no wanted marker has, never the reverse. A found marker
//! leaves the sieve, which is rebuilt: in a flood of `<tool_call>` no lane passes once
//! the first is found, however many `<` there are.

// Since Rust 1.87 the intrinsics that take no pointer are safe to call inside an AVX2
// function; the crate's MSRV (1.85) still needs these `unsafe` blocks.
#![allow(unused_unsafe)]

use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm256_and_si256, _mm256_broadcastsi128_si256,
    _mm256_cmpeq_epi8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_testz_si256,
};

use super::avx2::load;
use super::markers::{COUNT, marker, side};
use super::present::Tally;

/// Starts per vector.
const LANES: usize = 32;
/// Bytes read past a start: a marker's fourth byte.
const REACH: usize = 3;
/// Bytes one vector of starts reads.
const WINDOW: usize = LANES + REACH;
/// Starts per block.
const BLOCK: usize = 4 * LANES;

/// The markers among `wanted`, markers that begin with `<` or `[`, that `text` holds.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn present(text: &[u8], wanted: u64) -> u64 {
    // SAFETY (every `unsafe` below): AVX2 is enabled for this function.
    let mut sieve = unsafe { Sieve::new(wanted) };
    let mut tally = Tally::new(wanted);
    let mut start = 0;
    while let Some(block) = text.get(start..start + BLOCK + REACH) {
        let block: &[u8; BLOCK + REACH] = block.try_into().unwrap();
        let window = |k: usize| -> &[u8; WINDOW] {
            block[k * LANES..k * LANES + WINDOW].try_into().unwrap()
        };
        let tags = [0, 1, 2, 3].map(|k| unsafe { tag_bytes(window(k)) });
        let any = unsafe {
            _mm256_or_si256(
                _mm256_or_si256(tags[0], tags[1]),
                _mm256_or_si256(tags[2], tags[3]),
            )
        };
        if unsafe { _mm256_testz_si256(any, any) } == 0 {
            for k in 0..4 {
                let mut lanes = unsafe { sieve.lanes(window(k)) };
                let before = tally.wanted();
                while lanes != 0 {
                    if tally.check(text, start + k * LANES + lanes.trailing_zeros() as usize) {
                        return tally.held();
                    }
                    lanes &= lanes - 1;
                }
                if tally.wanted() != before {
                    sieve = unsafe { Sieve::new(tally.wanted()) };
                }
            }
        }
        start += BLOCK;
    }
    for i in start..text.len() {
        if tally.check(text, i) {
            break;
        }
    }
    tally.held()
}

/// What lets a lane through, for one set of wanted markers.
struct Sieve {
    /// For a marker's second byte, its third and its fourth, by low nibble and by high nibble: the
    /// classes of the wanted markers that have it (bits 0 to 3 for markers that begin
    /// with `<`, 4 to 7 for `[`, a marker's class its number modulo 4).
    tables: [__m256i; 6],
}

impl Sieve {
    /// The sieve of the markers in `wanted`.
    #[target_feature(enable = "avx2")]
    unsafe fn new(wanted: u64) -> Sieve {
        let mut tables = [[0u8; 16]; 6];
        for k in (0..COUNT).filter(|k| wanted & 1 << k != 0) {
            let marker = marker(k);
            let Some(side) = side(marker[0]) else {
                continue;
            };
            let class = 1 << (side * 4 + k % 4);
            for (byte, tables) in marker[1..4].iter().zip(tables.chunks_mut(2)) {
                for byte in [byte.to_ascii_lowercase(), byte.to_ascii_uppercase()] {
                    tables[0][usize::from(byte & 15)] |= class;
                    tables[1][usize::from(byte >> 4)] |= class;
                }
            }
        }
        // SAFETY: AVX2 is enabled for this function.
        unsafe {
            Sieve {
                tables: tables.map(|table| broadcast(&table)),
            }
        }
    }

    /// The lanes of the 32 starts at the beginning of `window` that pass, as bits.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn lanes(&self, window: &[u8; WINDOW]) -> u32 {
        // SAFETY: AVX2 is enabled for this function.
        unsafe {
            let first = load(window, 0);
            let sides = _mm256_or_si256(
                _mm256_and_si256(is(first, b'<'), _mm256_set1_epi8(0x0F)),
                _mm256_and_si256(is(first, b'['), _mm256_set1_epi8(0xF0_u8 as i8)),
            );
            let classes = _mm256_and_si256(
                _mm256_and_si256(class(&self.tables[..2], load(window, 1)), sides),
                _mm256_and_si256(
                    class(&self.tables[2..4], load(window, 2)),
                    class(&self.tables[4..], load(window, 3)),
                ),
            );
            !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(classes, _mm256_setzero_si256())) as u32)
        }
    }
}

/// The lanes of the 32 starts at the beginning of `window` whose byte is `<` or `[`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tag_bytes(window: &[u8; WINDOW]) -> __m256i {
    // SAFETY: AVX2 is enabled for this function.
    unsafe {
        let first = load(window, 0);
        _mm256_or_si256(is(first, b'<'), is(first, b'['))
    }
}

/// The classes of `bytes` by `tables` (low nibble, high nibble).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn class(tables: &[__m256i], bytes: __m256i) -> __m256i {
    // SAFETY: AVX2 is enabled for this function.
    unsafe {
        let nibble = _mm256_set1_epi8(15);
        let low = _mm256_shuffle_epi8(tables[0], _mm256_and_si256(bytes, nibble));
        let high = _mm256_srli_epi16(bytes, 4);
        _mm256_and_si256(
            low,
            _mm256_shuffle_epi8(tables[1], _mm256_and_si256(high, nibble)),
        )
    }
}

/// The lanes of `bytes` that are `byte`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn is(bytes: __m256i, byte: u8) -> __m256i {
    // SAFETY: AVX2 is enabled for this function.
    unsafe { _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(byte as i8)) }
}

/// A 16-byte table in both halves of a vector, as `pshufb` reads it.
#[target_feature(enable = "avx2")]
unsafe fn broadcast(table: &[u8; 16]) -> __m256i {
    // SAFETY: `table` is 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast::<__m128i>())) }
}
