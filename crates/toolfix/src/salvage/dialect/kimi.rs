//! Kimi K2: calls inside `<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>`,
//! each `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>`,
//! as the chat templates of Kimi K2 and K2-Thinking write them (`docs/dialects/kimi.md`).
//!
//! The call id is `functions.NAME:IDX`: the name is what lies between the `functions.`
//! prefix (optional) and the last `:`, which must be followed by the index digits, so a
//! name may hold dots (`files.read`). An id without its index is not the format's and
//! makes no call. The arguments are a JSON object.
//!
//! Each call is read from its own begin and end tokens; the section tokens around them
//! are not required. A call whose `<|tool_call_end|>` never comes is truncated: it makes
//! no call and reserves the rest of the reply. A `<|tool_call_end|>` inside a JSON string
//! of the arguments does not end the call: when the text up to the first end token is
//! not the arguments, the JSON is read past it, up to the next `<|tool_call_begin|>`
//! (which bounds every such read, so the scan stays linear), and the call ends at the
//! end token that follows the JSON.

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Block, Blocks, any, at, token_may_follow, trimmed};
use super::tokens::kimi;
use crate::profile::JsonSite;
use crate::py::json;
use crate::py::{PyStr, Value};

const BEGIN: &[u8] = kimi::CALL_BEGIN.as_bytes();
const END: &[u8] = kimi::CALL_END.as_bytes();
const ARGUMENTS: &[u8] = kimi::ARGUMENT_BEGIN.as_bytes();

/// Adds a candidate for every `<|tool_call_begin|>` block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    for block in Blocks::new(text, BEGIN, END, any) {
        let (span, found) = if block.closed {
            call(payloads, &block)
        } else {
            (block.span, None)
        };
        out.push(span, Dialect::Kimi, found);
    }
}

/// The span and call of a closed block: its own span when its arguments read whole,
/// else (an end token inside a string argument) the span up to the end token after the
/// JSON, read no further than the next `<|tool_call_begin|>`.
fn call(payloads: &Payloads<'_>, block: &Block) -> (std::ops::Range<usize>, Option<Found>) {
    let text = payloads.text();
    let body = &text[block.body.clone()];
    let Some(split) = memmem::find(body, ARGUMENTS) else {
        return (block.span.clone(), None);
    };
    let Some(name) = name_of(body[..split].trim_ascii()) else {
        return (block.span.clone(), None);
    };
    let args_start = block.body.start + split + ARGUMENTS.len();
    let args = trimmed(text, args_start..block.body.end);
    if let Ok(Some(found)) = payloads.named_object(name.clone(), args) {
        return (block.span.clone(), Some(found));
    }
    let bound =
        memmem::find(&text[block.span.end..], BEGIN).map_or(text.len(), |i| block.span.end + i);
    let limits = payloads.profile().json_limits(JsonSite::Tag);
    let json_start = skip_space(text, args_start);
    let decoded = json::raw_decode(&text[..bound], json_start, limits);
    // Read to the end of the text, a decode cut short, or arguments whose end token has
    // not come yet, may still be completed by more of a streamed reply.
    let cut_short = match &decoded {
        Err(error) => error.may_be_cut_short(bound),
        Ok((_, json_end)) => token_may_follow(text, *json_end, END),
    };
    if bound == text.len() && cut_short {
        payloads.reaches_end(block.span.start);
    }
    match decoded {
        Ok((args @ Value::Dict(_), json_end)) if json_end > block.body.end => {
            match at(&text[..bound], skip_space(text, json_end), END) {
                Some(end) => {
                    let found = payloads.allows(&name).then_some(Found::new(name, args));
                    (block.span.start..end, found)
                }
                None => (block.span.clone(), None),
            }
        }
        _ => (block.span.clone(), None),
    }
}

/// The tool name in a call id `functions.NAME:IDX` (or `NAME:IDX`).
fn name_of(id: &[u8]) -> Option<PyStr> {
    let id = id.strip_prefix(kimi::FUNCTIONS.as_bytes()).unwrap_or(id);
    let colon = id.iter().rposition(|&b| b == b':')?;
    let index = &id[colon + 1..];
    let name = &id[..colon];
    (!name.is_empty() && !index.is_empty() && index.iter().all(u8::is_ascii_digit))
        .then(|| PyStr::from_generalized_utf8(name))
}

#[cfg(test)]
mod tests {
    use super::super::strict_calls as calls;

    #[test]
    fn an_id_needs_its_index() {
        let text = "<|tool_call_begin|>functions.f<|tool_call_argument_begin|>{}<|tool_call_end|>";
        assert!(calls(text, &["f"]).is_empty());
        let text = "<|tool_call_begin|>functions.files.read:3<|tool_call_argument_begin|>{}<|tool_call_end|>";
        assert_eq!(
            calls(text, &["files.read"]),
            [("files.read".into(), "{}".into())]
        );
    }

    #[test]
    fn an_end_token_inside_a_string_does_not_end_the_call() {
        let text = concat!(
            "<|tool_call_begin|>functions.note:0<|tool_call_argument_begin|>",
            r#"{"text": "ends with <|tool_call_end|> here"}<|tool_call_end|>"#,
            "<|tool_call_begin|>functions.note:1<|tool_call_argument_begin|>",
            r#"{"text": "b"}<|tool_call_end|>"#,
        );
        assert_eq!(
            calls(text, &["note"]),
            [
                (
                    "note".into(),
                    r#"{"text": "ends with <|tool_call_end|> here"}"#.into()
                ),
                ("note".into(), r#"{"text": "b"}"#.into()),
            ]
        );
    }

    #[test]
    fn a_read_past_the_end_token_stops_at_the_next_call() {
        // The first call's string never closes before the next call begins: nothing from
        // the first, and the second is read on its own.
        let text = concat!(
            "<|tool_call_begin|>functions.note:0<|tool_call_argument_begin|>",
            r#"{"text": "a<|tool_call_end|>"#,
            "<|tool_call_begin|>functions.note:1<|tool_call_argument_begin|>",
            r#"{"text": "b"}<|tool_call_end|>"#,
        );
        assert_eq!(
            calls(text, &["note"]),
            [("note".into(), r#"{"text": "b"}"#.into())]
        );
    }

    #[test]
    fn many_blocks_whose_arguments_fail_make_no_call() {
        let unit = "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": \"<|tool_call_end|>";
        let text = unit.repeat(10_000);
        assert!(calls(&text, &["f"]).is_empty());
    }
}
