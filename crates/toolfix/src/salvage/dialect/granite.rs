//! IBM Granite 3.x: `<|tool_call|>` then a JSON array of `{"name", "arguments"}` objects,
//! as its chat template writes assistant tool calls (read by `call_array`). The array has
//! no closing token: the call ends where the array ends. (vLLM's Granite parser also
//! accepts the text `<tool_call>` before the array; that is left to the `tool_call`
//! dialect, whose payload must be an object, as the real package reads it.)
//!
//! Phi-4-mini has a `<|tool_call|>` token too, and closes it with `<|/tool_call|>`: a
//! `<|tool_call|>` whose JSON is followed by that closer is Phi-4-mini's (`phi4::tagged_objects`, `phi4::closer_after`),
//! whatever the JSON holds. Granite 4 writes Hermes' `<tool_call>{…}</tool_call>` instead,
//! which is the `tool_call` dialect.

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::super::text::skip_space;
use super::tokens::granite;
use super::{Dialect, call_array, phi4};

const MARKER: &[u8] = granite::TOOL_CALL.as_bytes();

/// Adds a candidate for every call of every `<|tool_call|>[…]`, and hands the
/// `<|tool_call|>…<|/tool_call|>` blocks to `phi4`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    let mut resume = 0;
    for start in memmem::find_iter(text, MARKER) {
        if start < resume {
            continue;
        }
        let body = skip_space(text, start + MARKER.len());
        if body == text.len() {
            payloads.reaches_end(start);
        }
        resume = match text.get(body) {
            Some(b'[') => array(payloads, start, body, out),
            Some(b'{') => phi4::tagged_objects(payloads, start, body, out),
            _ => continue,
        };
    }
}

/// The array at `bracket`: Granite's, or Phi-4-mini's when `<|/tool_call|>` follows it.
/// Returns where scanning resumes.
fn array(payloads: &Payloads<'_>, start: usize, bracket: usize, out: &mut Candidates) -> usize {
    let (mut read, end) = match call_array::read(payloads, start, bracket, Dialect::Granite) {
        Ok(read) => read,
        Err(reach) => return phi4::rejected(start..reach, Dialect::Granite, out),
    };
    let Some(close_end) = phi4::closer_after(payloads.text(), end) else {
        if phi4::closer_may_follow(payloads.text(), end) {
            // Phi-4-mini's closer may still come and make the block its own.
            payloads.reaches_end(start);
        }
        out.append(&mut read);
        return end;
    };
    for candidate in read.iter_mut() {
        candidate.dialect = Dialect::Phi4;
    }
    if let Some(last) = read.last_mut() {
        last.span.end = close_end;
    }
    out.append(&mut read);
    close_end
}
