//! Running one call the way each loop does, around dispatch: the retry layers, the
//! trust fence, what the loop does to a result before the model reads it, and the
//! message that carries it.
//!
//! * `praisonai`, sync (`Agent.execute_tool`): an inner loop re-runs a call whose error
//!   text names a transient failure (`timeout`, `timed out`, `rate` with `limit`,
//!   `too many requests`, `connect`, `network`), an outer loop re-runs a body that raised
//!   anything but `ValueError`, `TypeError` or `AttributeError` (3 runs each at most);
//!   an error the tool *raised* (its body, or arguments that did not bind) then raises
//!   `ToolExecutionError`, which ends the turn. A result the model reads passes the
//!   trust fence keyed on the *requested* name, then the loop's JSON guard
//!   (`{"result": str(r)}` when `json.dumps` fails).
//! * `praisonai`, async (`Agent.execute_tool_async`): a body that raised a retryable
//!   class runs 3 times; every error comes back as a result; no trust fence.
//! * `strict`: one run, no retry; the trust fence keyed on the tool that ran (on what it
//!   returned, never on an error that passes through); the
//!   adapter formats the raw result (`str()` for what JSON cannot hold, as documented).

use super::Executed;
use super::Failure;
use crate::Profile;
use crate::adapter::{Adapter, ResultRole};
use crate::dispatch::{Dispatch, Outcome, Registry, execute, execute_async, format_result};
use crate::py::float_repr::float_repr;
use crate::py::json::dumps;
use crate::py::unicode::lower;
use crate::py::{Dict, PyStr, Value, str_of};

/// How often a retry layer runs a call at most.
const MAX_ATTEMPTS: usize = 3;

/// What running one call gave the loop.
#[derive(Clone, Debug, PartialEq)]
pub enum Ran {
    /// The value the loop formats for the model.
    Result(Value),
    /// `ToolExecutionError(message)`: the sync loop lets it end the turn.
    Raised(PyStr),
}

/// The three dispatch paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `praisonai`, `chat`.
    Sync,
    /// `praisonai`, `achat`.
    Async,
    /// `strict` and `portable`, both loops.
    Strict,
}

/// Runs `name(**arguments)` on `path`, recording every body that ran in `executed`.
pub fn run(
    path: Path,
    registry: &Registry,
    name: &Value,
    arguments: &Dict,
    executed: &mut Vec<Executed>,
) -> Result<Ran, Failure> {
    match path {
        Path::Sync => run_sync(registry, name, arguments, executed),
        Path::Async => Ok(Ran::Result(run_async(registry, name, arguments, executed))),
        Path::Strict => {
            let dispatch =
                execute(registry, name, arguments, Profile::Strict).map_err(Failure::Escaped)?;
            record(&dispatch, executed);
            let returned_by = match dispatch.outcome() {
                Outcome::Ran => dispatch.dispatched().cloned(),
                _ => None,
            };
            let returned = dispatch.into_returned();
            Ok(Ran::Result(match returned_by {
                Some(tool) => trust_fence(&tool, returned),
                None => returned,
            }))
        }
    }
}

/// One dispatch, recorded.
fn record(dispatch: &Dispatch, executed: &mut Vec<Executed>) {
    if let (Some(name), Some(bound)) = (dispatch.dispatched(), dispatch.ran_with()) {
        executed.push(Executed {
            name: name.clone(),
            kwargs: bound.to_vec(),
        });
    }
}

/// `_praison_retryable` of an implementation result: absent unless the call raised;
/// `False` for a bind failure (with its hint) and for `ValueError`, `TypeError` and
/// `AttributeError`.
fn retryable(dispatch: &Dispatch) -> Option<bool> {
    let raised = dispatch.raised()?;
    if dispatch.returned().get("expected_parameters").is_some() {
        return Some(false);
    }
    Some(
        !["ValueError", "TypeError", "AttributeError"]
            .iter()
            .any(|class| raised.is_instance(class)),
    )
}

