//! Tool-result messages: what the model reads after a call, per adapter.

use crate::adapter::{Adapter, ResultRole};
use crate::profile::{Profile, praisonai_depth};
use crate::py::exception::PyException;
use crate::py::json::dumps;
use crate::py::repr::{Printer, printing_error, str_of};
use crate::py::{PyStr, Value};

/// The message an adapter appends to the conversation for a tool result: what
/// [`format_result`] writes. Not a chat message of a turn ([`crate::turn::Message`]),
/// which may carry calls and reasoning; this one only answers a call.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultMessage {
    role: &'static str,
    content: PyStr,
    tool_call_id: Option<PyStr>,
}

impl ResultMessage {
    /// `"tool"` (the OpenAI shape) or `"user"` (Ollama's natural-language turn).
    pub fn role(&self) -> &'static str {
        self.role
    }

    /// The text the model reads.
    pub fn content(&self) -> &PyStr {
        &self.content
    }

    /// The call the result answers (role `tool` only).
    pub fn tool_call_id(&self) -> Option<&PyStr> {
        self.tool_call_id.as_ref()
    }
}

/// `adapter.format_tool_result_message(function_name, tool_result, tool_call_id)`.
///
/// Under `praisonai` a result CPython cannot print raises as it does there (`RecursionError`
/// past its recursion limit, `ValueError` for an `int` of more than 4300 digits); `strict`
/// prints any value.
pub fn format_result(
    adapter: Adapter,
    function_name: &PyStr,
    result: &Value,
    tool_call_id: Option<&PyStr>,
    profile: Profile,
) -> Result<ResultMessage, PyException> {
    if profile.raises_interpreter_errors() {
        check_printable(adapter, result)?;
    }
    Ok(match adapter.policy().result_role {
        ResultRole::Tool => ResultMessage {
            role: "tool",
            content: tool_content(result),
            tool_call_id: Some(tool_call_id.cloned().unwrap_or_else(|| {
                let mut id = PyStr::from("call_");
                id.push_py(function_name);
                id
            })),
        },
        ResultRole::User => ResultMessage {
            role: "user",
            content: ollama_content(function_name, result),
            tool_call_id: None,
        },
    })
}

/// What CPython raises printing `result` the way `adapter` prints it, if anything.
///
/// A role-`tool` result is `json.dumps`ed, and a `TypeError` or `ValueError` there (an
/// opaque object, a huge `int`, whichever comes first) falls back to `str()`; a
/// `RecursionError` escapes. Errors and Ollama results are printed with `str()`.
fn check_printable(adapter: Adapter, result: &Value) -> Result<(), PyException> {
    let by_repr = |value| printing_error(value, Printer::Repr, praisonai_depth::RESULT_REPR);
    let raised = match (adapter.policy().result_role, error_of(result)) {
        (ResultRole::Tool, None) => {
            match printing_error(result, Printer::JsonDumps, praisonai_depth::RESULT_ENCODE) {
                Some(e @ PyException::RecursionError { .. }) => Some(e),
                Some(_) => by_repr(result),
                None => None,
            }
        }
        (_, Some(error)) => by_repr(error),
        (ResultRole::User, None) => by_repr(result),
    };
    raised.map_or(Ok(()), Err)
}

/// The error a result carries: `r["error"]` for a dict with an `error` key, or for a
/// non-empty list whose first item is such a dict (the key's presence is what counts,
/// so `{"error": None}` is an error too).
fn error_of(result: &Value) -> Option<&Value> {
    let dict = match result {
        Value::Dict(dict) => dict,
        Value::List(items) => items.first()?.as_dict()?,
        _ => return None,
    };
    dict.get("error".as_bytes())
}

/// `DefaultAdapter`'s content: an empty-output notice, the apology instruction for an
/// error, else `json.dumps` (with `str()` when JSON cannot hold the value).
fn tool_content(result: &Value) -> PyStr {
    if let Value::None = result {
        return PyStr::from("Function returned an empty output");
    }
    if let Some(error) = error_of(result) {
        let mut content = PyStr::from("Error: ");
        content.push_py(&str_of(error));
        content.push_str(". Please inform the user that the operation could not be completed.");
        return content;
    }
    dumps(result)
        .map(PyStr::from)
        .unwrap_or_else(|_| str_of(result))
}

/// `OllamaAdapter`'s natural-language user turn; the line ending in "completed." keeps its
/// trailing space, and a non-error result is shown with `str()` (`None` included).
fn ollama_content(function_name: &PyStr, result: &Value) -> PyStr {
    let mut content = PyStr::new();
    match error_of(result) {
        Some(error) => {
            content.push_str("The tool \"");
            content.push_py(function_name);
            content.push_str("\" encountered an error:\n");
            content.push_py(&str_of(error));
            content.push_str(
                "\n\nPlease provide a helpful response to the user explaining that the operation could not be completed. \n\
                 Be apologetic and suggest alternatives if possible. Do NOT repeat the raw error message.\n\
                 Give a natural, conversational response.",
            );
        }
        None => {
            content.push_str("Tool execution complete.\nFunction: ");
            content.push_py(function_name);
            content.push_str("\nResult: ");
            content.push_py(&str_of(result));
            content.push_str("\n\nNow provide your final answer using this result. Summarize the information naturally for the user.");
        }
    }
    content
}
