//! Dispatch inputs: a registry of tools (with groups and a deny-set), a requested name
//! and its arguments, built so that names collide, drift and go missing.

use arbitrary::{Arbitrary, Result, Unstructured};

use super::choice::{Gen, Mode};
use super::json::Json;
use toolfix::PyException;
use toolfix::dispatch::{Registry, Tool};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::{Param, ParamKind};

/// Tool names, in families that normalise alike (`web_search`, `WebSearch`, `web-search`,
/// `Web Search`), with full-Unicode lowercasing (`İ` lowers to two code points), and the
/// empty name (no display name).
const TOOL_NAMES: [&str; 16] = [
    "web_search",
    "WebSearch",
    "web-search",
    "Web Search",
    "get_weather",
    "getWeather",
    "calc",
    "İstanbul",
    "i\u{307}stanbul",
    "",
    "a",
    "A",
    "_",
    "search_web",
    "send_email",
    "ǅ",
];

/// Names a model requests that no tool has, or has only after repair.
const REQUESTED: [&str; 9] = [
    "totally_made_up_tool",
    "web_searh",
    "WEB_SEARCH",
    " web_search ",
    "web__search",
    "websearch",
    "İSTANBUL",
    "getweather",
    "delete_file",
];

/// Parameter names: case variants, `self`, names that are not identifiers.
const PARAM_NAMES: [&str; 10] = [
    "query", "Query", "city", "self", "q", "", "limit", "x y", "İd", "units",
];

/// Argument keys: parameter names as models misspell them.
const ARG_KEYS: [&str; 8] = [
    "query", " query ", "query=", "Query =", "QUERY", "unknown", "", "city",
];

/// Exceptions a body raises.
const RAISES: [(&str, &str); 3] = [
    ("ValueError", "bad value"),
    ("TypeError", "unsupported operand"),
    ("KeyError", "'city'"),
];

/// One dispatch: a registry, a deny-set, and a call.
#[derive(Debug)]
pub struct DispatchInput {
    pub registry: Registry,
    /// The names of every tool, groups included, as registered.
    pub tool_names: Vec<PyStr>,
    pub name: Value,
    pub arguments: Dict,
}

impl<'a> Arbitrary<'a> for DispatchInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<DispatchInput> {
        let g = &mut Gen::new(u, Mode::Hostile);
        let mut input = DispatchInput {
            registry: Registry::new(),
            tool_names: Vec::new(),
            name: requested_name(g)?,
            arguments: Dict::default(),
        };
        for _ in 0..g.upto(6)? {
            if let Some(tool) = tool(g)? {
                input.tool_names.push(tool.name().clone());
                input.registry.add(tool);
            }
        }
        if g.chance(1, 3)? {
            let group = (0..1 + g.upto(3)?)
                .map(|_| tool(g))
                .collect::<Result<Vec<_>>>()?;
            let group: Vec<Tool> = group.into_iter().flatten().collect();
            input
                .tool_names
                .extend(group.iter().map(|t| t.name().clone()));
            input.registry.add_group(group);
        }
        for _ in 0..g.upto(2)? {
            input.registry.deny(g.pick(&TOOL_NAMES)?);
        }
        for _ in 0..g.upto(4)? {
            let value = g.nested(Json::generate)?.to_value().unwrap_or(Value::None);
            input
                .arguments
                .insert(PyStr::from(g.pick(&ARG_KEYS)?), value);
        }
        if g.chance(1, 16)? {
            let depth = g.pick(&[989, 990, 991])?;
            input
                .arguments
                .insert(PyStr::from("deep"), nested_list(depth));
        }
        Ok(input)
    }
}

/// A requested name: a tool's name, a drifted or invented one, or not a string at all.
fn requested_name(g: &mut Gen<'_, '_>) -> Result<Value> {
    Ok(match g.below(5)? {
        0 | 1 => Value::str(g.pick(&TOOL_NAMES)?),
        2 | 3 => Value::str(g.pick(&REQUESTED)?),
        _ => g.nested(Json::generate)?.to_value().unwrap_or(Value::None),
    })
}

/// A tool with up to four parameters, or `None` when they form no valid signature.
fn tool(g: &mut Gen<'_, '_>) -> Result<Option<Tool>> {
    let name = g.pick(&TOOL_NAMES)?;
    let params = (0..g.upto(4)?)
        .map(|_| param(g))
        .collect::<Result<Vec<_>>>()?;
    let raise = match g.chance(1, 3)? {
        true => Some(g.pick(&RAISES)?),
        false => None,
    };
    let body = move |bound: &[(PyStr, Value)]| match raise {
        Some((type_name, message)) => {
            Err(PyException::named(type_name, message).expect("the exception types are known"))
        }
        None => Ok(Value::Dict(bound.iter().cloned().collect())),
    };
    Ok(Tool::new(name, params, body).ok())
}

/// A parameter of any kind, with or without a default.
fn param(g: &mut Gen<'_, '_>) -> Result<Param> {
    let kind = g.pick(&[
        ParamKind::PositionalOnly,
        ParamKind::PositionalOrKeyword,
        ParamKind::PositionalOrKeyword,
        ParamKind::VarPositional,
        ParamKind::KeywordOnly,
        ParamKind::VarKeyword,
    ])?;
    let default = match g.chance(1, 3)? {
        true => Some(Value::int(g.any::<i8>()?.into())),
        false => None,
    };
    Ok(Param {
        name: PyStr::from(g.pick(&PARAM_NAMES)?),
        kind,
        default,
    })
}

/// `[[[…]]]`, `depth` lists deep: past the approval step's recursion limit from 991.
fn nested_list(depth: usize) -> Value {
    (0..depth).fold(Value::None, |inner, _| Value::List(vec![inner]))
}
