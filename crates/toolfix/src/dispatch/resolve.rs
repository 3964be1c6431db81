//! Finding the tool a call names: exact lookup, then unique-match self-repair.

use super::registry::{Registry, Tool};
use crate::py::repr::str_of;
use crate::py::unicode::lower;
use crate::py::{PyStr, Value};

/// How a requested name resolved.
pub enum Resolution<'r> {
    /// A top-level tool has exactly this name (the first one, in registration order).
    Exact(&'r Tool),
    /// Exactly one tool normalises to the same key.
    Repaired(&'r Tool),
    /// No tool, or more than one, matches.
    NotFound,
}

/// Resolves `requested` against `registry`.
pub fn resolve<'r>(registry: &'r Registry, requested: &Value) -> Resolution<'r> {
    if let Some(tool) = requested.as_py_str().and_then(|name| registry.exact(name)) {
        return Resolution::Exact(tool);
    }
    repair(registry, requested).map_or(Resolution::NotFound, Resolution::Repaired)
}

/// `_self_repair_tool_name`: the one tool whose normalised name equals the requested
/// name's. Two tools with colliding keys, or the same name twice, are ambiguous: no repair.
fn repair<'r>(registry: &'r Registry, requested: &Value) -> Option<&'r Tool> {
    let mut matches = registry.with_key(&normalise(&str_of(requested)));
    match (matches.next(), matches.next()) {
        (Some(tool), None) => Some(tool),
        _ => None,
    }
}

/// `str(n).lower().replace('_', '').replace('-', '').replace(' ', '')`: full Unicode
/// lower-casing (`İ` becomes two code points), and only ASCII `_`, `-` and space removed.
pub fn normalise(name: &PyStr) -> PyStr {
    let lowered = lower(name);
    let mut key = PyStr::with_capacity(lowered.byte_len());
    for cp in lowered
        .code_points()
        .filter(|&cp| !matches!(cp, 0x5F | 0x2D | 0x20))
    {
        key.push(cp);
    }
    key
}
