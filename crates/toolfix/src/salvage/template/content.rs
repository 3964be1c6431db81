//! Content parsers: how a region's text becomes a value (`content_parsers.py` of
//! transformers 5.23), each linear in the text.

use std::ops::Range;

use memchr::memmem;
use serde::Deserialize;
use smallvec::SmallVec;

use super::anchor::Pattern;
use super::groups::span;
use super::shape::Parsed;
use crate::profile::{JsonSite, Profile};
use crate::py::json::{dump_into, dumps, loads, write_key, write_str};
use crate::py::pystr::decode_code_point;
use crate::py::unicode::{self, is_word};
use crate::py::{Dict, PyInt, PyStr, Value};

/// A content parser, by its name in the template.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum Parser {
    /// The text, stripped unless `strip` is false.
    #[default]
    #[serde(rename = "text")]
    Text,
    /// `int(text)`.
    #[serde(rename = "int")]
    Int,
    /// `float(text)`.
    #[serde(rename = "float")]
    Float,
    /// Whether the stripped text is `true` or `1`, in any case.
    #[serde(rename = "bool")]
    Bool,
    /// JSON, with the knobs for what models write: unquoted keys, strings between custom
    /// delimiters, and text kept as is when it is not JSON.
    #[serde(rename = "json")]
    Json,
    /// Shallow tags, one key and value per match of `tag_pattern`.
    #[serde(rename = "xml-inline")]
    XmlInline,
    /// `key<sep>value` lines.
    #[serde(rename = "kv-lines")]
    KvLines,
}

/// A parser's arguments (`content_args`); each parser reads the ones it knows.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    strip: Option<bool>,
    #[serde(default)]
    unquoted_keys: bool,
    #[serde(default)]
    string_delims: Vec<[String; 2]>,
    #[serde(default)]
    allow_non_json: bool,
    tag_pattern: Option<Pattern>,
    value_parser: Option<Box<ValueParser>>,
    #[serde(default)]
    merge_duplicates: bool,
    line_sep: Option<String>,
    kv_sep: Option<String>,
}

/// The parser of each value of `xml-inline` and `kv-lines`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueParser {
    #[serde(default)]
    name: Parser,
    #[serde(default)]
    args: Args,
}

impl Args {
    /// What transformers would only find out on the first reply: `xml-inline` without a
    /// `tag_pattern` that captures `key`, an empty delimiter or separator.
    pub fn check(&self, parser: Parser) -> Result<(), String> {
        if parser == Parser::XmlInline {
            let pattern = self.tag_pattern.as_ref();
            let named = pattern.is_some_and(|p| p.group_names().any(|n| n == "key"));
            if !named {
                return Err("xml-inline needs a 'tag_pattern' with a named group 'key'".into());
            }
        }
        let delims = self.string_delims.iter().flatten();
        let separators = self.line_sep.iter().chain(&self.kv_sep);
        if delims.chain(separators).any(String::is_empty) {
            return Err("a string delimiter or separator cannot be empty".into());
        }
        match &self.value_parser {
            Some(inner) => inner.args.check(inner.name),
            None => Ok(()),
        }
    }

    /// Whether `parser` with these arguments reads a text only when it is whole, so that a
    /// region whose close never came is a call only when it reads: strict JSON does; a
    /// tag or line reader, or JSON that falls back to text, reads any prefix of a cut call.
    pub fn reads_only_whole(&self, parser: Parser) -> bool {
        parser == Parser::Json && !self.allow_non_json
    }

    /// Whether `parser` with these arguments reads whole JSON as written, with no string
    /// delimiter or bare key to rewrite first: a value decoded from the reply's own bytes
    /// is then the one it reads.
    pub fn reads_plain_json(&self, parser: Parser) -> bool {
        self.reads_only_whole(parser) && self.string_delims.is_empty() && !self.unquoted_keys
    }

    fn strips(&self) -> bool {
        self.strip.unwrap_or(true)
    }
}

