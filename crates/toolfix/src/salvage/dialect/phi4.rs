//! Phi-4-mini's two ways of writing tool calls:
//!
//! * `functools` then a JSON array of `{"name", "arguments"}` objects, as the tool-calling
//!   template Microsoft contributed to vLLM asks for (and FireFunction v2 writes), read by
//!   `call_array`; there is no closing marker, the call ends where the array ends;
//! * its own tokens, `<|tool_call|>` … `<|/tool_call|>`, around a JSON array, one object,
//!   or several objects separated by commas, as the model writes under its Hugging Face
//!   template and llama.cpp's. `granite` finds these (Granite writes `<|tool_call|>` too,
//!   without a closer) and hands them here.
//!
//! Each object is a call when its `name` is a string that was offered and its `arguments`
//! (or `parameters`) are an object. A `<|tool_call|>` object whose closer never comes makes
//! no call: what was written of it stays reserved.

use std::ops::Range;

use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::token::Markers;
use super::tokens::phi4;
use super::{Dialect, call_array};
use crate::py::json::skip_whitespace;

const MARKER: &[u8] = phi4::FUNCTOOLS.as_bytes();
const CLOSER: &[u8] = phi4::CLOSE.as_bytes();

/// Adds a candidate for every call of every `functools[…]`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let markers = Markers::new(payloads.text(), MARKER);
    let mut from = 0;
    while let Some(start) = markers.next(from) {
        let bracket = start + MARKER.len() - 1;
        from = call_array::scan(payloads, start, bracket, Dialect::Phi4, out).max(start + 1);
    }
}

/// The end of `<|/tool_call|>` when it follows `at` after JSON whitespace.
pub fn closer_after(text: &[u8], at: usize) -> Option<usize> {
    let at = skip_whitespace(text, at);
    text.get(at..)?
        .starts_with(CLOSER)
        .then_some(at + CLOSER.len())
}

/// Whether the text after `at` (JSON whitespace, then the rest) may still become
/// `<|/tool_call|>`: it ends before saying.
pub fn closer_may_follow(text: &[u8], at: usize) -> bool {
    let at = skip_whitespace(text, at);
    CLOSER.starts_with(&text[at.min(text.len())..])
}

/// `<|tool_call|>` at `start` followed by objects, the first at `brace`: each a candidate
/// when `<|/tool_call|>` closes them. Returns where scanning resumes.
pub fn tagged_objects(
    payloads: &Payloads<'_>,
    start: usize,
    brace: usize,
    out: &mut Candidates,
) -> usize {
    let text = payloads.text();
    let mut objects = Vec::new();
    let mut at = brace;
    loop {
        let (value, end) = match payloads.payload_or_reach(at) {
            Ok(read) => read,
            Err(reach) => {
                if reach == text.len() {
                    payloads.reaches_end(start);
                }
                return rejected(start..reach, Dialect::Phi4, out);
            }
        };
        objects.push((value, at..end));
        at = skip_whitespace(text, end);
        if text.get(at) == Some(&b',') {
            at = skip_whitespace(text, at + 1);
        }
        if text.get(at) != Some(&b'{') {
            break;
        }
    }
    let Some(close_end) = closer_after(text, at) else {
        if closer_may_follow(text, at) {
            // The closer, or another object, may still come.
            payloads.reaches_end(start);
        }
        // No closer: an unclosed call, reserved as far as it was written.
        let written = objects.last().map_or(brace, |(_, span)| span.end);
        return rejected(start..written, Dialect::Phi4, out);
    };
    let last = objects.len() - 1;
    for (k, (value, span)) in objects.into_iter().enumerate() {
        let span =
            if k == 0 { start } else { span.start }..if k == last { close_end } else { span.end };
        out.push(
            span,
            Dialect::Phi4,
            call_array::call_object(payloads, value),
        );
    }
    close_end
}

/// Adds a rejected candidate for `span` and returns its end, where scanning resumes.
pub fn rejected(span: Range<usize>, dialect: Dialect, out: &mut Candidates) -> usize {
    let end = span.end;
    out.push(span, dialect, None);
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every candidate of the `<|tool_call|>` and `functools` scanners over `text`:
    /// dialect, name when accepted, span.
    fn read(text: &str) -> Vec<(Dialect, Option<String>, Range<usize>)> {
        let scanners = [super::super::granite::scan, scan];
        super::super::candidates_of(&scanners, text, &["get_weather", "search"])
            .into_found()
            .map(|(c, found)| (c.dialect, found.map(|f| f.name.to_string()), c.span))
            .collect()
    }

    #[test]
    fn the_closer_makes_a_tool_call_token_phi4() {
        let call = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
        let granite = format!("<|tool_call|>[{call}]");
        let phi = format!("<|tool_call|>[{call}]<|/tool_call|>");
        let phi_object = format!("<|tool_call|>{call}<|/tool_call|>");
        let phi_objects = format!("<|tool_call|>{call}, {call}\n<|/tool_call|>");
        assert_eq!(read(&granite)[0].0, Dialect::Granite);
        assert_eq!(
            read(&phi),
            [(Dialect::Phi4, Some("get_weather".into()), 0..phi.len())]
        );
        assert_eq!(read(&phi_object)[0].2, 0..phi_object.len());
        let both = read(&phi_objects);
        assert_eq!(both.len(), 2);
        assert_eq!(both[1].2.end, phi_objects.len());
    }

    #[test]
    fn an_unclosed_object_is_reserved_without_a_call() {
        let text = r#"<|tool_call|>{"name": "get_weather", "arguments": {"city": "Paris"}} then <function=search>{}</function>"#;
        let found = read(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, None);
        assert_eq!(
            &text[found[0].2.clone()],
            &text[..text.find(" then").unwrap()]
        );
    }

    #[test]
    fn many_markers_take_one_pass() {
        for marker in ["<|tool_call|>{", "<|tool_call|>[", "functools["] {
            let text = marker.repeat(50_000);
            assert!(
                read(&text).iter().all(|(_, name, _)| name.is_none()),
                "{marker}"
            );
        }
        let text = format!(
            "<|tool_call|>{{\"a\": \"{}",
            "<|tool_call|>{".repeat(50_000)
        );
        assert_eq!(read(&text).len(), 1);
    }
}
