//! Phi-4-mini: `functools` then a JSON array of `{"name", "arguments"}` objects, as its
//! model card and chat template write tool calls (read by `call_array`).

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::span::Candidate;
use super::{Dialect, call_array};

const MARKER: &[u8] = b"functools[";

/// Adds a candidate for every call of every `functools[…]`.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    let mut resume = 0;
    for start in memmem::find_iter(text, MARKER) {
        if start < resume {
            continue;
        }
        let bracket = start + MARKER.len() - 1;
        resume = call_array::scan(payloads, start, bracket, Dialect::Phi4, out);
    }
}
