//! `toolfix smoke`: one trivial case per op and one well-formed call per dialect, to check a
//! driver speaks the protocol and recovers what it declares before a full run (Bowtie's
//! `smoke`). Each expectation is what the embedded reference answers, so the checks cannot
//! drift from the suite; a driver is sent the checks of the ops and dialects it declares.

use super::outcome::Verdict;
use super::report::Report;
use super::result::CaseResult;
use crate::protocol::message::Answer;
use crate::protocol::ops;
use crate::protocol::wire::decode_line;
use crate::suite::forms::forms;
use crate::suite::{Case, Expectation, Expected, Level};
use toolfix::Dialect;
use toolfix::Profile;
use toolfix::py::Value;

/// One built-in check of an op.
struct OpCheck {
    id: &'static str,
    description: &'static str,
    op: &'static str,
    input: &'static str,
}

/// The op checks, in order.
const CHECKS: [OpCheck; 4] = [
    OpCheck {
        id: "salvage/smoke/clean-reply",
        description: "a reply without a call salvages to null",
        op: "salvage",
        input: r#"{"content": "It is sunny in Paris today.", "tools": ["get_weather"], "adapter": "ollama"}"#,
    },
    OpCheck {
        id: "execute/smoke/exact-name",
        description: "a call by the exact name runs the tool",
        op: "execute",
        input: r#"{"tools": [{"name": "web_search", "params": [{"name": "query"}], "returns_template": "results for {query}"}], "call": {"name": "web_search", "arguments": {"query": "hello"}}}"#,
    },
    OpCheck {
        id: "format_result/smoke/none-result",
        description: "a None result formats as a tool message",
        op: "format_result",
        input: r#"{"adapter": "ollama", "function_name": "get_weather", "tool_result": null, "tool_call_id": "call_1"}"#,
    },
    OpCheck {
        id: "turn/smoke/native-call",
        description: "a native call by the exact name runs the tool, and the next answer ends the turn",
        op: "turn",
        input: r#"{"tools": [{"name": "get_weather", "params": [{"name": "city"}], "returns_template": "{city}: 21C"}], "adapter": "default", "loop": "sync", "replies": [{"content": null, "tool_calls": [{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}, {"content": "It is 21C in Paris."}]}"#,
    },
];

/// The prefix of a dialect check's id; the dialect's name follows, then `/` and the form.
const DIALECT_PREFIX: &str = "salvage/smoke/dialect-";

/// What a dialect check is about.
const DIALECT_DESCRIPTION: &str = "one well-formed call salvages to that call";

/// The checks as cases: one per op, then one per dialect, each expecting under every
/// profile what the reference answers.
pub fn cases() -> Vec<Case> {
    let ops = CHECKS.iter().filter_map(|check| {
        let input = decode_line(check.input.as_bytes()).ok()?;
        case(check.id.to_owned(), check.op, input, &[], check.description)
    });
    let dialects = Dialect::ALL.into_iter().flat_map(|dialect| {
        forms(dialect).iter().filter_map(move |(form, content)| {
            let mut input = vec![
                ("content", Value::str(content)),
                ("tools", Value::List(vec![Value::str("get_weather")])),
                ("adapter", Value::str("ollama")),
            ];
            if dialect == Dialect::Template {
                input.push(("template", Value::str(form)));
            }
            let input = Value::dict(input);
            let id = format!("{DIALECT_PREFIX}{}/{form}", dialect.name());
            let mut case = case(id, "salvage", input, &[dialect.name()], DIALECT_DESCRIPTION)?;
            case.forms = vec![(*form).to_owned()];
            Some(case)
        })
    });
    ops.chain(dialects).collect()
}

/// What a check is about, by case id (a dialect check's id without its form).
pub fn description(id: &str) -> &'static str {
    let id = id.split('@').next().unwrap_or(id);
    match CHECKS.iter().find(|c| c.id == id) {
        Some(check) => check.description,
        None if id.starts_with(DIALECT_PREFIX) => DIALECT_DESCRIPTION,
        None => "",
    }
}

/// One smoke check as `toolfix smoke` reports it: an op check with each of its streaming
/// checks standing alone, or a dialect with all its forms.
#[derive(Debug)]
pub struct Check<'r> {
    /// The check's id (`salvage/smoke/dialect-deepseek` for a dialect).
    pub id: String,
    pub verdict: Verdict,
    /// Each form of a dialect with its verdict, in the order of [`forms`] (empty for an op
    /// check): a form passes when its case and every streaming check of it pass.
    pub forms: Vec<(String, Verdict)>,
    /// The results the check is made of.
    pub results: Vec<&'r CaseResult>,
}

/// The checks of a smoke run. A dialect passes when some form of it passes: a parser
/// written for one model family's form of a dialect speaks that dialect, and a smoke check
/// is about the driver, not about coverage (the full run shows the forms it misses). It is
/// skipped when every form was, and fails otherwise.
pub fn checks(report: &Report) -> Vec<Check<'_>> {
    let mut checks: Vec<Check<'_>> = Vec::new();
    for result in &report.results {
        let base = result.id.split('@').next().unwrap_or(&result.id);
        let Some((dialect, form)) = base
            .strip_prefix(DIALECT_PREFIX)
            .and_then(|rest| rest.split_once('/'))
        else {
            checks.push(Check {
                id: result.id.clone(),
                verdict: result.verdict(report.strict),
                forms: Vec::new(),
                results: vec![result],
            });
            continue;
        };
        let id = format!("{DIALECT_PREFIX}{dialect}");
        let at = match checks.iter().position(|c| c.id == id) {
            Some(at) => at,
            None => {
                checks.push(Check {
                    id,
                    verdict: Verdict::NotSent,
                    forms: Vec::new(),
                    results: Vec::new(),
                });
                checks.len() - 1
            }
        };
        let check = &mut checks[at];
        check.results.push(result);
        let verdict = result.verdict(report.strict);
        match check.forms.iter_mut().find(|(f, _)| f == form) {
            Some((_, seen)) => *seen = worse(*seen, verdict),
            None => check.forms.push((form.to_owned(), verdict)),
        }
    }
    for check in checks.iter_mut().filter(|c| !c.forms.is_empty()) {
        let verdicts = || check.forms.iter().map(|(_, v)| *v);
        check.verdict = if verdicts().any(|v| v == Verdict::Passed) {
            Verdict::Passed
        } else if verdicts().all(|v| v == Verdict::NotSent) {
            Verdict::NotSent
        } else {
            Verdict::Failed
        };
    }
    checks
}

