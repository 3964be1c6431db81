//! Op `execute`: one call through `_execute_tool_impl` against a registry built from the
//! protocol's tool specs.

use crate::protocol::fields::Fields;
use toolfix::Profile;
use toolfix::PyException;
use toolfix::dispatch::{Bound, Registry, Tool, execute};
use toolfix::py::str_format;
use toolfix::py::{Dict, PyStr, Value};
use toolfix::{Param, ParamKind};

/// Reads the input, dispatches, and shapes `{"dispatched", "returned", "repair_log"?}`.
pub fn run(input: &Value, profile: Profile) -> Result<Value, String> {
    let fields = Fields::of(input, "input")?.only(&["tools", "call", "deny"])?;
    let registry = registry(fields.list("tools")?, fields.opt_list("deny")?)?;
    let call = Fields::of(fields.value("call")?, "input.call")?.only(&["name", "arguments"])?;
    let name = call.value("name")?;
    let arguments = match call.get("arguments") {
        None => Dict::default(),
        Some(Value::Dict(arguments)) => arguments.clone(),
        Some(_) => return Err("input.call.arguments must be an object".to_owned()),
    };
    let dispatch = match execute(&registry, name, &arguments, profile) {
        Ok(dispatch) => dispatch,
        Err(raised) => return Ok(Value::dict([("error", Value::str(&raised.to_string()))])),
    };
    let mut output = vec![
        (
            "dispatched",
            dispatch
                .dispatched()
                .cloned()
                .map_or(Value::None, Value::Str),
        ),
        ("returned", dispatch.returned().clone()),
    ];
    if let Some(line) = dispatch.repair_log() {
        output.push(("repair_log", Value::str(&line)));
    }
    Ok(Value::dict(output))
}

/// The registry of the input's `tools` and `deny`.
fn registry(tools: &[Value], deny: &[Value]) -> Result<Registry, String> {
    let mut registry = Registry::new();
    for entry in tools {
        let fields = Fields::of(entry, "tool")?;
        match fields.get("mcp") {
            Some(_) => {
                let fields = fields.only(&["mcp", "tools"])?;
                let group = fields
                    .list("tools")?
                    .iter()
                    .map(tool)
                    .collect::<Result<_, _>>()?;
                registry.add_group(group);
            }
            None => {
                registry.add(tool(entry)?);
            }
        }
    }
    for name in deny {
        let name = name.as_py_str().ok_or("input.deny must list strings")?;
        registry.deny(name.clone());
    }
    Ok(registry)
}

/// One `TOOL` spec as a tool whose body behaves as the spec says.
pub(super) fn tool(spec: &Value) -> Result<Tool, String> {
    let fields = Fields::of(spec, "tool")?.only(&[
        "name",
        "params",
        "returns",
        "returns_template",
        "raise",
    ])?;
    let name = fields.py_str("name")?.clone();
    let params = fields
        .opt_list("params")?
        .iter()
        .map(param)
        .collect::<Result<Vec<_>, _>>()?;
    let body = Body::read(&fields, &name, &params)?;
    Tool::new(name, params, move |bound| body.run(bound))
        .map_err(|e| format!("tool signature: {e}"))
}

/// One `PARAM` spec.
fn param(spec: &Value) -> Result<Param, String> {
    let fields = Fields::of(spec, "param")?.only(&["name", "required", "default", "kind"])?;
    let kind = match fields.opt_py_str("kind")?.map(|k| k.to_string()).as_deref() {
        None | Some("positional_or_keyword") => ParamKind::PositionalOrKeyword,
        Some("positional_only") => ParamKind::PositionalOnly,
        Some("keyword_only") => ParamKind::KeywordOnly,
        Some("var_positional") => ParamKind::VarPositional,
        Some("var_keyword") => ParamKind::VarKeyword,
        Some(other) => return Err(format!("param.kind {other:?} is not a parameter kind")),
    };
    let variadic = matches!(kind, ParamKind::VarPositional | ParamKind::VarKeyword);
    let required = fields.opt_bool("required")?;
    let default = match (variadic, required, fields.get("default")) {
        (true, _, Some(_)) => {
            return Err("a *args or **kwargs param cannot have a default".to_owned());
        }
        (true, _, None) => None,
        (false, Some(true), Some(_)) => {
            return Err("a required param cannot have a default".to_owned());
        }
        (false, _, Some(value)) => Some(value.clone()),
        (false, Some(false), None) => Some(Value::None),
        (false, None | Some(true), None) => None,
    };
    Ok(Param {
        name: fields.py_str("name")?.clone(),
        kind,
        default,
    })
}

/// What a spec'd tool does once its arguments bind.
struct Body {
    name: PyStr,
    raise: Option<Raise>,
    template: Option<PyStr>,
    returns: Option<Value>,
}

/// `raise`: an exception, raised always or only when a bound argument is falsy.
struct Raise {
    exception: PyException,
    if_falsy: Option<PyStr>,
}

impl Body {
    fn read(fields: &Fields<'_>, name: &PyStr, params: &[Param]) -> Result<Body, String> {
        let raise = match fields.get("raise") {
            None | Some(Value::None) => None,
            Some(spec) => Some(Raise::read(spec, params)?),
        };
        Ok(Body {
            name: name.clone(),
            raise,
            template: fields.opt_py_str("returns_template")?.cloned(),
            returns: fields.get("returns").cloned(),
        })
    }

    fn run(&self, bound: &Bound) -> Result<Value, PyException> {
        if let Some(raise) = self.raise.as_ref().filter(|r| r.applies(bound)) {
            return Err(raise.exception.clone());
        }
        if let Some(template) = &self.template {
            return str_format(template, bound).map(Value::Str);
        }
        if let Some(value) = &self.returns {
            return Ok(value.clone());
        }
        let kwargs: Dict = bound.iter().cloned().collect();
        Ok(Value::dict([
            ("tool", Value::Str(self.name.clone())),
            ("kwargs", Value::Dict(kwargs)),
        ]))
    }
}

impl Raise {
    fn read(spec: &Value, params: &[Param]) -> Result<Raise, String> {
        let fields = Fields::of(spec, "tool.raise")?.only(&["type", "message", "if_falsy"])?;
        let type_name = fields.str("type")?;
        let message = fields.py_str("message")?.clone();
        let exception = PyException::named(type_name, message).ok_or_else(|| {
            format!("tool.raise.type {type_name:?} is not a supported exception type")
        })?;
        let if_falsy = fields.opt_py_str("if_falsy")?.cloned();
        if let Some(param) = &if_falsy {
            if !params.iter().any(|p| &p.name == param) {
                return Err(format!("tool.raise.if_falsy names no parameter: {param}"));
            }
        }
        Ok(Raise {
            exception,
            if_falsy,
        })
    }

    fn applies(&self, bound: &Bound) -> bool {
        match &self.if_falsy {
            None => true,
            Some(param) => bound
                .iter()
                .any(|(name, value)| name == param && !value.is_truthy()),
        }
    }
}
