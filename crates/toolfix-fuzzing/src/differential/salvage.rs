//! Inputs of the `salvage` op, from the reply grammar (`crate::reply`): every dialect in
//! every case, whitespace and key variant, whole-content JSON, native blocks, fences,
//! reasoning, repetitions and truncation, and in hostile replies drifted and invented
//! names, damaged payloads, huge integers, nesting around the recursion limit and
//! non-finite numbers. The grammar reads its choices from bytes; here the bytes come from
//! the case's seeded stream, so a case is reproducible from its seed and index.

use arbitrary::Unstructured;
use toolfix::py::Value;
use toolfix::salvage::Dialect;

use super::mutation::{MUTATIONS, mutate_reply, mutate_text};
use super::rng::Rng;
use super::tool_list::tool_list;
use crate::choice::Mode;
use crate::reply::{Body, Part, Reply, Segment};
use crate::whole::{Entry, Form, WholeJson};

/// Adapters a reply may come through, and how often: the two local ones mostly.
const ADAPTERS: [(&str, f64); 5] = [
    ("ollama", 5.0),
    ("local", 3.0),
    ("default", 1.0),
    ("anthropic", 1.0),
    ("gemini", 1.0),
];

/// A generated salvage case: its family, its input, and the dialects it writes calls in.
pub struct SalvageCase {
    /// What the reply chiefly tests (`FAMILIES`).
    pub family: &'static str,
    /// The `salvage` input: content, tools, adapter.
    pub input: Value,
    /// The dialects it writes calls in, by protocol name, sorted.
    pub dialects: Vec<&'static str>,
}

/// The families a case is drawn for, with their weights: what the reply chiefly tests
/// (`family`), or a mutation of any reply (`mutation`). Few replies of the grammar reach
/// CPython's limits with a call the decoder reads, so the boundary families are drawn
/// more than the grammar would.
pub const FAMILIES: [(&str, f64); 22] = [
    ("whole_json", 1.0),
    ("whole_llama", 0.5),
    ("whole_pythonic", 0.5),
    ("tool_call", 1.0),
    ("function", 1.0),
    ("bracket", 1.0),
    ("python_tag", 1.0),
    ("react", 1.0),
    ("interleaved", 1.0),
    ("native", 0.5),
    ("fenced", 1.0),
    ("reasoning", 1.0),
    ("repeated", 0.5),
    ("truncated", 1.0),
    ("prose", 0.5),
    ("deep", 0.75),
    ("huge_int", 0.75),
    ("duplicate_name", 0.5),
    ("capital_key", 0.5),
    ("stringified_args", 0.5),
    ("not_space", 0.5),
    ("whole_variants", 0.5),
];

/// How many replies are drawn looking for one of the wanted family before the last one
/// drawn is taken as it is (and counted under its own family).
const DRAWS: usize = 400;

/// One `salvage` input: a family is drawn, then replies (half clean, half hostile)
/// until one is of that family, so every family is covered whatever the grammar's own
/// odds of writing it.
pub fn generate(rng: &mut Rng) -> SalvageCase {
    let weights: Vec<f64> = FAMILIES.iter().map(|(_, w)| *w).collect();
    let wanted = FAMILIES[rng.weighted(&weights)].0;
    let (reply, text, family) = draw(rng, wanted);
    let weights: Vec<f64> = ADAPTERS.iter().map(|(_, w)| *w).collect();
    let adapter = ADAPTERS[rng.weighted(&weights)].0;
    let input = Value::dict([
        ("content", Value::str(&text)),
        ("tools", tool_list(rng, &reply.offered)),
        ("adapter", Value::str(adapter)),
    ]);
    SalvageCase {
        family,
        input,
        dialects: dialects(&reply),
    }
}

/// A reply of the `wanted` family (or the last one drawn), its text and its family.
fn draw(rng: &mut Rng, wanted: &'static str) -> (Reply, String, &'static str) {
    let mutation = MUTATIONS.contains(&wanted);
    let mut tries = 0;
    loop {
        tries += 1;
        let mode = match rng.chance(0.5) {
            true => Mode::Clean,
            false => Mode::Hostile,
        };
        let mut reply = reply(rng, mode);
        if mutation {
            if let Some(text) = mutated(rng, wanted, &mut reply) {
                return (reply, text, wanted);
            }
        }
        let text = reply.render().text;
        let family = family(&reply, &text);
        if family == wanted || tries == DRAWS {
            return (reply, text, family);
        }
    }
}

/// The text of `reply` with `mutation` applied, when the reply has what it mutates.
fn mutated(rng: &mut Rng, mutation: &str, reply: &mut Reply) -> Option<String> {
    if !mutate_reply(rng, mutation, reply) {
        return None;
    }
    mutate_text(rng, mutation, &reply.render().text)
}

