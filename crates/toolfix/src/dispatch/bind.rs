//! Arguments: the sync path's key sanitising, binding, and the parameter hint.

use crate::py::signature::{ParamKind, Signature};
use crate::py::unicode::{lower, strip};
use crate::py::{Dict, PyStr, Value};

/// `_cast_arguments` as it affects untyped tools: each key is `strip()`ped, trailing `=`
/// removed and stripped again, then matched to a parameter exactly or case-insensitively
/// (full Unicode `lower()`). Colliding keys keep the last value at the first position.
/// Empty arguments pass through untouched.
///
/// When several parameters differ only by case, Python picks by `set` iteration order,
/// which varies per process; this picks the first in definition order.
pub fn sanitize(signature: &Signature, arguments: &Dict) -> Dict {
    let params: Vec<&PyStr> = signature
        .params
        .iter()
        .map(|p| &p.name)
        .filter(|n| *n != "self")
        .collect();
    let mut sanitized = Dict::default();
    for (raw, value) in arguments {
        let clean = clean_key(raw);
        let key = if params.contains(&&clean) {
            clean
        } else {
            let folded = lower(&clean);
            match params.iter().find(|p| lower(p) == folded) {
                Some(param) => (*param).clone(),
                None => clean,
            }
        };
        sanitized.insert(key, value.clone());
    }
    sanitized
}

/// `raw_name.strip().rstrip('=').strip()`.
fn clean_key(raw: &PyStr) -> PyStr {
    let stripped = strip(raw.as_bytes());
    let end = stripped
        .iter()
        .rposition(|&b| b != b'=')
        .map_or(0, |i| i + 1);
    PyStr::from_generalized_utf8(strip(&stripped[..end]))
}

/// `_tool_parameter_hint`: the parameters in definition order, required (no default) and
/// optional, skipping `self`, `*args` and `**kwargs`. `None` when both are empty, so a
/// zero-parameter tool never gets a hint.
pub fn parameter_hint(signature: &Signature) -> Option<(Vec<PyStr>, Vec<PyStr>)> {
    let (mut required, mut optional) = (Vec::new(), Vec::new());
    for param in &signature.params {
        if param.name == "self"
            || matches!(param.kind, ParamKind::VarPositional | ParamKind::VarKeyword)
        {
            continue;
        }
        match param.default {
            None => required.push(param.name.clone()),
            Some(_) => optional.push(param.name.clone()),
        }
    }
    (!required.is_empty() || !optional.is_empty()).then_some((required, optional))
}

/// The bind-failure result: the `TypeError` text, with the parameter hint folded in when
/// the tool has parameters to name:
/// `{"error": "<e> Expected parameters for '<tool>' — required: [...], optional: [...].",
///   "expected_parameters": {"required": [...], "optional": [...]}}`.
pub fn bind_failure(error: PyStr, named: &PyStr, signature: &Signature) -> Value {
    let Some((required, optional)) = parameter_hint(signature) else {
        return Value::dict([("error", Value::Str(error))]);
    };
    let (required, optional) = (Value::str_list(&required), Value::str_list(&optional));
    let mut message = error;
    message.push_str(" Expected parameters for '");
    message.push_py(named);
    message.push_str("' \u{2014} required: ");
    message.push_py(&crate::py::repr::repr(&required));
    message.push_str(", optional: ");
    message.push_py(&crate::py::repr::repr(&optional));
    message.push_str(".");
    Value::dict([
        ("error", Value::Str(message)),
        (
            "expected_parameters",
            Value::dict([("required", required), ("optional", optional)]),
        ),
    ])
}
