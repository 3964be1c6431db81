//! Llama 3.x `<|python_tag|>{…}`.
//!
//! The tag has no closing counterpart, so the payload is `raw_decode`d from the end of
//! the tag (after `str.isspace` characters). A tag whose payload is not an object still
//! reserves `[tag start, after the whitespace)`. CPython builds a `JSONDecodeError` for
//! every failed decode and counts newlines from the start of the text in it, which makes
//! many failing tags quadratic; decoding here costs only what it reads.
//!
//! Under `strict` and `portable`, a payload may be followed by more calls separated by
//! `;`, as Llama 3.x's model cards write several calls after one tag: each is its own
//! candidate.

use std::ops::Range;

use memchr::memchr_iter;

use super::super::SalvageError;
use super::super::payload::{ObjectAt, Payload, Payloads};
use super::super::span::Candidate;
use super::super::text::{match_folded, skip_space};
use super::Dialect;

/// Adds a candidate for every `<|python_tag|>`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) -> Result<(), SalvageError> {
    let text = payloads.text();
    for start in memchr_iter(b'<', text) {
        // The `|` after the `<` is matched exactly: checking it first passes over the
        // other tags cheaply.
        if text.get(start + 1) != Some(&b'|') {
            continue;
        }
        let Some(tag_end) = match_folded(text, start, b"<|python_tag|>") else {
            continue;
        };
        let mut at = match payloads.object_at(start, tag_end)? {
            ObjectAt::Object { value, end } => {
                out.push(candidate(payloads, start..end, value));
                end
            }
            ObjectAt::NotObject { at } => {
                out.push(Candidate {
                    span: start..at,
                    dialect: Dialect::PythonTag,
                    found: None,
                });
                continue;
            }
        };
        // A chain is read from its tag: while more text may add to it, it stays open
        // from there, so a stream keeps the tag its later calls are read after.
        while let Some(next) = continuation(payloads, start, at) {
            let ObjectAt::Object { value, end } = payloads.object_at(start, next)? else {
                break;
            };
            out.push(candidate(payloads, at..end, value));
            at = end;
        }
    }
    Ok(())
}

fn candidate(payloads: &Payloads<'_>, span: Range<usize>, value: Option<Payload>) -> Candidate {
    Candidate {
        span,
        dialect: Dialect::PythonTag,
        found: value
            .and_then(|data| payloads.name_and_args(data))
            .map(Box::new),
    }
}

/// Under `strict` and `portable`, where the next call of the chain whose tag is at `tag`
/// starts after a payload ending at `end`: after whitespace and a `;`. A reply that ends
/// before saying may go on with one, which leaves the chain open.
fn continuation(payloads: &Payloads<'_>, tag: usize, end: usize) -> Option<usize> {
    if payloads.profile().is_faithful() {
        return None;
    }
    let semicolon = skip_space(payloads.text(), end);
    if semicolon == payloads.text().len() {
        payloads.reaches_end(tag);
    }
    (payloads.text().get(semicolon) == Some(&b';')).then_some(semicolon + 1)
}
