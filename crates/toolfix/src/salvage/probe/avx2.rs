//! The candidate search in 32-byte AVX2 vectors.
//!
//! A vector covers the 32 starts `p..p + 32`. Three unaligned loads give the bytes at `p`,
//! `p + 1` and `p + 5`, and a lane is a candidate when its byte at `p` is `<` or `[`, or
//! its bytes at `p + 1` and `p + 5` are `c` and `n` after setting bit 0x20 (which folds
//! exactly `C`/`c` and `N`/`n` together): eight vector operations per 32 bytes. The hot
//! loop (`next_block`) tests four vectors, 128 starts, at once.
//!
//! In a block that has candidates, the lanes are first narrowed to those whose start byte
//! is a tag byte or an `a` (`narrow`), which drops the `-ction` words before any lane is
//! checked one by one (each costs a mispredicted branch there). Narrowing in the hot loop
//! instead would cost three more operations per vector on every block.
//!
//! Every load reads a fixed-size window (`&[u8; N]`) taken once per block, so bounds are
//! checked once per block, and each load is in bounds by its constant offset.

// Since Rust 1.87 the intrinsics that take no pointer are safe to call inside an AVX2
// function; the crate's MSRV (1.85) still needs these `unsafe` blocks.
#![allow(unused_unsafe)]

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_shuffle_epi8, _mm256_testz_si256,
};

use super::{SHORTEST, portable};

/// Bytes per vector, and starts tested per vector.
const LANES: usize = 32;
/// Bytes read past a start: the `n` of `action`.
const REACH: usize = 5;
/// Bytes one vector of starts reads.
const WINDOW: usize = LANES + REACH;
/// Starts per iteration of the hot loop.
const BLOCK: usize = 4 * LANES;

/// [`super::starts`], in vectors.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn starts(text: &[u8], visit: &mut impl FnMut(usize) -> bool) -> bool {
    if text.len() < WINDOW {
        return portable::starts(text, visit);
    }
    // SAFETY (every `unsafe` below): AVX2 is enabled for this function.
    let mut start = 0;
    loop {
        match unsafe { next_block(text, start) } {
            Ok((block, lanes)) if any_start(block, lanes, visit) => return true,
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
    // already visited (visiting one twice is harmless).
    if let Some(last) = text.len().checked_sub(BLOCK + REACH) {
        return match unsafe { next_block(text, last) } {
            Ok((block, lanes)) => any_start(block, lanes, visit),
            Err(_) => false,
        };
    }
    while let Some(window) = text.get(start..start + WINDOW) {
        if any_start(start, unsafe { lanes(window.try_into().unwrap()) }, visit) {
            return true;
        }
        start += LANES;
    }
    let last = text.len() - WINDOW;
    any_start(
        last,
        unsafe { lanes(text[last..].try_into().unwrap()) },
        visit,
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

/// Visits `start + i` for each bit `i` of `lanes` until `visit` returns `true`.
fn any_start(start: usize, mut lanes: u128, visit: &mut impl FnMut(usize) -> bool) -> bool {
    while lanes != 0 {
        if visit(start + lanes.trailing_zeros() as usize) {
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

/// The 32 bytes at `offset` of `window` (the probe's and the presence pass's windows).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn load<const N: usize>(window: &[u8; N], offset: usize) -> __m256i {
    let bytes: &[u8; LANES] = window[offset..offset + LANES].try_into().unwrap();
    // SAFETY: `bytes` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
}
