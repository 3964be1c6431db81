//! The JSON-lines report: a header, one line per case, a footer. It is the primary record
//! of a run; `toolfix report` reads it back (`read`). Lines are written with the crate's
//! own encoder, so values with lone surrogates or big integers survive.

use std::io::{self, Write};

use super::{Declared, Report};
use crate::conform::result::CaseResult;
use crate::protocol::PROTOCOL_VERSION;
use crate::protocol::wire::encode_line;
use toolfix::py::Value;

/// Writes the report.
pub fn write(report: &Report, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{}", encode_line(&header(report)))?;
    for result in &report.results {
        writeln!(out, "{}", encode_line(&case(result)))?;
    }
    writeln!(out, "{}", encode_line(&footer(report)))?;
    out.flush()
}

fn header(report: &Report) -> Value {
    let who = &report.implementation;
    Value::dict([
        ("type", Value::str("header")),
        ("toolfix", Value::str(env!("CARGO_PKG_VERSION"))),
        ("protocol", Value::int(PROTOCOL_VERSION)),
        (
            "implementation",
            Value::dict([
                ("name", Value::str(&who.name)),
                ("version", Value::str(&who.version)),
                ("language", Value::str(&who.language)),
            ]),
        ),
        ("command", opt_str(who.command.as_deref())),
        ("declared", declared(&who.declared)),
        (
            "declared_profile",
            opt_str(who.declared_profile.map(|p| p.name())),
        ),
        (
            "profiles",
            strings(report.profiles.iter().map(|p| p.name())),
        ),
        (
            "suite",
            Value::dict([
                ("cases_dir", Value::str(&report.cases_dir)),
                ("cases", count(report.suite_cases)),
            ]),
        ),
        ("strict", Value::Bool(report.strict)),
        ("started", Value::str(&report.started)),
    ])
}

fn case(result: &CaseResult) -> Value {
    let known = result.known.as_ref().map_or(Value::None, |k| {
        Value::dict([
            ("id", Value::str(&k.id)),
            ("reason", Value::str(&k.reason)),
            ("link", Value::str(&k.link)),
            ("was", Value::str(k.was.name())),
        ])
    });
    Value::dict([
        ("type", Value::str("case")),
        ("id", Value::str(&result.id)),
        ("profile", Value::str(result.profile.name())),
        ("op", Value::str(&result.op)),
        ("outcome", Value::str(result.outcome.name())),
        ("level", Value::str(result.level.name())),
        ("duration_ms", millis(result.duration.as_secs_f64())),
        ("expected", result.expected.clone()),
        ("accepted", Value::List(result.accepted.clone())),
        ("actual", result.actual.clone().unwrap_or(Value::None)),
        ("message", opt_str(result.message.as_deref())),
        ("deviation", opt_str(result.deviation.as_deref())),
        ("rule", opt_str(result.rule.map(|r| r.id))),
        ("checks", opt_str(result.checks.map(|r| r.id))),
        ("kind", opt_str(result.kind().map(|k| k.name()))),
        ("source", Value::str(&result.source)),
        ("tags", strings(result.tags.iter().map(String::as_str))),
        (
            "dialects",
            strings(result.dialects.iter().map(String::as_str)),
        ),
        ("reproduce", opt_str(result.reproduce.as_deref())),
        ("stderr", Value::str(&result.stderr)),
        ("known", known),
    ])
}

fn footer(report: &Report) -> Value {
    let summary = report.summary();
    let by_rule = report
        .failed_by_rule()
        .into_iter()
        .map(|(rule, n)| (rule.map_or("none", |r| r.id), count(n)));
    let outcomes = report
        .outcome_counts()
        .into_iter()
        .map(|(o, n)| (o.name(), count(n)));
    Value::dict([
        ("type", Value::str("footer")),
        ("passed", count(summary.passed)),
        ("failed", count(summary.failed)),
        ("failed_by_rule", Value::dict(by_rule)),
        ("known", count(summary.known)),
        ("may", count(summary.may)),
        ("not_sent", count(summary.not_sent)),
        ("checks", count(report.results.len())),
        ("outcomes", Value::dict(outcomes)),
        ("partial", Value::Bool(report.partial)),
        ("restarts", Value::int(i64::from(report.restarts))),
        (
            "stale_known_failures",
            strings(report.stale.iter().map(String::as_str)),
        ),
        ("notes", strings(report.notes.iter().map(String::as_str))),
        (
            "unchecked",
            strings(report.unchecked().iter().map(String::as_str)),
        ),
        ("conformant", Value::Bool(report.conformant())),
        ("duration_ms", millis(report.duration.as_secs_f64())),
    ])
}

/// `{"ops", "dialects", "policies"}`.
fn declared(declared: &Declared) -> Value {
    let policies = declared
        .policies
        .iter()
        .map(|(p, v)| (p.as_str(), Value::Bool(*v)));
    Value::dict([
        ("ops", strings(declared.ops.iter().map(String::as_str))),
        (
            "dialects",
            strings(declared.dialects.iter().map(String::as_str)),
        ),
        ("policies", Value::dict(policies)),
    ])
}

fn opt_str(text: Option<&str>) -> Value {
    text.map_or(Value::None, Value::str)
}

fn strings<'a>(items: impl Iterator<Item = &'a str>) -> Value {
    Value::List(items.map(Value::str).collect())
}

fn count(n: usize) -> Value {
    Value::int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// Seconds as milliseconds, to the microsecond.
fn millis(secs: f64) -> Value {
    Value::Float((secs * 1_000_000.0).round() / 1000.0)
}
