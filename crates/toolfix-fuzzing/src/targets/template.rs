//! The `template` target: the fuzzer's bytes as a reply that every shipped response
//! template reads (`toolfix::salvage::template`), and as a template of their own.
//!
//! A template is data a user writes, and a reply is text a model writes: neither may
//! panic, hang or break a guarantee. Each input is read by each of the
//! [`Template::SHIPPED`] templates (their formats are the seeds', so the readers reach
//! their accepting paths), and its calls are held to the invariants every salvage keeps
//! (spans inside the reply, in order, none inside another but the calls of one region;
//! offered names only; arguments that decode) and to G1 as a template reads it: no call
//! starts inside a fence of the text outside the template's regions (a fence mark inside
//! a call's or reasoning's region is that region's text). The same bytes are then loaded
//! as a template's JSON: refused with a line and a column, or, loaded, read the input as a
//! reply and held to the same invariants. A hang is libFuzzer's `-timeout`.

use super::salvage_input::offered;
use crate::invariants::calls_hold;
use toolfix::internals::template::region_spans;
use toolfix::salvage::template::{Template, salvage};
use toolfix::salvage::{Allowlist, Call, Request, fenced_ranges};
use toolfix::{Adapter, Profile};

/// Reads the bytes (as lossy UTF-8) with every shipped template, then as a template.
pub fn template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let tools = offered(&text, true);
    for name in Template::SHIPPED {
        let shipped = Template::shipped(name).expect("a shipped template loads");
        read(&text, &tools, shipped, name);
    }
    match Template::from_json(&text) {
        Ok(loaded) => read(&text, &tools, &loaded, "the input's own"),
        Err(error) => assert!(
            error.line >= 1 && error.column >= 1 && !error.message.is_empty(),
            "a refused template is told where and why: {error:?}"
        ),
    }
}

/// Reads `text` with `template` and checks the calls.
fn read(text: &str, tools: &Allowlist, template: &Template, name: &str) {
    let request = Request::new(text, tools).adapter(Adapter::Ollama);
    let calls: Vec<Call> = salvage(&request, template);
    let checked = calls_hold(text.as_bytes(), tools, Profile::Strict, &calls)
        .and_then(|()| outside_fences(text, template, &calls));
    if let Err(violation) = checked {
        panic!("{name} template: {violation}");
    }
}

/// No call starts inside a fence of the text outside `template`'s regions (G1).
fn outside_fences(text: &str, template: &Template, calls: &[Call]) -> Result<(), String> {
    if calls.is_empty() {
        return Ok(());
    }
    // The text with each region's code points blanked, at the same offsets.
    let mut spans = region_spans(text.as_bytes(), template)
        .into_iter()
        .peekable();
    let mut outside = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        while spans.next_if(|span| span.end <= i).is_some() {}
        match spans.peek() {
            Some(span) if span.start <= i => outside.extend(std::iter::repeat_n(' ', c.len_utf8())),
            _ => outside.push(c),
        }
    }
    let fences = fenced_ranges(outside.as_str());
    match calls
        .iter()
        .find(|c| fences.iter().any(|f| f.contains(&c.span().start)))
    {
        Some(call) => Err(format!(
            "the call at {:?} starts inside a fence of the text outside the regions: {fences:?}",
            call.span()
        )),
        None => Ok(()),
    }
}