/// `text` read by `parser`: `None` where transformers raises.
pub fn parse(parser: Parser, args: &Args, text: &[u8]) -> Option<Value> {
    match parser {
        Parser::Text => Some(Value::Str(PyStr::from_generalized_utf8(stripped(
            args, text,
        )))),
        Parser::Int => int(stripped(args, text)),
        Parser::Float => float(stripped(args, text)),
        Parser::Bool => {
            let lower = stripped(args, text).to_ascii_lowercase();
            Some(Value::Bool(lower == b"true" || lower == b"1"))
        }
        Parser::Json => json_content(args, text),
        Parser::XmlInline => xml_inline(args, text),
        Parser::KvLines => kv_lines(args, text),
    }
}

/// The text, stripped of whitespace at both ends (`str.strip()`) when `args` says so.
fn stripped<'t>(args: &Args, text: &'t [u8]) -> &'t [u8] {
    match args.strips() {
        true => unicode::strip(text),
        false => text,
    }
}

/// `int(text)` of ASCII digits, a sign and single underscores between digits.
fn int(text: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(text).ok()?;
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let well_placed = !unsigned.starts_with('_')
        && !unsigned.ends_with('_')
        && !unsigned.contains("__")
        && unsigned.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if unsigned.is_empty() || !well_placed {
        return None;
    }
    let digits: String = text.chars().filter(|&c| c != '_' && c != '+').collect();
    PyInt::from_decimal(&digits).map(Value::Int)
}

/// `float(text)` of an ASCII numeral, `inf` or `nan`.
fn float(text: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(text).ok()?;
    let plain = text.trim_start_matches(['+', '-']);
    let word = plain.eq_ignore_ascii_case("inf")
        || plain.eq_ignore_ascii_case("infinity")
        || plain.eq_ignore_ascii_case("nan");
    let numeral = plain.bytes().any(|b| b.is_ascii_digit())
        && plain
            .bytes()
            .all(|b| b.is_ascii_digit() || b"._eE+-".contains(&b));
    match (word || numeral) && text.len() - plain.len() <= 1 {
        true => text.replace('_', "").parse().ok().map(Value::Float),
        false => None,
    }
}

/// `_json`: strings between custom delimiters taken out, bare keys quoted, the rest read
/// as JSON; the text itself when that fails and `allow_non_json` is set.
fn json_content(args: &Args, text: &[u8]) -> Option<Value> {
    let (reserved_open, reserved_close) = (0x01, 0x02);
    let has_reserved = memchr::memchr2(reserved_open, reserved_close, text).is_some();
    if !args.string_delims.is_empty() && has_reserved {
        return None;
    }
    let mut working = text.to_vec();
    let mut captured: Vec<Vec<u8>> = Vec::new();
    for [open, close] in &args.string_delims {
        working = take_strings(&working, open.as_bytes(), close.as_bytes(), &mut captured);
    }
    if args.unquoted_keys {
        working = quote_bare_keys(&working);
    }
    let working = restore_strings(&working, &captured);
    let limits = Profile::Strict.json_limits(JsonSite::Tag);
    match loads(&working, limits) {
        Ok(value) => Some(value),
        Err(_) if args.allow_non_json => parse(Parser::Text, args, text),
        Err(_) => None,
    }
}

/// `re.sub(escape(open) + "(.*?)" + escape(close), …)`: each delimited string replaced by
/// a numbered placeholder between the two reserved bytes, its text kept in `captured`.
fn take_strings(text: &[u8], open: &[u8], close: &[u8], captured: &mut Vec<Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while let Some(at) = memmem::find(&text[i..], open).map(|at| i + at) {
        let body = at + open.len();
        let Some(end) = memmem::find(&text[body..], close).map(|end| body + end) else {
            break;
        };
        out.extend_from_slice(&text[i..at]);
        out.push(0x01);
        out.extend_from_slice(captured.len().to_string().as_bytes());
        out.push(0x02);
        captured.push(text[body..end].to_vec());
        i = end + close.len();
    }
    out.extend_from_slice(&text[i..]);
    out
}

