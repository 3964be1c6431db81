//! The repair budget: before dispatching, the loop validates every call and, while
//! `max_tool_repairs` allows, answers invalid ones with a repair prompt instead of
//! running anything (`_tool_repair_message`, `_validate_tool_call`).
//!
//! Under `praisonai` a call is invalid when its name is not exactly an offered one (so a
//! drifted `WebSearch` costs the budget before self-repair is ever reached), when its
//! argument string is not JSON, or when a schema-required argument is missing. Under
//! `strict` a name self-repair resolves is valid (drift is fixed with no extra round
//! trip, as documented) and missing arguments are left to dispatch, whose parameter
//! hint reaches the model.

use super::Failure;
use super::args::decode_error_text;
use super::calls::FoundCall;
use super::schema::{ToolSchema, join};
use crate::Profile;
use crate::dispatch::Registry;
use crate::py::{PyStr, Value, str_of};

/// The validation error of one call, if any.
pub fn validate(
    call: &FoundCall,
    schemas: &[ToolSchema],
    registry: &Registry,
    profile: Profile,
) -> Result<Option<PyStr>, Failure> {
    let known = match (&call.name, profile.reprompts_for_drift()) {
        (Value::Str(name), true) => schemas.iter().any(|s| &s.name == name),
        (name, false) => crate::dispatch::resolves(registry, name),
        (_, true) => false,
    };
    if !known {
        let mut error = PyStr::from("Unknown tool '");
        error.push_py(&str_of(&call.name));
        error.push_str("'. Available: ");
        error.push_py(&join(schemas.iter().map(|s| s.name.clone()), ", "));
        return Ok(Some(error));
    }
    match decode_error_text(&call.arguments, profile) {
        Ok(Some(text)) => {
            let mut error = PyStr::from("Invalid arguments JSON: ");
            error.push_py(&text);
            return Ok(Some(error));
        }
        Ok(None) => {}
        Err(other) if profile.raises_interpreter_errors() => {
            let exception: crate::PyException = other.into();
            let mut error = PyStr::from("Validation error: ");
            error.push_py(&exception.str());
            return Ok(Some(error));
        }
        Err(_) => return Ok(Some(PyStr::from("Invalid arguments JSON: too deep"))),
    }
    if !profile.reprompts_for_drift() {
        return Ok(None);
    }
    let Some(schema) = schemas
        .iter()
        .find(|s| Value::Str(s.name.clone()) == call.name)
    else {
        return Ok(None);
    };
    let arguments = crate::py::json::loads(
        call.arguments.as_bytes(),
        profile.json_limits(crate::profile::JsonSite::Tag),
    )
    .map_err(|e| Failure::Escaped(e.into()))?;
    let mut missing = Vec::new();
    for required in &schema.required {
        match contains(&arguments, required) {
            Ok(true) => {}
            Ok(false) => missing.push(required.clone()),
            Err(type_name) => {
                return Ok(Some(PyStr::from(format!(
                    "Validation error: argument of type '{type_name}' is not iterable"
                ))));
            }
        }
    }
    if missing.is_empty() {
        return Ok(None);
    }
    let mut error = PyStr::from("Missing required arguments for '");
    error.push_py(&str_of(&call.name));
    error.push_str("': ");
    error.push_py(&join(missing, ", "));
    Ok(Some(error))
}

/// Python's `key in value`: a dict's keys, a list's items, a substring; other types raise
/// `TypeError` (their type name is returned).
fn contains(value: &Value, key: &PyStr) -> Result<bool, &'static str> {
    match value {
        Value::Dict(d) => Ok(d.contains_key(key)),
        Value::List(items) => Ok(items.iter().any(|i| i == &Value::Str(key.clone()))),
        Value::Str(s) => {
            Ok(key.is_empty() || memchr::memmem::find(s.as_bytes(), key.as_bytes()).is_some())
        }
        Value::None => Err("NoneType"),
        Value::Bool(_) => Err("bool"),
        Value::Int(_) => Err("int"),
        Value::Float(_) => Err("float"),
        Value::Opaque(_) => Err("object"),
    }
}
