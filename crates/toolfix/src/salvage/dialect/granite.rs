//! IBM Granite 3.x: `<|tool_call|>` then a JSON array of `{"name", "arguments"}` objects,
//! as its chat template writes assistant tool calls (read by `call_array`).

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::span::Candidate;
use super::super::text::skip_space;
use super::{Dialect, call_array};

const MARKER: &[u8] = b"<|tool_call|>";

/// Adds a candidate for every call of every `<|tool_call|>[…]`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    let mut resume = 0;
    for start in memmem::find_iter(text, MARKER) {
        let bracket = skip_space(text, start + MARKER.len());
        if start < resume || text.get(bracket) != Some(&b'[') {
            continue;
        }
        resume = call_array::scan(payloads, start, bracket, Dialect::Granite, out);
    }
}
