//! JUnit XML for CI systems: one `<testsuite>` per profile run, one `<testcase>` per case
//! (classname: the feature). Cases that fail the run are `<failure>` (a wrong answer or an
//! unexpected pass) or `<error>` (the implementation erred, crashed, hung, broke the
//! protocol, or was never run); skips, known failures and `may` differences are
//! `<skipped>` with the reason, so CI shows them without failing on them.

use std::fmt::Write as _;

use super::escape::xml;
use super::{Report, clip};
use crate::conform::outcome::{Outcome, Verdict};
use crate::conform::result::CaseResult;
use crate::protocol::wire::encode_line;

/// The most characters of a value shown in a failure body.
const SHOWN: usize = 4000;

/// The document.
pub fn render(report: &Report) -> String {
    let summary = report.summary();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let errors = report
        .results
        .iter()
        .filter(|r| is_error(r, report.strict))
        .count();
    let _ = writeln!(
        out,
        "<testsuites name=\"toolfix conform\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\" time=\"{:.3}\">",
        summary.total(),
        summary.failed - errors,
        report.duration.as_secs_f64()
    );
    for profile in &report.profiles {
        let results: Vec<&CaseResult> = report
            .results
            .iter()
            .filter(|r| r.profile == *profile)
            .collect();
        suite(
            report,
            &format!("{} [{profile}]", report.implementation.title()),
            &results,
            &mut out,
        );
    }
    out.push_str("</testsuites>\n");
    out
}

fn suite(report: &Report, name: &str, results: &[&CaseResult], out: &mut String) {
    // JUnit counts test cases, and each streaming check is one: count results, not cases.
    let count = |v: Verdict| {
        results
            .iter()
            .filter(|r| r.verdict(report.strict) == v)
            .count()
    };
    let (failed, passed) = (count(Verdict::Failed), count(Verdict::Passed));
    let errors = results
        .iter()
        .filter(|r| is_error(r, report.strict))
        .count();
    let time: f64 = results.iter().map(|r| r.duration.as_secs_f64()).sum();
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\" skipped=\"{}\" time=\"{time:.3}\" timestamp=\"{}\">",
        xml(name),
        results.len(),
        failed - errors,
        results.len() - failed - passed,
        xml(report.started.trim_end_matches('Z')),
    );
    for result in results {
        testcase(result, report.strict, out);
    }
    out.push_str("  </testsuite>\n");
}

fn is_error(result: &CaseResult, strict: bool) -> bool {
    result.verdict(strict) == Verdict::Failed
        && !matches!(result.outcome, Outcome::Fail | Outcome::Xpass)
}

fn testcase(result: &CaseResult, strict: bool, out: &mut String) {
    let _ = write!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\"",
        xml(result.feature()),
        xml(&result.id),
        result.duration.as_secs_f64()
    );
    let message = xml(&clip(&summary(result), 500));
    let body = match result.verdict(strict) {
        Verdict::Passed => None,
        Verdict::Known | Verdict::May | Verdict::NotSent => {
            Some(format!("      <skipped message=\"{message}\"/>\n"))
        }
        Verdict::Failed => {
            let tag = if is_error(result, strict) {
                "error"
            } else {
                "failure"
            };
            let detail = xml(&details(result));
            Some(format!(
                "      <{tag} message=\"{message}\" type=\"{}\">{detail}</{tag}>\n",
                result.outcome
            ))
        }
    };
    let stderr = (!result.stderr.is_empty() && result.outcome != Outcome::Pass)
        .then(|| format!("      <system-err>{}</system-err>\n", xml(&result.stderr)));
    match (body, stderr) {
        (None, None) => out.push_str("/>\n"),
        (body, stderr) => {
            out.push_str(">\n");
            out.push_str(&body.unwrap_or_default());
            out.push_str(&stderr.unwrap_or_default());
            out.push_str("    </testcase>\n");
        }
    }
}

/// One line on what happened.
fn summary(result: &CaseResult) -> String {
    let what = match (&result.known, &result.message) {
        (Some(known), _) => format!("known failure: {}", known.reason),
        (None, Some(message)) => message.clone(),
        (None, None) if result.outcome == Outcome::Fail => {
            "the output differs from the expectation".to_owned()
        }
        (None, None) => String::new(),
    };
    format!("{} ({}): {what}", result.outcome, result.level.name())
}

fn details(result: &CaseResult) -> String {
    let mut text = format!(
        "expected: {}\n",
        clip(&encode_line(&result.expected), SHOWN)
    );
    if let Some(actual) = &result.actual {
        let _ = writeln!(text, "actual:   {}", clip(&encode_line(actual), SHOWN));
    }
    if let Some(reproduce) = &result.reproduce {
        let _ = writeln!(text, "reproduce: {}", clip(reproduce, SHOWN));
    }
    text
}
