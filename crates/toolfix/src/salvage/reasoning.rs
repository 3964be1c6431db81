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
//! * Mistral's `[THINK]` … `[/THINK]` (Magistral, Ministral 3 reasoning; unclosed: to the
//!   end);
//! * Seed-OSS's `<seed:think>` … `</seed:think>` (unclosed: to the end);
//! * gpt-oss Harmony's `analysis` channel: `<|channel|>analysis<|message|>` up to the
//!   first `<|end|>`, `<|call|>` or `<|return|>` (where the `openai-harmony` package ends
//!   a message: a `<|start|>` inside it is text), or the end of the reply.
//!
//! Markers inside fenced code are text, not reasoning. The one-pass reading (`pass`)
//! finds reasoning as it reads; this module finds the reasoning a reply begins with, for
//! the whole-content path.
//! The markers are matched exactly as the templates write them (lower case).

use std::ops::Range;

use memchr::memmem;

use super::Beginning;
use super::dialect::tokens::{harmony, reasoning};
use super::text::{MarkerBytes, skip_space};
use crate::py::unicode::strip;

/// Reasoning blocks: an opener, and the closer that ends the block.
const BLOCKS: [(&[u8], &[u8]); 4] = [
    (reasoning::THINK.as_bytes(), THINK_CLOSE),
    (
        reasoning::GEMMA_THOUGHT.as_bytes(),
        reasoning::GEMMA_THOUGHT_CLOSE.as_bytes(),
    ),
    (
        reasoning::MISTRAL_THINK.as_bytes(),
        reasoning::MISTRAL_THINK_CLOSE.as_bytes(),
    ),
    (
        reasoning::SEED_THINK.as_bytes(),
        reasoning::SEED_THINK_CLOSE.as_bytes(),
    ),
];
const THINK_CLOSE: &[u8] = reasoning::THINK_CLOSE.as_bytes();
const ANALYSIS: &[u8] = reasoning::HARMONY_ANALYSIS.as_bytes();
/// Every marker that opens reasoning.
const OPENERS: [&[u8]; 5] = [BLOCKS[0].0, BLOCKS[1].0, BLOCKS[2].0, BLOCKS[3].0, ANALYSIS];
/// The tokens that end a Harmony message.
const HARMONY_ENDS: [&[u8]; 3] = [
    harmony::END.as_bytes(),
    harmony::CALL.as_bytes(),
    harmony::RETURN.as_bytes(),
];

/// The reasoning ranges of `text`, sorted and disjoint. A marker inside one of `fenced`
/// (sorted, disjoint ranges whose markers are text: fenced code, and the calls `scan`
/// found before reasoning was known) is not a marker. An unopened `</think>` makes
/// everything before it reasoning only while `beginning` says one still can.
pub fn reasoning_ranges(
    text: &[u8],
    fenced: &[Range<usize>],
    beginning: Beginning,
) -> Vec<Range<usize>> {
    reasoning(text, fenced, beginning, MarkerBytes::of(text))
}

