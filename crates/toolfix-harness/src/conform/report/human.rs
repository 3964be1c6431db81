//! The summary a person reads on stdout: what the implementation declares, per feature,
//! then the cases that fail the run, grouped by the rule they are filed under (safety
//! first), each once with the chunkings its streaming checks failed in, what was
//! expected, what came, its source, the stderr and the command that replays it, then the
//! failed cases per rule and the closing line `conformance: N passed, N failed, N known
//! failures, N may differences, N not sent`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Family, Report, Summary, by_rule_line, clip};
use crate::conform::outcome::Outcome;
use crate::conform::result::CaseResult;
use crate::protocol::wire::encode_line;

/// The most characters of a value or message shown per failure.
const SHOWN: usize = 2000;

/// The whole summary; `quiet` keeps only one line per failing case and the closing line.
pub fn render(reports: &[&Report], quiet: bool) -> String {
    let mut out = String::new();
    for report in reports {
        if quiet {
            for family in report.failing_cases() {
                let _ = writeln!(out, "{}", headline(&family, report.strict));
            }
        } else {
            full(report, &mut out);
        }
        closing_notes(report, &mut out);
    }
    let total = reports
        .iter()
        .fold(Summary::default(), |sum, r| sum.plus(r.summary()));
    out.push_str(&total.line());
    out.push('\n');
    out
}

fn full(report: &Report, out: &mut String) {
    let _ = writeln!(out, "toolfix conform: {}", report.title());
    if let Some(command) = &report.implementation.command {
        let _ = writeln!(out, "command: {command}");
    }
    if let Some(declared) = report.implementation.declared_profile {
        let _ = writeln!(out, "declared profile: {declared}");
    }
    if !report.implementation.declared.ops.is_empty() {
        let _ = writeln!(out, "declares: {}", report.implementation.declared.line());
    }
    let _ = writeln!(
        out,
        "cases: {} from {}\n",
        report.suite_cases, report.cases_dir
    );
    features(report, out);
    for group in report.failure_groups() {
        let _ = writeln!(
            out,
            "\n== {} ({} cases)",
            group.heading(),
            group.cases.len()
        );
        for family in &group.cases {
            failure(family, report.strict, out);
        }
    }
    skips(report, out);
    let counts: Vec<String> = report
        .outcome_counts()
        .iter()
        .map(|(o, n)| format!("{n} {o}"))
        .collect();
    let _ = writeln!(
        out,
        "\noutcomes: {} in {:.2}s",
        counts.join(", "),
        report.duration.as_secs_f64()
    );
}

fn features(report: &Report, out: &mut String) {
    let rows = report.features();
    let width = rows
        .keys()
        .map(|f| f.len())
        .max()
        .unwrap_or(0)
        .max("feature".len());
    let _ = writeln!(
        out,
        "{:width$}  {:>6}  {:>6}  {:>5}  {:>5}  {:>8}",
        "feature", "passed", "failed", "known", "may", "not sent"
    );
    for (feature, s) in rows {
        let _ = writeln!(
            out,
            "{feature:width$}  {:>6}  {:>6}  {:>5}  {:>5}  {:>8}",
            s.passed, s.failed, s.known, s.may, s.not_sent
        );
    }
}

/// Why cases were not sent, with how many each.
fn skips(report: &Report, out: &mut String) {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for result in report.results.iter().filter(|r| r.outcome == Outcome::Skip) {
        *reasons
            .entry(result.message.as_deref().unwrap_or("no reason given"))
            .or_default() += 1;
    }
    if !reasons.is_empty() {
        let _ = writeln!(out, "\nnot sent:");
    }
    for (reason, n) in reasons {
        let _ = writeln!(out, "  {n:>5}  {}", clip(reason, 200));
    }
}

