//! A match found from where it may start, where the `regex` crate would scan for it
//! twice: forward with a DFA to find its end, then backward from there to find its start.
//!
//! Every match of a pattern whose matches start with one of a few literals starts where
//! one of them occurs (a prefilter finds the next such place, and never skips a match).
//! From there, a pattern with no lazy run is walked (`groups`): the walk takes each
//! piece's first choice, the order the backtracker tries them in, so one that reaches the
//! end of the pattern without needing a choice it skipped is the backtracker's match from
//! that place, and one that fails without having taken a choice shows that no match starts
//! there. A pattern with a lazy run has no useful first choice to walk without knowing
//! where the match ends: one forward scan of its DFA, anchored at that place, says whether
//! a match starts there and where it ends, and the walk then finds its groups.

use std::ops::Range;
use std::sync::Arc;

use regex::bytes::Regex;
use regex_automata::util::prefilter::Prefilter;
use regex_automata::{Anchored, Input, MatchKind, Span};
use regex_syntax::hir::Hir;

use super::groups::{Scan, Stop, Walk, Walker, crate_groups, lazy_runs, whole};

/// Where a pattern's matches may start, and, for a pattern with a lazy run, how far one
/// runs from there.
#[derive(Clone, Debug)]
pub struct Starts {
    prefilter: Prefilter,
    ends: Option<Arc<Scan>>,
}

impl Starts {
    /// The starts of `hir`'s matches, when they begin with one of a few literals.
    pub fn new(hir: &Hir) -> Option<Starts> {
        let prefilter = Prefilter::from_hir_prefix(MatchKind::LeftmostFirst, hir)?;
        let ends = match lazy_runs(hir) {
            0 => None,
            _ => Some(Arc::new(Scan::new(hir, false, MatchKind::LeftmostFirst)?)),
        };
        Some(Starts { prefilter, ends })
    }
}

/// Why a place a match may start was passed over.
enum Passed {
    /// No match starts there; finding that out read this many bytes.
    Read(usize),
    /// Only the crate can say.
    Unknown,
}

impl Walk {
    /// Whether matches are found from where they may start (`find`); such a pattern
    /// never matches the empty string (a prefilter is built only for literals that are
    /// not empty).
    pub fn finds(&self) -> bool {
        self.starts.is_some()
    }

    /// The first match of `regex` (this walk's pattern) at or after `from`, its groups in
    /// `slots` as `groups` fills them: `Some(None)` where there is none, `None` where only
    /// the crate can say (a pattern with no `starts`, a walk that needed a choice it
    /// skipped, a byte the DFA gives up on, or `budget` spent). Each place passed over
    /// takes the bytes read to pass it from `budget`, so that places where no match
    /// starts cost no more than the budget, however far each is read.
    pub fn find(
        &self,
        regex: &Regex,
        text: &[u8],
        from: usize,
        slots: &mut [Option<usize>],
        budget: &mut usize,
    ) -> Option<Option<Range<usize>>> {
        let starts = self.starts.as_ref()?;
        let mut at = from;
        loop {
            let span = Span::from(at..text.len());
            let found = (at <= text.len()).then(|| starts.prefilter.find(text, span));
            let Some(Some(start)) = found else {
                return Some(None);
            };
            let start = start.start;
            let found = match &starts.ends {
                None => self.walk_from(text, start, slots),
                Some(ends) => self.scan_from(ends, regex, text, start, slots),
            };
            match found {
                Ok(end) => return Some(Some(start..end)),
                Err(Passed::Read(read)) => *budget = budget.checked_sub(read)?,
                Err(Passed::Unknown) => return None,
            }
            at = start + 1;
        }
    }

    /// The end of the match that starts at `start`, walked with no end to aim at.
    fn walk_from(
        &self,
        text: &[u8],
        start: usize,
        slots: &mut [Option<usize>],
    ) -> Result<usize, Passed> {
        slots.fill(None);
        let mut walker = Walker::new(text, text.len());
        match walker.walk(&self.pieces, start, slots) {
            Ok(end) => {
                whole(slots, start, end);
                Ok(end)
            }
            Err(Stop::Failed) => Err(Passed::Read(walker.far.saturating_sub(start))),
            Err(Stop::Unknown) => Err(Passed::Unknown),
        }
    }

