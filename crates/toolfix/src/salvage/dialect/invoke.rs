//! The `<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>` shape two
//! families share inside their own section tokens: MiniMax M2 (`<minimax:tool_call>`) and
//! DeepSeek V3.2's DSML (`<｜DSML｜function_calls>`, every tag prefixed with `｜DSML｜`).
//!
//! Each invoke of a closed section is a call; its span runs from its tag to its closer
//! (the first one's from the section's start, the last one's to the section's end). Only
//! whitespace may separate parameters and invokes; anything else, or a missing closer,
//! makes the section malformed: no call, and its span stays reserved. Values are text,
//! typed by the tool's JSON schema (`schema`); DSML's `string="true"` keeps a value as
//! text whatever the schema says, and `string="false"` reads it as JSON.

use std::ops::Range;

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::schema::Written;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Blocks, any, at};
use crate::py::PyStr;

/// One family's tags.
pub struct Syntax {
    /// The section's opening and closing tokens.
    pub section: (&'static [u8], &'static [u8]),
    /// An invoke's tag up to its attributes (`<invoke`), and its closer.
    pub invoke: (&'static [u8], &'static [u8]),
    /// A parameter's tag up to its attributes (`<parameter`), and its closer.
    pub parameter: (&'static [u8], &'static [u8]),
    /// The dialect reported.
    pub dialect: Dialect,
}

/// Adds a candidate for every invoke of every section (or one rejected candidate for a
/// malformed section).
pub fn scan(payloads: &Payloads<'_>, syntax: &Syntax, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    for section in Blocks::new(text, syntax.section.0, syntax.section.1, any) {
        let invokes = if section.closed {
            invokes(payloads, syntax, section.body.clone())
        } else {
            None
        };
        match invokes {
            Some(calls) if !calls.is_empty() => {
                push_calls(calls, section.span, syntax.dialect, out)
            }
            _ => out.push(Candidate {
                span: section.span,
                dialect: syntax.dialect,
                found: None,
            }),
        }
    }
}

/// The invokes of a section's `body`, each with its span and call; `None` when the body
/// is malformed.
fn invokes(
    payloads: &Payloads<'_>,
    syntax: &Syntax,
    body: Range<usize>,
) -> Option<Vec<(Range<usize>, Option<Found>)>> {
    let text = payloads.text();
    let mut calls = Vec::new();
    let mut i = skip_space(text, body.start);
    while i < body.end {
        let (attributes, inner) = tag(text, i, syntax.invoke.0, body.end)?;
        let close = inner + memmem::find(&text[inner..body.end], syntax.invoke.1)?;
        let name = PyStr::from_generalized_utf8(attribute(attributes, b"name")?);
        let pairs = parameters(payloads, syntax, inner..close)?;
        let end = close + syntax.invoke.1.len();
        calls.push((i..end, payloads.typed_call(name, pairs)));
        i = skip_space(text, end);
    }
    Some(calls)
}

/// The `(key, value)` pairs of an invoke's body; `None` when it is malformed.
fn parameters(
    payloads: &Payloads<'_>,
    syntax: &Syntax,
    body: Range<usize>,
) -> Option<Vec<(PyStr, Written)>> {
    let text = payloads.text();
    let mut pairs = Vec::new();
    let mut i = skip_space(text, body.start);
    while i < body.end {
        let (attributes, value_start) = tag(text, i, syntax.parameter.0, body.end)?;
        let value_end =
            value_start + memmem::find(&text[value_start..body.end], syntax.parameter.1)?;
        let key = PyStr::from_generalized_utf8(attribute(attributes, b"name")?);
        let raw = &text[value_start..value_end];
        let value = match attribute(attributes, b"string") {
            Some(b"true") => Written::Text(PyStr::from_generalized_utf8(raw)),
            Some(b"false") => Written::Value(payloads.loads(value_start..value_end).ok()??),
            _ => Written::Untyped(PyStr::from_generalized_utf8(raw)),
        };
        pairs.push((key, value));
        i = skip_space(text, value_end + syntax.parameter.1.len());
    }
    Some(pairs)
}

/// The tag `PREFIX attributes>` at `i`: its attributes and the end of the tag.
fn tag<'t>(text: &'t [u8], i: usize, prefix: &[u8], limit: usize) -> Option<(&'t [u8], usize)> {
    let attributes = at(text, i, prefix)?;
    let gt = attributes + memchr::memchr(b'>', &text[attributes..limit])?;
    Some((&text[attributes..gt], gt + 1))
}

/// The value of attribute `key="…"` (or `'…'`) among `attributes`.
pub fn attribute<'t>(attributes: &'t [u8], key: &[u8]) -> Option<&'t [u8]> {
    let mut rest = attributes;
    loop {
        let found = memmem::find(rest, key)?;
        let before_ok = found == 0 || rest[found - 1].is_ascii_whitespace();
        let after = &rest[found + key.len()..];
        if let (true, Some(after_eq)) = (before_ok, after.trim_ascii_start().strip_prefix(b"=")) {
            let quoted = after_eq.trim_ascii_start();
            let quote = *quoted.first()?;
            if quote == b'"' || quote == b'\'' {
                let len = memchr::memchr(quote, &quoted[1..])?;
                return Some(&quoted[1..1 + len]);
            }
        }
        rest = after;
    }
}

/// The calls of a section as candidates: the first from the section's start, the last
/// to its end.
fn push_calls(
    calls: Vec<(Range<usize>, Option<Found>)>,
    section: Range<usize>,
    dialect: Dialect,
    out: &mut Vec<Candidate>,
) {
    let last = calls.len() - 1;
    for (k, (span, found)) in calls.into_iter().enumerate() {
        let start = if k == 0 { section.start } else { span.start };
        let end = if k == last { section.end } else { span.end };
        out.push(Candidate {
            span: start..end,
            dialect,
            found,
        });
    }
}