/// A form's verdict from two of its results: it fails if either fails, is not sent if
/// either was not, and passes only if both pass.
fn worse(a: Verdict, b: Verdict) -> Verdict {
    match (a, b) {
        (Verdict::Failed, _) | (_, Verdict::Failed) => Verdict::Failed,
        (Verdict::NotSent, _) | (_, Verdict::NotSent) => Verdict::NotSent,
        _ => a.min(b),
    }
}

fn case(id: String, op: &str, input: Value, dialects: &[&str], description: &str) -> Option<Case> {
    let expectations = Profile::ALL
        .into_iter()
        .map(|profile| match ops::run(op, &input, profile) {
            Answer::Output(output) => Some(Expectation {
                profile,
                expected: Expected::Output(output),
                level: Level::Must,
                deviation: None,
                rule: None,
                accepted: Vec::new(),
            }),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Case {
        id,
        op: op.to_owned(),
        input,
        tags: vec!["smoke".to_owned()],
        dialects: dialects.iter().map(|d| (*d).to_owned()).collect(),
        forms: Vec::new(),
        source: format!("toolfix smoke: {description}"),
        policies: Vec::new(),
        documented: None,
        expectations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_and_dialect_has_a_check_under_every_profile() {
        let cases = cases();
        let all_forms: usize = Dialect::ALL.into_iter().map(|d| forms(d).len()).sum();
        assert_eq!(cases.len(), CHECKS.len() + all_forms);
        assert!(
            cases
                .iter()
                .all(|c| c.expectations.len() == Profile::ALL.len())
        );
        // `salvage_stream` is checked by the streaming variants of these cases
        // (`conform::streaming`), not by a check of its own.
        for op in ops::OPS.into_iter().filter(|op| *op != "salvage_stream") {
            assert!(cases.iter().any(|c| c.op == op), "{op}");
        }
        for dialect in Dialect::ALL {
            assert!(!forms(dialect).is_empty(), "{dialect:?} has no form");
        }
    }

    #[test]
    fn each_form_is_one_get_weather_call_in_the_reference() {
        let want = Value::dict([("city", Value::str("Paris"))]);
        for case in cases().into_iter().filter(|c| !c.dialects.is_empty()) {
            let strict = case
                .expectation(Profile::Strict)
                .expect("a strict expectation");
            let Expected::Output(output) = &strict.expected else {
                panic!("{}: an error", case.id);
            };
            let calls = crate::suite::semantic::calls(output).expect("calls");
            assert_eq!(calls.len(), 1, "{}", case.id);
            assert_eq!(calls[0].name, Value::str("get_weather"), "{}", case.id);
            assert!(
                crate::suite::semantic::same_value(&calls[0].arguments, &want),
                "{}: {:?}",
                case.id,
                calls[0].arguments
            );
        }
    }

    #[test]
    fn a_dialect_passes_on_any_one_of_its_forms() {
        use crate::conform::{Options, Quiet, Target, conform};
        let report = conform(
            &Target::Reference,
            &cases(),
            &Options {
                profile: Some(Profile::Strict),
                ..Options::default()
            },
            &mut Quiet,
        )
        .expect("the reference runs");
        let mut report = report;
        // The reference reads every form; pretend it missed DeepSeek V3 and V3.2.
        for result in &mut report.results {
            if result.id.starts_with("salvage/smoke/dialect-deepseek/v3@")
                || result.id == "salvage/smoke/dialect-deepseek/v3"
                || result
                    .id
                    .starts_with("salvage/smoke/dialect-deepseek/v3-2-dsml")
            {
                result.outcome = super::super::Outcome::Fail;
            }
        }
        let judged = checks(&report);
        let deepseek = judged
            .iter()
            .find(|c| c.id == "salvage/smoke/dialect-deepseek")
            .expect("the deepseek check");
        assert_eq!(deepseek.verdict, Verdict::Passed);
        let verdicts: Vec<(&str, Verdict)> = deepseek
            .forms
            .iter()
            .map(|(f, v)| (f.as_str(), *v))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("v3-1", Verdict::Passed),
                ("v3", Verdict::Failed),
                ("v3-2-dsml", Verdict::Failed),
                ("v4", Verdict::Passed),
                ("v4-1", Verdict::Passed)
            ]
        );
        for result in &mut report.results {
            if result.id.starts_with("salvage/smoke/dialect-deepseek/") {
                result.outcome = super::super::Outcome::Fail;
            }
        }
        let judged = checks(&report);
        let deepseek = judged
            .iter()
            .find(|c| c.id == "salvage/smoke/dialect-deepseek")
            .expect("the deepseek check");
        assert_eq!(deepseek.verdict, Verdict::Failed);
    }
}
