//! The adapter policy table: what each provider adapter of praisonaiagents 1.7.17 does
//! with tool calls, as data a runtime can read.
//!
//! Source: `llm/adapters/__init__.py` (`get_default_settings`, `recover_tool_calls_from_text`,
//! `supports_streaming_with_tools`, `format_tool_result_message`) and `llm.py:785-788`
//! for the hosted defaults; docs/behaviour.md §2(f).

use std::fmt;
use std::str::FromStr;

/// A provider adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Adapter {
    /// `OllamaAdapter`: `ollama/…`, `ollama_chat/…`, or a base URL on `:11434`.
    Ollama,
    /// `LocalOpenAIAdapter`: LM Studio, vLLM, llama.cpp.
    Local,
    /// `DefaultAdapter`: hosted OpenAI-compatible endpoints.
    Default,
    /// `AnthropicAdapter`.
    Anthropic,
    /// `GeminiAdapter`.
    Gemini,
}

/// `force_tool_usage`: whether the loop nudges a model that answered without a tool call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceToolUsage {
    /// Nudge only Ollama, only on the first iteration.
    Auto,
    /// Never nudge.
    Never,
}

/// The role a tool result is delivered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultRole {
    /// `role: "tool"` with a `tool_call_id` (the OpenAI shape).
    Tool,
    /// `role: "user"` natural-language turn, no id (Ollama).
    User,
}

/// What an adapter does with tool calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdapterPolicy {
    /// Whether text salvage runs when the reply has no native tool calls.
    pub salvages_text: bool,
    /// Default `max_tool_repairs`: validation re-prompts before a call is dispatched as is.
    pub max_tool_repairs: u32,
    /// Default `force_tool_usage`.
    pub force_tool_usage: ForceToolUsage,
    /// Whether the adapter streams when tools are offered.
    pub streams_with_tools: bool,
    /// The role tool results are delivered in.
    pub result_role: ResultRole,
}

impl Adapter {
    /// Every adapter, in a stable order.
    pub const ALL: [Adapter; 5] = [
        Adapter::Ollama,
        Adapter::Local,
        Adapter::Default,
        Adapter::Anthropic,
        Adapter::Gemini,
    ];

    /// The adapter's registry name in praisonaiagents and in the protocol.
    pub fn name(self) -> &'static str {
        match self {
            Adapter::Ollama => "ollama",
            Adapter::Local => "local",
            Adapter::Default => "default",
            Adapter::Anthropic => "anthropic",
            Adapter::Gemini => "gemini",
        }
    }

    /// The adapter's policy. Hosted adapters never salvage: a hosted model's JSON prose
    /// must not be run as a call.
    pub fn policy(self) -> AdapterPolicy {
        let hosted = AdapterPolicy {
            salvages_text: false,
            max_tool_repairs: 0,
            force_tool_usage: ForceToolUsage::Never,
            streams_with_tools: true,
            result_role: ResultRole::Tool,
        };
        match self {
            Adapter::Ollama => AdapterPolicy {
                salvages_text: true,
                max_tool_repairs: 2,
                force_tool_usage: ForceToolUsage::Auto,
                streams_with_tools: false,
                result_role: ResultRole::User,
            },
            Adapter::Local => AdapterPolicy {
                salvages_text: true,
                max_tool_repairs: 2,
                ..hosted
            },
            Adapter::Default => hosted,
            Adapter::Anthropic | Adapter::Gemini => AdapterPolicy {
                streams_with_tools: false,
                ..hosted
            },
        }
    }
}

impl fmt::Display for Adapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Adapter {
    type Err = String;

    fn from_str(s: &str) -> Result<Adapter, String> {
        Adapter::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown adapter {s:?} (expected ollama, local, default, anthropic or gemini)"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_adapters_salvage() {
        let salvaging: Vec<_> = Adapter::ALL
            .into_iter()
            .filter(|a| a.policy().salvages_text)
            .collect();
        assert_eq!(salvaging, [Adapter::Ollama, Adapter::Local]);
    }

    #[test]
    fn repair_budgets_are_two_two_zero() {
        let budgets: Vec<_> = Adapter::ALL
            .into_iter()
            .map(|a| a.policy().max_tool_repairs)
            .collect();
        assert_eq!(budgets, [2, 2, 0, 0, 0]);
    }

    #[test]
    fn names_round_trip() {
        for a in Adapter::ALL {
            assert_eq!(a.name().parse::<Adapter>(), Ok(a));
        }
        assert!("claude".parse::<Adapter>().is_err());
    }
}
