//! Whole-content JSON: the reply is nothing but `{"name": …, "arguments": …}` or a list of
//! such objects.
//!
//! This path runs first, on the text as written (never masked) after `str.strip()`, and
//! differs from the embedded dialects on purpose in the real package: only the keys
//! `name` and `arguments` count, any truthy name of any JSON type makes a call, and under
//! `praisonai` there is no allowlist. Valid JSON that makes no call falls through to the
//! embedded dialects.

use std::ops::Range;

use super::super::call::Call;
use super::super::{Allowlist, SalvageError};
use super::Dialect;
use crate::profile::{JsonSite, Profile};
use crate::py::Value;
use crate::py::json::{self, DecodeError};
use crate::py::unicode::{is_space, strip};

/// What the whole-content path decided.
pub enum Whole {
    /// The content is a call payload: these calls, nothing else is scanned.
    Calls(Vec<Call>),
    /// Under `strict`: the content is a call payload whose every call was rejected, or a
    /// JSON value nested past strict's bound; it is reserved whole, so nothing quoted in it
    /// runs.
    Reserved,
    /// Not a call payload: go on to the embedded dialects.
    NotCalls,
}

/// Runs the whole-content path on `content`.
pub fn recover(
    content: &[u8],
    allowed: &Allowlist,
    profile: Profile,
) -> Result<Whole, SalvageError> {
    // Prose costs nothing here: a reply that starts with a non-space ASCII byte is ruled
    // out by its start alone, before stripping decodes code points at both ends.
    let ascii_start = content
        .first()
        .is_some_and(|&b| b.is_ascii() && !is_space(b.into()));
    if ascii_start && !may_raise_or_call(content, profile) {
        return Ok(Whole::NotCalls);
    }
    let stripped = strip(content);
    let start = stripped.as_ptr() as usize - content.as_ptr() as usize;
    let span = start..start + stripped.len();
    if !may_raise_or_call(stripped, profile) {
        return Ok(Whole::NotCalls);
    }
    let entries = match json::loads(stripped, profile.json_limits(JsonSite::WholeContent)) {
        Ok(Value::Dict(d)) => vec![Value::Dict(d)],
        Ok(Value::List(l)) => l,
        Ok(_) => return Ok(Whole::NotCalls),
        Err(DecodeError::Syntax { .. }) => return Ok(Whole::NotCalls),
        // Too deep for strict's bound: the reply is a JSON payload strict will not read, so
        // it is reserved whole rather than scanned for markers quoted inside its strings.
        Err(DecodeError::TooDeep { .. } | DecodeError::RecursionInRaise { .. })
            if !profile.is_faithful() =>
        {
            return Ok(Whole::Reserved);
        }
        Err(e) => return Err(SalvageError::from(e)),
    };
    calls_from_entries(entries, span, allowed, profile)
}

/// Whether `json.loads` of this text can yield a dict or list, or raise something other
/// than `JSONDecodeError`. Only a container or a number can; prose, strings and literals
/// never do, so they cost no decoding.
///
/// A number is decoded only when it could raise: under `praisonai`, an integer literal of
/// more than 4300 digits (`ValueError`, raised before the "Extra data" error). Its value is
/// never a call, and `strict` turns every error into "not calls", so a reply opening with
/// an ordinary number ("1. Preheat the oven…") is settled here without decoding, which
/// would allocate the integer: clean replies must cost no allocation
/// (`tests/zero_alloc.rs`).
fn may_raise_or_call(text: &[u8], profile: Profile) -> bool {
    match text.first() {
        Some(b'{' | b'[') => true,
        Some(b'-' | b'0'..=b'9') => {
            let digits = text.strip_prefix(b"-").unwrap_or(text);
            let run = digits.iter().take_while(|b| b.is_ascii_digit()).count();
            profile.is_faithful() && run > crate::py::INT_MAX_STR_DIGITS
        }
        _ => false,
    }
}

/// The calls of a decoded payload: each dict entry with a truthy `name`, its index
/// counting skipped entries too (the real package's call ids use it).
fn calls_from_entries(
    entries: Vec<Value>,
    span: Range<usize>,
    allowed: &Allowlist,
    profile: Profile,
) -> Result<Whole, SalvageError> {
    let mut calls = Vec::new();
    let mut rejected = false;
    for (position, entry) in entries.into_iter().enumerate() {
        let Value::Dict(mut dict) = entry else {
            continue;
        };
        let Some(name) = dict
            .get("name".as_bytes())
            .filter(|n| n.is_truthy())
            .cloned()
        else {
            continue;
        };
        if profile.allowlists_whole_content()
            && !name.as_py_str().is_some_and(|n| allowed.contains(n))
        {
            rejected = true;
            continue;
        }
        let args = dict
            .swap_remove("arguments".as_bytes())
            .unwrap_or_else(|| Value::Dict(Default::default()));
        calls.push(Call::build(
            name,
            args,
            span.clone(),
            (Dialect::WholeJson, position),
            profile,
        )?);
    }
    let reserved = rejected && profile.reserves_rejected_whole_content();
    Ok(match (calls.is_empty(), reserved) {
        (false, _) => Whole::Calls(calls),
        (true, true) => Whole::Reserved,
        (true, false) => Whole::NotCalls,
    })
}
