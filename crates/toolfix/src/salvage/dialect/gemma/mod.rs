//! Gemma's function-call tokens, as the chat templates of FunctionGemma and Gemma 4 write
//! calls:
//!
//! * FunctionGemma: `<start_function_call>call:NAME{KEY:VALUE,…}<end_function_call>`,
//!   a string value written between `<escape>` tokens;
//! * Gemma 4: `<|tool_call>call:NAME{KEY:VALUE,…}<tool_call|>`, a string value written
//!   between `<|"|>` tokens.
//!
//! Keys are bare words (`first name` too) or JSON strings; values are escaped strings, JSON strings, numbers,
//! `true`, `false`, `null`, and objects and lists of those. Nothing in an escaped string
//! is an escape sequence: it is the text as written. Arguments that do not read whole
//! make no call, and the block stays reserved; a block whose closing token never comes
//! reserves the rest of the reply, and makes a call only in Gemma 4, whose closer servers
//! strip as a stop token, when its arguments read whole and nothing but whitespace follows
//! them. A closing token inside a string argument does not end
//! the call (`call`). Bare words are not values: engines that read `label:pasta` as a
//! string guess, and salvage does not (`docs/dialects/gemma.md`).
//!
//! Gemma 3, which has no call tokens and is usually prompted to write calls in a
//! ```` ```tool_code ```` fence, is not a dialect here: a fenced call is an example
//! (`docs/guarantees.md` G1), and a runtime serving Gemma 3 reads its calls natively.

mod reader;
mod transcode;

use std::cell::Cell;
use std::ops::Range;

use memchr::memmem;

use super::super::call::Args;
use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Block, Blocks, any, at, token_may_follow};
use super::tokens::gemma;
use crate::py::PyStr;
use reader::{Build, Check, Cut, Make, Reader};

/// One generation's tokens: the block's opener and closer, the string delimiter, and
/// whether a server may strip the closer as a stop token.
struct Tokens {
    open: &'static [u8],
    close: &'static [u8],
    quote: &'static [u8],
    close_may_be_stripped: bool,
}

const FUNCTION_GEMMA: Tokens = Tokens {
    open: gemma::FUNCTION_GEMMA_OPEN.as_bytes(),
    close: gemma::FUNCTION_GEMMA_CLOSE.as_bytes(),
    quote: gemma::FUNCTION_GEMMA_QUOTE.as_bytes(),
    close_may_be_stripped: false,
};

/// Gemma 4 ends its turn after a call's `<tool_call|>`, which servers stop at and strip.
const GEMMA_4: Tokens = Tokens {
    open: gemma::GEMMA_4_OPEN.as_bytes(),
    close: gemma::GEMMA_4_CLOSE.as_bytes(),
    quote: gemma::GEMMA_4_QUOTE.as_bytes(),
    close_may_be_stripped: true,
};

/// Adds a candidate for every call block of either generation.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    for tokens in [&FUNCTION_GEMMA, &GEMMA_4] {
        for block in Blocks::new(text, tokens.open, tokens.close, any) {
            let (span, found) = if block.closed {
                call(payloads, &block, tokens)
            } else if tokens.close_may_be_stripped {
                (block.span.clone(), stripped_close(payloads, &block, tokens))
            } else {
                (block.span, None)
            };
            out.push(span, Dialect::Gemma, found);
        }
    }
}

/// The span and call of a closed block: `call:NAME{…}` as its whole body, or, when the
/// closing token is inside a string argument, read past it up to the closing token after
/// the arguments, no further than the next opening token (which bounds every such read,
/// so the scan stays linear).
fn call(payloads: &Payloads<'_>, block: &Block, tokens: &Tokens) -> (Range<usize>, Option<Found>) {
    let text = payloads.text();
    let allowed =
        |(name, args): (PyStr, Args)| payloads.allows(&name).then_some(Found { name, args });
    let within = Cell::new(Cut::Not);
    match read(text, block.body.start, block.body.end, tokens, &within) {
        Some((call, end)) => {
            let whole = skip_space(text, end) == block.body.end;
            return (block.span.clone(), whole.then_some(call).and_then(allowed));
        }
        // Only a string can hold the closing token: a read that failed anywhere else
        // fails the same past it, and reading again would double the cost of a long
        // block that fails late.
        None if within.get() != Cut::InString => return (block.span.clone(), None),
        None => {}
    }
    let bound = memmem::find(&text[block.span.end..], tokens.open)
        .map_or(text.len(), |i| block.span.end + i);
    let cut = Cell::new(Cut::Not);
    let read_past = read(text, block.body.start, bound, tokens, &cut);
    // A read that ran into the end of the text, or arguments whose closing token has not
    // come yet, may still be completed by more of a streamed reply.
    let closer_to_come =
        matches!(read_past, Some((_, end)) if token_may_follow(text, end, tokens.close));
    if bound == text.len() && (cut.get() != Cut::Not || closer_to_come) {
        payloads.reaches_end(block.span.start);
    }
    match read_past {
        Some((call, end)) if end > block.body.end => {
            match at(&text[..bound], skip_space(text, end), tokens.close) {
                Some(close) => (block.span.start..close, allowed(call)),
                None => (block.span.clone(), None),
            }
        }
        _ => (block.span.clone(), None),
    }
}

