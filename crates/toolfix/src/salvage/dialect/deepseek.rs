//! DeepSeek's tool-call tokens, as the V3, V3.1, V3.2 and R1 chat templates write them:
//!
//! * V3 and R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` then the arguments as
//!   JSON between ```` ```json ```` and ```` ``` ```` lines, then `<｜tool▁call▁end｜>`;
//! * V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`;
//! * V3.2 (DSML): `<｜DSML｜function_calls>` holding `<｜DSML｜invoke name="NAME">` with
//!   `<｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>` (read by
//!   `invoke`).
//!
//! Calls are wrapped in `<｜tool▁calls▁begin｜>` … `<｜tool▁calls▁end｜>`; each call is
//! read from its own begin and end tokens. The fence inside a V3 call is the format's,
//! not an example: a call block that starts outside every fence is never masked.

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::invoke::{self, Syntax};
use super::token::{Block, Blocks, any, trimmed};
use crate::py::PyStr;

const BEGIN: &str = "<｜tool▁call▁begin｜>";
const END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";
const FENCE_OPEN: &[u8] = b"```json";
const FENCE_CLOSE: &[u8] = b"```";

const DSML: Syntax = Syntax {
    section: (
        "<｜DSML｜function_calls>".as_bytes(),
        "</｜DSML｜function_calls>".as_bytes(),
    ),
    invoke: ("<｜DSML｜invoke".as_bytes(), "</｜DSML｜invoke>".as_bytes()),
    parameter: (
        "<｜DSML｜parameter".as_bytes(),
        "</｜DSML｜parameter>".as_bytes(),
    ),
    dialect: Dialect::DeepSeek,
};

/// Adds a candidate for every call block and every DSML invoke.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    for block in Blocks::new(payloads.text(), BEGIN.as_bytes(), END.as_bytes(), any) {
        let found = if block.closed {
            call(payloads, &block)
        } else {
            None
        };
        out.push(Candidate {
            span: block.span,
            dialect: Dialect::DeepSeek,
            found,
        });
    }
    invoke::scan(payloads, &DSML, out);
}

/// The call a closed block holds: `TYPE<｜tool▁sep｜>NAME ```json … ``` ` (V3, R1) or
/// `NAME<｜tool▁sep｜>{…}` (V3.1).
fn call(payloads: &Payloads<'_>, block: &Block) -> Option<Found> {
    let text = payloads.text();
    let body = &text[block.body.clone()];
    let sep = memchr::memmem::find(body, SEP.as_bytes())?;
    let head = body[..sep].trim_ascii();
    let rest = block.body.start + sep + SEP.len();
    if head == b"function" {
        let line = memchr::memchr(b'\n', &text[rest..block.body.end])?;
        let name = text[rest..rest + line].trim_ascii();
        let json = fenced_json(text, rest + line, block.body.end)?;
        payloads.named_object(name_of(name)?, json).ok().flatten()
    } else {
        let args = trimmed(text, rest..block.body.end);
        payloads.named_object(name_of(head)?, args).ok().flatten()
    }
}

/// The JSON between ```` ```json ```` and the last ```` ``` ```` before `end`.
fn fenced_json(text: &[u8], from: usize, end: usize) -> Option<std::ops::Range<usize>> {
    let open = skip_space(text, from);
    let json_start = super::token::at(text, open, FENCE_OPEN)?;
    let close = json_start + memchr::memmem::rfind(&text[json_start..end], FENCE_CLOSE)?;
    Some(trimmed(text, json_start..close))
}

fn name_of(name: &[u8]) -> Option<PyStr> {
    (!name.is_empty()).then(|| PyStr::from_generalized_utf8(name))
}
