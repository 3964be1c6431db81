//! `<tool_call>{…}</tool_call>`, the Hermes / Qwen dialect.
//!
//! Pattern: `<tool_call>\s*(\{[\s\S]*?\})\s*</tool_call>` with `re.IGNORECASE`. The
//! payload is `json.loads`ed even when its name was not offered, so a huge integer or
//! deep nesting inside any `<tool_call>` escapes as an error under `praisonai`.

use super::super::SalvageError;
use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::super::text::match_folded;
use super::Dialect;
use super::closed_tag::{TagSyntax, scan_named_payloads};
use super::tokens::tool_call;

const SYNTAX: TagSyntax = TagSyntax {
    open_first: b'<',
    open_second: b't',
    open: |text, i| match_folded(text, i, tool_call::OPEN.as_bytes()).map(|end| (end, None)),
    cut_short: |_, _| false,
    close: |text, i| match_folded(text, i, tool_call::CLOSE.as_bytes()),
};

/// Adds a candidate for every `<tool_call>` block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) -> Result<(), SalvageError> {
    scan_named_payloads(payloads, &SYNTAX, Dialect::ToolCall, out)
}
