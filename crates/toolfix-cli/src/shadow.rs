//! The JSON lines `toolfix proxy --shadow` writes, read as a report: each line is a
//! reply where the server's tool calls and toolfix's disagree, and becomes a failed
//! case filed under the rule involved, so `toolfix report` draws the same page as for
//! a conformance run, of the user's own server on their own traffic.

use std::path::Path;
use std::time::Duration;

use toolfix::Profile;
use toolfix::py::Value;
use toolfix::py::json::{DecodeLimits, loads};
use toolfix_harness::conform::{CaseResult, Declared, Implementation, Outcome, Report};
use toolfix_harness::suite::guarantee;

/// Lines nest what a chat reply nests: shallow.
const LIMITS: DecodeLimits = DecodeLimits {
    max_depth: 512,
    int_max_str_digits: None,
};

/// Whether `text` is a shadow file: its first line is a shadow line, not a report header.
pub fn is_shadow(text: &str) -> bool {
    let first = text.lines().find(|line| !line.trim().is_empty());
    first
        .and_then(|line| loads(line.as_bytes(), LIMITS).ok())
        .is_some_and(|value| value.get("rules").is_some() && value.get("type").is_none())
}

/// The report of the shadow file at `path`, whose text is `text`.
pub fn report(path: &Path, text: &str) -> Result<Report, String> {
    let mut results = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let value = loads(line.as_bytes(), LIMITS)
            .map_err(|e| format!("{}: line {}: {e}", path.display(), n + 1))?;
        results.extend(cases(n + 1, &value));
    }
    Ok(Report {
        implementation: Implementation {
            name: format!("shadow: {}", path.display()),
            version: String::new(),
            language: "server".to_owned(),
            // Without a command the page would call the run the embedded reference.
            command: Some(format!("toolfix proxy --shadow {}", path.display())),
            declared_profile: None,
            declared: Declared::default(),
        },
        profiles: vec![Profile::Strict],
        cases_dir: "toolfix proxy --shadow".to_owned(),
        suite_cases: results.len(),
        started: String::new(),
        duration: Duration::ZERO,
        strict: true,
        results,
        partial: false,
        restarts: 0,
        stale: Vec::new(),
        notes: vec![
            "each case is a reply where the server's tool calls and toolfix's salvage disagree"
                .to_owned(),
        ],
    })
}

/// One failed case per rule a line names.
fn cases(line: usize, value: &Value) -> Vec<CaseResult> {
    let rules = match value.get("rules") {
        Some(Value::List(rules)) => rules.as_slice(),
        _ => &[],
    };
    let model = value
        .get("model")
        .and_then(Value::as_py_str)
        .map(|m| m.to_string())
        .unwrap_or_default();
    rules
        .iter()
        .filter_map(|rule| guarantee::find(&rule.as_py_str()?.to_string()))
        .map(|rule| {
            let (feature, message) = match rule.id {
                "G2" => (
                    "salvage-allowlist",
                    "the server sent a call to a tool the request did not offer",
                ),
                _ => (
                    "salvage-tool-call",
                    "the server left a call written in content as text",
                ),
            };
            CaseResult {
                id: format!("{feature}/shadow/line-{line}"),
                profile: Profile::Strict,
                op: "proxy".to_owned(),
                outcome: Outcome::Fail,
                level: rule.level,
                duration: Duration::ZERO,
                expected: value.get("toolfix").cloned().unwrap_or(Value::None),
                accepted: Vec::new(),
                actual: value.get("server").cloned(),
                message: Some(format!("{message} (model {model:?})")),
                deviation: None,
                rule: Some(rule),
                checks: Some(rule),
                source: "toolfix proxy --shadow".to_owned(),
                tags: Vec::new(),
                dialects: Vec::new(),
                reproduce: None,
                stderr: value
                    .get("content")
                    .and_then(Value::as_py_str)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
                known: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_of_a_line_is_a_failed_case_under_it() {
        let text = concat!(
            r#"{"model": "m", "content": "x", "server": null, "toolfix": [], "rules": ["G7"]}"#,
            "\n\n",
            r#"{"model": "m", "content": "", "server": [], "toolfix": [], "rules": ["G7", "G2"]}"#,
            "\n"
        );
        assert!(is_shadow(text));
        assert!(!is_shadow(r#"{"type": "header"}"#));
        let report = report(Path::new("s.jsonl"), text).unwrap();
        let ids: Vec<&str> = report.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "salvage-tool-call/shadow/line-1",
                "salvage-tool-call/shadow/line-3",
                "salvage-allowlist/shadow/line-3"
            ]
        );
        assert!(report.results.iter().all(|r| r.outcome == Outcome::Fail));
    }
}
