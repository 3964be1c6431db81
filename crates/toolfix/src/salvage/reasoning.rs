//! Reasoning is not a call (`docs/guarantees.md` G9): under `strict` and `portable`, the
//! model's reasoning is masked like fenced code, so a call it drafts while thinking never
//! runs. `praisonai` does not do this (its salvage reads `<think>` blocks like any text).
//!
//! Reasoning, as the model families write it in a reply's text:
//!
//! * `<think>` … `</think>` (DeepSeek R1, Qwen3, GLM, Kimi, MiniMax and others); an
//!   unclosed `<think>` runs to the end of the reply: a call after it was never made;
//! * a reply that begins with reasoning closed by an unopened `</think>` (templates that
//!   put the opening `<think>` in the prompt): everything before that `</think>`;
//! * Gemma 4's thought channel: `<|channel>thought` … `<channel|>` (unclosed: to the end);
//! * gpt-oss Harmony's `analysis` channel: `<|channel|>analysis<|message|>` up to its
//!   `<|end|>`, the next `<|start|>`, or the end of the reply.
//!
//! Markers inside fenced code are text, not reasoning, so `fenced` ranges are skipped.
//! The markers are matched exactly as the templates write them (lower case).

use std::ops::Range;

use memchr::memmem;

use crate::py::unicode::strip;

/// Reasoning blocks: an opener, and the closer that ends the block.
const BLOCKS: [(&[u8], &[u8]); 2] = [
    (b"<think>", b"</think>"),
    (b"<|channel>thought", b"<channel|>"),
];
const THINK_CLOSE: &[u8] = b"</think>";
const ANALYSIS: &[u8] = b"<|channel|>analysis<|message|>";
const HARMONY_END: &[u8] = b"<|end|>";
const HARMONY_START: &[u8] = b"<|start|>";

/// The reasoning ranges of `text`, sorted and disjoint, none starting inside `fenced`
/// (sorted, disjoint fenced ranges).
pub fn reasoning_ranges(text: &[u8], fenced: &[Range<usize>]) -> Vec<Range<usize>> {
    let outside = |at: usize| {
        let next = fenced.partition_point(|f| f.end <= at);
        fenced.get(next).is_none_or(|f| at < f.start)
    };
    let mut ranges = Vec::new();
    let first_open = memmem::find_iter(text, BLOCKS[0].0).find(|&at| outside(at));
    let first_close = memmem::find_iter(text, THINK_CLOSE).find(|&at| outside(at));
    if let Some(close) = first_close.filter(|&c| first_open.is_none_or(|o| c < o)) {
        ranges.push(0..close + THINK_CLOSE.len());
    }
    let after_prefix = ranges.last().map_or(0, |r| r.end);
    for (opener, closer) in BLOCKS {
        let mut at = after_prefix;
        while let Some(open) = find_from(text, opener, at, &outside) {
            let end = find_from(text, closer, open + opener.len(), &outside)
                .map_or(text.len(), |close| close + closer.len());
            ranges.push(open..end);
            at = end;
        }
    }
    ranges.extend(analysis_channels(
        text,
        &outside,
        &mut Ahead::new(text, HARMONY_END),
        &mut Ahead::new(text, HARMONY_START),
    ));
    merge(ranges)
}

/// Harmony's analysis channels: each from its `<|channel|>analysis<|message|>` to its
/// `<|end|>` (included), the next `<|start|>` (excluded), or the end of the text.
///
/// The ends are found by `Ahead` searches that only move forward: searching the rest of
/// the text afresh from every channel would be quadratic on a reply of many channels each
/// ended by a `<|start|>`, with the only `<|end|>` at the very end.
fn analysis_channels<'t>(
    text: &'t [u8],
    outside: &impl Fn(usize) -> bool,
    ends: &mut Ahead<'t>,
    starts: &mut Ahead<'t>,
) -> Vec<Range<usize>> {
    let mut channels = Vec::new();
    let mut at = 0;
    while let Some(open) = find_from(text, ANALYSIS, at, outside) {
        let body = open + ANALYSIS.len();
        let end = match (ends.from(body), starts.from(body)) {
            (Some(end), Some(start)) if start < end => start,
            (Some(end), _) => end + HARMONY_END.len(),
            (None, Some(start)) => start,
            (None, None) => text.len(),
        };
        channels.push(open..end);
        at = end;
    }
    channels
}

/// The occurrences of a token at or after positions that only grow, from one forward
/// search: each occurrence is visited once, whatever the number of queries.
struct Ahead<'t> {
    found: memmem::FindIter<'t, 't>,
    next: Option<usize>,
    /// How many occurrences the search has visited (linearity is pinned on it in tests).
    visited: usize,
}