/// `FAIL <case id> [<profile>] <outcome> (<level>), <kind>, in batch, one-chunk, small`.
fn headline(family: &Family<'_>, strict: bool) -> String {
    let Some((first, kind, seen)) = family.shown(strict) else {
        return format!("FAIL {}", family.id);
    };
    format!(
        "FAIL {} [{}] {} ({}){kind}, in {seen}",
        family.id,
        first.profile,
        first.outcome,
        first.level.name(),
    )
}

/// One failing case: its first failing result in full, then the command that replays
/// each other failing chunking.
fn failure(family: &Family<'_>, strict: bool, out: &mut String) {
    let _ = writeln!(out, "\n{}", headline(family, strict));
    let failing = family.failing(strict);
    if let Some(first) = failing.first() {
        details(first, out);
    }
    for other in failing.iter().skip(1) {
        if let Some(reproduce) = &other.reproduce {
            let chunking = other.chunking().unwrap_or("batch");
            let _ = writeln!(out, "  also {chunking}: {reproduce}");
        }
    }
}

/// What one failing result expected and got, and how to replay it.
fn details(result: &CaseResult, out: &mut String) {
    if let Some(chunking) = result.chunking() {
        let _ = writeln!(out, "  shown:     the {chunking} streaming check");
    }
    if let Some(message) = &result.message {
        let _ = writeln!(out, "  message:   {}", clip(message, SHOWN));
    }
    if let Some(known) = &result.known {
        let _ = writeln!(
            out,
            "  listed as known failure {:?}: {}",
            known.id, known.reason
        );
    }
    if result.outcome != Outcome::NotRun {
        let _ = writeln!(
            out,
            "  expected:  {}",
            clip(&encode_line(&result.expected), SHOWN)
        );
        for other in &result.accepted {
            let _ = writeln!(out, "  or:        {}", clip(&encode_line(other), SHOWN));
        }
    }
    if let Some(actual) = &result.actual {
        let _ = writeln!(out, "  actual:    {}", clip(&encode_line(actual), SHOWN));
    }
    if let Some(deviation) = &result.deviation {
        let _ = writeln!(out, "  deviation: {deviation}");
    }
    if !result.source.is_empty() {
        let _ = writeln!(out, "  source:    {}", clip(&result.source, SHOWN));
    }
    if let Some(reproduce) = &result.reproduce {
        let _ = writeln!(out, "  reproduce: {reproduce}");
    }
    if !result.stderr.is_empty() {
        let _ = writeln!(out, "  stderr:");
        for line in result
            .stderr
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let _ = writeln!(out, "    | {}", clip(line, 200));
        }
    }
}

fn closing_notes(report: &Report, out: &mut String) {
    let silenced = report.silenced_safety();
    if !silenced.is_empty() {
        let _ = writeln!(
            out,
            "warning: {} known failures break a safety rule (docs/guarantees.md):",
            silenced.len()
        );
        for result in silenced {
            let rule = result.rule.map_or("", |r| r.id);
            let reason = result.known.as_ref().map_or("", |k| k.reason.as_str());
            let _ = writeln!(out, "  {} [{}] {rule}: {reason}", result.id, result.profile);
        }
    }
    let by_rule = report.failed_by_rule();
    if !by_rule.is_empty() {
        let _ = writeln!(out, "failed by rule: {}", by_rule_line(&by_rule));
    }
    for reason in report.unchecked() {
        let _ = writeln!(out, "not conformant: {reason}");
    }
    let xpasses = report
        .results
        .iter()
        .filter(|r| r.outcome == Outcome::Xpass);
    for result in xpasses.filter(|_| !report.strict) {
        let _ = writeln!(
            out,
            "warning: {} [{}] passes but is listed as a known failure",
            result.id, result.profile
        );
    }
    for stale in &report.stale {
        let _ = writeln!(out, "stale: {stale}");
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if report.partial {
        let not_run = report
            .results
            .iter()
            .filter(|r| r.outcome == Outcome::NotRun)
            .count();
        let _ = writeln!(out, "partial: {not_run} cases were not run");
    }
}
