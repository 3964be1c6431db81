//! `toolfix._native`: the Rust half of the Python package `toolfix` (maturin builds it;
//! `python/toolfix/` is the Python half).
//!
//! * [`recover_tool_calls_from_text`] and [`format_tool_result_message`] behave like the
//!   adapters of praisonaiagents 1.7.17 (profile `praisonai`, the default) or keep the
//!   documented guarantees (`strict`), so a PraisonAI user can patch the package's
//!   adapter with them and get linear time and the same answers;
//! * [`stream::StreamSalvager`] salvages a reply chunk by chunk as it streams;
//! * [`main`] runs the `toolfix` command line in-process: the package's `toolfix`
//!   script is this same program.

mod convert;
mod stream;

use std::ffi::OsString;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toolfix::salvage::template::{self, Template};
use toolfix::salvage::{Allowlist, Request, salvage_under};
use toolfix::{Adapter, Profile, PyException, Value, format_result};

use convert::{exact, lenient, py_str, to_py, to_py_str};

/// `adapter.recover_tool_calls_from_text(content, tools)`: the tool calls a local model
/// wrote as text, or `None`.
///
/// Each call is `{"id", "type": "function", "function": {"name", "arguments"}}`, with the
/// real package's id, `call_{name}_{index}_{hash(content) % 10000}` (Python's `hash`, so
/// ids repeat under one `PYTHONHASHSEED`). Under `praisonai` the exceptions the package
/// lets escape are raised here too: `ValueError` for an integer of more than 4300 digits,
/// `RecursionError` for payloads nested past CPython's limit (as if called from a
/// module-level frame), `AttributeError`/`TypeError` for a malformed tool list. `strict`
/// never raises for model output.
///
/// `dialect` reads the reply as a response template declares instead (docs/dialects/
/// README.md, "Your own format"): the name of a template toolfix ships, or a template's
/// JSON text (a `ValueError` names the line of a mistake in it); not under `praisonai`.
#[pyfunction]
#[pyo3(signature = (content, tools, adapter = "ollama", profile = "praisonai", dialect = None))]
fn recover_tool_calls_from_text<'py>(
    py: Python<'py>,
    content: &Bound<'py, PyAny>,
    tools: &Bound<'py, PyAny>,
    adapter: &str,
    profile: &str,
    dialect: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let (adapter, profile) = (parse_adapter(adapter)?, parse_profile(profile)?);
    let template = dialect.map(|d| parse_template(d, profile)).transpose()?;
    let salvages = adapter.policy().salvages_text;
    if !salvages || !content.is_truthy()? || !tools.is_truthy()? {
        return Ok(py.None().into_bound(py));
    }
    if !content.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("content must be a str"));
    }
    let text = py_str(content)?;
    let entries = match lenient(tools)? {
        Value::List(entries) => entries,
        _ => return Err(PyTypeError::new_err("tools must be a list")),
    };
    let allowlist = Allowlist::from_tool_entries_under(&entries, profile).map_err(raise)?;
    let request = Request::new(&text, &allowlist).adapter(adapter);
    let calls = py
        .detach(|| match &template {
            Some(template) => Ok(template::salvage(&request, template)),
            None => salvage_under(&request, profile),
        })
        .map_err(raise)?;
    if calls.is_empty() {
        return Ok(py.None().into_bound(py));
    }
    let hash = i64::try_from(content.hash()?).unwrap_or_default();
    let out = PyList::empty(py);
    for call in &calls {
        let function = PyDict::new(py);
        function.set_item("name", to_py(py, call.name())?)?;
        function.set_item("arguments", to_py_str(py, call.arguments_text())?)?;
        let entry = PyDict::new(py);
        entry.set_item("id", to_py_str(py, &call.praisonai_id(hash))?)?;
        entry.set_item("type", "function")?;
        entry.set_item("function", function)?;
        out.append(entry)?;
    }
    Ok(out.into_any())
}

