//! Mutations of a generated reply where implementations go wrong and the grammar does not
//! go on its own: a payload with its `name` given twice (the last wins in `json.loads`),
//! a key in the wrong case, arguments sent as a JSON string, characters beside a tag that
//! look like whitespace and are not (`\u{feff}`, `\u{200b}`, NUL), and whole-content JSON
//! written twice, fenced, after a byte-order mark or between words.

use toolfix::py::PyStr;

use super::rng::Rng;
use crate::call::CallSpec;
use crate::json::{Json, JsonStyle};
use crate::reply::{Body, Part, Reply, Segment};
use crate::whole::Form;

/// The mutation families, each its own family in the report.
pub const MUTATIONS: [&str; 5] = [
    "duplicate_name",
    "capital_key",
    "stringified_args",
    "not_space",
    "whole_variants",
];

/// Runs `str.isspace` rejects, beside or instead of the whitespace a pattern's `\s*`
/// allows there.
const NOT_SPACE: [&str; 6] = [
    "\u{feff}",
    "\u{200b}",
    "\0",
    " \u{feff}",
    "\n\u{200b}",
    "\u{feff}\n",
];

/// The names a duplicated `name` key first gives.
const FIRST_NAMES: [&str; 3] = ["wire_transfer", "rm_rf", "Search"];

/// Applies the structural part of `mutation` to `reply`; `false` when the reply has
/// nothing it applies to.
pub fn mutate_reply(rng: &mut Rng, mutation: &str, reply: &mut Reply) -> bool {
    match mutation {
        "stringified_args" | "not_space" => {
            let mut calls = Vec::new();
            if let Body::Segments(parts) = &mut reply.body {
                calls_in(parts, &mut calls);
            }
            if calls.is_empty() {
                return false;
            }
            let at = rng.below(calls.len());
            match mutation {
                "stringified_args" => stringify(&mut calls[at].args),
                _ => unspace(rng, calls[at]),
            }
            true
        }
        "whole_variants" => matches!(&reply.body, Body::Whole(w) if w.form == Form::Json),
        _ => true,
    }
}

/// Applies the textual part of `mutation` to the rendered `text`; `None` when the text
/// has nothing it applies to.
pub fn mutate_text(rng: &mut Rng, mutation: &str, text: &str) -> Option<String> {
    match mutation {
        "duplicate_name" => {
            let at = pick_occurrence(rng, text, "\"name\"")?;
            let first = rng.pick(&FIRST_NAMES);
            Some(format!(
                "{}\"name\": \"{first}\", {}",
                &text[..at],
                &text[at..]
            ))
        }
        "capital_key" => {
            let key = rng.pick(&["\"name\"", "\"arguments\""]);
            let at = pick_occurrence(rng, text, key)?;
            let capital = if key == "\"name\"" {
                "\"Name\""
            } else {
                "\"Arguments\""
            };
            Some(format!(
                "{}{capital}{}",
                &text[..at],
                &text[at + key.len()..]
            ))
        }
        "whole_variants" => Some(match rng.below(6) {
            0 => format!("{text}{text}"),
            1 => format!("```json\n{text}\n```"),
            2 => format!("\u{feff}{text}"),
            3 => format!("{text} thanks"),
            4 => format!("Here is the call: {text}"),
            _ => format!("{text}\n"),
        }),
        _ => Some(text.to_owned()),
    }
}

/// The byte offset of a random occurrence of `needle` in `text`.
fn pick_occurrence(rng: &mut Rng, text: &str, needle: &str) -> Option<usize> {
    let found: Vec<usize> = text.match_indices(needle).map(|(at, _)| at).collect();
    (!found.is_empty()).then(|| found[rng.below(found.len())])
}

/// The arguments as the JSON string of their text (`"{\"city\": \"Paris\"}"`).
fn stringify(args: &mut Json) {
    let mut text = String::new();
    args.render(&JsonStyle::DUMPS, &mut text);
    *args = Json::Str(PyStr::from(text.as_str()));
}

/// Puts characters that are not whitespace into some of the call's `\s*` runs.
fn unspace(rng: &mut Rng, call: &mut CallSpec) {
    let first = rng.below(call.pads.len());
    for (i, pad) in call.pads.iter_mut().enumerate() {
        if i == first || rng.chance(0.3) {
            *pad = rng.pick(&NOT_SPACE);
        }
    }
}

/// Every call of the six dialects among `parts`, nested ones included.
fn calls_in<'a>(parts: &'a mut [Part], out: &mut Vec<&'a mut CallSpec>) {
    for part in parts {
        calls_in_segment(&mut part.segment, out);
    }
}

fn calls_in_segment<'a>(segment: &'a mut Segment, out: &mut Vec<&'a mut CallSpec>) {
    match segment {
        Segment::Call(call) => out.push(call),
        Segment::Fenced(_, parts) => calls_in(parts, out),
        Segment::Reasoning(reasoning) => calls_in(&mut reasoning.parts, out),
        Segment::Repeat(_, inner) => calls_in_segment(inner, out),
        Segment::Prose(_) | Segment::Native(_) => {}
    }
}
