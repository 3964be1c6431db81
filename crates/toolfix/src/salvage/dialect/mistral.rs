//! Mistral's `[TOOL_CALLS]`, as its tokenizers (`mistral-common`) and chat templates write
//! calls:
//!
//! * tokenizers v2 to v7 (Mistral 7B v0.3, Mixtral 8x22B, Nemo, Small 3.0 and 3.1 under
//!   their community templates, Magistral under llama.cpp's): one `[TOOL_CALLS]` then a
//!   JSON array of `{"name", "arguments"}` objects (an `"id"` may be there too), read as
//!   `call_array` reads such arrays;
//! * v11 and later (Ministral 3, Devstral, Magistral, Mistral Small 3.2 under
//!   `mistral-common`): each call is `[TOOL_CALLS]NAME[ARGS]{…}`, or
//!   `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}` where the v11 encoder carries call ids;
//! * the same with `[ARGS]` dropped, `[TOOL_CALLS]NAME{…}`: what an engine shows when it
//!   keeps `[TOOL_CALLS]` but strips the other control tokens (vLLM's parser reads this
//!   form, and its tests write it).
//!
//! Text before the first `[TOOL_CALLS]` is the reply's content. The arguments are a JSON
//! object with no closing token: they end where the object ends. Whitespace around the
//! name and the tokens is tolerated, as Ollama's and SGLang's parsers trim it. A v11 call
//! may also be followed directly by the next `NAME[ARGS]{…}` without a second
//! `[TOOL_CALLS]`, as some generations write it; that continuation needs the `[ARGS]` (or
//! `[CALL_ID]`) token, so a word and a brace in the prose after a call never become one.
//! Arguments that are not an object make no call (mistral-common rejects them), and the
//! block stays reserved; arguments that do not read reserve what was written of them.

use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::call_array;
use super::token::{Markers, at};
use super::tokens::mistral;
use super::{Dialect, MAX_NAME};
use crate::py::PyStr;

const TOOL_CALLS: &[u8] = mistral::TOOL_CALLS.as_bytes();
const ARGS: &[u8] = mistral::ARGS.as_bytes();
const CALL_ID: &[u8] = mistral::CALL_ID.as_bytes();

/// Adds a candidate for every call after a `[TOOL_CALLS]`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    let markers = Markers::new(text, TOOL_CALLS);
    let mut from = 0;
    while let Some(start) = markers.next(from) {
        let body = skip_space(text, start + TOOL_CALLS.len());
        if body == text.len() {
            // A streamed reply may go on with either form.
            payloads.reaches_end(start);
        }
        let resume = if text.get(body) == Some(&b'[') {
            call_array::scan(payloads, start, body, Dialect::Mistral, out)
        } else {
            calls(payloads, start, body, out)
        };
        from = resume.max(start + 1);
    }
}

/// The v11 form: `NAME[ARGS]{…}` (or with `[CALL_ID]ID`, or `NAME{…}`) at `at`, and any
/// calls that follow it directly. Returns where scanning resumes.
///
/// Whatever the end of the text leaves undecided (a name, a token, arguments cut short,
/// or a call that more text could chain another to) is reported to `reaches_end`, so a
/// streamed reply settles nothing from there on.
fn calls(payloads: &Payloads<'_>, start: usize, mut at: usize, out: &mut Candidates) -> usize {
    let text = payloads.text();
    let mut first = Some(start);
    loop {
        let call_start = first.unwrap_or(at);
        let (name, args) = match head(text, at, first.is_some()) {
            Head::Call(name, args) => (name, args),
            Head::Cut => {
                payloads.reaches_end(call_start);
                if first.is_some() {
                    out.push(call_start..text.len(), Dialect::Mistral, None);
                }
                return text.len();
            }
            Head::Not => {
                if first.is_some() {
                    out.push(call_start..at, Dialect::Mistral, None);
                }
                return at;
            }
        };
        first = None;
        if text[args..].starts_with(TOOL_CALLS) {
            // `NAME[ARGS]` with nothing after it: the next call starts here.
            out.push(call_start..args, Dialect::Mistral, None);
            return args;
        }
        let (args, end) = match payloads.object_args_or_reach(args) {
            Ok(read) => read,
            Err(reach) => {
                if reach == text.len() {
                    payloads.reaches_end(call_start);
                }
                out.push(call_start..reach, Dialect::Mistral, None);
                return reach;
            }
        };
        let found = args
            .filter(|_| payloads.allows(&name))
            .map(|args| Found { name, args });
        out.push(call_start..end, Dialect::Mistral, found);
        at = skip_space(text, end);
        if at == text.len() {
            // More text could chain the next `NAME[ARGS]{…}` here, which only the
            // `[TOOL_CALLS]` at `start` makes a call: the chain stays open from there.
            payloads.reaches_end(start);
            return end;
        }
        if text[at..].starts_with(TOOL_CALLS) {
            return end;
        }
    }
}

