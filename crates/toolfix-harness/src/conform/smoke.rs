//! `toolfix smoke`: a handful of trivial cases per op, to check an adapter speaks the
//! protocol before a full run (Bowtie's `smoke`). Each expectation is what the embedded
//! reference answers, so the checks cannot drift from the suite.

use crate::protocol::message::Answer;
use crate::protocol::ops;
use crate::protocol::wire::decode_line;
use crate::suite::{Case, Expectation, Expected, Level};
use toolfix::Profile;

/// One built-in check.
pub struct Check {
    /// The case id.
    pub id: &'static str,
    /// What it checks, for people.
    pub description: &'static str,
    op: &'static str,
    dialects: &'static [&'static str],
    input: &'static str,
}

/// The checks, in order.
pub const CHECKS: [Check; 4] = [
    Check {
        id: "salvage/smoke/clean-reply",
        description: "a reply without a call salvages to null",
        op: "salvage",
        dialects: &[],
        input: r#"{"content": "It is sunny in Paris today.", "tools": ["get_weather"], "adapter": "ollama"}"#,
    },
    Check {
        id: "salvage/smoke/one-tool-call",
        description: "one <tool_call> block salvages to its call",
        op: "salvage",
        dialects: &["tool_call"],
        input: r#"{"content": "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>", "tools": ["get_weather"], "adapter": "ollama"}"#,
    },
    Check {
        id: "execute/smoke/exact-name",
        description: "a call by the exact name runs the tool",
        op: "execute",
        dialects: &[],
        input: r#"{"tools": [{"name": "web_search", "params": [{"name": "query"}], "returns_template": "results for {query}"}], "call": {"name": "web_search", "arguments": {"query": "hello"}}}"#,
    },
    Check {
        id: "format_result/smoke/none-result",
        description: "a None result formats as a tool message",
        op: "format_result",
        dialects: &[],
        input: r#"{"adapter": "ollama", "function_name": "get_weather", "tool_result": null, "tool_call_id": "call_1"}"#,
    },
];

/// The checks as cases, expecting under each profile what the reference answers.
pub fn cases() -> Vec<Case> {
    CHECKS.iter().filter_map(case).collect()
}

/// What a check is about, by case id.
pub fn description(id: &str) -> &'static str {
    CHECKS
        .iter()
        .find(|c| c.id == id)
        .map_or("", |c| c.description)
}

fn case(check: &Check) -> Option<Case> {
    let input = decode_line(check.input.as_bytes()).ok()?;
    let expectations = Profile::ALL
        .into_iter()
        .map(|profile| match ops::run(check.op, &input, profile) {
            Answer::Output(output) => Some(Expectation {
                profile,
                expected: Expected::Output(output),
                level: Level::Must,
                deviation: None,
            }),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Case {
        id: check.id.to_owned(),
        op: check.op.to_owned(),
        input,
        tags: vec!["smoke".to_owned()],
        dialects: check.dialects.iter().map(|d| (*d).to_owned()).collect(),
        source: format!("toolfix smoke: {}", check.description),
        documented: None,
        expectations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_has_an_expectation_under_every_profile() {
        let cases = cases();
        assert_eq!(cases.len(), CHECKS.len());
        assert!(
            cases
                .iter()
                .all(|c| c.expectations.len() == Profile::ALL.len())
        );
    }
}
