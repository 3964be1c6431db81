//! A self-contained HTML page combining several runs (bowtie.report's matrix): the runs
//! with their counts, the matrix of runs against the features they were sent, each run's
//! failing cases grouped by rule (safety first) and by case, and the cases whose
//! expectation records a deviation of the real package from its documentation. Inline
//! CSS, no scripts, no external assets, so the page can be attached to a CI run as one
//! file. Every failing case opens to the whole command that replays it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::escape::xml;
use super::matrix::{Column, cell_text, columns, features};
use super::{Family, Report, Summary, by_rule_line, clip, failing_cases, failure_groups, families};
use crate::conform::outcome::{Outcome, Verdict};
use crate::protocol::wire::encode_line;

/// The most characters of a value shown per failure.
const SHOWN: usize = 3000;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}\
td.cell{text-align:center;font-variant-numeric:tabular-nums}td.na{background:#eee;color:#888}\
pre{white-space:pre-wrap;word-break:break-all;margin:.2em 0;font-size:.85em}\
.o{display:inline-block;padding:0 .4em;border-radius:.3em;font-size:.85em}\
.pass,.xpass{background:#cfc}.fail,.error,.crash,.timeout,.protocol,.not_run{background:#fcc}\
.xfail,.skip{background:#eee}details{margin:.3em 0}summary{cursor:pointer}p.unsent{color:#666}";

/// The page.
pub fn render(reports: &[Report]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>toolfix conformance</title><style>{STYLE}</style></head><body>\n<h1>toolfix conformance</h1>\n"
    );
    let columns = columns(reports);
    runs(&columns, &mut out);
    matrix(reports, &columns, &mut out);
    failures(&columns, &mut out);
    deviations(&columns, &mut out);
    out.push_str("</body></html>\n");
    out
}

/// The features some run was sent a case of, a cell per run, and the runs' totals; the
/// features no run was sent are named below, out of the way.
fn matrix(reports: &[Report], columns: &[Column<'_>], out: &mut String) {
    out.push_str("<h2>Features</h2>\n<table><tr><th>feature</th>");
    for column in columns {
        let _ = write!(out, "<th>{}</th>", xml(&column.label()));
    }
    out.push_str("</tr>\n");
    let (sent, unsent) = features(reports);
    for feature in sent {
        let _ = write!(out, "<tr><td>{}</td>", xml(feature));
        for column in columns {
            cell(&column.cell(feature), out);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><th>all</th>");
    for column in columns {
        cell(&Summary::of(column.results(), column.report.strict), out);
    }
    out.push_str("</tr></table>\n");
    if !unsent.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"unsent\">Not sent to any run (outside what each declared): {}.</p>",
            xml(&unsent.join(", "))
        );
    }
}

/// A cell: green when every case sent passed, else from red (none) to yellow (all but
/// one), so a single failure stands out from a clean column.
fn cell(cell: &Summary, out: &mut String) {
    let sent = cell.passed + cell.failed;
    if sent == 0 {
        let _ = write!(out, "<td class=\"cell na\">{}</td>", xml(&cell_text(cell)));
        return;
    }
    let hue = if cell.failed == 0 {
        120
    } else {
        60 * cell.passed / sent
    };
    let _ = write!(
        out,
        "<td class=\"cell\" style=\"background:hsl({hue},70%,85%)\">{}</td>",
        xml(&cell_text(cell))
    );
}

fn runs(columns: &[Column<'_>], out: &mut String) {
    out.push_str("<h2>Runs</h2>\n<table><tr><th>run</th><th>command</th><th>started</th><th>result</th><th>failed by rule</th></tr>\n");
    for column in columns {
        let report = column.report;
        let summary = Summary::of(column.results(), report.strict);
        let command = report
            .implementation
            .command
            .as_deref()
            .unwrap_or("embedded reference");
        let partial = if report.partial { " (partial)" } else { "" };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td class=\"summary\">{}{partial}</td><td>{}</td></tr>",
            xml(&column.label()),
            xml(command),
            xml(&report.started),
            xml(&summary.line()),
            xml(&by_rule_line(&report.failed_by_rule()))
        );
    }
    out.push_str("</table>\n");
}

/// Cases whose expectation notes a deviation, with each run's outcome on them.
fn deviations(columns: &[Column<'_>], out: &mut String) {
    let mut noted: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    for result in columns.iter().flat_map(Column::results) {
        if let Some(deviation) = &result.deviation {
            noted.insert((&result.id, result.profile.name()), deviation);
        }
    }
    if noted.is_empty() {
        return;
    }
    out.push_str("<h2>Deviations</h2>\n<p>Cases where the real package departs from its own documentation.</p>\n");
    out.push_str("<table><tr><th>case</th><th>profile</th><th>deviation</th>");
    for column in columns {
        let _ = write!(out, "<th>{}</th>", xml(&column.label()));
    }
    out.push_str("</tr>\n");
    for ((id, profile), deviation) in noted {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{profile}</td><td>{}</td>",
            xml(id),
            xml(deviation)
        );
        for column in columns {
            match column
                .results()
                .find(|r| r.id == id && r.profile.name() == profile)
            {
                Some(r) => {
                    let _ = write!(out, "<td>{}</td>", badge(r.outcome));
                }
                None => out.push_str("<td class=\"na\">—</td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// Each run's failing cases, grouped by rule (safety first) then by case, each opening
/// to what it expected and got and the whole command that replays each failing
/// chunking; then its known failures and `may` differences, folded away.
fn failures(columns: &[Column<'_>], out: &mut String) {
    out.push_str("<h2>Failures</h2>\n");
    for column in columns {
        let strict = column.report.strict;
        let failing = failing_cases(column.results(), strict);
        let _ = writeln!(
            out,
            "<h3>{} — {} failing cases</h3>",
            xml(&column.label()),
            failing.len()
        );
        for group in failure_groups(failing, strict) {
            let _ = writeln!(
                out,
                "<h4 class=\"rule\">{} — {} cases</h4>",
                xml(&group.heading()),
                group.cases.len()
            );
            for family in &group.cases {
                failure(family, strict, out);
            }
        }
        excused(&families(column.results()), strict, out);
    }
}

/// The known failures and `may` differences of a run, folded.
fn excused(cases: &[Family<'_>], strict: bool, out: &mut String) {
    let excused: Vec<&Family<'_>> = cases
        .iter()
        .filter(|f| matches!(f.verdict(strict), Verdict::Known | Verdict::May))
        .collect();
    if excused.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<details class=\"excused\"><summary>{} known failures and may differences</summary><ul>",
        excused.len()
    );
    for family in excused {
        let verdict = family.verdict(strict);
        let _ = write!(
            out,
            "<li><code>{}</code> {} in {}</li>",
            xml(family.id),
            verdict.name(),
            xml(&family.seen_in(verdict, strict).join(", "))
        );
    }
    out.push_str("</ul></details>\n");
}

/// One failing case: its first failing result in full, and the command that replays each
/// failing chunking.
fn failure(family: &Family<'_>, strict: bool, out: &mut String) {
    let Some((result, kind, seen)) = family.shown(strict) else {
        return;
    };
    let _ = write!(
        out,
        "<details class=\"failure\"><summary>{} <code>{}</code> ({}){} — in {}</summary>",
        badge(result.outcome),
        xml(family.id),
        result.level.name(),
        xml(&kind),
        xml(&seen)
    );
    let mut field = |name: &str, class: &str, text: &str| {
        let _ = write!(
            out,
            "<div>{name}:<pre class=\"{class}\">{}</pre></div>",
            xml(text)
        );
    };
    if let Some(message) = &result.message {
        field("message", "message", &clip(message, SHOWN));
    }
    field(
        "expected",
        "expected",
        &clip(&encode_line(&result.expected), SHOWN),
    );
    for other in &result.accepted {
        field("or", "expected", &clip(&encode_line(other), SHOWN));
    }
    if let Some(actual) = &result.actual {
        field("actual", "actual", &clip(&encode_line(actual), SHOWN));
    }
    if !result.source.is_empty() {
        field("source", "source", &result.source);
    }
    for each in family.failing(strict) {
        if let Some(reproduce) = &each.reproduce {
            let label = format!("reproduce ({})", each.chunking().unwrap_or("batch"));
            field(&label, "reproduce", reproduce);
        }
    }
    if !result.stderr.is_empty() {
        field("stderr", "stderr", &clip(&result.stderr, SHOWN));
    }
    out.push_str("</details>\n");
}

fn badge(outcome: Outcome) -> String {
    format!("<span class=\"o {outcome}\">{outcome}</span>")
}
