//! serde interop (feature `serde`): Rust runtimes speak `serde_json::Value`; this crate's
//! values are Python's, which JSON cannot always hold.
//!
//! [`Value::to_json`] converts exactly or says why it cannot ([`NotJson`]):
//!
//! * a `str` holding a lone surrogate (`"\ud800"`, which CPython's `json` reads and
//!   writes) has no Rust `String`;
//! * an `int` outside `i64`/`u64` has no `serde_json::Number` (without serde_json's
//!   `arbitrary_precision`);
//! * `NaN` and the infinities are not JSON numbers;
//! * an opaque object (a `set`, a `datetime`) is not JSON at all.
//!
//! Nothing is replaced or rounded: a runtime that wants a lossy form decides it. The
//! `Serialize` impls follow the same rules, except that floats are handed to the format
//! as they are (`serde_json` writes a non-finite float as `null`) and integers up to 128
//! bits are serialized as such.

use std::fmt;

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::dispatch::{Dispatch, Outcome, ResultMessage};
use crate::py::{PyInt, PyStr, Value};
use crate::salvage::Call;

/// Why a value has no exact `serde_json::Value`, and where in it (a JSON Pointer).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotJson {
    /// A string (or a dict key) holds a lone surrogate.
    LoneSurrogate {
        /// Where, as a JSON Pointer (`/city`, `/items/0`).
        at: String,
    },
    /// An integer outside `i64` and `u64`.
    IntegerOutOfRange {
        /// Where, as a JSON Pointer.
        at: String,
        /// Its decimal digits.
        decimal: String,
    },
    /// `NaN`, `Infinity` or `-Infinity`.
    NonFiniteFloat {
        /// Where, as a JSON Pointer.
        at: String,
    },
    /// An object JSON cannot serialise, known only by its `str()`.
    Opaque {
        /// Where, as a JSON Pointer.
        at: String,
    },
}

impl fmt::Display for NotJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, at) = match self {
            NotJson::LoneSurrogate { at } => ("a string with a lone surrogate", at),
            NotJson::IntegerOutOfRange { at, .. } => ("an integer outside i64 and u64", at),
            NotJson::NonFiniteFloat { at } => ("a non-finite float", at),
            NotJson::Opaque { at } => ("an object JSON cannot hold", at),
        };
        let at = if at.is_empty() { "the root" } else { at };
        write!(f, "{what} at {at}")
    }
}

impl std::error::Error for NotJson {}

impl Value {
    /// The value as a `serde_json::Value`, exactly, or why it cannot be one.
    ///
    /// ```
    /// use toolfix::{salvage::{salvage, Allowlist, Request}, NotJson};
    ///
    /// let tools = Allowlist::new(["get_weather"]);
    /// let reply = r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>"#;
    /// let calls = salvage(&Request::new(reply, &tools));
    /// let args = calls[0].arguments_value().to_json().unwrap();
    /// assert_eq!(args, serde_json::json!({"city": "Paris", "days": 3}));
    ///
    /// let limits = toolfix::py::json::DecodeLimits { max_depth: 8, int_max_str_digits: None };
    /// let big = toolfix::py::json::loads(b"[123456789012345678901234567890]", limits).unwrap();
    /// assert!(matches!(big.to_json(), Err(NotJson::IntegerOutOfRange { at, .. }) if at == "/0"));
    /// ```
    pub fn to_json(&self) -> Result<serde_json::Value, NotJson> {
        to_json_at(self, &mut String::new())
    }
}

/// `to_json`, with `at` the pointer to `value` (restored before returning).
fn to_json_at(value: &Value, at: &mut String) -> Result<serde_json::Value, NotJson> {
    use serde_json::Value as Json;
    Ok(match value {
        Value::None => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::Number(json_int(i).ok_or_else(|| NotJson::IntegerOutOfRange {
            at: at.clone(),
            decimal: i.as_decimal().to_owned(),
        })?),
        Value::Float(f) => Json::Number(
            serde_json::Number::from_f64(*f)
                .ok_or_else(|| NotJson::NonFiniteFloat { at: at.clone() })?,
        ),
        Value::Str(s) => Json::String(rust_string(s, at)?),
        Value::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{index}"));
                out.push(to_json_at(item, at)?);
                at.truncate(len);
            }
            Json::Array(out)
        }
        Value::Dict(dict) => {
            let mut out = serde_json::Map::with_capacity(dict.len());
            for (key, item) in dict {
                let key = rust_string(key, at)?;
                let len = at.len();
                at.push('/');
                at.push_str(&key.replace('~', "~0").replace('/', "~1"));
                out.insert(key, to_json_at(item, at)?);
                at.truncate(len);
            }
            Json::Object(out)
        }
        Value::Opaque(_) => return Err(NotJson::Opaque { at: at.clone() }),
    })
}

/// An integer as a JSON number, when it fits `i64` or `u64`.
fn json_int(i: &PyInt) -> Option<serde_json::Number> {
    let decimal = i.as_decimal();
    if let Ok(n) = decimal.parse::<i64>() {
        return Some(n.into());
    }
    decimal.parse::<u64>().ok().map(Into::into)
}