/// The template `dialect` names: a shipped one, or one written as JSON text.
fn parse_template(dialect: &str, profile: Profile) -> PyResult<Template> {
    if profile == Profile::PraisonAi {
        let message = "dialect: profile praisonai reads only what praisonaiagents 1.7.17 reads";
        return Err(PyValueError::new_err(message));
    }
    match Template::shipped(dialect) {
        Some(template) => Ok(template.clone()),
        None => {
            Template::from_json(dialect).map_err(|e| PyValueError::new_err(format!("dialect: {e}")))
        }
    }
}

/// `adapter.format_tool_result_message(function_name, tool_result, tool_call_id)`, for a
/// result made only of exact built-in JSON types (`None`, `bool`, `int`, `float`, `str`,
/// `list`, `dict` with `str` keys); `None` for any other result, which the Python half
/// prints with Python's own `json.dumps` and `str`.
#[pyfunction]
#[pyo3(signature = (function_name, tool_result, tool_call_id = None, adapter = "ollama", profile = "praisonai"))]
fn format_exact<'py>(
    py: Python<'py>,
    function_name: &Bound<'py, PyAny>,
    tool_result: &Bound<'py, PyAny>,
    tool_call_id: Option<&Bound<'py, PyAny>>,
    adapter: &str,
    profile: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let (adapter, profile) = (parse_adapter(adapter)?, parse_profile(profile)?);
    let id = match tool_call_id.filter(|id| !id.is_none()) {
        Some(id) if id.is_exact_instance_of::<PyString>() => Some(py_str(id)?),
        Some(_) => return Ok(py.None().into_bound(py)),
        None => None,
    };
    let (Some(result), true) = (
        exact(tool_result)?,
        function_name.is_exact_instance_of::<PyString>(),
    ) else {
        return Ok(py.None().into_bound(py));
    };
    let name = py_str(function_name)?;
    let message = py
        .detach(|| format_result(adapter, &name, &result, id.as_ref(), profile))
        .map_err(raise)?;
    let out = PyDict::new(py);
    out.set_item("role", message.role())?;
    if let Some(id) = message.tool_call_id() {
        out.set_item("tool_call_id", to_py_str(py, id)?)?;
    }
    out.set_item("content", to_py_str(py, message.content())?)?;
    Ok(out.into_any())
}

/// Runs the `toolfix` command line (`argv[0]` is the program name) and returns its exit
/// status. The interpreter's lock is released while it runs.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    let args: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
    py.detach(|| toolfix_cli::run_status(args)).code()
}

fn parse_adapter(name: &str) -> PyResult<Adapter> {
    name.parse().map_err(PyValueError::new_err)
}

fn parse_profile(name: &str) -> PyResult<Profile> {
    name.parse().map_err(PyValueError::new_err)
}

/// The Python exception the core's exception stands for: the builtin class of that
/// name, raised with the same message. A salvage error raises the exception it carries.
fn raise(exception: impl Into<PyException>) -> PyErr {
    let exception = exception.into();
    Python::attach(|py| {
        let raised = (|| {
            let class = py.import("builtins")?.getattr(class_name(&exception))?;
            let message = to_py_str(py, exception.message())?;
            Ok::<_, PyErr>(PyErr::from_value(class.call1((message,))?))
        })();
        raised.unwrap_or_else(|error| error)
    })
}

/// The builtin class to raise: `json.JSONDecodeError` has no single-argument form, so
/// it is raised as the `ValueError` it subclasses.
fn class_name(exception: &PyException) -> &'static str {
    match exception {
        PyException::JSONDecodeError { .. } => "ValueError",
        other => other.class_name(),
    }
}

/// The module.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(recover_tool_calls_from_text, module)?)?;
    module.add_function(wrap_pyfunction!(format_exact, module)?)?;
    module.add_function(wrap_pyfunction!(main, module)?)?;
    module.add_class::<stream::StreamSalvager>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
