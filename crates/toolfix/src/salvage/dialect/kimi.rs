//! Kimi K2: calls inside `<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>`,
//! each `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>`,
//! as its chat template writes them.
//!
//! The call id is `functions.NAME:IDX`: the name is what lies between the `functions.`
//! prefix (optional) and the last `:` followed by the index, so a name may hold dots
//! (`files.read`). The arguments are a JSON object. A call whose `<|tool_call_end|>` never
//! comes is truncated: it makes no call and reserves the rest of the reply.

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::Dialect;
use super::token::{Block, Blocks, any, trimmed};
use crate::py::PyStr;

const BEGIN: &[u8] = b"<|tool_call_begin|>";
const END: &[u8] = b"<|tool_call_end|>";
const ARGUMENTS: &[u8] = b"<|tool_call_argument_begin|>";

/// Adds a candidate for every `<|tool_call_begin|>` block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    for block in Blocks::new(payloads.text(), BEGIN, END, any) {
        let found = if block.closed {
            call(payloads, &block)
        } else {
            None
        };
        out.push(Candidate {
            span: block.span,
            dialect: Dialect::Kimi,
            found,
        });
    }
}

/// The call a closed block holds.
fn call(payloads: &Payloads<'_>, block: &Block) -> Option<Found> {
    let text = payloads.text();
    let body = &text[block.body.clone()];
    let split = memchr::memmem::find(body, ARGUMENTS)?;
    let name = name_of(body[..split].trim_ascii())?;
    let args = trimmed(
        text,
        block.body.start + split + ARGUMENTS.len()..block.body.end,
    );
    payloads.named_object(name, args).ok().flatten()
}

/// The tool name in a call id `functions.NAME:IDX` (or `NAME:IDX`).
fn name_of(id: &[u8]) -> Option<PyStr> {
    let id = id.strip_prefix(b"functions.").unwrap_or(id);
    let name = match id.iter().rposition(|&b| b == b':') {
        Some(colon) if id[colon + 1..].iter().all(u8::is_ascii_digit) => &id[..colon],
        _ => id,
    };
    (!name.is_empty()).then(|| PyStr::from_generalized_utf8(name))
}