/// A reply read from up to 2 KiB of the stream (more bytes, more segments). Should the
/// grammar refuse the bytes, another draw stands in, and in the end no bytes at all: with
/// none, every choice is its first alternative, which cannot fail.
fn reply(rng: &mut Rng, mode: Mode) -> Reply {
    for _ in 0..16 {
        let n = rng.between(16, 2048);
        let bytes = rng.bytes(n);
        if let Ok(reply) = Reply::generate(&mut Unstructured::new(&bytes), mode) {
            return reply;
        }
    }
    Reply::generate(&mut Unstructured::new(&[]), Mode::Clean)
        .expect("the grammar reads no bytes as the simplest reply")
}

/// What the reply chiefly tests, for the report's counts.
fn family(reply: &Reply, text: &str) -> &'static str {
    if let Some(boundary) = boundary(text) {
        return boundary;
    }
    if reply.keep_permille.is_some() {
        return "truncated";
    }
    let parts = match &reply.body {
        Body::Whole(whole) => return whole_family(whole),
        Body::Segments(parts) => parts,
    };
    let mut seen = Seen::default();
    if let Some((reasoning, _)) = &reply.reasoning {
        seen.reasoning = true;
        seen.parts(&reasoning.parts);
    }
    seen.parts(parts);
    seen.family()
}

/// The limits CPython's `json` hits: a run of digits past 4300 and nesting near 1000.
fn boundary(text: &str) -> Option<&'static str> {
    let longest_digits = text
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    if longest_digits >= 4300 {
        return Some("huge_int");
    }
    let deep = "[".repeat(500);
    (text.contains(&deep) || text.contains(&"{\"a\": ".repeat(500))).then_some("deep")
}

fn whole_family(whole: &WholeJson) -> &'static str {
    match whole.form {
        Form::Json => "whole_json",
        Form::Semicolons => "whole_llama",
        Form::Pythonic => "whole_pythonic",
    }
}

/// What a walk over the segments found.
#[derive(Default)]
struct Seen {
    calls: Vec<Dialect>,
    native: bool,
    fenced: bool,
    reasoning: bool,
    repeated: bool,
}

impl Seen {
    fn parts(&mut self, parts: &[Part]) {
        for part in parts {
            self.segment(&part.segment);
        }
    }

    fn segment(&mut self, segment: &Segment) {
        match segment {
            Segment::Prose(_) => {}
            Segment::Call(call) => {
                let dialect = call.syntax.dialect();
                if !self.calls.contains(&dialect) {
                    self.calls.push(dialect);
                }
            }
            Segment::Native(_) => self.native = true,
            Segment::Fenced(_, parts) => {
                self.fenced = true;
                self.parts(parts);
            }
            Segment::Reasoning(reasoning) => {
                self.reasoning = true;
                self.parts(&reasoning.parts);
            }
            Segment::Repeat(_, segment) => {
                self.repeated = true;
                self.segment(segment);
            }
        }
    }

    fn family(&self) -> &'static str {
        match self.calls.as_slice() {
            _ if self.repeated => "repeated",
            _ if self.fenced => "fenced",
            _ if self.reasoning => "reasoning",
            [] if self.native => "native",
            [] => "prose",
            [one] if !self.native => one.name(),
            _ => "interleaved",
        }
    }
}

/// The dialects the reply writes calls in, anywhere (in fences and reasoning too): a
/// case is sent only when both implementations declare each of them, or neither does.
fn dialects(reply: &Reply) -> Vec<&'static str> {
    let mut found = Vec::new();
    match &reply.body {
        Body::Whole(whole) => found.extend(whole_dialects(whole)),
        Body::Segments(parts) => collect(parts, &mut found),
    }
    if let Some((reasoning, _)) = &reply.reasoning {
        collect(&reasoning.parts, &mut found);
    }
    let mut names: Vec<&'static str> = found.into_iter().map(Dialect::name).collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn whole_dialects(whole: &WholeJson) -> Vec<Dialect> {
    let llama = whole
        .entries
        .iter()
        .any(|e| matches!(e, Entry::Call { llama: true, .. }));
    match whole.form {
        Form::Json if llama => vec![Dialect::WholeJson, Dialect::LlamaJson],
        Form::Json => vec![Dialect::WholeJson],
        Form::Semicolons => vec![Dialect::LlamaJson],
        Form::Pythonic => vec![Dialect::Pythonic],
    }
}

fn collect(parts: &[Part], found: &mut Vec<Dialect>) {
    for part in parts {
        collect_segment(&part.segment, found);
    }
}

fn collect_segment(segment: &Segment, found: &mut Vec<Dialect>) {
    match segment {
        Segment::Prose(_) => {}
        Segment::Call(call) => found.push(call.syntax.dialect()),
        Segment::Native(native) => found.push(native.form.dialect()),
        Segment::Fenced(_, parts) => collect(parts, found),
        Segment::Reasoning(reasoning) => collect(&reasoning.parts, found),
        Segment::Repeat(_, segment) => collect_segment(segment, found),
    }
}
