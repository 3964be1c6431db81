//! Text salvage: recovering the tool calls a model wrote as text instead of using the
//! native tool-call field.
//!
//! The pipeline is `_recover_json_tool_calls` of praisonaiagents 1.7.17, step for step,
//! with data flowing one way:
//!
//! 1. **gate**: only adapters that salvage (`ollama`, `local`) run it; empty content or an
//!    empty allowlist gives nothing;
//! 2. **whole content** (`dialect::whole_json`): the stripped reply as one JSON payload;
//! 3. **probe** (`probe`): no marker, no scan;
//! 4. **mask** (`fence`): fenced code is blanked, so a call shown as an example never runs;
//! 5. **scan** (`dialect`): each embedded dialect proposes candidates over the masked text,
//!    decoding payloads through `payload`;
//! 6. **select** (`span`): text order, and nothing that starts inside an earlier call.
//!
//! Under `strict` and `portable` steps 4 to 6 are one pass instead (`pass`): the reply is
//! read once, left to right, each region (a fence, a reasoning block, a dialect's block,
//! prose) decided from its start on and never reopened, so a call's own text is never
//! masked, and a stream (`Stream`) is the same reading fed the reply in parts. Those
//! profiles also recover the native formats of today's model families (`Dialect`) and
//! type the arguments of formats that write them as text by the tool's schema
//! (`schema`).
//!
//! Every step is linear in the length of the reply, including on the inputs where CPython
//! is quadratic (unclosed tags, failing `python_tag`/ReAct decodes, long fences).
//!
//! [`salvage`] and [`Stream`] read under `strict`, the default, and return no `Result`:
//! no reply makes `strict` fail. [`salvage_under`] and [`StreamUnder`] take the profile
//! as a value chosen at run time (a configuration, a conformance run) and can fail, under
//! `praisonai` only, with the exceptions the real package lets escape ([`SalvageError`]).
//!
//! ```
//! use toolfix::salvage::{salvage, Allowlist, Request};
//! use toolfix::Adapter;
//!
//! let reply = "I'll check both.\n\
//!     <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n\
//!     <function=get_weather>{\"city\": \"Berlin\"}</function>";
//! let tools = Allowlist::new(["get_weather"]);
//! let calls = salvage(&Request::new(reply, &tools).adapter(Adapter::Ollama));
//! assert_eq!(calls.len(), 2);
//! assert_eq!(calls[0].name_str(), Some("get_weather"));
//! assert_eq!(calls[0].arguments_text().as_str(), Some(r#"{"city": "Paris"}"#));
//! assert_eq!(calls[1].arguments_text().as_str(), Some(r#"{"city": "Berlin"}"#));
//! ```

mod allowlist;
mod call;
pub(crate) mod dialect;
mod error;
pub(crate) mod fence;
mod name_hash;
mod pass;
mod payload;
pub(crate) mod probe;
pub(crate) mod reasoning;
mod scan;
mod schema;
mod span;
mod stream;
#[cfg(feature = "template")]
pub mod template;
mod text;

pub use allowlist::Allowlist;
pub use call::Call;
pub use dialect::{Dialect, Kind as DialectKind, Spec as DialectSpec, tokens};
pub use error::SalvageError;
pub use stream::{Event, Stream, StreamUnder};

use crate::adapter::Adapter;
use crate::profile::Profile;
use crate::py::{PyStr, Value};
use dialect::whole_json::{self, Whole};

/// Model text: a Rust `&str`, or a Python `str` that may hold lone surrogates.
#[derive(Clone, Copy, Debug)]
pub struct Content<'a>(&'a [u8]);

impl<'a> Content<'a> {
    /// The generalized UTF-8 bytes.
    pub fn as_bytes(self) -> &'a [u8] {
        self.0
    }

    /// The text as Rust text, when it holds no lone surrogate (always, for text that came
    /// in as `&str`).
    pub fn as_str(self) -> Option<&'a str> {
        std::str::from_utf8(self.0).ok()
    }
}

impl<'a> From<&'a str> for Content<'a> {
    fn from(s: &'a str) -> Content<'a> {
        Content(s.as_bytes())
    }
}

impl<'a> From<&'a PyStr> for Content<'a> {
    fn from(s: &'a PyStr) -> Content<'a> {
        Content(s.as_bytes())
    }
}

/// One salvage: the reply, the tools offered and the adapter.
///
/// It holds no profile: [`salvage`] reads it under `strict`, and [`salvage_under`] under
/// the profile it is given, so that the type of the outcome says whether it can fail.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    content: Content<'a>,
    tools: &'a Allowlist,
    adapter: Adapter,
    /// The profile the steps read it under: `strict`, unless `salvage_under` or a stream
    /// set another (`under`).
    profile: Profile,
}

