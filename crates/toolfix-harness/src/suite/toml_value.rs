//! TOML values as Python values, and the `_json` escape hatch for what TOML cannot hold.

use crate::protocol::wire::decode_line;
use toolfix::py::{PyInt, PyStr, Value};

/// A TOML value as the Python value it stands for: tables keep their key order.
pub fn to_value(toml: &toml::Value) -> Result<Value, String> {
    Ok(match toml {
        toml::Value::String(s) => Value::Str(PyStr::from(s.as_str())),
        toml::Value::Integer(i) => Value::Int(PyInt::from_i64(*i)),
        toml::Value::Float(f) => Value::Float(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Array(items) => {
            Value::List(items.iter().map(to_value).collect::<Result<_, _>>()?)
        }
        toml::Value::Table(table) => Value::Dict(
            table
                .iter()
                .map(|(k, v)| Ok((PyStr::from(k.as_str()), to_value(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        toml::Value::Datetime(d) => {
            return Err(format!(
                "a datetime ({d}) is not a value a tool call can hold"
            ));
        }
    })
}

/// A value given as JSON text (`key_json = '…'`), with the protocol's `$float` and
/// `$opaque` wrappers.
pub fn from_json(text: &str) -> Result<Value, String> {
    decode_line(text.as_bytes())
}
