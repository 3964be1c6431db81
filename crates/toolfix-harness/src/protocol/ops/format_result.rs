//! Op `format_result`: `adapter.format_tool_result_message(function_name, tool_result, tool_call_id)`.

use crate::protocol::fields::Fields;
use crate::protocol::wire::one_key;
use toolfix::Adapter;
use toolfix::Profile;
use toolfix::dispatch::format_result;
use toolfix::py::Value;

/// Reads the input and shapes `{"message": {"role", "content", "tool_call_id"?}}`.
pub fn run(input: &Value, profile: Profile) -> Result<Value, String> {
    let fields = Fields::of(input, "input")?.only(&[
        "adapter",
        "function_name",
        "tool_result",
        "tool_call_id",
    ])?;
    let adapter: Adapter = fields.parse("adapter")?;
    let function_name = fields.py_str("function_name")?;
    let result = fields.value("tool_result")?;
    let tool_call_id = fields.opt_py_str("tool_call_id")?;
    let message = match format_result(adapter, function_name, result, tool_call_id, profile) {
        Ok(message) => message,
        Err(raised) => return Ok(one_key("error", Value::str(&raised.to_string()))),
    };
    let id = message
        .tool_call_id()
        .map(|id| ("tool_call_id", Value::Str(id.clone())));
    let pairs = std::iter::once(("role", Value::str(message.role())))
        .chain(id)
        .chain([("content", Value::Str(message.content().clone()))]);
    Ok(one_key("message", Value::dict(pairs)))
}
