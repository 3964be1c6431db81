//! Qwen3-Coder / Qwen3.5 XML (also Nemotron 3), as their chat templates write calls:
//!
//! ```text
//! <tool_call>
//! <function=NAME>
//! <parameter=KEY>
//! VALUE
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! The `<tool_call>` wrapper is optional (engines accept a bare `<function=NAME>` block),
//! and one wrapper may hold several functions. A value is the text between its tags with
//! one leading and one trailing newline taken off, as the template adds them; everything
//! else, multi-line code included, is kept exactly, then typed by the tool's JSON schema
//! (`schema`). A value ends where `xml_value` says: a tag counts only where the template
//! could have written it (`</function>` before `</tool_call>`, another call or the end;
//! `<parameter=` at the start of a line), so a tag inside code or inside an example call
//! is part of the value. Between parameters only whitespace may appear. A value may leave
//! its `</parameter>` out, as small models do: it ends where the next `<parameter=` or the
//! call's `</function>` begins, when no closer in it is text (`xml_value::End::Next`,
//! `End::Unclosed`). A block that holds anything else (text between parameters) is
//! malformed, and one cut off is unclosed: no call, and the span stays reserved, to its
//! `</function>` or to the end of the reply.
//!
//! `<function=NAME>{…}</function>` with a JSON body is the `function` dialect, not this
//! one: here the name's `>` is followed by `<parameter=` or `</function>`.

use std::ops::Range;

use super::super::payload::Payloads;
use super::super::schema::Written;
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::token::{after_space, at};
use super::tokens::{function, qwen_xml, tool_call};
use super::xml_value::{
    Finder, Rejected, ValueEnd, ValueSyntax, Values, name_then_gt, one_trailing_newline_off, settle,
};
use crate::py::PyStr;

const OPEN: &[u8] = function::OPEN.as_bytes();
const CLOSE: &[u8] = function::CLOSE.as_bytes();
const PARAM: &[u8] = qwen_xml::PARAMETER.as_bytes();
const PARAM_CLOSE: &[u8] = qwen_xml::PARAMETER_CLOSE.as_bytes();
const WRAP: &[u8] = tool_call::OPEN.as_bytes();
const WRAP_CLOSE: &[u8] = tool_call::CLOSE.as_bytes();

/// Qwen's values: `<parameter=K>` … `</parameter>`, then the next parameter or
/// `</function>`.
pub(super) const VALUES: ValueSyntax = ValueSyntax {
    open: PARAM,
    close: PARAM_CLOSE,
    is_open_tag: |_, text, i| name_then_gt(text, i + PARAM.len()).is_some(),
    follows: |_, text, i| at(text, i, PARAM).is_some() || at(text, i, CLOSE).is_some(),
    outer_open: OPEN,
    is_outer_open_tag: |_, text, i| name_then_gt(text, i + OPEN.len()).is_some(),
    outer_close: CLOSE,
    outer_follows: AFTER,
    line_tags: true,
};

/// What may follow a call's `</function>`, after whitespace, besides the end of the
/// reply: where a `</function>` closes the call (one followed by anything else is text
/// in a value), and where a call whose last `</parameter>` was left out is still read.
const AFTER: &[&[u8]] = &[WRAP_CLOSE, WRAP, OPEN];

/// Adds a candidate for every `<function=NAME>` block with XML parameters.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    let mut values = Values::new(text, &VALUES);
    let mut closes = Finder::new(text, CLOSE);
    let mut resume = 0;
    for open in memchr::memmem::find_iter(text, OPEN) {
        if open < resume {
            continue;
        }
        let Some(gt) = name_then_gt(text, open + OPEN.len()).filter(|&gt| is_xml_call(text, gt))
        else {
            continue;
        };
        let read = block(payloads, &mut values, open + OPEN.len(), gt);
        let (end, found) = settle(read, &mut closes, CLOSE.len(), text.len());
        let span = wrapped(text, open..end);
        resume = span.end;
        out.push(span, Dialect::QwenXml, found);
    }
}

/// Whether the name whose `>` is at `gt` opens an XML call: whitespace, then
/// `<parameter=` or `</function>`.
fn is_xml_call(text: &[u8], gt: usize) -> bool {
    after_space(text, gt + 1, PARAM).is_some() || after_space(text, gt + 1, CLOSE).is_some()
}

/// Reads the block whose name runs from `name` to its `>` at `gt`.
fn block(
    payloads: &Payloads<'_>,
    values: &mut Values<'_>,
    name: usize,
    gt: usize,
) -> Result<(usize, Option<Found>), Rejected> {
    let text = payloads.text();
    let mut pairs = Vec::new();
    let mut i = skip_space(text, gt + 1);
    loop {
        if let Some(end) = at(text, i, CLOSE) {
            let name = PyStr::from_generalized_utf8(&text[name..gt]);
            return Ok((end, payloads.typed_call(name, pairs)));
        }
        let Some(key_gt) = at(text, i, PARAM).and_then(|k| name_then_gt(text, k)) else {
            return Err(Rejected::At(i));
        };
        let key = &text[i + PARAM.len()..key_gt];
        let (close, unclosed) = match values.value_end(key_gt + 1, AFTER)? {
            ValueEnd::Closed(close) => (close, false),
            ValueEnd::LastUnclosed(close) | ValueEnd::BeforeNext(close) => (close, true),
        };
        pairs.push((
            PyStr::from_generalized_utf8(key),
            Written::from(PyStr::from_generalized_utf8(one_newline_off(
                &text[key_gt + 1..close],
            ))),
        ));
        i = match unclosed {
            true => close,
            false => skip_space(text, close + PARAM_CLOSE.len()),
        };
    }
}