impl<'a> Request<'a> {
    /// A request through the `local` adapter.
    pub fn new(content: impl Into<Content<'a>>, tools: &'a Allowlist) -> Request<'a> {
        Request {
            content: content.into(),
            tools,
            adapter: Adapter::Local,
            profile: Profile::Strict,
        }
    }

    /// The same request through another adapter.
    pub fn adapter(self, adapter: Adapter) -> Request<'a> {
        Request { adapter, ..self }
    }

    /// The same request under `profile`, for the steps to read.
    pub(crate) fn under(self, profile: Profile) -> Request<'a> {
        Request { profile, ..self }
    }

    /// Whether salvage runs for it at all: its adapter salvages text, and tools are
    /// offered.
    fn salvages(&self) -> bool {
        self.adapter.policy().salvages_text && !self.tools.is_empty()
    }
}

/// The byte ranges of `content` that salvage treats as fenced code, in order: no call
/// starting inside one is ever recovered.
///
/// A fence opens at a run of three or more backticks or tildes and closes at the first
/// later occurrence of exactly that run (or runs to the end of the text when unclosed),
/// as the real package's fence pattern matches; a runtime can use the ranges to show or
/// skip the same code blocks salvage ignores.
///
/// ```
/// let text = "Example:\n```\n<tool_call>{\"name\": \"delete_user\"}</tool_call>\n```\nDone.";
/// let ranges = toolfix::salvage::fenced_ranges(text);
/// assert_eq!(ranges.len(), 1);
/// assert!(text[ranges[0].clone()].starts_with("```"));
/// ```
pub fn fenced_ranges<'a>(content: impl Into<Content<'a>>) -> Vec<std::ops::Range<usize>> {
    fence::fenced_ranges(content.into().as_bytes())
}

/// The whole reply as a whole-content payload: JSON, and under `strict` and `portable` a
/// pythonic list.
fn whole_content_path(
    content: &[u8],
    beginning: Beginning,
    tools: &Allowlist,
    profile: Profile,
) -> Result<Whole, SalvageError> {
    match beginning.whole_content {
        true => whole_forms(content, tools, profile),
        false => Ok(Whole::NotCalls),
    }
}

/// Under `strict` and `portable`, the rest of a reply after the reasoning it begins with
/// (`<think>…</think>{…}`), ending at `end` as the reading decided it (`pass::Leading`),
/// as a whole-content payload.
fn after_reasoning(
    content: &[u8],
    end: Option<usize>,
    tools: &Allowlist,
    profile: Profile,
) -> Result<Whole, SalvageError> {
    match end {
        Some(end) if end < content.len() && profile.reads_payload_after_reasoning() => {
            Ok(whole_forms(&content[end..], tools, profile)?.shifted(end))
        }
        _ => Ok(Whole::NotCalls),
    }
}

/// What the text salvage reads may begin with: the whole reply, or the rest of a streamed
/// one (`stream`) after text that is settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Beginning {
    /// Whether this is the start of the reply: a whole-content payload, or reasoning
    /// opened here, may begin it.
    pub whole_content: bool,
    /// Whether a marker the probe looks for came before, so the probe has passed whatever
    /// this text holds (a call written with a folded marker, `<functıon=`, is salvaged
    /// when the word `action` came earlier in the reply).
    pub marker_before: bool,
}

impl Beginning {
    /// The start of a reply.
    pub const REPLY: Beginning = Beginning {
        whole_content: true,
        marker_before: false,
    };

    /// The rest of a streamed reply after prose that held no marker.
    pub const AFTER_PROSE: Beginning = Beginning {
        whole_content: false,
        marker_before: false,
    };
}

/// The whole-content forms `profile` reads in `content`.
fn whole_forms(content: &[u8], tools: &Allowlist, profile: Profile) -> Result<Whole, SalvageError> {
    match whole_json::recover(content, tools, profile)? {
        Whole::NotCalls if profile.reads_native_formats() => {
            dialect::pythonic::recover_whole(content, tools, profile)
        }
        whole => Ok(whole),
    }
}

/// Recovers the tool calls written as text in `request`'s reply, in text order, under
/// `strict`. An empty list is the real package's `None`.
///
/// It cannot fail: `strict` keeps the documented guarantees on every path, and salvage
/// that can raise is [`salvage_under`] `praisonai`.
pub fn salvage(request: &Request<'_>) -> Vec<Call> {
    guaranteed(salvage_under(request, Profile::Strict))
}

