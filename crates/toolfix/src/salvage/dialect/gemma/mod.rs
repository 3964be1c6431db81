//! Gemma's function-call tokens, as the chat templates of FunctionGemma and Gemma 4 write
//! calls:
//!
//! * FunctionGemma: `<start_function_call>call:NAME{KEY:VALUE,…}<end_function_call>`,
//!   a string value written between `<escape>` tokens;
//! * Gemma 4: `<|tool_call>call:NAME{KEY:VALUE,…}<tool_call|>`, a string value written
//!   between `<|"|>` tokens.
//!
//! Keys are bare words or JSON strings; values are escaped strings, JSON strings, numbers,
//! `true`, `false`, `null`, and objects and lists of those. Nothing in an escaped string
//! is an escape sequence: it is the text as written. Arguments that do not read whole
//! make no call, and the block stays reserved; a block whose closing token never comes
//! reserves the rest of the reply. A closing token inside a string argument does not end
//! the call (`call`). Bare words are not values: engines that read `label:pasta` as a
//! string guess, and salvage does not (`docs/dialects/gemma.md`).
//!
//! Gemma 3, which has no call tokens and is usually prompted to write calls in a
//! ```` ```tool_code ```` fence, is not a dialect here: a fenced call is an example
//! (`docs/guarantees.md` G1), and a runtime serving Gemma 3 reads its calls natively.

mod transcode;

use std::cell::Cell;
use std::ops::Range;

use memchr::memmem;

use super::super::call::Args;
use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Block, Blocks, any, at, find_near, token_may_follow};
use crate::profile::STRICT_MAX_DEPTH;
use crate::py::json::{self, DecodeLimits};
use crate::py::{Dict, PyStr, Value};

/// One generation's tokens: the block's opener and closer, and the string delimiter.
struct Tokens {
    open: &'static [u8],
    close: &'static [u8],
    quote: &'static [u8],
}

const FUNCTION_GEMMA: Tokens = Tokens {
    open: b"<start_function_call>",
    close: b"<end_function_call>",
    quote: b"<escape>",
};

const GEMMA_4: Tokens = Tokens {
    open: b"<|tool_call>",
    close: b"<tool_call|>",
    quote: b"<|\"|>",
};

/// Adds a candidate for every call block of either generation.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    for tokens in [&FUNCTION_GEMMA, &GEMMA_4] {
        for block in Blocks::new(text, tokens.open, tokens.close, any) {
            let (span, found) = if block.closed {
                call(payloads, &block, tokens)
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
            return (block.span.clone(), call.filter(|_| whole).and_then(allowed));
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
        Some((Some(call), end)) if end > block.body.end => {
            match at(&text[..bound], skip_space(text, end), tokens.close) {
                Some(close) => (block.span.start..close, allowed(call)),
                None => (block.span.clone(), None),
            }
        }
        _ => (block.span.clone(), None),
    }
}

/// `call:NAME{…}` at `from` (after whitespace), read from `text` up to `limit`: the name
/// and the arguments when they read as an object (`None` when they do not), and where
/// the arguments end. `None` when nothing there starts a call; `cut` is set when that
/// is because the read ran into `limit`.
///
/// The syntax is checked before any value is built, so a long block that fails late
/// (arguments broken at their end) costs one pass that allocates nothing; arguments
/// that read are then written as their argument string in one more pass
/// (`transcode`), or, when they are not plain, built.
fn read(
    text: &[u8],
    from: usize,
    limit: usize,
    tokens: &Tokens,
    cut: &Cell<Cut>,
) -> Option<(Option<(PyStr, Args)>, usize)> {
    let (checked, end) = read_as(text, from, limit, tokens, cut, false)?;
    let Some(Read { name, brace, .. }) = checked else {
        return Some((None, end));
    };
    let args = match transcode::arguments(&text[..limit], brace, tokens.quote) {
        Some((written, at)) if at == end => Args::Written(written),
        _ => match read_as(text, from, limit, tokens, cut, true)? {
            (Some(built), _) => Args::Decoded(built.args),
            (None, end) => return Some((None, end)),
        },
    };
    Some((Some((name, args)), end))
}

/// A call's name, where its arguments start, and their value.
struct Read {
    name: PyStr,
    brace: usize,
    args: Value,
}

