//! Ordering and overlap: text order across dialects, and the starts-inside rule.

use std::ops::Range;

use super::call::Args;
use super::dialect::Dialect;
use crate::py::{PyStr, Value};

/// A payload that passed the allowlist: the call's name and arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub name: PyStr,
    pub args: Args,
}

impl Found {
    /// A call named `name` with the decoded arguments `args`.
    pub fn new(name: PyStr, args: Value) -> Found {
        Found {
            name,
            args: Args::Decoded(args),
        }
    }
}

/// One dialect match over the masked text: accepted (what it found is kept beside it, in
/// its [`Candidates`]) or rejected but still reserving its span, so nothing quoted inside
/// it can run.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub span: Range<usize>,
    pub dialect: Dialect,
    /// Where what it found is in its `Candidates::found`, or [`REJECTED`]. Not an
    /// `Option`, which would make a candidate 40 bytes instead of 32.
    found: usize,
}

/// The `found` of a rejected candidate.
const REJECTED: usize = usize::MAX;

impl Candidate {
    /// Whether it was accepted: a call.
    pub fn is_call(&self) -> bool {
        self.found != REJECTED
    }

    /// Where what it found is, when it was accepted.
    fn found_at(&self) -> Option<usize> {
        self.is_call().then_some(self.found)
    }
}

/// Candidates, and what the accepted ones found.
///
/// What was found is kept beside the candidates, not in them, nor boxed in each: a reply
/// can hold a hundred thousand candidates, most of them rejected, and a small candidate
/// keeps their vectors (sorted, merged, selected) small, while an allocation per accepted
/// call was a sixth of the time a flood of calls takes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Candidates {
    list: Vec<Candidate>,
    found: Vec<Option<Found>>,
}

impl Candidates {
    /// No candidates.
    pub fn new() -> Candidates {
        Candidates::default()
    }

    /// Adds the candidate at `span`: a call when something was `found`.
    pub fn push(&mut self, span: Range<usize>, dialect: Dialect, found: Option<Found>) {
        let found = match found {
            Some(found) => {
                self.found.push(Some(found));
                self.found.len() - 1
            }
            None => REJECTED,
        };
        self.list.push(Candidate {
            span,
            dialect,
            found,
        });
    }

    /// Makes room for `more` candidates, each of which may find a call: a scanner that
    /// knows how many matches it has grows its lists once.
    pub fn reserve(&mut self, more: usize) {
        self.list.reserve(more);
        self.found.reserve(more);
    }

    /// Moves every candidate of `other` here, leaving it empty. Into an empty set, the
    /// vectors themselves move: a reply of one dialect's calls copies none of them.
    pub fn append(&mut self, other: &mut Candidates) {
        if self.list.is_empty() && self.found.is_empty() {
            std::mem::swap(self, other);
            return;
        }
        let base = self.found.len();
        self.found.append(&mut other.found);
        self.list.extend(other.list.drain(..).map(|c| Candidate {
            found: c.found_at().map_or(REJECTED, |at| base + at),
            ..c
        }));
    }

    /// How many candidates there are, and how many found something: where
    /// [`Candidates::rewind`] goes back to.
    pub fn mark(&self) -> (usize, usize) {
        (self.list.len(), self.found.len())
    }

    /// Drops every candidate added since `mark` (of [`Candidates::mark`]): a structure
    /// whose calls were added as they were read, and which turned out malformed.
    pub fn rewind(&mut self, (list, found): (usize, usize)) {
        self.list.truncate(list);
        self.found.truncate(found);
    }

    /// Keeps the candidates `keep` says to (what the others found stays unused).
    pub fn retain(&mut self, keep: impl FnMut(&Candidate) -> bool) {
        self.list.retain(keep);
    }

    /// What `candidate`, one of these, found (`None` for a candidate of another set).
    pub fn found(&self, candidate: &Candidate) -> Option<&Found> {
        let at = candidate.found_at()?;
        self.found.get(at)?.as_ref()
    }

    /// Every candidate with what it found, in their order.
    pub fn into_found(self) -> impl Iterator<Item = (Candidate, Option<Found>)> {
        let mut found = self.found;
        self.list.into_iter().map(move |c| {
            let taken = c.found_at().and_then(|at| found.get_mut(at)?.take());
            (c, taken)
        })
    }
}

impl<'c> IntoIterator for &'c Candidates {
    type Item = &'c Candidate;
    type IntoIter = std::slice::Iter<'c, Candidate>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl std::ops::Deref for Candidates {
    type Target = [Candidate];

    fn deref(&self) -> &[Candidate] {
        &self.list
    }
}

impl std::ops::DerefMut for Candidates {
    fn deref_mut(&mut self) -> &mut [Candidate] {
        &mut self.list
    }
}

/// The accepted candidates in text order, after dropping every candidate that starts
/// inside the span of an earlier kept one (accepted or rejected).
///
/// This is the loop at the end of `_recover_json_tool_calls`: a stable sort by start
/// (starts cannot tie across dialects, their first characters differ), then a running
/// `consumed` offset.
///
/// They are given out one at a time, not collected: a flood of calls would otherwise hold
/// a third copy of every call at once, megabytes that a fresh allocation pays for in page
/// faults on every reply.
pub fn select(mut candidates: Candidates) -> Selection {
    candidates.sort_by_key(|c| c.span.start);
    Selection {
        left: candidates.found.len(),
        candidates: candidates.list.into_iter(),
        found: candidates.found,
        consumed: 0,
    }
}

/// The accepted candidates `select` keeps, in text order, with what each found.
pub struct Selection {
    candidates: std::vec::IntoIter<Candidate>,
    found: Vec<Option<Found>>,
    /// Where the last kept candidate ends.
    consumed: usize,
    /// How many found entries are not given out yet: at most that many calls follow.
    left: usize,
}

impl Iterator for Selection {
    type Item = (Range<usize>, Dialect, Found);

    fn next(&mut self) -> Option<Self::Item> {
        for candidate in self.candidates.by_ref() {
            if candidate.span.start < self.consumed {
                continue;
            }
            self.consumed = candidate.span.end;
            let found = candidate
                .found_at()
                .and_then(|at| self.found.get_mut(at)?.take());
            if let Some(found) = found {
                self.left -= 1;
                return Some((candidate.span, candidate.dialect, found));
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands(all: &[(Range<usize>, Option<&str>)]) -> Candidates {
        let mut candidates = Candidates::new();
        for (span, name) in all {
            let found = name.map(|n| Found::new(PyStr::from(n), Value::None));
            candidates.push(span.clone(), Dialect::ToolCall, found);
        }
        candidates
    }

    #[test]
    fn rejected_spans_shadow_what_they_contain() {
        let kept: Vec<_> = select(cands(&[
            (30..40, Some("late")),
            (0..20, None),
            (5..10, Some("inner")),
        ]))
        .collect();
        let names: Vec<_> = kept.iter().map(|(_, _, f)| f.name.to_string()).collect();
        assert_eq!(names, ["late"]);
    }

    #[test]
    fn a_candidate_may_start_where_the_previous_one_ends() {
        let kept = select(cands(&[(0..10, Some("a")), (10..12, Some("b"))]));
        assert_eq!(kept.size_hint(), (0, Some(2)));
        assert_eq!(kept.count(), 2);
    }
}
