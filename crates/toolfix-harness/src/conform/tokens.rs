//! The special tokens of the dialects' model families (`docs/dialects/`): strings a
//! tokenizer holds as one token, so a server streaming tokens never cuts inside one. A
//! driver that declares `token_chunks` (`docs/protocol.md`) is only given chunkings that
//! keep them whole (`conform::streaming`).
//!
//! The core's dialect registry names them (`DialectSpec::tokens`, and the reasoning
//! markers that are tokens); a string listed there that some tokenizer does split only
//! spares a `token_chunks` driver a cut, never sends it one a server would not.

use std::sync::LazyLock;

use toolfix::salvage::{Dialect, tokens};

/// Every special token, as the templates spell it (matched exactly, case and all), each
/// once.
static SPECIAL_TOKENS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut all: Vec<&'static str> = Dialect::ALL
        .iter()
        .flat_map(|d| d.spec().tokens().iter().copied())
        .chain(tokens::reasoning::TOKENS)
        .collect();
    all.sort_unstable();
    all.dedup();
    all
});

/// Whether a cut at byte offset `at` of `text` falls strictly inside a special token.
pub fn splits_a_token(text: &[u8], at: usize) -> bool {
    SPECIAL_TOKENS.iter().any(|token| {
        let token = token.as_bytes();
        let first = at.saturating_sub(token.len() - 1);
        (first..at).any(|start| text[start..].starts_with(token))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_inside_a_token_splits_it_and_one_at_its_edges_does_not() {
        let text = "a<|tool_call_begin|>b".as_bytes();
        assert!(!splits_a_token(text, 1));
        assert!(splits_a_token(text, 2));
        assert!(splits_a_token(text, 19));
        assert!(!splits_a_token(text, 20));
        let deepseek = "x<\u{ff5c}tool\u{2581}sep\u{ff5c}>{".as_bytes();
        assert!(splits_a_token(deepseek, 2));
        assert!(!splits_a_token(deepseek, deepseek.len() - 1));
    }

    /// A driver author reads the list in `docs/protocol.md`, not in this file: every
    /// token kept whole is written there.
    #[test]
    fn the_protocol_doc_lists_every_token() {
        let doc = include_str!("../../../../docs/protocol.md");
        let missing: Vec<&str> = SPECIAL_TOKENS
            .iter()
            .copied()
            .filter(|token| !doc.contains(&format!("`{token}`")))
            .collect();
        assert!(missing.is_empty(), "docs/protocol.md lacks {missing:?}");
    }
}
