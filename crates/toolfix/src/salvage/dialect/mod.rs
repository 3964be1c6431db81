//! The dialects: one module per way a model writes a call as text.
//!
//! Each embedded dialect scans the fence-masked text and proposes candidates, accepted or
//! rejected-but-reserved; `span::select` then orders them and applies the starts-inside
//! rule. The whole-content path runs before all of them, on the unmasked text.

mod bracket;
mod closed_tag;
mod function;
mod python_tag;
mod react;
mod tool_call;
pub mod whole_json;

use std::fmt;
use std::str::FromStr;

use super::SalvageError;
use super::payload::Payloads;
use super::span::Candidate;

/// How a call was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// The whole content is a JSON object or array of `{"name", "arguments"}`.
    WholeJson,
    /// `<tool_call>{…}</tool_call>` (Hermes, Qwen).
    ToolCall,
    /// `<function=NAME>{…}</function>` (Functionary, Llama 3.1 custom tools).
    Function,
    /// `[TOOL_CALL]{…}[/TOOL_CALL]` and LM Studio's `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]`.
    Bracket,
    /// Llama 3.x `<|python_tag|>{…}`.
    PythonTag,
    /// ReAct `Action: NAME` / `Action Input: {…}`.
    React,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 6] = [
        Dialect::WholeJson,
        Dialect::ToolCall,
        Dialect::Function,
        Dialect::Bracket,
        Dialect::PythonTag,
        Dialect::React,
    ];

    /// The dialect's name in case files and in the protocol.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::WholeJson => "whole_json",
            Dialect::ToolCall => "tool_call",
            Dialect::Function => "function",
            Dialect::Bracket => "bracket",
            Dialect::PythonTag => "python_tag",
            Dialect::React => "react",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Dialect, String> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| format!("unknown dialect {s:?}"))
    }
}

/// Every embedded dialect's candidates over the masked text, unordered.
pub(super) fn scan_embedded(payloads: &Payloads<'_>) -> Result<Vec<Candidate>, SalvageError> {
    let mut candidates = Vec::new();
    tool_call::scan(payloads, &mut candidates)?;
    bracket::scan(payloads, &mut candidates)?;
    python_tag::scan(payloads, &mut candidates)?;
    function::scan(payloads, &mut candidates)?;
    react::scan(payloads, &mut candidates)?;
    Ok(candidates)
}