/// `read`, building the values when `build` (else every string, object and list comes
/// back empty: only their syntax was read).
fn read_as(
    text: &[u8],
    from: usize,
    limit: usize,
    tokens: &Tokens,
    cut: &Cell<Cut>,
    build: bool,
) -> Option<(Option<Read>, usize)> {
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
    let reader = Reader {
        text: &text[..limit],
        quote: tokens.quote,
        cut,
        build,
    };
    let (args, end) = reader.value(brace, 0)?;
    let call = matches!(args, Value::Dict(_)).then(|| Read {
        name: PyStr::from_generalized_utf8(name),
        brace,
        args,
    });
    Some((call, end))
}

/// Reads Gemma's argument syntax out of `text`.
struct Reader<'t> {
    text: &'t [u8],
    quote: &'static [u8],
    /// Set when a read failed because the text ended: more text could have completed it.
    cut: &'t Cell<Cut>,
    /// Whether values are built, or only their syntax read.
    build: bool,
}

/// Whether, and where, a read failed because its text ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Cut {
    /// It did not (or has not failed).
    Not,
    /// Between values: the next bytes would have to continue the syntax.
    Outside,
    /// Inside a string, which may hold a closing token.
    InString,
}

impl Reader<'_> {
    /// The value at `i` (after whitespace) and its end.
    fn value(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        let i = skip_space(self.text, i);
        if depth > STRICT_MAX_DEPTH {
            return None;
        }
        match self.byte(i)? {
            b'{' => self.object(i + 1, depth + 1),
            b'[' => self.list(i + 1, depth + 1),
            _ if self.text[i..].starts_with(self.quote) => self.escaped(i),
            _ => self.scalar(i),
        }
    }

    /// `{KEY:VALUE,…}` after its `{`.
    fn object(&self, mut i: usize, depth: usize) -> Option<(Value, usize)> {
        let mut dict = Dict::default();
        i = skip_space(self.text, i);
        if self.text.get(i) == Some(&b'}') {
            return Some((Value::Dict(dict), i + 1));
        }
        loop {
            let (key, after_key) = self.key(skip_space(self.text, i))?;
            let colon = skip_space(self.text, after_key);
            (self.byte(colon)? == b':').then_some(())?;
            let (value, end) = self.value(colon + 1, depth)?;
            if self.build {
                dict.insert(key, value);
            }
            i = skip_space(self.text, end);
            match self.byte(i)? {
                b',' => i += 1,
                b'}' => return Some((Value::Dict(dict), i + 1)),
                _ => return None,
            }
        }
    }

    /// `[VALUE,…]` after its `[`.
    fn list(&self, mut i: usize, depth: usize) -> Option<(Value, usize)> {
        let mut items = Vec::new();
        i = skip_space(self.text, i);
        if self.text.get(i) == Some(&b']') {
            return Some((Value::List(items), i + 1));
        }
        loop {
            let (value, end) = self.value(i, depth)?;
            if self.build {
                items.push(value);
            }
            i = skip_space(self.text, end);
            match self.byte(i)? {
                b',' => i += 1,
                b']' => return Some((Value::List(items), i + 1)),
                _ => return None,
            }
        }
    }

    /// A key: a JSON string, an escaped string, or a bare word.
    fn key(&self, i: usize) -> Option<(PyStr, usize)> {
        if self.text[i..].starts_with(self.quote) || self.text.get(i) == Some(&b'"') {
            return match self.value(i, 0)? {
                (Value::Str(key), end) => Some((key, end)),
                _ => None,
            };
        }
        let len = bare_word_len(&self.text[i..]);
        if len == 0 {
            // The beginning of a quote token: the rest of it may be still to come.
            self.cut_if(self.quote.starts_with(&self.text[i..]), Cut::Outside);
            return None;
        }
        Some((self.string(&self.text[i..i + len]), i + len))
    }

    /// A string between two quote tokens, taken as written.
    fn escaped(&self, i: usize) -> Option<(Value, usize)> {
        let start = i + self.quote.len();
        let Some(len) = find_near(&self.text[start..], self.quote) else {
            self.cut_if(true, Cut::InString);
            return None;
        };
        let value = Value::Str(self.string(&self.text[start..start + len]));
        Some((value, start + len + self.quote.len()))
    }

    /// A JSON string, number, `true`, `false` or `null`. `value` reads containers, so none
    /// starts here and the depth limit never binds; it is the strict profile's only so an
    /// error at the end of the text is the syntax error it is (a decoder at its depth
    /// limit reports a recursion error instead), which says the read was cut.
    fn scalar(&self, i: usize) -> Option<(Value, usize)> {
        let limits = DecodeLimits {
            max_depth: STRICT_MAX_DEPTH,
            int_max_str_digits: None,
        };
        // Only the syntax is read while checking: an integer or a literal by its bytes,
        // anything else by the decoder, which then builds nothing (a string comes back
        // empty, so that a key still reads as one).
        let unbuilt = match self.text[i] {
            b'"' => Value::Str(PyStr::default()),
            _ => Value::None,
        };
        let decoded = match self.build {
            true => json::raw_decode(self.text, i, limits),
            false => match plain_scalar_end(self.text, i) {
                Some(end) => Ok((unbuilt, end)),
                None => json::raw_check(self.text, i, limits).map(|end| (unbuilt, end)),
            },
        };
        let kind = match self.text[i] {
            b'"' => Cut::InString,
            _ => Cut::Outside,
        };
        self.cut_if(
            decoded
                .as_ref()
                .is_err_and(|e| e.may_be_cut_short(self.text.len())),
            kind,
        );
        decoded
            .ok()
            .filter(|(v, _)| !matches!(v, Value::Dict(_) | Value::List(_)))
    }

    /// `bytes` as a string, when values are built.
    fn string(&self, bytes: &[u8]) -> PyStr {
        match self.build {
            true => PyStr::from_generalized_utf8(bytes),
            false => PyStr::default(),
        }
    }

    /// The byte at `i`; at the end of the text, none, and the read was cut.
    fn byte(&self, i: usize) -> Option<u8> {
        let byte = self.text.get(i).copied();
        self.cut_if(byte.is_none(), Cut::Outside);
        byte
    }

    /// Records that the read was cut by the end of the text, `kind` of cut, when `cut`.
    fn cut_if(&self, cut: bool, kind: Cut) {
        if cut {
            self.cut.set(self.cut.get().max(kind));
        }
    }
}

