//! A match's groups found in one walk over it, where the `regex` crate would run its
//! bounded backtracker: the cost of every tag of an `xml-inline` template was that search.
//!
//! Where a match starts and ends is found first (by `find`, or by the crate's DFAs); the
//! walk then follows the pattern piece by piece taking each piece's first choice, the
//! order the backtracker tries them in. A walk that reaches the match's end without ever
//! needing a choice it skipped is the path the backtracker would have returned, so its
//! groups are the crate's. A lazy run
//! (`.*?`, `[^<]*?`) has no useful first choice; it ends at the smallest position from
//! which the rest of the pattern matches up to the match's end, found by one reverse DFA
//! scan of the rest. Wherever a walk would have to go back (a skipped choice was needed,
//! a reverse scan met a byte its DFA gives up on), it says so and the caller asks the
//! crate. Patterns the walk cannot follow at all (a group inside a repetition, a repeated
//! sequence) are never walked.

use std::ops::Range;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::Arc;

use regex::bytes::Regex;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::look::{self, LookMatcher};
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};

use super::find::Starts;

/// The cache of each lazy DFA, per thread scanning with it.
const CACHE_BYTES: usize = 1 << 20;

/// The most lazy runs a walked pattern holds: each builds a DFA of the pattern after it,
/// so a pattern of many (no template's has more than three) would cost its square to
/// load, and is left to the crate.
const MOST_LAZY_RUNS: usize = 8;

/// A pattern compiled for walking.
#[derive(Clone, Debug)]
pub struct Walk {
    pub(super) pieces: Vec<Piece>,
    /// Where a match may start, for a pattern whose matches start with one of a few
    /// literals: the match is then found from there (`find`).
    pub(super) starts: Option<Starts>,
}

/// One step of a walk.
#[derive(Clone, Debug)]
pub(super) enum Piece {
    /// These bytes.
    Literal(Box<[u8]>),
    /// One character (or byte) of a class.
    One(Set),
    /// A zero-width assertion.
    Look(look::Look),
    /// A greedy run of a class: as many as there are, up to `max`, at least `min`.
    Run {
        class: Set,
        min: u32,
        max: Option<u32>,
    },
    /// A lazy, unbounded run of a class, ending where `rest` (the pattern after it,
    /// reversed) first matches up to the end of the match.
    Lazy {
        class: Set,
        min: u32,
        rest: Arc<Scan>,
    },
    /// Alternatives in the order they are tried; no group inside.
    Either(Vec<Vec<Piece>>),
    /// Group `n` opens or closes here.
    Open(usize),
    Close(usize),
}

/// A class, with its ASCII members in a table: nearly every character a tag pattern
/// reads is ASCII.
#[derive(Clone, Debug)]
pub(super) struct Set {
    ascii: u128,
    class: Class,
}

impl Set {
    fn new(class: Class) -> Set {
        let has = |b: u8| match &class {
            Class::Bytes(bytes) => bytes
                .ranges()
                .iter()
                .any(|r| r.start() <= b && b <= r.end()),
            Class::Unicode(chars) => {
                let c = char::from(b);
                chars
                    .ranges()
                    .iter()
                    .any(|r| r.start() <= c && c <= r.end())
            }
        };
        let ascii = (0..128u8)
            .filter(|b| has(*b))
            .fold(0, |set, b| set | 1 << b);
        Set { ascii, class }
    }

    /// Whether it is every character, `(?s:.)`.
    fn is_any(&self) -> bool {
        let Class::Unicode(chars) = &self.class else {
            return false;
        };
        matches!(chars.ranges(), [r] if r.start() == '\0' && r.end() == char::MAX)
    }
}

/// A lazy DFA (built as it scans, with a cache for each thread that scans with it: a
/// dense DFA of a Unicode class costs milliseconds to build, for every template a process
/// loads): the pattern after a lazy run, reversed, or a whole pattern, forward.
#[derive(Debug)]
pub(super) struct Scan {
    pub(super) dfa: DFA,
    pub(super) caches: Pool<Cache, CacheFn>,
}

