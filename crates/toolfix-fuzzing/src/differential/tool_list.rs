//! The tool list of a `salvage` input: the names the reply was offered, and now and then
//! an entry no well-behaved caller sends (a `$raw` name, a bare `name` key, a `function`
//! that is `null`, empty or nameless, a number, `null`, a list, an empty string), or no
//! tools at all.

use toolfix::py::Value;

use super::rng::Rng;
use crate::names::Offered;

/// Names a model makes up, for malformed entries.
const STRAY_NAMES: [&str; 4] = ["wire_transfer", "rm_rf", "unknown_tool", "Search"];

/// The `tools` of a salvage input for a reply offered `offered`.
pub fn tool_list(rng: &mut Rng, offered: &Offered) -> Value {
    let mut tools = offered.protocol_entries();
    if rng.chance(0.12) {
        let odd = odd_entry(rng, offered.names());
        let at = rng.below(tools.len() + 1);
        tools.insert(at, odd);
    }
    if rng.chance(0.03) {
        tools.clear();
    }
    Value::List(tools)
}

/// One malformed entry.
fn odd_entry(rng: &mut Rng, names: &[&str]) -> Value {
    let function = |v: Value| Value::dict([("function", v)]);
    let named = |v: Value| Value::dict([("name", v)]);
    match rng.below(11) {
        0 => Value::dict([("$raw", Value::str(rng.pick(names)))]),
        1 => named(Value::str(rng.pick(&STRAY_NAMES))),
        2 => function(named(Value::str(rng.pick(names)))),
        3 => function(Value::None),
        4 => function(named(Value::int(5))),
        5 => function(Value::dict::<'_>([])),
        6 => Value::int(42),
        7 => Value::None,
        8 => Value::List(Vec::new()),
        9 => Value::str(""),
        _ => Value::dict([
            ("type", Value::str("function")),
            ("function", named(Value::str(""))),
        ]),
    }
}
