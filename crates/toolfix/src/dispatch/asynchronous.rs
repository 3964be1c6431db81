//! The async dispatch of praisonaiagents 1.7.17: `_execute_tool_async_impl`.
//!
//! It shares the sync path's approval step, deny-set, lookup, self-repair and corrective
//! error, and departs from it after a tool resolves (docs/behaviour.md §2(i)): the
//! arguments are passed as the model sent them (no key sanitising), nothing is
//! introspected (no parameter hint), every failure of the call, a bind failure
//! included, comes back as `Error executing <name>: <e>`, and a `None` result becomes
//! `{"result": None}`, a result JSON cannot hold `{"result": str(result)}`.

use super::resolve::{self, Resolution};
use super::{Dispatch, Outcome, approval_failure, corrective, denied_error};
use crate::py::exception::PyException;
use crate::py::json::dumps;
use crate::py::repr::str_of;
use crate::py::{Dict, PyStr, Value};

use super::Registry;

/// Dispatches `name(**arguments)` as the async loop does (`execute_tool_async`'s
/// implementation, before its retry layer).
///
/// Only `praisonai` has an async dispatch of its own: `strict` keeps one dispatch for
/// both loops ([`execute`](super::execute)).
pub fn execute_async(registry: &Registry, name: &Value, arguments: &Dict) -> Dispatch {
    if let Some(returned) = approval_failure(name, arguments) {
        return Dispatch::unrun(returned, Outcome::ApprovalFailed);
    }
    if let Some(requested) = name.as_py_str().filter(|n| registry.is_denied(n)) {
        return Dispatch::unrun(denied_error(requested), Outcome::Denied);
    }
    let (tool, repaired) = match resolve::resolve(registry, name) {
        Resolution::Exact(tool) => (tool, None),
        Resolution::Repaired(tool) => (tool, Some((name.clone(), tool.name().clone()))),
        Resolution::NotFound => {
            let available = registry.inventory().cloned().collect();
            return Dispatch::unrun(corrective::not_found(name, available), Outcome::NotFound);
        }
    };
    let kwargs: Vec<(PyStr, Value)> = arguments
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let failed = |exception: PyException, bound, outcome| {
        let mut error = PyStr::from("Error executing ");
        error.push_py(&str_of(name));
        error.push_str(": ");
        error.push_py(&exception.str());
        Dispatch {
            returned: Value::dict([("error", Value::Str(error))]),
            dispatched: None,
            repaired: repaired.clone(),
            outcome,
            bound,
            raised: Some(exception),
        }
    };
    match tool.signature().bind_kwargs(&kwargs) {
        Err(message) => failed(
            PyException::TypeError { message },
            None,
            Outcome::BindFailed,
        ),
        Ok(bound) => match tool.call(&bound) {
            Err(exception) => Dispatch {
                dispatched: Some(tool.name().clone()),
                ..failed(exception, Some(bound), Outcome::Raised)
            },
            Ok(value) => Dispatch {
                returned: async_result(value),
                dispatched: Some(tool.name().clone()),
                repaired,
                outcome: Outcome::Ran,
                bound: Some(bound),
                raised: None,
            },
        },
    }
}

/// `{"result": None}` for `None`, `{"result": str(r)}` when `json.dumps` raises
/// `TypeError`, else the value itself.
fn async_result(value: Value) -> Value {
    match value {
        Value::None => Value::dict([("result", Value::None)]),
        value if dumps(&value).is_err() => Value::dict([("result", Value::Str(str_of(&value)))]),
        value => value,
    }
}
