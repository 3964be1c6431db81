//! Running the planned cases of one profile through a session: one round trip per case,
//! restarts within a budget, and second answers charged to the case they belong to.

use std::collections::HashMap;
use std::time::Duration;

use super::outcome::Outcome;
use super::plan::Planned;
use super::reproduce::reproduce;
use super::result::CaseResult;
use super::session::{Duplicate, Exchange, Reply, Session};
use crate::protocol::message::Answer;
use crate::suite::Expected;
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
    result.actual = actual;
    result.message = message;
    result.stderr = exchange.stderr;
    result.reproduce = Some(reproduce(&session.command_line(), planned.case));
    result
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
        actual: None,
        message: None,
        deviation: expectation.deviation.clone(),
        rule: expectation.rule,
        source: case.source.clone(),
        tags: case.tags.clone(),
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
