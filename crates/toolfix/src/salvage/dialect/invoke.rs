//! The `<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>` shape two
//! families share inside their own section tokens: MiniMax M2 (`<minimax:tool_call>`) and
//! DeepSeek's DSML (V3.2's `<｜DSML｜function_calls>`, V4's `<｜DSML｜tool_calls>`, V4.1's
//! `<｜DSML｜ calls>`, every tag prefixed with `｜DSML｜`).
//!
//! Each invoke of a section is a call; its span runs from its tag to its closer (the
//! first one's from the section's start, the last one's to the section's end). A value
//! ends where `xml_value` says (a closing tag inside code or inside an example call is
//! part of it) and is kept exactly. Only whitespace may separate parameters, invokes and
//! the section's tokens; anything else, a missing closer, or a reply cut off makes the
//! section malformed: no call, and its span stays reserved, to the section's closing
//! token or to the end of the reply. Values are text, typed by the tool's JSON schema
//! (`schema`); DSML's `string="true"` keeps a value as text whatever the schema says, and
//! `string="false"` reads it as JSON (a value that is not JSON is then typed as text).
//!
//! DSML's invoke may also close itself (`<｜DSML｜invoke name="NAME"/>`), which V4 writes
//! for a call without arguments (`Syntax::self_closing`); an invoke whose body is JSON
//! instead of parameters is malformed, as in DeepSeek's own decoder.

use memchr::memmem;

use super::super::payload::Payloads;
use super::super::schema::Written;
use super::super::span::Candidates;
use super::super::text::skip_space;
use super::Dialect;
use super::token::{at, find_near};
use super::xml_value::{End, Finder, ValueSyntax, Values, tag_at};
use crate::py::PyStr;

/// One family's tags.
pub struct Syntax {
    /// The section's opening and closing tokens.
    pub section: (&'static [u8], &'static [u8]),
    /// An invoke's tag up to its attributes (`<invoke`), and its closer.
    pub invoke: (&'static [u8], &'static [u8]),
    /// A parameter's tag up to its attributes (`<parameter`), and its closer.
    pub parameter: (&'static [u8], &'static [u8]),
    /// Where the values end: the parameter tags inside the invoke tags.
    pub values: ValueSyntax,
    /// The dialect reported.
    pub dialect: Dialect,
    /// Whether an invoke may close itself (`/>`): a call without arguments.
    pub self_closing: bool,
}

impl Syntax {
    /// The syntax of sections `section` holding invokes `invoke` holding parameters
    /// `parameter` (each an opener up to its attributes, or a token, and its closer),
    /// whose calls are reported as `dialect`.
    pub const fn new(
        section: (&'static str, &'static str),
        invoke: (&'static str, &'static str),
        parameter: (&'static str, &'static str),
        dialect: Dialect,
        self_closing: bool,
    ) -> Syntax {
        let invoke = (invoke.0.as_bytes(), invoke.1.as_bytes());
        let parameter = (parameter.0.as_bytes(), parameter.1.as_bytes());
        Syntax {
            section: (section.0.as_bytes(), section.1.as_bytes()),
            invoke,
            parameter,
            values: ValueSyntax {
                open: parameter.0,
                close: parameter.1,
                is_open_tag: |syntax, text, i| tag_at(text, i, syntax.open),
                follows: |syntax, text, i| {
                    tag_at(text, i, syntax.open) || at(text, i, syntax.outer_close).is_some()
                },
                outer_open: invoke.0,
                is_outer_open_tag: |syntax, text, i| tag_at(text, i, syntax.outer_open),
                outer_close: invoke.1,
                outer_follows: &[],
                line_tags: false,
            },
            dialect,
            self_closing,
        }
    }
}

/// Why a section makes no call.
enum Rejected {
    /// Something unexpected at the offset: the span ends at the next section closer.
    At(usize),
    /// The reply was cut off inside the section.
    CutOff,
}

/// Adds a candidate for every invoke of every section (or one rejected candidate for a
/// malformed section). Every section opener of `syntaxes` begins with `lead`: one search
/// for it finds the sections of all of them.
pub fn scan(payloads: &Payloads<'_>, lead: &[u8], syntaxes: &[Syntax], out: &mut Candidates) {
    let text = payloads.text();
    let mut closes: Vec<Option<Finder<'_>>> = syntaxes.iter().map(|_| None).collect();
    let mut resume = 0;
    for start in memmem::find_iter(text, lead) {
        if start < resume {
            continue;
        }
        let opens = |syntax: &Syntax| text[start..].starts_with(syntax.section.0);
        let Some(k) = syntaxes.iter().position(opens) else {
            continue;
        };
        let syntax = &syntaxes[k];
        let mut values = Values::new(text, &syntax.values);
        let mark = out.mark();
        let end = section(payloads, syntax, &mut values, start, out).unwrap_or_else(|rejected| {
            out.rewind(mark);
            match rejected {
                Rejected::At(from) => closes[k]
                    .get_or_insert_with(|| Finder::new(text, syntax.section.1))
                    .at_or_after(from)
                    .map_or(text.len(), |c| c + syntax.section.1.len()),
                Rejected::CutOff => text.len(),
            }
        });
        resume = end;
        if out.len() == mark.0 {
            out.push(start..end, syntax.dialect, None);
        }
        // The first call's span runs from the section's start, the last one's to its end.
        let calls = &mut out[mark.0..];
        if let [first, ..] = calls {
            first.span.start = start;
        }
        if let [.., last] = calls {
            last.span.end = end;
        }
    }
}

