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

use super::super::SalvageError;
use super::super::payload::{ObjectAt, Payload, Payloads};
use super::super::span::Candidates;
use super::super::text::{match_folded, skip_space};
use super::Dialect;
use super::pair::PairStarts;
use super::tokens::python_tag;

/// Adds a candidate for every `<|python_tag|>`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) -> Result<(), SalvageError> {
    let text = payloads.text();
    // The `|` after the `<` is matched exactly: searching for the pair passes over the
    // other tags cheaply.
    for start in PairStarts::new(text, b'<', b'|') {
        let Some(tag_end) = match_folded(text, start, python_tag::TAG.as_bytes()) else {
            continue;
        };
        let mut at = match payloads.object_at(start, tag_end)? {
            ObjectAt::Object { value, end } => {
                push(payloads, start..end, value, out);
                end
            }
            ObjectAt::NotObject { at } => {
                out.push(start..at, Dialect::PythonTag, None);
                continue;
            }
        };
        // A chain is read from its tag: while more text may add to it, it stays open
        // from there, so a stream keeps the tag its later calls are read after.
        while let Some(next) = continuation(payloads, start, at) {
            let ObjectAt::Object { value, end } = payloads.object_at(start, next)? else {
                break;
            };
            push(payloads, at..end, value, out);
            at = end;
        }
    }
    Ok(())
}

/// Adds the candidate of the payload `value` read at `span`.
fn push(
    payloads: &Payloads<'_>,
    span: Range<usize>,
    value: Option<Payload<'_>>,
    out: &mut Candidates,
) {
    let found = value.and_then(|data| payloads.name_and_args(data));
    out.push(span, Dialect::PythonTag, found);
}

/// Under `strict` and `portable`, where the next call of the chain whose tag is at `tag`
/// starts after a payload ending at `end`: after whitespace and a `;`. A reply that ends
/// before saying may go on with one, which leaves the chain open.
fn continuation(payloads: &Payloads<'_>, tag: usize, end: usize) -> Option<usize> {
    if !payloads.profile().reads_call_sequences() {
        return None;
    }
    let semicolon = skip_space(payloads.text(), end);
    if semicolon == payloads.text().len() {
        payloads.reaches_end(tag);
    }
    (payloads.text().get(semicolon) == Some(&b';')).then_some(semicolon + 1)
}
