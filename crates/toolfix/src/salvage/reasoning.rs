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
    let mut at = 0;
    while let Some(open) = find_from(text, ANALYSIS, at, &outside) {
        let body = open + ANALYSIS.len();
        let end = [HARMONY_END, HARMONY_START]
            .iter()
            .filter_map(|m| memmem::find(&text[body..], m).map(|i| body + i))
            .min()
            .map_or(text.len(), |i| {
                if text[i..].starts_with(HARMONY_END) {
                    i + HARMONY_END.len()
                } else {
                    i
                }
            });
        ranges.push(open..end);
        at = end;
    }
    merge(ranges)
}

/// Where the reasoning a reply begins with ends (only whitespace before it), when the
/// reply goes on after it. With `unopened_only`, only reasoning closed by an unopened
/// `</think>` counts: the rest of a streamed reply (`stream`) may begin with an opening
/// marker that is not the beginning of the reply.
pub fn leading(text: &[u8], unopened_only: bool) -> Option<usize> {
    let first = reasoning_ranges(text, &[]).into_iter().next()?;
    let before = &text[..first.start];
    let opened = BLOCKS
        .iter()
        .map(|(opener, _)| *opener)
        .chain([ANALYSIS])
        .any(|opener| text[first.start..].starts_with(opener));
    let counts = !(unopened_only && opened);
    (counts && before.iter().all(u8::is_ascii_whitespace) && first.end < text.len())
        .then_some(first.end)
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
    fn markers_inside_fences_are_text() {
        let text = "```\n<think>\n```\n<tool_call>";
        let fenced = [Range { start: 0, end: 15 }];
        assert_eq!(shown(text, &fenced), Vec::<&str>::new());
    }
}
