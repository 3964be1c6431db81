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

/// One dialect match over the masked text: accepted (`found`) or rejected but still
/// reserving its span, so nothing quoted inside it can run.
///
/// What was found is boxed: a reply can hold a hundred thousand candidates, most of them
/// rejected, and a small candidate keeps their vectors (sorted, merged, selected) small.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub span: Range<usize>,
    pub dialect: Dialect,
    pub found: Option<Box<Found>>,
}

/// The accepted candidates in text order, after dropping every candidate that starts
/// inside the span of an earlier kept one (accepted or rejected).
///
/// This is the loop at the end of `_recover_json_tool_calls`: a stable sort by start
/// (starts cannot tie across dialects, their first characters differ), then a running
/// `consumed` offset.
pub fn select(mut candidates: Vec<Candidate>) -> Vec<(Range<usize>, Dialect, Found)> {
    candidates.sort_by_key(|c| c.span.start);
    let mut consumed = 0;
    // Sized once: a flood of calls otherwise copies the vector as it doubles, a
    // megabyte at a time.
    let mut kept = Vec::with_capacity(candidates.iter().filter(|c| c.found.is_some()).count());
    for candidate in candidates {
        if candidate.span.start < consumed {
            continue;
        }
        consumed = candidate.span.end;
        if let Some(found) = candidate.found {
            kept.push((candidate.span, candidate.dialect, *found));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(span: Range<usize>, name: Option<&str>) -> Candidate {
        Candidate {
            span,
            dialect: Dialect::ToolCall,
            found: name.map(|n| Box::new(Found::new(PyStr::from(n), Value::None))),
        }
    }

    #[test]
    fn rejected_spans_shadow_what_they_contain() {
        let kept = select(vec![
            cand(30..40, Some("late")),
            cand(0..20, None),
            cand(5..10, Some("inner")),
        ]);
        let names: Vec<_> = kept.iter().map(|(_, _, f)| f.name.to_string()).collect();
        assert_eq!(names, ["late"]);
    }

    #[test]
    fn a_candidate_may_start_where_the_previous_one_ends() {
        let kept = select(vec![cand(0..10, Some("a")), cand(10..12, Some("b"))]);
        assert_eq!(kept.len(), 2);
    }
}
