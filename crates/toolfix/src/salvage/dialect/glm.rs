//! GLM-4.5, 4.6 and 4.7, as their chat templates write calls:
//!
//! ```text
//! <tool_call>NAME
//! <arg_key>KEY</arg_key>
//! <arg_value>VALUE</arg_value>
//! </tool_call>
//! ```
//!
//! (4.7 writes the same without newlines.) The name is the text after `<tool_call>` up to
//! the first `<arg_key>` or `</tool_call>`, trimmed, and only name characters; each key
//! is followed, after whitespace, by its value. A value ends where `xml_value` says (a
//! closing tag inside code or inside an example call is part of it) and is kept exactly.
//!
//! The template writes a string value as it is and any other value as JSON, so a value
//! is typed by the tool's JSON schema when the schema describes it, and otherwise read as
//! JSON when the whole value is a JSON object, array, number, boolean or null, as vLLM,
//! SGLang and llama.cpp read it (`schema::Written::TextOrJson`).
//!
//! A block that shares the `<tool_call>` tag with another dialect is not this one: a JSON
//! body (`{`) is Hermes' `tool_call`, a `<function=` body is `qwen_xml`. The last value
//! may leave its `</arg_value>` out when it holds no `</arg_value>` that is text and the
//! `</tool_call>` is followed by another call or the end of the reply
//! (`xml_value::End::Unclosed`; the one newline the template writes before `</tool_call>`
//! is not the value's). A block that holds anything else between its pairs (another
//! missing `</arg_value>`, text) is
//! malformed, and one cut off is unclosed: no call, and the span stays reserved, to its
//! `</tool_call>` or to the end of the reply.

use super::super::payload::Payloads;
use super::super::schema::Written;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::MAX_NAME;
use super::token::{after_space, at};
use super::tokens::{glm, tool_call};
use super::xml_value::{
    Finder, Rejected, ValueEnd, ValueSyntax, Values, one_trailing_newline_off, settle,
};
use crate::py::PyStr;

const OPEN: &[u8] = tool_call::OPEN.as_bytes();
const CLOSE: &[u8] = tool_call::CLOSE.as_bytes();
const KEY: &[u8] = glm::KEY.as_bytes();
const KEY_CLOSE: &[u8] = glm::KEY_CLOSE.as_bytes();
const VALUE: &[u8] = glm::VALUE.as_bytes();
const VALUE_CLOSE: &[u8] = glm::VALUE_CLOSE.as_bytes();

/// GLM's values: `<arg_value>` … `</arg_value>`, then the next key or `</tool_call>`.
pub(super) const VALUES: ValueSyntax = ValueSyntax {
    open: VALUE,
    close: VALUE_CLOSE,
    is_open_tag: |_, _, _| true,
    follows: |_, text, i| at(text, i, KEY).is_some() || at(text, i, CLOSE).is_some(),
    outer_open: OPEN,
    is_outer_open_tag: |_, _, _| true,
    outer_close: CLOSE,
    outer_follows: &[],
    line_tags: false,
};

/// What may follow a call's `</tool_call>`, after whitespace, besides the end of the
/// reply: where a call whose last `</arg_value>` was left out is still read.
const AFTER: &[&[u8]] = &[OPEN];

/// Adds a candidate for every GLM `<tool_call>` block.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    let mut values = Values::new(text, &VALUES);
    let mut closes = Finder::new(text, CLOSE);
    let mut keys = Finder::new(text, KEY);
    let mut resume = 0;
    for open in memchr::memmem::find_iter(text, OPEN) {
        if open < resume {
            continue;
        }
        // A name is followed by `<arg_key>` or `</tool_call>` (`name_of`): past the last
        // of them no opener starts a block, and a flood of openers is not visited.
        if keys.at_or_after(open).is_none() && closes.at_or_after(open).is_none() {
            break;
        }
        let Some(name) = name_of(text, open + OPEN.len()) else {
            continue;
        };
        let read = block(payloads, &mut values, name);
        let (end, found) = settle(read, &mut closes, CLOSE.len(), text.len());
        resume = end;
        out.push(open..end, Dialect::Glm, found);
    }
}

