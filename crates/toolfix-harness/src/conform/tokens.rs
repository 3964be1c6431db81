//! The special tokens of the dialects' model families (`docs/dialects/`): strings a
//! tokenizer holds as one token, so a server streaming tokens never cuts inside one. A
//! driver that declares `token_chunks` (`docs/protocol.md`) is only given chunkings that
//! keep them whole (`conform::streaming`).
//!
//! This is the harness's one list of them. It should come from the core's dialect
//! registry (`toolfix::salvage::dialect`) once that is public; until then it follows the
//! dialect pages. A string listed here that some tokenizer does split only spares a
//! `token_chunks` driver a cut, never sends it one a server would not.

/// Every special token, as the templates spell it (matched exactly, case and all).
pub const SPECIAL_TOKENS: &[&str] = &[
    // tool_call (Qwen 2.5 and 3, Hermes) and reasoning (Qwen 3, DeepSeek R1, GLM, Kimi):
    // added tokens of those tokenizers.
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    // python_tag, llama_json: Llama 3.1 to 3.3; pythonic: Llama 4 and LFM2.
    "<|python_tag|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_start|>",
    "<|python_end|>",
    "<|tool_call_start|>",
    "<|tool_call_end|>",
    // mistral: control tokens of every Mistral tokenizer with tools.
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    // glm: GLM-4.5 and 4.7's argument tags.
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    // kimi: K2's section and call tokens.
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    // harmony: gpt-oss's o200k_harmony tokens.
    "<|start|>",
    "<|end|>",
    "<|channel|>",
    "<|constrain|>",
    "<|message|>",
    "<|call|>",
    "<|return|>",
    // gemma: FunctionGemma and Gemma 4.
    "<start_function_call>",
    "<end_function_call>",
    "<escape>",
    "<|tool_call>",
    "<tool_call|>",
    "<|\"|>",
    // minimax: M2's wrapper.
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    // granite and phi4: Granite 3's and Phi-4-mini's tool call tokens.
    "<|tool_call|>",
    "<|/tool_call|>",
    // deepseek: V3, R1 and V3.1, with U+FF5C and U+2581.
    "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}>",
    "<\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}>",
    "<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>",
    "<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}>",
    "<\u{ff5c}tool\u{2581}sep\u{ff5c}>",
];

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
}
