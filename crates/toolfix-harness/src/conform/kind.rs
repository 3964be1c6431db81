//! What kind of failure a failing case is, so a maintainer triages by kind: a call that
//! should not be there is a different bug from a call that is missing, and both from a
//! driver that crashed.

use std::fmt;

use super::outcome::Outcome;
use super::result::CaseResult;
use crate::suite::semantic::{self, SeenCall, same_value};
use toolfix::py::Value;

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
        Outcome::Fail => output_kind(&result.op, &result.expected, result.actual.as_ref()?),
        Outcome::Declined => Kind::Declined,
        Outcome::Error => Kind::Errored,
        Outcome::Crash => Kind::Crash,
        Outcome::Timeout => Kind::Timeout,
        Outcome::Protocol => Kind::Protocol,
        Outcome::NotRun => Kind::NotRun,
        Outcome::Pass | Outcome::Xpass | Outcome::Xfail | Outcome::Skip => return None,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode_line;

    fn kind(expected: &str, actual: &str) -> Kind {
        let value = |t: &str| decode_line(t.as_bytes()).expect("JSON");
        output_kind("salvage", &value(expected), &value(actual))
    }

    const ONE: &str = r#"{"calls": [{"name": "a", "arguments": "{\"x\": 1}"}]}"#;

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
