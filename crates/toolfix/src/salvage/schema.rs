//! Typing the values of the untyped formats by the tool's JSON schema.
//!
//! Qwen3-Coder XML, MiniMax `<invoke>`, GLM's `<arg_value>` and DeepSeek V3.2's DSML
//! write every argument as text: `<parameter=count>3</parameter>`. When the offered tool
//! entry carries a JSON schema (`function.parameters.properties.count.type`), the value
//! is converted as the engines convert it; without a schema, or for a parameter the schema
//! does not describe, it stays the string the model wrote.
//!
//! A value converts to the first of its declared types that reads it, in the order
//! `null`, `boolean`, `integer`, `number`, `object`, `array`, `string`:
//!
//! * `null`: the text `null`;
//! * `boolean`: `true` or `false`, in any letter case;
//! * `integer`: a JSON integer (exact at any size);
//! * `number`: a JSON number (`3` stays an integer, `3.5` and `1e3` are floats);
//! * `object`, `array`: a JSON object or array;
//! * `string`: the text itself.
//!
//! A value that no declared type reads stays the string as written: the tool's own
//! validation, not salvage, decides what to do with `count="three"`.
//!
//! A parameter's types are its `type` (a name or a list of names) and the `type` of each
//! branch of its `anyOf` or `oneOf` (how `Optional[int]` reaches a schema from Pydantic).
//!
//! GLM's template writes every value that is not a string as JSON, and every engine reads
//! it back that way; so a GLM value the schema does not describe is read as JSON when the
//! whole value is a JSON object, array, number, boolean or null (`Written::TextOrJson`),
//! and an array GLM-4.7 wrote backslash-escaped reads as that array (`escaped_array`).

use super::call::Args;
use crate::profile::STRICT_MAX_DEPTH;
use crate::py::json::{self, DecodeLimits};
use crate::py::{Dict, PyStr, Value};

/// A JSON schema type a parameter may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum JsonType {
    Null,
    Boolean,
    Integer,
    Number,
    Object,
    Array,
    String,
}

impl JsonType {
    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "string" => JsonType::String,
            _ => return None,
        })
    }
}

/// The declared types of each parameter of one tool, from its `parameters` schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ParamTypes {
    params: Vec<(PyStr, Vec<JsonType>)>,
}

impl ParamTypes {
    /// The types `parameters.properties.<key>` declares (`declared_types`); parameters
    /// without a readable type are left out.
    pub fn from_schema(parameters: &Value) -> ParamTypes {
        let Some(Value::Dict(properties)) = parameters.get("properties") else {
            return ParamTypes::default();
        };
        let params = properties
            .iter()
            .map(|(key, schema)| (key.clone(), declared_types(schema)))
            .filter(|(_, types)| !types.is_empty())
            .collect();
        ParamTypes { params }
    }

    /// Whether [`ParamTypes::convert`] returns every string as it is: each parameter's
    /// first declared type is `string`, which any text reads as.
    pub fn keeps_strings(&self) -> bool {
        self.params
            .iter()
            .all(|(_, types)| types.first() == Some(&JsonType::String))
    }

    /// `raw`, the text a model wrote for parameter `key`, as a value of its declared type.
    pub fn convert(&self, key: &PyStr, raw: &PyStr) -> Value {
        match self.declared(key) {
            Some(types) => convert(raw, types),
            None => Value::Str(raw.clone()),
        }
    }

    /// `raw` as a value of its declared type; a parameter the schema does not describe is
    /// read as JSON when `raw` is a JSON object, array, number, boolean or null, and
    /// otherwise stays the string as written (a JSON string stays as written too: the
    /// format writes strings without quotes).
    ///
    /// An array GLM-4.7 wrote backslash-escaped (`[\"a\", \"b\"]`) reads as the array
    /// where an array may stand (`escaped_array`).
    pub fn convert_or_json(&self, key: &PyStr, raw: &PyStr) -> Value {
        let read = |ty: JsonType| match ty {
            JsonType::Array => read_as(raw, ty).or_else(|| escaped_array(raw.as_bytes())),
            _ => read_as(raw, ty),
        };
        match self.declared(key) {
            Some(types) => types
                .iter()
                .find_map(|&ty| read(ty))
                .unwrap_or_else(|| Value::Str(raw.clone())),
            None => decoded(raw.as_bytes())
                .filter(|v| !matches!(v, Value::Str(_)))
                .or_else(|| escaped_array(raw.as_bytes()))
                .unwrap_or_else(|| Value::Str(raw.clone())),
        }
    }

    fn declared(&self, key: &PyStr) -> Option<&[JsonType]> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, types)| types.as_slice())
    }
}

