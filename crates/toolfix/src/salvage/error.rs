//! Why salvage failed: the Python exception the real package lets escape from it.

use std::fmt;

use crate::py::PyException;
use crate::py::json::DecodeError;

/// An exception the real package lets escape from salvage, reproduced as an error
/// outcome under `praisonai` only: `ValueError` for an integer of more than 4300 digits,
/// `RecursionError` for deep nesting, `AttributeError` or `TypeError` for a malformed
/// tool list. `strict` never fails, so [`salvage`](super::salvage()) and
/// [`Stream`](super::Stream) have no error; [`salvage_under`](super::salvage_under) and
/// [`StreamUnder`](super::StreamUnder) do.
///
/// A type of its own rather than the [`PyException`] it carries, so a signature says
/// which step failed; [`SalvageError::exception`] gives the exception to match on or to
/// raise in Python.
///
/// ```
/// use toolfix::salvage::{salvage_under, Allowlist, Request};
/// use toolfix::{Profile, PyException};
///
/// let big = "7".repeat(5000);
/// let reply = format!(r#"<tool_call>{{"name": "f", "arguments": {{"n": {big}}}}}</tool_call>"#);
/// let tools = Allowlist::new(["f"]);
/// let error = salvage_under(&Request::new(reply.as_str(), &tools), Profile::PraisonAi)
///     .unwrap_err();
/// assert!(matches!(error.exception(), PyException::ValueError { .. }));
/// assert!(error.to_string().starts_with("ValueError: Exceeds the limit (4300 digits)"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SalvageError(PyException);

impl SalvageError {
    /// The exception CPython raises there, with its class and message.
    pub fn exception(&self) -> &PyException {
        &self.0
    }

    /// The exception, for a caller that raises it on (a Python binding, a turn).
    pub fn into_exception(self) -> PyException {
        self.0
    }
}

impl From<PyException> for SalvageError {
    /// What the steps under salvage raise escapes from salvage as it is.
    fn from(exception: PyException) -> SalvageError {
        SalvageError(exception)
    }
}

impl From<DecodeError> for SalvageError {
    /// A payload's decode error escapes as the exception `json.loads` raises.
    fn from(error: DecodeError) -> SalvageError {
        SalvageError(error.into())
    }
}

impl From<SalvageError> for PyException {
    fn from(error: SalvageError) -> PyException {
        error.0
    }
}

impl fmt::Display for SalvageError {
    /// The exception as a traceback's last line prints it: `RecursionError: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SalvageError {}
