//! How `portable` compares outputs (`docs/guarantees.md`): what a user can observe, in
//! any implementation's spelling.
//!
//! * `salvage`: the calls, in order, by name and by arguments decoded as JSON values (key
//!   order, whitespace, escapes and number spelling never matter; numbers by value,
//!   integers exactly); no calls is `null` or `[]` alike. An arguments string that is not
//!   JSON (a Python `str()` form) is compared as text.
//! * `execute`: which tool's body ran (`dispatched`), nothing else.
//! * `turn`: which tool bodies ran, in order, each with its arguments compared as JSON
//!   values (`executed`); what the model was told and the answer are the
//!   implementation's words.
//! * other ops: the output exactly.

use toolfix::py::json::{self, DecodeLimits};
use toolfix::py::{Dict, Value};

/// Decoding arguments for comparison: deep and long enough for any case.
const LIMITS: DecodeLimits = DecodeLimits {
    max_depth: 4096,
    int_max_str_digits: None,
};

/// Whether `actual` meets `expected` for `op` under the portable comparison.
pub fn meets(op: &str, expected: &Value, actual: &Value) -> bool {
    match op {
        "salvage" => match (calls(expected), calls(actual)) {
            (Some(want), Some(got)) => {
                want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| same_call(w, g))
            }
            _ => expected == actual,
        },
        "execute" => expected.get("dispatched") == actual.get("dispatched"),
        "turn" => match (expected.get("executed"), actual.get("executed")) {
            (Some(want), Some(got)) => same_value(want, got),
            _ => false,
        },
        _ => expected == actual,
    }
}

/// One recovered call: its name and its arguments, decoded when they are JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct SeenCall {
    /// The name as the output gave it.
    pub name: Value,
    /// The decoded arguments, or the arguments string when it is not JSON.
    pub arguments: Value,
}

/// The calls of a salvage output (`null` and `[]` are no calls); `None` when the output
/// is not `{"calls": …}` (an error, say).
pub fn calls(output: &Value) -> Option<Vec<SeenCall>> {
    let dict = output.as_dict().filter(|d| d.len() == 1)?;
    match dict.get("calls".as_bytes())? {
        Value::None => Some(Vec::new()),
        Value::List(items) => items.iter().map(seen_call).collect(),
        _ => None,
    }
}

/// The calls of a salvage or streamed salvage output, whatever else it holds (a
/// streamed answer has `content` beside them, and each call its `after_chunk`); `None`
/// when it has no `calls` list.
pub fn calls_in(output: &Value) -> Option<Vec<SeenCall>> {
    match output.as_dict()?.get("calls".as_bytes())? {
        Value::None => Some(Vec::new()),
        Value::List(items) => items.iter().map(seen_call).collect(),
        _ => None,
    }
}

fn seen_call(item: &Value) -> Option<SeenCall> {
    let arguments = match item.get("arguments")? {
        Value::Str(text) => {
            json::loads(text.as_bytes(), LIMITS).unwrap_or_else(|_| Value::Str(text.clone()))
        }
        other => other.clone(),
    };
    Some(SeenCall {
        name: item.get("name")?.clone(),
        arguments,
    })
}

fn same_call(want: &SeenCall, got: &SeenCall) -> bool {
    want.name == got.name && same_value(&want.arguments, &got.arguments)
}

/// JSON value equality: objects as maps, numbers by value.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => int_is(i, *f),
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Dict(x), Value::Dict(y)) => same_object(x, y),
        _ => a == b,
    }
}

fn same_object(x: &Dict, y: &Dict) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(key, value)| y.get(key).is_some_and(|other| same_value(value, other)))
}

/// Whether the float `f` is exactly the integer `i` (`1.0` and `1`; `1e400` is no
/// integer).
fn int_is(i: &toolfix::PyInt, f: f64) -> bool {
    if !f.is_finite() || f.fract() != 0.0 {
        return false;
    }
    let printed = format!("{f:.0}");
    let printed = if printed == "-0" { "0" } else { &printed };
    i.as_decimal() == printed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode_line;

    fn value(text: &str) -> Value {
        decode_line(text.as_bytes()).expect("JSON")
    }

    fn salvage(want: &str, got: &str) -> bool {
        meets("salvage", &value(want), &value(got))
    }

    #[test]
    fn arguments_compare_as_json_values() {
        let want =
            r#"{"calls": [{"name": "f", "arguments": "{\"a\": 1, \"b\": [1.5, \"\\u00e9\"]}"}]}"#;
        assert!(salvage(
            want,
            r#"{"calls": [{"name": "f", "arguments": "{\"b\":[1.50,\"é\"],\"a\":1.0}"}]}"#
        ));
        assert!(!salvage(
            want,
            r#"{"calls": [{"name": "f", "arguments": "{\"a\": 2, \"b\": [1.5, \"é\"]}"}]}"#
        ));
        assert!(!salvage(
            want,
            r#"{"calls": [{"name": "g", "arguments": "{\"a\": 1, \"b\": [1.5, \"é\"]}"}]}"#
        ));
    }

    #[test]
    fn big_integers_compare_exactly() {
        let want =
            r#"{"calls": [{"name": "f", "arguments": "{\"n\": 123456789012345678901234567890}"}]}"#;
        let near =
            r#"{"calls": [{"name": "f", "arguments": "{\"n\": 123456789012345678901234567891}"}]}"#;
        let float = r#"{"calls": [{"name": "f", "arguments": "{\"n\": 1.2345678901234568e29}"}]}"#;
        assert!(!salvage(want, near));
        assert!(!salvage(want, float));
    }

    #[test]
    fn no_calls_is_null_or_empty() {
        assert!(salvage(r#"{"calls": null}"#, r#"{"calls": []}"#));
        assert!(!salvage(
            r#"{"calls": null}"#,
            r#"{"error": "ValueError: x"}"#
        ));
    }

    #[test]
    fn turn_compares_the_bodies_that_ran() {
        let want = value(
            r#"{"executed": [{"name": "f", "kwargs": {"a": 1, "b": 2}}], "tool_messages": ["x"], "final": "y", "model_calls": 2}"#,
        );
        let got = value(
            r#"{"executed": [{"name": "f", "kwargs": {"b": 2, "a": 1.0}}], "tool_messages": [], "final": null, "model_calls": 3}"#,
        );
        assert!(meets("turn", &want, &got));
        let other =
            value(r#"{"executed": [], "tool_messages": ["x"], "final": "y", "model_calls": 2}"#);
        assert!(!meets("turn", &want, &other));
    }

    #[test]
    fn execute_compares_what_ran() {
        let want = value(r#"{"dispatched": "web_search", "returned": "results"}"#);
        let got = value(r#"{"dispatched": "web_search", "returned": {"other": 1}}"#);
        assert!(meets("execute", &want, &got));
        let none = value(r#"{"dispatched": null, "returned": {"error": "x"}}"#);
        assert!(!meets("execute", &want, &none));
    }
}
