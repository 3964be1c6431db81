//! Which cases a run covers, and which of them are sent.
//!
//! A case is in the run when it applies to the profile and passes the filters; filtered
//! cases are left out of the report altogether (as toml-test's `-run`). A case in the run
//! whose op, dialects, forms or policies the implementation's declarations leave out is a
//! `skip` with the reason, and is never sent. A streaming check (`conform::streaming`) is
//! held to its batch case's declarations as well as to `salvage_stream`: a case not sent
//! in batch is never sent in chunks.

use crate::protocol::handshake::Handshake;
use crate::suite::{Case, Expectation, Level};
use toolfix::{Adapter, Profile};

/// The `--id`, `--tag` and `--level` filters and their `--exclude-*` opposites; an empty
/// list lets everything through.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Case id globs; a case matching any is in.
    pub ids: Vec<glob::Pattern>,
    /// Tags; a case with any is in.
    pub tags: Vec<String>,
    /// Levels; a case whose expectation has any is in.
    pub levels: Vec<Level>,
    /// Case id globs; a case matching any is out.
    pub exclude_ids: Vec<glob::Pattern>,
    /// Tags; a case with any is out.
    pub exclude_tags: Vec<String>,
}

impl Filter {
    /// Whether the case, under this expectation, is in the run.
    pub fn selects(&self, case: &Case, expectation: &Expectation) -> bool {
        (self.ids.is_empty() || self.ids.iter().any(|p| p.matches(&case.id)))
            && (self.tags.is_empty() || case.tags.iter().any(|t| self.tags.contains(t)))
            && (self.levels.is_empty() || self.levels.contains(&expectation.level))
            && !self.exclude_ids.iter().any(|p| p.matches(&case.id))
            && !case.tags.iter().any(|t| self.exclude_tags.contains(t))
    }
}

/// One case of a run.
#[derive(Clone, Debug)]
pub struct Planned<'a> {
    pub case: &'a Case,
    pub expectation: &'a Expectation,
    /// Why it is not sent, when it is not.
    pub skip: Option<String>,
}

/// The cases of a run under `profile`, in suite order.
pub fn plan<'a>(
    cases: &'a [Case],
    profile: Profile,
    filter: &Filter,
    declared: &Handshake,
) -> Vec<Planned<'a>> {
    cases
        .iter()
        .filter_map(|case| {
            let expectation = case.expectation(profile)?;
            filter.selects(case, expectation).then(|| Planned {
                case,
                expectation,
                skip: undeclared(case, declared),
            })
        })
        .collect()
}

/// What the case needs that the implementation did not declare.
fn undeclared(case: &Case, declared: &Handshake) -> Option<String> {
    if let Some(op) = needed_ops(case).find(|op| !declared.ops.iter().any(|d| d == op)) {
        return Some(format!("the implementation does not declare op {op:?}"));
    }
    if let Some(dialect) = case
        .dialects
        .iter()
        .find(|d| !declared.dialects.contains(d))
    {
        return Some(format!(
            "the implementation does not declare dialect {dialect:?}"
        ));
    }
    if let [dialect] = case.dialects.as_slice() {
        if let Some(form) = case.forms.iter().find(|f| !declared.reads_form(dialect, f)) {
            return Some(format!(
                "the case is written in form {form} of dialect {dialect}, which the implementation does not declare"
            ));
        }
    }
    let (policy, needed) = required_policies(case).find(|(p, v)| declared.policy(p) != *v)?;
    Some(format!(
        "the case is about policy {policy} = {needed}; the implementation declares {}",
        !needed
    ))
}

/// The ops a case needs declared: its own, and for a streaming check its batch case's.
fn needed_ops(case: &Case) -> impl Iterator<Item = &str> {
    let batch = (case.op == "salvage_stream").then_some("salvage");
    batch.into_iter().chain([case.op.as_str()])
}

