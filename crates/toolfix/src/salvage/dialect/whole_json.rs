//! Whole-content JSON: the reply is nothing but `{"name": …, "arguments": …}` or a list of
//! such objects.
//!
//! This path runs first, on the text as written (never masked) after `str.strip()`, and
//! differs from the embedded dialects on purpose in the real package: only the keys
//! `name` and `arguments` count, any truthy name of any JSON type makes a call, and under
//! `praisonai` there is no allowlist. Valid JSON that makes no call falls through to the
//! embedded dialects.
//!
//! Under `strict` and `portable` the path also reads Llama 3.x's JSON (`llama_json`):
//! `{"name", "parameters"}`, and several such objects separated by `;` (or whitespace),
//! as Llama 3.1–3.3's model cards write calls (an object that also has a `description` is
//! a tool definition, not a call); and a JSON object or list that makes no call reserves
//! the whole reply, so a call quoted in its strings never runs.

use std::ops::Range;

use super::super::call::{Args, Call};
use super::super::{Allowlist, SalvageError};
use super::Dialect;
use crate::profile::{JsonSite, Profile};
use crate::py::Value;
use crate::py::json::skip_whitespace;
use crate::py::json::{self, DecodeError};
use crate::py::unicode::{is_space, strip};

/// What the whole-content path decided.
pub enum Whole {
    /// The content is a call payload: these calls, nothing else is scanned.
    Calls(Vec<Call>),
    /// Under `strict` and `portable`: the content is a JSON object or list that makes no
    /// call (every call rejected, or none written), a JSON value nested past strict's
    /// bound, or one the reply ends inside; it is reserved whole, so nothing quoted in it
    /// runs.
    Reserved,
    /// Not a call payload: go on to the embedded dialects.
    NotCalls,
}

impl Whole {
    /// The same decision for a content that started `by` bytes later in the reply.
    pub fn shifted(self, by: usize) -> Whole {
        match self {
            Whole::Calls(calls) => Whole::Calls(calls.into_iter().map(|c| c.shifted(by)).collect()),
            other => other,
        }
    }
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
    let entries = match decode(stripped, profile) {
        Ok(Some(entries)) => entries,
        Ok(None) => return Ok(Whole::NotCalls),
        // Cut off by the end of the reply: under `strict` and `portable` the payload was
        // being written, and a call quoted in the string it was cut in must not run (G4).
        Err(DecodeError::Syntax { msg, pos })
            if profile.reserves_cut_whole_content()
                && msg != "Extra data"
                && (pos >= stripped.len() || msg.starts_with("Unterminated string")) =>
        {
            return Ok(Whole::Reserved);
        }
        Err(DecodeError::Syntax { .. }) => return Ok(Whole::NotCalls),
        // Too deep for strict's bound: the reply is a JSON payload strict will not read, so
        // it is reserved whole rather than scanned for markers quoted inside its strings.
        Err(DecodeError::TooDeep { .. } | DecodeError::RecursionInRaise { .. })
            if profile.reserves_deep_whole_content() =>
        {
            return Ok(Whole::Reserved);
        }
        Err(e) => return Err(SalvageError::from(e)),
    };
    calls_from_entries(entries, span, allowed, profile)
}

/// Whether more text could still make `text` (stripped at the start) a whole-content JSON
/// payload under `profile`: its decode has not failed, or failed only because the text
/// ended (`DecodeError::may_be_cut_short`). A complete payload can still be followed by
/// more text, so this is true of it too. Under `strict` and `portable` a payload too deep
/// to read reserves the whole reply (`recover`), whatever follows: true of it as well.
pub fn may_become_whole(text: &[u8], profile: Profile) -> bool {
    let limits = profile.json_limits(JsonSite::WholeContent);
    let mut at = 0;
    loop {
        match json::raw_check(text, at, limits) {
            Err(DecodeError::TooDeep { .. } | DecodeError::RecursionInRaise { .. })
                if profile.reserves_deep_whole_content() =>
            {
                return true;
            }
            Ok(end) => {
                let next = match profile.reads_call_sequences() {
                    true => skip_separator(text, end),
                    false => skip_whitespace(text, end),
                };
                if next == text.len() {
                    return true;
                }
                if !profile.reads_call_sequences() {
                    return false;
                }
                at = next;
            }
            Err(e) => return e.may_be_cut_short(text.len()),
        }
    }
}

/// The entries of the whole-content payload: a decoded object as one entry, a list's
/// items, or under `strict` and `portable` a `;`-separated sequence of objects; `None`
/// when the text is JSON but not a container.
fn decode(text: &[u8], profile: Profile) -> Result<Option<Vec<Value>>, DecodeError> {
    let limits = profile.json_limits(JsonSite::WholeContent);
    if !profile.reads_call_sequences() {
        return Ok(entries_of(json::loads(text, limits)?));
    }
    let (first, mut at) = json::raw_decode(text, 0, limits)?;
    at = skip_separator(text, at);
    if at == text.len() {
        return Ok(entries_of(first));
    }
    // A sequence is checked before the rest of it is built: one cut off after thousands
    // of calls fails without building them.
    check_rest(text, at, matches!(first, Value::Dict(_)), limits)?;
    let mut objects = vec![first];
    while at < text.len() {
        let (next, end) = json::raw_decode(text, at, limits)?;
        objects.push(next);
        at = skip_separator(text, end);
    }
    match objects.iter().all(|o| matches!(o, Value::Dict(_))) {
        true => Ok(Some(objects)),
        false => Err(DecodeError::Syntax {
            msg: "Extra data",
            pos: at,
        }),
    }
}