/// The error text of a result that is a dict with a truthy `error`.
fn error_text(result: &Value) -> Option<PyStr> {
    let error = result.as_dict()?.get("error".as_bytes())?;
    error.is_truthy().then(|| str_of(error))
}

/// Whether a result is a refusal the retry layers hand back at once.
fn is_refusal(result: &Value) -> bool {
    ["permission_denied", "approval_denied", "approval_error"]
        .iter()
        .any(|flag| result.get(flag).is_some_and(Value::is_truthy))
}

/// `_classify_error_type` over an error text: whether it names a failure the retry policy
/// retries (`timeout`, `rate_limit`, `connection_error`).
fn is_transient(error: &PyStr) -> bool {
    let text = lower(error).to_string_lossy();
    text.contains("timeout")
        || text.contains("timed out")
        || (text.contains("rate") && text.contains("limit"))
        || text.contains("too many requests")
        || text.contains("connect")
        || text.contains("network")
}

/// The sync path: `_execute_tool_with_context`'s outer loop around
/// `_execute_tool_with_circuit_breaker`'s inner loop around `_execute_tool_impl`.
fn run_sync(
    registry: &Registry,
    name: &Value,
    arguments: &Dict,
    executed: &mut Vec<Executed>,
) -> Result<Ran, Failure> {
    for outer in 0..MAX_ATTEMPTS {
        let mut dispatch = None;
        for inner in 0..MAX_ATTEMPTS {
            let current =
                execute(registry, name, arguments, Profile::PraisonAi).map_err(Failure::Escaped)?;
            record(&current, executed);
            let again = match error_text(current.returned()) {
                Some(error) => {
                    !is_refusal(current.returned())
                        && is_transient(&error)
                        && inner + 1 < MAX_ATTEMPTS
                }
                None => false,
            };
            dispatch = Some(current);
            if !again {
                break;
            }
        }
        let Some(dispatch) = dispatch else {
            break;
        };
        let Some(error) = error_text(dispatch.returned()) else {
            return Ok(Ran::Result(requested_fence(name, dispatch.into_returned())));
        };
        if is_refusal(dispatch.returned()) {
            return Ok(Ran::Result(requested_fence(name, dispatch.into_returned())));
        }
        match retryable(&dispatch) {
            None => return Ok(Ran::Result(requested_fence(name, dispatch.into_returned()))),
            Some(retry) => {
                if retry && !is_transient(&error) && outer + 1 < MAX_ATTEMPTS {
                    continue;
                }
                return Ok(Ran::Raised(error));
            }
        }
    }
    Ok(Ran::Raised(PyStr::from("Maximum retry attempts exceeded")))
}

/// The async path: `_execute_tool_async_with_retry` around `_execute_tool_async_impl`.
fn run_async(
    registry: &Registry,
    name: &Value,
    arguments: &Dict,
    executed: &mut Vec<Executed>,
) -> Value {
    let mut last = Value::None;
    for attempt in 0..MAX_ATTEMPTS {
        let dispatch = execute_async(registry, name, arguments);
        record(&dispatch, executed);
        let retry = retryable(&dispatch);
        let Some(error) = error_text(dispatch.returned()) else {
            return dispatch.into_returned();
        };
        if is_refusal(dispatch.returned()) || retry == Some(false) {
            return dispatch.into_returned();
        }
        if !is_transient(&error) && retry != Some(true) {
            return dispatch.into_returned();
        }
        last = dispatch.into_returned();
        if attempt + 1 == MAX_ATTEMPTS {
            break;
        }
    }
    last
}

/// The trust fence of the sync path, keyed on the name as requested (so a drifted
/// `WebSearch` is not fenced: docs/deviations.md §22).
fn requested_fence(name: &Value, result: Value) -> Value {
    match name.as_py_str() {
        Some(name) => trust_fence(name, result),
        None => result,
    }
}

/// The tools whose results are external content (`tools/trust.py`).
const EXTERNAL_TOOLS: [&str; 14] = [
    "internet_search",
    "duckduckgo",
    "tavily_search",
    "exa_search",
    "searxng_search",
    "web_search",
    "scrape_page",
    "crawl4ai",
    "web_crawl",
    "spider_crawl",
    "fetch_url",
    "get_webpage_content",
    "fetch_external_content",
    "download_content",
];

