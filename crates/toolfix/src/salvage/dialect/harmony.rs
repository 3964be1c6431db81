//! gpt-oss Harmony: a message addressed to a function,
//! `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, with
//! the recipient in the channel header or in the role header
//! (`<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>…`), as the
//! Harmony format and gpt-oss's chat template write it (`docs/dialects/harmony.md`).
//!
//! A message's content that begins as JSON is read as JSON first: a token written inside
//! it (in a string argument that quotes a Harmony message) is its text, whatever follows
//! the token. From the end of the JSON (or where it stopped reading), the message runs to
//! the first `<|call|>`, `<|end|>` or `<|return|>` that the format's next token can follow
//! (only whitespace, then the next `<|start|>` or the end of the reply), or to the end of
//! the reply: engines strip the `<|call|>` stop token, so a reply commonly ends right
//! after the JSON. An end token followed by anything else was written as text
//! (`<|call|>` and `<|return|>` are stop tokens, so a model that emits one says nothing
//! after it). The body of a call is one JSON object, then only whitespace, then an end
//! token, the next `<|start|>`, or the end of the reply.
//!
//! Only recipients in the `functions` namespace are calls to offered tools, on whichever
//! channel (engines read `analysis to=functions.NAME` as a call too). A message to any
//! other recipient (Harmony's built-in `browser.*` and `python`, or `assistant` in a tool
//! result) makes no call, and neither does a function message whose body does not read
//! whole; both reserve the message up to its end, so nothing written inside them runs.
//! The `analysis` channel without a recipient is reasoning, masked before any dialect
//! scans (`reasoning`).

use std::ops::Range;

use memchr::memmem::{self, FindIter};

use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::at;
use super::tokens::harmony;
use crate::py::PyStr;

const MESSAGE: &[u8] = harmony::MESSAGE.as_bytes();
const START: &[u8] = harmony::START.as_bytes();
const CHANNEL: &[u8] = harmony::CHANNEL.as_bytes();
const RECIPIENT: &[u8] = harmony::RECIPIENT.as_bytes();
const FUNCTIONS: &[u8] = harmony::FUNCTIONS.as_bytes();
/// How far before `<|message|>` its header is looked for: headers are a few dozen bytes.
const HEADER: usize = 256;
/// The tokens that end a message.
const ENDS: [&[u8]; 3] = [
    harmony::CALL.as_bytes(),
    harmony::END.as_bytes(),
    harmony::RETURN.as_bytes(),
];
/// The tokens a header starts after.
const HEADER_STARTS: [&[u8]; 5] = [
    START,
    harmony::END.as_bytes(),
    harmony::CALL.as_bytes(),
    harmony::RETURN.as_bytes(),
    MESSAGE,
];

/// Whom a message is addressed to.
enum Recipient {
    /// `to=functions.NAME`: a call of `NAME`.
    Function(PyStr),
    /// Any other recipient: a built-in tool, or `assistant` in a tool result.
    Other,
}

/// Adds a candidate for every message with a recipient.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    let mut ends = MessageEnds::new(text);
    let mut resume = 0;
    for message in memmem::find_iter(text, MESSAGE) {
        if message < resume {
            continue;
        }
        let content = message + MESSAGE.len();
        let header = header(text, resume.max(message.saturating_sub(HEADER)), message);
        let Some((start, recipient)) = recipient(text, header.clone()) else {
            continue;
        };
        // A message begins at its `<|start|>` when the header follows one.
        let start = text[..header.start]
            .strip_suffix(START)
            .map_or(start, <[u8]>::len);
        let (end, found) = read_message(payloads, &mut ends, content, recipient);
        out.push(start..end, Dialect::Harmony, found);
        resume = end;
    }
}

/// Where the message whose content starts at `content` ends, and its call. Content that
/// begins as JSON is read as JSON first, so a token inside one of its strings is text:
/// the message ends no earlier than the JSON, or than where the JSON stopped reading.
/// A message to another recipient only needs that end, so its JSON is checked, not built.
fn read_message(
    payloads: &Payloads<'_>,
    ends: &mut MessageEnds<'_>,
    content: usize,
    recipient: Recipient,
) -> (usize, Option<Found>) {
    let text = payloads.text();
    let json_start = skip_space(text, content);
    let json_end = match recipient {
        Recipient::Function(name) => match payloads.payload_or_reach(json_start) {
            Ok((args, json_end)) => {
                if let Some(end) = call_end(text, json_end).filter(|_| args.is_object()) {
                    let found = payloads.allows(&name).then(|| Found {
                        name,
                        args: args.into_args(),
                    });
                    return (end, found);
                }
                json_end
            }
            Err(reach) => reach,
        },
        Recipient::Other => payloads
            .check_or_reach(json_start)
            .map_or_else(|reach| reach, |((), end)| end),
    };
    (ends.first_from(json_end), None)
}

