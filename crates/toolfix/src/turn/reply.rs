//! What the model answered: the reply a runtime hands to [`Turn::on_reply`](super::Turn::on_reply).

use crate::py::PyStr;

/// One answer of the model: its text and the calls it made in the native tool-call field.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The reply's text (`content`); `None` when the provider sent none.
    pub content: Option<PyStr>,
    /// The native tool calls, in order.
    pub tool_calls: Vec<NativeCall>,
}

/// A call made in the native tool-call field, as the provider delivered it.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeCall {
    /// The function name the model called.
    pub name: PyStr,
    /// The argument string, verbatim (it may be malformed JSON).
    pub arguments: PyStr,
}

impl Reply {
    /// A reply with text and no native calls.
    pub fn text(content: impl Into<PyStr>) -> Reply {
        Reply {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        }
    }

    /// The same reply with one more native call.
    pub fn with_call(mut self, name: impl Into<PyStr>, arguments: impl Into<PyStr>) -> Reply {
        self.tool_calls.push(NativeCall {
            name: name.into(),
            arguments: arguments.into(),
        });
        self
    }

    /// The text the loop reads: `content`, or `""` when there is none (the package's
    /// `content if content is not None else ""`).
    pub(crate) fn text_or_empty(&self) -> PyStr {
        self.content.clone().unwrap_or_default()
    }
}
