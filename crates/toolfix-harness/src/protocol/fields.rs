//! Reading the fields of a protocol object, with errors that say what was wrong.

use toolfix::py::{Dict, PyStr, Value};

/// The fields of one JSON object of a request, named for error messages (`input`, `call`).
pub struct Fields<'a> {
    dict: &'a Dict,
    what: &'static str,
}

impl<'a> Fields<'a> {
    /// The fields of `value`, which must be an object.
    pub fn of(value: &'a Value, what: &'static str) -> Result<Fields<'a>, String> {
        match value {
            Value::Dict(dict) => Ok(Fields { dict, what }),
            _ => Err(format!("{what} must be an object")),
        }
    }

    /// Rejects keys other than `known`: a driver must not guess what an unknown key means.
    pub fn only(self, known: &[&str]) -> Result<Fields<'a>, String> {
        match self
            .dict
            .keys()
            .find(|k| !known.iter().any(|known| *k == *known))
        {
            Some(key) => Err(format!("{} has an unknown key {key:?}", self.what)),
            None => Ok(self),
        }
    }

    /// A field's value, if present.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.dict.get(key.as_bytes())
    }

    /// A required field.
    pub fn value(&self, key: &str) -> Result<&'a Value, String> {
        self.get(key)
            .ok_or_else(|| format!("{}.{key} is missing", self.what))
    }

    /// A required string field.
    pub fn py_str(&self, key: &str) -> Result<&'a PyStr, String> {
        self.value(key)?
            .as_py_str()
            .ok_or_else(|| format!("{}.{key} must be a string", self.what))
    }

    /// A required string field holding Rust text (no lone surrogates).
    pub fn str(&self, key: &str) -> Result<&'a str, String> {
        self.py_str(key)?
            .as_str()
            .ok_or_else(|| format!("{}.{key} must not hold lone surrogates", self.what))
    }

    /// An optional string field; `null` counts as absent.
    pub fn opt_py_str(&self, key: &str) -> Result<Option<&'a PyStr>, String> {
        match self.get(key) {
            None | Some(Value::None) => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s)),
            Some(_) => Err(format!("{}.{key} must be a string", self.what)),
        }
    }

    /// A required list field.
    pub fn list(&self, key: &str) -> Result<&'a [Value], String> {
        match self.value(key)? {
            Value::List(items) => Ok(items),
            _ => Err(format!("{}.{key} must be a list", self.what)),
        }
    }

    /// An optional list field; absent is empty.
    pub fn opt_list(&self, key: &str) -> Result<&'a [Value], String> {
        match self.get(key) {
            None => Ok(&[]),
            Some(_) => self.list(key),
        }
    }

    /// An optional boolean field.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("{}.{key} must be true or false", self.what)),
        }
    }

    /// A required field parsed from a string (`"ollama"` into an `Adapter`).
    pub fn parse<T: std::str::FromStr<Err = String>>(&self, key: &str) -> Result<T, String> {
        self.str(key)?
            .parse()
            .map_err(|e| format!("{}.{key}: {e}", self.what))
    }
}