/// The policies a case needs declared as it says: its own `policies`, and `adapters`
/// for a salvage (batch or streamed) through a hosted adapter (whose answer is "no
/// salvage" only for an implementation that tells adapters apart).
fn required_policies(case: &Case) -> impl Iterator<Item = (&str, bool)> {
    let hosted = matches!(case.op.as_str(), "salvage" | "salvage_stream")
        && case
            .input
            .get("adapter")
            .and_then(|a| a.as_py_str()?.as_str()?.parse::<Adapter>().ok())
            .is_some_and(|a| !a.policy().salvages_text);
    let explicit = case.policies.iter().map(|(p, v)| (p.as_str(), *v));
    explicit.chain(hosted.then_some(("adapters", true)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::streaming;
    use crate::protocol::wire::decode_line;
    use crate::suite::load::load_text;

    const CASES: &str = r#"
[[case]]
name = "hosted"
op = "salvage"
source = "test"
adapter = "anthropic"
tools = ["get_weather"]
content = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
profiles = ["portable"]
portable = { rule = "G6", calls = [] }

[[case]]
name = "v3"
op = "salvage"
source = "test"
adapter = "ollama"
tools = ["get_weather"]
dialects = ["deepseek"]
form = "v3"
content = "text"
profiles = ["portable"]
portable = { rule = "G7", calls = [] }

[[case]]
name = "mixed"
op = "salvage"
source = "test"
adapter = "ollama"
tools = ["get_weather"]
dialects = ["deepseek"]
form = ["v3", "v3-1"]
content = "text"
profiles = ["portable"]
portable = { rule = "G7", calls = [] }
"#;

    fn declared(extra: &str) -> Handshake {
        let line = format!(
            r#"{{"protocol": 1, "implementation": {{"name": "x", "version": "1", "language": "py"}}, "profile": "portable", "ops": ["salvage", "salvage_stream"], "dialects": ["deepseek"]{extra}}}"#
        );
        Handshake::parse(&decode_line(line.as_bytes()).unwrap()).unwrap()
    }

    /// The skip reason of every case and streaming check, by id.
    fn skips(declared: &Handshake) -> Vec<(String, Option<String>)> {
        let mut cases = load_text("t", std::path::Path::new("t.toml"), CASES).unwrap();
        let checks = streaming::checks(&cases, Profile::Portable, false);
        cases.extend(checks);
        plan(&cases, Profile::Portable, &Filter::default(), declared)
            .into_iter()
            .map(|p| (p.case.id.clone(), p.skip))
            .collect()
    }

    #[test]
    fn a_streaming_check_obeys_its_batch_cases_declarations() {
        let planned = skips(&declared(r#", "policies": {"adapters": false}"#));
        let hosted: Vec<_> = planned
            .iter()
            .filter(|(id, _)| id.starts_with("t/hosted"))
            .collect();
        assert!(hosted.len() > 1, "{planned:?}");
        for (id, skip) in hosted {
            assert!(
                skip.as_deref().is_some_and(|s| s.contains("adapters")),
                "{id}"
            );
        }
    }

    #[test]
    fn a_case_of_an_undeclared_form_is_not_sent_nor_are_its_checks() {
        let other = skips(&declared(r#", "forms": {"deepseek": ["v3-1"]}"#));
        let v3: Vec<_> = other
            .iter()
            .filter(|(id, _)| id.starts_with("t/v3"))
            .collect();
        assert!(v3.len() > 1);
        assert!(
            v3.iter()
                .all(|(_, s)| s.as_deref().is_some_and(|s| s.contains("form v3")))
        );
        let same = skips(&declared(r#", "forms": {"deepseek": ["v3"]}"#));
        assert!(
            same.iter()
                .all(|(id, s)| !id.starts_with("t/v3") || s.is_none())
        );
        let none = skips(&declared(""));
        assert!(
            none.iter()
                .all(|(id, s)| !id.starts_with("t/v3") || s.is_none())
        );
    }

    #[test]
    fn a_case_in_two_forms_is_sent_only_to_a_driver_that_reads_both() {
        let sent = |forms: &str| {
            skips(&declared(&format!(r#", "forms": {{"deepseek": {forms}}}"#)))
                .into_iter()
                .filter(|(id, _)| id.starts_with("t/mixed"))
                .all(|(_, skip)| skip.is_none())
        };
        assert!(!sent(r#"["v3"]"#));
        assert!(!sent(r#"["v3-1"]"#));
        assert!(sent(r#"["v3", "v3-1"]"#));
    }
}