/// The types one parameter's schema declares: its `type`, and those of the branches of
/// its `anyOf` and `oneOf`, sorted in conversion order.
fn declared_types(schema: &Value) -> Vec<JsonType> {
    let mut types = Vec::new();
    collect_types(schema, &mut types, 0);
    types.sort();
    types.dedup();
    types
}

/// Adds the types `schema` declares to `types`, descending `depth` levels of `anyOf` and
/// `oneOf` at most (a schema is untrusted input).
fn collect_types(schema: &Value, types: &mut Vec<JsonType>, depth: usize) {
    if let Some(declared) = schema.get("type") {
        types.extend(types_of(declared));
    }
    if depth >= 4 {
        return;
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::List(branches)) = schema.get(union) {
            for branch in branches {
                collect_types(branch, types, depth + 1);
            }
        }
    }
}

/// The type names of a schema's `type`.
fn types_of(declared: &Value) -> Vec<JsonType> {
    let names: Vec<&Value> = match declared {
        Value::List(items) => items.iter().collect(),
        single => vec![single],
    };
    names
        .into_iter()
        .filter_map(|n| JsonType::parse(n.as_py_str()?.as_str()?))
        .collect()
}

/// The first declared type that reads `raw`, else `raw` as a string.
fn convert(raw: &PyStr, types: &[JsonType]) -> Value {
    types
        .iter()
        .find_map(|&ty| read_as(raw, ty))
        .unwrap_or_else(|| Value::Str(raw.clone()))
}

fn read_as(raw: &PyStr, ty: JsonType) -> Option<Value> {
    let text = raw.as_bytes();
    match ty {
        JsonType::Null => (text == b"null").then_some(Value::None),
        JsonType::Boolean => match text {
            t if t.eq_ignore_ascii_case(b"true") => Some(Value::Bool(true)),
            t if t.eq_ignore_ascii_case(b"false") => Some(Value::Bool(false)),
            _ => None,
        },
        JsonType::Integer => decoded(text).filter(|v| matches!(v, Value::Int(_))),
        JsonType::Number => decoded(text).filter(|v| matches!(v, Value::Int(_) | Value::Float(_))),
        JsonType::Object => decoded(text).filter(|v| matches!(v, Value::Dict(_))),
        JsonType::Array => decoded(text).filter(|v| matches!(v, Value::List(_))),
        JsonType::String => Some(Value::Str(raw.clone())),
    }
}

/// The array `text` holds written backslash-escaped, as the body of a JSON string
/// (`[\"a\", \"b\"]`): GLM-4.7 writes an array argument so at times, and SGLang's GLM
/// detectors read it back by unescaping it and loading the result. Only an array: any
/// other escaped text stays as written.
fn escaped_array(text: &[u8]) -> Option<Value> {
    if !text.trim_ascii_start().starts_with(b"[") || memchr::memmem::find(text, b"\\\"").is_none() {
        return None;
    }
    let quoted = [&b"\""[..], text, &b"\""[..]].concat();
    match decoded(&quoted)? {
        Value::Str(body) => decoded(body.as_bytes()).filter(|v| matches!(v, Value::List(_))),
        _ => None,
    }
}

/// `text` as one JSON value, surrounding whitespace allowed.
fn decoded(text: &[u8]) -> Option<Value> {
    let limits = DecodeLimits {
        max_depth: STRICT_MAX_DEPTH,
        int_max_str_digits: None,
    };
    json::loads(text, limits).ok()
}

/// An argument as a format wrote it.
pub(crate) enum Written {
    /// Text, to be typed by the tool's schema.
    Untyped(PyStr),
    /// Text a format writes as JSON when the value is not a string (GLM): typed by the
    /// tool's schema, or read as JSON where the schema does not describe it.
    TextOrJson(PyStr),
    /// Text the format marks as a string whatever the schema says (DSML `string="true"`).
    Text(PyStr),
    /// A value the format wrote typed (DSML `string="false"`: JSON).
    Value(Value),
}

impl From<PyStr> for Written {
    fn from(raw: PyStr) -> Written {
        Written::Untyped(raw)
    }
}

/// Arguments built from the `(key, written)` pairs of a format without JSON arguments,
/// untyped ones typed by `types`; a repeated key keeps its first position and its last
/// value, as a JSON object would.
///
/// The usual call (distinct keys, every value a string or a JSON scalar) is written
/// straight as its `json.dumps`, which reads back as the same dict (`Args::Written`): no
/// dict is built, hashed and dropped for each call of a flood. Anything else is built.
pub(crate) fn typed_arguments(types: &ParamTypes, pairs: Vec<(PyStr, Written)>) -> Args {
    match written(types, &pairs) {
        Some(text) => Args::Written(text),
        None => Args::Decoded(built(types, pairs)),
    }
}

