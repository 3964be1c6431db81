//! Inputs of the `format_result` op: tool results of every shape the adapters format
//! differently (`None`, strings with surrogates and line separators, scalars from `-0.0`
//! to a 4400-digit integer, error dicts and lists, nested values, non-finite floats,
//! objects JSON cannot hold), under every adapter, with and without a call id.

use toolfix::py::{Dict, PyStr, Value};

use super::rng::Rng;
use super::wire_value::{ARG_KEYS, big, huge_int, lone_surrogate, wire_value};

/// The families, drawn with equal weight.
pub const FAMILIES: [&str; 10] = [
    "none",
    "string",
    "scalar",
    "error_dict",
    "error_list",
    "plain_dict",
    "list",
    "nested",
    "non_finite",
    "opaque",
];

/// The provider adapters, as praisonaiagents names them.
pub const ADAPTERS: [&str; 5] = ["ollama", "local", "default", "anthropic", "gemini"];

/// One `format_result` input and its family.
pub fn generate(rng: &mut Rng) -> (&'static str, Value) {
    let family = rng.pick(&FAMILIES);
    let result = match family {
        "none" => Value::None,
        "string" => string(rng),
        "scalar" => scalar(rng),
        "error_dict" => error_dict(rng),
        "error_list" => error_list(rng),
        "plain_dict" => {
            let mut dict = Dict::default();
            for _ in 0..rng.between(0, 4) {
                dict.insert(PyStr::from(rng.pick(&ARG_KEYS)), wire_value(rng, 1));
            }
            Value::Dict(dict)
        }
        "list" => {
            let n = rng.between(0, 4);
            Value::List((0..n).map(|_| wire_value(rng, 1)).collect())
        }
        "nested" => {
            let items = (0..3).map(|_| wire_value(rng, 1)).collect();
            let meta = Value::dict([("error", Value::None)]);
            let data = Value::dict([("items", Value::List(items)), ("meta", meta)]);
            Value::dict([("data", data)])
        }
        "non_finite" => non_finite(rng),
        _ => opaque(rng),
    };
    let name = rng.pick(&["get_weather", "WebSearch", "charge", "日本", "it's", ""]);
    let mut input = vec![
        ("adapter", Value::str(rng.pick(&ADAPTERS))),
        ("function_name", Value::str(name)),
        ("tool_result", result),
    ];
    if rng.chance(0.6) {
        let id = rng.pick(&["call_1", "call_get_weather_0_1234", "", "tool_0_1"]);
        input.push(("tool_call_id", Value::str(id)));
    }
    (family, Value::dict(input))
}

fn string(rng: &mut Rng) -> Value {
    match rng.below(10) {
        4 => lone_surrogate(" lone"),
        i => Value::str(
            [
                "ok",
                "",
                "héllo",
                "日本語",
                "",
                "line\nbreak",
                "\"quoted\"",
                "{\"json\": \"in a string\"}",
                "\u{2028}",
                "tab\there",
            ][i],
        ),
    }
}

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => Value::int(0),
        1 => Value::int(1),
        2 => Value::int(-1),
        3 => big(format!("1{}", "0".repeat(30))),
        4 => Value::Float(1.0),
        5 => Value::Float(1e16),
        6 => Value::Float(1.5e-7),
        7 => Value::Float(-0.0),
        8 => Value::Float(123_456_789.123_456_79),
        9 => Value::Bool(true),
        10 => Value::Bool(false),
        _ => huge_int(),
    }
}

/// `{"error": …}` with errors of every type, sometimes with more keys around it.
fn error_dict(rng: &mut Rng) -> Value {
    let error = match rng.below(9) {
        0 => Value::str("card declined"),
        1 => Value::None,
        2 => Value::str(""),
        3 => Value::int(0),
        4 => Value::List(vec![Value::str("a")]),
        5 => Value::dict([("code", Value::int(7))]),
        6 => Value::str("naïve ✓"),
        7 => Value::Float(f64::NAN),
        _ => Value::Opaque(PyStr::from("{'x'}")),
    };
    let mut pairs = Vec::new();
    if rng.chance(0.2) {
        pairs.push(("status", Value::str("failed")));
    }
    pairs.push(("error", error));
    if rng.chance(0.4) {
        pairs.push((
            "available_tools",
            Value::List(vec![Value::str("web_search")]),
        ));
    }
    Value::dict(pairs)
}

/// Lists whose items are, or look like, errors.
fn error_list(rng: &mut Rng) -> Value {
    let error = |e: Value| Value::dict([("error", e)]);
    match rng.below(7) {
        0 => Value::List(vec![error(Value::str("boom"))]),
        1 => Value::List(vec![error(Value::None), Value::str("x")]),
        2 => Value::List(Vec::new()),
        3 => Value::List(vec![Value::dict([("err", Value::str("no"))])]),
        4 => Value::List(vec![Value::str("error")]),
        5 => Value::List(vec![Value::List(vec![error(Value::str("nested"))])]),
        _ => Value::List(vec![
            error(Value::str("first")),
            error(Value::str("second")),
        ]),
    }
}

fn non_finite(rng: &mut Rng) -> Value {
    match rng.below(5) {
        0 => Value::Float(f64::NAN),
        1 => Value::Float(f64::INFINITY),
        2 => Value::Float(f64::NEG_INFINITY),
        3 => Value::dict([("v", Value::Float(f64::INFINITY))]),
        _ => Value::List(vec![Value::Float(f64::NEG_INFINITY), Value::int(1)]),
    }
}

/// An object JSON cannot hold, alone or inside a value.
fn opaque(rng: &mut Rng) -> Value {
    let text = rng.pick(&[
        "{1, 2, 3}",
        "2024-01-02 03:04:05",
        "PosixPath('/tmp/x')",
        "<object at 0x0>",
        "",
        "naïve",
    ]);
    let opaque = Value::Opaque(PyStr::from(text));
    match rng.below(4) {
        0 => opaque,
        1 => Value::dict([("when", opaque)]),
        2 => Value::List(vec![opaque, Value::int(1)]),
        _ => Value::dict([("error", opaque)]),
    }
}
