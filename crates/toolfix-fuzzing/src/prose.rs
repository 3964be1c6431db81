//! Prose: the text a model writes around its calls.
//!
//! Clean prose holds the marker word `action` (and `transaction`, `reaction`), which
//! makes the probe pass, but nothing that can start a call or a fence: no `<`, `[`, `{`,
//! backticks, tildes or colons. Hostile prose adds near-misses of every marker, stray
//! tags, braces and fence characters, and arbitrary text.

use arbitrary::Result;

use super::choice::Gen;
use super::text::separator;

/// Words of clean prose.
const WORDS: [&str; 24] = [
    "I'll",
    "check",
    "the",
    "weather",
    "for",
    "you",
    "Paris",
    "results",
    "action",
    "transaction",
    "reaction",
    "Action",
    "function",
    "tool_call",
    "python",
    "request",
    "café",
    "İstanbul",
    "Straße",
    "日本語",
    "🎉",
    "42",
    "(done).",
    "\"quoted\"",
];

/// Fragments of hostile prose: near-misses, stray tags and closers, braces, fences.
const FRAGMENTS: [&str; 30] = [
    "<tool call>",
    "act ion",
    "Ａction",
    "actİon",
    "<functıon=",
    "[TOOL_CALLS]",
    "<tools>",
    "<|python_tag|",
    "Action:",
    "Action Input:",
    "</tool_call>",
    "</function>",
    "[/TOOL_CALL]",
    "[END_TOOL_REQUEST]",
    "<tool_call>",
    "<function=calc>",
    "[TOOL_REQUEST]",
    "<|python_tag|>",
    "{",
    "}",
    "}{",
    "```",
    "~~~",
    "``",
    "`",
    ":",
    "\\",
    "<think>",
    "</think>",
    "\"",
];

/// One stretch of prose.
#[derive(Clone, Debug)]
pub struct Prose(pub String);

impl Prose {
    /// Up to a dozen words, with hostile fragments and arbitrary text when allowed.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<Prose> {
        let mut text = String::new();
        for i in 0..g.upto(12)? {
            if i > 0 {
                text.push_str(separator(g)?);
            }
            text.push_str(&word(g)?);
        }
        Ok(Prose(text))
    }
}

/// A clean word, or in hostile replies a fragment or arbitrary text.
fn word(g: &mut Gen<'_, '_>) -> Result<String> {
    if g.hostile() {
        match g.below(4)? {
            0 => return Ok(g.pick(&FRAGMENTS)?.to_owned()),
            1 => return g.any(),
            _ => {}
        }
    }
    Ok(g.pick(&WORDS)?.to_owned())
}