/// How a thread's cache is made.
pub(super) type CacheFn = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Why a walk did not end at the match's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// No path from here matches: the alternatives before it may.
    Failed,
    /// A path from here may match through a choice the walk skipped, or a reverse scan
    /// gave up: only the crate knows.
    Unknown,
}

impl Walk {
    /// `source` (as the crate compiled it) ready for walking, or `None` where a walk
    /// cannot follow it.
    pub fn compile(source: &str) -> Option<Walk> {
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(source)
            .ok()?;
        if lazy_runs(&hir) > MOST_LAZY_RUNS {
            return None;
        }
        let mut flat = Vec::new();
        flatten(&hir, &mut flat)?;
        let pieces = sequence(&flat, &[], true)?;
        let starts = Starts::new(&hir);
        Some(Walk { pieces, starts })
    }

    /// The groups' spans (`slots[2n]`, `slots[2n + 1]` for group `n`, group 0 the whole
    /// match) of the crate's match at `start..end` of `text`; `false` where only the crate
    /// can say.
    pub fn groups(
        &self,
        text: &[u8],
        start: usize,
        end: usize,
        slots: &mut [Option<usize>],
    ) -> bool {
        slots.fill(None);
        let mut walker = Walker::new(text, end);
        match walker.walk(&self.pieces, start, slots) {
            Ok(at) if at == end => {
                whole(slots, start, end);
                true
            }
            _ => false,
        }
    }
}

/// Group 0, the whole match, in `slots`.
pub(super) fn whole(slots: &mut [Option<usize>], start: usize, end: usize) {
    if let [first, second, ..] = slots {
        *first = Some(start);
        *second = Some(end);
    }
}

/// How many lazy repetitions `hir` holds.
pub(super) fn lazy_runs(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Repetition(rep) => usize::from(!rep.greedy) + lazy_runs(&rep.sub),
        HirKind::Capture(group) => lazy_runs(&group.sub),
        HirKind::Concat(items) | HirKind::Alternation(items) => items.iter().map(lazy_runs).sum(),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => 0,
    }
}

/// A step of the flattened pattern: a group's bounds or a piece of HIR inside no group.
enum Flat<'h> {
    Hir(&'h Hir),
    Open(usize),
    Close(usize),
}

/// `hir` as a sequence of steps, its concatenations and groups opened up; `None` for a
/// group the sequence cannot hold.
fn flatten<'h>(hir: &'h Hir, out: &mut Vec<Flat<'h>>) -> Option<()> {
    match hir.kind() {
        HirKind::Concat(items) => items.iter().try_for_each(|item| flatten(item, out)),
        HirKind::Capture(group) => {
            let index = usize::try_from(group.index).ok()?;
            out.push(Flat::Open(index));
            flatten(&group.sub, out)?;
            out.push(Flat::Close(index));
            Some(())
        }
        HirKind::Empty => Some(()),
        _ => {
            out.push(Flat::Hir(hir));
            Some(())
        }
    }
}

/// The pieces of `flat`, followed in the pattern by `after`; groups only where `groups`.
fn sequence(flat: &[Flat], after: &[&Hir], groups: bool) -> Option<Vec<Piece>> {
    let mut pieces = Vec::with_capacity(flat.len());
    for (i, step) in flat.iter().enumerate() {
        let hir = match step {
            Flat::Open(n) if groups => {
                pieces.push(Piece::Open(*n));
                continue;
            }
            Flat::Close(n) if groups => {
                pieces.push(Piece::Close(*n));
                continue;
            }
            Flat::Open(_) | Flat::Close(_) => return None,
            Flat::Hir(hir) => *hir,
        };
        pieces.push(piece(hir, &flat[i + 1..], after)?);
    }
    Some(pieces)
}