    /// The end of the match that starts at `start`, found by scanning `ends` from there;
    /// its groups walked, or the crate's where the walk cannot say.
    fn scan_from(
        &self,
        ends: &Scan,
        regex: &Regex,
        text: &[u8],
        start: usize,
        slots: &mut [Option<usize>],
    ) -> Result<usize, Passed> {
        let end = match match_end(ends, text, start) {
            Scanned::Ends(end) => end,
            Scanned::Dead(read) => return Err(Passed::Read(read)),
            Scanned::GaveUp => return Err(Passed::Unknown),
        };
        if !self.groups(text, start, end, slots) {
            crate_groups(regex, text, start, slots);
        }
        Ok(end)
    }
}

/// What one anchored forward scan found.
enum Scanned {
    /// A match runs from the start to here.
    Ends(usize),
    /// No match starts there: the DFA died, having read at most this many bytes.
    Dead(usize),
    /// The DFA gave up on a byte (a Unicode word boundary beside a non-ASCII one).
    GaveUp,
}

/// The end of the leftmost-first match of `scan` (a forward DFA of the whole pattern)
/// anchored at `start`, by one scan until the DFA dies.
fn match_end(scan: &Scan, text: &[u8], start: usize) -> Scanned {
    let mut cache = scan.caches.get();
    let input = Input::new(text).range(start..).anchored(Anchored::Yes);
    match scan.dfa.try_search_fwd(&mut cache, &input) {
        Ok(Some(end)) => Scanned::Ends(end.offset()),
        Ok(None) => Scanned::Dead(text.len() - start),
        Err(_) => Scanned::GaveUp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `source` (as the crate compiles it), found from `from` in `text` with `budget`:
    /// the match and its groups, beside the crate's.
    fn found(source: &str, text: &str, budget: usize) -> Option<Option<Range<usize>>> {
        let regex = Regex::new(source).unwrap();
        let walk = Walk::compile(source).unwrap();
        let mut slots = vec![None; 2 * regex.captures_len()];
        let mut budget = budget;
        let found = walk.find(&regex, text.as_bytes(), 0, &mut slots, &mut budget);
        if let Some(found) = &found {
            assert_eq!(*found, regex.find(text.as_bytes()).map(|m| m.range()));
        }
        found
    }

    /// A run before a literal it cannot hold: a walk that fails there has taken no
    /// choice, so no match starts where it began.
    const RUN: &str = r"<a>[a-z]*;(?P<v>x)";

    #[test]
    fn a_place_where_no_match_starts_is_passed_over() {
        assert_eq!(found(RUN, "<a>zz y <a>q;x", 100), Some(Some(8..14)));
    }

    #[test]
    fn places_passed_over_are_paid_for_from_the_budget() {
        let miss = format!("<a>{} ", "z".repeat(100));
        let text = format!("{miss}{miss}<a>q;x");
        assert_eq!(found(RUN, &text, 150), None);
        assert_eq!(found(RUN, &text, 300), Some(Some(208..214)));
    }

    #[test]
    fn a_walk_that_needs_a_choice_it_skipped_is_left_to_the_crate() {
        assert_eq!(found(r"(?P<x>a|ab)(?P<y>c|bcd)", "abc", 100), None);
        assert_eq!(
            found(r"(?P<x>a|ab)(?P<y>c|bcd)", "abcd", 100),
            Some(Some(0..4))
        );
    }

    #[test]
    fn a_lazy_pattern_is_scanned_from_where_it_may_start() {
        let source = r"(?s)<p>(?P<v>.*?)</p>";
        assert_eq!(found(source, "x<p><p>y</p></p>", 100), Some(Some(1..12)));
        assert_eq!(found(source, "x<p>y<p>z", 100), Some(None));
    }

    #[test]
    fn a_pattern_with_no_literal_start_is_not_found_this_way() {
        assert_eq!(found(r"\s*(?P<v>x)", "  x", 100), None);
    }
}