/// The length of the bare word `text` starts with: ASCII letters, digits, `_` and `-`,
/// and any character beyond ASCII.
fn bare_word_len(text: &[u8]) -> usize {
    text.iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80)
        .count()
}

/// Where the JSON integer or literal at `i` ends, when the decoder reads it to exactly
/// there: `true`, `false`, `null`, or `-?(0|[1-9][0-9]*)` followed by a byte that no number
/// continues with. Anything else (a float, `NaN`, a string, the text ending) is left to
/// the decoder.
fn plain_scalar_end(text: &[u8], i: usize) -> Option<usize> {
    let rest = &text[i..];
    for literal in [&b"true"[..], b"false", b"null"] {
        if rest.starts_with(literal) {
            return Some(i + literal.len());
        }
    }
    let sign = usize::from(rest.first() == Some(&b'-'));
    let digits = rest[sign..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = sign + digits;
    let plain = digits > 0
        && (rest[sign] != b'0' || digits == 1)
        && !matches!(rest.get(end), None | Some(b'.' | b'e' | b'E'));
    plain.then_some(i + end)
}

#[cfg(test)]
mod tests {
    use super::super::strict_calls as calls;
    use super::*;

    /// The syntax check's fast path ends every scalar it reads where the decoder does, and
    /// leaves the rest to it.
    #[test]
    fn a_plain_scalar_ends_where_the_decoder_ends_it() {
        let limits = DecodeLimits {
            max_depth: STRICT_MAX_DEPTH,
            int_max_str_digits: None,
        };
        let mut read = 0;
        for text in [
            "1,",
            "-0}",
            "0]",
            "123456789012345678901234567890,",
            "7 ",
            "true,",
            "falsey",
            "null}",
            "01,",
            "-01}",
            "1.5,",
            "1.}",
            "2e3,",
            "2E3}",
            "-,",
            "-a",
            "12",
            "tru",
            "NaN,",
            "\"s\",",
            "١,",
            "1١,",
        ] {
            let decoded = json::raw_check(text.as_bytes(), 0, limits).ok();
            match plain_scalar_end(text.as_bytes(), 0) {
                Some(end) => {
                    read += 1;
                    assert_eq!(Some(end), decoded, "{text:?}");
                }
                None => assert!(
                    decoded.is_none()
                        || text.contains(['.', 'e', 'E', 'N', '"', '0'])
                        || decoded == Some(text.len()),
                    "{text:?}"
                ),
            }
        }
        assert_eq!(read, 9);
    }

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