/// `decode`'s reading of a sequence from `at` on, checking syntax only: the error it
/// would return, if any. A value is an object when it starts with `{`.
fn check_rest(
    text: &[u8],
    mut at: usize,
    first_is_object: bool,
    limits: json::DecodeLimits,
) -> Result<(), DecodeError> {
    let mut all_objects = first_is_object;
    while at < text.len() {
        all_objects &= text[at] == b'{';
        at = skip_separator(text, json::raw_check(text, at, limits)?);
    }
    match all_objects {
        true => Ok(()),
        false => Err(DecodeError::Syntax {
            msg: "Extra data",
            pos: at,
        }),
    }
}

/// An object as one entry, a list as its items, anything else as no entries.
fn entries_of(value: Value) -> Option<Vec<Value>> {
    match value {
        Value::Dict(d) => Some(vec![Value::Dict(d)]),
        Value::List(l) => Some(l),
        _ => None,
    }
}

/// The end of the JSON whitespace and at most one `;` at `at`.
fn skip_separator(text: &[u8], at: usize) -> usize {
    let at = skip_whitespace(text, at);
    match text.get(at) {
        Some(b';') => skip_whitespace(text, at + 1),
        _ => at,
    }
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
            profile.raises_interpreter_errors() && run > crate::py::INT_MAX_STR_DIGITS
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
            continue;
        }
        let (args, dialect) = arguments(&mut dict, profile);
        if dialect == Dialect::LlamaJson && dict.contains_key("description".as_bytes()) {
            // `{"name", "description", "parameters"}` is how a tool is defined, not
            // called: a model asked to describe its tools writes it, and its "arguments"
            // would be the tool's schema.
            continue;
        }
        calls.push(Call::build(
            name,
            Args::Decoded(args),
            span.clone(),
            (dialect, position),
            profile,
        )?);
    }
    let reserved = profile.reserves_rejected_whole_content();
    Ok(match (calls.is_empty(), reserved) {
        (false, _) => Whole::Calls(calls),
        (true, true) => Whole::Reserved,
        (true, false) => Whole::NotCalls,
    })
}

/// The arguments of a whole-content call and the dialect they say it is: `arguments`
/// (even `null`), else under `strict` and `portable` Llama's `parameters`, else `{}`.
fn arguments(dict: &mut crate::py::Dict, profile: Profile) -> (Value, Dialect) {
    if let Some(args) = dict.swap_remove("arguments".as_bytes()) {
        return (args, Dialect::WholeJson);
    }
    match dict.swap_remove("parameters".as_bytes()) {
        Some(args) if profile.reads_native_formats() => (args, Dialect::LlamaJson),
        _ => (Value::Dict(Default::default()), Dialect::WholeJson),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str, profile: Profile) -> Option<Vec<String>> {
        let tools = Allowlist::new(["get_weather", "search"]);
        match recover(text.as_bytes(), &tools, profile).unwrap() {
            Whole::Calls(calls) => Some(
                calls
                    .iter()
                    .map(|c| format!("{} {}", c.name_str().unwrap(), c.arguments_text()))
                    .collect(),
            ),
            Whole::Reserved => Some(Vec::new()),
            Whole::NotCalls => None,
        }
    }

    #[test]
    fn a_tool_definition_is_not_a_llama_call() {
        let definition = r#"{"name": "get_weather", "description": "Weather.", "parameters": {"city": "string"}}"#;
        assert_eq!(names(definition, Profile::Strict), Some(vec![]));
        assert_eq!(
            names(definition, Profile::PraisonAi),
            Some(vec!["get_weather {}".to_owned()])
        );
        let call = r#"{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": "search"}"#;
        assert_eq!(
            names(call, Profile::Strict),
            Some(vec![
                r#"get_weather {"city": "Oslo"}"#.to_owned(),
                "search {}".to_owned()
            ])
        );
    }

    #[test]
    fn a_reply_cut_inside_the_payload_is_reserved() {
        for cut in [
            r#"{"name": "search", "parameters": {"q": "<function=get_weather>{}</function>"#,
            r#"{"name": "search", "parameters": {"q": "x"}"#,
            r#"[{"name": "search", "arguments": {}}, "#,
        ] {
            assert_eq!(names(cut, Profile::Strict), Some(vec![]), "{cut}");
            assert_eq!(names(cut, Profile::PraisonAi), None, "{cut}");
        }
        // A syntax error before the end is not a cut payload: the reply falls through.
        assert_eq!(names(r#"{ <tool_call>"#, Profile::Strict), None);
        assert_eq!(names(r#"{"name": "search"}; 42"#, Profile::Strict), None);
    }
}