/// `reasoning_ranges`, sorted and disjoint; `held` says which of `<` and `[` the text
/// holds (`MarkerBytes::of`, asked once by a caller that reads
/// the text several times).
pub fn reasoning(
    text: &[u8],
    fenced: &[Range<usize>],
    beginning: Beginning,
    held: MarkerBytes,
) -> Vec<Range<usize>> {
    let outside = |at: usize| {
        let next = fenced.partition_point(|f| f.end <= at);
        fenced.get(next).is_none_or(|f| at < f.start)
    };
    let mut ranges = Vec::new();
    // Every reasoning marker holds `<` or `[`: one the text lacks (`held`) is not
    // searched for.
    if !held.any() {
        return ranges;
    }
    let first_open = match held.angle {
        true => memmem::find_iter(text, BLOCKS[0].0).find(|&at| outside(at)),
        false => None,
    };
    // An unopened `</think>` comes before the first `<think>`, so only the text before
    // it is searched (the two cannot overlap: only their first bytes are a `<`).
    let before_open = &text[..first_open.unwrap_or(text.len())];
    let unopened = match held.angle {
        true => memmem::find_iter(before_open, THINK_CLOSE).find(|&at| outside(at)),
        false => None,
    };
    if let Some(close) = unopened.filter(|_| beginning.unopened_think) {
        ranges.push(0..close + THINK_CLOSE.len());
    }
    let after_prefix = ranges.last().map_or(0, |r| r.end);
    for (k, (opener, closer)) in BLOCKS.into_iter().enumerate() {
        if !held.may_hold(opener) {
            continue;
        }
        // The first `<think>` from `after_prefix` on is `first_open`, found above: a
        // reply without one is not searched through for it again.
        let mut next = match k {
            0 => first_open,
            _ => find_from(text, opener, after_prefix, &outside),
        };
        while let Some(open) = next {
            let close = find_from(text, closer, open + opener.len(), &outside);
            let end = close.map_or(text.len(), |close| close + closer.len());
            ranges.push(open..end);
            next = find_from(text, opener, end, &outside);
        }
    }
    // Each end token is searched once, forward, and only once an analysis message is
    // found: a token kind that never comes must not be searched for again from every
    // analysis message, nor at all in a reply that has none.
    let mut ends = None;
    let mut at = if held.angle { 0 } else { text.len() };
    while let Some(open) = find_from(text, ANALYSIS, at, &outside) {
        let body = open + ANALYSIS.len();
        let ends = ends.get_or_insert_with(|| {
            HARMONY_ENDS.map(|m| {
                let mut found = memmem::find_iter(text, m);
                let next = found.next();
                (found, m.len(), next)
            })
        });
        for (found, _, next) in ends.iter_mut() {
            while next.is_some_and(|n| n < body) {
                *next = found.next();
            }
        }
        let close = ends
            .iter()
            .filter_map(|(_, len, next)| next.map(|n| (n, n + len)))
            .min();
        let end = close.map_or(text.len(), |(_, end)| end);
        ranges.push(open..end);
        at = end;
    }
    merge(ranges)
}

/// Where the reasoning a reply begins with ends (only `str.isspace` whitespace before it,
/// what the whole-content path strips), when the reply goes on after it. In the rest of a
/// streamed reply (`stream`, not `beginning.whole_content`) only reasoning closed by an
/// unopened `</think>` counts: an opening marker there is not the beginning of the reply.
/// Blocks that only whitespace separates are one beginning (`run_end`).
///
/// Reasoning is found as the scan finds it, outside fences: a fence opened in the
/// reasoning and never closed runs past its `</think>`, so what follows is fenced, not a
/// whole-content payload. Fences are looked for only once there is reasoning at all.
pub fn leading(text: &[u8], beginning: Beginning) -> Option<usize> {
    leading_from(text, beginning, &fenced_reading(text, beginning))
}

/// The reasoning of `text` as the whole-content path reads it: what `reasoning_ranges`
/// finds with no fence masked, read again with the fences masked when there is some
/// and there are fences, so a `</think>` shown in a fence closes nothing.
pub fn fenced_reading(text: &[u8], beginning: Beginning) -> Vec<Range<usize>> {
    let unfenced = reasoning_ranges(text, &[], beginning);
    if unfenced.is_empty() {
        return unfenced;
    }
    let fenced = super::fence::fenced_ranges(text);
    match fenced.is_empty() {
        true => unfenced,
        false => reasoning_ranges(text, &fenced, beginning),
    }
}

/// `leading`, from `ranges`, the reasoning of `text` as `fenced_reading` gives it, for a
/// caller that has read it already (a stream, which also needs the run).
pub fn leading_from(text: &[u8], beginning: Beginning, ranges: &[Range<usize>]) -> Option<usize> {
    let unopened_only = !beginning.whole_content;
    let first = ranges.first()?;
    let before = &text[..first.start];
    let opened = OPENERS
        .iter()
        .any(|opener| text[first.start..].starts_with(opener));
    let counts = !(unopened_only && opened);
    let end = run_end(text, ranges);
    (counts && strip(before).is_empty() && end < text.len()).then_some(end)
}

/// The end of the run of reasoning blocks that starts with the first of `ranges` (sorted
/// and disjoint), each after only whitespace: a model that thinks in two blocks
/// (`<think>a</think>\n<think>b</think>`) has begun its reply with both, and what follows
/// them is still its whole content.
pub fn run_end(text: &[u8], ranges: &[Range<usize>]) -> usize {
    let mut end = ranges.first().map_or(0, |r| r.end);
    for next in ranges.iter().skip(1) {
        if next.start != skip_space(text, end) {
            break;
        }
        end = next.end;
    }
    end
}