/// Where a call whose JSON arguments end at `json_end` ends: after only whitespace, at an
/// end token (included), the next `<|start|>` (excluded), or the end of the reply; `None`
/// when anything else follows the JSON.
fn call_end(text: &[u8], json_end: usize) -> Option<usize> {
    let after = skip_space(text, json_end);
    if after == text.len() {
        return Some(json_end);
    }
    if text[after..].starts_with(START) {
        return Some(after);
    }
    ENDS.iter().find_map(|t| at(text, after, t))
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

/// Where the header's message starts (its `<|start|>`/`<|channel|>`, else its recipient)
/// and whom it is addressed to. A recipient is the last `to=` of the header that starts it
/// or follows whitespace or a token; one outside the `functions` namespace counts only
/// where a Harmony header puts it (`in_header`), so prose that says `to=` is never one.
fn recipient(text: &[u8], header: Range<usize>) -> Option<(usize, Recipient)> {
    let window = &text[header.clone()];
    // `to=` by its `=`, from the last: no searcher is built per message, which in a
    // flood of messages with empty headers cost more than the rest of the scan.
    let to = memchr::memrchr_iter(b'=', window)
        .filter_map(|i| {
            i.checked_sub(2)
                .filter(|&to| window[to..].starts_with(RECIPIENT))
        })
        .find(|&i| i == 0 || window[i - 1].is_ascii_whitespace() || window[i - 1] == b'>')?;
    let target_start = to + RECIPIENT.len();
    let target_len = window[target_start..]
        .iter()
        .take_while(|&&b| !b.is_ascii_whitespace() && b != b'<')
        .count();
    let target = &window[target_start..target_start + target_len];
    let recipient = match target.strip_prefix(FUNCTIONS) {
        Some(name) if !name.is_empty() => Recipient::Function(PyStr::from_generalized_utf8(name)),
        _ if target.is_empty() || !in_header(text, header.clone(), to) => return None,
        _ => Recipient::Other,
    };
    // The last `<|start|>` and the last `<|channel|>` before the recipient open its
    // header: an earlier one (quoted in a fence, in prose) belongs to other text.
    let opening = [START, CHANNEL]
        .iter()
        .filter_map(|t| memmem::rfind(&window[..to], t))
        .min()
        .unwrap_or(to);
    Some((header.start + opening, recipient))
}

/// Whether the `to=` at `to` of a `header` stands where Harmony puts a recipient: after
/// the `<|channel|>` token, or, in a header that has one, right after the role that
/// follows `<|start|>`.
///
/// The role must follow the token: what comes before a recipient in a header with no
/// token to open it is any text up to the window's floor, which a stream has shown and
/// forgotten by the time the `<|message|>` comes, so whether it is one word could not be
/// told alike in both (F25 in fuzz/findings.toml).
fn in_header(text: &[u8], header: Range<usize>, to: usize) -> bool {
    let window = &text[header.clone()];
    let before = &window[..to];
    memmem::find(before, CHANNEL).is_some()
        || (text[..header.start].ends_with(START)
            && memmem::find(&window[to..], CHANNEL).is_some()
            && !before.trim_ascii().iter().any(u8::is_ascii_whitespace))
}

/// The first end token that ends a message at or after a position, for positions given
/// in increasing order: each token kind is searched once over the whole text, so finding
/// the end of every message is one pass.
struct MessageEnds<'t> {
    text: &'t [u8],
    kinds: [EndKind<'t>; 3],
}

/// One kind of end token: its occurrences, its length, and the next occurrence not yet
/// passed (`None` when there is no further one).
struct EndKind<'t> {
    found: FindIter<'t, 'static>,
    len: usize,
    next: Option<usize>,
}

