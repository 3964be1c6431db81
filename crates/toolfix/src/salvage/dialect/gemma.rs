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
//! make no call, and the block stays reserved.
//!
//! Gemma 3, which has no call tokens and is usually prompted to write calls in a
//! ```` ```tool_code ```` fence, is not a dialect here: a fenced call is an example
//! (`docs/guarantees.md` G1), and a runtime serving Gemma 3 reads its calls natively.

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{Block, Blocks, any, at};
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
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    for tokens in [&FUNCTION_GEMMA, &GEMMA_4] {
        for block in Blocks::new(payloads.text(), tokens.open, tokens.close, any) {
            let found = if block.closed {
                call(payloads, &block, tokens)
            } else {
                None
            };
            out.push(Candidate {
                span: block.span,
                dialect: Dialect::Gemma,
                found,
            });
        }
    }
}

/// `call:NAME{…}`, the whole body of a closed block.
fn call(payloads: &Payloads<'_>, block: &Block, tokens: &Tokens) -> Option<Found> {
    let text = payloads.text();
    let name_start = at(text, skip_space(text, block.body.start), b"call:")?;
    let brace = name_start + memchr::memchr(b'{', &text[name_start..block.body.end])?;
    let name = text[name_start..brace].trim_ascii();
    if name.is_empty() {
        return None;
    }
    let reader = Reader {
        text: &text[..block.body.end],
        quote: tokens.quote,
    };
    let (args, end) = reader.value(brace, 0)?;
    if skip_space(text, end) != block.body.end || !matches!(args, Value::Dict(_)) {
        return None;
    }
    let name = PyStr::from_generalized_utf8(name);
    payloads.allows(&name).then_some(Found { name, args })
}

/// Reads Gemma's argument syntax out of `text`.
struct Reader<'t> {
    text: &'t [u8],
    quote: &'static [u8],
}

impl Reader<'_> {
    /// The value at `i` (after whitespace) and its end.
    fn value(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        let i = skip_space(self.text, i);
        if depth > STRICT_MAX_DEPTH {
            return None;
        }
        match *self.text.get(i)? {
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
            (self.text.get(colon) == Some(&b':')).then_some(())?;
            let (value, end) = self.value(colon + 1, depth)?;
            dict.insert(key, value);
            i = skip_space(self.text, end);
            match *self.text.get(i)? {
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
            items.push(value);
            i = skip_space(self.text, end);
            match *self.text.get(i)? {
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
        let len = self.text[i..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80)
            .count();
        (len > 0).then(|| {
            (
                PyStr::from_generalized_utf8(&self.text[i..i + len]),
                i + len,
            )
        })
    }

    /// A string between two quote tokens, taken as written.
    fn escaped(&self, i: usize) -> Option<(Value, usize)> {
        let start = i + self.quote.len();
        let len = memchr::memmem::find(&self.text[start..], self.quote)?;
        let value = Value::Str(PyStr::from_generalized_utf8(&self.text[start..start + len]));
        Some((value, start + len + self.quote.len()))
    }

    /// A JSON string, number, `true`, `false` or `null`.
    fn scalar(&self, i: usize) -> Option<(Value, usize)> {
        let limits = DecodeLimits {
            max_depth: 1,
            int_max_str_digits: None,
        };
        json::raw_decode(self.text, i, limits)
            .ok()
            .filter(|(v, _)| !matches!(v, Value::Dict(_) | Value::List(_)))
    }
}
