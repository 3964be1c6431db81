//! The matrix of runs against features that combined reports show (bowtie.report's
//! view): one column per implementation and profile, one row per feature some run sent a
//! case of (the features no run was sent are named apart, out of the way).
//!
//! A cell is the feature's [`Summary`] in that column, counted as the run counts it
//! (cases, each with its streaming checks), so the cells of a column add up to the run's
//! own numbers: `passed ✓ failed ✗`, and the known failures and `may` differences when
//! there are some.

use std::collections::BTreeSet;

use super::{Report, Summary};
use crate::conform::outcome::Outcome;
use crate::conform::result::CaseResult;
use toolfix::Profile;

/// One column: one profile of one report.
pub struct Column<'a> {
    pub report: &'a Report,
    pub profile: Profile,
}

impl Column<'_> {
    /// `name version (language) [profile]`.
    pub fn label(&self) -> String {
        format!("{} [{}]", self.report.implementation.title(), self.profile)
    }

    /// The column's results.
    pub fn results(&self) -> impl Iterator<Item = &CaseResult> {
        self.report
            .results
            .iter()
            .filter(|r| r.profile == self.profile)
    }

    /// The cell of one feature: its cases' summary in this column.
    pub fn cell(&self, feature: &str) -> Summary {
        Summary::of(
            self.results().filter(|r| r.feature() == feature),
            self.report.strict,
        )
    }
}

/// A cell's text: `n/a` when no case of it was sent, else `P ✓ F ✗`, then `K known` and
/// `M may` when there are some.
pub fn cell_text(cell: &Summary) -> String {
    if cell.sent() == 0 {
        return "n/a".to_owned();
    }
    let mut text = format!("{} ✓ {} ✗", cell.passed, cell.failed);
    if cell.known > 0 {
        text.push_str(&format!(" {} known", cell.known));
    }
    if cell.may > 0 {
        text.push_str(&format!(" {} may", cell.may));
    }
    text
}

/// Every column of `reports`, in order.
pub fn columns(reports: &[Report]) -> Vec<Column<'_>> {
    reports
        .iter()
        .flat_map(|report| {
            report
                .profiles
                .iter()
                .map(move |&profile| Column { report, profile })
        })
        .collect()
}

/// Every feature of `reports`, by name: those some run was sent a case of, then those
/// none was.
pub fn features(reports: &[Report]) -> (Vec<&str>, Vec<&str>) {
    let sent: BTreeSet<&str> = reports
        .iter()
        .flat_map(|r| r.results.iter())
        .filter(|r| r.outcome != Outcome::Skip)
        .map(CaseResult::feature)
        .collect();
    let all: BTreeSet<&str> = reports
        .iter()
        .flat_map(|r| r.results.iter().map(CaseResult::feature))
        .collect();
    all.into_iter().partition(|f| sent.contains(f))
}
