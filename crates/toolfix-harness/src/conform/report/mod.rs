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

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

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

/// The counts of `conformance: N passed, N failed, N known failures, N may differences,
/// N not sent`: each its own number, never folded into another. They count cases, not
/// checks: a salvage case and its streaming checks count once ([`Family`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    /// Listed known failures that still fail.
    pub known: usize,
    /// `may` cases answered differently.
    pub may: usize,
    /// Cases outside what the implementation declared.
    pub not_sent: usize,
}

impl Summary {
    /// Counts the cases of `results` (each with its streaming checks) by verdict.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CaseResult>, strict: bool) -> Summary {
        let mut summary = Summary::default();
        for family in families(results) {
            summary.add(family.verdict(strict), 1);
        }
        summary
    }

    fn add(&mut self, verdict: Verdict, n: usize) {
        *match verdict {
            Verdict::Passed => &mut self.passed,
            Verdict::Failed => &mut self.failed,
            Verdict::Known => &mut self.known,
            Verdict::May => &mut self.may,
            Verdict::NotSent => &mut self.not_sent,
        } += n;
    }

    /// The count of one verdict.
    pub fn get(&self, verdict: Verdict) -> usize {
        match verdict {
            Verdict::Passed => self.passed,
            Verdict::Failed => self.failed,
            Verdict::Known => self.known,
            Verdict::May => self.may,
            Verdict::NotSent => self.not_sent,
        }
    }

    /// Two summaries added up.
    pub fn plus(self, other: Summary) -> Summary {
        let mut sum = self;
        for verdict in Verdict::ALL {
            sum.add(verdict, other.get(verdict));
        }
        sum
    }

    /// Every case counted.
    pub fn total(&self) -> usize {
        Verdict::ALL.into_iter().map(|v| self.get(v)).sum()
    }

    /// The cases sent: every case but those not sent.
    pub fn sent(&self) -> usize {
        self.total() - self.not_sent
    }

    /// The closing line of a human report.
    pub fn line(&self) -> String {
        format!(
            "conformance: {} passed, {} failed, {} known failures, {} may differences, {} not sent",
            self.passed, self.failed, self.known, self.may, self.not_sent
        )
    }
}

/// One case of a run with its streaming checks (`conform::streaming`), under one
/// profile: what counts and failure lists are made of, so a failure seen in batch and in
/// every chunking is one failing case with its chunkings listed.
#[derive(Clone, Debug)]
pub struct Family<'a> {
    /// The case id (without a chunking).
    pub id: &'a str,
    /// The results: the batch case first when it is in the run, then its checks.
    pub results: Vec<&'a CaseResult>,
}

impl<'a> Family<'a> {
    /// The case's verdict: the first of failed, known, may, passed and not sent that one
    /// of its results has.
    pub fn verdict(&self, strict: bool) -> Verdict {
        self.results
            .iter()
            .map(|r| r.verdict(strict))
            .min()
            .unwrap_or(Verdict::NotSent)
    }

    /// The results that fail the run, most dangerous rule first.
    pub fn failing(&self, strict: bool) -> Vec<&'a CaseResult> {
        let mut failing: Vec<&CaseResult> = self
            .results
            .iter()
            .copied()
            .filter(|r| r.verdict(strict) == Verdict::Failed)
            .collect();
        failing.sort_by_key(|r| rule_rank(r.rule));
        failing
    }

    /// How a report shows the case when it fails: its most dangerous failing result,
    /// that result's kind of failure (`, missing call`, or nothing), and where the case
    /// failed (`batch, one-chunk, small`); `None` when it does not fail.
    pub fn shown(&self, strict: bool) -> Option<(&'a CaseResult, String, String)> {
        let first = *self.failing(strict).first()?;
        let kind = first.kind().map_or(String::new(), |k| format!(", {k}"));
        Some((
            first,
            kind,
            self.seen_in(Verdict::Failed, strict).join(", "),
        ))
    }

    /// Where the results of one verdict were seen: `batch` for the case itself, else the
    /// chunking, in run order.
    pub fn seen_in(&self, verdict: Verdict, strict: bool) -> Vec<&'a str> {
        self.results
            .iter()
            .filter(|r| r.verdict(strict) == verdict)
            .map(|r| r.chunking().unwrap_or("batch"))
            .collect()
    }
}