/// The arguments of `pairs` built as a dict.
fn built(types: &ParamTypes, pairs: Vec<(PyStr, Written)>) -> Value {
    let mut args = Dict::default();
    for (key, written) in pairs {
        let value = match written {
            Written::Untyped(raw) => types.convert(&key, &raw),
            Written::TextOrJson(raw) => types.convert_or_json(&key, &raw),
            Written::Text(text) => Value::Str(text),
            Written::Value(value) => value,
        };
        args.insert(key, value);
    }
    Value::Dict(args)
}

/// How many pairs `written` compares key by key for repeats; more are built as a dict.
const WRITTEN_PAIRS: usize = 16;

/// `json.dumps` of the arguments of `pairs`, when their keys are distinct (compared pair
/// by pair, up to `WRITTEN_PAIRS`) and no value is a container, which could nest past
/// what written arguments are read back with (`json::read_back`).
fn written(types: &ParamTypes, pairs: &[(PyStr, Written)]) -> Option<PyStr> {
    if pairs.is_empty() {
        // A call without arguments, as common as `get_time()`: no buffer to allocate.
        return Some(PyStr::from("{}"));
    }
    let distinct = pairs.len() <= WRITTEN_PAIRS
        && pairs
            .iter()
            .enumerate()
            .all(|(i, (key, _))| pairs[..i].iter().all(|(k, _)| k != key));
    if !distinct {
        return None;
    }
    let mut out = String::with_capacity(64);
    out.push('{');
    for (i, (key, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json::write_key(&mut out, key.as_bytes());
        match value {
            Written::Text(text) => json::write_str(&mut out, text.as_bytes()),
            Written::Untyped(raw) => match types.declared(key) {
                None => json::write_str(&mut out, raw.as_bytes()),
                Some(declared) => write_scalar(&mut out, &convert(raw, declared))?,
            },
            Written::TextOrJson(raw) => {
                write_scalar(&mut out, &types.convert_or_json(key, raw))?;
            }
            Written::Value(value) => write_scalar(&mut out, value)?,
        }
    }
    out.push('}');
    Some(PyStr::from(out))
}

/// Appends `json.dumps(value)` to `out`, unless `value` is a container (`None` then).
fn write_scalar(out: &mut String, value: &Value) -> Option<()> {
    match value {
        Value::List(_) | Value::Dict(_) | Value::Opaque(_) => None,
        scalar => json::dump_into(out, scalar).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::json::loads;

    fn schema(text: &str) -> ParamTypes {
        let limits = DecodeLimits {
            max_depth: 32,
            int_max_str_digits: None,
        };
        ParamTypes::from_schema(&loads(text.as_bytes(), limits).unwrap())
    }

    fn converted(types: &ParamTypes, key: &str, raw: &str) -> Value {
        types.convert(&PyStr::from(key), &PyStr::from(raw))
    }

    /// Arguments written straight are the `json.dumps` of the dict built from the same
    /// pairs, and read back as it; repeated keys and containers are built.
    #[test]
    fn written_arguments_are_the_dumps_of_the_dict_built() {
        let types = schema(
            r#"{"type": "object", "properties": {
                "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
                "o": {"type": "object"}, "s": {"type": "string"},
                "maybe": {"type": ["integer", "null"]}}}"#,
        );
        let text = |t: &str| PyStr::from(t);
        let lone = PyStr::from_generalized_utf8(b"a\xed\xa0\x80b");
        let pairs = || -> Vec<Vec<(PyStr, Written)>> {
            vec![
                vec![],
                vec![(text("city"), Written::Untyped(text("Paris")))],
                vec![
                    (text("n"), Written::Untyped(text("3"))),
                    (text("x"), Written::Untyped(text("1e400"))),
                    (text("b"), Written::Untyped(text("TRUE"))),
                    (text("maybe"), Written::Untyped(text("null"))),
                    (text("s"), Written::Untyped(text("42"))),
                    (text("n2"), Written::TextOrJson(text("-0.0"))),
                    (text("t"), Written::Text(text("7"))),
                    (
                        text("v"),
                        Written::Value(json::read_back(b"12345678901234567890").unwrap()),
                    ),
                ],
                vec![
                    (
                        text("q\"uote\\"),
                        Written::Untyped(text("line\n\ttab é 🎉 </parameter>")),
                    ),
                    (lone.clone(), Written::Untyped(lone.clone())),
                    (text("n"), Written::Untyped(text("three"))),
                ],
                vec![
                    (text("a"), Written::Untyped(text("1"))),
                    (text("a"), Written::Untyped(text("2"))),
                ],
                vec![(text("o"), Written::Untyped(text(r#"{"k": [1]}"#)))],
                vec![(text("j"), Written::TextOrJson(text("[1, 2]")))],
            ]
        };
        let mut as_written = 0;
        for (pairs, again) in pairs().into_iter().zip(pairs()) {
            let dict = built(&types, again);
            match written(&types, &pairs) {
                Some(text) => {
                    as_written += 1;
                    assert_eq!(text.as_str(), Some(json::dumps(&dict).unwrap().as_str()));
                    assert_eq!(json::read_back(text.as_bytes()).unwrap(), dict);
                }
                None => {
                    let Value::Dict(dict) = dict else {
                        panic!("built arguments are a dict")
                    };
                    let nested = dict
                        .values()
                        .any(|v| matches!(v, Value::List(_) | Value::Dict(_)));
                    assert!(nested || dict.len() < pairs.len(), "{dict:?}");
                }
            }
        }
        assert_eq!(as_written, 4);
    }

    #[test]
    fn values_convert_by_declared_type_or_stay_strings() {
        let types = schema(
            r#"{"type": "object", "properties": {
                "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
                "o": {"type": "object"}, "a": {"type": "array"}, "s": {"type": "string"},
                "maybe": {"type": ["integer", "null"]}}}"#,
        );
        assert_eq!(converted(&types, "n", "3"), Value::int(3));
        assert_eq!(converted(&types, "n", "three"), Value::str("three"));
        assert_eq!(converted(&types, "n", "3.5"), Value::str("3.5"));
        assert_eq!(converted(&types, "x", "3"), Value::int(3));
        assert_eq!(converted(&types, "x", "2.5"), Value::Float(2.5));
        assert_eq!(converted(&types, "b", "True"), Value::Bool(true));
        assert_eq!(
            converted(&types, "o", r#"{"k": 1}"#),
            Value::dict([("k", Value::int(1))])
        );
        assert_eq!(
            converted(&types, "a", "[1]"),
            Value::List(vec![Value::int(1)])
        );
        assert_eq!(converted(&types, "s", "42"), Value::str("42"));
        assert_eq!(converted(&types, "maybe", "null"), Value::None);
        assert_eq!(converted(&types, "maybe", "7"), Value::int(7));
        assert_eq!(converted(&types, "unknown", "7"), Value::str("7"));
    }

    #[test]
    fn any_of_and_one_of_branches_declare_types() {
        let types = schema(
            r#"{"properties": {
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "tags": {"oneOf": [{"type": "array"}, {"anyOf": [{"type": "string"}]}]},
                "untyped": {"description": "no type"}}}"#,
        );
        assert_eq!(converted(&types, "limit", "5"), Value::int(5));
        assert_eq!(converted(&types, "limit", "null"), Value::None);
        assert_eq!(converted(&types, "limit", "five"), Value::str("five"));
        assert_eq!(
            converted(&types, "tags", r#"["a"]"#),
            Value::List(vec![Value::str("a")])
        );
        assert_eq!(converted(&types, "tags", "a"), Value::str("a"));
        assert_eq!(converted(&types, "untyped", "5"), Value::str("5"));
    }

    #[test]
    fn undescribed_values_read_as_json_only_when_asked() {
        let types = schema(r#"{"properties": {"s": {"type": "string"}}}"#);
        let json =
            |key: &str, raw: &str| types.convert_or_json(&PyStr::from(key), &PyStr::from(raw));
        assert_eq!(json("n", "5"), Value::int(5));
        assert_eq!(
            json("n", " [1, 2] "),
            Value::List(vec![Value::int(1), Value::int(2)])
        );
        assert_eq!(json("n", "true"), Value::Bool(true));
        assert_eq!(json("n", "null"), Value::None);
        assert_eq!(json("n", "\"quoted\""), Value::str("\"quoted\""));
        assert_eq!(json("n", "Paris"), Value::str("Paris"));
        assert_eq!(json("s", "5"), Value::str("5"));
        assert_eq!(converted(&types, "n", "5"), Value::str("5"));
    }

    #[test]
    fn a_backslash_escaped_array_reads_where_an_array_may_stand() {
        let types = schema(r#"{"properties": {"a": {"type": "array"}, "s": {"type": "string"}}}"#);
        let json =
            |key: &str, raw: &str| types.convert_or_json(&PyStr::from(key), &PyStr::from(raw));
        let ab = Value::List(vec![Value::str("a"), Value::str("b")]);
        assert_eq!(json("a", r#"[\"a\", \"b\"]"#), ab);
        assert_eq!(json("n", r#"[\"a\", \"b\"]"#), ab);
        assert_eq!(json("s", r#"[\"a\"]"#), Value::str(r#"[\"a\"]"#));
        assert_eq!(json("n", r#"{\"a\": 1}"#), Value::str(r#"{\"a\": 1}"#));
        assert_eq!(
            json("a", r#"[\"a\", \"b"]"#),
            Value::str(r#"[\"a\", \"b"]"#)
        );
        assert_eq!(
            converted(&types, "a", r#"[\"a\"]"#),
            Value::str(r#"[\"a\"]"#)
        );
    }
}
