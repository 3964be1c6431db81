//! A self-contained HTML page combining several runs (bowtie.report's matrix): the matrix
//! of runs against features, the cases whose expectation records a deviation of the real
//! package from its documentation, and each run's failures. Inline CSS, no scripts, no
//! external assets, so the page can be attached to a CI run as one file.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::escape::xml;
use super::matrix::{Cell, Column, columns, features};
use super::{Report, clip};
use crate::conform::outcome::Outcome;
use crate::conform::result::CaseResult;
use crate::protocol::wire::encode_line;

/// The most characters of a value shown per failure.
const SHOWN: usize = 3000;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}\
td.cell{text-align:center;font-variant-numeric:tabular-nums}td.na{background:#eee;color:#888}\
pre{white-space:pre-wrap;word-break:break-all;margin:.2em 0;font-size:.85em}\
.o{display:inline-block;padding:0 .4em;border-radius:.3em;font-size:.85em}\
.pass,.xpass{background:#cfc}.fail,.error,.crash,.timeout,.protocol,.not_run{background:#fcc}\
.xfail,.skip{background:#eee}details{margin:.3em 0}summary{cursor:pointer}";

/// The page.
pub fn render(reports: &[Report]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>toolfix conformance</title><style>{STYLE}</style></head><body>\n<h1>toolfix conformance</h1>\n"
    );
    let columns = columns(reports);
    matrix(reports, &columns, &mut out);
    runs(&columns, &mut out);
    deviations(&columns, &mut out);
    failures(&columns, &mut out);
    out.push_str("</body></html>\n");
    out
}

fn matrix(reports: &[Report], columns: &[Column<'_>], out: &mut String) {
    out.push_str("<h2>Features</h2>\n<table><tr><th>feature</th>");
    for column in columns {
        let _ = write!(out, "<th>{}</th>", xml(&column.label()));
    }
    out.push_str("</tr>\n");
    for feature in features(reports) {
        let _ = write!(out, "<tr><td>{}</td>", xml(feature));
        for column in columns {
            cell(column.cell(feature), out);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><th>all</th>");
    for column in columns {
        let total = features(reports).iter().fold(Cell::default(), |sum, f| {
            let c = column.cell(f);
            Cell {
                passed: sum.passed + c.passed,
                total: sum.total + c.total,
            }
        });
        cell(total, out);
    }
    out.push_str("</tr></table>\n");
}

/// A cell: green when every case passed, else from red (none) to yellow (all but one),
/// so a single failure stands out from a clean column.
fn cell(cell: Cell, out: &mut String) {
    if cell.total == 0 {
        out.push_str("<td class=\"cell na\">n/a</td>");
        return;
    }
    let hue = if cell.passed == cell.total {
        120
    } else {
        60 * cell.passed / cell.total
    };
    let _ = write!(
        out,
        "<td class=\"cell\" style=\"background:hsl({hue},70%,85%)\">{}</td>",
        cell.text()
    );
}

fn runs(columns: &[Column<'_>], out: &mut String) {
    out.push_str("<h2>Runs</h2>\n<table><tr><th>run</th><th>command</th><th>started</th><th>result</th></tr>\n");
    for column in columns {
        let report = column.report;
        let summary = super::Summary::of(column.results(), report.strict);
        let command = report
            .implementation
            .command
            .as_deref()
            .unwrap_or("embedded reference");
        let partial = if report.partial { " (partial)" } else { "" };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}{partial}</td></tr>",
            xml(&column.label()),
            xml(command),
            xml(&report.started),
            xml(&summary.line())
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

fn failures(columns: &[Column<'_>], out: &mut String) {
    out.push_str("<h2>Failures</h2>\n");
    for column in columns {
        let listed: Vec<&CaseResult> = column
            .results()
            .filter(|r| !matches!(r.outcome, Outcome::Pass | Outcome::Skip))
            .collect();
        let _ = writeln!(
            out,
            "<h3>{} — {} not passing</h3>",
            xml(&column.label()),
            listed.len()
        );
        for result in listed {
            failure(result, out);
        }
    }
}

fn failure(result: &CaseResult, out: &mut String) {
    let _ = write!(
        out,
        "<details><summary>{} <code>{}</code> ({})</summary>",
        badge(result.outcome),
        xml(&result.id),
        result.level.name()
    );
    let mut field = |name: &str, text: &str| {
        let _ = write!(
            out,
            "<div>{name}:<pre>{}</pre></div>",
            xml(&clip(text, SHOWN))
        );
    };
    if let Some(known) = &result.known {
        field("known failure", &format!("{} {}", known.reason, known.link));
    }
    if let Some(message) = &result.message {
        field("message", message);
    }
    field("expected", &encode_line(&result.expected));
    for other in &result.accepted {
        field("or", &encode_line(other));
    }
    if let Some(actual) = &result.actual {
        field("actual", &encode_line(actual));
    }
    if let Some(reproduce) = &result.reproduce {
        field("reproduce", reproduce);
    }
    if !result.stderr.is_empty() {
        field("stderr", &result.stderr);
    }
    out.push_str("</details>\n");
}

fn badge(outcome: Outcome) -> String {
    format!("<span class=\"o {outcome}\">{outcome}</span>")
}
