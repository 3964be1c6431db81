//! What every salvage must keep, whatever the reply: the guarantees the fuzz targets and
//! the property tests assert. Each check returns a description of the first violation.

use std::ops::Range;

use super::reply::Intended;
use super::surrogates::joined;
use toolfix::Profile;
use toolfix::py::json::{self, DecodeLimits};
use toolfix::py::{INT_MAX_STR_DIGITS, Value};
use toolfix::salvage::fenced_ranges;
use toolfix::salvage::{Allowlist, Call, Content, Dialect};

/// A broken guarantee, described for the person reading the failure.
pub type Violation = String;

/// Every check below, in order.
pub fn check_all(
    content: Content<'_>,
    tools: &Allowlist,
    profile: Profile,
    calls: &[Call],
) -> Result<(), Violation> {
    spans_in_bounds(content.as_bytes(), calls)?;
    text_order(calls)?;
    allowlisted(tools, profile, calls)?;
    outside_fences(content, calls)?;
    no_span_starts_inside_another(calls)?;
    arguments_decode(calls)
}

/// Every span is a non-empty range of the content.
pub fn spans_in_bounds(content: &[u8], calls: &[Call]) -> Result<(), Violation> {
    match calls
        .iter()
        .find(|c| c.span().start >= c.span().end || c.span().end > content.len())
    {
        Some(call) => Err(format!(
            "span {:?} of {} is not inside the {} bytes of content",
            call.span(),
            describe(call),
            content.len()
        )),
        None => Ok(()),
    }
}

/// Calls come out in the order of their spans.
pub fn text_order(calls: &[Call]) -> Result<(), Violation> {
    match calls
        .windows(2)
        .find(|w| w[1].span().start < w[0].span().start)
    {
        Some(w) => Err(format!(
            "{} comes before {} but starts later",
            describe(&w[0]),
            describe(&w[1])
        )),
        None => Ok(()),
    }
}

/// Every call from an embedded dialect names an offered tool; under `strict`, every call
/// does (whole-content JSON too).
pub fn allowlisted(tools: &Allowlist, profile: Profile, calls: &[Call]) -> Result<(), Violation> {
    let must_be_offered =
        |call: &Call| call.dialect() != Dialect::WholeJson || profile == Profile::Strict;
    let offered = |call: &Call| call.name().as_py_str().is_some_and(|n| tools.contains(n));
    match calls.iter().find(|c| must_be_offered(c) && !offered(c)) {
        Some(call) => Err(format!(
            "{} names a tool that was not offered",
            describe(call)
        )),
        None => Ok(()),
    }
}

/// No call starts inside a fenced range of the content: a fenced call is an example.
pub fn outside_fences(content: Content<'_>, calls: &[Call]) -> Result<(), Violation> {
    let fenced = fenced_ranges(content);
    for call in calls {
        if let Some(fence) = fenced.iter().find(|f| f.contains(&call.span().start)) {
            return Err(format!(
                "{} starts inside the fenced range {fence:?}",
                describe(call)
            ));
        }
    }
    Ok(())
}

/// No recovered span starts inside another call's span. Whole-content calls share the
/// whole content as their span and come alone.
pub fn no_span_starts_inside_another(calls: &[Call]) -> Result<(), Violation> {
    let whole = calls
        .iter()
        .filter(|c| c.dialect() == Dialect::WholeJson)
        .count();
    if whole > 0 && whole < calls.len() {
        return Err("whole-content calls are mixed with embedded ones".to_owned());
    }
    if whole > 0 {
        return same_span(calls);
    }
    match calls
        .windows(2)
        .find(|w| w[1].span().start < w[0].span().end)
    {
        Some(w) => Err(format!(
            "{} starts inside {}",
            describe(&w[1]),
            describe(&w[0])
        )),
        None => Ok(()),
    }
}

