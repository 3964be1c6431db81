//! A finished run, and the forms it is written in: a human summary, JSON lines (the
//! primary record, which `toolfix report` reads back), JUnit XML, Markdown, and an HTML
//! matrix of several runs.

pub mod html;
pub mod human;
pub mod jsonl;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod read;

mod escape;

use std::collections::BTreeMap;
use std::time::Duration;

use super::kind::Kind;
use super::outcome::{Outcome, Verdict};
use super::result::CaseResult;
use crate::suite::guarantee::{self, Rule};
use toolfix::Profile;

/// Who was run, as reports name it.
#[derive(Clone, Debug, PartialEq)]
pub struct Implementation {
    pub name: String,
    pub version: String,
    pub language: String,
    /// The `--impl` command; `None` for the embedded reference.
    pub command: Option<String>,
    /// The profile the implementation declared (none for the embedded reference).
    pub declared_profile: Option<Profile>,
    /// What it declared: its ops, its dialects and its policies (`docs/guarantees.md`).
    pub declared: Declared,
}

/// An implementation's declarations, as reports print them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Declared {
    /// The ops.
    pub ops: Vec<String>,
    /// The salvage dialects.
    pub dialects: Vec<String>,
    /// The policies with their values.
    pub policies: Vec<(String, bool)>,
}

impl Declared {
    /// `ops: salvage; dialects: tool_call, react; policies: adapters, unclosed_calls`
    /// (the policies declared `true`).
    pub fn line(&self) -> String {
        let on: Vec<&str> = self
            .policies
            .iter()
            .filter(|(_, v)| *v)
            .map(|(p, _)| p.as_str())
            .collect();
        let list = |items: &[&str]| match items {
            [] => "none".to_owned(),
            items => items.join(", "),
        };
        let ops: Vec<&str> = self.ops.iter().map(String::as_str).collect();
        let dialects: Vec<&str> = self.dialects.iter().map(String::as_str).collect();
        format!(
            "ops: {}; dialects: {}; policies: {}",
            list(&ops),
            list(&dialects),
            list(&on)
        )
    }
}

impl Implementation {
    /// `name version (language)`.
    pub fn title(&self) -> String {
        format!("{} {} ({})", self.name, self.version, self.language)
    }
}

/// One run of the suite against one implementation, under one or more profiles.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub implementation: Implementation,
    /// The profiles run, in order.
    pub profiles: Vec<Profile>,
    /// Where the cases came from.
    pub cases_dir: String,
    /// How many cases the suite holds (before filters).
    pub suite_cases: usize,
    /// When the run started (RFC 3339 UTC).
    pub started: String,
    pub duration: Duration,
    /// Whether `--strict` was in force.
    pub strict: bool,
    pub results: Vec<CaseResult>,
    /// Whether some cases were never attempted.
    pub partial: bool,
    /// How many times the implementation was restarted.
    pub restarts: u32,
    /// Known-failures entries that matched no case.
    pub stale: Vec<String>,
    /// Why the run stopped early, and other notes.
    pub notes: Vec<String>,
}

