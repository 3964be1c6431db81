//! Dialects declared at run time: a Hugging Face `response_template` read as a dialect
//! spec (feature `template`).
//!
//! transformers 5.23 describes a model's reply format as data: named fields (`content`,
//! `reasoning_content`, `tool_calls`), each a region between an `open` and a `close`
//! (literals, or regular expressions), whose text a content parser (`json`,
//! `xml-inline`, `kv-lines`, `text`, …) turns into a value that a `transform` shapes.
//! Checkpoints ship one in their tokenizer config, and `transformers serve` falls back to
//! its own for Qwen 2/3, Qwen 3.5 and Gemma 4. [`Template::from_json`] reads that format
//! (the template itself, or a tokenizer config holding one) and [`salvage`] recovers the
//! calls of a reply written in it, as `tokenizer.parse_response` would, with toolfix's
//! guarantees kept on every path:
//!
//! * **fences**: a region never opens inside fenced code in the reply's prose, so a call
//!   shown as an example does not run (transformers runs it);
//! * **offered names**: a call whose name was not offered is not recovered;
//! * **order and one reading**: the reply is read once, left to right, each region decided
//!   when its close is found and never reopened; the calls come in text order;
//! * **linear time**: every pattern runs on the `regex` crate, which has no look-around
//!   and no back-reference (a template that uses one gets an error naming it), and each
//!   pattern's next match is searched for again only when a region consumed it;
//! * **no cut call**: a region whose close never comes (the reply ends first) gives a call
//!   only when its parser reads only whole texts (strict `json`): a call whose closing
//!   token a server stripped as a stop token is recovered, a call cut short is not (a tag
//!   or line parser would read a prefix of it as fewer arguments, as transformers does);
//! * **no failure**: a region whose text its parser cannot read gives no call (transformers
//!   raises and loses every call of the reply), and a template that would read without
//!   progress (a zero-width close) stops reading where transformers stops.
//!
//! A template replaces the shipped dialects for the requests it is given: it is the
//! model's own statement of its format. Only the field named `tool_calls` holds calls;
//! every other field (reasoning, content) is text that never runs.
//!
//! ```
//! use toolfix::salvage::template::{self, Template};
//! use toolfix::salvage::{Allowlist, Request};
//!
//! let template = Template::from_json(r#"{
//!   "fields": {
//!     "tool_calls": {
//!       "open_pattern": "<call name=\"(?P<name>\\w+)\">",
//!       "close": "</call>",
//!       "repeats": true,
//!       "content": "json",
//!       "transform": {"name": "{name}", "arguments": "{content}"}
//!     }
//!   }
//! }"#)?;
//! let reply = "Sure.\n<call name=\"get_weather\">{\"city\": \"Paris\"}</call>";
//! let tools = Allowlist::new(["get_weather"]);
//! let calls = template::salvage(&Request::new(reply, &tools), &template);
//! assert_eq!(calls[0].name_str(), Some("get_weather"));
//! assert_eq!(calls[0].arguments_text().as_str(), Some(r#"{"city": "Paris"}"#));
//! # Ok::<(), toolfix::salvage::template::TemplateError>(())
//! ```

mod anchor;
mod content;
mod find;
pub(crate) mod groups;
mod load;
mod read;
mod shape;
pub(crate) mod shipped;

use std::fmt;

use super::call::{Args, Call};
use super::dialect::Dialect;
use super::payload::read_back;
use super::{Allowlist, Request};
use crate::py::{PyStr, Value};
use load::Field;

/// A response template, loaded and checked: every pattern compiled, every key known.
#[derive(Clone, Debug)]
pub struct Template {
    /// Each field's name, in the order of `fields`.
    names: Vec<String>,
    fields: Vec<Field>,
    /// The field without an `open`: the text outside every other region.
    implicit: Option<usize>,
    /// The field named `tool_calls`.
    calls: usize,
}

/// Why a template was refused: what is wrong, and where in its JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    /// The line (from 1) the error was found at.
    pub line: usize,
    /// The column (from 1) the error was found at.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for TemplateError {}

