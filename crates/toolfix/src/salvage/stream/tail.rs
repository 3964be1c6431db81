//! The end of the kept text that a chunk boundary may have cut inside a token: held back
//! (neither shown nor settled) until more text says what it is.
//!
//! What a cut can leave at the end: the start of a tag or token (`<tool_ca`,
//! `<｜tool▁call▁beg`, `[TOOL_CAL`, `<function=get_wea`), a run of backticks or tildes
//! that may yet be three long, or the start of a word marker (`act`, `functoo`). Such a
//! beginning can only change what happens from where it starts, so everything before it
//! is unaffected.

use super::super::dialect::tokens::reasoning;
use super::frontier;

/// Markers with a `>` inside them, which the unterminated-tag rule does not hold when the
/// cut falls after that `>`: the reasoning openers of Gemma 4 and gpt-oss.
const INNER_CLOSE: [&[u8]; 2] = [
    reasoning::GEMMA_THOUGHT.as_bytes(),
    reasoning::HARMONY_ANALYSIS.as_bytes(),
];

/// How far back an unterminated tag is looked for: longer than any token or name a
/// dialect reads before its closing `>` or `]`.
const REACH: usize = 512;

/// Where the held end of `text` starts (its length when nothing is held), looking only
/// at `text[from..]`.
pub fn held_from(text: &[u8], from: usize) -> usize {
    let from = from.min(text.len());
    let window = text.len().saturating_sub(REACH).max(from);
    let tag = text[window..]
        .iter()
        .rposition(|&b| b == b'<' || b == b'[')
        .map(|i| window + i)
        .filter(|&at| !text[at..].iter().any(|&b| b == b'>' || b == b']'));
    let run = text[from..]
        .iter()
        .rev()
        .take_while(|&&b| b == b'`' || b == b'~')
        .count();
    let fence_run = (run > 0).then_some(text.len() - run);
    let word = frontier::cut_word(text, from);
    let marker = INNER_CLOSE
        .iter()
        .filter_map(|m| {
            (1..m.len())
                .rev()
                .find(|&k| text[from..].ends_with(&m[..k]))
        })
        .map(|k| text.len() - k)
        .min();
    [tag, fence_run, word, marker]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_a_cut_may_have_split() {
        fn held(t: &str) -> &str {
            &t[held_from(t.as_bytes(), 0)..]
        }
        assert_eq!(held("done <tool_ca"), "<tool_ca");
        assert_eq!(held("x [TOOL_CALLS]a[AR"), "[AR");
        assert_eq!(held("see <b> and"), "");
        assert_eq!(held("code ``"), "``");
        assert_eq!(held("an act"), "act");
        assert_eq!(held("plain."), "");
        assert_eq!(held("<function=get_wea"), "<function=get_wea");
        assert_eq!(held("x <|channel>thou"), "<|channel>thou");
    }
}