impl<'t> Ahead<'t> {
    fn new(text: &'t [u8], token: &'t [u8]) -> Ahead<'t> {
        Ahead {
            found: memmem::find_iter(text, token),
            next: None,
            visited: 0,
        }
    }

    /// The first occurrence at or after `pos`; `pos` must not be smaller than in an
    /// earlier call.
    fn from(&mut self, pos: usize) -> Option<usize> {
        while self.next.is_none_or(|n| n < pos) {
            self.next = Some(self.found.next()?);
            self.visited += 1;
        }
        self.next
    }
}

/// Where the reasoning a reply begins with ends (only `str.isspace` whitespace before it,
/// what the whole-content path strips), when the reply goes on after it.
///
/// Reasoning is found as the scan finds it, outside fences: a fence opened in the
/// reasoning and never closed runs past its `</think>`, so what follows is fenced, not a
/// whole-content payload. Fences are looked for only once there is reasoning at all.
pub fn leading(text: &[u8]) -> Option<usize> {
    reasoning_ranges(text, &[]).first()?;
    let fenced = super::fence::fenced_ranges(text);
    let first = reasoning_ranges(text, &fenced).into_iter().next()?;
    let before = &text[..first.start];
    (strip(before).is_empty() && first.end < text.len()).then_some(first.end)
}

/// The first occurrence of `marker` at or after `from` that `keep` accepts.
fn find_from(
    text: &[u8],
    marker: &[u8],
    from: usize,
    keep: &impl Fn(usize) -> bool,
) -> Option<usize> {
    memmem::find_iter(&text[from.min(text.len())..], marker)
        .map(|i| from + i)
        .find(|&at| keep(at))
}

/// Ranges sorted by start and merged where they overlap or touch.
pub fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown<'t>(text: &'t str, fenced: &[Range<usize>]) -> Vec<&'t str> {
        reasoning_ranges(text.as_bytes(), fenced)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn think_blocks_closed_unclosed_and_unopened() {
        assert_eq!(shown("a<think>x</think>b", &[]), ["<think>x</think>"]);
        assert_eq!(shown("a<think>x", &[]), ["<think>x"]);
        assert_eq!(
            shown("x</think>b<think>y</think>", &[]),
            ["x</think>", "<think>y</think>"]
        );
        assert_eq!(shown("plain", &[]), Vec::<&str>::new());
    }

    #[test]
    fn gemma_thought_channel() {
        let text = "<|channel>thought\nplan<channel|><|tool_call>call:a{}<tool_call|>";
        assert_eq!(shown(text, &[]), ["<|channel>thought\nplan<channel|>"]);
    }

    #[test]
    fn harmony_analysis_channel() {
        let text = "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final";
        assert_eq!(
            shown(text, &[]),
            ["<|channel|>analysis<|message|>think<|end|>"]
        );
        let cut = "<|channel|>analysis<|message|>still thinking";
        assert_eq!(shown(cut, &[]), [cut]);
    }

    #[test]
    fn analysis_channels_ended_by_start_and_end_tokens() {
        let text =
            "<|channel|>analysis<|message|>a<|start|>x<|channel|>analysis<|message|>b<|end|>y";
        assert_eq!(
            shown(text, &[]),
            [
                "<|channel|>analysis<|message|>a",
                "<|channel|>analysis<|message|>b<|end|>"
            ]
        );
        let ended = "<|channel|>analysis<|message|>a<|end|><|start|>b";
        assert_eq!(
            shown(ended, &[]),
            ["<|channel|>analysis<|message|>a<|end|>"]
        );
    }

    /// Many channels each ended by a `<|start|>`, the only `<|end|>` at the very end:
    /// each end token is visited once, not once per channel (which was quadratic).
    #[test]
    fn analysis_channel_ends_are_searched_once() {
        let n = 1000;
        let text = "<|channel|>analysis<|message|>x<|start|>".repeat(n) + "<|end|>";
        let text = text.as_bytes();
        let mut ends = Ahead::new(text, HARMONY_END);
        let mut starts = Ahead::new(text, HARMONY_START);
        let channels = analysis_channels(text, &|_| true, &mut ends, &mut starts);
        assert_eq!(channels.len(), n);
        assert_eq!(ends.visited, 1);
        assert_eq!(starts.visited, n);
    }

    #[test]
    fn leading_reasoning_after_any_whitespace_and_outside_fences() {
        let text = "\u{85} <think>plan</think> {}";
        assert_eq!(leading(text.as_bytes()), Some(text.find(" {}").unwrap()));
        assert_eq!(leading(b"x <think>plan</think> {}"), None);
        // A fence opened in the reasoning and never closed runs past its `</think>`.
        assert_eq!(leading(b"<think>```</think> {}"), None);
        assert_eq!(leading(b"<think>```x```</think> {}"), Some(22));
    }

    #[test]
    fn markers_inside_fences_are_text() {
        let text = "```\n<think>\n```\n<tool_call>";
        let fenced = [Range { start: 0, end: 15 }];
        assert_eq!(shown(text, &fenced), Vec::<&str>::new());
    }
}
