//! The reading: a reply cut into a template's regions, once, left to right.
//!
//! Outside every region (in the implicit field, or in no field) the reading looks for the
//! earliest of every field's open, the implicit field's close and a Markdown fence, as
//! transformers' `ResponseParser` looks for its delimiters at the end of a reply
//! (`finalize`): the earliest start wins, then the longest match, then an open before a
//! close, then the field's name. A fence wins a tie: it runs to its close as the one-pass
//! core reads fences (`fence`), and nothing in it opens a region. Inside a region only its
//! close is looked for; a region with none runs to the end of the reply.
//!
//! Each pattern's next match is kept until a region passes its start, so no text is
//! searched twice by one pattern unless a region consumed a match of it: linear in the
//! reply for anchors of bounded length.

use std::ops::Range;

use super::Template;
use super::anchor::{Pattern, Search, Slots};
use super::groups::span;
use super::shape::{Parsed, Written};
use crate::profile::{JsonSite, Profile};
use crate::py::json::{
    DecodeLimits, raw_check, raw_decode_after, skip_whitespace, transcode_flat_first,
};
use crate::py::{Dict, PyStr, Value};
use crate::salvage::fence::next_fence;

/// One region of a field: where it is and the text between its open and its close.
#[derive(Clone, Debug, PartialEq)]
pub struct Region<'t> {
    /// The field's index in the template.
    pub field: usize,
    /// From the start of its open to the end of its close (or of the reply).
    pub span: Range<usize>,
    /// The text between them.
    pub body: Range<usize>,
    /// The open pattern's named groups.
    pub captures: Captures<'t>,
    /// Whether its close was found: a region without one runs to the end of the reply.
    pub closed: bool,
    /// Its text read as its field reads it, when that is plain JSON and the text is one
    /// object or array alone: read while the close was looked for (`leading_json`), so
    /// the content parser does not read it again.
    pub value: Option<Parsed<'t>>,
}

/// The named groups of a region's open, kept as where they matched: the dict of them a
/// transform's scope starts from is built only where a transform needs one (a call read
/// from plain JSON or written tags takes its name from its group directly).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Captures<'t> {
    text: &'t [u8],
    /// The open's slots (`Pattern::groups`); empty when it has no named group.
    slots: Slots,
}

impl<'t> Captures<'t> {
    /// The text of group `index`, when it took part in the match.
    pub fn group(&self, index: usize) -> Option<PyStr> {
        span(&self.slots, index).map(|span| PyStr::from_generalized_utf8(&self.text[span]))
    }

    /// The named groups that took part in the match of `open`, the pattern they are of,
    /// as a dict from each name to its text.
    pub fn dict(&self, open: Option<&Pattern>) -> Dict {
        let mut out = Dict::default();
        let Some(open) = open.filter(|_| !self.slots.is_empty()) else {
            return out;
        };
        for (i, name) in open.regex.capture_names().enumerate() {
            if let (Some(name), Some(value)) = (name, self.group(i)) {
                out.insert(PyStr::from(name), Value::Str(value));
            }
        }
        out
    }
}

/// What the reading may meet outside a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// A fence: its whole range is prose.
    Fence,
    /// A field's open.
    Open(usize),
    /// The implicit field's close.
    ImplicitClose,
}

/// The next match of one mark, kept while it lies ahead.
#[derive(Clone, Debug)]
struct Ahead {
    mark: Mark,
    /// `None` until searched; then the next match, or `Some(None)` when there is none.
    next: Option<Option<Range<usize>>>,
    /// Its pattern's searches, which keep the groups of `next` where a walk found it.
    search: Search,
}

/// Every region of `text` as `template` reads it, in text order.
#[cfg(test)]
pub fn regions<'t>(text: &'t [u8], template: &Template) -> Vec<Region<'t>> {
    let mut out = Vec::new();
    each_region(text, template, |region| out.push(region));
    out
}

