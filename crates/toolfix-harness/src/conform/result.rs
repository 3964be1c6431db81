//! The record of one case under one profile: what every report is made from.

use std::time::Duration;

use super::kind::{self, Kind};
use super::outcome::{Outcome, Verdict, verdict};
use crate::suite::Level;
use crate::suite::guarantee::Rule;
use toolfix::Profile;
use toolfix::py::Value;

/// A known-failures entry that covered a case.
#[derive(Clone, Debug, PartialEq)]
pub struct Known {
    /// The entry's id glob.
    pub id: String,
    /// Why it fails.
    pub reason: String,
    /// Where it is tracked (may be empty).
    pub link: String,
    /// What the case did before the entry was applied (`fail`, `timeout`, … or `pass`).
    pub was: Outcome,
}

/// One case's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    /// The case id, `<feature>/<topic>/<name>`.
    pub id: String,
    /// The profile whose expectation was checked.
    pub profile: Profile,
    /// The protocol op.
    pub op: String,
    /// What happened.
    pub outcome: Outcome,
    /// How binding the expectation is.
    pub level: Level,
    /// Time from sending the request to reading the answer.
    pub duration: Duration,
    /// The expected output, as reports show it.
    pub expected: Value,
    /// The other outputs the case accepts (a portable `accept` list).
    pub accepted: Vec<Value>,
    /// The output the implementation gave, when it gave one.
    pub actual: Option<Value>,
    /// What went wrong, or why the case was skipped.
    pub message: Option<String>,
    /// Where the real package departs from its documentation on this case.
    pub deviation: Option<String>,
    /// The portable rule the result is filed under (`docs/guarantees.md`): the one the
    /// case checks, or the one its failure breaks when that is another (`kind::broken_rule`):
    /// a call to a tool nobody offered is a G2 failure and a call with altered arguments a
    /// G4 failure in any case, so reports and safety warnings name what went wrong.
    pub rule: Option<&'static Rule>,
    /// The portable rule the case itself checks.
    pub checks: Option<&'static Rule>,
    /// Where the case's expectation comes from.
    pub source: String,
    /// The case's tags.
    pub tags: Vec<String>,
    /// The salvage dialects the case needs (reports count results per dialect).
    pub dialects: Vec<String>,
    /// A shell command that replays the case against the implementation.
    pub reproduce: Option<String>,
    /// What the implementation wrote to stderr while the case ran (the tail of it).
    pub stderr: String,
    /// The known-failures entry that covered the case.
    pub known: Option<Known>,
}

impl CaseResult {
    /// The case's feature: the first segment of its id.
    pub fn feature(&self) -> &str {
        self.id.split('/').next().unwrap_or(&self.id)
    }

    /// The id of the case the result is of: a streaming check's case id without its
    /// chunking (`conform::streaming`), any other result's id.
    pub fn case_id(&self) -> &str {
        self.id.split_once('@').map_or(&self.id, |(case, _)| case)
    }

    /// A streaming check's chunking (`one-chunk`, `small`, …); `None` for a batch case.
    pub fn chunking(&self) -> Option<&str> {
        self.id.split_once('@').map(|(_, chunking)| chunking)
    }

    /// Where the case counts, under `--strict` or not.
    pub fn verdict(&self, strict: bool) -> Verdict {
        verdict(self.outcome, self.level, strict)
    }

    /// What kind of failure it is, when it went wrong.
    pub fn kind(&self) -> Option<Kind> {
        kind::of(self)
    }

    /// Whether it is a failure on a safety rule (`docs/guarantees.md`) at `must`, which a
    /// known-failures entry may cover but never silence.
    pub fn breaks_safety(&self) -> bool {
        self.level == Level::Must
            && self.rule.is_some_and(|r| r.safety)
            && (self.outcome.is_failure() || self.outcome == Outcome::Xfail)
    }
}