impl Template {
    /// The names of the templates toolfix ships, one per model family whose format no
    /// built-in dialect reads, each named as SGLang names the family's parser
    /// (`--tool-call-parser`): [`Template::shipped`] gives each.
    pub const SHIPPED: &'static [&'static str] = shipped::NAMES;

    /// The template toolfix ships for `name` (one of [`Template::SHIPPED`]), loaded once
    /// per process.
    pub fn shipped(name: &str) -> Option<&'static Template> {
        shipped::loaded(name)
    }

    /// One reply holding one call, `get_weather(city="Paris")`, written in the format of
    /// the shipped template `name`: what the format looks like, for a reader, a smoke
    /// check or a benchmark.
    pub fn example(name: &str) -> Option<&'static str> {
        shipped::example(name)
    }

    /// Reads a template from JSON text: a `response_template` object, or a tokenizer
    /// config (`tokenizer_config.json`) that holds one under that key.
    ///
    /// Unknown keys, a pattern the `regex` crate cannot run, and the checks transformers
    /// makes when it loads a template are errors naming the line. A template is also
    /// refused when it has no `tool_calls` field, since it could recover no call.
    pub fn from_json(text: &str) -> Result<Template, TemplateError> {
        load::template(text)
    }
}

/// The span of every region of `text` that `template` reads, in text order
/// (`internals::template`).
pub(crate) fn region_spans(text: &[u8], template: &Template) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    read::each_region(text, template, |region| spans.push(region.span));
    spans
}

/// Recovers the calls of `request`'s reply as `template` declares them, in text order.
///
/// Like [`super::salvage`], it runs only for adapters that salvage text and when tools
/// are offered, and it cannot fail.
pub fn salvage(request: &Request<'_>, template: &Template) -> Vec<Call> {
    let text = request.content.as_bytes();
    if !request.salvages() || text.is_empty() {
        return Vec::new();
    }
    let mut calls = Vec::new();
    read::each_region(text, template, |region| {
        if region.field != template.calls {
            return;
        }
        let field = &template.fields[region.field];
        // A cut call is no call (G4): without its close, only a text that reads whole is
        // taken (JSON whose closing token a server stripped as a stop token).
        if !region.closed && !field.args.reads_only_whole(field.parser) {
            return;
        }
        let body = &text[region.body.clone()];
        let span = &region.span;
        shape::calls(
            field,
            body,
            region.value,
            &region.captures,
            &mut |name, args| {
                if let Some(args) = offered(&name, args, request.tools) {
                    let at = (Dialect::Template, calls.len());
                    calls.push(Call::new(Value::Str(name), args, span.clone(), at));
                }
            },
        );
    });
    calls
}

