//! `[TOOL_CALL]{…}[/TOOL_CALL]` and LM Studio's `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]`.
//!
//! Pattern: `\[(TOOL_CALL|TOOL_REQUEST)\]\s*(\{[\s\S]*?\})\s*\[(?:/TOOL_CALL|END_TOOL_REQUEST)\]`
//! with `re.IGNORECASE`. Openers and closers are not paired: `[TOOL_CALL]…[END_TOOL_REQUEST]`
//! matches. `ſ` folds to `s`, so `[TOOL_REQUEſT]` opens a block too.

use super::super::SalvageError;
use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::super::text::match_folded;
use super::Dialect;
use super::closed_tag::{TagSyntax, scan_named_payloads};
use super::tokens::bracket;

const SYNTAX: TagSyntax = TagSyntax {
    open_first: b'[',
    open_second: b't',
    open: |text, i| {
        match_folded(text, i, bracket::TOOL_CALL.as_bytes())
            .or_else(|| match_folded(text, i, bracket::TOOL_REQUEST.as_bytes()))
            .map(|end| (end, None))
    },
    cut_short: |_, _| false,
    close: |text, i| {
        match_folded(text, i, bracket::TOOL_CALL_CLOSE.as_bytes())
            .or_else(|| match_folded(text, i, bracket::TOOL_REQUEST_CLOSE.as_bytes()))
    },
};

/// Adds a candidate for every bracketed block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) -> Result<(), SalvageError> {
    scan_named_payloads(payloads, &SYNTAX, Dialect::Bracket, out)
}
