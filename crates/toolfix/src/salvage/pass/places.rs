//! Where the reading stops next.
//!
//! The frontier (`stream::frontier`) finds every byte at which something could begin:
//! each `<`, `[`, fence mark and word marker. In a flood of markers that is every few
//! bytes, yet most of those places begin nothing: the only places the reading must stop
//! at are a fence mark's run of three or more, a reasoning marker, and the places the
//! dialects' scans list a candidate at (`Blocks::horizon`). Once every dialect has
//! scanned, the reading goes from one of those to the next; the memos here find each
//! once. Near the end of a text the stream may still extend, every frontier place is a
//! stop again: there a marker cut short could yet begin a block.

use memchr::memmem::Finder;

use super::super::probe::Present;
use super::super::reasoning::MARKERS as REASONING;
use super::super::stream::frontier::{self, Scan};
use super::super::text::{MarkerBytes, cp_at};
use super::LOOK_AHEAD;
use crate::py::unicode::is_space;

/// The stops of one text.
pub struct Places<'t> {
    text: &'t [u8],
    /// Where the text's last `LOOK_AHEAD` bytes other than whitespace begin (its end,
    /// when it is the whole reply): from there on every frontier place is a stop.
    tail: usize,
    fence: Remembered,
    /// The reasoning markers, each with its finder and its last stop, until the markers
    /// the text holds are known (`sifted`): then only those it holds.
    markers: Vec<(&'static str, Finder<'static>, Remembered)>,
    sifted: bool,
}

/// The first stop at or after `from`, remembered: it is the first for every place from
/// `from` up to it.
#[derive(Clone, Copy)]
struct Remembered {
    from: usize,
    at: Option<usize>,
}

impl Remembered {
    /// Nothing searched yet.
    const NOTHING: Remembered = Remembered {
        from: usize::MAX,
        at: None,
    };

    /// The remembered stop if it is the first at or after `pos`.
    fn serves(self, pos: usize) -> Option<Option<usize>> {
        let inside = pos >= self.from && self.at.is_none_or(|at| pos <= at);
        inside.then_some(self.at)
    }
}

impl<'t> Places<'t> {
    /// The stops of `text`, all of the reply when `at_end`; `held` says which of `<`
    /// and `[` it holds (every reasoning marker begins with one).
    pub fn new(text: &'t [u8], at_end: bool, held: MarkerBytes) -> Places<'t> {
        let markers = REASONING
            .iter()
            .filter(|marker| held.may_hold(marker.as_bytes()))
            .map(|&marker| (marker, Finder::new(marker.as_bytes()), Remembered::NOTHING))
            .collect();
        Places {
            text,
            tail: if at_end { text.len() } else { tail(text) },
            fence: Remembered::NOTHING,
            markers,
            sifted: false,
        }
    }

    /// The next place at or after `pos` the reading must stop at, given the first place
    /// after the last one the dialects were asked about where one lists a candidate
    /// (`horizon`; `None` while some dialect has not scanned) and the markers the text
    /// holds, once known.
    pub fn next(&mut self, pos: usize, horizon: Option<usize>, present: Option<Present>) -> Scan {
        let text = self.text;
        if let (Some(present), false) = (present, self.sifted) {
            self.markers
                .retain(|(marker, _, _)| present.may_hold(marker));
            self.sifted = true;
        }
        let Some(horizon) = horizon.filter(|&h| h >= pos && pos < self.tail) else {
            return frontier::scan_near(text, pos);
        };
        let target = horizon
            .min(self.fence_at_or_after(pos))
            .min(self.marker_at_or_after(pos));
        match target < self.tail {
            true => Scan::Marker(target),
            false => frontier::scan_near(text, self.tail),
        }
    }

    /// The first run of three or more backticks or tildes (counted from where it is
    /// met) at or after `pos`, or a run the end of the text may lengthen.
    fn fence_at_or_after(&mut self, pos: usize) -> usize {
        if let Some(at) = self.fence.serves(pos) {
            return at.unwrap_or(usize::MAX);
        }
        let text = self.text;
        let mut i = pos;
        let at = loop {
            let Some(found) = memchr::memchr2(b'`', b'~', &text[i..]) else {
                break None;
            };
            let start = i + found;
            let run = text[start..]
                .iter()
                .take_while(|&&b| b == text[start])
                .count();
            if run >= 3 || start + run == text.len() {
                break Some(start);
            }
            i = start + run;
        };
        self.fence = Remembered { from: pos, at };
        at.unwrap_or(usize::MAX)
    }

    /// The first reasoning marker (an opener, or `</think>`) at or after `pos`.
    fn marker_at_or_after(&mut self, pos: usize) -> usize {
        let text = self.text;
        let mut first = usize::MAX;
        for (_, finder, memo) in &mut self.markers {
            let at = match memo.serves(pos) {
                Some(at) => at,
                None => {
                    let at = finder.find(&text[pos..]).map(|i| pos + i);
                    *memo = Remembered { from: pos, at };
                    at
                }
            };
            first = first.min(at.unwrap_or(usize::MAX));
        }
        first
    }
}

/// Where the last `LOOK_AHEAD` bytes of `text` that are not `str.isspace` characters
/// begin (0 when it has fewer): a place from there on is not decided while the text may
/// go on.
fn tail(text: &[u8]) -> usize {
    let (mut seen, mut i) = (0, text.len());
    while i > 0 {
        let start = super::super::text::cp_start_before(text, i).unwrap_or(0);
        if let Some((cp, len)) = cp_at(text, start) {
            if !is_space(cp) {
                seen += len;
                if seen >= LOOK_AHEAD {
                    return start + 1;
                }
            }
        }
        i = start;
    }
    0
}
