//! Dispatch: deciding what runs for one call and what the model is told when it cannot.
//!
//! This is `_execute_tool_impl` of praisonaiagents 1.7.17 (sync path), step for step:
//!
//! 1. **deny**: the permission deny-set (`registry`), checked against the name as
//!    requested under `praisonai` (so `DeleteFile` runs a denied `delete_file`) and
//!    against the resolved tool under `strict`;
//! 2. **resolve** (`resolve`): exact name, else unique-match self-repair on a normalised
//!    key (`WebSearch` → `web_search`);
//! 3. **not found** (`corrective`): the corrective error with a difflib suggestion and the
//!    inventory;
//! 4. **bind** (`bind`): key sanitising, then CPython's binding of `tool(**kwargs)`;
//! 5. **run**: the tool's body; what it raises passes through as `str(e)`;
//! 6. **hint**: when the call failed and `inspect.signature(tool).bind(**kwargs)` fails
//!    too (the package's gate), the parameter hint is folded into the error. Under
//!    `praisonai` the gate follows the package exactly, including its corner where a body
//!    that ran gets a hint; under `strict` the gate decides binding, so a hint only ever
//!    means the body did not run, as the documentation promises.
//!
//! ```
//! use toolfix::dispatch::{execute, Registry, Tool};
//! use toolfix::{Dict, Param, Profile, PyStr, Value};
//!
//! let web_search = Tool::new("web_search", vec![Param::required("query")], |args| {
//!     let mut text = PyStr::from("results for ");
//!     text.push_py(&toolfix::py::str_of(&args[0].1));
//!     Ok(Value::Str(text))
//! }).unwrap();
//! let mut registry = Registry::new();
//! registry.add(web_search);
//!
//! let mut arguments = Dict::default();
//! arguments.insert(PyStr::from("query"), Value::str("hello"));
//! let result = execute(&registry, &Value::str("WebSearch"), &arguments, Profile::PraisonAi).unwrap();
//! assert_eq!(result.returned(), &Value::str("results for hello"));
//! assert_eq!(result.repair_log().as_deref(), Some("Self-repaired tool name 'WebSearch' -> 'web_search'"));
//!
//! let result = execute(&registry, &Value::str("web_search"), &Dict::default(), Profile::PraisonAi).unwrap();
//! assert_eq!(
//!     result.returned().get("error"),
//!     Some(&Value::str("web_search() missing 1 required positional argument: 'query' \
//!         Expected parameters for 'web_search' \u{2014} required: ['query'], optional: []."))
//! );
//! ```

mod asynchronous;
mod bind;
mod corrective;
mod format;
mod registry;
mod resolve;

pub use crate::py::{Param, ParamKind};
pub use asynchronous::execute_async;
pub use format::{ResultMessage, format_result};
pub use registry::{Bound, Registry, Tool};
pub use resolve::normalise;

use crate::profile::{Profile, praisonai_depth};
use crate::py::exception::PyException;
use crate::py::inspect::{self, SignatureError};
use crate::py::repr::{repr, str_of};
use crate::py::{Dict, PyStr, Value};
use resolve::Resolution;

/// What dispatching one call did.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    returned: Value,
    dispatched: Option<PyStr>,
    repaired: Option<(Value, PyStr)>,
    outcome: Outcome,
    /// The arguments the body ran with, when it ran.
    bound: Option<Vec<(PyStr, Value)>>,
    /// What the call raised: the body's exception, or the `TypeError` of a call that did
    /// not bind.
    raised: Option<PyException>,
}

/// The outcomes of dispatch, for a runtime that wants to branch on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// The body ran and returned.
    Ran,
    /// The body ran and raised: its error passes through.
    Raised,
    /// The arguments did not bind; the body never ran.
    BindFailed,
    /// No tool resolved: the corrective error.
    NotFound,
    /// The deny-set refused the call.
    Denied,
    /// The approval step failed before dispatch (`praisonai` only: an unhashable name, or
    /// arguments too deep for the approval cache to serialise).
    ApprovalFailed,
}

