//! The messages a turn appends to the conversation, and why.

use crate::py::PyStr;

/// Who a message is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The model's own reply, echoed into the conversation before its calls are answered.
    Assistant,
    /// A user-role turn: Ollama's tool results, nudges and repair prompts.
    User,
    /// A tool result answering one call (`tool_call_id` set).
    Tool,
}

/// Why the turn appended a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Purpose {
    /// The model's reply, with the calls about to be answered.
    Echo,
    /// The result of a call that was dispatched: what the tool returned, the corrective
    /// error, the bind hint, a runtime error, a refusal.
    ToolResult,
    /// A call whose argument string could not be parsed: the tool was not run.
    ParseError,
    /// The calls failed validation and were dropped: the model is asked to call again.
    RepairPrompt,
    /// The model answered without a call and is told to use a tool (`force_tool_usage`,
    /// Ollama's empty-reply prompt).
    Nudge,
    /// Ollama, async loop: after tool results, the model is asked for its final answer.
    FinalAnswerPrompt,
    /// The loop reached its step limit: one last call, without tools, for a summary.
    WrapUp,
}

impl Purpose {
    /// Whether the message answers the model's calls (a result, a parse error or a
    /// repair prompt): what the protocol's `tool_messages` lists.
    pub fn answers_calls(self) -> bool {
        matches!(
            self,
            Purpose::ToolResult | Purpose::ParseError | Purpose::RepairPrompt
        )
    }
}

/// A call as the assistant message that carries it records it.
#[derive(Clone, Debug, PartialEq)]
pub struct EchoedCall {
    /// The call id (the provider's, the salvage's, or the older parser's `tool_N_M`).
    pub id: PyStr,
    /// The name as the model wrote it.
    pub name: PyStr,
    /// The argument string.
    pub arguments: PyStr,
}

/// One message the turn appended.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Who it is from.
    pub role: Role,
    /// Its text.
    pub content: PyStr,
    /// The call a role-`tool` message answers.
    pub tool_call_id: Option<PyStr>,
    /// The calls an assistant message carries (none for Ollama, which echoes text only).
    pub tool_calls: Vec<EchoedCall>,
    /// Why it was appended.
    pub purpose: Purpose,
}

impl Message {
    /// A message without call ids.
    pub(crate) fn new(role: Role, content: PyStr, purpose: Purpose) -> Message {
        Message {
            role,
            content,
            tool_call_id: None,
            tool_calls: Vec::new(),
            purpose,
        }
    }

    /// A user-role message.
    pub(crate) fn user(content: impl Into<PyStr>, purpose: Purpose) -> Message {
        Message::new(Role::User, content.into(), purpose)
    }
}