/// What a call's head at some offset is.
enum Head {
    /// The name, and where the arguments start.
    Call(PyStr, usize),
    /// The text ends before saying.
    Cut,
    /// Not a call's head.
    Not,
}

/// `NAME[ARGS]` or `NAME[CALL_ID]ID[ARGS]` at `at`, or right after `[TOOL_CALLS]`
/// (`after_marker`) also `NAME` followed by the `{` of its arguments.
fn head(text: &[u8], at: usize, after_marker: bool) -> Head {
    let name_end = match token_word(text, at) {
        Some(end) if end == text.len() => return Head::Cut,
        Some(end) => end,
        None if at == text.len() => return Head::Cut,
        None => return Head::Not,
    };
    let name = PyStr::from_generalized_utf8(&text[at..name_end]);
    let after_name = skip_space(text, name_end);
    if let Some(args) = at_token(text, after_name, ARGS) {
        return Head::Call(name, args);
    }
    if after_marker && text.get(after_name) == Some(&b'{') {
        return Head::Call(name, after_name);
    }
    if cut_inside(text, after_name, &[ARGS, CALL_ID]) {
        return Head::Cut;
    }
    let Some(id_start) = at_token(text, after_name, CALL_ID) else {
        return Head::Not;
    };
    let id_end = match token_word(text, id_start) {
        Some(end) if end < text.len() => end,
        None if id_start < text.len() => return Head::Not,
        _ => return Head::Cut,
    };
    let before_args = skip_space(text, id_end);
    match at_token(text, before_args, ARGS) {
        Some(args) => Head::Call(name, args),
        None if cut_inside(text, before_args, &[ARGS]) => Head::Cut,
        None => Head::Not,
    }
}

/// Whether the text from `at` to its end is the beginning of one of `tokens` (or empty).
fn cut_inside(text: &[u8], at: usize, tokens: &[&[u8]]) -> bool {
    let rest = &text[at.min(text.len())..];
    tokens.iter().any(|token| token.starts_with(rest))
}

/// The end of a run of 1 to `MAX_NAME` bytes at `at` with no whitespace, `[` or `{`.
fn token_word(text: &[u8], at: usize) -> Option<usize> {
    let len = text
        .get(at..)?
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b'[' | b'{'))
        .count();
    (1..=MAX_NAME).contains(&len).then_some(at + len)
}

/// The end of `token` at `i`, whitespace after it skipped.
#[inline]
fn at_token(text: &[u8], i: usize, token: &[u8]) -> Option<usize> {
    at(text, i, token).map(|end| skip_space(text, end))
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::*;

    /// The calls `scan` accepts in `text`, as `(name, arguments JSON)`, and every span.
    fn read(text: &str) -> (Vec<(String, String)>, Vec<Range<usize>>) {
        super::super::scanned_by(scan, text)
    }

    #[test]
    fn the_args_token_may_be_missing_right_after_the_marker() {
        let (calls, _) =
            read(r#"[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]search{"q": "x"}"#);
        assert_eq!(
            calls,
            [
                ("get_weather".into(), r#"{"city": "Paris"}"#.into()),
                ("search".into(), r#"{"q": "x"}"#.into())
            ]
        );
        // Without a marker, a word and a brace are prose, not a continuation.
        let (calls, _) = read(r#"[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"} search{"q": "x"}"#);
        assert_eq!(calls.len(), 1);
    }

    #[test]
    fn whitespace_around_the_name_and_tokens() {
        let (calls, _) = read(
            "[TOOL_CALLS] get_weather [ARGS] {\"city\": \"Paris\"}\n[TOOL_CALLS]search [CALL_ID] a1b2c3d4e [ARGS]{\"q\": \"x\"}",
        );
        assert_eq!(calls.len(), 2);
    }

    #[test]
    fn arguments_that_do_not_read_reserve_what_was_written() {
        let text = r#"[TOOL_CALLS]get_weather[ARGS]{"note": "<function=search>{}</function>"#;
        let (calls, spans) = read(text);
        assert!(calls.is_empty());
        assert_eq!(
            spans,
            vec![Range {
                start: 0,
                end: text.len()
            }]
        );
        let text =
            r#"[TOOL_CALLS]get_weather[ARGS]{city: Paris} [TOOL_CALLS]search[ARGS]{"q": "x"}"#;
        let (calls, _) = read(text);
        assert_eq!(calls, [("search".into(), r#"{"q": "x"}"#.into())]);
    }

    #[test]
    fn many_markers_without_arguments_take_one_pass() {
        let text = "[TOOL_CALLS]get_weather[ARGS]".repeat(50_000);
        let (calls, _) = read(&text);
        assert!(calls.is_empty());
        let text = format!(
            "[TOOL_CALLS]get_weather[ARGS]{{\"a\": \"{}",
            "[TOOL_CALLS]x{".repeat(50_000)
        );
        let (_, spans) = read(&text);
        assert_eq!(
            spans,
            vec![Range {
                start: 0,
                end: text.len()
            }]
        );
    }
}
