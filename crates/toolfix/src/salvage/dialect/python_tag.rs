//! Llama 3.x `<|python_tag|>{…}`.
//!
//! The tag has no closing counterpart, so the payload is `raw_decode`d from the end of
//! the tag (after `str.isspace` characters). A tag whose payload is not an object still
//! reserves `[tag start, after the whitespace)`. CPython builds a `JSONDecodeError` for
//! every failed decode and counts newlines from the start of the text in it, which makes
//! many failing tags quadratic; decoding here costs only what it reads.

use memchr::memchr_iter;

use super::super::SalvageError;
use super::super::payload::{ObjectAt, Payloads};
use super::super::span::Candidate;
use super::super::text::match_folded;
use super::Dialect;

/// Adds a candidate for every `<|python_tag|>`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) -> Result<(), SalvageError> {
    let text = payloads.text();
    for start in memchr_iter(b'<', text) {
        let Some(tag_end) = match_folded(text, start, b"<|python_tag|>") else {
            continue;
        };
        let candidate = match payloads.object_at(tag_end)? {
            ObjectAt::Object { value, end } => Candidate {
                span: start..end,
                dialect: Dialect::PythonTag,
                found: value.and_then(|data| payloads.name_and_args(data)),
            },
            ObjectAt::NotObject { at } => Candidate {
                span: start..at,
                dialect: Dialect::PythonTag,
                found: None,
            },
        };
        out.push(candidate);
    }
    Ok(())
}
