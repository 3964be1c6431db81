//! The dialects' blocks: what begins at a place in the reply, by the registry's readers.
//!
//! Each dialect's scanner reads the text from a place on and lists every candidate it
//! finds there and after. What it lists after a later place is what a scan from that
//! place would list, as long as no candidate of its own runs across that place (its
//! readers look at the text from a marker on, and go on after a candidate's end), so one
//! scan serves every place the reading stops at until the reading lands inside one of
//! its candidates (a fence or reasoning began before that candidate and closed inside
//! it, or another dialect's block did). Only then does that dialect scan again, from the
//! new place. A token dialect none of whose probe markers occurs in the text is not
//! scanned at all: one pass finds which do (`probe::Present`).
//! `crates/toolfix-fuzzing/tests/one_pass.rs` and the `salvage_oracles` fuzz target hold
//! both to a scan of every dialect at every place (`Memo::Off`).

use std::ops::Range;

use super::super::dialect::{REGISTRY, Scanner, Spec, TOKEN_DIALECTS, holds, opens_at};
use super::super::fence::Masked;
use super::super::payload::Payloads;
use super::super::probe::Present;
use super::super::span::{Candidates, Found};
use super::super::text::{MarkerBytes, cp_at, cp_start_before};
use super::super::{Allowlist, SalvageError};
use super::Settled;
use crate::profile::Profile;
use crate::py::unicode::is_space;
use crate::salvage::dialect::Dialect;

/// Whether a dialect's scan serves later places (`On`), or every place is scanned afresh
/// (`Off`: the definition the memo is held to, quadratic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memo {
    /// One scan serves every place it can.
    On,
    /// A scan at every place of every dialect, whichever markers the text holds (but for
    /// a `<` or `[` a dialect needs).
    Off,
}

const _: () = assert!(REGISTRY.len() <= 32, "one bit of Blocks::spent per dialect");

/// What the dialects read in one reading of the text so far.
pub struct Blocks<'t> {
    text: &'t [u8],
    at_end: bool,
    tools: &'t Allowlist,
    profile: Profile,
    memo: Memo,
    /// The last scan of each dialect of the registry, by its index there.
    scans: Vec<Option<Scan>>,
    /// The dialects (bit `i` for the registry's `i`th) that read nothing at any later
    /// place: those without a scanner, and (under `Memo::On`) those whose scan has no
    /// candidate left, none running on past the last place asked about and no structure
    /// it left open. A flood of one dialect's calls asks the others nothing again.
    spent: u32,
    /// Which of `<` and `[` the text holds: a dialect whose markers need one the text
    /// lacks has nothing to find, and is not scanned (prose with the word `action` in it
    /// is read by ReAct's scanner alone).
    held: MarkerBytes,
    /// The markers the text holds, found (under `Memo::On`) before a second dialect is
    /// scanned: a token dialect none of whose probe markers it holds has no block in it,
    /// is among the `spent` and is not scanned (a flood of `<tool_call>` is not searched
    /// for Harmony's or DeepSeek's tokens).
    present: Option<Present>,
    /// The first place after the last one asked about where a scan lists a candidate or
    /// left a structure open: before it, no dialect reads a block, and every scan still
    /// serves (a place inside a candidate lies after that candidate's start). Most places
    /// a flood of markers stops at are answered by this one comparison.
    horizon: usize,
}

/// A candidate of a scan: its span in the reply, its dialect, and what it found.
type Candidate = (Range<usize>, Dialect, Option<Found>);

/// One dialect's scan of the text from a place on.
struct Scan {
    /// The place it was scanned for: it serves this place and later ones.
    at: usize,
    /// Where the scanned text began: the code point before `at`, which `\b` reads.
    from: usize,
    /// Its candidates, spans in the reply's offsets, by start (stable: candidates that
    /// start together keep the scanner's order), with what each found (a rejected one
    /// found nothing, and reserves its span).
    list: Vec<Candidate>,
    /// `reach[i]`: the furthest end of `list[..=i]`: a place is inside a candidate when
    /// the reach of those before it passes it.
    reach: Vec<usize>,
    /// How many candidates start before the last place asked about: places only grow, so
    /// finding the next costs the candidates passed, once each.
    passed: usize,
    /// Where the earliest structure that reached the end of the text begins.
    open: Option<usize>,
    /// How many of its candidates found a call and are not yet taken: room for them is
    /// made at the first take, so a flood of calls grows the reading's list once.
    calls: usize,
}

