//! Markdown for CI step summaries (`$GITHUB_STEP_SUMMARY`): the summary line, what the
//! implementation declares, a table per feature sent (the others named below it), and
//! every case that fails the run, grouped by rule (safety first), once with the
//! chunkings it failed in, its expected and actual as the terminal shows them, and the
//! whole command that replays each failing chunking.

use std::fmt::Write as _;

use super::escape::markdown as md;
use super::matrix::{cell_text, columns, features};
use super::{Family, Report, by_rule_line, clip};
use crate::conform::outcome::Outcome;
use crate::protocol::wire::encode_line;

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
    let (sent, unsent) = features(reports);
    for feature in sent {
        let _ = write!(out, "| {} |", md(feature));
        for column in &columns {
            let _ = write!(out, " {} |", cell_text(&column.cell(feature)));
        }
        out.push('\n');
    }
    if !unsent.is_empty() {
        let unsent: Vec<String> = unsent.into_iter().map(md).collect();
        let _ = write!(out, "\nNot sent to any run: {}.\n", unsent.join(", "));
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
    let by_rule = report.failed_by_rule();
    if !by_rule.is_empty() {
        let _ = writeln!(out, "Failed by rule: {}.\n", md(&by_rule_line(&by_rule)));
    }
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
    feature_table(report, out);
    for group in report.failure_groups() {
        let _ = writeln!(
            out,
            "<details><summary>{} — {} cases</summary>\n",
            md(&group.heading()),
            group.cases.len()
        );
        for family in &group.cases {
            failure(family, report.strict, out);
        }
        out.push_str("\n</details>\n\n");
    }
}

/// The table of the features some case was sent of, then the features none was.
fn feature_table(report: &Report, out: &mut String) {
    out.push_str("\n| feature | passed | failed | known | may | not sent |\n|---|---:|---:|---:|---:|---:|\n");
    let mut unsent = Vec::new();
    for (feature, s) in report.features() {
        if s.sent() == 0 {
            unsent.push(md(feature));
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            md(feature),
            s.passed,
            s.failed,
            s.known,
            s.may,
            s.not_sent
        );
    }
    if !unsent.is_empty() {
        let _ = write!(
            out,
            "\nNot sent (outside the declarations): {}.\n",
            unsent.join(", ")
        );
    }
    out.push('\n');
}

/// One failing case: its id, where it failed, then its first failing result's expected
/// and actual as JSON, the message, the source and the command that replays it, and the
/// command that replays each other failing chunking.
fn failure(family: &Family<'_>, strict: bool, out: &mut String) {
    let Some((result, kind, seen)) = family.shown(strict) else {
        return;
    };
    let _ = writeln!(
        out,
        "- {} [{}] **{}** ({}){kind}, in {seen}",
        code_span(family.id),
        result.profile,
        result.outcome,
        result.level.name(),
    );
    let code = |label: &str, text: &str| format!("  - {label}: {}\n", code_span(text));
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
        let _ = writeln!(out, "  - source: {}", md(&result.source));
    }
    for each in family.failing(strict) {
        if let Some(reproduce) = &each.reproduce {
            let label = format!("reproduce ({})", each.chunking().unwrap_or("batch"));
            out.push_str(&code(&label, reproduce));
        }
    }
}

/// A Markdown code span holding `text` as it is: delimited by one backtick more than
/// the longest run of backticks in it (so a fence mark inside shows as written), padded
/// with a space when it starts or ends with one; a line break shows as a space, as in any
/// code span.
fn code_span(text: &str) -> String {
    let text = text.replace(['\r', '\n'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::code_span;

    #[test]
    fn a_code_span_shows_fence_marks_as_written() {
        assert_eq!(code_span("a ```json b"), "````a ```json b````");
        assert_eq!(code_span("`x`"), "`` `x` ``");
        assert_eq!(code_span("plain"), "`plain`");
    }
}
