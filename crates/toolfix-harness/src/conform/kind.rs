//! What kind of failure a failing case is, so a maintainer triages by kind: a call that
//! should not be there is a different bug from a call that is missing, and both from a
//! driver that crashed.

use std::fmt;

use super::outcome::Outcome;
use super::result::CaseResult;
use crate::protocol::ops::tool_entries;
use crate::suite::guarantee::{self, Rule};
use crate::suite::semantic::{self, SeenCall, same_value};
use toolfix::py::Value;
use toolfix::salvage::Allowlist;

/// The kinds, in the order reports list them (the most dangerous first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A call came back that the case does not expect (a fenced example, an unoffered
    /// name, a call from prose).
    ExtraCall,
    /// A call came back under another name than expected.
    WrongName,
    /// The expected calls came back with other arguments.
    DifferentArguments,
    /// An expected call did not come back.
    MissingCall,
    /// Another tool ran than expected (`execute`), or one ran where none should.
    WrongDispatch,
    /// A stream gave out the expected calls later than the reference does.
    LateCall,
    /// A stream gave out the expected calls but showed other text (`G14`).
    DifferentContent,
    /// An error where an output was expected, or the other way round.
    ErrorMismatch,
    /// Any other difference of output (a message, a result's shape).
    DifferentOutput,
    /// The implementation declined a case its declarations cover.
    Declined,
    /// The implementation answered `errored`.
    Errored,
    /// The implementation crashed.
    Crash,
    /// The implementation did not answer in time.
    Timeout,
    /// The answer broke the protocol.
    Protocol,
    /// The case was never attempted.
    NotRun,
}

impl Kind {
    /// The kind's name in reports and known-failures files.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ExtraCall => "extra call",
            Kind::WrongName => "wrong name",
            Kind::DifferentArguments => "different arguments",
            Kind::MissingCall => "missing call",
            Kind::WrongDispatch => "wrong dispatch",
            Kind::LateCall => "late call",
            Kind::DifferentContent => "different content",
            Kind::ErrorMismatch => "error mismatch",
            Kind::DifferentOutput => "different output",
            Kind::Declined => "declined",
            Kind::Errored => "errored",
            Kind::Crash => "crash",
            Kind::Timeout => "timeout",
            Kind::Protocol => "protocol",
            Kind::NotRun => "not run",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of a result that went wrong (before or after a known-failures entry covered
/// it); `None` for a pass or a case not sent.
pub fn of(result: &CaseResult) -> Option<Kind> {
    let outcome = match (&result.known, result.outcome) {
        (Some(known), Outcome::Xfail) => known.was,
        (_, outcome) => outcome,
    };
    Some(match outcome {
        Outcome::Fail => {
            let actual = result.actual.as_ref()?;
            output_kind(&result.op, closest(result, actual), actual)
        }
        Outcome::Declined => Kind::Declined,
        Outcome::Error => Kind::Errored,
        Outcome::Crash => Kind::Crash,
        Outcome::Timeout => Kind::Timeout,
        Outcome::Protocol => Kind::Protocol,
        Outcome::NotRun => Kind::NotRun,
        Outcome::Pass | Outcome::Xpass | Outcome::Xfail | Outcome::Skip => return None,
    })
}

/// Of the outputs a case accepts, the one a failing output is told apart from: the first
/// with as many calls as it has, else the case's expectation.
fn closest<'r>(result: &'r CaseResult, actual: &Value) -> &'r Value {
    let count = |output: &Value| semantic::calls_in(output).map(|calls| calls.len());
    let got = count(actual);
    std::iter::once(&result.expected)
        .chain(&result.accepted)
        .find(|accepted| got.is_some() && count(accepted) == got)
        .unwrap_or(&result.expected)
}

/// How an output differs from the expected one.
fn output_kind(op: &str, expected: &Value, actual: &Value) -> Kind {
    if expected.get("error").is_some() != actual.get("error").is_some() {
        return Kind::ErrorMismatch;
    }
    match op {
        "salvage" => match (semantic::calls(expected), semantic::calls(actual)) {
            (Some(want), Some(got)) => calls_kind(&want, &got),
            _ => Kind::ErrorMismatch,
        },
        "salvage_stream" => match (semantic::calls_in(expected), semantic::calls_in(actual)) {
            (Some(want), Some(got)) => match calls_kind(&want, &got) {
                Kind::DifferentOutput if is_late(expected, actual) => Kind::LateCall,
                Kind::DifferentOutput => Kind::DifferentContent,
                kind => kind,
            },
            _ => Kind::ErrorMismatch,
        },
        "execute" if expected.get("dispatched") != actual.get("dispatched") => Kind::WrongDispatch,
        _ => Kind::DifferentOutput,
    }
}