/// Whether `text`, after whitespace, is the start of a reasoning opener cut short: the
/// reasoning a streamed reply begins with may go on with another block.
pub fn may_open(text: &[u8]) -> bool {
    let rest = &text[skip_space(text, 0)..];
    !rest.is_empty() && OPENERS.iter().any(|opener| opener.starts_with(rest))
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
        reasoning_ranges(text.as_bytes(), fenced, Beginning::REPLY)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    /// `reasoning` and `first_think_marker` return at once on text without `<` or `[`:
    /// every marker they look for holds one; a block's closer holds its opener's, and
    /// the think markers and Harmony's tokens hold `<`, which is all they are skipped by.
    #[test]
    fn every_marker_holds_a_tag_byte() {
        let none = MarkerBytes {
            angle: false,
            bracket: false,
        };
        for (open, close) in BLOCKS {
            assert!(!none.may_hold(open), "{}", String::from_utf8_lossy(open));
            for held in [b'<', b'['] {
                assert_eq!(open.contains(&held), close.contains(&held));
            }
        }
        for marker in [BLOCKS[0].0, THINK_CLOSE, ANALYSIS]
            .into_iter()
            .chain(HARMONY_ENDS)
        {
            assert!(
                marker.contains(&b'<'),
                "{}",
                String::from_utf8_lossy(marker)
            );
        }
        let text = b"[THINK]x[/THINK] y";
        let bracketed = reasoning(text, &[], Beginning::REPLY, MarkerBytes::of(text));
        assert_eq!(bracketed, vec![Range { start: 0, end: 16 }]);
        assert!(shown("think: no tags here, action", &[]).is_empty());
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
    fn mistral_think_tokens() {
        let text = "[THINK]maybe [TOOL_CALLS]a[ARGS]{}[/THINK][TOOL_CALLS]b[ARGS]{}";
        assert_eq!(
            shown(text, &[]),
            ["[THINK]maybe [TOOL_CALLS]a[ARGS]{}[/THINK]"]
        );
        assert_eq!(shown("ok[THINK]cut", &[]), ["[THINK]cut"]);
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
        let unended = "<|channel|>analysis<|message|>a<|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|call|>";
        assert_eq!(shown(unended, &[]), [unended]);
    }

    #[test]
    fn many_analysis_messages_make_one_range() {
        let text = "<|channel|>analysis<|message|>x<|end|>".repeat(100_000);
        assert_eq!(
            reasoning_ranges(text.as_bytes(), &[], Beginning::REPLY).len(),
            1
        );
    }

    #[test]
    fn leading_reasoning_after_any_whitespace_and_outside_fences() {
        let text = "\u{85} <think>plan</think> {}";
        assert_eq!(
            leading(text.as_bytes(), Beginning::REPLY),
            Some(text.find(" {}").unwrap())
        );
        assert_eq!(leading(b"x <think>plan</think> {}", Beginning::REPLY), None);
        // A fence opened in the reasoning and never closed runs past its `</think>`.
        assert_eq!(leading(b"<think>```</think> {}", Beginning::REPLY), None);
        assert_eq!(
            leading(b"<think>```x```</think> {}", Beginning::REPLY),
            Some(22)
        );
    }

    #[test]
    fn blocks_only_whitespace_separates_are_one_beginning() {
        let text = b"<think>a</think>\n<|channel>thought b<channel|>[a()]";
        assert_eq!(leading(text, Beginning::REPLY), Some(text.len() - 5));
        let prose = b"<think>a</think> so <think>b</think>[a()]";
        assert_eq!(leading(prose, Beginning::REPLY), Some(16));
    }

    #[test]
    fn a_cut_opener_may_open_more_reasoning() {
        assert!(may_open(b" \n<|chan"));
        assert!(may_open(b"["));
        assert!(!may_open(b""));
        assert!(!may_open(b"<b>"));
        assert!(!may_open(b"<think>x"));
    }

    #[test]
    fn markers_inside_fences_are_text() {
        let text = "```\n<think>\n```\n<tool_call>";
        let fenced = [Range { start: 0, end: 15 }];
        assert_eq!(shown(text, &fenced), Vec::<&str>::new());
    }
}
