//! The corrective error: what the model reads when the name it called does not resolve.

use crate::py::difflib::get_close_matches;
use crate::py::repr::{repr, str_of};
use crate::py::{PyStr, Value};

/// `{"error": "Tool 'X' not found. Did you mean 'Y'? Available tools: [...]",
/// "available_tools": [...]}`.
///
/// The suggestion is `difflib.get_close_matches(name, available, n=1, cutoff=0.5)`; a name
/// that is not a string makes difflib raise inside a `try`, so it gets no suggestion. The
/// name is printed with `str()`, the inventory as a Python list `repr`.
pub fn not_found(requested: &Value, available: Vec<PyStr>) -> Value {
    let mut error = PyStr::from("Tool '");
    error.push_py(&str_of(requested));
    error.push_str("' not found.");
    if let Some(near) = suggestion(requested, &available) {
        error.push_str(" Did you mean '");
        error.push_py(near);
        error.push_str("'?");
    }
    let listed = Value::List(available.into_iter().map(Value::Str).collect());
    error.push_str(" Available tools: ");
    error.push_py(&repr(&listed));
    Value::dict([("error", Value::Str(error)), ("available_tools", listed)])
}

/// The nearest available name, if one scores at least 0.5.
pub fn suggestion<'a>(requested: &Value, available: &'a [PyStr]) -> Option<&'a PyStr> {
    let word = requested.as_py_str()?;
    get_close_matches(word, available, 1, 0.5)
        .into_iter()
        .next()
}