/// Gives `visit` every region of `text` as `template` reads it, in text order, each as it
/// is found: a reply of thousands of calls is not first gathered into a list of them.
pub fn each_region<'t>(text: &'t [u8], template: &Template, mut visit: impl FnMut(Region<'t>)) {
    let mut marks: Vec<Ahead> = std::iter::once(Mark::Fence)
        .chain(
            (0..template.fields.len())
                .filter(|&i| template.fields[i].open.is_some())
                .map(Mark::Open),
        )
        .chain(implicit_close(template).map(|_| Mark::ImplicitClose))
        .map(|mark| Ahead {
            mark,
            next: None,
            search: Search::default(),
        })
        .collect();
    let mut pos = 0;
    while let Some((i, found)) = earliest(text, pos, template, &mut marks) {
        let ahead = &mut marks[i];
        match ahead.mark {
            Mark::Fence => pos = found.end,
            // A zero-width close makes no progress: transformers stops reading there.
            Mark::ImplicitClose if found.is_empty() => break,
            Mark::ImplicitClose => pos = found.end,
            Mark::Open(field) => {
                let open = template.fields[field].open.as_ref();
                let captures = open.map_or_else(Captures::default, |p| {
                    captures(p, text, found.clone(), &mut ahead.search)
                });
                let bound = json_bound(text, template, field, &found, &mut ahead.search);
                if let Some(next) = &bound {
                    ahead.next = Some(next.clone());
                }
                let limit = bound.map(|next| next.map_or(text.len(), |m| m.start));
                let region = region(text, template, field, found, captures, limit);
                if region.span.is_empty() {
                    break;
                }
                pos = region.span.end;
                visit(region);
            }
        }
    }
}

/// The implicit field's close pattern, if it has one.
fn implicit_close(template: &Template) -> Option<&Pattern> {
    template.fields[template.implicit?].close.as_ref()
}

/// The mark whose next match from `pos` comes first, by transformers' order: its index
/// in `marks`, and the match.
fn earliest(
    text: &[u8],
    pos: usize,
    template: &Template,
    marks: &mut [Ahead],
) -> Option<(usize, Range<usize>)> {
    let mut best: Option<(usize, Mark, Range<usize>)> = None;
    for (i, ahead) in marks.iter_mut().enumerate() {
        let kept = |next: &Option<Range<usize>>| next.as_ref().is_none_or(|m| m.start >= pos);
        if ahead.next.as_ref().is_none_or(|next| !kept(next)) {
            ahead.next = Some(search(text, pos, template, ahead.mark, &mut ahead.search));
        }
        let Some(Some(found)) = &ahead.next else {
            continue;
        };
        let key = |(_, mark, m): &(usize, Mark, Range<usize>)| order_key(template, *mark, m);
        let candidate = (i, ahead.mark, found.clone());
        if best.as_ref().is_none_or(|b| key(&candidate) < key(b)) {
            best = Some(candidate);
        }
    }
    best.map(|(i, _, found)| (i, found))
}

/// The order transformers picks a delimiter in: earliest start, longest, opens before
/// closes, then by field name; a fence before anything starting with it.
fn order_key<'t>(
    template: &'t Template,
    mark: Mark,
    m: &Range<usize>,
) -> (usize, u8, std::cmp::Reverse<usize>, u8, &'t str) {
    let (rank, kind, name) = match mark {
        Mark::Fence => (0, 0, ""),
        Mark::Open(field) => (1, 0, template.names[field].as_str()),
        Mark::ImplicitClose => (1, 1, ""),
    };
    (m.start, rank, std::cmp::Reverse(m.len()), kind, name)
}

#[cfg(test)]
thread_local! {
    /// How many times `search` ran: what the linearity test counts.
    static SEARCHES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The next match of `mark` at or after `pos`, its pattern's groups kept in `search`
/// where a walk found it.
fn search(
    text: &[u8],
    pos: usize,
    template: &Template,
    mark: Mark,
    search: &mut Search,
) -> Option<Range<usize>> {
    #[cfg(test)]
    SEARCHES.with(|n| n.set(n.get() + 1));
    match mark {
        Mark::Fence => next_fence(text, pos),
        Mark::Open(field) => template.fields[field]
            .open
            .as_ref()?
            .find_at(text, pos, search),
        Mark::ImplicitClose => implicit_close(template)?.find_at(text, pos, search),
    }
}

/// The region of `field` whose open matched at `open`: to its close, or to the end of
/// the reply.
fn region<'t>(
    text: &'t [u8],
    template: &Template,
    field: usize,
    open: Range<usize>,
    captures: Captures<'t>,
    json_limit: Option<usize>,
) -> Region<'t> {
    let declared = &template.fields[field];
    let plain = declared.args.reads_plain_json(declared.parser);
    let json = json_limit.and_then(|limit| leading_json(text, &open, limit, plain));
    let from = json.as_ref().map_or(open.end, |(_, end)| *end);
    let close = declared
        .close
        .as_ref()
        .and_then(|close| close.find_from(text, from));
    let (body_end, end) = close
        .clone()
        .map_or((text.len(), text.len()), |c| (c.start, c.end));
    let value = json
        .and_then(|(value, end)| value.filter(|_| skip_whitespace(text, end) >= body_end))
        .filter(Parsed::is_container);
    Region {
        field,
        span: open.start..end,
        body: open.end..body_end,
        captures,
        closed: close.is_some(),
        value,
    }
}

