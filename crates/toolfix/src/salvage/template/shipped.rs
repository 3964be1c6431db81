//! The templates toolfix ships: formats of model families that no built-in dialect reads,
//! declared as data (`shipped/NAME.json`), each learned from the family's chat template and
//! checked against the engine's own parser (`scripts/template_differential.py`).

use std::sync::OnceLock;

use super::Template;
use super::anchor::crate_source;

/// Each shipped template's name, JSON text and example: one reply holding one call,
/// `get_weather(city="Paris")`, written as the model family writes it.
const TEMPLATES: &[(&str, &str, &str)] = &[
    (
        "beam",
        include_str!("shipped/beam.json"),
        include_str!("shipped/beam.txt"),
    ),
    (
        "cohere_command4",
        include_str!("shipped/cohere_command4.json"),
        include_str!("shipped/cohere_command4.txt"),
    ),
    (
        "dots",
        include_str!("shipped/dots.json"),
        include_str!("shipped/dots.txt"),
    ),
    (
        "gigachat3",
        include_str!("shipped/gigachat3.json"),
        include_str!("shipped/gigachat3.txt"),
    ),
    (
        "granite-20b-fc",
        include_str!("shipped/granite-20b-fc.json"),
        include_str!("shipped/granite-20b-fc.txt"),
    ),
    (
        "hunyuan",
        include_str!("shipped/hunyuan.json"),
        include_str!("shipped/hunyuan.txt"),
    ),
    (
        "hunyuan_a13b",
        include_str!("shipped/hunyuan_a13b.json"),
        include_str!("shipped/hunyuan_a13b.txt"),
    ),
    (
        "inkling",
        include_str!("shipped/inkling.json"),
        include_str!("shipped/inkling.txt"),
    ),
    (
        "interns1",
        include_str!("shipped/interns1.json"),
        include_str!("shipped/interns1.txt"),
    ),
    (
        "iquest_q1",
        include_str!("shipped/iquest_q1.json"),
        include_str!("shipped/iquest_q1.txt"),
    ),
    (
        "jamba",
        include_str!("shipped/jamba.json"),
        include_str!("shipped/jamba.txt"),
    ),
    (
        "k2_horizon",
        include_str!("shipped/k2_horizon.json"),
        include_str!("shipped/k2_horizon.txt"),
    ),
    (
        "kimi_k3",
        include_str!("shipped/kimi_k3.json"),
        include_str!("shipped/kimi_k3.txt"),
    ),
    (
        "longcat",
        include_str!("shipped/longcat.json"),
        include_str!("shipped/longcat.txt"),
    ),
    (
        "minicpm5",
        include_str!("shipped/minicpm5.json"),
        include_str!("shipped/minicpm5.txt"),
    ),
    (
        "minimax-m3",
        include_str!("shipped/minimax-m3.json"),
        include_str!("shipped/minimax-m3.txt"),
    ),
    (
        "muse",
        include_str!("shipped/muse.json"),
        include_str!("shipped/muse.txt"),
    ),
    (
        "plamo3",
        include_str!("shipped/plamo3.json"),
        include_str!("shipped/plamo3.txt"),
    ),
    (
        "step3",
        include_str!("shipped/step3.json"),
        include_str!("shipped/step3.txt"),
    ),
];

/// The names of [`TEMPLATES`], in order.
pub const NAMES: &[&str] = &{
    let mut names = [""; TEMPLATES.len()];
    let mut i = 0;
    while i < TEMPLATES.len() {
        names[i] = TEMPLATES[i].0;
        i += 1;
    }
    names
};

/// The template named `name`, loaded once for the life of the process: a server or a
/// module that reads every request with it compiles its patterns once, and a process
/// that reads with one template compiles no other.
pub fn loaded(name: &str) -> Option<&'static Template> {
    static LOADED: [OnceLock<Template>; TEMPLATES.len()] =
        [const { OnceLock::new() }; TEMPLATES.len()];
    let i = TEMPLATES.iter().position(|t| t.0 == name)?;
    Some(
        LOADED[i]
            .get_or_init(|| Template::from_json(TEMPLATES[i].1).expect("a shipped template loads")),
    )
}

/// Every pattern written in the shipped templates (the values of keys ending in
/// `pattern`), as `Pattern::compile` gives it to the `regex` crate: the walk of groups is
/// checked against the crate on each.
pub fn patterns() -> Vec<String> {
    fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    match value.as_str() {
                        Some(source) if key.ends_with("pattern") => out.push(crate_source(source)),
                        _ => collect(value, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (_, json, _) in TEMPLATES {
        let value = serde_json::from_str(json).expect("a shipped template is JSON");
        collect(&value, &mut out);
    }
    out
}

/// The JSON text of the template named `name`, for the tests that build replies from it.
#[cfg(test)]
pub fn text(name: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|t| t.0 == name).map(|t| t.1)
}

/// The example reply of the template named `name`.
pub fn example(name: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|t| t.0 == name).map(|t| t.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_template_loads_and_reads_its_example() {
        for (i, name) in NAMES.iter().enumerate() {
            assert!(!NAMES[..i].contains(name), "{name} twice");
            let loaded = Template::from_json(text(name).unwrap());
            assert!(loaded.is_ok(), "{name}: {:?}", loaded.err());
            let tools = crate::salvage::Allowlist::new(["get_weather"]);
            let reply = crate::salvage::Request::new(example(name).unwrap(), &tools);
            let calls = super::super::salvage(&reply, &loaded.unwrap());
            assert_eq!(calls.len(), 1, "{name}: its example");
            assert_eq!(
                calls[0].arguments_text().as_str(),
                Some(r#"{"city": "Paris"}"#)
            );
        }
    }
}
