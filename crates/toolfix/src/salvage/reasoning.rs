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
//! Markers inside fenced code or inside a call are text, not reasoning: the one-pass
//! reading (`pass`) finds reasoning as it reads, from this module's table, and decides
//! the reasoning a reply begins with (`pass::Leading`). The markers are matched exactly
//! as the templates write them (lower case).

use super::dialect::tokens::{harmony, reasoning};
use super::text::skip_space;

/// Reasoning blocks: an opener, and the closers that end it (the first of them to come).
pub const BLOCKS: [(&str, &[&str]); 5] = [
    (reasoning::THINK, &[reasoning::THINK_CLOSE]),
    (reasoning::GEMMA_THOUGHT, &[reasoning::GEMMA_THOUGHT_CLOSE]),
    (reasoning::MISTRAL_THINK, &[reasoning::MISTRAL_THINK_CLOSE]),
    (reasoning::SEED_THINK, &[reasoning::SEED_THINK_CLOSE]),
    (reasoning::HARMONY_ANALYSIS, &harmony::ENDS),
];

/// The markers reasoning begins at: each block's opener, and `</think>` (an unopened one
/// makes everything before it reasoning).
pub const MARKERS: [&str; BLOCKS.len() + 1] = {
    let mut markers = [reasoning::THINK_CLOSE; BLOCKS.len() + 1];
    let mut i = 0;
    while i < BLOCKS.len() {
        markers[i] = BLOCKS[i].0;
        i += 1;
    }
    markers
};

/// Whether `text` holds a marker that can make it begin with reasoning: an opener, or
/// an unopened `</think>`.
pub fn may_begin(text: &[u8]) -> bool {
    if memchr::memchr2(b'<', b'[', text).is_none() {
        return false;
    }
    MARKERS
        .iter()
        .any(|marker| memchr::memmem::find(text, marker.as_bytes()).is_some())
}

/// Whether `text`, after whitespace, may yet open reasoning: it is an opener cut short,
/// or begins with one. Reasoning a streamed reply begins with may go on with another
/// block after only whitespace.
pub fn may_open(text: &[u8]) -> bool {
    let rest = &text[skip_space(text, 0)..];
    !rest.is_empty()
        && BLOCKS.iter().any(|(open, _)| {
            let open = open.as_bytes();
            open.starts_with(rest) || rest.starts_with(open)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every opener and closer holds `<` or `[`, which `may_begin` and the reading's
    /// stops (`pass::places`) skip text without.
    #[test]
    fn every_marker_holds_a_tag_byte() {
        for (open, closers) in BLOCKS {
            for marker in closers.iter().chain([&open]) {
                assert!(marker.contains(['<', '[']), "{marker}");
            }
        }
        assert!(!may_begin(b"think: no tags here, action"));
        assert!(may_begin(b"plan</think>{}"));
        assert!(may_begin(b"[THINK]x"));
    }

    #[test]
    fn a_cut_or_whole_opener_may_open_more_reasoning() {
        assert!(may_open(b" \n<|chan"));
        assert!(may_open(b"["));
        assert!(may_open(b"<think>x"));
        assert!(!may_open(b""));
        assert!(!may_open(b"<b>"));
        assert!(!may_open(b"x<think>"));
    }
}