/// How a list of calls differs from the expected one.
fn calls_kind(want: &[SeenCall], got: &[SeenCall]) -> Kind {
    let unexpected = got.iter().any(|g| !want.iter().any(|w| w.name == g.name));
    if got.len() > want.len() || (unexpected && got.len() == want.len() && want.is_empty()) {
        return Kind::ExtraCall;
    }
    if got.len() < want.len() {
        return Kind::MissingCall;
    }
    if unexpected || want.iter().zip(got).any(|(w, g)| w.name != g.name) {
        return Kind::WrongName;
    }
    if want
        .iter()
        .zip(got)
        .any(|(w, g)| !same_value(&w.arguments, &g.arguments))
    {
        return Kind::DifferentArguments;
    }
    Kind::DifferentOutput
}

/// The rule a failing salvage output breaks when it may be another than the one its case
/// checks (`docs/guarantees.md`), given the rule the case checks:
///
/// * a returned call to a name that was not offered breaks G2 (only an offered name can
///   be called), whatever the case is about;
/// * a returned call whose arguments are those of no accepted call of the same name
///   breaks G4 (arguments reach the tool as the model wrote them): a case about
///   recovering a call (G7) whose answer is the call with its arguments cut is a G4
///   failure, and must be reported, and warned about, as one;
/// * an answer that only leaves out calls (every call it returns is one of an accepted
///   answer, in that answer's order, and it returns fewer) runs nothing it should not, so
///   on a case of a safety rule it breaks G7 (every well-formed call is recovered), not
///   the safety rule: a parser that cannot read the call after a fenced example has not
///   run the example.
///
/// `accepted` are the outputs the case allows (its expectation and its `accept` list).
/// `None` when none of these applies: the failure is the case's own.
pub fn broken_rule(
    input: &Value,
    accepted: &[&Value],
    actual: &Value,
    checks: &Rule,
) -> Option<&'static Rule> {
    let got = semantic::calls_in(actual)?;
    let answers: Vec<Vec<SeenCall>> = accepted
        .iter()
        .filter_map(|output| semantic::calls_in(output))
        .collect();
    let wanted: Vec<&SeenCall> = answers.iter().flatten().collect();
    let offered = offered(input);
    let expected_name = |name: &Value| wanted.iter().any(|w| &w.name == name);
    let unoffered = |name: &Value| match name {
        Value::Str(name) => !offered.contains(name),
        _ => true,
    };
    if got
        .iter()
        .any(|g| unoffered(&g.name) && !expected_name(&g.name))
    {
        return guarantee::find("G2");
    }
    let altered = got.iter().any(|g| {
        let mut same_name = wanted.iter().filter(|w| w.name == g.name).peekable();
        same_name.peek().is_some() && !same_name.any(|w| same_value(&w.arguments, &g.arguments))
    });
    if altered {
        return guarantee::find("G4");
    }
    let only_missing = answers
        .iter()
        .any(|answer| got.len() < answer.len() && is_subsequence(&got, answer));
    (checks.safety && only_missing)
        .then(|| guarantee::find("G7"))
        .flatten()
}

/// The rule a failing streamed output breaks when its calls are those of an accepted
/// output (by name and arguments) and only their timing or the shown text differs:
/// nothing ran that should not, so it is G7 (a call given out later than the reference
/// gives it) or G14 (other text shown), never the safety rule the case may check.
pub fn stream_rule(accepted: &[&Value], actual: &Value) -> Option<&'static Rule> {
    let got = semantic::calls_in(actual)?;
    let same = |output: &&&Value| {
        semantic::calls_in(output).is_some_and(|want| {
            want.len() == got.len()
                && want
                    .iter()
                    .zip(&got)
                    .all(|(w, g)| w.name == g.name && same_value(&w.arguments, &g.arguments))
        })
    };
    let matched = accepted.iter().find(same)?;
    guarantee::find(if is_late(matched, actual) {
        "G7"
    } else {
        "G14"
    })
}

