//! The matrix of runs against features that combined reports show (bowtie.report's
//! view): one column per implementation and profile, one row per feature.
//!
//! A cell is `passed/total`: `total` counts the feature's cases that apply to the
//! implementation (everything but `skip`), `passed` those that met their expectation
//! (`pass`, and `xpass` without `--strict`). Known failures and `may` differences are in
//! `total` but not in `passed`: the matrix shows what an implementation does, not what it
//! is excused for.

use std::collections::BTreeSet;

use super::Report;
use crate::conform::outcome::{Outcome, Verdict};
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

    /// The cell of one feature.
    pub fn cell(&self, feature: &str) -> Cell {
        let mut cell = Cell::default();
        for result in self
            .results()
            .filter(|r| r.feature() == feature && r.outcome != Outcome::Skip)
        {
            cell.total += 1;
            if result.verdict(self.report.strict) == Verdict::Passed {
                cell.passed += 1;
            }
        }
        cell
    }
}

/// One cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    pub passed: usize,
    pub total: usize,
}

impl Cell {
    /// `passed/total`, or `n/a` when no case applies.
    pub fn text(&self) -> String {
        if self.total == 0 {
            "n/a".to_owned()
        } else {
            format!("{}/{}", self.passed, self.total)
        }
    }
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

/// Every feature of `reports`, by name.
pub fn features(reports: &[Report]) -> Vec<&str> {
    let all: BTreeSet<&str> = reports
        .iter()
        .flat_map(|r| r.results.iter().map(CaseResult::feature))
        .collect();
    all.into_iter().collect()
}
