//! Markdown for CI step summaries (`$GITHUB_STEP_SUMMARY`): the summary line, what the
//! implementation declares, a table per feature, and the cases that fail the run grouped
//! by kind and rule, with expected and actual as the terminal shows them.

use std::fmt::Write as _;

use super::escape::markdown as md;
use super::matrix::{columns, features};
use super::{Report, clip};
use crate::conform::outcome::Outcome;
use crate::conform::result::CaseResult;
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
    if !report.implementation.declared.ops.is_empty() {
        let _ = writeln!(
            out,
            "Declares {}.\n",
            md(&report.implementation.declared.line())
        );
    }
    if report.partial {
        let _ = writeln!(out, "**Partial run**: some cases were not run.\n");
    }
    for reason in report.unchecked() {
        let _ = writeln!(out, "- **Not conformant**: {}", md(&reason));
    }
    for result in report.silenced_safety() {
        let reason = result.known.as_ref().map_or("", |k| k.reason.as_str());
        let _ = writeln!(
            out,
            "- ⚠️ known failure on a safety rule: `{}` ({}): {}",
            md(&result.id),
            result.rule.map_or("", |r| r.id),
            md(reason)
        );
    }
    for note in report.notes.iter().chain(&report.stale) {
        let _ = writeln!(out, "- {}", md(note));
    }
    out.push_str("\n| feature | passed | failed | skipped |\n|---|---:|---:|---:|\n");
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
    out.push('\n');
    let mut listed = 0;
    for group in report.failure_groups() {
        let _ = writeln!(
            out,
            "<details><summary>{} — {} cases</summary>\n",
            md(&group.heading()),
            group.results.len()
        );
        for result in &group.results {
            if listed < LISTED {
                failure(result, out);
            }
            listed += 1;
        }
        out.push_str("</details>\n\n");
    }
    if listed > LISTED {
        let _ = writeln!(
            out,
            "… {} more failing cases are in the JSON-lines report.\n",
            listed - LISTED
        );
    }
}

/// One failing case: its id, outcome and level, then expected and actual as JSON, the
/// message, the source and the command that replays it.
fn failure(result: &CaseResult, out: &mut String) {
    let _ = writeln!(
        out,
        "- `{}` [{}] **{}** ({})",
        md(&result.id),
        result.profile,
        result.outcome,
        result.level.name()
    );
    let code =
        |label: &str, text: &str| format!("  - {label}: `{}`\n", code_span(&clip(text, 300)));
    if result.outcome != Outcome::NotRun {
        out.push_str(&code("expected", &encode_line(&result.expected)));
        for other in &result.accepted {
            out.push_str(&code("or", &encode_line(other)));
        }
    }
    if let Some(actual) = &result.actual {
        out.push_str(&code("actual", &encode_line(actual)));
    }
    if let Some(message) = &result.message {
        let _ = writeln!(out, "  - message: {}", md(&clip(message, 300)));
    }
    if !result.source.is_empty() {
        let _ = writeln!(out, "  - source: {}", md(&clip(&result.source, 200)));
    }
    if let Some(reproduce) = &result.reproduce {
        out.push_str(&code("reproduce", reproduce));
    }
}

/// Text for inside a Markdown code span: backticks cannot end it early.
fn code_span(text: &str) -> String {
    text.replace('`', "'").replace('\n', " ")
}
