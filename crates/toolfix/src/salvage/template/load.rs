//! Loading a template: its JSON read through serde with every key known, its patterns
//! compiled, and the checks transformers makes when it loads one (`response_templates.py`),
//! each error naming the line it was found at.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use super::anchor::{Literals, Pattern, either};
use super::content::{Args, Parser};
use super::shape::{CallPlan, Shape};
use super::{Template, TemplateError};

/// A template as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    #[serde(default)]
    version: Version,
    /// Values every parsed message starts with (`{"role": "assistant"}`): a message's,
    /// not a call's, so salvage reads none of them.
    #[serde(default, rename = "defaults")]
    _defaults: BTreeMap<String, serde_json::Value>,
    fields: BTreeMap<String, Field>,
    /// Where the reply starts in a prompt: salvage is given the reply alone.
    #[serde(default, rename = "start_anchor")]
    _start_anchor: Option<Literals>,
    #[serde(default, rename = "start_anchor_pattern")]
    _start_anchor_pattern: Option<Pattern>,
}

/// A tokenizer config: a template under `response_template`, among keys salvage ignores.
#[derive(Deserialize)]
struct TokenizerConfig {
    response_template: Written,
}

/// The template format's version: 1, the only one there is.
#[derive(Default)]
struct Version;

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Version, D::Error> {
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::Number(n) if n.as_f64() == Some(1.0) => Ok(Version),
            other => Err(de::Error::custom(format!(
                "unsupported response_template version: {other}"
            ))),
        }
    }
}

/// One field: a region's anchors, how its text is read, and how its values gather.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "WrittenField")]
pub struct Field {
    /// Where a region of it opens; `None` for the implicit field.
    pub open: Option<Pattern>,
    /// Where it closes; `None` runs it to the end of the reply.
    pub close: Option<Pattern>,
    /// How its text is read.
    pub parser: Parser,
    /// The parser's arguments.
    pub args: Args,
    /// How the parsed value is shaped.
    pub transform: Option<Shape>,
    /// Whether the transform applies to each element of a list.
    pub transform_each: bool,
    /// Where a call's name and arguments come from, when the transform is one call.
    pub plan: Option<CallPlan>,
}

/// A field as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenField {
    open: Option<Literals>,
    open_pattern: Option<Pattern>,
    close: Option<Literals>,
    close_pattern: Option<Pattern>,
    #[serde(default)]
    content: Parser,
    #[serde(default)]
    content_args: Args,
    #[serde(default)]
    repeats: bool,
    join: Option<String>,
    #[serde(default, rename = "optional")]
    _optional: Option<bool>,
    transform: Option<serde_json::Value>,
    #[serde(default)]
    transform_each: bool,
}

impl TryFrom<WrittenField> for Field {
    type Error = String;

    fn try_from(written: WrittenField) -> Result<Field, String> {
        let open = either(written.open, written.open_pattern, "open")?;
        let close = either(written.close, written.close_pattern, "close")?;
        if written.join.is_some() && !written.repeats {
            return Err("'join' requires 'repeats': true".into());
        }
        if written.transform_each && written.transform.is_none() {
            return Err("transform_each is set but no transform was provided".into());
        }
        let transform = written.transform.as_ref().map(Shape::new).transpose()?;
        let transform = transform.map(Shape::counted);
        let captured = [&open, &close]
            .into_iter()
            .flatten()
            .flat_map(Pattern::group_names)
            .next();
        if let (Some(name), None) = (captured, &transform) {
            return Err(format!(
                "open_pattern/close_pattern declares the named group {name:?}, but the field \
                 has no 'transform': named captures reach the output only through one"
            ));
        }
        written.content_args.check(written.content)?;
        let plan = (transform.as_ref())
            .filter(|_| !written.transform_each)
            .and_then(|shape| CallPlan::new(shape, open.as_ref()));
        Ok(Field {
            open,
            close,
            parser: written.content,
            args: written.content_args,
            transform,
            transform_each: written.transform_each,
            plan,
        })
    }
}

/// [`Template::from_json`].
pub fn template(text: &str) -> Result<Template, TemplateError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(at_serde)?;
    let holds_one = value.get("response_template").is_some() && value.get("fields").is_none();
    let written = match holds_one {
        true => serde_json::from_str::<TokenizerConfig>(text).map(|c| c.response_template),
        false => serde_json::from_str::<Written>(text),
    }
    .map_err(at_serde)?;
    let Version = written.version;
    let names: Vec<&String> = written.fields.keys().collect();
    let implicit: Vec<usize> = (0..names.len())
        .filter(|&i| written.fields[names[i]].open.is_none())
        .collect();
    if let [_, second, ..] = implicit[..] {
        let message = format!(
            "field {:?}: at most one field may omit 'open'/'open_pattern' (that field is \
             the implicit one, the text outside every other region)",
            names[second]
        );
        return Err(at_key(text, names[second], message));
    }
    let Some(calls) = names.iter().position(|n| *n == "tool_calls") else {
        let message = "the template has no 'tool_calls' field, so no call can be recovered";
        return Err(at_key(text, "fields", message.into()));
    };
    let names = names.into_iter().cloned().collect();
    Ok(Template {
        names,
        fields: written.fields.into_values().collect(),
        implicit: implicit.first().copied(),
        calls,
    })
}

/// A serde error, its position apart from its message.
fn at_serde(error: serde_json::Error) -> TemplateError {
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    // serde_json counts a position before a line's first character (an empty text, an
    // end right after a newline) as column 0; a reader counts from 1 (found by the
    // `template` fuzz target, F42: an empty file was "line 1, column 0").
    TemplateError {
        line: error.line().max(1),
        column: error.column().max(1),
        message,
    }
}

/// An error about the key `key` of a template, placed where that key is first written.
fn at_key(text: &str, key: &str, message: String) -> TemplateError {
    let quoted = format!("\"{key}\"");
    let offset = text.find(&quoted).unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    TemplateError {
        line,
        column,
        message,
    }
}
