//! The scan step: which text each dialect reads, and how their candidates meet.
//!
//! Under `praisonai` this is the real package's scan: the six dialects over the
//! fence-masked text. Under `strict` and `portable` every dialect runs, and what is not a
//! call is found first:
//!
//! 1. the token dialects scan the text as written, so that a fence their own syntax holds
//!    (DeepSeek V3's fenced JSON, a code argument of Qwen3-Coder) is seen as theirs;
//! 2. fences are found everywhere else (`fence::fenced_ranges_around` those spans): a fence
//!    opening before a call's first token still masks it, an example stays an example;
//! 3. reasoning is found outside the fences (`reasoning`); when there is some, the token
//!    dialects scan again with it masked, so a block drafted while thinking never pairs
//!    with a token after it;
//! 4. a token candidate that starts inside a fence or reasoning is dropped, and the six
//!    dialects scan the text with both masked;
//! 5. `span::select` orders all candidates and applies the starts-inside rule.
//!
//! Every step is linear: each scans the text a fixed number of times.

use std::ops::Range;

use super::dialect::{self, Dialect};
use super::fence::{self, Masked};
use super::payload::Payloads;
use super::reasoning::{merge, reasoning_ranges};
use super::span::{self, Candidate, Found};
use super::{Allowlist, SalvageError};
use crate::profile::Profile;

/// A selected call: its span in the original text, its dialect, what was found.
pub type Selected = (Range<usize>, Dialect, Found);

/// The calls of `content`, in text order, under `profile`.
pub fn scan(
    content: &[u8],
    tools: &Allowlist,
    profile: Profile,
) -> Result<Vec<Selected>, SalvageError> {
    if profile.is_faithful() {
        let masked = Masked::new(content);
        let candidates = embedded(&masked, tools, profile)?;
        return Ok(span::select(candidates));
    }
    let mut tokens = tokens(&Masked::with_ranges(content, Vec::new()), tools, profile);
    let fenced = fence::fenced_ranges_around(content, &disjoint(&tokens));
    let reasoning = reasoning_ranges(content, &fenced);
    if !reasoning.is_empty() {
        tokens = tokens_in_original(content, reasoning.clone(), tools, profile);
    }
    let hidden = merge(fenced.into_iter().chain(reasoning).collect());
    tokens.retain(|c| !starts_inside(&hidden, c.span.start));
    let masked = Masked::with_ranges(content, hidden);
    let mut candidates = embedded(&masked, tools, profile)?;
    candidates.append(&mut tokens);
    Ok(span::select(candidates))
}

/// The six dialects' candidates over `masked`, with spans in the original text.
fn embedded(
    masked: &Masked<'_>,
    tools: &Allowlist,
    profile: Profile,
) -> Result<Vec<Candidate>, SalvageError> {
    let payloads = Payloads::new(masked, tools, profile);
    let mut candidates = dialect::scan_embedded(&payloads)?;
    to_original(masked, &mut candidates);
    Ok(candidates)
}

/// The token dialects' candidates over `masked`, spans as they were found.
fn tokens(masked: &Masked<'_>, tools: &Allowlist, profile: Profile) -> Vec<Candidate> {
    dialect::scan_tokens(&Payloads::new(masked, tools, profile))
}

/// The token dialects' candidates with `hidden` masked, spans in the original text.
fn tokens_in_original(
    content: &[u8],
    hidden: Vec<Range<usize>>,
    tools: &Allowlist,
    profile: Profile,
) -> Vec<Candidate> {
    let masked = Masked::with_ranges(content, hidden);
    let mut candidates = tokens(&masked, tools, profile);
    to_original(&masked, &mut candidates);
    candidates
}

/// Maps each candidate's span from the masked text to the original.
fn to_original(masked: &Masked<'_>, candidates: &mut [Candidate]) {
    for c in candidates {
        c.span = masked.to_original(c.span.start)..masked.to_original(c.span.end);
    }
}

/// The spans of `candidates` as sorted, disjoint ranges: a span that starts inside an
/// earlier one is left out, as `span::select` would leave its candidate out.
fn disjoint(candidates: &[Candidate]) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = candidates.iter().map(|c| c.span.clone()).collect();
    spans.sort_by_key(|s| s.start);
    let mut kept: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for s in spans {
        if kept.last().is_none_or(|k| s.start >= k.end) && !s.is_empty() {
            kept.push(s);
        }
    }
    kept
}

/// Whether `at` lies inside one of `ranges` (sorted, disjoint).
fn starts_inside(ranges: &[Range<usize>], at: usize) -> bool {
    let next = ranges.partition_point(|r| r.end <= at);
    ranges.get(next).is_some_and(|r| r.start <= at)
}
