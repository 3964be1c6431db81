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
use super::token::at;
use super::tokens::minimax;
use super::xml_value::{ValueSyntax, tag_at};

const INVOKE: &[u8] = minimax::INVOKE.as_bytes();
const INVOKE_CLOSE: &[u8] = minimax::INVOKE_CLOSE.as_bytes();
const PARAMETER: &[u8] = minimax::PARAMETER.as_bytes();
const PARAMETER_CLOSE: &[u8] = minimax::PARAMETER_CLOSE.as_bytes();

pub(super) const SYNTAX: Syntax = Syntax {
    section: (
        minimax::SECTION.as_bytes(),
        minimax::SECTION_CLOSE.as_bytes(),
    ),
    invoke: (INVOKE, INVOKE_CLOSE),
    parameter: (PARAMETER, PARAMETER_CLOSE),
    values: ValueSyntax {
        open: PARAMETER,
        close: PARAMETER_CLOSE,
        is_open_tag: |text, i| tag_at(text, i, PARAMETER),
        follows: |text, i| tag_at(text, i, PARAMETER) || at(text, i, INVOKE_CLOSE).is_some(),
        outer_open: INVOKE,
        is_outer_open_tag: |text, i| tag_at(text, i, INVOKE),
        outer_close: INVOKE_CLOSE,
    },
    dialect: Dialect::MiniMax,
    self_closing: false,
};

/// Adds a candidate for every invoke of every `<minimax:tool_call>` section.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    invoke::scan(payloads, SYNTAX.section.0, &[SYNTAX], out);
}