/// The cases of `results`, each with its streaming checks, in the order each first
/// appears; results of different profiles are different cases.
pub fn families<'a>(results: impl IntoIterator<Item = &'a CaseResult>) -> Vec<Family<'a>> {
    let mut index: HashMap<(&str, Profile), usize> = HashMap::new();
    let mut out: Vec<Family<'a>> = Vec::new();
    for result in results {
        let key = (result.case_id(), result.profile);
        let at = *index.entry(key).or_insert_with(|| {
            out.push(Family {
                id: result.case_id(),
                results: Vec::new(),
            });
            out.len() - 1
        });
        out[at].results.push(result);
    }
    out
}

/// The cases of `results` that fail the run, each with its streaming checks.
pub fn failing_cases<'a>(
    results: impl IntoIterator<Item = &'a CaseResult>,
    strict: bool,
) -> Vec<Family<'a>> {
    families(results)
        .into_iter()
        .filter(|f| f.verdict(strict) == Verdict::Failed)
        .collect()
}

/// Where a rule sorts in failure lists: safety rules first, then the others, each in the
/// order of `docs/guarantees.md`, then failures of no rule.
pub fn rule_rank(rule: Option<&Rule>) -> (bool, usize) {
    rule.map_or((true, usize::MAX), |r| (!r.safety, rule_order(r)))
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

    /// Why a run without failures still does not conform: nothing was sent, nothing
    /// passed, or every case of a declared op was skipped or declined. A driver that
    /// answers `skipped` to everything, or declares nothing the suite has, has checked
    /// nothing.
    pub fn unchecked(&self) -> Vec<String> {
        let summary = self.summary();
        if summary.sent() == 0 {
            return vec!["no case was sent".to_owned()];
        }
        let mut reasons = Vec::new();
        if summary.passed == 0 {
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

    /// The cases that fail the run, with their streaming checks.
    pub fn failing_cases(&self) -> Vec<Family<'_>> {
        failing_cases(&self.results, self.strict)
    }

    /// The failing cases grouped by rule ([`failure_groups`]).
    pub fn failure_groups(&self) -> Vec<FailureGroup<'_>> {
        failure_groups(self.failing_cases(), self.strict)
    }

    /// How many cases fail the run under each rule, in [`Report::failure_groups`] order
    /// (`None`: failures of no rule, such as a crash on a case of no rule).
    pub fn failed_by_rule(&self) -> Vec<(Option<&'static Rule>, usize)> {
        self.failure_groups()
            .iter()
            .map(|g| (g.rule, g.cases.len()))
            .collect()
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

/// Failing cases filed under one rule.
#[derive(Clone, Debug)]
pub struct FailureGroup<'a> {
    /// The rule, when they name one.
    pub rule: Option<&'static Rule>,
    /// The cases, each with its streaming checks, in run order.
    pub cases: Vec<Family<'a>>,
}

impl FailureGroup<'_> {
    /// `G1 an example in a code fence never runs (must, safety)`, or `no rule`.
    pub fn heading(&self) -> String {
        self.rule
            .map_or_else(|| "no rule".to_owned(), describe_rule)
    }
}

/// Failing cases grouped by the rule they are filed under (the most dangerous of their
/// failing results'), safety rules first; cases of no rule come last.
pub fn failure_groups(failing: Vec<Family<'_>>, strict: bool) -> Vec<FailureGroup<'_>> {
    let mut groups: BTreeMap<(bool, usize), FailureGroup<'_>> = BTreeMap::new();
    for family in failing {
        let rule = family.failing(strict).first().and_then(|r| r.rule);
        groups
            .entry(rule_rank(rule))
            .or_insert_with(|| FailureGroup {
                rule,
                cases: Vec::new(),
            })
            .cases
            .push(family);
    }
    groups.into_values().collect()
}

/// `G2 3, G4 1, G7 12`: failing cases per rule, safety first.
pub fn by_rule_line(counts: &[(Option<&Rule>, usize)]) -> String {
    let parts: Vec<String> = counts
        .iter()
        .map(|(rule, n)| format!("{} {n}", rule.map_or("no rule", |r| r.id)))
        .collect();
    parts.join(", ")
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
