//! `<function=NAME>{…}</function>`, the Functionary / Llama 3.1 custom-tool dialect.
//!
//! Pattern: `<function=([a-zA-Z0-9_\-]+)>\s*(\{[\s\S]*?\})\s*</function>` with
//! `re.IGNORECASE`, so the name class also takes `İ ı ſ K`, and `<functıon=` opens a tag.
//! The name comes from the tag; the payload is the arguments. It is decoded only when the
//! name was offered: a rejected tag's JSON is never parsed, so it cannot raise.

use super::super::SalvageError;
use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::text::{match_folded, name_run_end};
use super::Dialect;
use super::closed_tag::{Opened, TagSyntax, find_all};
use super::tokens::function;
use crate::py::PyStr;

const SYNTAX: TagSyntax = TagSyntax {
    open_first: b'<',
    open_second: b'f',
    open: open_tag,
    cut_short: |text, i| {
        match_folded(text, i, function::OPEN.as_bytes())
            .is_some_and(|name| name_run_end(text, name) == text.len())
    },
    close: |text, i| match_folded(text, i, function::CLOSE.as_bytes()),
};

/// `<function=NAME>`: the end of the tag and the name's range.
fn open_tag(text: &[u8], i: usize) -> Opened {
    let name_start = match_folded(text, i, function::OPEN.as_bytes())?;
    let name_end = name_run_end(text, name_start);
    if name_end == name_start || text.get(name_end) != Some(&b'>') {
        return None;
    }
    Some((name_end + 1, Some(name_start..name_end)))
}

/// Adds a candidate for every `<function=…>` block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) -> Result<(), SalvageError> {
    for m in find_all(payloads, &SYNTAX) {
        let Some(name_range) = m.name else {
            continue;
        };
        let name = PyStr::from_generalized_utf8(&payloads.text()[name_range]);
        let found = if payloads.allows(&name) {
            payloads.loads(m.json)?.map(|args| Found::new(name, args))
        } else {
            None
        };
        out.push(m.span, Dialect::Function, found);
    }
    Ok(())
}
