//! Ollama's tool summary (`_generate_ollama_tool_summary`): on Ollama, once tool results
//! exist past the first iteration, the loop may end the turn with a summary it writes
//! itself from the results instead of the model's answer.

use super::prompts::OLLAMA_ERRORS_SUMMARY;
use crate::py::unicode::strip;
use crate::py::{PyStr, Value, str_of};

/// The summary of `results`, or `None` when there is nothing to summarise.
pub fn ollama(results: &[Value]) -> Option<PyStr> {
    let (mut valid, mut errors) = (Vec::new(), 0);
    for result in results {
        if error_of(result) {
            errors += 1;
        } else {
            valid.push(result);
        }
    }
    if valid.is_empty() {
        return (errors > 0).then(|| PyStr::from(OLLAMA_ERRORS_SUMMARY));
    }
    if let [only] = valid[..] {
        return Some(single(only));
    }
    let parts = valid.iter().map(|result| {
        let mut text = PyStr::from_generalized_utf8(strip(str_of(result).as_bytes()));
        let numeric = matches!(result, Value::Int(_) | Value::Float(_) | Value::Bool(_));
        let ends_well = text
            .code_points()
            .last()
            .is_some_and(|c| matches!(char::from_u32(c), Some('.' | '!' | '?')));
        if !numeric && !text.is_empty() && !ends_well {
            text.push_str(".");
        }
        text
    });
    Some(super::schema::join(parts, " "))
}

/// A dict with an `error` key, or a non-empty list whose first item is one.
fn error_of(result: &Value) -> bool {
    match result {
        Value::Dict(d) => d.contains_key("error".as_bytes()),
        Value::List(items) => items
            .first()
            .and_then(Value::as_dict)
            .is_some_and(|d| d.contains_key("error".as_bytes())),
        _ => false,
    }
}

/// One result: `The result is N.` for a number, the search-results layout for a list of
/// dicts with a `title`, `url` or `snippet`, else `str(result)`.
fn single(result: &Value) -> PyStr {
    match result {
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
            let mut text = PyStr::from("The result is ");
            text.push_py(&str_of(result));
            text.push_str(".");
            text
        }
        Value::List(items) => match items.first().and_then(Value::as_dict) {
            Some(first)
                if ["title", "url", "snippet"]
                    .iter()
                    .any(|k| first.contains_key(k.as_bytes())) =>
            {
                search_results(items)
            }
            _ => str_of(result),
        },
        _ => str_of(result),
    }
}

/// `_format_search_results_summary`.
fn search_results(items: &[Value]) -> PyStr {
    let mut lines = vec![PyStr::from("Here's what I found:\n")];
    for (i, item) in items.iter().take(5).enumerate() {
        let get = |key: &str| item.as_dict().and_then(|d| d.get(key.as_bytes()));
        let title = get("title").map_or(PyStr::from("Untitled"), str_of);
        let url = get("url").map_or(PyStr::new(), str_of);
        let snippet = get("snippet")
            .or_else(|| get("content"))
            .map_or(PyStr::new(), str_of);
        let mut heading = PyStr::from(format!("**{}. ", i + 1));
        heading.push_py(&title);
        heading.push_str("**");
        lines.push(heading);
        if !snippet.is_empty() {
            let mut line = PyStr::from("   ");
            if snippet.char_len() > 200 {
                snippet.code_points().take(200).for_each(|c| line.push(c));
                line.push_str("...");
            } else {
                line.push_py(&snippet);
            }
            lines.push(line);
        }
        if !url.is_empty() {
            let mut line = PyStr::from("   Link: ");
            line.push_py(&url);
            lines.push(line);
        }
        lines.push(PyStr::new());
    }
    let joined = super::schema::join(lines, "\n");
    PyStr::from_generalized_utf8(strip(joined.as_bytes()))
}
