//! A recovered call, as `_make_tool_call` builds it.

use std::ops::Range;

use super::SalvageError;
use super::dialect::Dialect;
use crate::profile::{Profile, praisonai_depth};
use crate::py::json;
use crate::py::repr::str_of;
use crate::py::{PyStr, Value};

/// One tool call recovered from text.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The name as recovered: a string in every embedded dialect, any truthy JSON value on
    /// the whole-content path under `praisonai`.
    pub name: Value,
    /// The raw argument string the real package hands to dispatch: `json.dumps` of a dict
    /// or list, else `str()` of the value (`"None"`, `"True"`, `"5"`, `"nan"`, or a string
    /// verbatim).
    pub arguments: PyStr,
    /// The decoded arguments the string was made from.
    pub args: Value,
    /// Where the call was written: byte offsets into the content.
    pub span: Range<usize>,
    /// How it was written.
    pub dialect: Dialect,
}

impl Call {
    /// Builds a call as `_make_tool_call` does: `arguments` is derived from `args`. Under
    /// `praisonai`, arguments nested deeper than `json.dumps` can go there raise
    /// `RecursionError`, as in the real package.
    pub fn build(
        name: Value,
        args: Value,
        span: Range<usize>,
        dialect: Dialect,
        profile: Profile,
    ) -> Result<Call, SalvageError> {
        if profile == Profile::PraisonAi && args.depth() > praisonai_depth::CALL_ARGUMENTS_ENCODE {
            let message = "maximum recursion depth exceeded while encoding a JSON object";
            return Err(SalvageError::new("RecursionError", message));
        }
        Ok(Call {
            arguments: arguments_string(&args),
            name,
            args,
            span,
            dialect,
        })
    }

    /// The name as Rust text, when it is a string without lone surrogates.
    pub fn name_str(&self) -> Option<&str> {
        self.name.as_py_str()?.as_str()
    }
}

/// `json.dumps(args) if isinstance(args, (dict, list)) else str(args)`.
fn arguments_string(args: &Value) -> PyStr {
    match args {
        Value::List(_) | Value::Dict(_) => match json::dumps(args) {
            Ok(text) => PyStr::from(text),
            Err(_) => str_of(args),
        },
        other => str_of(other),
    }
}
