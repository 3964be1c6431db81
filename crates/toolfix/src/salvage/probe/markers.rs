//! The markers the probe and the presence pass look for, numbered, and the tables that
//! make a candidate cheap to check.
//!
//! The numbering: the real package's probe markers first, then those of the dialects only
//! `strict` and `portable` read (registry order, each once), then the markers reasoning
//! begins at. A set of markers is a `u64` with one bit per number.

use super::super::dialect::tokens::{phi4, react};
use super::super::dialect::{PROBE_NEW, PROBE_PRAISONAI, probed_by};
use super::super::reasoning::MARKERS as REASONING;
use super::super::text::same;

/// `action`, the only marker of the real package's that is a word: found through its
/// `c` and `n` (`avx2`), which the constant asserts below keep true.
pub(super) const ACTION: &[u8] = react::ACTION.as_bytes();
const _: () = assert!(ACTION.len() == 6 && ACTION[1] == b'c' && ACTION[5] == b'n');

/// Phi-4's `functools[`, found at its `[`: the word before it, and where it ends.
pub(super) const FUNCTOOLS: &[u8] = phi4::FUNCTOOLS.as_bytes();
/// The length of the word before `functools[`'s `[`.
pub(super) const FUNCTOOLS_WORD: usize = FUNCTOOLS.len() - 1;
const _: () = assert!(FUNCTOOLS[FUNCTOOLS_WORD] == b'[');

/// The length of the shortest marker: no marker starts in the last `SHORTEST - 1` bytes
/// (and the presence pass reads four bytes of each).
pub(super) const SHORTEST: usize = 6;

/// How many of the markers are the real package's.
const PRAISONAI_LEN: usize = PROBE_PRAISONAI.len();
/// How many are the probe's: those of every dialect.
const PROBED: usize = PRAISONAI_LEN + PROBE_NEW.len();
/// How many markers there are.
pub(super) const COUNT: usize = PROBED + REASONING.len();
const _: () = assert!(COUNT < 64, "one bit per marker");

/// The markers of the real package's dialects.
pub(super) const PRAISONAI: u64 = (1 << PRAISONAI_LEN) - 1;
/// The markers of every dialect: the probe's.
pub(super) const PROBE: u64 = (1 << PROBED) - 1;
/// Every marker.
pub(super) const EVERY: u64 = (1 << COUNT) - 1;
/// `action`'s bit.
pub(super) const ACTION_BIT: u64 = 1 << number(ACTION);
/// `functools[`'s bit.
pub(super) const FUNCTOOLS_BIT: u64 = 1 << number(FUNCTOOLS);

/// Marker number `k`.
pub(super) const fn marker(k: usize) -> &'static [u8] {
    match k {
        _ if k < PRAISONAI_LEN => PROBE_PRAISONAI[k].as_bytes(),
        _ if k < PROBED => PROBE_NEW[k - PRAISONAI_LEN].as_bytes(),
        _ => REASONING[k - PROBED].as_bytes(),
    }
}

/// The number of `marker`, when it is one of the markers.
pub(super) const fn find(marker: &[u8]) -> Option<usize> {
    let mut k = 0;
    while k < COUNT {
        if same(self::marker(k), marker) {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// The number of `marker`, one of the markers.
const fn number(marker: &[u8]) -> usize {
    match find(marker) {
        Some(k) => k,
        None => panic!("not one of the markers"),
    }
}

/// Which side of [`STARTS`] a marker's first byte is: `<` is 0, `[` is 1.
pub(super) const fn side(first: u8) -> Option<usize> {
    match first {
        b'<' => Some(0),
        b'[' => Some(1),
        _ => None,
    }
}

/// For a marker start at `<` (`STARTS[0]`) or `[` (`STARTS[1]`), and each byte after it,
/// the markers that begin with those two bytes in any ASCII case. A reply full of `<` or
/// `[` (markup, ASCII art, a flood) then costs a lookup at each and a comparison only
/// with the markers that can still match, not with every one.
pub(super) static STARTS: [[u64; 256]; 2] = {
    let mut table = [[0; 256]; 2];
    let mut k = 0;
    while k < COUNT {
        let marker = marker(k);
        assert!(marker.len() >= SHORTEST);
        if let Some(side) = side(marker[0]) {
            table[side][marker[1].to_ascii_lowercase() as usize] |= 1 << k;
            table[side][marker[1].to_ascii_uppercase() as usize] |= 1 << k;
        }
        k += 1;
    }
    table
};

/// For each probe marker, the dialects (bit `i` for the registry's `i`th) whose probe
/// holds it.
pub(super) static DIALECTS: [u32; PROBED] = {
    let mut table = [0; PROBED];
    let mut k = 0;
    while k < PROBED {
        let marker = match k < PRAISONAI_LEN {
            true => PROBE_PRAISONAI[k],
            false => PROBE_NEW[k - PRAISONAI_LEN],
        };
        table[k] = probed_by(marker);
        k += 1;
    }
    table
};
