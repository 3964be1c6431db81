//! gpt-oss Harmony: a message on the `commentary` channel addressed to a function,
//! `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, with
//! the recipient in the channel header or in the role header
//! (`<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>…`), as the
//! Harmony format and gpt-oss's chat template write it.
//!
//! The body is a JSON object ending at `<|call|>`, `<|end|>`, `<|return|>`, the next
//! `<|start|>`, or the end of the reply (a reply cut right after a complete object is
//! still that call). The `analysis` channel is reasoning, masked before any dialect scans
//! (`reasoning`). Only recipients in the `functions` namespace are calls to offered
//! tools; Harmony's built-in tools (`browser.search`, `python`) are not.

use std::ops::Range;

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::span::{Candidate, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::at;
use crate::py::{PyStr, Value};

const MESSAGE: &[u8] = b"<|message|>";
const START: &[u8] = b"<|start|>";
const RECIPIENT: &[u8] = b"to=functions.";
/// How far before `<|message|>` its header is looked for: headers are a few dozen bytes.
const HEADER: usize = 256;
/// The tokens that end a message, or start the next one.
const ENDS: [&[u8]; 4] = [b"<|call|>", b"<|end|>", b"<|return|>", b"<|start|>"];
/// The tokens a header starts after.
const HEADER_STARTS: [&[u8]; 5] = [
    b"<|start|>",
    b"<|end|>",
    b"<|call|>",
    b"<|return|>",
    b"<|message|>",
];

/// Adds a candidate for every message addressed to a function.
pub fn scan(payloads: &Payloads<'_>, out: &mut Vec<Candidate>) {
    let text = payloads.text();
    let mut resume = 0;
    for message in memmem::find_iter(text, MESSAGE) {
        if message < resume {
            continue;
        }
        let header = header(text, resume.max(message.saturating_sub(HEADER)), message);
        let Some((start, name)) = recipient(text, header.clone()) else {
            continue;
        };
        // A message begins at its `<|start|>` when the header follows one.
        let start = text[..header.start]
            .strip_suffix(START)
            .map_or(start, <[u8]>::len);
        let body = skip_space(text, message + MESSAGE.len());
        let (end, found) = match payloads.value_at(body) {
            Some((args @ Value::Dict(_), json_end)) => match ended(text, json_end) {
                Some(end) => (end, payloads.allows(&name).then_some(Found { name, args })),
                None => (json_end, None),
            },
            _ => (body, None),
        };
        out.push(Candidate {
            span: start..end,
            dialect: Dialect::Harmony,
            found,
        });
        resume = end;
    }
}

/// The header of the message whose `<|message|>` is at `message`: from the last token a
/// header starts after (at or after `floor`) to `message`.
///
/// The tokens are looked for backwards from `message`, `<` by `<`, and the first one found
/// ends the search: the previous `<|message|>` is such a token, so a reply made of
/// thousands of `<|message|>` costs a few bytes per message, not a search of the whole
/// window for each token. (Tokens never overlap, so the last one to start is also the
/// last one to end.)
fn header(text: &[u8], floor: usize, message: usize) -> Range<usize> {
    let window = &text[floor..message];
    let start = memchr::memrchr_iter(b'<', window)
        .find_map(|i| {
            HEADER_STARTS
                .iter()
                .find(|t| window[i..].starts_with(t))
                .map(|t| floor + i + t.len())
        })
        .unwrap_or(floor);
    start..message
}

/// Where the header's call starts (its `<|start|>`/`<|channel|>`, else its recipient)
/// and the function it is addressed to.
fn recipient(text: &[u8], header: Range<usize>) -> Option<(usize, PyStr)> {
    let window = &text[header.clone()];
    let to = memmem::rfind(window, RECIPIENT)?;
    let name_start = to + RECIPIENT.len();
    let name_len = window[name_start..]
        .iter()
        .take_while(|&&b| !b.is_ascii_whitespace() && b != b'<')
        .count();
    if name_len == 0 {
        return None;
    }
    let name = PyStr::from_generalized_utf8(&window[name_start..name_start + name_len]);
    let opening = [b"<|start|>".as_slice(), b"<|channel|>"]
        .iter()
        .filter_map(|t| memmem::find(window, t))
        .min()
        .filter(|&i| i < to)
        .unwrap_or(to);
    Some((header.start + opening, name))
}

/// The end of the message whose body ends at `json_end`: after an end token, or the
/// reply's end.
fn ended(text: &[u8], json_end: usize) -> Option<usize> {
    let after = skip_space(text, json_end);
    if after == text.len() {
        return Some(json_end);
    }
    ENDS.iter().find_map(|t| at(text, after, t)).map(|end| {
        if text[after..].starts_with(b"<|start|>") {
            after
        } else {
            end
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_of(text: &str, floor: usize) -> &str {
        let message = text.rfind("<|message|>").unwrap();
        &text[header(text.as_bytes(), floor, message)]
    }

    #[test]
    fn a_header_starts_after_the_last_token_before_its_message() {
        let text = "<|start|>assistant<|channel|>commentary to=functions.a<|message|>";
        assert_eq!(
            header_of(text, 0),
            "assistant<|channel|>commentary to=functions.a"
        );
        let text = "x<|call|>y<|end|> to=functions.a <|constrain|>json<|message|>";
        assert_eq!(header_of(text, 0), " to=functions.a <|constrain|>json");
        assert_eq!(header_of("<|message|><|message|>", 0), "");
        // A token cut by the window's start is not in the window.
        let text = "<|end|>to=functions.a<|message|>";
        assert_eq!(header_of(text, 1), "|end|>to=functions.a");
        assert_eq!(header_of("<< <|e <|message|>", 0), "<< <|e ");
    }
}
