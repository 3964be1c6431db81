//! The calls a reply makes: native ones first; else the ones salvage recovers from the
//! text (local adapters only); else, in the `praisonai` sync loop, the ones its older
//! `<tool_call>` parser finds, fenced examples and unoffered names included.

use super::Failure;
use super::reply::Reply;
use super::xml::{self, XmlError};
use crate::profile::JsonSite;
use crate::py::json::{self, DecodeError};
use crate::py::unicode::strip;
use crate::py::{PyStr, Value, str_of};
use crate::salvage::tokens::tool_call;
use crate::salvage::{Allowlist, Request, salvage_under};
use crate::{Adapter, Profile};

/// Where a call came from, which decides how its arguments are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The provider's native tool-call field (an object).
    Native,
    /// Text salvage (a dict).
    Salvaged,
    /// The sync loop's older `<tool_call>` parser (a dict).
    Older,
}

/// One call the loop will validate and dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundCall {
    /// The name: a string, except on the paths that accept any JSON value.
    pub name: Value,
    /// The argument string.
    pub arguments: PyStr,
    /// The call id the answering message carries.
    pub id: PyStr,
    /// How the call was made.
    pub origin: Origin,
}

/// What `calls` needs to know about the turn.
pub struct Finder<'a> {
    /// The salvage allowlist (`None` when no tool is offered).
    pub allowlist: Option<&'a Allowlist>,
    /// The adapter the reply came through.
    pub adapter: Adapter,
    /// The profile.
    pub profile: Profile,
    /// Whether the older `<tool_call>` parser runs (the `praisonai` sync loop).
    pub older_parser: bool,
}

impl Finder<'_> {
    /// The calls of `reply`, at loop iteration `iteration`; `next_id` numbers native calls.
    pub fn calls(
        &self,
        reply: &Reply,
        iteration: usize,
        next_id: &mut usize,
    ) -> Result<Vec<FoundCall>, Failure> {
        let mut calls: Vec<FoundCall> = reply
            .tool_calls
            .iter()
            .map(|call| {
                *next_id += 1;
                FoundCall {
                    name: Value::Str(call.name.clone()),
                    arguments: call.arguments.clone(),
                    id: PyStr::from(format!("call_{next_id}")),
                    origin: Origin::Native,
                }
            })
            .collect();
        let text = reply.text_or_empty();
        let Some(allowlist) = self.allowlist else {
            return Ok(calls);
        };
        if calls.is_empty() && !text.is_empty() {
            calls = self.salvaged(&text, allowlist)?;
        }
        if calls.is_empty()
            && !text.is_empty()
            && self.older_parser
            && contains(&text, tool_call::OPEN)
        {
            calls = older(&text, iteration)?;
        }
        Ok(calls)
    }

    /// `adapter.recover_tool_calls_from_text(text, tools)`.
    fn salvaged(&self, text: &PyStr, allowlist: &Allowlist) -> Result<Vec<FoundCall>, Failure> {
        let request = Request::new(text, allowlist).adapter(self.adapter);
        let recovered = salvage_under(&request, self.profile)
            .map_err(|error| Failure::Escaped(error.into()))?;
        Ok(recovered
            .into_iter()
            .enumerate()
            .map(|(position, call)| {
                let mut id = PyStr::from("call_");
                id.push_py(&str_of(call.name()));
                id.push_str(&format!("_{position}"));
                FoundCall {
                    name: call.name().clone(),
                    arguments: call.arguments_text().clone(),
                    id,
                    origin: Origin::Salvaged,
                }
            })
            .collect())
    }
}

/// Whether `text` contains `needle` (case-sensitive, as Python's `in`).
fn contains(text: &PyStr, needle: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}

/// The older parser: the elements ElementTree finds, or the regular expression's matches
/// when the reply is not well-formed XML.
fn older(text: &PyStr, iteration: usize) -> Result<Vec<FoundCall>, Failure> {
    let payloads: Vec<Option<PyStr>> = match xml::tool_call_texts(text) {
        Ok(texts) => texts,
        Err(XmlError::NotWellFormed) => xml::regex_payloads(text).into_iter().map(Some).collect(),
        Err(XmlError::Unencodable) => {
            return Err(Failure::Escaped(
                crate::PyException::named("Exception", "'utf-8' codec can't encode a surrogate")
                    .unwrap_or(crate::PyException::Exception {
                        message: PyStr::new(),
                    }),
            ));
        }
    };
    let mut calls = Vec::new();
    for (idx, payload) in payloads.into_iter().enumerate() {
        let Some(payload) = payload.filter(|p| !p.is_empty()) else {
            continue;
        };
        let stripped = strip(payload.as_bytes());
        let decoded = match json::loads(stripped, Profile::PraisonAi.json_limits(JsonSite::Tag)) {
            Ok(value) => value,
            Err(DecodeError::Syntax { .. }) => continue,
            Err(other) => return Err(Failure::Escaped(other.into())),
        };
        let Value::Dict(object) = decoded else {
            continue;
        };
        let Some(name) = object.get("name".as_bytes()) else {
            continue;
        };
        let arguments = object
            .get("arguments".as_bytes())
            .cloned()
            .unwrap_or_else(|| Value::Dict(Default::default()));
        let arguments = json::dumps(&arguments).map_err(|_| {
            Failure::Escaped(crate::PyException::TypeError {
                message: PyStr::from("Object is not JSON serializable"),
            })
        })?;
        calls.push(FoundCall {
            name: name.clone(),
            arguments: PyStr::from(arguments),
            id: PyStr::from(format!("tool_{iteration}_{idx}")),
            origin: Origin::Older,
        });
    }
    Ok(calls)
}