impl<'t> MessageEnds<'t> {
    fn new(text: &'t [u8]) -> MessageEnds<'t> {
        let kinds = ENDS.map(|token| {
            let mut found = memmem::find_iter(text, token);
            let next = found.next();
            EndKind {
                found,
                len: token.len(),
                next,
            }
        });
        MessageEnds { text, kinds }
    }

    /// Where the message whose content reaches `from` ends: after the first end token at or
    /// after `from` that ends a message, or at the end of the text.
    fn first_from(&mut self, from: usize) -> usize {
        let text = self.text;
        let mut first = (text.len(), text.len());
        for kind in &mut self.kinds {
            while kind
                .next
                .is_some_and(|n| n < from || !ends_a_message(text, n + kind.len))
            {
                kind.next = kind.found.next();
            }
            if let Some(n) = kind.next.filter(|&n| n < first.0) {
                first = (n, n + kind.len);
            }
        }
        first.1
    }
}

/// Whether an end token that ends at `after` ends a message: only whitespace follows it
/// before the next `<|start|>` or the end of the text.
fn ends_a_message(text: &[u8], after: usize) -> bool {
    let next = skip_space(text, after);
    next == text.len() || text[next..].starts_with(START)
}

#[cfg(test)]
mod tests {
    use super::super::strict_calls as calls;
    use super::header;

    #[test]
    fn a_truncated_body_reserves_the_rest_of_the_reply() {
        let text = concat!(
            "<|channel|>commentary to=functions.run <|constrain|>json<|message|>",
            r#"{"cmd": "echo <function=delete_user>{}</function>"#,
        );
        assert!(calls(text, &["run", "delete_user"]).is_empty());
    }

    #[test]
    fn a_built_in_tool_message_reserves_its_body() {
        let text = concat!(
            "<|channel|>analysis to=python<|message|>",
            r#"print("<function=delete_user>{}</function>")<|call|>"#,
        );
        assert!(calls(text, &["python", "delete_user"]).is_empty());
    }

    #[test]
    fn text_after_the_json_makes_no_call_and_reserves_the_message() {
        let text = concat!(
            "<|channel|>commentary to=functions.run<|message|>",
            r#"{"cmd": "ls"} and <function=delete_user>{}</function><|call|>"#,
            "<|start|>assistant<|channel|>commentary to=functions.run<|message|>",
            r#"{"cmd": "pwd"}<|call|>"#,
        );
        assert_eq!(
            calls(text, &["run", "delete_user"]),
            [("run".into(), r#"{"cmd": "pwd"}"#.into())]
        );
    }

    /// Fuzzing finding F5 (fuzz/findings.toml): a channel token shown in a fence before the
    /// call opened its header, so the call started in the fence and was dropped.
    #[test]
    fn a_channel_token_in_a_fence_before_the_call_opens_no_header() {
        let text = "Example:\n```text\n<|channel|>commentary\n```\n\
                    <|channel|>commentary to=functions.get_weather <|constrain|>json\
                    <|message|>{\"city\": \"Mons\"}<|call|>";
        assert_eq!(
            calls(text, &["get_weather"]),
            [("get_weather".into(), r#"{"city": "Mons"}"#.into())]
        );
    }

    /// Issue 33: a Harmony message quoted in a string argument (a file about the format)
    /// is the argument's text; its end token, followed by more of the string, ends nothing.
    #[test]
    fn a_quoted_message_inside_a_string_is_text() {
        let text = concat!(
            "<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json",
            r#"<|message|>{"path": "notes.md", "content": "Example: <|start|>assistant"#,
            "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}",
            r#"<|end|> done"}<|call|>"#,
        );
        let content = r#""content": "Example: <|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|end|> done""#;
        assert_eq!(
            calls(text, &["write_file", "get_time"]),
            [(
                "write_file".into(),
                format!(r#"{{"path": "notes.md", {content}}}"#)
            )]
        );
    }

    /// A quoted transcript's end token is followed by its next `<|start|>`, as a real one
    /// would be: read as JSON first, the string holds it, and the quoted call runs nothing.
    #[test]
    fn a_quoted_transcript_inside_a_string_is_text() {
        let quoted = concat!(
            "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|> ",
            "<|start|>assistant<|channel|>commentary to=functions.get_time <|message|>{}<|call|>",
        );
        let args = format!(r#"{{"path": "notes.md", "content": "{quoted}"}}"#);
        let text = format!("<|channel|>commentary to=functions.write_file<|message|>{args}");
        assert_eq!(
            calls(&text, &["write_file", "get_time"]),
            [("write_file".into(), args)]
        );
    }

    #[test]
    fn prose_saying_to_is_not_a_recipient() {
        let text = "set x to=5 <|channel|>final<|message|><tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
        assert_eq!(calls(text, &["f"]), [("f".into(), "{}".into())]);
    }

    /// Linearity is measured by the `harmony-*` adversarial benches; this pins the answer.
    #[test]
    fn many_unended_messages_make_no_call() {
        let text = "<|channel|>commentary to=functions.f<|message|>{\"a\": \"".repeat(10_000);
        assert!(calls(&text, &["f"]).is_empty());
    }

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
