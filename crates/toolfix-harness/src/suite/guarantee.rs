//! The portable guarantees (`docs/guarantees.md`) as data: every portable case names the
//! rule it checks, reports group failures by rule, and a known failure on a safety rule
//! is never silent.

use super::case::Level;

/// One rule of `docs/guarantees.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `G1`, `G2`, …: the heading's number in `docs/guarantees.md`.
    pub id: &'static str,
    /// The heading's words.
    pub title: &'static str,
    /// The level of the rule's cases unless a case says otherwise.
    pub level: Level,
    /// Whether breaking it can run something the model did not mean to run: a known
    /// failure on such a rule is reported on every run.
    pub safety: bool,
}

/// Every rule, in the order of `docs/guarantees.md`.
pub const RULES: &[Rule] = &[
    rule(
        "G1",
        "an example in a code fence never runs",
        Level::Must,
        true,
    ),
    rule(
        "G2",
        "only an offered name can be called",
        Level::Must,
        true,
    ),
    rule(
        "G3",
        "never a different tool than the one named",
        Level::Must,
        true,
    ),
    rule(
        "G4",
        "arguments reach the tool as the model wrote them",
        Level::Must,
        true,
    ),
    rule(
        "G5",
        "calls come out in the order they were written",
        Level::Must,
        false,
    ),
    rule("G6", "nothing is recovered from prose", Level::Must, true),
    rule(
        "G7",
        "every well-formed call of a declared dialect is recovered",
        Level::Should,
        false,
    ),
    rule(
        "G8",
        "bad input never crashes or hangs the implementation",
        Level::Must,
        false,
    ),
    rule("G9", "reasoning is not a call", Level::Must, true),
    rule(
        "G10",
        "a drifted name dispatches to the one tool it can mean",
        Level::Should,
        false,
    ),
    rule(
        "G11",
        "an ambiguous or unknown name dispatches nothing",
        Level::Must,
        true,
    ),
    rule(
        "G12",
        "a denied tool never runs, however its name is spelled",
        Level::Must,
        true,
    ),
    rule(
        "G13",
        "arguments that do not bind never run the body",
        Level::Must,
        false,
    ),
    rule(
        "G14",
        "a stream shows the text that is not a call",
        Level::Should,
        false,
    ),
];

const fn rule(id: &'static str, title: &'static str, level: Level, safety: bool) -> Rule {
    Rule {
        id,
        title,
        level,
        safety,
    }
}

/// The rule called `id`.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule is a heading of `docs/guarantees.md` with the same words, in order.
    #[test]
    fn rules_are_the_headings_of_the_guarantees_page() {
        let page = include_str!("../../../../docs/guarantees.md");
        let headings: Vec<&str> = page
            .lines()
            .filter_map(|l| l.strip_prefix("### G"))
            .collect();
        assert_eq!(headings.len(), RULES.len());
        for (rule, heading) in RULES.iter().zip(headings) {
            let (number, rest) = heading.split_once(". ").expect("### Gn. Title (level)");
            assert_eq!(format!("G{number}"), rule.id);
            assert!(
                rest.to_lowercase().starts_with(rule.title),
                "{} is {rest:?} on the page, {:?} here",
                rule.id,
                rule.title
            );
            assert!(rest.contains(rule.level.name()), "{}: level", rule.id);
            assert_eq!(rest.contains("safety"), rule.safety, "{}: safety", rule.id);
        }
    }
}
