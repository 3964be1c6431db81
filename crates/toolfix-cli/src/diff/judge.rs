//! What two answers to one case must agree on, and the outcome of the case.
//!
//! Answers compare as protocol values (key order included), except that an output that
//! is only `{"error": S}` (the package raising) compares by the exception class before
//! the colon (`docs/protocol.md`). An `errored` answer (the implementation refused the
//! input) agrees with another only in a family that is malformed on purpose
//! (`REFUSED_ON_PURPOSE`); anywhere else two of them are counted apart, and fail the run.

use toolfix::py::Value;
use toolfix_fuzzing::differential::REFUSED_ON_PURPOSE;
use toolfix_harness::conform::session::Reply;
use toolfix_harness::protocol::message::Answer;
use toolfix_harness::protocol::wire::encode_line;

/// What a case came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Both answered alike.
    Same,
    /// The answers differ, or a side crashed, hung or broke the protocol.
    Different,
    /// Both refused an input that is not malformed on purpose.
    BothErrored,
    /// Both declined the input (`skipped`).
    Skipped,
    /// Not sent: an op or dialect the two do not both declare.
    NotSent,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Outcome; 5] = [
        Outcome::Same,
        Outcome::Different,
        Outcome::BothErrored,
        Outcome::Skipped,
        Outcome::NotSent,
    ];

    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Same => "same",
            Outcome::Different => "different",
            Outcome::BothErrored => "both errored",
            Outcome::Skipped => "skipped",
            Outcome::NotSent => "not sent",
        }
    }
}

/// The part of a reply two implementations must agree on.
#[derive(Debug, PartialEq, Eq)]
enum Comparable {
    Broken,
    Errored,
    Skipped,
    Raised(String),
    Output(String),
}

fn comparable(reply: &Reply) -> Comparable {
    match reply {
        Reply::Broken { .. } => Comparable::Broken,
        Reply::Answered(Answer::Errored(_)) => Comparable::Errored,
        Reply::Answered(Answer::Skipped(_)) => Comparable::Skipped,
        Reply::Answered(Answer::Output(output)) => match raised(output) {
            Some(class) => Comparable::Raised(class),
            None => Comparable::Output(encode_line(output)),
        },
    }
}

/// The exception class of an output that is only `{"error": "Class: message"}`.
fn raised(output: &Value) -> Option<String> {
    let dict = output.as_dict()?;
    if dict.len() != 1 {
        return None;
    }
    let text = output.get("error")?.as_py_str()?.to_string_lossy();
    Some(text.split(':').next().unwrap_or_default().to_owned())
}

/// The outcome of one case of `op` in `family` from both replies.
pub fn judge(replies: &[Reply; 2], op: &str, family: &str) -> Outcome {
    let (a, b) = (comparable(&replies[0]), comparable(&replies[1]));
    if a != b || a == Comparable::Broken {
        return Outcome::Different;
    }
    match a {
        Comparable::Errored if REFUSED_ON_PURPOSE.contains(&(op, family)) => Outcome::Same,
        Comparable::Errored => Outcome::BothErrored,
        Comparable::Skipped => Outcome::Skipped,
        _ => Outcome::Same,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolfix_harness::conform::Outcome as Failure;

    fn output(line: &str) -> Reply {
        let value = toolfix_harness::protocol::wire::decode_line(line.as_bytes()).unwrap();
        Reply::Answered(Answer::Output(value))
    }

    #[test]
    fn raised_errors_compare_by_class() {
        let a = output(r#"{"error": "ValueError: Exceeds the limit (4300 digits)"}"#);
        let b = output(r#"{"error": "ValueError: something else"}"#);
        let c = output(r#"{"error": "RecursionError: too deep"}"#);
        assert_eq!(judge(&[a.clone(), b], "salvage", "x"), Outcome::Same);
        assert_eq!(judge(&[a, c], "salvage", "x"), Outcome::Different);
    }

    #[test]
    fn outputs_compare_as_values_in_order() {
        let a = output(r#"{"calls": [{"name": "a", "arguments": "{}"}]}"#);
        let b = output(r#"{"calls":[{"name":"a","arguments":"{}"}]}"#);
        let c = output(r#"{"calls": [{"arguments": "{}", "name": "a"}]}"#);
        assert_eq!(judge(&[a.clone(), b], "salvage", "x"), Outcome::Same);
        assert_eq!(judge(&[a, c], "salvage", "x"), Outcome::Different);
    }

    #[test]
    fn refusals_agree_only_where_malformed_on_purpose() {
        let errored = || Reply::Answered(Answer::Errored("bad".to_owned()));
        let both = [errored(), errored()];
        assert_eq!(judge(&both, "execute", "invalid_signature"), Outcome::Same);
        assert_eq!(judge(&both, "execute", "exact"), Outcome::BothErrored);
    }

    #[test]
    fn a_broken_side_is_a_difference_even_twice() {
        let broken = || Reply::Broken {
            outcome: Failure::Timeout,
            message: "no answer".to_owned(),
        };
        assert_eq!(
            judge(&[broken(), broken()], "salvage", "x"),
            Outcome::Different
        );
    }
}
