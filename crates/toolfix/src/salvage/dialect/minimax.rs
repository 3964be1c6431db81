//! MiniMax M2, as its chat template writes calls (read by `invoke`):
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="NAME">
//! <parameter name="KEY">VALUE</parameter>
//! </invoke>
//! </minimax:tool_call>
//! ```

use super::super::payload::Payloads;
use super::super::span::Candidate;
use super::Dialect;
use super::invoke::{self, Syntax};

const SYNTAX: Syntax = Syntax {
    section: (b"<minimax:tool_call>", b"</minimax:tool_call>"),
    invoke: (b"<invoke", b"</invoke>"),
    parameter: (b"<parameter", b"</parameter>"),
    dialect: Dialect::MiniMax,
};

/// Adds a candidate for every invoke of every `<minimax:tool_call>` section.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    invoke::scan(payloads, &SYNTAX, out);
}
