//! Qwen3-Coder / Qwen3.5 XML (also Nemotron 3), as their chat templates write calls:
//!
//! ```text
//! <tool_call>
//! <function=NAME>
//! <parameter=KEY>
//! VALUE
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! The `<tool_call>` wrapper is optional (engines accept a bare `<function=NAME>` block).
//! A value is the text between its tags with one leading and one trailing newline taken
//! off, as the template adds them; everything else, multi-line code included, is kept
//! exactly, then typed by the tool's JSON schema (`schema`). Between parameters only
//! whitespace may appear. A block whose `</function>` or `</parameter>` never comes, or
//! that holds anything else, is malformed: no call, and its span stays reserved.
//!
//! `<function=NAME>{…}</function>` with a JSON body is the `function` dialect, not this
//! one: here the name's `>` is followed by `<parameter=` or `</function>`.

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Block, Blocks, after_space, at};
use crate::py::PyStr;

const OPEN: &[u8] = b"<function=";
const CLOSE: &[u8] = b"</function>";
const PARAM: &[u8] = b"<parameter=";
const PARAM_CLOSE: &[u8] = b"</parameter>";
const WRAP: &[u8] = b"<tool_call>";
const WRAP_CLOSE: &[u8] = b"</tool_call>";

/// Adds a candidate for every `<function=NAME>` block with XML parameters.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    for block in Blocks::new(text, OPEN, CLOSE, is_xml_call) {
        let found = if block.closed {
            call(payloads, &block)
        } else {
            None
        };
        out.push(Candidate {
            span: wrapped(text, block.span),
            dialect: Dialect::QwenXml,
            found,
        });
    }
}

/// Whether the `<function=` whose name starts at `at` opens an XML call: `NAME>` then
/// whitespace and `<parameter=` or `</function>`.
fn is_xml_call(text: &[u8], at: usize) -> bool {
    name_end(text, at).is_some_and(|gt| {
        after_space(text, gt + 1, PARAM).is_some() || after_space(text, gt + 1, CLOSE).is_some()
    })
}

/// The `>` ending the name that starts at `at` (a name holds no whitespace, `<` or `>`).
fn name_end(text: &[u8], at: usize) -> Option<usize> {
    let len = text
        .get(at..)?
        .iter()
        .take_while(|&&b| !b.is_ascii_whitespace() && b != b'<' && b != b'>')
        .count();
    (len > 0 && text.get(at + len) == Some(&b'>')).then_some(at + len)
}

/// The call a closed block holds.
fn call(payloads: &Payloads<'_>, block: &Block) -> Option<Found> {
    let text = payloads.text();
    let gt = name_end(text, block.body.start)?;
    let name = PyStr::from_generalized_utf8(&text[block.body.start..gt]);
    let mut pairs = Vec::new();
    let mut i = skip_space(text, gt + 1);
    while i < block.body.end {
        let key_start = at(text, i, PARAM)?;
        let key_end = key_start + memchr::memchr(b'>', &text[key_start..block.body.end])?;
        let value_start = key_end + 1;
        let value_end =
            value_start + memchr::memmem::find(&text[value_start..block.body.end], PARAM_CLOSE)?;
        pairs.push((
            PyStr::from_generalized_utf8(text[key_start..key_end].trim_ascii()),
            PyStr::from_generalized_utf8(one_newline_off(&text[value_start..value_end])).into(),
        ));
        i = skip_space(text, value_end + PARAM_CLOSE.len());
    }
    payloads.typed_call(name, pairs)
}

/// `value` without one leading and one trailing `\n` (or `\r\n`), as the template adds.
fn one_newline_off(value: &[u8]) -> &[u8] {
    let value = value
        .strip_prefix(b"\r\n")
        .or_else(|| value.strip_prefix(b"\n"))
        .unwrap_or(value);
    value
        .strip_suffix(b"\r\n")
        .or_else(|| value.strip_suffix(b"\n"))
        .unwrap_or(value)
}

/// `span` widened to the `<tool_call>` … `</tool_call>` around it, when there is one.
fn wrapped(text: &[u8], span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let before = text[..span.start].trim_ascii_end();
    let start = match before.strip_suffix(WRAP) {
        Some(rest) => rest.len(),
        None => span.start,
    };
    let end = after_space(text, span.end, WRAP_CLOSE).unwrap_or(span.end);
    start..end
}
