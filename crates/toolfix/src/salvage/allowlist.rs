//! The advertised-name allowlist: the tool names the model was actually offered.

use std::collections::{HashMap, HashSet};

use super::SalvageError;
use super::name_hash::BuildNameHasher;
use super::schema::ParamTypes;
use crate::profile::Profile;
use crate::py::{PyException, PyStr, Value};

/// Up to how many offered names a lookup compares them one by one.
const FEW_NAMES: usize = 4;

/// The offered names, each once: a handful in a list, compared one by one (cheaper, once
/// per recovered call, than hashing the name and probing, or than walking a set's
/// groups), more in a set.
#[derive(Clone, Debug)]
enum Names {
    Few(Vec<PyStr>),
    Many(HashSet<PyStr, BuildNameHasher>),
}

impl Default for Names {
    fn default() -> Names {
        Names::Few(Vec::new())
    }
}

impl Names {
    /// Adds `name` unless it is there already.
    fn insert(&mut self, name: PyStr) {
        match self {
            Names::Few(list) if list.contains(&name) => {}
            Names::Few(list) if list.len() < FEW_NAMES => list.push(name),
            Names::Few(list) => {
                let mut set: HashSet<PyStr, BuildNameHasher> = list.drain(..).collect();
                set.insert(name);
                *self = Names::Many(set);
            }
            Names::Many(set) => {
                set.insert(name);
            }
        }
    }

    /// Whether the name whose generalized UTF-8 is `name` is there.
    fn contains(&self, name: &[u8]) -> bool {
        match self {
            Names::Few(list) => list.iter().any(|n| n.as_bytes() == name),
            Names::Many(set) => set.contains(name),
        }
    }

    /// Whether there is none.
    fn is_empty(&self) -> bool {
        match self {
            Names::Few(list) => list.is_empty(),
            Names::Many(set) => set.is_empty(),
        }
    }
}

/// `_advertised_tool_names(tools)`: the names a recovered call may use.
///
/// Empty names are dropped, as Python drops falsy ones. A tool list can also hold entries
/// whose name is not a string (a malformed tool dict); such an entry makes the set
/// non-empty, so salvage runs, but no call can ever match it.
#[derive(Clone, Debug, Default)]
pub struct Allowlist {
    names: Names,
    has_unmatchable: bool,
    /// The parameter types each tool's JSON schema declares, for the formats that write
    /// arguments as text (`schema`).
    types: HashMap<PyStr, ParamTypes, BuildNameHasher>,
}

impl Allowlist {
    /// The allowlist of the given names.
    pub fn new<I, S>(names: I) -> Allowlist
    where
        I: IntoIterator<Item = S>,
        S: Into<PyStr>,
    {
        let mut allowlist = Allowlist::default();
        for name in names.into_iter().map(Into::into) {
            if !name.is_empty() {
                allowlist.names.insert(name);
            }
        }
        allowlist
    }

    /// Records an offered entry whose name no call can match (a non-string name).
    pub fn add_unmatchable(&mut self) {
        self.has_unmatchable = true;
    }

    /// Whether a recovered `name` was offered (exact, case-sensitive, no normalisation).
    pub fn contains(&self, name: &PyStr) -> bool {
        self.names.contains(name.as_bytes())
    }

    /// Whether nothing was offered, in which case salvage returns nothing.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && !self.has_unmatchable
    }

    /// Records the JSON schema of `name`'s parameters (an OpenAI tool entry's
    /// `function.parameters`): the formats that write arguments as text (Qwen3 XML,
    /// MiniMax, GLM, DeepSeek DSML) convert each value by its declared type under
    /// `strict` and `portable`. Without a schema their values stay strings, except GLM's
    /// JSON-written ones (`schema::Written::TextOrJson`).
    pub fn insert_schema(&mut self, name: impl Into<PyStr>, parameters: &Value) {
        self.types
            .insert(name.into(), ParamTypes::from_schema(parameters));
    }

    /// The declared parameter types of `name` (none when it has no schema).
    pub(crate) fn types(&self, name: &PyStr) -> Option<&ParamTypes> {
        self.types.get(name)
    }
}