/// `wrap_if_external(tool_name, result)`: an external tool's dict or list result becomes
/// compact JSON text, and text of 32 characters or more is wrapped in
/// `<external_tool_result>` markers (the markers inside it escaped).
pub fn trust_fence(tool: &PyStr, result: Value) -> Value {
    if !EXTERNAL_TOOLS.iter().any(|t| tool == *t) {
        return result;
    }
    let text = match &result {
        Value::Dict(_) | Value::List(_) => match compact_json(&result) {
            Some(text) => text,
            None => return result,
        },
        Value::Str(text) => text.clone(),
        _ => return result,
    };
    if text.char_len() < 32 {
        return Value::Str(text);
    }
    let escaped = text
        .to_string_lossy()
        .replace("<external_tool_result>", "&lt;external_tool_result&gt;")
        .replace("</external_tool_result>", "&lt;/external_tool_result&gt;");
    let mut wrapped = PyStr::from("<external_tool_result>\n");
    if text.as_str().is_some() {
        wrapped.push_str(&escaped);
    } else {
        wrapped.push_py(&text);
    }
    wrapped.push_str("\n</external_tool_result>");
    Value::Str(wrapped)
}

/// `json.dumps(v, ensure_ascii=False, separators=(',', ':'))`; `None` when it raises.
fn compact_json(value: &Value) -> Option<PyStr> {
    let mut out = PyStr::new();
    write_compact(&mut out, value, 0)?;
    Some(out)
}

fn write_compact(out: &mut PyStr, value: &Value, depth: usize) -> Option<()> {
    if depth > 900 {
        return None;
    }
    match value {
        Value::None => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(i.as_decimal()),
        Value::Float(x) if x.is_nan() => out.push_str("NaN"),
        Value::Float(x) if x.is_infinite() => {
            out.push_str(if *x > 0.0 { "Infinity" } else { "-Infinity" })
        }
        Value::Float(x) => out.push_str(&float_repr(*x)),
        Value::Str(s) => write_compact_str(out, s),
        Value::Opaque(_) => return None,
        Value::List(items) => {
            out.push_str("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",");
                }
                write_compact(out, item, depth + 1)?;
            }
            out.push_str("]");
        }
        Value::Dict(dict) => {
            out.push_str("{");
            for (i, (key, item)) in dict.iter().enumerate() {
                if i > 0 {
                    out.push_str(",");
                }
                write_compact_str(out, key);
                out.push_str(":");
                write_compact(out, item, depth + 1)?;
            }
            out.push_str("}");
        }
    }
    Some(())
}

fn write_compact_str(out: &mut PyStr, s: &PyStr) {
    out.push_str("\"");
    for cp in s.code_points() {
        match cp {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            c if c < 0x20 => out.push_str(&format!("\\u{c:04x}")),
            c => out.push(c),
        }
    }
    out.push_str("\"");
}

/// The sync loop's guard: a result `json.dumps` cannot serialise becomes
/// `{"result": str(result)}`.
pub fn json_guard(result: Value) -> Value {
    if matches!(result, Value::None) || dumps(&result).is_ok() {
        return result;
    }
    Value::dict([("result", Value::Str(str_of(&result)))])
}

/// The content of the message carrying `result` to the model: Ollama's user turn
/// (`Function: <name>`), or the adapter's role-`tool` message.
pub fn result_content(
    adapter: Adapter,
    function_name: &PyStr,
    result: &Value,
    id: &PyStr,
    profile: Profile,
) -> Result<(PyStr, Option<PyStr>), Failure> {
    let id = match adapter.policy().result_role {
        ResultRole::Tool => Some(id),
        ResultRole::User => None,
    };
    let message =
        format_result(adapter, function_name, result, id, profile).map_err(Failure::Escaped)?;
    Ok((message.content().clone(), message.tool_call_id().cloned()))
}