/// The pattern after a step: the HIR of `rest` (its groups' bounds dropped), then `after`.
fn following<'h>(rest: &[Flat<'h>], after: &[&'h Hir]) -> Vec<&'h Hir> {
    let own = rest.iter().filter_map(|s| match s {
        Flat::Hir(h) => Some(*h),
        _ => None,
    });
    own.chain(after.iter().copied()).collect()
}

/// The piece for `hir`, which `rest` then `after` follow to the end of the pattern; what
/// follows is gathered only for the pieces that need it (alternatives and lazy runs).
fn piece(hir: &Hir, rest: &[Flat], after: &[&Hir]) -> Option<Piece> {
    let following = || following(rest, after);
    Some(match hir.kind() {
        HirKind::Literal(bytes) => Piece::Literal(bytes.0.clone()),
        HirKind::Class(class) => Piece::One(Set::new(class.clone())),
        // The two crates give each assertion the same bit.
        HirKind::Look(look) => Piece::Look(look::Look::from_repr(look.as_repr())?),
        HirKind::Alternation(branches) => {
            let following = following();
            Piece::Either(
                branches
                    .iter()
                    .map(|b| branch(b, &following))
                    .collect::<Option<_>>()?,
            )
        }
        HirKind::Repetition(rep) => {
            let Some(class) = single(&rep.sub) else {
                // `(?:X)?` is an alternation of `X` and nothing, in the order its
                // greediness says; any other repetition of a sequence is not walked.
                if rep.min != 0 || rep.max != Some(1) {
                    return None;
                }
                let (once, none) = (branch(&rep.sub, &following())?, Vec::new());
                let order = if rep.greedy {
                    [once, none]
                } else {
                    [none, once]
                };
                return Some(Piece::Either(order.into()));
            };
            let class = Set::new(class);
            match (rep.greedy, rep.max) {
                (true, max) => Piece::Run {
                    class,
                    min: rep.min,
                    max,
                },
                (false, None) => Piece::Lazy {
                    class,
                    min: rep.min,
                    rest: Arc::new(reverse(&following())?),
                },
                (false, Some(_)) => return None,
            }
        }
        HirKind::Empty | HirKind::Concat(_) | HirKind::Capture(_) => return None,
    })
}

/// An alternative's pieces: a sequence with no group.
fn branch(hir: &Hir, following: &[&Hir]) -> Option<Vec<Piece>> {
    let mut flat = Vec::new();
    flatten(hir, &mut flat)?;
    sequence(&flat, following, false)
}

/// The class `hir` matches one character of, if it is one: a class, or a literal of one
/// character.
fn single(hir: &Hir) -> Option<Class> {
    match hir.kind() {
        HirKind::Class(class) => Some(class.clone()),
        HirKind::Literal(bytes) => {
            let c = std::str::from_utf8(&bytes.0).ok()?;
            let mut chars = c.chars();
            let one = chars.next()?;
            chars
                .next()
                .is_none()
                .then(|| Class::Unicode(ClassUnicode::new([ClassUnicodeRange::new(one, one)])))
        }
        _ => None,
    }
}

/// A reverse DFA reporting every start from which `following` matches to a given end.
fn reverse(following: &[&Hir]) -> Option<Scan> {
    let rest = Hir::concat(following.iter().map(|h| (*h).clone()).collect());
    Scan::new(&rest, true, MatchKind::All)
}

impl Scan {
    /// `hir` as a lazy DFA, reversed or not, reporting matches of `kind`.
    pub(super) fn new(hir: &Hir, reverse: bool, kind: MatchKind) -> Option<Scan> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .reverse(reverse)
                    .utf8(false)
                    .which_captures(thompson::WhichCaptures::None),
            )
            .build_from_hir(hir)
            .ok()?;
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .match_kind(kind)
                    .unicode_word_boundary(true)
                    .cache_capacity(CACHE_BYTES),
            )
            .build_from_nfa(nfa)
            .ok()?;
        let maker = dfa.clone();
        let caches = Pool::new(Box::new(move || maker.create_cache()) as CacheFn);
        Some(Scan { dfa, caches })
    }
}

/// One walk over a match ending at `end`.
pub(super) struct Walker<'t> {
    text: &'t [u8],
    end: usize,
    /// Whether a choice with untried alternatives was taken since the walk (or the
    /// alternative being tried) began: a failure after it is `Unknown`.
    chose: bool,
    /// How far into the text the walk has read, at least: what a failed walk cost.
    pub(super) far: usize,
}

