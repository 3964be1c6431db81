//! Reading a JSON-lines report back, for `toolfix report`.

use std::path::Path;
use std::time::Duration;

use super::{Declared, Implementation, Report};
use crate::conform::result::{CaseResult, Known};
use crate::protocol::fields::Fields;
use crate::protocol::wire::decode_line;
use crate::suite::guarantee::{self, Rule};
use toolfix::py::Value;

/// Reads a report file; the message names the file and line.
pub fn load(path: &Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads the text of a report.
pub fn parse(text: &str) -> Result<Report, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or("the report is empty")?;
    let mut report = header(&decode_line(first.as_bytes())?).map_err(|e| format!("line 1: {e}"))?;
    let mut footer_seen = false;
    for (n, line) in lines {
        let at = |e: String| format!("line {}: {e}", n + 1);
        let value = decode_line(line.as_bytes()).map_err(at)?;
        let fields = Fields::of(&value, "line").map_err(at)?;
        match fields.str("type").map_err(at)? {
            "case" => report.results.push(case(&fields).map_err(at)?),
            "footer" => {
                footer(&fields, &mut report).map_err(at)?;
                footer_seen = true;
            }
            other => return Err(at(format!("unknown line type {other:?}"))),
        }
    }
    if !footer_seen {
        report.partial = true;
        report
            .notes
            .push("the report has no footer: the run was cut short".to_owned());
    }
    Ok(report)
}

fn header(value: &Value) -> Result<Report, String> {
    let fields = Fields::of(value, "header")?;
    if fields.str("type")? != "header" {
        return Err("the first line is not a header".to_owned());
    }
    let who = Fields::of(fields.value("implementation")?, "implementation")?;
    let suite = Fields::of(fields.value("suite")?, "suite")?;
    Ok(Report {
        implementation: Implementation {
            name: who.str("name")?.to_owned(),
            version: who.str("version")?.to_owned(),
            language: who.str("language")?.to_owned(),
            command: optional(&fields, "command")?,
            declared_profile: optional(&fields, "declared_profile")?
                .map(|p| p.parse())
                .transpose()?,
            declared: declared(fields.get("declared"))?,
        },
        profiles: texts(&fields, "profiles")?
            .iter()
            .map(|p| p.parse())
            .collect::<Result<_, _>>()?,
        cases_dir: suite.str("cases_dir")?.to_owned(),
        suite_cases: count(suite.value("cases")?)?,
        started: fields.str("started")?.to_owned(),
        duration: Duration::ZERO,
        strict: fields.opt_bool("strict")?.unwrap_or(true),
        results: Vec::new(),
        partial: false,
        restarts: 0,
        stale: Vec::new(),
        notes: Vec::new(),
    })
}

fn case(fields: &Fields<'_>) -> Result<CaseResult, String> {
    let known = match fields.get("known") {
        None | Some(Value::None) => None,
        Some(value) => {
            let k = Fields::of(value, "known")?;
            Some(Known {
                id: k.str("id")?.to_owned(),
                reason: k.str("reason")?.to_owned(),
                link: k.str("link")?.to_owned(),
                was: k.parse("was")?,
            })
        }
    };
    let rule = rule(fields, "rule")?;
    Ok(CaseResult {
        id: fields.str("id")?.to_owned(),
        profile: fields.parse("profile")?,
        op: fields.str("op")?.to_owned(),
        outcome: fields.parse("outcome")?,
        level: fields.parse("level")?,
        duration: millis(fields.value("duration_ms")?),
        expected: fields.value("expected")?.clone(),
        accepted: fields.opt_list("accepted")?.to_vec(),
        actual: fields
            .get("actual")
            .filter(|v| !matches!(v, Value::None))
            .cloned(),
        message: optional(fields, "message")?,
        deviation: optional(fields, "deviation")?,
        rule,
        // Reports written before failures were filed under the rule they break have no
        // `checks`: their `rule` is the case's.
        checks: match fields.get("checks") {
            None => rule,
            Some(_) => self::rule(fields, "checks")?,
        },
        source: optional(fields, "source")?.unwrap_or_default(),
        tags: texts(fields, "tags")?,
        dialects: texts(fields, "dialects")?,
        reproduce: optional(fields, "reproduce")?,
        stderr: fields.py_str("stderr")?.to_string(),
        known,
    })
}

