//! The shape three dialects share: `OPEN \s* (\{[\s\S]*?\}) \s* CLOSE`.
//!
//! `re.finditer` over that pattern, in linear time. The body is lazy, so a match at an
//! opening tag ends at the first `}` that is followed (after `\s*`) by a closing tag; no
//! other end is possible, because `\s*` and the closing tag's first character never
//! overlap. Such `}` positions ("closers") are found once, in one pass, and each opening
//! tag looks up the first closer after its `{`. An opening tag with no closer after it
//! does not match (CPython rescans to the end for each one, which is its quadratic case);
//! and then no later opening tag can match either.

use std::ops::Range;

use memchr::memchr_iter;

use super::super::SalvageError;
use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::super::text::skip_space;
use super::Dialect;
use super::pair::PairStarts;

/// What an opening tag matcher returns: the tag's end and, for `<function=NAME>`, the
/// name's range.
pub type Opened = Option<(usize, Option<Range<usize>>)>;

/// A dialect's tags.
pub struct TagSyntax {
    /// The byte every opening tag starts with.
    pub open_first: u8,
    /// The letter every opening tag goes on with, in lower case: one that `re.I` folds
    /// from no non-ASCII code point, so the byte after `open_first` is that letter in
    /// either case. Checked before `open` is called, it rules out nearly every other tag
    /// (a `<|tool_call_begin|>` flood stops the `<tool_call>` scan at each `<`).
    pub open_second: u8,
    /// Matches an opening tag at an offset.
    pub open: fn(&[u8], usize) -> Opened,
    /// Whether the opening tag at an offset runs to the end of the text before `open`
    /// can tell whether it is one (a `<function=` name with no `>` yet): a streamed
    /// reply may still complete it.
    pub cut_short: fn(&[u8], usize) -> bool,
    /// Matches a closing tag at an offset: its end.
    pub close: fn(&[u8], usize) -> Option<usize>,
}

/// One match of the pattern.
pub struct TagMatch {
    /// The whole match.
    pub span: Range<usize>,
    /// The name captured by the opening tag, if the dialect has one.
    pub name: Option<Range<usize>>,
    /// The JSON group, braces included.
    pub json: Range<usize>,
}

/// Every match, in order, as `finditer` yields them.
pub fn find_all(payloads: &Payloads<'_>, syntax: &TagSyntax) -> Vec<TagMatch> {
    let text = payloads.text();
    let mut matches = Vec::new();
    let mut closers: Option<Vec<(usize, usize)>> = None;
    let mut first = 0;
    let mut resume = 0;
    for start in PairStarts::new(text, syntax.open_first, syntax.open_second) {
        if start < resume {
            continue;
        }
        let Some((open_end, name)) = (syntax.open)(text, start) else {
            if (syntax.cut_short)(text, start) {
                payloads.reaches_end(start);
            }
            continue;
        };
        let brace = skip_space(text, open_end);
        if brace == text.len() {
            payloads.reaches_end(start);
        }
        if text.get(brace) != Some(&b'{') {
            continue;
        }
        let closers = closers.get_or_insert_with(|| find_closers(text, syntax));
        first = first_closer_after(closers, first, brace);
        let Some(&(close_brace, end)) = closers.get(first) else {
            // A streamed reply may still close it (and then none after it can match first).
            payloads.reaches_end(start);
            break;
        };
        matches.push(TagMatch {
            span: start..end,
            name,
            json: brace..close_brace + 1,
        });
        resume = end;
    }
    matches
}

/// Adds a candidate for every block of a dialect whose payload names the call
/// (`<tool_call>`, `[TOOL_CALL]`): the group is `json.loads`ed, then `_name_and_args`.
pub fn scan_named_payloads(
    payloads: &Payloads<'_>,
    syntax: &TagSyntax,
    dialect: Dialect,
    out: &mut Candidates,
) -> Result<(), SalvageError> {
    let matches = find_all(payloads, syntax);
    out.reserve(matches.len());
    for m in matches {
        let found = payloads
            .loads_payload(m.json)?
            .and_then(|data| payloads.name_and_args(data));
        out.push(m.span, dialect, found);
    }
    Ok(())
}

/// The index of the first closer after `brace`, given `first`, the one found for the
/// brace before: braces move on from match to match, so moving on from there costs each
/// closer once; a brace behind the last one (an opening tag inside another's) searches.
fn first_closer_after(closers: &[(usize, usize)], first: usize, brace: usize) -> usize {
    let after = |&(close_brace, _): &(usize, usize)| close_brace <= brace;
    if first > 0 && !after(&closers[first - 1]) {
        return closers.partition_point(after);
    }
    first + closers[first..].iter().take_while(|c| after(c)).count()
}

/// Every `}` followed by `\s*` and a closing tag: `(offset of the brace, end of the tag)`.
fn find_closers(text: &[u8], syntax: &TagSyntax) -> Vec<(usize, usize)> {
    memchr_iter(b'}', text)
        .filter_map(|brace| {
            (syntax.close)(text, skip_space(text, brace + 1)).map(|end| (brace, end))
        })
        .collect()
}