/// [`salvage`] under `profile`, a value chosen at run time: under `praisonai` it fails
/// where the real package raises ([`SalvageError`]); under `strict` and `portable` it
/// never does.
///
/// ```
/// use toolfix::salvage::{salvage_under, Allowlist, Request};
/// use toolfix::Profile;
///
/// let reply = r#"{"name": "wire_transfer", "arguments": {"to": "x"}}"#;
/// let tools = Allowlist::new(["get_weather"]);
/// let request = Request::new(reply, &tools);
/// // praisonai recovers a whole-content call to a tool that was not offered.
/// let calls = salvage_under(&request, Profile::PraisonAi)?;
/// assert_eq!(calls[0].name_str(), Some("wire_transfer"));
/// assert_eq!(salvage_under(&request, Profile::Strict)?, []);
/// # Ok::<(), toolfix::SalvageError>(())
/// ```
pub fn salvage_under(request: &Request<'_>, profile: Profile) -> Result<Vec<Call>, SalvageError> {
    salvage_with(&request.under(profile), Beginning::REPLY, pass::Memo::On)
}

/// The outcome of salvage under `strict` or `portable`, which is never an error: the
/// steps raise only where [`Profile::raises_interpreter_errors`] says so (a payload's
/// decode, `Payloads::caught`; a call's arguments, `Args::check`), and the whole-content
/// decode only past limits those profiles do not set (no integer-digit limit, and a
/// payload too deep is reserved, `whole_json::recover`). The fuzz targets hold
/// [`salvage_under`] `strict` to it. Were an error ever to come, nothing would be
/// recovered: no call runs, and no reply makes salvage panic.
fn guaranteed<T: Default>(outcome: Result<T, SalvageError>) -> T {
    outcome.unwrap_or_default()
}

/// Salvage of `request`'s content, the whole reply or (under `praisonai`) the rest of a
/// streamed one (`beginning`).
fn salvage_with(
    request: &Request<'_>,
    beginning: Beginning,
    memo: pass::Memo,
) -> Result<Vec<Call>, SalvageError> {
    let content = request.content.as_bytes();
    if !request.salvages() || content.is_empty() {
        return Ok(Vec::new());
    }
    let (tools, profile) = (request.tools, request.profile);
    match whole_content_path(content, beginning, tools, profile)? {
        Whole::Calls(calls) => return Ok(calls),
        Whole::Reserved => return Ok(Vec::new()),
        Whole::NotCalls => {}
    }
    let probed = beginning.marker_before || probe::has_marker(content, profile);
    if !profile.reads_native_formats() {
        return match probed {
            true => calls_of(scan::scan(content, tools, profile)?.collect(), 0, profile),
            false => Ok(Vec::new()),
        };
    }
    let mut reading = pass::Reading::new(memo);
    read_to_end(content, &mut reading, probed, 0, request)
}

/// The calls of `text`, all of a reply's that is not given out yet, read by `reading` to
/// its end: a whole-content payload after the reasoning the reply begins with, or, once
/// the probe passed (`probed`), the reading's calls, numbered from `first`.
fn read_to_end(
    text: &[u8],
    reading: &mut pass::Reading,
    probed: bool,
    first: usize,
    request: &Request<'_>,
) -> Result<Vec<Call>, SalvageError> {
    let (tools, profile) = (request.tools, request.profile);
    // Only a reasoning marker can begin the reply with reasoning: text the probe stops
    // that holds none is settled without a reading.
    if !probed && !reasoning::may_begin(text) {
        return Ok(Vec::new());
    }
    reading.advance(text, true, tools, profile)?;
    match after_reasoning(text, reading.leading.end(), tools, profile)? {
        Whole::Calls(calls) => return Ok(calls),
        Whole::Reserved => return Ok(Vec::new()),
        Whole::NotCalls => {}
    }
    match probed {
        true => calls_of(std::mem::take(&mut reading.found), first, profile),
        false => Ok(Vec::new()),
    }
}

/// The calls of a reading's `settled` candidates, numbered from `first` (the calls a
/// stream gave out before them, or those before a text read on its own), each built
/// where it is stored.
fn calls_of(
    settled: Vec<pass::Settled>,
    first: usize,
    profile: Profile,
) -> Result<Vec<Call>, SalvageError> {
    let mut calls = Vec::with_capacity(settled.len());
    for (position, (span, dialect, found)) in settled.into_iter().enumerate() {
        found.args.check(profile)?;
        let at = (dialect, first + position);
        calls.push(Call::new(Value::Str(found.name), found.args, span, at));
    }
    Ok(calls)
}

/// [`salvage`] with every dialect scanned afresh at every place the reading stops at:
/// the definition the one-pass reading's memo (`pass::blocks`) is held to by
/// `crates/toolfix-fuzzing/tests/one_pass.rs`. Quadratic; not for use.
#[doc(hidden)]
pub fn salvage_unmemoised(request: &Request<'_>) -> Vec<Call> {
    let request = request.under(Profile::Strict);
    guaranteed(salvage_with(&request, Beginning::REPLY, pass::Memo::Off))
}