/// A Python `str` as a Rust `String`, unless it holds a lone surrogate.
fn rust_string(s: &PyStr, at: &str) -> Result<String, NotJson> {
    s.as_str()
        .map(str::to_owned)
        .ok_or_else(|| NotJson::LoneSurrogate { at: at.to_owned() })
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::None => serializer.serialize_none(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => serialize_int(i, serializer),
            Value::Float(f) => serializer.serialize_f64(*f),
            Value::Str(s) => s.serialize(serializer),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Dict(dict) => {
                let mut map = serializer.serialize_map(Some(dict.len()))?;
                for (key, item) in dict {
                    map.serialize_entry(key, item)?;
                }
                map.end()
            }
            Value::Opaque(text) => Err(S::Error::custom(format!(
                "an object JSON cannot hold ({})",
                text.to_string_lossy()
            ))),
        }
    }
}

/// An integer as `i64`, `u64`, `i128` or `u128`, whichever holds it first.
fn serialize_int<S: Serializer>(i: &PyInt, serializer: S) -> Result<S::Ok, S::Error> {
    let decimal = i.as_decimal();
    if let Ok(n) = decimal.parse::<i64>() {
        serializer.serialize_i64(n)
    } else if let Ok(n) = decimal.parse::<u64>() {
        serializer.serialize_u64(n)
    } else if let Ok(n) = decimal.parse::<i128>() {
        serializer.serialize_i128(n)
    } else if let Ok(n) = decimal.parse::<u128>() {
        serializer.serialize_u128(n)
    } else {
        Err(S::Error::custom(format!(
            "an integer of {} digits, beyond 128 bits",
            decimal.trim_start_matches('-').len()
        )))
    }
}

impl Serialize for PyStr {
    /// As a string, unless it holds a lone surrogate (an error).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.as_str() {
            Some(s) => serializer.serialize_str(s),
            None => Err(S::Error::custom("a string with a lone surrogate")),
        }
    }
}

impl Serialize for Call {
    /// `{"name", "arguments", "span": [start, end], "dialect"}`: the argument string as the
    /// real package hands it to dispatch; the decoded value is [`Call::arguments_value`].
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let span = self.span();
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("name", self.name())?;
        map.serialize_entry("arguments", self.arguments_text())?;
        map.serialize_entry("span", &[span.start, span.end])?;
        map.serialize_entry("dialect", self.dialect().name())?;
        map.end()
    }
}

impl Serialize for Dispatch {
    /// `{"outcome", "dispatched", "returned", "repaired"}`, with `repaired` as
    /// `{"requested", "tool"}` or `null`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let repaired = self.repaired().map(|(requested, tool)| {
            Value::dict([
                ("requested", requested.clone()),
                ("tool", Value::Str(tool.clone())),
            ])
        });
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("outcome", &self.outcome())?;
        map.serialize_entry("dispatched", &self.dispatched())?;
        map.serialize_entry("returned", self.returned())?;
        map.serialize_entry("repaired", &repaired)?;
        map.end()
    }
}

impl Serialize for Outcome {
    /// Its name in snake case: `ran`, `raised`, `bind_failed`, `not_found`, `denied`,
    /// `approval_failed`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Serialize for ResultMessage {
    /// `{"role", "content", "tool_call_id"?}`, as the adapter appends it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", self.role())?;
        map.serialize_entry("content", self.content())?;
        if let Some(id) = self.tool_call_id() {
            map.serialize_entry("tool_call_id", id)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::json::{DecodeLimits, loads};

    fn decoded(text: &str) -> Value {
        let limits = DecodeLimits {
            max_depth: 64,
            int_max_str_digits: None,
        };
        loads(text.as_bytes(), limits).expect("valid JSON")
    }

    #[test]
    fn converts_exactly_or_says_where_it_cannot() {
        let exact = decoded(r#"{"a": [1, -2, 18446744073709551615, 1.5, null, true, "é"]}"#);
        assert_eq!(
            exact.to_json(),
            Ok(serde_json::json!({"a": [1, -2, 18446744073709551615u64, 1.5, null, true, "é"]}))
        );
        let cases = [
            (
                r#"{"a/b": [0, 18446744073709551616]}"#,
                "an integer outside i64 and u64 at /a~1b/1",
            ),
            (r#"{"x": NaN}"#, "a non-finite float at /x"),
            (r#"["\ud800"]"#, "a string with a lone surrogate at /0"),
            (
                r#"{"\udc00": 1}"#,
                "a string with a lone surrogate at the root",
            ),
        ];
        for (text, why) in cases {
            let error = decoded(text).to_json().expect_err(text);
            assert_eq!(error.to_string(), why, "{text}");
        }
        let opaque = Value::Opaque(PyStr::from("{1, 2}"));
        assert_eq!(opaque.to_json(), Err(NotJson::Opaque { at: String::new() }));
    }

    #[test]
    fn serializes_big_integers_up_to_128_bits_and_refuses_beyond() {
        let fits = decoded("[170141183460469231731687303715884105727]");
        assert_eq!(
            serde_json::to_string(&fits).unwrap(),
            "[170141183460469231731687303715884105727]"
        );
        let beyond = decoded("[1701411834604692317316873037158841057270000]");
        let error = serde_json::to_string(&beyond).unwrap_err().to_string();
        assert!(error.contains("beyond 128 bits"), "{error}");
    }
}