impl<'t> Blocks<'t> {
    /// The blocks of `text` (all of the reply when `at_end`, holding the marker bytes
    /// `held`), nothing scanned yet.
    pub fn new(
        text: &'t [u8],
        at_end: bool,
        tools: &'t Allowlist,
        profile: Profile,
        memo: Memo,
        held: MarkerBytes,
    ) -> Blocks<'t> {
        Blocks {
            text,
            at_end,
            tools,
            profile,
            memo,
            scans: (0..REGISTRY.len()).map(|_| None).collect(),
            spent: REGISTRY
                .iter()
                .enumerate()
                .filter(|(_, spec)| matches!(spec.scanner(), Scanner::None))
                .fold(0, |spent, (index, _)| spent | 1 << index),
            held,
            present: None,
            horizon: 0,
        }
    }

    /// Where the block of a dialect that begins at `at` ends, its calls pushed onto
    /// `found`: `Some(None)` when no dialect reads one there, `None` when the text does
    /// not decide it yet (a reader reached the end of the text where the block begins,
    /// or where it could go on). The dialects are asked in registry order; the first
    /// that reads a block wins.
    pub fn at(
        &mut self,
        at: usize,
        found: &mut Vec<Settled>,
    ) -> Result<Option<Option<usize>>, SalvageError> {
        if self.memo == Memo::On && at < self.horizon {
            return Ok(Some(None));
        }
        let block = self.read_at(at, found)?;
        self.horizon = self.horizon_after(at);
        Ok(block)
    }

    /// The first place after `at` where a dialect's scan lists a candidate or left a
    /// structure open; 0 while a dialect is not yet scanned (an earlier one read the
    /// block): it is asked at the next place. The dialects are looked at from the last,
    /// which an earlier one's blocks leave unscanned, so such a place costs no scan's
    /// look.
    fn horizon_after(&self, at: usize) -> usize {
        let mut horizon = usize::MAX;
        for (index, scan) in self.scans.iter().enumerate().rev() {
            if self.spent & 1 << index != 0 {
                continue;
            }
            match scan {
                Some(scan) => horizon = horizon.min(scan.next_after(at, self.at_end)),
                None => return 0,
            }
        }
        horizon
    }

    /// [`Blocks::at`], asking each dialect.
    fn read_at(
        &mut self,
        at: usize,
        found: &mut Vec<Settled>,
    ) -> Result<Option<Option<usize>>, SalvageError> {
        let (text, at_end, memo) = (self.text, self.at_end, self.memo);
        let from = cp_start_before(text, at).unwrap_or(0);
        for (index, spec) in REGISTRY.iter().enumerate() {
            if self.spent & 1 << index != 0 || self.absent(index) {
                continue;
            }
            let scan = self.scan_for(index, spec, at, from)?;
            let open_by = |end: usize| !at_end && scan.open.is_some_and(|open| open <= end);
            if open_by(at) {
                return Ok(None);
            }
            if let Some((end, members)) = scan.structure(text, at) {
                if open_by(end + separators(&text[end..])) {
                    return Ok(None);
                }
                scan.take_calls(members, found);
                return Ok(Some(Some(end)));
            }
            if memo == Memo::On && scan.spent(at, at_end) {
                self.spent |= 1 << index;
            }
        }
        Ok(Some(None))
    }

    /// The first place after the last one asked about where a dialect's scan lists a
    /// candidate or left a structure open: `None` while some dialect has not scanned, or
    /// when every place is scanned afresh (`Memo::Off`).
    pub fn horizon(&self) -> Option<usize> {
        (self.memo == Memo::On && self.horizon != 0).then_some(self.horizon)
    }

    /// The markers the text holds, once found.
    pub fn present(&self) -> Option<Present> {
        self.present
    }

    /// Whether the dialect at `index`, about to be scanned for the first time, is a token
    /// dialect with no marker in the text. The markers are found (under `Memo::On`) when
    /// a second dialect is first to be scanned: the pass costs about one scan, so a reply
    /// the first dialect reads whole (a run of its calls) never pays for it, nor a text
    /// without a `<` or `[` (prose), where `held` already spares every token dialect. A
    /// dialect without a marker in the text is spent from then on.
    fn absent(&mut self, index: usize) -> bool {
        let first_scan = self.scans[index].is_none();
        let scanned = || self.scans.iter().any(Option::is_some);
        let tags = self.held.angle || self.held.bracket;
        if self.memo == Memo::Off || self.present.is_some() || !first_scan || !tags || !scanned() {
            return false;
        }
        let present = Present::of(self.text);
        self.spent |= !present.dialects() & TOKEN_DIALECTS;
        self.present = Some(present);
        self.spent & 1 << index != 0
    }

    /// The scan of the dialect at `index` that serves `at`: the last one if it does,
    /// else a new one.
    fn scan_for(
        &mut self,
        index: usize,
        spec: &Spec,
        at: usize,
        from: usize,
    ) -> Result<&mut Scan, SalvageError> {
        let (memo, at_end) = (self.memo, self.at_end);
        let serves = self.scans[index]
            .as_mut()
            .is_some_and(|scan| memo == Memo::On && scan.serves(at, from, at_end));
        if !serves {
            let mut scan = self.scan(spec, at, from)?;
            scan.seek(at);
            self.scans[index] = Some(scan);
        }
        Ok(self.scans[index].as_mut().expect("scanned above"))
    }

    /// A scan of `spec`'s dialect over the text from `from` on, for the place `at`.
    fn scan(&self, spec: &Spec, at: usize, from: usize) -> Result<Scan, SalvageError> {
        let sub = &self.text[from..];
        let masked = Masked::with_ranges(sub, Vec::new());
        let payloads = Payloads::new(&masked, self.tools, self.profile);
        let mut candidates = Candidates::new();
        match spec.scanner() {
            _ if !holds(self.held, spec.needs()) => {}
            Scanner::None => {}
            Scanner::Embedded(scan) => scan(&payloads, &mut candidates)?,
            Scanner::Token(scan) => scan(&payloads, &mut candidates),
        }
        let calls = candidates.mark().1;
        let mut list: Vec<Candidate> = candidates
            .into_found()
            .map(|(c, found)| {
                let span = from + c.span.start..from + c.span.end;
                (span, c.dialect, found)
            })
            .collect();
        list.sort_by_key(|(span, _, _)| span.start);
        let reach = list
            .iter()
            .scan(0, |furthest, (span, _, _)| {
                *furthest = span.end.max(*furthest);
                Some(*furthest)
            })
            .collect();
        Ok(Scan {
            at,
            from,
            list,
            reach,
            passed: 0,
            open: payloads.open().map(|open| from + open),
            calls,
        })
    }
}