impl Outcome {
    /// The outcome's name in snake case, as reports and the serde form write it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Ran => "ran",
            Outcome::Raised => "raised",
            Outcome::BindFailed => "bind_failed",
            Outcome::NotFound => "not_found",
            Outcome::Denied => "denied",
            Outcome::ApprovalFailed => "approval_failed",
        }
    }
}

impl Dispatch {
    /// What dispatch returns to the loop: the tool's value; the corrective dict
    /// (`{"error", "available_tools"}`); the bind-failure dict (`{"error",
    /// "expected_parameters"}`); or `{"error": …}` for a runtime error or a refusal.
    pub fn returned(&self) -> &Value {
        &self.returned
    }

    /// The value dispatch returns, taken out.
    pub fn into_returned(self) -> Value {
        self.returned
    }

    /// The name of the tool whose body ran, if any ran.
    pub fn dispatched(&self) -> Option<&PyStr> {
        self.dispatched.as_ref()
    }

    /// The name as requested and the tool it was repaired to, when self-repair fired.
    pub fn repaired(&self) -> Option<(&Value, &PyStr)> {
        self.repaired
            .as_ref()
            .map(|(requested, tool)| (requested, tool))
    }

    /// Which of the outcomes this was.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// The arguments the body ran with (every parameter in definition order, defaults
    /// applied), when it ran.
    pub fn ran_with(&self) -> Option<&Bound> {
        self.bound.as_deref()
    }

    /// The exception the call raised: the body's own, or the `TypeError` of arguments
    /// that did not bind. Dispatch returns it folded into `{"error": …}`; a loop decides
    /// by its class whether to retry.
    pub fn raised(&self) -> Option<&PyException> {
        self.raised.as_ref()
    }

    /// The debug line the real package logs on a repair:
    /// `Self-repaired tool name 'WebSearch' -> 'web_search'` (both names as `repr`).
    pub fn repair_log(&self) -> Option<String> {
        let (requested, matched) = self.repaired.as_ref()?;
        let matched = repr(&Value::Str(matched.clone()));
        Some(format!(
            "Self-repaired tool name {} -> {}",
            repr(requested),
            matched
        ))
    }
}

/// Whether `name` names a tool of `registry`, exactly or through self-repair.
pub(crate) fn resolves(registry: &Registry, name: &Value) -> bool {
    !matches!(resolve::resolve(registry, name), Resolution::NotFound)
}

/// The registered name of the tool `name` resolves to, if any.
pub(crate) fn resolved_name<'r>(registry: &'r Registry, name: &Value) -> Option<&'r PyStr> {
    match resolve::resolve(registry, name) {
        Resolution::Exact(tool) | Resolution::Repaired(tool) => Some(tool.name()),
        Resolution::NotFound => None,
    }
}

/// Dispatches the call `name(**arguments)` against `registry`.
///
/// `Err` is an exception the real package lets escape from dispatch (`praisonai` only,
/// and only for a tool with a parameter named `""`, whose introspection raises
/// `IndexError` inside the package's error handler); `strict` never fails.
pub fn execute(
    registry: &Registry,
    name: &Value,
    arguments: &Dict,
    profile: Profile,
) -> Result<Dispatch, PyException> {
    let unrun = |returned, outcome| Ok(Dispatch::unrun(returned, outcome));
    if profile.runs_approval_step() {
        if let Some(returned) = approval_failure(name, arguments) {
            return unrun(returned, Outcome::ApprovalFailed);
        }
    }
    if let Some(requested) = name.as_py_str().filter(|n| registry.is_denied(n)) {
        return unrun(denied_error(requested), Outcome::Denied);
    }
    let (tool, repaired) = match resolve::resolve(registry, name) {
        Resolution::Exact(tool) => (tool, None),
        Resolution::Repaired(tool) => (tool, Some((name.clone(), tool.name().clone()))),
        Resolution::NotFound => {
            return unrun(
                corrective::not_found(name, registry.inventory().cloned().collect()),
                Outcome::NotFound,
            );
        }
    };
    if profile.checks_deny_list_after_repair() && registry.is_denied(tool.name()) {
        return unrun(denied_error(tool.name()), Outcome::Denied);
    }
    let dispatch = run(tool, name, arguments, profile)?;
    Ok(Dispatch {
        repaired,
        ..dispatch
    })
}

