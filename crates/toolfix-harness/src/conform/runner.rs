//! Running the planned cases of one profile through a session: one round trip per case,
//! restarts within a budget, and second answers charged to the case they belong to.

use std::collections::HashMap;
use std::time::Duration;

use super::kind;
use super::outcome::Outcome;
use super::plan::Planned;
use super::report::describe_rule;
use super::reproduce::reproduce;
use super::result::CaseResult;
use super::session::{Duplicate, Exchange, Reply, Session};
use crate::protocol::message::Answer;
use crate::suite::{Expected, Level};
use toolfix::py::Value;

/// Told about the run as it goes (a progress bar).
pub trait Progress {
    /// The run has `total` cases.
    fn start(&mut self, _total: usize) {}
    /// One case is done.
    fn finished(&mut self, _result: &CaseResult) {}
}

/// No progress display.
pub struct Quiet;

impl Progress for Quiet {}

/// The results of one profile's run.
pub struct RunOutput {
    pub results: Vec<CaseResult>,
    /// How many times the implementation was restarted.
    pub restarts: u32,
    /// Why the run stopped early, leaving cases `not_run`.
    pub halted: Option<String>,
}

/// Runs `plan` through `session`, restarting it at most `max_restarts` times.
pub fn run_plan(
    session: &mut dyn Session,
    plan: &[Planned<'_>],
    max_restarts: u32,
    progress: &mut dyn Progress,
) -> RunOutput {
    let mut run = Run {
        results: Vec::with_capacity(plan.len()),
        by_seq: HashMap::new(),
        restarts: 0,
        halted: None,
    };
    let mut seq = 0;
    for planned in plan {
        let result = if let Some(reason) = &planned.skip {
            not_sent(session, planned, Outcome::Skip, reason.clone())
        } else if let Some(reason) = run.ready(session, max_restarts) {
            not_sent(session, planned, Outcome::NotRun, reason)
        } else {
            seq += 1;
            let exchange = session.exchange(seq, &planned.case.op, &planned.case.input);
            run.by_seq.insert(seq, run.results.len());
            judged(session, planned, exchange)
        };
        progress.finished(&result);
        run.results.push(result);
        run.charge(session.take_duplicates());
    }
    run.charge(session.stop());
    RunOutput {
        results: run.results,
        restarts: run.restarts,
        halted: run.halted,
    }
}

struct Run {
    results: Vec<CaseResult>,
    /// Index in `results` of each seq sent.
    by_seq: HashMap<u64, usize>,
    restarts: u32,
    halted: Option<String>,
}

impl Run {
    /// Restarts the session if it needs it; the reason the case cannot be run otherwise.
    fn ready(&mut self, session: &mut dyn Session, max_restarts: u32) -> Option<String> {
        if self.halted.is_none() && session.needs_restart() {
            if self.restarts >= max_restarts {
                self.halted = Some(format!("the restart budget ({max_restarts}) was spent"));
            } else {
                self.restarts += 1;
                if let Err(e) = session.restart() {
                    self.halted = Some(format!("the implementation could not be restarted: {e}"));
                }
            }
        }
        self.halted.clone()
    }

    /// Turns the cases answered twice into `protocol` outcomes.
    fn charge(&mut self, duplicates: Vec<Duplicate>) {
        for duplicate in duplicates {
            if let Some(result) = self
                .by_seq
                .get(&duplicate.seq)
                .and_then(|&i| self.results.get_mut(i))
            {
                result.outcome = Outcome::Protocol;
                result.message = Some(duplicate.message);
            }
        }
    }
}

/// A case that was not sent: skipped, or not run.
fn not_sent(
    session: &dyn Session,
    planned: &Planned<'_>,
    outcome: Outcome,
    reason: String,
) -> CaseResult {
    let mut result = base(planned, outcome);
    result.message = Some(reason);
    if outcome == Outcome::NotRun {
        result.reproduce = Some(reproduce(&session.command_line(), planned.case));
    }
    result
}

/// A case that was sent, judged on its reply.
fn judged(session: &dyn Session, planned: &Planned<'_>, exchange: Exchange) -> CaseResult {
    let expectation = planned.expectation;
    let (outcome, actual, message) = match exchange.reply {
        Reply::Answered(Answer::Output(output)) => {
            let outcome = if expectation.is_met_by(&planned.case.op, &output) {
                Outcome::Pass
            } else {
                Outcome::Fail
            };
            (outcome, Some(output), None)
        }
        Reply::Answered(Answer::Skipped(why)) if why.trim().is_empty() => (
            Outcome::Protocol,
            None,
            Some("a skipped answer without a reason (the protocol requires one)".to_owned()),
        ),
        Reply::Answered(Answer::Skipped(why)) => (
            Outcome::Declined,
            None,
            Some(format!("the implementation declined it: {why}")),
        ),
        Reply::Answered(Answer::Errored(message)) => (Outcome::Error, None, Some(message)),
        Reply::Broken { outcome, message } => (outcome, None, Some(message)),
    };
    let mut result = base(planned, outcome);
    result.duration = exchange.duration;
    if let (Outcome::Fail, Some(output)) = (outcome, &actual) {
        file_under_broken_rule(&mut result, &planned.case.input, output);
    }
    result.actual = actual;
    result.message = message.or(result.message);
    result.stderr = exchange.stderr;
    result.reproduce = Some(reproduce(&session.command_line(), planned.case));
    result
}

/// Files a failing portable result under the rule its output breaks when that is not
/// the case's own (`kind::broken_rule`), at that rule's level: a call to a tool nobody
/// offered, or with arguments the model did not write, is a safety failure whatever the
/// case is about, and an answer that only leaves calls out is a missed recovery, not a
/// safety failure. A stream whose calls are right but late, or that shows other text, is
/// a G7 or G14 failure (`kind::stream_rule`). A `may` case allows any answer, so its
/// differences break nothing.
fn file_under_broken_rule(result: &mut CaseResult, input: &Value, output: &Value) {
    let Some(checks) = result.checks.filter(|_| result.level != Level::May) else {
        return;
    };
    let accepted: Vec<&Value> = std::iter::once(&result.expected)
        .chain(&result.accepted)
        .collect();
    let streamed = (result.op == "salvage_stream")
        .then(|| kind::stream_rule(&accepted, output))
        .flatten();
    let Some(broken) = streamed.or_else(|| kind::broken_rule(input, &accepted, output, checks))
    else {
        return;
    };
    if broken.id == checks.id {
        return;
    }
    result.rule = Some(broken);
    result.level = broken.level;
    result.message = Some(format!(
        "filed under {} (the case checks {}): {}",
        describe_rule(broken),
        checks.id,
        kind::why_broken(broken, &result.op)
    ));
}

fn base(planned: &Planned<'_>, outcome: Outcome) -> CaseResult {
    let (case, expectation) = (planned.case, planned.expectation);
    CaseResult {
        id: case.id.clone(),
        profile: expectation.profile,
        op: case.op.clone(),
        outcome,
        level: expectation.level,
        duration: Duration::ZERO,
        expected: shown(&expectation.expected),
        accepted: expectation.accepted.clone(),
        actual: None,
        message: None,
        deviation: expectation.deviation.clone(),
        rule: expectation.rule,
        checks: expectation.rule,
        source: case.source.clone(),
        tags: case.tags.clone(),
        dialects: case.dialects.clone(),
        reproduce: None,
        stderr: String::new(),
        known: None,
    }
}

/// An expectation as reports show it: the output, or `{"error": "Class: …"}`.
pub fn shown(expected: &Expected) -> Value {
    match expected {
        Expected::Output(output) => output.clone(),
        Expected::Raises(class) => Value::dict([("error", Value::str(&format!("{class}: …")))]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode_line;
    use crate::suite::guarantee;
    use crate::suite::{Case, Expectation};
    use toolfix::Profile;

    fn value(text: &str) -> Value {
        decode_line(text.as_bytes()).expect("JSON")
    }

    /// A portable salvage case checking `rule` at `level` that expects one `write_note`
    /// call with the whole text.
    fn case(rule: &str, level: Level) -> Case {
        let expected = value(
            r#"{"calls": [{"name": "write_note", "arguments": "{\"text\": \"the </tool_call> tag\"}"}]}"#,
        );
        Case {
            id: "salvage-order/lazy-close/x".to_owned(),
            op: "salvage".to_owned(),
            input: value(
                r#"{"content": "…", "tools": ["write_note", "get_time"], "adapter": "ollama"}"#,
            ),
            tags: Vec::new(),
            dialects: Vec::new(),
            forms: Vec::new(),
            source: "test".to_owned(),
            policies: Vec::new(),
            documented: None,
            expectations: vec![Expectation {
                profile: Profile::Portable,
                expected: Expected::Output(expected),
                level,
                deviation: None,
                rule: guarantee::find(rule),
                accepted: Vec::new(),
            }],
        }
    }

    fn filed(case: &Case, actual: &str) -> CaseResult {
        let planned = Planned {
            case,
            expectation: &case.expectations[0],
            skip: None,
        };
        let mut result = base(&planned, Outcome::Fail);
        file_under_broken_rule(&mut result, &case.input, &value(actual));
        result
    }

    #[test]
    fn cut_arguments_are_a_g4_failure_at_must_whatever_the_case_checks() {
        let case = case("G7", Level::Should);
        let result = filed(
            &case,
            r#"{"calls": [{"name": "write_note", "arguments": "{\"text\": \"the \"}"}]}"#,
        );
        assert_eq!(result.rule.map(|r| r.id), Some("G4"));
        assert_eq!(result.checks.map(|r| r.id), Some("G7"));
        assert_eq!(result.level, Level::Must);
        assert!(result.breaks_safety());
        assert!(result.message.as_deref().unwrap_or("").contains("G4"));
    }

    #[test]
    fn an_unoffered_call_is_a_g2_failure() {
        let case = case("G5", Level::Must);
        let result = filed(
            &case,
            r#"{"calls": [{"name": "wire_transfer", "arguments": "{}"}]}"#,
        );
        assert_eq!(result.rule.map(|r| r.id), Some("G2"));
        assert!(result.breaks_safety());
    }

    #[test]
    fn a_missing_call_on_a_safety_case_is_a_missed_recovery() {
        let fence = case("G1", Level::Must);
        let missing = filed(&fence, r#"{"calls": null}"#);
        assert_eq!(missing.rule.map(|r| r.id), Some("G7"));
        assert_eq!(missing.level, Level::Should);
        assert!(!missing.breaks_safety());
    }

    #[test]
    fn a_missing_call_stays_the_cases_and_a_may_case_breaks_nothing() {
        let should = case("G7", Level::Should);
        let missing = filed(&should, r#"{"calls": null}"#);
        assert_eq!(missing.rule.map(|r| r.id), Some("G7"));
        assert_eq!(missing.level, Level::Should);
        assert!(!missing.breaks_safety());
        let may = case("G7", Level::May);
        let cut = filed(
            &may,
            r#"{"calls": [{"name": "write_note", "arguments": "{}"}]}"#,
        );
        assert_eq!(cut.rule.map(|r| r.id), Some("G7"));
        assert_eq!(cut.level, Level::May);
    }
}
