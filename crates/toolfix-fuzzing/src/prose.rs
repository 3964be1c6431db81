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

/// Fragments of hostile prose: near-misses, stray tags and closers, braces, fences, the
/// tokens of the native formats and of reasoning, alone or half-written.
const FRAGMENTS: [&str; 64] = [
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
    "[TOOL_CALLS]a[ARGS]",
    "[TOOL_CALLS][",
    "[ARGS]{",
    "[CALL_ID]",
    "<function=a>\n<parameter=x>\n",
    "</parameter>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜DSML｜function_calls>",
    "<｜DSML｜invoke name=\"a\">",
    "<tool_call>a\n<arg_key>",
    "</arg_value>",
    "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>",
    "<|message|>",
    "<|call|>",
    "<|end|>",
    "<|channel|>analysis<|message|>",
    "<start_function_call>call:a{",
    "<escape>",
    "<|tool_call>call:a{x:<|\"|>",
    "<minimax:tool_call>",
    "<invoke name=\"a\">",
    "<|tool_call|>[",
    "functools[",
    "<|python_start|>[a(",
    "<|tool_call_start|>",
    "<|channel>thought",
    "<channel|>",
    "; {\"name\": \"a\"}",
    "```json",
    "[a(x=1)]",
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