impl Dispatch {
    /// A dispatch in which no body ran.
    fn unrun(returned: Value, outcome: Outcome) -> Dispatch {
        Dispatch {
            returned,
            dispatched: None,
            repaired: None,
            outcome,
            bound: None,
            raised: None,
        }
    }
}

/// Binds and runs a resolved tool.
fn run(
    tool: &Tool,
    requested: &Value,
    arguments: &Dict,
    profile: Profile,
) -> Result<Dispatch, PyException> {
    let signature = tool.signature();
    let introspection = match profile.inspects_signatures() {
        true => inspect::check_signature(signature),
        false => Ok(()),
    };
    let inspectable = introspection.is_ok();
    let kwargs: Vec<(PyStr, Value)> = match inspectable && !arguments.is_empty() {
        true => bind::sanitize(signature, arguments).into_iter().collect(),
        false => arguments
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    let gate = inspectable.then(|| inspect::bind_kwargs(signature, &kwargs));
    let named = match profile.hints_requested_name() {
        true => str_of(requested),
        false => tool.name().clone(),
    };
    if let (true, Some(Err(error))) = (profile.binds_before_running(), &gate) {
        let returned = bind::bind_failure(error.clone(), &named, signature);
        return Ok(Dispatch {
            raised: Some(PyException::TypeError {
                message: error.clone(),
            }),
            ..Dispatch::unrun(returned, Outcome::BindFailed)
        });
    }
    let (exception, bound, outcome) = match signature.bind_kwargs(&kwargs) {
        Ok(bound) => match tool.call(&bound) {
            Ok(value) => return Ok(Dispatch::ran(value, tool, bound)),
            Err(exception) => (exception, Some(bound), Outcome::Raised),
        },
        Err(error) => (
            PyException::TypeError { message: error },
            None,
            Outcome::BindFailed,
        ),
    };
    let error = exception.str();
    let dispatched = bound.as_ref().map(|_| tool.name().clone());
    if let Err(SignatureError::IndexError) = introspection {
        return Err(PyException::IndexError {
            message: PyStr::from("string index out of range"),
        });
    }
    let returned = match gate {
        Some(Err(_)) => bind::bind_failure(error, &named, signature),
        _ => Value::dict([("error", Value::Str(error))]),
    };
    Ok(Dispatch {
        returned,
        dispatched,
        repaired: None,
        outcome,
        bound,
        raised: Some(exception),
    })
}

impl Dispatch {
    /// A dispatch in which `tool`'s body ran with `bound` and returned.
    fn ran(returned: Value, tool: &Tool, bound: Vec<(PyStr, Value)>) -> Dispatch {
        Dispatch {
            returned,
            dispatched: Some(tool.name().clone()),
            repaired: None,
            outcome: Outcome::Ran,
            bound: Some(bound),
            raised: None,
        }
    }
}

/// What the approval step (`_check_tool_approval_sync`) raises, caught into
/// `{"error": "Error during approval process: …", "approval_error": True}`: a list or
/// dict name cannot be hashed into its sets, and arguments nested deeper than CPython can
/// serialise there cannot be cached.
fn approval_failure(name: &Value, arguments: &Dict) -> Option<Value> {
    let reason = match name {
        Value::List(_) => "unhashable type: 'list'".to_owned(),
        Value::Dict(_) => "unhashable type: 'dict'".to_owned(),
        _ => {
            let depth = 1 + arguments.values().map(Value::depth).max().unwrap_or(0);
            if depth <= praisonai_depth::APPROVAL_ENCODE {
                return None;
            }
            "maximum recursion depth exceeded while encoding a JSON object".to_owned()
        }
    };
    let error = format!("Error during approval process: {reason}");
    Some(Value::dict([
        ("error", Value::str(&error)),
        ("approval_error", Value::Bool(true)),
    ]))
}

/// `{"error": "Tool 'X' blocked by permission policy", "permission_denied": True}`.
fn denied_error(name: &PyStr) -> Value {
    let mut error = PyStr::from("Tool '");
    error.push_py(name);
    error.push_str("' blocked by permission policy");
    Value::dict([
        ("error", Value::Str(error)),
        ("permission_denied", Value::Bool(true)),
    ])
}
