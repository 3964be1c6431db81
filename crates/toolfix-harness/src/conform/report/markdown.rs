//! Markdown for CI step summaries (`$GITHUB_STEP_SUMMARY`): the summary line, a table per
//! feature, and the cases that fail the run.

use std::fmt::Write as _;

use super::escape::markdown as md;
use super::matrix::{columns, features};
use super::{Report, clip};
use crate::conform::outcome::Outcome;
use crate::protocol::wire::encode_line;

/// The most failures listed per report; the JSON-lines report has them all.
const LISTED: usize = 100;

/// One run.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    section(report, &mut out);
    out
}

/// Several runs: the matrix of runs against features, then each run.
pub fn render_combined(reports: &[Report]) -> String {
    let mut out = String::from("## toolfix conformance\n\n");
    let columns = columns(reports);
    out.push_str("| feature |");
    for column in &columns {
        let _ = write!(out, " {} |", md(&column.label()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(columns.len()));
    out.push('\n');
    for feature in features(reports) {
        let _ = write!(out, "| {} |", md(feature));
        for column in &columns {
            let _ = write!(out, " {} |", column.cell(feature).text());
        }
        out.push('\n');
    }
    out.push('\n');
    for report in reports {
        section(report, &mut out);
    }
    out
}

fn section(report: &Report, out: &mut String) {
    let summary = report.summary();
    let mark = if report.conformant() { "✅" } else { "❌" };
    let _ = writeln!(out, "### {mark} {}\n", md(&report.title()));
    let _ = writeln!(out, "`{}`\n", summary.line());
    if report.partial {
        let _ = writeln!(out, "**Partial run**: some cases were not run.\n");
    }
    for note in report.notes.iter().chain(&report.stale) {
        let _ = writeln!(out, "- {}", md(note));
    }
    out.push_str("| feature | passed | failed | skipped |\n|---|---:|---:|---:|\n");
    for (feature, s) in report.features() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md(feature),
            s.passed,
            s.failed,
            s.skipped
        );
    }
    let failures: Vec<_> = report.failures().collect();
    if failures.is_empty() {
        out.push('\n');
        return;
    }
    let _ = writeln!(
        out,
        "\n<details><summary>{} failing cases</summary>\n",
        failures.len()
    );
    for result in failures.iter().take(LISTED) {
        let what = match (&result.actual, &result.message) {
            (_, Some(message)) if result.outcome != Outcome::Fail => message.clone(),
            (Some(actual), _) => format!("got {}", encode_line(actual)),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "- `{}` [{}] **{}**: {}",
            md(&result.id),
            result.profile,
            result.outcome,
            md(&clip(&what, 300))
        );
    }
    if failures.len() > LISTED {
        let _ = writeln!(
            out,
            "- … and {} more (see the JSON-lines report)",
            failures.len() - LISTED
        );
    }
    out.push_str("\n</details>\n\n");
}
