//! The templates toolfix ships: formats of model families that no built-in dialect reads,
//! declared as data (`shipped/NAME.json`), each learned from the family's chat template and
//! checked against the engine's own parser (`scripts/template_differential.py`).

/// Each shipped template's name and JSON text, by name.
const TEMPLATES: &[(&str, &str)] = &[
    ("beam", include_str!("shipped/beam.json")),
    (
        "cohere_command4",
        include_str!("shipped/cohere_command4.json"),
    ),
    ("dots", include_str!("shipped/dots.json")),
    ("gigachat3", include_str!("shipped/gigachat3.json")),
    ("hunyuan", include_str!("shipped/hunyuan.json")),
    ("inkling", include_str!("shipped/inkling.json")),
    ("interns1", include_str!("shipped/interns1.json")),
    ("iquest_q1", include_str!("shipped/iquest_q1.json")),
    ("k2_horizon", include_str!("shipped/k2_horizon.json")),
    ("kimi_k3", include_str!("shipped/kimi_k3.json")),
    ("minicpm5", include_str!("shipped/minicpm5.json")),
    ("minimax-m3", include_str!("shipped/minimax-m3.json")),
    ("muse", include_str!("shipped/muse.json")),
    ("step3", include_str!("shipped/step3.json")),
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

/// The JSON text of the template named `name`.
pub fn text(name: &str) -> Option<&'static str> {
    TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::super::Template;
    use super::*;

    #[test]
    fn every_shipped_template_loads_and_is_listed_once() {
        for (i, name) in NAMES.iter().enumerate() {
            assert!(!NAMES[..i].contains(name), "{name} twice");
            let loaded = Template::from_json(text(name).unwrap());
            assert!(loaded.is_ok(), "{name}: {:?}", loaded.err());
        }
    }
}
