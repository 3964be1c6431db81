//! GLM-4.5, 4.6 and 4.7, as their chat templates write calls:
//!
//! ```text
//! <tool_call>NAME
//! <arg_key>KEY</arg_key>
//! <arg_value>VALUE</arg_value>
//! </tool_call>
//! ```
//!
//! (4.7 writes the same without newlines.) The name is the text after `<tool_call>` up to
//! the first `<arg_key>` or `</tool_call>`, trimmed, and only name characters; each key is followed, after
//! whitespace, by its value. Values are text, typed by the tool's JSON schema (`schema`).
//! A block that shares the `<tool_call>` tag with another dialect is not this one: a JSON
//! body (`{`) is Hermes' `tool_call`, a `<function=` body is `qwen_xml`.

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Block, Blocks, after_space, at};
use crate::py::PyStr;

const OPEN: &[u8] = b"<tool_call>";
const CLOSE: &[u8] = b"</tool_call>";
const KEY: &[u8] = b"<arg_key>";
const KEY_CLOSE: &[u8] = b"</arg_key>";
const VALUE: &[u8] = b"<arg_value>";
const VALUE_CLOSE: &[u8] = b"</arg_value>";
/// The longest name read: longer is prose, not a call.
const MAX_NAME: usize = 256;

/// Adds a candidate for every GLM `<tool_call>` block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    for block in Blocks::new(payloads.text(), OPEN, CLOSE, is_glm_call) {
        let found = if block.closed {
            call(payloads, &block)
        } else {
            None
        };
        out.push(Candidate {
            span: block.span,
            dialect: Dialect::Glm,
            found,
        });
    }
}

/// Whether the `<tool_call>` whose body starts at `at` is a GLM call: a name of at most
/// `MAX_NAME` name characters (letters, digits, `_`, `-`, `.`, `:`, any non-ASCII), then
/// whitespace and `<arg_key>` or `</tool_call>`. A JSON body (`{`), a tag or a fence is
/// another dialect's, or text.
fn is_glm_call(text: &[u8], at: usize) -> bool {
    let start = skip_space(text, at);
    let len = text[start..]
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b) || b >= 0x80)
        .count();
    (1..=MAX_NAME).contains(&len)
        && (after_space(text, start + len, KEY).is_some()
            || after_space(text, start + len, CLOSE).is_some())
}

/// The call a closed block holds.
fn call(payloads: &Payloads<'_>, block: &Block) -> Option<Found> {
    let text = payloads.text();
    let body = &text[block.body.clone()];
    let name_end = memchr::memmem::find(body, KEY).unwrap_or(body.len());
    let name = body[..name_end].trim_ascii();
    if name.is_empty() || name.contains(&b'\n') {
        return None;
    }
    let mut pairs = Vec::new();
    let mut i = block.body.start + name_end;
    while i < block.body.end {
        let (key, after_key) = element(text, i, KEY, KEY_CLOSE, block.body.end)?;
        let (value, after_value) = element(
            text,
            skip_space(text, after_key),
            VALUE,
            VALUE_CLOSE,
            block.body.end,
        )?;
        pairs.push((
            PyStr::from_generalized_utf8(key.trim_ascii()),
            PyStr::from_generalized_utf8(value).into(),
        ));
        i = skip_space(text, after_value);
    }
    payloads.typed_call(PyStr::from_generalized_utf8(name), pairs)
}

/// `OPEN text CLOSE` at `i` (before `limit`): the text and the end of `CLOSE`.
fn element<'t>(
    text: &'t [u8],
    i: usize,
    open: &[u8],
    close: &[u8],
    limit: usize,
) -> Option<(&'t [u8], usize)> {
    let start = at(text, i, open).or_else(|| after_space(text, i, open))?;
    let end = start + memchr::memmem::find(&text[start..limit], close)?;
    Some((&text[start..end], end + close.len()))
}
