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

use super::outcome::{Outcome, Verdict};
use super::result::CaseResult;
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

    /// Whether the run passes: no case fails it, and under `--strict` no stale entry.
    pub fn conformant(&self) -> bool {
        self.summary().failed == 0 && (self.stale.is_empty() || !self.strict)
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

/// Text cut to `max` characters, saying how much was left out.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}… ({} more bytes)", &text[..cut], text.len() - cut),
    }
}