/// Whole-content calls all span the whole (stripped) content.
fn same_span(calls: &[Call]) -> Result<(), Violation> {
    let first: &Range<usize> = &calls[0].span();
    match calls.iter().find(|c| c.span() != *first) {
        Some(call) => Err(format!(
            "whole-content calls have different spans: {first:?} and {:?}",
            call.span()
        )),
        None => Ok(()),
    }
}

/// Limits that decode anything salvage can have encoded.
const READ_BACK: DecodeLimits = DecodeLimits {
    max_depth: 4096,
    int_max_str_digits: None,
};

/// A call's `arguments` string is `json.dumps` of its arguments when they are a dict or
/// a list, so it decodes back to them (with lone surrogate pairs joined, as CPython reads
/// them back: see `surrogates`).
pub fn arguments_decode(calls: &[Call]) -> Result<(), Violation> {
    for call in calls {
        if !matches!(call.args(), Value::Dict(_) | Value::List(_)) {
            continue;
        }
        let decoded = json::loads(call.arguments().as_bytes(), READ_BACK);
        if decoded.as_ref() != Ok(&joined(call.args())) {
            return Err(format!(
                "the arguments string of {} decodes to {decoded:?}, not its arguments",
                describe(call)
            ));
        }
    }
    Ok(())
}

/// A call, briefly, for messages.
fn describe(call: &Call) -> String {
    format!(
        "the {} call {:?} at {:?}",
        call.dialect(),
        call.name(),
        call.span()
    )
}

/// `strict` recovers no call that `praisonai` does not (compared by span, dialect and
/// name), except where `docs/profiles.md` documents a rule:
/// * a payload containing a fence is judged by its written text under `strict` and by
///   its masked text under `praisonai`, so a name with a fence in it differs;
/// * an integer literal of more than 4300 digits after `<|python_tag|>` or `Action Input:`
///   makes CPython's `raw_decode` raise a `ValueError` the package swallows; `strict`
///   keeps the call. The literal need not survive into the arguments (a repeated key
///   drops it), so this looks for the digits in the written payload (a digit run inside a
///   string counts too, which only widens the exception);
/// * a call of a dialect the package does not read (`Dialect::is_praisonai` is false:
///   Qwen3 XML, DeepSeek, GLM, …) is one only `strict` recovers (`docs/dialects/README.md`).
pub fn strict_within_praisonai(
    content: Content<'_>,
    strict: &[Call],
    praisonai: &[Call],
) -> Result<(), Violation> {
    let fenced = fenced_ranges(content);
    let documented = |call: &Call| {
        !call.dialect().is_praisonai()
            || fenced
                .iter()
                .any(|f| f.start < call.span().end && call.span().start < f.end)
            || (matches!(call.dialect(), Dialect::PythonTag | Dialect::React)
                && longest_digit_run(&content.as_bytes()[call.span()]) > INT_MAX_STR_DIGITS)
    };
    let also_in_praisonai = |call: &Call| {
        praisonai.iter().any(|p| {
            p.span() == call.span() && p.dialect() == call.dialect() && p.name() == call.name()
        })
    };
    match strict
        .iter()
        .find(|c| !also_in_praisonai(c) && !documented(c))
    {
        Some(call) => Err(format!(
            "strict recovers {} which praisonai does not",
            describe(call)
        )),
        None => Ok(()),
    }
}

/// The length of the longest run of ASCII digits in `text`.
fn longest_digit_run(text: &[u8]) -> usize {
    text.split(|b| !b.is_ascii_digit())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// The calls recovered are exactly the calls a clean reply means: same names, decoded
/// arguments, dialects and spans, in order.
pub fn recovers_intended(intended: &[Intended], calls: &[Call]) -> Result<(), Violation> {
    let recovered: Vec<Intended> = calls
        .iter()
        .map(|c| Intended {
            name: c.name().as_py_str().cloned().unwrap_or_default(),
            args: c.args().clone(),
            dialect: c.dialect(),
            span: c.span(),
        })
        .collect();
    if recovered == intended {
        Ok(())
    } else {
        Err(format!(
            "recovered {recovered:#?}\nbut the reply means {intended:#?}"
        ))
    }
}