/// The call of a block whose closing token never came, when a server stripped it as a
/// stop token: the body reads whole as a call, then only whitespace ends the reply. A
/// body cut short, or followed by anything else, makes no call; either way more of a
/// streamed reply may change it.
fn stripped_close(payloads: &Payloads<'_>, block: &Block, tokens: &Tokens) -> Option<Found> {
    payloads.reaches_end(block.span.start);
    let text = payloads.text();
    let cut = Cell::new(Cut::Not);
    let ((name, args), end) = read(text, block.body.start, block.body.end, tokens, &cut)?;
    (skip_space(text, end) == text.len() && payloads.allows(&name)).then_some(Found { name, args })
}

/// `call:NAME{…}` at `from` (after whitespace), read from `text` up to `limit`: the name,
/// the arguments, and where they end. `None` when nothing there starts a call or the
/// arguments do not read; `cut` is set when that is because the read ran into `limit`.
///
/// The syntax is checked before any value is built (`reader`), so a long block that
/// fails late (arguments broken at their end) costs one pass that allocates nothing;
/// arguments that read are then written as their argument string in one more pass
/// (`transcode`), or, when they are not plain, built.
fn read(
    text: &[u8],
    from: usize,
    limit: usize,
    tokens: &Tokens,
    cut: &Cell<Cut>,
) -> Option<((PyStr, Args), usize)> {
    let (Read { name, brace, .. }, end) = read_as::<Check>(text, from, limit, tokens, cut)?;
    let args = match transcode::arguments(&text[..limit], brace, tokens.quote) {
        Some((written, at)) if at == end => Args::Written(written),
        _ => Args::Decoded(read_as::<Build>(text, from, limit, tokens, cut)?.0.args),
    };
    Some(((name, args), end))
}

/// A call's name, where its arguments start, and what the read made of them.
struct Read<M: Make> {
    name: PyStr,
    brace: usize,
    args: M::Value,
}

/// `read`, making `M`'s values of the arguments.
fn read_as<M: Make>(
    text: &[u8],
    from: usize,
    limit: usize,
    tokens: &Tokens,
    cut: &Cell<Cut>,
) -> Option<(Read<M>, usize)> {
    let name_start = at(&text[..limit], skip_space(text, from), b"call:")?;
    let Some(brace) = memchr::memchr(b'{', &text[name_start..limit]) else {
        cut.set(Cut::Outside);
        return None;
    };
    let brace = name_start + brace;
    let name = text[name_start..brace].trim_ascii();
    if name.is_empty() {
        return None;
    }
    // The arguments start with `{`, so what reads there reads as an object.
    let (args, end) = Reader::<M>::new(&text[..limit], tokens.quote, cut).value(brace, 0)?;
    let read = Read {
        name: PyStr::from_generalized_utf8(name),
        brace,
        args,
    };
    Some((read, end))
}

#[cfg(test)]
mod tests {
    use super::super::strict_calls as calls;

    #[test]
    fn a_closing_token_inside_a_string_does_not_end_the_call() {
        let text =
            "<|tool_call>call:note{text:<|\"|>ends with <tool_call|> here<|\"|>}<tool_call|>";
        assert_eq!(
            calls(text, &["note"]),
            [(
                "note".into(),
                r#"{"text": "ends with <tool_call|> here"}"#.into()
            )]
        );
        let text = "<start_function_call>call:note{text:<escape><end_function_call><escape>}<end_function_call>";
        assert_eq!(
            calls(text, &["note"]),
            [("note".into(), r#"{"text": "<end_function_call>"}"#.into())]
        );
    }

    #[test]
    fn a_read_past_the_closing_token_stops_at_the_next_call() {
        let text = concat!(
            "<|tool_call>call:note{text:<|\"|>a<tool_call|>",
            "<|tool_call>call:note{text:<|\"|>b<|\"|>}<tool_call|>",
        );
        assert_eq!(
            calls(text, &["note"]),
            [("note".into(), r#"{"text": "b"}"#.into())]
        );
    }

    #[test]
    fn many_blocks_whose_strings_never_close_make_no_call() {
        let text = "<|tool_call>call:f{a:<|\"|>x<tool_call|>".repeat(10_000);
        assert!(calls(&text, &["f"]).is_empty());
    }
}
