//! The tools as the loop describes them to the model: `build_tool_definition` of each
//! offered tool, in the order the agent holds them.
//!
//! A tool's parameters become schema properties in definition order (`self`, `*args`
//! and `**kwargs` left out), each `{"type": "string"}` since the tools carry no
//! annotations, and the ones without a default are `required`. Validation checks calls
//! against these schemas, the repair prompt lists them, and salvage's allowlist is built
//! from them as the adapter receives them.

use crate::dispatch::{ParamKind, Registry};
use crate::py::{PyStr, Value};
use crate::salvage::Allowlist;

/// One tool's schema.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSchema {
    /// The function name.
    pub name: PyStr,
    /// The schema's properties, in definition order.
    pub properties: Vec<PyStr>,
    /// The properties without a default.
    pub required: Vec<PyStr>,
}

/// The schemas of the tools `registry` offers, in order.
pub fn schemas(registry: &Registry) -> Vec<ToolSchema> {
    registry
        .offered()
        .map(|tool| {
            let params = tool.signature().params().iter().filter(|p| {
                p.name != "self"
                    && !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
            });
            let (mut properties, mut required) = (Vec::new(), Vec::new());
            for param in params {
                properties.push(param.name.clone());
                if param.default.is_none() {
                    required.push(param.name.clone());
                }
            }
            ToolSchema {
                name: tool.name().clone(),
                properties,
                required,
            }
        })
        .collect()
}

/// `_get_tool_names_for_prompt`: `a, b`, or `None` when nothing is offered.
pub fn names_for_prompt(schemas: &[ToolSchema]) -> PyStr {
    if schemas.is_empty() {
        return PyStr::from("None");
    }
    join(schemas.iter().map(|s| s.name.clone()), ", ")
}

/// `_get_tool_schemas_for_prompt`: one `- name(p*: string, q: string)` line per tool.
pub fn schemas_for_prompt(schemas: &[ToolSchema]) -> PyStr {
    if schemas.is_empty() {
        return PyStr::from("None");
    }
    let lines = schemas.iter().map(|schema| {
        let mut line = PyStr::from("- ");
        line.push_py(&schema.name);
        line.push_str("(");
        let params = schema.properties.iter().map(|p| {
            let mut text = p.clone();
            if schema.required.contains(p) {
                text.push_str("*");
            }
            text.push_str(": string");
            text
        });
        line.push_py(&join(params, ", "));
        line.push_str(")");
        line
    });
    join(lines, "\n")
}

/// The salvage allowlist of the offered tools, built from their OpenAI tool entries as
/// the adapter receives them. The entries are built here and never malformed, so every
/// profile reads them alike.
pub fn allowlist(schemas: &[ToolSchema]) -> Allowlist {
    let entries: Vec<Value> = schemas.iter().map(tool_entry).collect();
    Allowlist::from_tool_entries(&entries)
}

/// `{"type": "function", "function": {"name", "description", "parameters"}}`.
fn tool_entry(schema: &ToolSchema) -> Value {
    let properties = Value::Dict(
        schema
            .properties
            .iter()
            .map(|p| (p.clone(), Value::dict([("type", Value::str("string"))])))
            .collect(),
    );
    let mut description = PyStr::from("Function ");
    description.push_py(&schema.name);
    Value::dict([
        ("type", Value::str("function")),
        (
            "function",
            Value::dict([
                ("name", Value::Str(schema.name.clone())),
                ("description", Value::Str(description)),
                (
                    "parameters",
                    Value::dict([
                        ("type", Value::str("object")),
                        ("properties", properties),
                        ("required", Value::str_list(&schema.required)),
                    ]),
                ),
            ]),
        ),
    ])
}

/// `sep.join(parts)`.
pub fn join(parts: impl IntoIterator<Item = PyStr>, sep: &str) -> PyStr {
    let mut out = PyStr::new();
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_py(&part);
    }
    out
}
