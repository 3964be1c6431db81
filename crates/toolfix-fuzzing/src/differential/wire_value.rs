//! Protocol values a tool is called with, defaults to or returns: the scalars dispatch and
//! result formatting treat differently (falsy ones, `-0.0`, 30-digit and 4400-digit
//! integers, lone surrogates, non-finite floats, objects JSON cannot hold), in lists and
//! objects two levels deep.

use toolfix::py::{Dict, PyInt, PyStr, Value};

use super::rng::Rng;

/// Argument names, which are also the keys of generated objects.
pub const ARG_KEYS: [&str; 11] = [
    "city", "query", "id", "q", "path", "text", "n", "units", "limit", "to", "amount",
];

/// An integer past CPython's 4300-digit `str`/`int` conversion limit.
pub fn huge_int() -> Value {
    big("9".repeat(4400))
}

/// The integer whose decimal digits are `digits`.
pub fn big(digits: String) -> Value {
    PyInt::from_decimal(&digits).map_or(Value::None, Value::Int)
}

/// `s` followed by the lone surrogate U+D800.
pub fn lone_surrogate(s: &str) -> Value {
    let mut text = PyStr::from(s);
    text.push(0xD800);
    Value::Str(text)
}

/// A value, nesting below `depth` 2.
pub fn wire_value(rng: &mut Rng, depth: u8) -> Value {
    let roll = rng.unit();
    if depth < 2 && roll < 0.1 {
        let mut dict = Dict::default();
        for _ in 0..rng.between(0, 2) {
            dict.insert(PyStr::from(rng.pick(&ARG_KEYS)), wire_value(rng, depth + 1));
        }
        return Value::Dict(dict);
    }
    if depth < 2 && roll < 0.18 {
        let n = rng.between(0, 3);
        return Value::List((0..n).map(|_| wire_value(rng, depth + 1)).collect());
    }
    scalar(rng)
}

/// One of the leaves `wire_value` draws from.
fn scalar(rng: &mut Rng) -> Value {
    match rng.below(30) {
        0 => Value::str("hello"),
        1 => Value::str(""),
        2 => Value::str("Paris"),
        3 => Value::str("café ✓"),
        4 => Value::str("5"),
        5 => Value::str("true"),
        6 => lone_surrogate(""),
        7 => Value::str("line\nbreak"),
        8 => Value::int(0),
        9 => Value::int(1),
        10 => Value::int(-3),
        11 => Value::int(5),
        12 => big(format!("1{}", "0".repeat(30))),
        13 => big((1u64 << 63).to_string()),
        14 => Value::Float(1.5),
        15 => Value::Float(1e16),
        16 => Value::Float(1.5e-7),
        17 => Value::Float(-0.0),
        18 => Value::Float(0.0),
        19 => Value::Bool(true),
        20 => Value::Bool(false),
        21 => Value::None,
        22 => Value::Float(f64::NAN),
        23 => Value::Float(f64::INFINITY),
        24 => Value::Opaque(PyStr::from("{1, 2, 3}")),
        25 => Value::Opaque(PyStr::from("2024-01-02 03:04:05")),
        26 => Value::List(Vec::new()),
        27 => Value::Dict(Dict::default()),
        _ if rng.chance(0.1) => huge_int(),
        _ => Value::int(7),
    }
}