impl<S: Into<PyStr>> FromIterator<S> for Allowlist {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Allowlist {
        Allowlist::new(names)
    }
}

impl Allowlist {
    /// `_advertised_tool_names(tools)` over OpenAI-style tool entries, as `strict` and
    /// `portable` read them: each dict entry contributes `entry["function"]["name"]`, or
    /// `entry["name"]` when that is falsy; other entries, and malformed ones
    /// (`{"function": null}`, a list name), are skipped.
    pub fn from_tool_entries(entries: &[Value]) -> Allowlist {
        let mut allowlist = Allowlist::default();
        for entry in entries {
            if let Ok(name) = advertised_name(entry) {
                allowlist.add_entry(entry, name);
            }
        }
        allowlist
    }

    /// `from_tool_entries` under `profile`: under `praisonai` a malformed entry raises
    /// what Python raises (`{"function": null}` is an `AttributeError`, a list name a
    /// `TypeError`); under the other profiles nothing fails.
    pub fn from_tool_entries_under(
        entries: &[Value],
        profile: Profile,
    ) -> Result<Allowlist, SalvageError> {
        if profile.skips_malformed_tool_entries() {
            return Ok(Allowlist::from_tool_entries(entries));
        }
        let mut allowlist = Allowlist::default();
        for entry in entries {
            allowlist.add_entry(entry, advertised_name(entry)?);
        }
        Ok(allowlist)
    }

    /// Adds what `entry` advertises: its `name` (and schema), or a name no call can
    /// match when the name is not a string.
    fn add_entry(&mut self, entry: &Value, name: Option<Value>) {
        match name {
            Some(Value::Str(name)) => {
                if let Some(parameters) = parameters_of(entry) {
                    self.insert_schema(name.clone(), parameters);
                }
                self.names.insert(name);
            }
            Some(_) => self.add_unmatchable(),
            None => {}
        }
    }
}

/// The `parameters` schema of an OpenAI tool entry: `function.parameters`, else a
/// top-level `parameters`.
fn parameters_of(entry: &Value) -> Option<&Value> {
    entry
        .get("function")
        .and_then(|f| f.get("parameters"))
        .or_else(|| entry.get("parameters"))
        .filter(|p| matches!(p, Value::Dict(_)))
}

/// The truthy name one tool entry advertises, if any.
fn advertised_name(entry: &Value) -> Result<Option<Value>, SalvageError> {
    let Value::Dict(tool) = entry else {
        return Ok(None);
    };
    let function_name = match tool.get("function".as_bytes()) {
        None => None,
        Some(Value::Dict(function)) => function.get("name".as_bytes()),
        Some(other) => {
            let message = format!(
                "'{}' object has no attribute 'get'",
                other.type_name().unwrap_or("object")
            );
            return Err(PyException::AttributeError {
                message: message.into(),
            }
            .into());
        }
    };
    let name = match function_name {
        Some(name) if name.is_truthy() => name,
        _ => match tool.get("name".as_bytes()) {
            Some(name) if name.is_truthy() => name,
            _ => return Ok(None),
        },
    };
    if matches!(name, Value::List(_) | Value::Dict(_)) {
        let message = format!(
            "unhashable type: '{}'",
            name.type_name().unwrap_or("object")
        );
        return Err(PyException::TypeError {
            message: message.into(),
        }
        .into());
    }
    Ok(Some(name.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_as_a_list_and_as_a_set() {
        let offered = ["a", "b", "a", "", "c", "d", "b", "e", "f"];
        for n in 0..=offered.len() {
            let allowlist = Allowlist::new(offered[..n].iter().copied());
            for name in ["a", "b", "c", "d", "e", "f", "g", "", "aa"] {
                let expected = !name.is_empty() && offered[..n].contains(&name);
                assert_eq!(
                    allowlist.contains(&PyStr::from(name)),
                    expected,
                    "{n} {name}"
                );
            }
            assert_eq!(
                allowlist.is_empty(),
                offered[..n].iter().all(|o| o.is_empty())
            );
        }
        let many = Allowlist::new(["a", "b", "c", "d", "e", "a"]);
        assert!(matches!(&many.names, Names::Many(set) if set.len() == 5));
    }
}
