//! Op `salvage`: `adapter.recover_tool_calls_from_text(content, tools)`.

use crate::protocol::fields::Fields;
use crate::protocol::wire::one_key;
use toolfix::Adapter;
use toolfix::Profile;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::{Allowlist, Call, Request, SalvageError, salvage_under};

/// Reads the input, salvages, and shapes `{"calls": …}` or `{"error": …}`.
pub fn run(input: &Value, profile: Profile) -> Result<Value, String> {
    let fields = Fields::of(input, "input")?.only(&["content", "tools", "adapter"])?;
    let content = fields.py_str("content")?;
    let entries = tool_entries(fields.list("tools")?);
    let adapter: Adapter = fields.parse("adapter")?;
    Ok(match recover(content, &entries, adapter, profile) {
        Ok(calls) if calls.is_empty() => one_key("calls", Value::None),
        Ok(calls) => one_key("calls", Value::List(calls.iter().map(call_value).collect())),
        Err(e) => one_key("error", Value::str(&e.to_string())),
    })
}

/// The tool list as the adapter receives it: a name becomes an OpenAI tool entry, any
/// other value is passed verbatim, `{"$raw": V}` passes `V` verbatim.
pub fn tool_entries(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| match tool {
            Value::Str(name) => Value::dict([
                ("type", Value::str("function")),
                (
                    "function",
                    Value::dict([("name", Value::Str(name.clone()))]),
                ),
            ]),
            other => match other.get("$raw") {
                Some(raw) if other.as_dict().is_some_and(|d| d.len() == 1) => raw.clone(),
                _ => other.clone(),
            },
        })
        .collect()
}

/// The real package's order of checks: the adapter gate, then empty content or tools,
/// then the allowlist (which can raise on malformed entries), then the salvage.
fn recover(
    content: &PyStr,
    entries: &[Value],
    adapter: Adapter,
    profile: Profile,
) -> Result<Vec<Call>, SalvageError> {
    if !adapter.policy().salvages_text || content.is_empty() || entries.is_empty() {
        return Ok(Vec::new());
    }
    let tools = Allowlist::from_tool_entries_under(entries, profile)?;
    salvage_under(&Request::new(content, &tools).adapter(adapter), profile)
}

/// `{"name": V, "arguments": S}`.
pub(super) fn call_value(call: &Call) -> Value {
    Value::dict([
        ("name", call.name().clone()),
        ("arguments", Value::Str(call.arguments_text().clone())),
    ])
}