/// Reads the section opened at `start`, adding a candidate for each of its invokes to
/// `out` as it goes: where the section ends. A malformed one leaves what it added for the
/// caller to take back.
fn section(
    payloads: &Payloads<'_>,
    syntax: &Syntax,
    values: &mut Values<'_>,
    start: usize,
    out: &mut Candidates,
) -> Result<usize, Rejected> {
    let text = payloads.text();
    let mut i = skip_space(text, start + syntax.section.0.len());
    loop {
        if let Some(end) = at(text, i, syntax.section.1) {
            return Ok(end);
        }
        let (attributes, mut j) = tag(text, i, syntax.invoke.0).ok_or(Rejected::At(i))?;
        let name = attribute(attributes, b"name").ok_or(Rejected::At(i))?;
        let name = PyStr::from_generalized_utf8(name);
        if syntax.self_closing && attributes.trim_ascii_end().ends_with(b"/") {
            out.push(i..j, syntax.dialect, payloads.typed_call(name, Vec::new()));
            i = skip_space(text, j);
            continue;
        }
        let mut pairs = Vec::new();
        j = skip_space(text, j);
        let end = loop {
            if let Some(end) = at(text, j, syntax.invoke.1) {
                break end;
            }
            let (attributes, value) = tag(text, j, syntax.parameter.0).ok_or(Rejected::At(j))?;
            let key = attribute(attributes, b"name").ok_or(Rejected::At(j))?;
            let close = match values.end(value) {
                End::Value(close) => close,
                End::Outer(close) | End::Unclosed(close) | End::Next(close) | End::Stray(close) => {
                    return Err(Rejected::At(close));
                }
                End::Never => return Err(Rejected::CutOff),
            };
            let raw = &text[value..close];
            let written = match attribute(attributes, b"string") {
                Some(b"true") => Written::Text(PyStr::from_generalized_utf8(raw)),
                Some(b"false") => match payloads.loads(value..close).ok().flatten() {
                    Some(json) => Written::Value(json),
                    None => Written::Untyped(PyStr::from_generalized_utf8(raw)),
                },
                _ => Written::Untyped(PyStr::from_generalized_utf8(raw)),
            };
            pairs.push((PyStr::from_generalized_utf8(key), written));
            j = skip_space(text, close + syntax.parameter.1.len());
        };
        out.push(i..end, syntax.dialect, payloads.typed_call(name, pairs));
        i = skip_space(text, end);
    }
}

/// The tag `PREFIX attributes>` at `i`: its attributes and the end of the tag. The
/// attributes hold no `<`.
fn tag<'t>(text: &'t [u8], i: usize, prefix: &[u8]) -> Option<(&'t [u8], usize)> {
    if !tag_at(text, i, prefix) {
        return None;
    }
    let attributes = i + prefix.len();
    let gt = attributes + memchr::memchr2(b'>', b'<', &text[attributes..])?;
    (text[gt] == b'>').then(|| (&text[attributes..gt], gt + 1))
}

/// The value of attribute `key="…"` (or `'…'`) among `attributes`. The key is found by
/// its first byte, then compared: attributes are a few bytes, where setting up a
/// substring search costs more than the search (a flood of invokes reads one each).
pub fn attribute<'t>(attributes: &'t [u8], key: &[u8]) -> Option<&'t [u8]> {
    let mut rest = attributes;
    loop {
        let found = find_near(rest, key)?;
        let before_ok = found == 0 || rest[found - 1].is_ascii_whitespace();
        let after = &rest[found + key.len()..];
        if let (true, Some(after_eq)) = (before_ok, after.trim_ascii_start().strip_prefix(b"=")) {
            let quoted = after_eq.trim_ascii_start();
            let quote = *quoted.first()?;
            if quote == b'"' || quote == b'\'' {
                let len = memchr::memchr(quote, &quoted[1..])?;
                return Some(&quoted[1..1 + len]);
            }
        }
        rest = after;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{candidates_of, deepseek, minimax};
    use super::{Candidates, Payloads};

    /// The name of each candidate `scan` finds in `text` with `a` offered, `None` for a
    /// rejected one.
    fn names(scan: fn(&Payloads<'_>, &mut Candidates), text: &str) -> Vec<Option<String>> {
        candidates_of(&[scan], text, &["a"])
            .into_found()
            .map(|(_, found)| found.map(|f| f.name.to_string()))
            .collect()
    }

    #[test]
    fn only_dsml_invokes_close_themselves() {
        let dsml = "<｜DSML｜ calls><｜DSML｜ invoke name=\"a\" /></｜DSML｜ calls>";
        assert_eq!(names(deepseek::scan, dsml), [Some("a".to_owned())]);
        let minimax = "<minimax:tool_call><invoke name=\"a\"/></minimax:tool_call>";
        assert_eq!(names(minimax::scan, minimax), [None]);
    }

    #[test]
    fn one_search_finds_each_version_in_text_order() {
        let text = "<｜DSML｜ calls><｜DSML｜ invoke name=\"a\"/></｜DSML｜ calls>\
                    <｜DSML｜ <｜DSML｜tool_calls><｜DSML｜invoke name=\"a\"/></｜DSML｜tool_calls>\
                    <｜DSML｜function_calls><｜DSML｜invoke name=\"a\"/></｜DSML｜function_calls>";
        assert_eq!(names(deepseek::scan, text), vec![Some("a".to_owned()); 3]);
    }
}