/// For a field that reads only whole JSON, the next match of its open after the one at
/// `open`: how far the region's JSON value may run (`close_from`). `None` for any other
/// field. The reading keeps it as the open's next match, so it is not searched again.
fn json_bound(
    text: &[u8],
    template: &Template,
    field: usize,
    open: &Range<usize>,
    searched: &mut Search,
) -> Option<Option<Range<usize>>> {
    let declared = &template.fields[field];
    declared.args.reads_only_whole(declared.parser).then(|| {
        let after = open.end.max(open.start + 1);
        search(text, after, template, Mark::Open(field), searched)
    })
}

/// The JSON value the text of the region whose open matched at `open` starts with, for a
/// field that reads only whole JSON (`json_limit`, the field's next open), and where it
/// ends: the close is looked for after it, so that a closing token written inside a string
/// does not cut the value (a close counts where the format's next token can follow it).
/// Without one (the text is not JSON up to the next open), the close is looked for right
/// after the open, as transformers looks. The value is read only when the field reads
/// `plain` JSON, whose value it is (written as `json.dumps` writes it when that is a copy
/// of the text, decoded otherwise); otherwise only its end is found.
///
/// No other region of the field starts before its next open, so each byte is scanned as
/// JSON at most once.
fn leading_json<'t>(
    text: &'t [u8],
    open: &Range<usize>,
    json_limit: usize,
    plain: bool,
) -> Option<(Option<Parsed<'t>>, usize)> {
    if json_limit <= open.end {
        return None;
    }
    let body = &text[..json_limit];
    let limits = Profile::Strict.json_limits(JsonSite::Tag);
    let start = skip_whitespace(body, open.end);
    if !plain {
        return raw_check(body, start, limits).ok().map(|end| (None, end));
    }
    if let Some((elements, end)) = written_elements(body, start, limits) {
        return Some((Some(Parsed::Elements(elements)), end));
    }
    match transcode_flat_first(body, start, limits) {
        Ok(json) => {
            let end = json.end;
            Some((Some(Parsed::Written(Written { json, source: body })), end))
        }
        Err(gave_up) => raw_decode_after(gave_up, body, start, limits)
            .ok()
            .map(|(value, end)| (Some(Parsed::Value(value)), end)),
    }
}

/// The list at `start` of `text`, when each of its elements is plain JSON (the calls of a
/// format that writes them as a list), each element written as `json.dumps` writes it,
/// and where the list ends; `None` for anything else, which the decoder then reads (and
/// rejects where it must: a trailing comma stops this reading too).
fn written_elements(
    text: &[u8],
    start: usize,
    limits: DecodeLimits,
) -> Option<(Vec<Written<'_>>, usize)> {
    if text.get(start) != Some(&b'[') || limits.max_depth == 0 {
        return None;
    }
    let inner = DecodeLimits {
        max_depth: limits.max_depth - 1,
        ..limits
    };
    let mut elements = Vec::new();
    let mut at = skip_whitespace(text, start + 1);
    if text.get(at) == Some(&b']') {
        return Some((elements, at + 1));
    }
    loop {
        let json = transcode_flat_first(text, at, inner).ok()?;
        at = skip_whitespace(text, json.end);
        elements.push(Written { json, source: text });
        match text.get(at)? {
            b',' => at = skip_whitespace(text, at + 1),
            b']' => return Some((elements, at + 1)),
            _ => return None,
        }
    }
}