impl<'t> Walker<'t> {
    /// A walk over `text` that reads nothing at or after `end`.
    pub(super) fn new(text: &'t [u8], end: usize) -> Walker<'t> {
        Walker {
            text,
            end,
            chose: false,
            far: 0,
        }
    }

    /// Walks `pieces` from `at`: where they end, or why not.
    pub(super) fn walk(
        &mut self,
        pieces: &[Piece],
        mut at: usize,
        slots: &mut [Option<usize>],
    ) -> Result<usize, Stop> {
        let mut i = 0;
        while let Some(piece) = pieces.get(i) {
            i += 1;
            // A piece reads at most one character (four bytes) at `at` beyond what a
            // literal or a run counts itself.
            self.far = self.far.max(at + 4);
            at = match (piece, pieces.get(i)) {
                (Piece::Run { class, min, max }, Some(Piece::Literal(bytes))) => {
                    i += 1;
                    self.run_then(class, *min, *max, bytes, at)
                }
                (Piece::Literal(bytes), _) => self.literal(bytes, at),
                (Piece::One(class), _) => self.one(class, at),
                (Piece::Look(look), _) => LookMatcher::new()
                    .matches(*look, self.text, at)
                    .then_some(at),
                (Piece::Run { class, min, max }, _) => self.run(class, *min, *max, at),
                (Piece::Lazy { class, min, rest }, _) => self.lazy(class, *min, rest, at)?,
                (Piece::Either(branches), _) => self.either(branches, at, slots)?,
                (Piece::Open(n), _) => set(slots, 2 * n, at),
                (Piece::Close(n), _) => set(slots, 2 * n + 1, at),
            }
            .ok_or(self.stop())?;
        }
        Ok(at)
    }

    /// How a walk that found no way on stops.
    fn stop(&self) -> Stop {
        if self.chose {
            Stop::Unknown
        } else {
            Stop::Failed
        }
    }

    fn literal(&mut self, bytes: &[u8], at: usize) -> Option<usize> {
        let next = at + bytes.len();
        self.far = self.far.max(next);
        (next <= self.end && &self.text[at..next] == bytes).then_some(next)
    }

    /// Past one character of `class` at `at`.
    fn one(&self, class: &Set, at: usize) -> Option<usize> {
        let rest = &self.text[at..self.end];
        let b = *rest.first()?;
        if b < 0x80 {
            return (class.ascii >> b & 1 == 1).then_some(at + 1);
        }
        match &class.class {
            Class::Bytes(bytes) => bytes
                .ranges()
                .iter()
                .any(|r| r.start() <= b && b <= r.end())
                .then_some(at + 1),
            Class::Unicode(chars) => {
                let (c, len) = decode(rest)?;
                let ranges = chars.ranges();
                let i = ranges.partition_point(|r| r.end() < c);
                ranges
                    .get(i)
                    .is_some_and(|r| r.start() <= c)
                    .then_some(at + len)
            }
        }
    }

    /// The end of the longest run of `class` at `at`, no longer than `max`, and how many
    /// characters it holds.
    fn longest(&mut self, class: &Set, max: Option<u32>, mut at: usize) -> (usize, u32) {
        let text = &self.text[..self.end];
        let mut count = 0;
        loop {
            // Nearly every character a run reads is ASCII: a stretch of it is read from its
            // class's table, with no call per character.
            let room = max.map_or(usize::MAX, |max| (max - count) as usize);
            let ascii = (text.get(at..).unwrap_or_default().iter())
                .take(room)
                .take_while(|&&b| b < 0x80 && class.ascii >> b & 1 == 1)
                .count();
            at += ascii;
            count += ascii as u32;
            let next = match text.get(at) {
                Some(&b) if b >= 0x80 && max.is_none_or(|max| count < max) => self.one(class, at),
                _ => None,
            };
            let Some(next) = next else {
                break;
            };
            at = next;
            count += 1;
        }
        // The character that ended the run, at most four bytes, was read too.
        self.far = self.far.max(at + 4);
        (at, count)
    }

    /// Past the longest run of `class` at `at`, no longer than `max`.
    fn run(&mut self, class: &Set, min: u32, max: Option<u32>, at: usize) -> Option<usize> {
        let (end, count) = self.longest(class, max, at);
        self.chose |= count > min;
        (count >= min).then_some(end)
    }

    /// Past `bytes` after the longest run of `class` at `at` that they follow: the run's
    /// first choice on which the literal does not fail at once, found by stepping back
    /// over the run's characters (which are whole UTF-8) from its end.
    fn run_then(
        &mut self,
        class: &Set,
        min: u32,
        max: Option<u32>,
        bytes: &[u8],
        at: usize,
    ) -> Option<usize> {
        let start = at;
        let (mut end, mut count) = self.longest(class, max, at);
        while count >= min {
            if let Some(next) = self.literal(bytes, end) {
                self.chose |= count > min;
                return Some(next);
            }
            if end == start {
                break;
            }
            end -= 1;
            while end > start
                && self.text[end] & 0xC0 == 0x80
                && matches!(class.class, Class::Unicode(_))
            {
                end -= 1;
            }
            count -= 1;
        }
        None
    }

    /// Past the shortest run of `class` at `at` from whose end `rest` matches up to the
    /// match's end.
    fn lazy(
        &mut self,
        class: &Set,
        min: u32,
        rest: &Scan,
        at: usize,
    ) -> Result<Option<usize>, Stop> {
        let (at, count) = self.longest(class, Some(min), at);
        if count < min {
            return Ok(None);
        }
        let last = self.run_end(class, at);
        let found = earliest_start(rest, self.text, at, last, self.end)?;
        self.chose |= found.is_some();
        Ok(found)
    }

    /// The end of the longest run of `class` at `at`: for any character, the end of the
    /// valid UTF-8 there, found without reading one character at a time.
    fn run_end(&mut self, class: &Set, at: usize) -> usize {
        if class.is_any() {
            let rest = &self.text[at..self.end];
            return at + std::str::from_utf8(rest).map_or_else(|e| e.valid_up_to(), str::len);
        }
        self.longest(class, None, at).0
    }

    /// Past the first of `branches` that walks from `at`.
    fn either(
        &mut self,
        branches: &[Vec<Piece>],
        at: usize,
        slots: &mut [Option<usize>],
    ) -> Result<Option<usize>, Stop> {
        let outer = self.chose;
        for (i, pieces) in branches.iter().enumerate() {
            self.chose = false;
            match self.walk(pieces, at, slots) {
                Ok(next) => {
                    self.chose = outer || self.chose || i + 1 < branches.len();
                    return Ok(Some(next));
                }
                Err(Stop::Failed) => {}
                Err(Stop::Unknown) => return Err(Stop::Unknown),
            }
        }
        self.chose = outer;
        Ok(None)
    }
}

/// Records `at` in slot `i`.
fn set(slots: &mut [Option<usize>], i: usize, at: usize) -> Option<usize> {
    if let Some(slot) = slots.get_mut(i) {
        *slot = Some(at);
    }
    Some(at)
}

/// The character at the start of `bytes` and its length, as the crate reads UTF-8: none
/// for an invalid sequence.
fn decode(bytes: &[u8]) -> Option<(char, usize)> {
    let lead = *bytes.first()?;
    let len = match lead {
        0x00..=0x7F => return Some((char::from(lead), 1)),
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let c = std::str::from_utf8(bytes.get(..len)?)
        .ok()?
        .chars()
        .next()?;
    Some((c, len))
}

/// The smallest `p` in `from..=last` from which `rest` matches `text[p..end]`; `Unknown`
/// where its DFA gives up on a byte. The reverse scan reports the smallest start of all
/// (its matches are `All`): past `last`, none is in range.
fn earliest_start(
    rest: &Scan,
    text: &[u8],
    from: usize,
    last: usize,
    end: usize,
) -> Result<Option<usize>, Stop> {
    let mut cache = rest.caches.get();
    let input = Input::new(text).range(from..end).anchored(Anchored::Yes);
    match rest.dfa.try_search_rev(&mut cache, &input) {
        Ok(found) => Ok(found.map(|m| m.offset()).filter(|&p| p <= last)),
        Err(_) => Err(Stop::Unknown),
    }
}

/// Fills `slots` (two for each group) with the groups of `regex`'s match at `start`, as
/// the crate finds them.
pub fn crate_groups(regex: &Regex, text: &[u8], start: usize, slots: &mut [Option<usize>]) {
    let mut locations = regex.capture_locations();
    regex.captures_read_at(&mut locations, text, start);
    for (i, pair) in slots.chunks_mut(2).enumerate() {
        let span = locations.get(i);
        pair[0] = span.map(|s| s.0);
        pair[1] = span.map(|s| s.1);
    }
}

/// The span of group `n` in `slots`, if the match took part in it.
pub fn span(slots: &[Option<usize>], n: usize) -> Option<Range<usize>> {
    match slots.get(2 * n..2 * n + 2)? {
        [Some(start), Some(end)] => Some(*start..*end),
        _ => None,
    }
}

/// Checks the walk of `regex`'s pattern against the crate's own groups at every match in
/// `text`, and each match it finds from where it may start (`find`) against the crate's
/// search from the same place: how many matches were walked, or the first that differs.
/// The `groups` fuzz target's check, and the tests'.
pub fn check(regex: &Regex, walk: Option<&Walk>, text: &[u8]) -> Result<usize, String> {
    let mut slots = vec![None; 2 * regex.captures_len()];
    let mut crates = slots.clone();
    let mut walked = 0;
    let mut froms = vec![0];
    for found in regex.find_iter(text) {
        froms.extend([found.start() + 1, found.end()]);
        if !walk.is_some_and(|w| w.groups(text, found.start(), found.end(), &mut slots)) {
            continue;
        }
        crate_groups(regex, text, found.start(), &mut crates);
        if slots != crates {
            return Err(format!(
                "{regex:?} at {:?}: walked {slots:?}, the crate's {crates:?}",
                found.range()
            ));
        }
        walked += 1;
    }
    let Some(walk) = walk else {
        return Ok(walked);
    };
    for from in froms.into_iter().filter(|&from| from <= text.len()) {
        let mut budget = text.len();
        let Some(found) = walk.find(regex, text, from, &mut slots, &mut budget) else {
            continue;
        };
        let by_crate = regex.find_at(text, from).map(|m| m.range());
        if let Some(m) = &by_crate {
            crate_groups(regex, text, m.start, &mut crates);
        }
        if found != by_crate || (found.is_some() && slots != crates) {
            return Err(format!(
                "{regex:?} from {from}: found {found:?} {slots:?}, the crate {by_crate:?} {crates:?}"
            ));
        }
    }
    Ok(walked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::bytes::Regex;

    use super::super::shipped;

    /// Patterns with groups the walk must follow or give up on correctly beside the
    /// shipped ones: choices a later piece sends back to, lazy runs of a class, words.
    const TRICKY: &[&str] = &[
        r"a\s*(?P<v>.*?)\s+b",
        r#"x(?:[^"]*\.)?(?P<n>[^".]+)""#,
        r"(?P<x>a|ab)(?P<y>c|bcd)",
        r"(?P<v>[a-c]{1,3})(?P<w>.?)c",
        r"<p>(?P<v>.*?)(?:</p>|<p>)",
        r"\b(?P<w>\w+)\b",
        r"<(?P<a>[^<]*?)\bkey=(?P<b>[^<>]*?)>",
        r"(?P<k>.+?)=(?P<v>.*?)(?:;|\z)",
        r"(?:<a>)??(?P<v>[^<]+)",
        r"(?P<v>(?-u:[\x80-\xff])+)(?P<w>.)",
        r"</?(?P<t>[a-z_:]+)>",
        r"<(?P<t>[a-z]+)[^<]*?>",
    ];

    /// A pattern as the crate compiles it, and its walk.
    struct Compiled {
        source: String,
        regex: Regex,
        walk: Option<Walk>,
    }

    /// The tricky patterns, then every pattern with groups in the shipped templates.
    fn patterns() -> &'static [Compiled] {
        static ALL: std::sync::OnceLock<Vec<Compiled>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| {
            let tricky = TRICKY.iter().map(|s| format!("(?s){s}"));
            tricky
                .chain(shipped::patterns())
                .map(|source| Compiled {
                    regex: Regex::new(&source).unwrap(),
                    walk: Walk::compile(&source),
                    source,
                })
                .filter(|c| c.regex.captures_len() > 1)
                .collect()
        })
    }

    /// How many of the matches of `pattern` in `text` were walked; panics where a walk's
    /// groups are not the crate's.
    fn walked(pattern: &Compiled, text: &[u8]) -> usize {
        let checked = check(&pattern.regex, pattern.walk.as_ref(), text);
        checked.unwrap_or_else(|e| panic!("{e} on {:?}", String::from_utf8_lossy(text)))
    }

    /// Texts for the walks to read: the shipped examples, several at once, edited.
    fn texts() -> impl Strategy<Value = Vec<u8>> {
        const BITS: &[&[u8]] = &[
            b" ",
            b"\n",
            b"\t",
            "\u{a0}".as_bytes(),
            "\u{2003}".as_bytes(),
            b"\"",
            b"'",
            b">",
            b"<",
            b"/",
            b".",
            b"=",
            b"a",
            b"b",
            b"c",
            b";",
            "\u{e9}".as_bytes(),
            b"]]>",
            b"<![CDATA[",
            b"\xed\xa0\x80",
            b"\xff",
            b"key=",
            b"<p>",
            b"</p>",
        ];
        let examples: Vec<&'static str> = shipped::NAMES
            .iter()
            .map(|n| shipped::example(n).unwrap())
            .collect();
        let base = (prop::sample::select(examples), 1..4usize)
            .prop_map(|(example, times)| example.repeat(times).into_bytes());
        let edit = (
            any::<prop::sample::Index>(),
            0..BITS.len() + 2,
            any::<prop::sample::Index>(),
        );
        (base, prop::collection::vec(edit, 0..8)).prop_map(|(mut text, edits)| {
            for (at, bit, from) in edits {
                let at = at.index(text.len() + 1);
                let inserted: Vec<u8> = match BITS.get(bit) {
                    Some(bit) => bit.to_vec(),
                    // A piece of the text itself, or the loss of one.
                    None if bit == BITS.len() => text[from.index(text.len() + 1)..][..0].to_vec(),
                    None => {
                        let end = at + from.index(text.len() - at + 1).min(16);
                        text.drain(at..end);
                        continue;
                    }
                };
                text.splice(at..at, inserted);
            }
            text
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        #[test]
        fn a_walk_finds_the_crates_groups_or_gives_up(text in texts()) {
            for pattern in patterns() {
                walked(pattern, &text);
            }
        }
    }

    #[test]
    fn every_shipped_tag_is_walked_in_its_example() {
        for pattern in patterns().iter().skip(TRICKY.len()) {
            let examples = shipped::NAMES.iter().map(|n| shipped::example(n).unwrap());
            let matches: usize = examples
                .clone()
                .map(|e| pattern.regex.find_iter(e.as_bytes()).count())
                .sum();
            let walks: usize = examples.map(|e| walked(pattern, e.as_bytes())).sum();
            assert_eq!(walks, matches, "{:?}", pattern.source);
        }
    }

    #[test]
    fn a_choice_a_later_piece_needs_is_left_to_the_crate() {
        let source = r"(?s)a\s*(?P<v>.*?)\s+b";
        let walk = Walk::compile(source).unwrap();
        let mut slots = vec![None; 4];
        assert!(!walk.groups(b"a  b", 0, 4, &mut slots));
        assert!(walk.groups(b"a  xy b", 0, 7, &mut slots));
        assert_eq!(slots, [Some(0), Some(7), Some(3), Some(5)]);
    }

    #[test]
    fn a_pattern_of_many_lazy_runs_is_left_to_the_crate() {
        let many = "(?P<a>x)".to_owned() + &"y*?".repeat(MOST_LAZY_RUNS + 1);
        assert!(Walk::compile(&many).is_none());
        let few = "(?P<a>x)".to_owned() + &"y*?".repeat(MOST_LAZY_RUNS);
        assert!(Walk::compile(&few).is_some());
    }

    #[test]
    fn a_group_inside_a_repetition_is_never_walked() {
        assert!(Walk::compile(r"(?:(?P<a>x)y)*").is_none());
        assert!(Walk::compile(r"(?:x(?P<a>y))+").is_none());
        assert!(Walk::compile(r"(?:xy)*(?P<a>z)").is_none());
    }
}