/// `re.sub(r"(?<=[{,])(\w+):", r'"\1":', text)`: a run of word characters right after
/// `{` or `,` and right before `:` is quoted.
fn quote_bare_keys(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < text.len() {
        let after_opener = i > 0 && matches!(text[i - 1], b'{' | b',');
        let run = match after_opener {
            true => word_run_end(text, i),
            false => i,
        };
        if run > i && text.get(run) == Some(&b':') {
            out.push(b'"');
            out.extend_from_slice(&text[i..run]);
            out.extend_from_slice(b"\":");
            i = run + 1;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// The end of the run of word characters (`\w`) starting at `i`.
fn word_run_end(text: &[u8], mut i: usize) -> usize {
    while let Some((cp, len)) = decode_code_point(&text[i..]) {
        if !is_word(cp) {
            break;
        }
        i += len;
    }
    i
}

/// Each placeholder back as the JSON string of the text it took out.
fn restore_strings(text: &[u8], captured: &[Vec<u8>]) -> Vec<u8> {
    if captured.is_empty() {
        return text.to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while let Some(at) = memchr::memchr(0x01, &text[i..]).map(|at| i + at) {
        out.extend_from_slice(&text[i..at]);
        let digits_end = text[at + 1..]
            .iter()
            .position(|&b| b == 0x02)
            .map(|n| at + 1 + n);
        let index = digits_end
            .and_then(|end| std::str::from_utf8(&text[at + 1..end]).ok())
            .and_then(|digits| digits.parse::<usize>().ok());
        match (index.and_then(|n| captured.get(n)), digits_end) {
            (Some(string), Some(end)) => {
                let string = Value::Str(PyStr::from_generalized_utf8(string));
                out.extend_from_slice(dumps(&string).unwrap_or_default().as_bytes());
                i = end + 1;
            }
            _ => {
                out.push(0x01);
                i = at + 1;
            }
        }
    }
    out.extend_from_slice(&text[i..]);
    out
}

/// `_xml_inline`: a key and a value from each match of `tag_pattern`.
///
/// Unlike transformers, text that no match covers (other than whitespace) makes the
/// content unreadable: it is what is left of a cut or malformed value, and a call without
/// it would reach the tool with an argument dropped (G4).
fn xml_inline(args: &Args, text: &[u8]) -> Option<Value> {
    tags_dict(args, text, &tags(args, text)?)
}

/// `_xml_inline`'s dict as `json.dumps` writes it, written from the tags with no dict
/// built and written again, when no key repeats: a tag template's arguments, which were
/// most of what its call cost. Otherwise the dict, as `parse` reads it; `None` where
/// `parse` gives none.
pub fn xml_inline_written(args: &Args, text: &[u8]) -> Option<Parsed<'static>> {
    let tags = tags(args, text)?;
    if repeats_a_key(text, &tags) {
        return tags_dict(args, text, &tags).map(Parsed::Value);
    }
    let mut out = String::with_capacity(text.len() + 8);
    out.push('{');
    for (i, tag) in tags.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_key(&mut out, &text[tag.key.clone()]);
        match tag.value() {
            Some(value) => write_value(args, &text[value], &mut out)?,
            None => out.push_str("null"),
        }
    }
    out.push('}');
    Some(Parsed::Object(PyStr::from(out)))
}

/// A tag's value through `value_parser`, as `json.dumps` writes it; a text written
/// straight from the tag. `None` where the value cannot be read (or, which no parsed
/// value is, written).
fn write_value(args: &Args, raw: &[u8], out: &mut String) -> Option<()> {
    match args.value_parser.as_deref() {
        None => write_str(out, raw),
        Some(ValueParser {
            name: Parser::Text,
            args,
        }) => write_str(out, stripped(args, raw)),
        Some(ValueParser { name, args }) => dump_into(out, &parse(*name, args, raw)?).ok()?,
    }
    Some(())
}

/// One match of `tag_pattern`: where its key is, and its value (`value`).
struct Tag {
    key: Range<usize>,
    /// `None` without a `value` group; `Some(None)` where the group took no part.
    value: Option<Option<Range<usize>>>,
}

impl Tag {
    /// Its value's text, `None` when the `value` group took no part (a `null`); a
    /// pattern without one gives each key the empty text.
    fn value(&self) -> Option<Range<usize>> {
        match &self.value {
            Some(value) => value.clone(),
            None => Some(0..0),
        }
    }
}

/// Every match of `tag_pattern` in `text`, in order, when the matches cover it but for
/// whitespace and each has its key; `None` otherwise.
fn tags(args: &Args, text: &[u8]) -> Option<SmallVec<[Tag; 4]>> {
    let pattern = args.tag_pattern.as_ref()?;
    let key_group = pattern.group_index("key")?;
    let value_group = pattern.group_index("value");
    let mut out = SmallVec::new();
    let mut covered = 0;
    pattern.each_match(text, |whole, slots| {
        if !is_blank(&text[covered..whole.start]) {
            return None;
        }
        covered = whole.end;
        let key = span(slots, key_group)?;
        let value = value_group.map(|g| span(slots, g));
        out.push(Tag { key, value });
        Some(())
    })?;
    is_blank(&text[covered..]).then_some(out)
}

/// The dict of `tags`, each value through `value_parser`; `None` where one cannot be read.
fn tags_dict(args: &Args, text: &[u8], tags: &[Tag]) -> Option<Value> {
    let mut out = Dict::default();
    for tag in tags {
        let key = PyStr::from_generalized_utf8(&text[tag.key.clone()]);
        let value = match tag.value() {
            Some(value) => sub_parse(args, &text[value])?,
            None => Value::None,
        };
        insert(&mut out, key, value, args.merge_duplicates);
    }
    Some(Value::Dict(out))
}

/// Whether two of `tags` have one key: compared pairwise when there are few, through a
/// set otherwise, so that many keys cost linear time.
fn repeats_a_key(text: &[u8], tags: &[Tag]) -> bool {
    let key = |tag: &Tag| &text[tag.key.clone()];
    if tags.len() <= 8 {
        return (1..tags.len()).any(|i| tags[..i].iter().any(|t| key(t) == key(&tags[i])));
    }
    let mut seen = std::collections::HashSet::with_capacity(tags.len());
    !tags.iter().all(|tag| seen.insert(key(tag)))
}

/// Whether `text` is only whitespace.
fn is_blank(text: &[u8]) -> bool {
    unicode::strip(text).is_empty()
}

/// `_kv_lines`: a key and a value from each line that holds the separator.
fn kv_lines(args: &Args, text: &[u8]) -> Option<Value> {
    let line_sep = args.line_sep.as_deref().unwrap_or("\n").as_bytes();
    let kv_sep = args.kv_sep.as_deref().unwrap_or(":").as_bytes();
    let mut out = Dict::default();
    let mut rest = text;
    loop {
        let (line, next) = match memmem::find(rest, line_sep) {
            Some(at) => (&rest[..at], Some(&rest[at + line_sep.len()..])),
            None => (rest, None),
        };
        let line = stripped(args, line);
        if let Some(at) = memmem::find(line, kv_sep) {
            let key = PyStr::from_generalized_utf8(stripped(args, &line[..at]));
            let value = sub_parse(args, stripped(args, &line[at + kv_sep.len()..]))?;
            out.insert(key, value);
        }
        match next {
            Some(next) => rest = next,
            None => break,
        }
    }
    Some(Value::Dict(out))
}

/// A value through `value_parser`, or as its text without one.
fn sub_parse(args: &Args, raw: &[u8]) -> Option<Value> {
    match &args.value_parser {
        Some(inner) => parse(inner.name, &inner.args, raw),
        None => Some(Value::Str(PyStr::from_generalized_utf8(raw))),
    }
}

/// `out[key] = value`, or with `merge`, every value of a repeated key in a list.
fn insert(out: &mut Dict, key: PyStr, value: Value, merge: bool) {
    match out.get_mut(&key) {
        Some(Value::List(values)) if merge => values.push(value),
        Some(previous) if merge => {
            let first = std::mem::replace(previous, Value::None);
            *previous = Value::List(vec![first, value]);
        }
        _ => {
            out.insert(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_args(source: &str) -> Args {
        serde_json::from_str(source).unwrap()
    }

    #[test]
    fn bare_keys_are_quoted_after_a_brace_or_a_comma_only() {
        let out = quote_bare_keys(b"{city:\"Paris\",n:1,\"x\":\"a,b:c\"}");
        assert_eq!(out, b"{\"city\":\"Paris\",\"n\":1,\"x\":\"a,\"b\":c\"}");
    }

    #[test]
    fn gemma_strings_are_taken_out_and_restored_as_json() {
        let args = json_args(r#"{"unquoted_keys": true, "string_delims": [["<|\"|>", "<|\"|>"]]}"#);
        let value = parse(Parser::Json, &args, b"{city:<|\"|>Par\"is, x:y<|\"|>}").unwrap();
        assert_eq!(
            value
                .get("city")
                .and_then(Value::as_py_str)
                .unwrap()
                .as_str(),
            Some("Par\"is, x:y")
        );
    }

    #[test]
    fn reserved_bytes_refuse_delimited_json() {
        let args = json_args(r#"{"string_delims": [["<", ">"]]}"#);
        assert!(parse(Parser::Json, &args, b"{\"a\": \"\x01\"}").is_none());
    }

    #[test]
    fn xml_inline_text_no_tag_covers_reads_as_nothing() {
        let args = json_args(r#"{"tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</\\w+>"}"#);
        let read = |t: &str| parse(Parser::XmlInline, &args, t.as_bytes());
        assert!(read(" <to>ana</to>\n<body>hi</body> ").is_some());
        // What is left of a value cut short: a call without it would drop an argument.
        assert!(read("<to>ana</to><body>end with ").is_none());
    }

    /// The arguments written from the tags are the dict `xml_inline` reads, as
    /// `json.dumps` writes it, whatever the value parser, however the keys repeat.
    #[test]
    fn xml_inline_written_is_the_dict_read_and_dumped() {
        let patterns = [
            r#"<(?P<key>\\w+)>(?P<value>[^<]*)</\\w+>"#,
            r#"<(?P<key>\\w+)(?:=(?P<value>[^/]*))?/>"#,
            r#"<(?P<key>\\w+)/>"#,
        ];
        let parsers = [
            "",
            r#", "value_parser": {"name": "text", "args": {"strip": false}}"#,
            r#", "value_parser": {"name": "text"}"#,
            r#", "value_parser": {"name": "json", "args": {"allow_non_json": true}}"#,
            r#", "value_parser": {"name": "int"}"#,
        ];
        let bodies = [
            "",
            " <a>1</a>\n<b> x\"\\é\u{1F600} </b> ",
            "<a>1</a><a>2</a><b>3</b><a>[4]</a>",
            "<a=1/><b/><c= 2 />",
            "<a/><a/>",
            "<a>{\"k\": [1, 2.5, null]}</a><b>nope</b>",
            "<a>1</a> stray",
        ];
        let keys = |n: usize| -> String {
            (0..20)
                .map(|i| format!("<k{}>{i}</k{}>", i % n, i % n))
                .collect()
        };
        let (repeated, distinct) = (keys(12), keys(20));
        let mut written_objects = 0;
        for pattern in patterns {
            for parser in parsers {
                for merge in ["false", "true"] {
                    let args = json_args(&format!(
                        r#"{{"tag_pattern": "{pattern}", "merge_duplicates": {merge}{parser}}}"#
                    ));
                    for body in bodies.iter().copied().chain([&*repeated, &*distinct]) {
                        let dict = xml_inline(&args, body.as_bytes());
                        let written = match xml_inline_written(&args, body.as_bytes()) {
                            Some(Parsed::Object(text)) => {
                                written_objects += 1;
                                Some(text.as_str().unwrap().to_owned())
                            }
                            Some(Parsed::Value(value)) => Some(dumps(&value).unwrap()),
                            Some(other) => panic!("{other:?}"),
                            None => None,
                        };
                        let context = format!("{pattern} {parser} {merge} {body:?}");
                        assert_eq!(written, dict.map(|d| dumps(&d).unwrap()), "{context}");
                    }
                }
            }
        }
        // Bodies with no repeated key are written; the others are read as dicts.
        assert!(written_objects > 30, "{written_objects}");
    }

    #[test]
    fn strip_is_unicode_whitespace() {
        let text = |t: &str| parse(Parser::Text, &Args::default(), t.as_bytes());
        let stripped = |t: &str| text(t).and_then(|v| v.as_py_str()?.as_str().map(str::to_owned));
        assert_eq!(stripped("\u{3000}a\u{2003}\n").as_deref(), Some("a"));
        assert_eq!(stripped("   ").as_deref(), Some(""));
    }

    #[test]
    fn numerals_read_as_python_reads_them() {
        assert!(matches!(int(b"1_000"), Some(Value::Int(i)) if i.to_i64() == Some(1000)));
        assert!(int(b"1__0").is_none() && int(b"_1").is_none() && int(b"").is_none());
        assert!(matches!(float(b"-2.5e3"), Some(Value::Float(f)) if f == -2500.0));
        assert!(float(b"Infinity").is_some() && float(b"1.2.3").is_none());
    }
}