/// The named groups of `pattern`'s match at `found`, which `search` found.
fn captures<'t>(
    pattern: &Pattern,
    text: &'t [u8],
    found: Range<usize>,
    search: &mut Search,
) -> Captures<'t> {
    if pattern.group_names().next().is_none() {
        return Captures::default();
    }
    let slots = Slots::from_slice(pattern.groups_found(text, found, search));
    Captures { text, slots }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(json: &str) -> Template {
        Template::from_json(json).unwrap()
    }

    const TAGS: &str = r#"{"fields": {
        "reasoning_content": {"open": "<think>", "close": "</think>"},
        "tool_calls": {"open": "<call>", "close": "</call>", "content": "json"},
        "content": {"close": "<end>"}
    }}"#;

    fn spans(text: &str, template: &Template) -> Vec<(String, &'static str)> {
        regions(text.as_bytes(), template)
            .into_iter()
            .map(|r| {
                let name = match template.names[r.field].as_str() {
                    "tool_calls" => "calls",
                    "reasoning_content" => "reasoning",
                    _ => "other",
                };
                (text[r.body].to_string(), name)
            })
            .collect()
    }

    #[test]
    fn a_close_quoted_in_a_json_string_does_not_end_the_region() {
        let t = template(TAGS);
        let text = r#"<call>{"a": "x</call>y"}</call> <call>{"b": "cut</call>"#;
        let bodies: Vec<String> = spans(text, &t).into_iter().map(|(b, _)| b).collect();
        // The second value does not end before the reply does: its first close ends it.
        assert_eq!(bodies, [r#"{"a": "x</call>y"}"#, r#"{"b": "cut"#]);
    }

    #[test]
    fn a_json_value_is_looked_for_only_up_to_the_fields_next_open() {
        let t = template(TAGS);
        let text = r#"<call>{"a": "<call>{}</call>"}</call>"#;
        let bodies: Vec<String> = spans(text, &t).into_iter().map(|(b, _)| b).collect();
        // An open quoted inside the value bounds it, so the value is cut there and the
        // first close ends the region, as transformers reads it.
        assert_eq!(bodies, [r#"{"a": "<call>{}"#]);
    }

    #[test]
    fn regions_come_in_text_order_and_never_nest() {
        let t = template(TAGS);
        let text = "a<think>x<call>no</call></think>b<call>1</call><call>2";
        let found = spans(text, &t);
        let bodies = [
            ("x<call>no</call>", "reasoning"),
            ("1", "calls"),
            ("2", "calls"),
        ];
        assert_eq!(found, bodies.map(|(b, n)| (b.to_string(), n)));
    }

    #[test]
    fn nothing_in_a_fence_opens_a_region() {
        let t = template(TAGS);
        let text =
            "```\n<call>1</call>\n```\n~~~~<call>2</call>~~~<call>3</call>~~~~<call>4</call>";
        assert_eq!(spans(text, &t), [("4".to_string(), "calls")]);
    }

    #[test]
    fn a_fence_inside_a_region_is_the_regions_text() {
        let t = template(TAGS);
        let text = "<call>```</call><call>2</call>";
        assert_eq!(spans(text, &t).len(), 2);
    }

    #[test]
    fn the_implicit_close_consumes_its_text() {
        let t = template(TAGS);
        assert_eq!(spans("x<en<end><call>1</call>", &t).len(), 1);
    }

    #[test]
    fn ties_go_to_the_longest_match_then_opens_then_names() {
        let t = template(
            r#"{"fields": {
                "tool_calls": {"open": ["<c", "<call>"], "close": "</c>"},
                "b": {"open": "<c", "close": "</b>"}
            }}"#,
        );
        let found = regions(b"<call>x</c>", &t);
        assert_eq!(t.names[found[0].field], "tool_calls");
        assert_eq!(found[0].body, 6..7);
        let found = regions(b"<cx</b>", &t);
        assert_eq!(t.names[found[0].field], "b");
    }

    #[test]
    fn zero_width_anchors_end_the_reading_instead_of_looping() {
        let t =
            template(r#"{"fields": {"tool_calls": {"open_pattern": "", "close_pattern": ""}}}"#);
        assert!(regions(b"abc", &t).is_empty());
        let t = template(
            r#"{"fields": {"tool_calls": {"open": "<c>"}, "content": {"close_pattern": "^"}}}"#,
        );
        assert!(regions(b"a<c>1", &t).is_empty());
        assert_eq!(regions(b"<c>1", &t).len(), 1);
    }

    #[test]
    fn captures_are_the_open_patterns_named_groups() {
        let t = template(
            r#"{"fields": {"tool_calls": {"open_pattern": "<(?P<name>\\w+)>", "close": "</>",
               "transform": {"name": "{name}"}}}}"#,
        );
        let found = regions("<héllo>1</>".as_bytes(), &t);
        let captures = found[0].captures.dict(t.fields[0].open.as_ref());
        let name = captures.get(&PyStr::from("name")).cloned();
        assert!(matches!(name, Some(Value::Str(s)) if s.as_str() == Some("héllo")));
    }

    /// A mark whose next match lies ahead is not searched for again: the searches a reading
    /// makes grow with the regions it finds, never with the regions times the marks far
    /// ahead (which would search the text again at every region).
    #[test]
    fn a_mark_far_ahead_is_searched_for_once() {
        let t = template(TAGS);
        let mut text = "<call>1</call>".repeat(2000);
        text.push_str("<think>x</think>");
        SEARCHES.with(|n| n.set(0));
        let found = regions(text.as_bytes(), &t);
        assert_eq!(found.len(), 2001);
        // The fence and `<end>` once each, `<call>` once per region and once more to find
        // none, `<think>` once to find it and once past it.
        assert_eq!(SEARCHES.with(|n| n.get()), 2 + 2001 + 2);
    }
}