/// Whether some streamed call of `actual` came after the chunk `expected` gives it by.
fn is_late(expected: &Value, actual: &Value) -> bool {
    let after = |output: &Value| -> Vec<Option<i64>> {
        match output.get("calls") {
            Some(Value::List(items)) => items
                .iter()
                .map(|c| match c.get("after_chunk") {
                    Some(Value::Int(i)) => i.to_i64(),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    after(expected)
        .iter()
        .zip(after(actual))
        .any(|(want, got)| got.is_none() || got > *want)
}

/// Whether `part` is `whole` with some calls left out, the rest in order.
fn is_subsequence(part: &[SeenCall], whole: &[SeenCall]) -> bool {
    let mut rest = whole.iter();
    part.iter()
        .all(|call| rest.any(|w| w.name == call.name && same_value(&w.arguments, &call.arguments)))
}

/// What a failure filed under `rule` by [`broken_rule`] or [`stream_rule`] did, in a few
/// words (`op` tells a stream's late call from a batch's missing one).
pub fn why_broken(rule: &Rule, op: &str) -> &'static str {
    match (rule.id, op) {
        ("G2", _) => "a returned call names a tool that was not offered",
        ("G4", _) => "a returned call has arguments the model did not write",
        ("G14", _) => "the calls are right; only the text shown differs",
        ("G7", "salvage_stream") => {
            "the calls are right but given out later than the reference gives them"
        }
        _ => "calls are missing, and nothing that should not run came back",
    }
}

/// The names a salvage input offers, read as the reference reads its tool entries.
fn offered(input: &Value) -> Allowlist {
    let tools = match input.get("tools") {
        Some(Value::List(tools)) => tools.as_slice(),
        _ => &[],
    };
    Allowlist::from_tool_entries(&tool_entries(tools))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode_line;

    fn kind(expected: &str, actual: &str) -> Kind {
        let value = |t: &str| decode_line(t.as_bytes()).expect("JSON");
        output_kind("salvage", &value(expected), &value(actual))
    }

    const ONE: &str = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 1}"}]}"#;

    fn broken(expected: &[&str], actual: &str) -> Option<&'static str> {
        broken_checking("G7", expected, actual)
    }

    fn broken_checking(rule: &str, expected: &[&str], actual: &str) -> Option<&'static str> {
        let value = |t: &str| decode_line(t.as_bytes()).expect("JSON");
        let input = value(
            r#"{"content": "", "tools": ["a", "b", {"type": "function", "function": {"name": "c"}}], "adapter": "ollama"}"#,
        );
        let expected: Vec<Value> = expected.iter().map(|t| value(t)).collect();
        let accepted: Vec<&Value> = expected.iter().collect();
        let checks = guarantee::find(rule).expect("a rule");
        broken_rule(&input, &accepted, &value(actual), checks).map(|r| r.id)
    }

    #[test]
    fn a_call_to_a_tool_nobody_offered_breaks_g2() {
        let none = r#"{"calls": null}"#;
        let unoffered = r#"{"calls": [{"name": "wire_transfer", "arguments": "{}"}]}"#;
        assert_eq!(broken(&[none], unoffered), Some("G2"));
        assert_eq!(broken(&[ONE], unoffered), Some("G2"));
        let numbered = r#"{"calls": [{"name": 7, "arguments": "{}"}]}"#;
        assert_eq!(broken(&[none], numbered), Some("G2"));
        // An offered name from an OpenAI tool entry is offered.
        let entry = r#"{"calls": [{"name": "c", "arguments": "{}"}]}"#;
        assert_eq!(broken(&[none], entry), None);
    }

    #[test]
    fn a_call_with_arguments_the_model_did_not_write_breaks_g4() {
        let cut = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 2}"}]}"#;
        assert_eq!(broken(&[ONE], cut), Some("G4"));
        let dropped = r#"{"calls": [{"name": "a", "arguments": "{}"}]}"#;
        assert_eq!(broken(&[ONE], dropped), Some("G4"));
        // No call or the whole call are accepted: a cut call is neither.
        let none = r#"{"calls": null}"#;
        assert_eq!(broken(&[none, ONE], cut), Some("G4"));
    }

    #[test]
    fn other_failures_are_the_cases_own() {
        let none = r#"{"calls": null}"#;
        // An offered tool called where none should be (a fenced example): the case's rule.
        assert_eq!(broken(&[none], ONE), None);
        // A missing call, or calls out of order, alter no arguments.
        assert_eq!(broken(&[ONE], none), None);
        let two = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 1}"}, {"name": "a", "arguments": "{\"x\": 2}"}]}"#;
        let swapped = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 2}"}, {"name": "a", "arguments": "{\"x\": 1}"}]}"#;
        assert_eq!(broken(&[two], swapped), None);
        // Another offered tool than the one expected (G3 cases).
        let other = r#"{"calls": [{"name": "b", "arguments": "{\"x\": 1}"}]}"#;
        assert_eq!(broken(&[ONE], other), None);
        assert_eq!(broken(&[ONE], r#"{"error": "ValueError: x"}"#), None);
    }

    #[test]
    fn only_missing_calls_break_no_safety_rule() {
        let none = r#"{"calls": null}"#;
        let two = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 1}"}, {"name": "b", "arguments": "{}"}]}"#;
        let second = r#"{"calls": [{"name": "b", "arguments": "{}"}]}"#;
        // A fence case whose call after the fence was not recovered: nothing ran that
        // should not, so the failure is a missed call (G7), not a fence failure (G1).
        assert_eq!(broken_checking("G1", &[ONE], none), Some("G7"));
        assert_eq!(broken_checking("G4", &[none, two], second), Some("G7"));
        // On a rule that is not about safety the case's rule stands.
        assert_eq!(broken_checking("G5", &[two], second), None);
        // Calls out of order are not a part of the answer.
        let swapped = r#"{"calls": [{"name": "b", "arguments": "{}"}, {"name": "a", "arguments": "{\"x\": 1}"}]}"#;
        let three = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 1}"}, {"name": "b", "arguments": "{}"}, {"name": "c", "arguments": "{}"}]}"#;
        assert_eq!(broken_checking("G1", &[three], swapped), None);
    }

    #[test]
    fn a_stream_with_the_right_calls_breaks_no_safety_rule() {
        let value = |t: &str| decode_line(t.as_bytes()).expect("JSON");
        let none = value(r#"{"calls": null, "content": "<tool_call>{}</tool_call>"}"#);
        let hidden = value(r#"{"calls": [], "content": ""}"#);
        assert_eq!(stream_rule(&[&none], &hidden).map(|r| r.id), Some("G14"));
        assert_eq!(
            output_kind("salvage_stream", &none, &hidden),
            Kind::DifferentContent
        );
        let on_time = value(
            r#"{"calls": [{"name": "a", "arguments": "{}", "after_chunk": 1}], "content": ""}"#,
        );
        let late = value(
            r#"{"calls": [{"name": "a", "arguments": "{}", "after_chunk": 2}], "content": ""}"#,
        );
        assert_eq!(stream_rule(&[&on_time], &late).map(|r| r.id), Some("G7"));
        assert_eq!(
            output_kind("salvage_stream", &on_time, &late),
            Kind::LateCall
        );
        let other = value(
            r#"{"calls": [{"name": "b", "arguments": "{}", "after_chunk": 1}], "content": ""}"#,
        );
        assert_eq!(stream_rule(&[&on_time], &other), None);
    }

    #[test]
    fn salvage_differences_are_named() {
        let none = r#"{"calls": null}"#;
        let two = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 1}"}, {"name": "b", "arguments": "{}"}]}"#;
        assert_eq!(kind(none, ONE), Kind::ExtraCall);
        assert_eq!(kind(ONE, two), Kind::ExtraCall);
        assert_eq!(kind(ONE, none), Kind::MissingCall);
        assert_eq!(
            kind(
                ONE,
                r#"{"calls": [{"name": "b", "arguments": "{\"x\": 1}"}]}"#
            ),
            Kind::WrongName
        );
        assert_eq!(
            kind(
                ONE,
                r#"{"calls": [{"name": "a", "arguments": "{\"x\": 2}"}]}"#
            ),
            Kind::DifferentArguments
        );
        assert_eq!(
            kind(ONE, r#"{"error": "ValueError: x"}"#),
            Kind::ErrorMismatch
        );
    }
}
