//! One spec case and what it expects under each profile.

use std::fmt;

use super::guarantee::Rule;
use super::{semantic, streamed};
use crate::protocol::wire::encode_line;
use toolfix::Profile;
use toolfix::py::Value;

/// How binding a case's expectation is (RFC 2119 words, JSONTestSuite's `y`/`n`/`i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Specified behaviour: a different answer fails the run.
    Must,
    /// Recommended: a different answer fails unless it is a listed known failure.
    Should,
    /// Implementation-defined: the answer is reported, never failed.
    May,
}

impl Level {
    /// The level's name in case files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::May => "may",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        match s {
            "must" => Ok(Level::Must),
            "should" => Ok(Level::Should),
            "may" => Ok(Level::May),
            other => Err(format!(
                "unknown level {other:?} (expected must, should or may)"
            )),
        }
    }
}

/// The output a case expects.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    /// Exactly this output value.
    Output(Value),
    /// `{"error": S}` where `S` names this exception class before its first `:`; the
    /// message itself is the implementation's.
    Raises(String),
}

impl Expected {
    /// Whether `actual` meets the expectation.
    pub fn is_met_by(&self, actual: &Value) -> bool {
        match self {
            Expected::Output(expected) => expected == actual,
            Expected::Raises(class) => raised_class(actual).is_some_and(|c| &c == class),
        }
    }
}

/// The exception class of an `{"error": "Class: message"}` output.
fn raised_class(output: &Value) -> Option<String> {
    let dict = output.as_dict().filter(|d| d.len() == 1)?;
    let text = dict.get("error".as_bytes())?.as_py_str()?.to_string();
    Some(text.split(':').next().unwrap_or_default().trim().to_owned())
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Output(value) => f.write_str(&encode_line(value)),
            Expected::Raises(class) => write!(f, "{{\"error\": \"{class}: …\"}}"),
        }
    }
}

/// A case's expectation under one profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The profile it applies to.
    pub profile: Profile,
    /// The output.
    pub expected: Expected,
    /// How binding it is.
    pub level: Level,
    /// Where the real package departs from its documentation here, and how.
    pub deviation: Option<String>,
    /// The portable rule (`docs/guarantees.md`) the expectation checks: every `portable`
    /// expectation names one.
    pub rule: Option<&'static Rule>,
    /// Other outputs that meet the expectation as well (a portable `accept` list): where
    /// implementations may rightly give either of a few answers but nothing else, such as
    /// no call or the whole call for a payload a closing marker seems to cut, the case
    /// lists them all, so an answer outside the list fails at the rule's level instead of
    /// passing as an implementation-defined `may`.
    pub accepted: Vec<Value>,
}

impl Expectation {
    /// Whether `actual`, the output of `op`, meets the expectation: exactly under
    /// `praisonai` and `strict`, as a user observes it under `portable`
    /// ([`semantic`]); a streamed salvage as [`streamed`] says.
    pub fn is_met_by(&self, op: &str, actual: &Value) -> bool {
        let main = match &self.expected {
            Expected::Output(expected) => self.meets(op, expected, actual),
            raises => raises.is_met_by(actual),
        };
        main || self
            .accepted
            .iter()
            .any(|other| self.meets(op, other, actual))
    }

    /// Whether `actual` meets one accepted output.
    fn meets(&self, op: &str, expected: &Value, actual: &Value) -> bool {
        match self.profile {
            profile if op == "salvage_stream" => streamed::meets(profile, expected, actual),
            Profile::Portable => semantic::meets(op, expected, actual),
            _ => expected == actual,
        }
    }
}

/// One spec case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// `<folder>/<file stem>/<name>`.
    pub id: String,
    /// The protocol op.
    pub op: String,
    /// The protocol input.
    pub input: Value,
    /// Features the case exercises.
    pub tags: Vec<String>,
    /// Salvage dialects the case needs the implementation to declare.
    pub dialects: Vec<String>,
    /// The forms of its dialect the case is written in (`suite::forms`), when the dialect
    /// has several (usually one; a reply that mixes them names each): a driver that
    /// declares the forms it reads is sent the case only when it reads every one.
    pub forms: Vec<String>,
    /// Where the expectation comes from.
    pub source: String,
    /// The policies (`docs/guarantees.md`) the case is about, with the value an
    /// implementation must declare to be sent the case.
    pub policies: Vec<(String, bool)>,
    /// What the seed page itself shows for this example, when it is one.
    pub documented: Option<String>,
    /// The expectation per profile, for the profiles the case applies to.
    pub expectations: Vec<Expectation>,
}

impl Case {
    /// The expectation under `profile`, if the case applies to it.
    pub fn expectation(&self, profile: Profile) -> Option<&Expectation> {
        self.expectations.iter().find(|e| e.profile == profile)
    }
}