/// The three numbers of `conformance: N passed, N failed, N skipped`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Summary {
    /// Counts results by verdict.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CaseResult>, strict: bool) -> Summary {
        let mut summary = Summary::default();
        for result in results {
            match result.verdict(strict) {
                Verdict::Passed => summary.passed += 1,
                Verdict::Failed => summary.failed += 1,
                Verdict::Skipped => summary.skipped += 1,
            }
        }
        summary
    }

    /// Every case counted.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.skipped
    }

    /// The closing line of a human report.
    pub fn line(&self) -> String {
        format!(
            "conformance: {} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

impl Report {
    /// The whole run's summary.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.results, self.strict)
    }

    /// Whether the run passes: no case fails it, under `--strict` no stale entry, and it
    /// checked something ([`Report::unchecked`]).
    pub fn conformant(&self) -> bool {
        self.summary().failed == 0
            && (self.stale.is_empty() || !self.strict)
            && self.unchecked().is_empty()
    }

    /// Why a run without failures still does not conform: nothing passed at all, or every
    /// case of a declared op was skipped or declined. A driver that answers `skipped` to
    /// everything has checked nothing.
    pub fn unchecked(&self) -> Vec<String> {
        if self.results.is_empty() {
            return Vec::new();
        }
        let mut reasons = Vec::new();
        if self.summary().passed == 0 {
            reasons.push("no case passed".to_owned());
        }
        for op in &self.implementation.declared.ops {
            let mut of_op = self.results.iter().filter(|r| &r.op == op).peekable();
            if of_op.peek().is_some()
                && of_op.all(|r| matches!(r.outcome, Outcome::Skip | Outcome::Declined))
            {
                reasons.push(format!(
                    "the implementation declares op {op}, but every case of it was skipped or declined"
                ));
            }
        }
        reasons
    }

    /// The summary of each feature (the first segment of case ids), by feature name.
    pub fn features(&self) -> BTreeMap<&str, Summary> {
        let mut features: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
        for result in &self.results {
            features.entry(result.feature()).or_default().push(result);
        }
        features
            .into_iter()
            .map(|(feature, results)| (feature, Summary::of(results, self.strict)))
            .collect()
    }

    /// The cases that fail the run.
    pub fn failures(&self) -> impl Iterator<Item = &CaseResult> {
        self.results
            .iter()
            .filter(|r| r.verdict(self.strict) == Verdict::Failed)
    }

    /// The failing cases grouped by kind, then by the rule they check, most dangerous
    /// kind first; cases of no rule come last in their kind.
    pub fn failure_groups(&self) -> Vec<FailureGroup<'_>> {
        let mut groups: BTreeMap<(Kind, &str), FailureGroup<'_>> = BTreeMap::new();
        for result in self.failures() {
            let kind = result.kind().unwrap_or(Kind::DifferentOutput);
            let order = result.rule.map_or("~", |r| r.id);
            groups
                .entry((kind, order))
                .or_insert_with(|| FailureGroup {
                    kind,
                    rule: result.rule,
                    results: Vec::new(),
                })
                .results
                .push(result);
        }
        let mut groups: Vec<_> = groups.into_values().collect();
        groups.sort_by_key(|g| (g.kind, g.rule.map_or(usize::MAX, rule_order)));
        groups
    }

    /// Known failures on a safety rule at `must`: listed on every run, whatever the
    /// known-failures file says.
    pub fn silenced_safety(&self) -> Vec<&CaseResult> {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::Xfail && r.breaks_safety())
            .collect()
    }

    /// How many cases ended in each outcome that occurred, in outcome order.
    pub fn outcome_counts(&self) -> Vec<(Outcome, usize)> {
        Outcome::ALL
            .into_iter()
            .map(|o| (o, self.results.iter().filter(|r| r.outcome == o).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// `name version (language)`, with the profiles run.
    pub fn title(&self) -> String {
        let profiles: Vec<&str> = self.profiles.iter().map(|p| p.name()).collect();
        format!("{} [{}]", self.implementation.title(), profiles.join(", "))
    }
}

/// Failing cases of one kind that check one rule.
#[derive(Clone, Debug)]
pub struct FailureGroup<'a> {
    /// What kind of failure.
    pub kind: Kind,
    /// The rule the cases check, when they name one.
    pub rule: Option<&'static Rule>,
    /// The cases, in run order.
    pub results: Vec<&'a CaseResult>,
}

impl FailureGroup<'_> {
    /// `extra call · G1 an example in a code fence never runs (must, safety)`.
    pub fn heading(&self) -> String {
        match self.rule {
            Some(rule) => format!("{} · {}", self.kind, describe_rule(rule)),
            None => self.kind.to_string(),
        }
    }
}

/// `G1 an example in a code fence never runs (must, safety)`.
pub fn describe_rule(rule: &Rule) -> String {
    let safety = if rule.safety { ", safety" } else { "" };
    format!("{} {} ({}{safety})", rule.id, rule.title, rule.level.name())
}

/// A rule's position in `docs/guarantees.md`.
fn rule_order(rule: &Rule) -> usize {
    guarantee::RULES
        .iter()
        .position(|r| r.id == rule.id)
        .unwrap_or(usize::MAX)
}

/// Text cut to `max` characters, saying how much was left out.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}… ({} more bytes)", &text[..cut], text.len() - cut),
    }
}
