//! Prose: the text a model writes around its calls.
//!
//! Clean prose holds the marker word `action` (and `transaction`, `reaction`), which
//! makes the probe pass, but nothing that can start a call or a fence: no `<`, `[`, `{`,
//! backticks, tildes or colons. Hostile prose adds near-misses of every marker, stray
//! tags, braces and fence characters, and arbitrary text.

use std::sync::LazyLock;

use arbitrary::Result;

use super::choice::Gen;
use super::markers::{concat, title};
use super::text::{Casing, separator};
use toolfix::salvage::tokens::{
    bracket, deepseek, function, gemma, glm, granite, harmony, kimi, minimax, mistral, phi4,
    python_tag, pythonic, qwen_xml, react, reasoning, tool_call,
};

/// Words of clean prose, the ReAct marker word and words holding it among them.
static WORDS: LazyLock<[&str; 24]> = LazyLock::new(|| {
    [
        "I'll",
        "check",
        "the",
        "weather",
        "for",
        "you",
        "Paris",
        "results",
        react::ACTION,
        concat(&["trans", react::ACTION]),
        concat(&["re", react::ACTION]),
        concat(&[&title(react::ACTION)]),
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
    ]
});

/// Fragments of hostile prose: near-misses, stray tags and closers, braces, fences, the
/// tokens of the native formats and of reasoning, alone or half-written.
static FRAGMENTS: LazyLock<[&str; 64]> = LazyLock::new(|| {
    let action = title(react::ACTION);
    [
        concat(&[&tool_call::OPEN.replace('_', " ")]),
        "act ion",
        "Ａction",
        "actİon",
        concat(&[&Casing::Dotless.apply(function::OPEN)]),
        mistral::TOOL_CALLS,
        "<tools>",
        python_tag::TAG.trim_end_matches('>'),
        concat(&[&action, ":"]),
        concat(&[&action, " ", &title(react::INPUT), ":"]),
        tool_call::CLOSE,
        function::CLOSE,
        bracket::TOOL_CALL_CLOSE,
        bracket::TOOL_REQUEST_CLOSE,
        tool_call::OPEN,
        concat(&[function::OPEN, "calc>"]),
        bracket::TOOL_REQUEST,
        python_tag::TAG,
        "{",
        "}",
        "}{",
        "```",
        "~~~",
        "``",
        "`",
        ":",
        "\\",
        reasoning::THINK,
        reasoning::THINK_CLOSE,
        "\"",
        concat(&[mistral::TOOL_CALLS, "a", mistral::ARGS]),
        concat(&[mistral::TOOL_CALLS, "["]),
        concat(&[mistral::ARGS, "{"]),
        mistral::CALL_ID,
        concat(&[function::OPEN, "a>\n", qwen_xml::PARAMETER, "x>\n"]),
        qwen_xml::PARAMETER_CLOSE,
        deepseek::CALL_BEGIN,
        deepseek::SEP,
        deepseek::CALL_END,
        deepseek::DSML_CALLS,
        concat(&[deepseek::DSML_INVOKE, " name=\"a\">"]),
        concat(&[tool_call::OPEN, "a\n", glm::KEY]),
        glm::VALUE_CLOSE,
        concat(&[
            kimi::CALL_BEGIN,
            kimi::FUNCTIONS,
            "a:0",
            kimi::ARGUMENT_BEGIN,
        ]),
        kimi::CALL_END,
        concat(&[
            harmony::START,
            "assistant",
            harmony::CHANNEL,
            "commentary ",
            harmony::RECIPIENT,
            harmony::FUNCTIONS,
            "a ",
            harmony::CONSTRAIN,
            "json",
            harmony::MESSAGE,
        ]),
        harmony::MESSAGE,
        harmony::CALL,
        harmony::END,
        reasoning::HARMONY_ANALYSIS,
        concat(&[gemma::FUNCTION_GEMMA_OPEN, "call:a{"]),
        gemma::FUNCTION_GEMMA_QUOTE,
        concat(&[gemma::GEMMA_4_OPEN, "call:a{x:", gemma::GEMMA_4_QUOTE]),
        minimax::SECTION,
        concat(&[minimax::INVOKE, " name=\"a\">"]),
        concat(&[granite::TOOL_CALL, "["]),
        phi4::FUNCTOOLS,
        concat(&[pythonic::PYTHON_START, "[a("]),
        pythonic::TOOL_CALL_START,
        reasoning::GEMMA_THOUGHT,
        reasoning::GEMMA_THOUGHT_CLOSE,
        "; {\"name\": \"a\"}",
        "```json",
        "[a(x=1)]",
    ]
});

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
            0 => return Ok(g.pick(&*FRAGMENTS)?.to_owned()),
            1 => return g.any(),
            _ => {}
        }
    }
    Ok(g.pick(&*WORDS)?.to_owned())
}
