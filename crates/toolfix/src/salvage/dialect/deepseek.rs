//! DeepSeek's tool-call tokens, as the V3, V3.1, V3.2 and R1 chat templates write them:
//!
//! * V3 and R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` then the arguments as
//!   JSON between ```` ```json ```` and ```` ``` ```` lines, then `<｜tool▁call▁end｜>`;
//! * V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`;
//! * V3.2 (DSML): `<｜DSML｜function_calls>` holding `<｜DSML｜invoke name="NAME">` with
//!   `<｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>` (read by
//!   `invoke`), written after the reply's text with no other token around it;
//! * V4: V3.2's invokes in `<｜DSML｜tool_calls>`;
//! * V4.1: `<｜DSML｜ calls>`, `<｜DSML｜ invoke …>`, `<｜DSML｜ parameter …>`, each tag name
//!   after a space (the encoding's own spelling, not a typo).
//!
//! V3 and V3.1 wrap their calls in `<｜tool▁calls▁begin｜>` … `<｜tool▁calls▁end｜>`; each
//! call is read from its own begin token: its name (no newline or `<` in it), the JSON
//! object of its arguments read whole, and then its end token. Reading the JSON first
//! means an end token inside a JSON string is part of the string. The fence inside a V3
//! call is the format's, not an example: a call that starts outside every fence is never
//! masked. A call whose parts are not all there is malformed: no call, and its span stays
//! reserved up to the next end token (or the end of the reply).

use super::super::payload::{Payload, Payloads};
use super::super::span::{Candidates, Found};
use super::super::text::skip_space;
use super::Dialect;
use super::invoke::{self, Syntax};
use super::token::at;
use super::tokens::deepseek;
use super::xml_value::Finder;
use crate::py::PyStr;

const BEGIN: &str = deepseek::CALL_BEGIN;
const END: &str = deepseek::CALL_END;
const SEP: &str = deepseek::SEP;
const FENCE: &[u8] = b"```";

/// DSML as V3.2, V4 and V4.1 write it (`deepseek::DSML_VERSIONS`): one search for the
/// tags' common start finds the sections of all three.
pub(super) const DSML: [Syntax; 3] = [dsml(0), dsml(1), dsml(2)];

/// The syntax of DSML version `version` of `deepseek::DSML_VERSIONS`.
const fn dsml(version: usize) -> Syntax {
    let [section, invoke, parameter] = deepseek::DSML_VERSIONS[version];
    Syntax::new(section, invoke, parameter, Dialect::DeepSeek, true)
}

/// Adds a candidate for every call block and every DSML invoke.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    let mut ends = Finder::new(text, END.as_bytes());
    let mut resume = 0;
    for begin in memchr::memmem::find_iter(text, BEGIN.as_bytes()) {
        if begin < resume {
            continue;
        }
        let body = begin + BEGIN.len();
        let (end, found) = match call(payloads, begin, body) {
            Some((end, found)) => (end, found),
            None => (
                ends.at_or_after(body).map_or(text.len(), |e| e + END.len()),
                None,
            ),
        };
        resume = end;
        out.push(begin..end, Dialect::DeepSeek, found);
    }
    invoke::scan(payloads, deepseek::DSML_LEAD.as_bytes(), &DSML, out);
}

/// The well-formed call whose body starts at `body`: where it ends (after its end
/// token), and the call when the name was offered and the arguments are an object.
fn call(payloads: &Payloads<'_>, begin: usize, body: usize) -> Option<(usize, Option<Found>)> {
    let text = payloads.text();
    let head_end = body + line_len(&text[body..]);
    let sep_end = at(text, head_end, SEP.as_bytes())?;
    let head = text[body..head_end].trim_ascii();
    if head == b"function" {
        let name_end = sep_end + line_len(&text[sep_end..]);
        let fenced = fenced_args(payloads, begin, name_end)
            .map(|(args, end)| (&text[sep_end..name_end], args, end));
        if let Some((name, args, end)) = fenced {
            return Some((end, named(payloads, name, args)));
        }
    }
    let (args, json_end) = payloads.value_at(begin, skip_space(text, sep_end))?;
    let end = at(text, skip_space(text, json_end), END.as_bytes())?;
    Some((end, named(payloads, head, args)))
}

/// The V3 arguments after the name's line, from `from`: ```` ```json ````, the JSON
/// object, ```` ``` ````, the end token. Returns the arguments and the end of the token.
fn fenced_args<'a>(
    payloads: &Payloads<'a>,
    begin: usize,
    from: usize,
) -> Option<(Payload<'a>, usize)> {
    let text = payloads.text();
    let fence = at(text, skip_space(text, from), FENCE)?;
    let json = at(text, fence, b"json").unwrap_or(fence);
    let (args, json_end) = payloads.value_at(begin, skip_space(text, json))?;
    let close = at(text, skip_space(text, json_end), FENCE)?;
    let end = at(text, skip_space(text, close), END.as_bytes())?;
    Some((args, end))
}

/// The length of the line at the start of `text` up to a newline or `<` (a name, or the
/// `function` type).
fn line_len(text: &[u8]) -> usize {
    memchr::memchr2(b'\n', b'<', text).unwrap_or(text.len())
}

/// The call `name` with `args`, when the name (trimmed) is not empty and was offered and
/// the arguments are a JSON object.
fn named(payloads: &Payloads<'_>, name: &[u8], args: Payload) -> Option<Found> {
    let name = PyStr::from_generalized_utf8(name.trim_ascii());
    (!name.is_empty() && args.is_object() && payloads.allows(&name)).then(|| Found {
        name,
        args: args.into_args(),
    })
}

#[cfg(test)]
mod tests {

    use super::*;

    fn calls(text: &str) -> Vec<(std::ops::Range<usize>, Option<String>)> {
        super::super::candidates_of(&[scan], text, &["get_weather", "function"])
            .into_found()
            .map(|(c, found)| (c.span, found.map(|f| format!("{} {:?}", f.name, f.args))))
            .collect()
    }

    #[test]
    fn an_end_token_inside_a_json_string_is_part_of_it() {
        let text = "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"<｜tool▁call▁end｜>\"}\
                    <｜tool▁call▁end｜>";
        let found = calls(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 0..text.len());
        assert!(found[0].1.is_some());
    }

    #[test]
    fn a_tool_named_function_in_the_short_form() {
        let text = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜>";
        assert!(calls(text)[0].1.as_deref().unwrap().starts_with("function"));
    }

    #[test]
    fn many_begin_tokens_without_an_end_take_one_pass() {
        let text = "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"a\": [".repeat(30_000);
        assert_eq!(calls(&text), [(0..text.len(), None)]);
    }
}
