//! Op `salvage`: `adapter.recover_tool_calls_from_text(content, tools)`.

use crate::protocol::fields::Fields;
use crate::protocol::wire::one_key;
use toolfix::Adapter;
use toolfix::Profile;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::template::{self, Template};
use toolfix::salvage::{Allowlist, Call, Request, SalvageError, salvage_under};

/// Reads the input, salvages (as the input's template declares, else as `default` does,
/// else by the built-in dialects), and shapes `{"calls": …}` or `{"error": …}`.
pub fn run(input: &Value, profile: Profile, default: Option<&Template>) -> Result<Value, String> {
    let fields = Fields::of(input, "input")?.only(&["content", "tools", "adapter", "template"])?;
    let content = fields.py_str("content")?;
    let entries = tool_entries(fields.list("tools")?);
    let adapter: Adapter = fields.parse("adapter")?;
    let template = template_of(&fields, profile)?.or(default);
    Ok(
        match recover(content, &entries, adapter, (profile, template)) {
            Ok(calls) if calls.is_empty() => one_key("calls", Value::None),
            Ok(calls) => one_key("calls", Value::List(calls.iter().map(call_value).collect())),
            Err(e) => one_key("error", Value::str(&e.to_string())),
        },
    )
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

/// The shipped template the input names (`template`), read under `strict` and
/// `portable`; `praisonai` reproduces the real package, which reads no template, and
/// ignores it.
pub fn template_of(
    fields: &Fields<'_>,
    profile: Profile,
) -> Result<Option<&'static Template>, String> {
    let Some(name) = fields.get("template") else {
        return Ok(None);
    };
    let name = name
        .as_py_str()
        .and_then(PyStr::as_str)
        .ok_or("template must be a string")?;
    if profile == Profile::PraisonAi {
        return Ok(None);
    }
    Template::shipped(name).map(Some).ok_or_else(|| {
        let shipped = Template::SHIPPED.join(", ");
        format!("unknown template {name:?}: toolfix ships {shipped}")
    })
}

/// The real package's order of checks: the adapter gate, then empty content or tools,
/// then the allowlist (which can raise on malformed entries), then the salvage, as the
/// template declares when one is given.
pub fn recover(
    content: &PyStr,
    entries: &[Value],
    adapter: Adapter,
    (profile, template): (Profile, Option<&Template>),
) -> Result<Vec<Call>, SalvageError> {
    if !adapter.policy().salvages_text || content.is_empty() || entries.is_empty() {
        return Ok(Vec::new());
    }
    let tools = Allowlist::from_tool_entries_under(entries, profile)?;
    let request = Request::new(content, &tools).adapter(adapter);
    match template {
        Some(template) => Ok(template::salvage(&request, template)),
        None => salvage_under(&request, profile),
    }
}

/// `{"name": V, "arguments": S}`.
pub(super) fn call_value(call: &Call) -> Value {
    Value::dict([
        ("name", call.name().clone()),
        ("arguments", Value::Str(call.arguments_text().clone())),
    ])
}
