//! MiniMax M2, as its chat template writes calls (read by `invoke`):
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="NAME">
//! <parameter name="KEY">VALUE</parameter>
//! </invoke>
//! </minimax:tool_call>
//! ```
//!
//! The template writes a string value as it is and any other value as JSON; the vendor's
//! parsers (vLLM's and SGLang's `minimax_m2`) keep a value the schema does not describe a
//! string, and so does this one.

use super::super::payload::Payloads;
use super::super::span::Candidates;
use super::Dialect;
use super::invoke::{self, Syntax};
use super::tokens::minimax;

pub(super) const SYNTAX: Syntax = Syntax::new(
    (minimax::SECTION, minimax::SECTION_CLOSE),
    (minimax::INVOKE, minimax::INVOKE_CLOSE),
    (minimax::PARAMETER, minimax::PARAMETER_CLOSE),
    Dialect::MiniMax,
    false,
);

/// Adds a candidate for every invoke of every `<minimax:tool_call>` section.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    invoke::scan(payloads, SYNTAX.section.0, &[SYNTAX], out);
}