/// `value` without one leading and one trailing `\n` (or `\r\n`), as the template adds.
fn one_newline_off(value: &[u8]) -> &[u8] {
    let value = value
        .strip_prefix(b"\r\n")
        .or_else(|| value.strip_prefix(b"\n"))
        .unwrap_or(value);
    one_trailing_newline_off(value)
}

/// `span` widened to the `<tool_call>` … `</tool_call>` around it, when there is one.
fn wrapped(text: &[u8], span: Range<usize>) -> Range<usize> {
    let before = text[..span.start].trim_ascii_end();
    let start = match before.strip_suffix(WRAP) {
        Some(rest) => rest.len(),
        None => span.start,
    };
    let end = after_space(text, span.end, WRAP_CLOSE).unwrap_or(span.end);
    start..end
}

#[cfg(test)]
mod tests {

    use super::*;

    fn calls(text: &str) -> Vec<(Range<usize>, Option<String>)> {
        super::super::candidates_of(&[scan], text, &["write_file", "get_weather"])
            .into_found()
            .map(|(c, found)| (c.span, found.map(|f| format!("{} {:?}", f.name, f.args))))
            .collect()
    }

    #[test]
    fn a_closing_tag_inside_a_value_is_text() {
        let text = "<function=write_file>\n<parameter=content>\nend = \"</parameter>\"\n\
                    </parameter>\n</function>";
        let found = calls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 0..text.len());
        assert!(found[0].1.as_deref().unwrap().contains("</parameter>"));
    }

    #[test]
    fn a_function_closer_the_format_does_not_go_on_after_is_text() {
        let text = "<function=write_file>\n<parameter=content>\nend = \"</function>\"\n\
                    </parameter>\n</function>";
        let found = calls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 0..text.len());
        assert!(found[0].1.as_deref().unwrap().contains("</function>"));
    }

    #[test]
    fn a_parameter_tag_inside_a_line_is_text_and_one_beginning_a_line_is_the_next() {
        let text = "<function=get_weather>\n<parameter=city>\nsay \"<parameter=x>\"\n\
                    <parameter=unit>\nC\n</function>";
        let found = calls(text);
        assert_eq!(
            found[0].1.as_deref(),
            Some(
                r#"get_weather Written("{\"city\": \"say \\\"<parameter=x>\\\"\", \"unit\": \"C\"}")"#
            )
        );
    }

    #[test]
    fn an_example_call_inside_a_value_stays_in_it() {
        let text = "<tool_call>\n<function=write_file>\n<parameter=content>\n\
                    <tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n\
                    </function>\n</tool_call>\n</parameter>\n</function>\n</tool_call>";
        let found = calls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 0..text.len());
        assert!(found[0].1.as_deref().unwrap().starts_with("write_file"));
    }

    #[test]
    fn a_last_value_that_left_its_closer_out_ends_at_the_function_closer() {
        let first = "<function=get_weather>\n<parameter=city>\nOslo\n</function>";
        for after in ["", "\n</tool_call>", " <function=get_weather>\n</function>"] {
            let found = calls(&format!("{first}{after}"));
            assert_eq!(
                found[0].1.as_deref(),
                Some(r#"get_weather Written("{\"city\": \"Oslo\"}")"#)
            );
        }
        let prose = format!("{first} closes a function.");
        assert_eq!(calls(&prose), [(0..prose.len(), None)]);
    }

    #[test]
    fn a_malformed_block_reserves_up_to_its_closer() {
        for first in [
            "<function=get_weather>\n<parameter=city>Oslo</parameter> junk </function>",
            "<function=get_weather>\n<parameter=city>Oslo</parameter>\njunk\n</function>",
            "<function=get_weather>\n<parameter=city>Oslo</parameter> or\n<parameter=unit>\nC\n</parameter>\n</function>",
        ] {
            let text = format!("{first} <function=get_weather>\n</function>");
            let found = calls(&text);
            assert_eq!(found.len(), 2, "{first}");
            assert_eq!(found[0], (0..first.len(), None));
            assert!(found[1].1.is_some());
        }
    }

    /// F40 (fuzz/findings.toml): a name past `MAX_NAME` bytes is text, so a stream that
    /// has seen a few hundred bytes after `<function=` knows no call begins there.
    #[test]
    fn a_name_longer_than_the_bound_is_text() {
        let long = "x".repeat(super::super::MAX_NAME + 1);
        let text = format!("<function={long}>\n</function>");
        assert!(calls(&text).is_empty());
        let bounded = format!("<function={}>\n</function>", &long[1..]);
        assert_eq!(calls(&bounded).len(), 1);
    }

    #[test]
    fn many_parameters_without_their_closers_take_one_pass() {
        let params = "<parameter=city>\nOslo\n".repeat(50_000);
        let text = format!("<function=get_weather>\n{params}</function>");
        let found = calls(&text);
        assert_eq!(found[0].0, 0..text.len());
        assert!(found[0].1.is_some());
    }

    #[test]
    fn many_openers_without_a_closer_take_one_pass() {
        let text = "<function=get_weather>\n<parameter=city>\n".repeat(50_000);
        let found = calls(&text);
        assert_eq!(found, [(0..text.len(), None)]);
    }
}
