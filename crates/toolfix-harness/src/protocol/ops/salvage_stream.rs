//! Op `salvage_stream`: the reply arrives as `chunks`; the calls streamed, each with the
//! index of the chunk whose arrival emitted it, and the displayable text.
//!
//! Input `{"chunks": [S, …], "tools": [...], "adapter": A}`; output
//! `{"calls": null | [{"name", "arguments", "after_chunk": I}, …], "content": S}`, where
//! `after_chunk` is `len(chunks)` for a call emitted at the end of the stream, or
//! `{"error": S}` when salvage raises (under `praisonai`, at the end of the stream).
//!
//! With a `template`, the reply is read as the template declares once it is whole: every
//! call is emitted at the end of the stream, and the content is the reply without them.

use super::salvage::{call_value, recover, template_of, tool_entries};
use crate::protocol::fields::Fields;
use crate::protocol::wire::one_key;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::template::Template;
use toolfix::salvage::{Allowlist, Call, Event, SalvageError, StreamUnder};
use toolfix::{Adapter, Profile};

/// Reads the input, streams the chunks (read as the input's template declares, else as
/// `default` does), and shapes the output.
pub fn run(input: &Value, profile: Profile, default: Option<&Template>) -> Result<Value, String> {
    let fields = Fields::of(input, "input")?.only(&["chunks", "tools", "adapter", "template"])?;
    let chunks = fields
        .list("chunks")?
        .iter()
        .map(|c| c.as_py_str().ok_or("every chunk must be a string"))
        .collect::<Result<Vec<&PyStr>, _>>()?;
    let entries = tool_entries(fields.list("tools")?);
    let adapter: Adapter = fields.parse("adapter")?;
    let outcome = match template_of(&fields, profile)?.or(default) {
        Some(template) => whole(&chunks, &entries, adapter, (profile, template)),
        None => stream(&chunks, &entries, adapter, profile),
    };
    Ok(match outcome {
        Ok((calls, content)) => Value::dict([("calls", calls), ("content", Value::Str(content))]),
        Err(e) => one_key("error", Value::str(&e.to_string())),
    })
}

/// The calls (as the output lists them) and the content of the streamed reply.
fn stream(
    chunks: &[&PyStr],
    entries: &[Value],
    adapter: Adapter,
    profile: Profile,
) -> Result<(Value, PyStr), SalvageError> {
    // The real package's order of checks, as in `salvage`: the adapter gate and empty
    // content or tools come before the tool list is read (which can raise).
    let has_content = chunks.iter().any(|c| !c.is_empty());
    let salvages = adapter.policy().salvages_text && !entries.is_empty() && has_content;
    let tools = match salvages {
        true => Allowlist::from_tool_entries_under(entries, profile)?,
        false => Allowlist::new(Vec::<PyStr>::new()),
    };
    let mut stream = StreamUnder::new(&tools, adapter, profile);
    let mut content = Vec::new();
    let mut calls: Vec<(Call, usize)> = Vec::new();
    for (index, chunk) in chunks.iter().enumerate() {
        stream.feed(*chunk, &mut collect(&mut content, &mut calls, index));
    }
    stream.finish(&mut collect(&mut content, &mut calls, chunks.len()))?;
    let calls = match calls.is_empty() {
        true => Value::None,
        false => Value::List(calls.iter().map(streamed).collect()),
    };
    // Slices of the chunks at code point boundaries: generalized UTF-8, so this holds.
    let content = PyStr::from_surrogatepass(&content).unwrap_or_default();
    Ok((calls, content))
}

/// The calls and content of a reply read as `template` declares, once it is whole.
fn whole(
    chunks: &[&PyStr],
    entries: &[Value],
    adapter: Adapter,
    (profile, template): (Profile, &Template),
) -> Result<(Value, PyStr), SalvageError> {
    let mut reply = PyStr::new();
    chunks.iter().for_each(|chunk| reply.push_py(chunk));
    let calls = recover(&reply, entries, adapter, (profile, Some(template)))?;
    let mut content = Vec::new();
    let mut at = 0;
    // Calls of one region share its span: each region is cut out once.
    for span in calls.iter().map(Call::span) {
        if span.start >= at {
            content.extend_from_slice(&reply.as_bytes()[at..span.start]);
            at = span.end;
        }
    }
    content.extend_from_slice(&reply.as_bytes()[at..]);
    let content = PyStr::from_surrogatepass(&content).unwrap_or_default();
    let calls = match calls.is_empty() {
        true => Value::None,
        false => {
            let at_end = |call: &Call| streamed(&(call.clone(), chunks.len()));
            Value::List(calls.iter().map(at_end).collect())
        }
    };
    Ok((calls, content))
}

/// An event sink recording text and calls, each call with the chunk index `index`.
fn collect<'a>(
    content: &'a mut Vec<u8>,
    calls: &'a mut Vec<(Call, usize)>,
    index: usize,
) -> impl FnMut(Event<'_>) + 'a {
    move |event| match event {
        Event::Text(text) => content.extend_from_slice(text.as_bytes()),
        Event::Call(call) => calls.push((call, index)),
    }
}

/// `{"name", "arguments", "after_chunk"}`.
fn streamed((call, index): &(Call, usize)) -> Value {
    let mut value = call_value(call);
    if let Value::Dict(dict) = &mut value {
        dict.insert(PyStr::from("after_chunk"), Value::int(*index as i64));
    }
    value
}