/// A rule id field (`null` or absent: none).
fn rule(fields: &Fields<'_>, key: &str) -> Result<Option<&'static Rule>, String> {
    match optional(fields, key)? {
        Some(id) => Ok(Some(
            guarantee::find(&id).ok_or_else(|| format!("unknown rule {id:?}"))?,
        )),
        None => Ok(None),
    }
}

fn footer(fields: &Fields<'_>, report: &mut Report) -> Result<(), String> {
    report.partial = fields.opt_bool("partial")?.unwrap_or(false);
    report.restarts = u32::try_from(count(fields.value("restarts")?)?).unwrap_or(u32::MAX);
    report.stale = texts(fields, "stale_known_failures")?;
    report.notes.extend(texts(fields, "notes")?);
    report.duration = millis(fields.value("duration_ms")?);
    Ok(())
}

/// The header's `declared` object (absent in reports of older runs).
fn declared(value: Option<&Value>) -> Result<Declared, String> {
    let Some(value) = value.filter(|v| !matches!(v, Value::None)) else {
        return Ok(Declared::default());
    };
    let fields = Fields::of(value, "declared")?;
    let policies = match fields.get("policies") {
        Some(Value::Dict(dict)) => dict
            .iter()
            .map(|(p, v)| match v {
                Value::Bool(b) => Ok((p.to_string(), *b)),
                _ => Err(format!("policy {p} is not a boolean")),
            })
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    Ok(Declared {
        ops: texts(&fields, "ops")?,
        dialects: texts(&fields, "dialects")?,
        policies,
    })
}

fn optional(fields: &Fields<'_>, key: &str) -> Result<Option<String>, String> {
    Ok(fields.opt_py_str(key)?.map(ToString::to_string))
}

fn texts(fields: &Fields<'_>, key: &str) -> Result<Vec<String>, String> {
    fields
        .opt_list(key)?
        .iter()
        .map(|v| {
            v.as_py_str()
                .map(ToString::to_string)
                .ok_or_else(|| format!("{key} must list strings"))
        })
        .collect()
}

fn count(value: &Value) -> Result<usize, String> {
    match value {
        Value::Int(n) => n
            .to_i64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| "a count out of range".to_owned()),
        _ => Err("a count must be an integer".to_owned()),
    }
}

fn millis(value: &Value) -> Duration {
    let ms = match value {
        Value::Float(f) => *f,
        Value::Int(n) => n.to_i64().unwrap_or(0) as f64,
        _ => 0.0,
    };
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::report::jsonl;
    use crate::conform::{Options, Quiet, Target, conform, smoke};

    #[test]
    fn a_written_report_reads_back() {
        let report = conform(
            &Target::Reference,
            &smoke::cases(),
            &Options::default(),
            &mut Quiet,
        )
        .unwrap();
        let mut text = Vec::new();
        jsonl::write(&report, &mut text).unwrap();
        let back = parse(&String::from_utf8(text).unwrap()).unwrap();
        assert_eq!(back.implementation, report.implementation);
        assert_eq!(back.profiles, report.profiles);
        assert_eq!(back.summary(), report.summary());
        let strip = |r: &CaseResult| CaseResult {
            duration: Duration::ZERO,
            ..r.clone()
        };
        let results: Vec<_> = report.results.iter().map(strip).collect();
        assert_eq!(back.results.iter().map(strip).collect::<Vec<_>>(), results);
    }

    #[test]
    fn a_report_without_a_footer_is_partial() {
        let header = r#"{"type": "header", "implementation": {"name": "x", "version": "1", "language": "c"}, "profiles": ["strict"], "suite": {"cases_dir": "d", "cases": 0}, "started": "now"}"#;
        let report = parse(header).unwrap();
        assert!(report.partial);
        assert!(parse("").is_err());
        assert!(parse("not json").is_err());
    }
}