impl Scan {
    /// Whether this scan lists what a scan for `at` (of the text from `from`) would: it
    /// was made for an earlier place, none of its candidates runs across `at`, and (while
    /// the text may go on) no structure it left open begins before `from`, where a scan
    /// from there would not see it.
    fn serves(&mut self, at: usize, from: usize, at_end: bool) -> bool {
        if at < self.at || from < self.from {
            return false;
        }
        self.seek(at);
        let across = self.passed > 0 && self.reach[self.passed - 1] > at;
        let open_before = !at_end && self.open.is_some_and(|open| open < from);
        !across && !open_before
    }

    /// Whether this scan, which serves `at`, reads nothing at `at` or any later place: it
    /// lists no candidate from `at` on, none of its candidates runs past `at`, and it left
    /// no structure open (or the text is all here, when an open one decides nothing).
    /// It serves every later place then, and no block begins at one.
    fn spent(&self, at: usize, at_end: bool) -> bool {
        self.passed == self.list.len()
            && self.reach.last().is_none_or(|&reach| reach <= at)
            && (at_end || self.open.is_none())
    }

    /// Moves past the candidates that start before `at`, a place no earlier than the last.
    fn seek(&mut self, at: usize) {
        let list = &self.list[self.passed..];
        self.passed += list
            .iter()
            .take_while(|(span, _, _)| span.start < at)
            .count();
    }

    /// The first place after `at` (the last place asked about) where this scan lists a
    /// candidate, or (while the text may go on) left a structure open; the place right
    /// after `at` when one of its candidates runs past `at`: a later place inside it is
    /// one it no longer serves (the dialect may not have been asked at `at`, where an
    /// earlier one read the block).
    fn next_after(&self, at: usize, at_end: bool) -> usize {
        let list = &self.list[self.passed..];
        let up_to = self.passed
            + list
                .iter()
                .take_while(|(span, _, _)| span.start <= at)
                .count();
        if up_to > 0 && self.reach[up_to - 1] > at {
            return at + 1;
        }
        let start = self
            .list
            .get(up_to)
            .map_or(usize::MAX, |(span, _, _)| span.start);
        match self.open {
            Some(open) if !at_end && open > at => start.min(open),
            _ => start,
        }
    }

    /// The structure that begins at `at`: its first candidate and those that follow it
    /// directly (with only separators between, and no opener of their own). Its end, and
    /// where its candidates are in the list.
    fn structure(&self, text: &[u8], at: usize) -> Option<(usize, Range<usize>)> {
        let first = self.passed;
        if self.list.get(first)?.0.start != at {
            return None;
        }
        let mut end = at;
        let mut members = first..first;
        for (span, _, _) in &self.list[first..] {
            let continues = span.start == at
                || (span.start >= end
                    && only_separators(&text[end..span.start])
                    && !opens_at(text, span.start));
            if !continues {
                break;
            }
            end = end.max(span.end);
            members.end += 1;
        }
        Some((end, members))
    }

    /// The calls of a structure's candidates (`members`), moved out onto `found`: a
    /// structure is read once in a reading.
    fn take_calls(&mut self, members: Range<usize>, found: &mut Vec<Settled>) {
        found.reserve(self.calls);
        let before = found.len();
        found.extend(
            self.list[members]
                .iter_mut()
                .filter_map(|(span, dialect, found)| Some((span.clone(), *dialect, found.take()?))),
        );
        self.calls -= found.len() - before;
    }
}

/// Whether `gap`, between two calls of one structure, holds only what separates them.
fn only_separators(gap: &[u8]) -> bool {
    separators(gap) == gap.len()
}

/// How many bytes at the start of `text` separate two calls of one structure:
/// `str.isspace` characters, `;` and `,`.
pub fn separators(text: &[u8]) -> usize {
    let mut i = 0;
    while let Some((cp, len)) = cp_at(text, i) {
        if !(is_space(cp) || cp == u32::from(b';') || cp == u32::from(b',')) {
            break;
        }
        i += len;
    }
    i
}
