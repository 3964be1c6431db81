//! Which markers a text holds: the one pass that tells the reading which token dialects'
//! scanners and which reasoning markers it need search for at all.
//!
//! Each scanner searches the text for its own markers, and the reading searches it for
//! each reasoning marker: a dozen passes, each about a `memmem` scan, where a reply holds
//! the markers of one dialect or two. This pass finds, for every marker at once, whether
//! it occurs anywhere (in any ASCII case), and the reading skips the rest. Its cost is
//! about the probe's: the candidates are the `<` and `[` the probe's are, and once a
//! marker is found the pass stops looking at the places only it could begin at (`sieve`),
//! so a flood of one marker is one vector pass, not a check at each of its starts.

use super::markers::{ACTION_BIT, DIALECTS, EVERY, FUNCTOOLS_BIT, PROBE, find};
use super::markers_at;

/// The markers the pass does not look for, taken as held: `action` and `functools[`,
/// words (not tags) whose scanners' own searches cost little beside this pass.
pub(super) const WORDS: u64 = ACTION_BIT | FUNCTOOLS_BIT;

/// The markers a text holds, as a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Present(pub(super) u64);

impl Present {
    /// The markers `text` holds.
    pub fn of(text: &[u8]) -> Present {
        let tags = EVERY & !WORDS;
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return Present(unsafe { super::sieve::present(text, tags) } | WORDS);
        }
        Present(scalar(text, tags) | WORDS)
    }

    /// The dialects (bit `i` for the registry's `i`th) one of whose probe markers it
    /// holds: a token dialect not among them has no block in the text.
    pub fn dialects(self) -> u32 {
        let mut markers = self.0 & PROBE;
        let mut dialects = 0;
        while markers != 0 {
            dialects |= DIALECTS[markers.trailing_zeros() as usize];
            markers &= markers - 1;
        }
        dialects
    }

    /// Whether it may hold `marker`: it does, or `marker` is not one the pass looks for.
    pub fn may_hold(self, marker: &str) -> bool {
        find(marker.as_bytes()).is_none_or(|k| self.0 & 1 << k != 0)
    }
}

/// The markers among `wanted`, markers that begin with `<` or `[`, that `text` holds,
/// checked at each `<` and `[`.
pub(super) fn scalar(text: &[u8], wanted: u64) -> u64 {
    let mut tally = Tally::new(wanted);
    for i in memchr::memchr2_iter(b'<', b'[', text) {
        if tally.check(text, i) {
            break;
        }
    }
    tally.held()
}

/// How many candidates that find no marker still wanted the pass checks before it stops
/// and takes every marker it still looks for as held. The pass only spares the reading
/// searches, so stopping early is always safe; where markers are common (a reply in a
/// dozen dialects whose `<|tool_call_end|>` looks like `<|tool_call>` for eleven bytes)
/// the reading pays for its searches instead of the pass for a check at each.
const MISSES: usize = 256;

/// The markers a pass has found, and how many of its candidates found none.
pub(super) struct Tally {
    wanted: u64,
    found: u64,
    misses: usize,
}

impl Tally {
    /// A pass for the markers in `wanted`, nothing found.
    pub(super) fn new(wanted: u64) -> Tally {
        Tally {
            wanted,
            found: 0,
            misses: 0,
        }
    }

    /// The markers still looked for.
    pub(super) fn wanted(&self) -> u64 {
        self.wanted & !self.found
    }

    /// Checks the candidate at `i`; whether the pass is over: every marker found, or
    /// too many candidates found none.
    pub(super) fn check(&mut self, text: &[u8], i: usize) -> bool {
        match markers_at(text, i, self.wanted()) {
            0 => self.misses += 1,
            new => self.found |= new,
        }
        self.found == self.wanted || self.misses > MISSES
    }

    /// The markers the text holds as far as the pass tells: those found, and every one
    /// still looked for when it stopped early.
    pub(super) fn held(&self) -> u64 {
        match self.misses > MISSES {
            true => self.wanted,
            false => self.found,
        }
    }
}