/// A call named `name` with `args`, when `name` was offered: its string arguments typed by
/// the tool's schema, as transformers types them (written arguments are decoded for it
/// only when the schema types a parameter as something other than a string).
fn offered(name: &PyStr, args: Args, tools: &Allowlist) -> Option<Args> {
    if !tools.contains(name) {
        return None;
    }
    let Some(types) = tools.types(name).filter(|types| !types.keeps_strings()) else {
        return Some(args);
    };
    let args = match args {
        Args::Written(text) => read_back(text.as_bytes())?,
        Args::Decoded(args) => args,
    };
    let Value::Dict(dict) = args else {
        return Some(Args::Decoded(args));
    };
    let typed = dict.into_iter().map(|(key, value)| {
        let typed = match value {
            Value::Str(raw) => types.convert(&key, &raw),
            other => other,
        };
        (key, typed)
    });
    Some(Args::Decoded(Value::Dict(typed.collect())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn written_arguments_are_typed_only_where_the_schema_converts_a_string() {
        let schema = |ty: &str| {
            Value::dict([(
                "properties",
                Value::dict([
                    ("city", Value::dict([("type", Value::str("string"))])),
                    ("n", Value::dict([("type", Value::str(ty))])),
                ]),
            )])
        };
        let written = || Args::Written(PyStr::from(r#"{"city": "3", "n": "3"}"#));
        let name = PyStr::from("f");
        let mut tools = Allowlist::new(["f"]);
        tools.insert_schema("f", &schema("string"));
        assert_eq!(offered(&name, written(), &tools), Some(written()));
        tools.insert_schema("f", &schema("integer"));
        let typed = Value::dict([("city", Value::str("3")), ("n", Value::int(3))]);
        assert_eq!(
            offered(&name, written(), &tools),
            Some(Args::Decoded(typed))
        );
        assert_eq!(offered(&PyStr::from("g"), written(), &tools), None);
    }

    /// F42, found by the `template` fuzz target: an empty text, or one that ends after
    /// a newline, was refused at column 0.
    #[test]
    fn an_error_at_a_line_start_is_at_column_one() {
        for (text, line) in [("", 1), ("{\n", 2), ("{\"fields\": \n", 2)] {
            let error = Template::from_json(text).unwrap_err();
            assert_eq!((error.line, error.column), (line, 1), "{text:?}: {error}");
        }
    }

    /// Pieces a reply is made of: the literal texts a template is written with (its JSON
    /// split at quotes, so every marker and pattern fragment is one), its example call
    /// whole and cut at each tag, fences, reasoning tags, JSON and prose.
    fn pieces(template: &str, example: &str) -> Vec<String> {
        let mut out: Vec<String> = template.split('"').map(str::to_owned).collect();
        out.extend(example.split_inclusive('>').map(str::to_owned));
        out.extend([example.to_owned(), example.to_owned()]);
        let common = [
            "```",
            "~~~",
            "<think>",
            "</think>",
            "{\"a\": 1}",
            "{",
            "}",
            "\n",
            " x ",
        ];
        out.extend(common.map(str::to_owned));
        out.extend(["get_weather", "city", "Paris", "name", "arguments"].map(str::to_owned));
        out
    }

    fn reply(name: &'static str) -> impl Strategy<Value = String> {
        let pieces = pieces(
            shipped::text(name).unwrap(),
            shipped::example(name).unwrap(),
        );
        prop::collection::vec(prop::sample::select(pieces), 0..40).prop_map(|p| p.concat())
    }

    /// A template built from the keys and values the format knows, most of them wrong
    /// together: loading gives a template or an error, never a panic.
    fn template_text() -> impl Strategy<Value = String> {
        let keys = prop::sample::select(vec![
            "open",
            "open_pattern",
            "close",
            "close_pattern",
            "content",
            "content_args",
            "repeats",
            "join",
            "optional",
            "transform",
            "transform_each",
            "bogus",
        ]);
        let values = prop::sample::select(vec![
            r#""<c>""#,
            r#""(?P<name>\\w+)""#,
            r#""(?<=x)""#,
            r#""[""#,
            r#""""#,
            r#"true"#,
            r#"["a", "ab"]"#,
            r#"[]"#,
            r#""json""#,
            r#""xml-inline""#,
            r#"{"tag_pattern": "(?P<key>a)(?P<value>b)"}"#,
            r#"{"name": "{name}", "arguments": "{content}"}"#,
            r#""x {name}""#,
            r#"3"#,
        ]);
        let field = prop::collection::vec((keys, values), 0..6).prop_map(|pairs| {
            let body: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", body.join(", "))
        });
        let names = prop::sample::select(vec!["tool_calls", "content", "reasoning_content"]);
        prop::collection::vec((names, field), 0..4).prop_map(|fields| {
            let body: Vec<String> = fields
                .iter()
                .map(|(n, f)| format!("\"{n}\": {f}"))
                .collect();
            format!("{{\"fields\": {{{}}}}}", body.join(", "))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Under every shipped template, any reply made of its own markers reads without
        /// a panic, and the calls come in text order, none starting inside another.
        #[test]
        fn every_shipped_template_reads_any_reply_in_order(
            (name, text) in prop::sample::select(Template::SHIPPED.to_vec())
                .prop_flat_map(|name| (Just(name), reply(name)))
        ) {
            let template = Template::shipped(name).unwrap();
            let tools = Allowlist::new(["get_weather", "a"]);
            let calls = salvage(&Request::new(text.as_str(), &tools), template);
            for pair in calls.windows(2) {
                let (a, b) = (pair[0].span(), pair[1].span());
                prop_assert!(a == b || a.end <= b.start, "{name}: {a:?} then {b:?}");
            }
            prop_assert!(calls.iter().all(|c| c.span().end <= text.len()));
        }

        /// Loading never panics, whatever the keys and values: a template or an error
        /// with a line and a column.
        #[test]
        fn loading_any_template_text_never_panics(text in template_text()) {
            if let Err(error) = Template::from_json(&text) {
                prop_assert!(error.line >= 1 && error.column >= 1, "{error}");
            } else {
                let reply = "<c>{\"name\": \"a\", \"arguments\": {}}</c> ``` <c> ab";
                let tools = Allowlist::new(["a"]);
                let _ = salvage(&Request::new(reply, &tools), &Template::from_json(&text).unwrap());
            }
        }
    }
}