/// The name of the GLM call whose body starts at `body`: at most `MAX_NAME` name
/// characters (letters, digits, `_`, `-`, `.`, `:`, any non-ASCII) after whitespace,
/// then whitespace and `<arg_key>` or `</tool_call>`. A JSON body (`{`), a tag or a
/// fence is another dialect's, or text.
fn name_of(text: &[u8], body: usize) -> Option<std::ops::Range<usize>> {
    let start = skip_space(text, body);
    let len = text[start..]
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b) || b >= 0x80)
        .count();
    ((1..=MAX_NAME).contains(&len)
        && (after_space(text, start + len, KEY).is_some()
            || after_space(text, start + len, CLOSE).is_some()))
    .then_some(start..start + len)
}

/// The end of the block named at `name` and its call (when the name was offered).
fn block(
    payloads: &Payloads<'_>,
    values: &mut Values<'_>,
    name: std::ops::Range<usize>,
) -> Result<(usize, Option<Found>), Rejected> {
    let text = payloads.text();
    let mut pairs = Vec::new();
    let mut i = skip_space(text, name.end);
    loop {
        if let Some(end) = at(text, i, CLOSE) {
            let name = PyStr::from_generalized_utf8(&text[name]);
            return Ok((end, payloads.typed_call(name, pairs)));
        }
        let key = at(text, i, KEY).ok_or(Rejected::At(i))?;
        let key_end =
            key + memchr::memchr(b'<', &text[key..]).ok_or(Rejected::Ending(text.len()))?;
        let value = at(text, key_end, KEY_CLOSE)
            .and_then(|k| after_space(text, k, VALUE))
            .ok_or(Rejected::At(key_end))?;
        let (written, next) = match values.value_end(value, AFTER)? {
            ValueEnd::Closed(close) => (&text[value..close], close + VALUE_CLOSE.len()),
            ValueEnd::LastUnclosed(close) | ValueEnd::BeforeNext(close) => {
                (one_trailing_newline_off(&text[value..close]), close)
            }
        };
        pairs.push((
            PyStr::from_generalized_utf8(text[key..key_end].trim_ascii()),
            Written::TextOrJson(PyStr::from_generalized_utf8(written)),
        ));
        i = skip_space(text, next);
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn calls(text: &str) -> Vec<(std::ops::Range<usize>, Option<String>)> {
        super::super::candidates_of(&[scan], text, &["write_file", "get_weather"])
            .into_found()
            .map(|(c, found)| (c.span, found.map(|f| format!("{} {:?}", f.name, f.args))))
            .collect()
    }

    #[test]
    fn an_example_call_inside_a_value_stays_in_it() {
        let text = "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>\
                    <tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n\
                    </tool_call></arg_value>\n</tool_call>";
        let found = calls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 0..text.len());
        assert!(found[0].1.as_deref().unwrap().contains("Oslo"));
    }

    #[test]
    fn a_last_value_that_left_its_closer_out_ends_at_the_call_closer() {
        let first =
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo\n</tool_call>";
        for after in ["", "\n", "\n<tool_call>get_weather\n</tool_call>"] {
            let found = calls(&format!("{first}{after}"));
            assert_eq!(found[0].0, 0..first.len(), "{after:?}");
            assert_eq!(
                found[0].1.as_deref(),
                Some(r#"get_weather Written("{\"city\": \"Oslo\"}")"#)
            );
        }
    }

    #[test]
    fn a_missing_value_closer_followed_by_text_rejects_that_call_only() {
        let first =
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo\n</tool_call>";
        let text = format!("{first} is how it ends.\n<tool_call>get_weather\n</tool_call>");
        let found = calls(&text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0], (0..first.len(), None));
        assert!(found[1].1.is_some());
    }

    #[test]
    fn many_openers_without_a_closer_take_one_pass() {
        let text = "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>".repeat(30_000);
        assert_eq!(calls(&text), [(0..text.len(), None)]);
    }
}
