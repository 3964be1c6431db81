//! Streaming checks: every salvage case, sent as `salvage_stream` under several
//! chunkings, to an implementation that declares the op.
//!
//! A check's id is the case id, `@`, and the chunking: `one-chunk`; `code-points` (one
//! code point per chunk, for replies up to `MAX_CODE_POINT_CHUNKS`); `small` and `large`,
//! chunks of 1 to 8 and of 16 to 256 code points drawn from a generator seeded by the
//! case id (so a failure reproduces, and the id stays the same from run to run); and
//! `marker-cuts`, cutting one code point into and halfway through every marker of every
//! dialect (and every closer, fence and reasoning tag) in the reply. For a driver that
//! declares `token_chunks` no chunking cuts inside a special token (`tokens`). Each check
//! expects the case's calls, each no later than the reference emits it, and the
//! reference's displayable text (`suite::streamed`).

use super::tokens;
use crate::protocol::ops;
use crate::suite::{Case, Expectation, Expected, semantic};
use toolfix::Profile;
use toolfix::py::{PyStr, Value};

/// Replies longer than this many code points get no `code-points` chunking: its request
/// line would be a list of that many strings.
const MAX_CODE_POINT_CHUNKS: usize = 4096;

/// The markers `marker-cuts` cuts inside, matched in any ASCII case.
const MARKERS: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "</function>",
    "[tool_call]",
    "[/tool_call]",
    "[tool_request]",
    "[end_tool_request]",
    "<|python_tag|>",
    "action",
    "action input",
    "[tool_calls]",
    "[args]",
    "[call_id]",
    "<parameter=",
    "</parameter>",
    "<arg_key>",
    "<arg_value>",
    "<|tool_call_begin|>",
    "<|tool_call_end|>",
    "<|tool_call_argument_begin|>",
    "<|tool_calls_section_begin|>",
    "<|message|>",
    "<|call|>",
    "<|channel|>",
    "to=functions.",
    "<start_function_call>",
    "<end_function_call>",
    "<escape>",
    "<|tool_call>",
    "<tool_call|>",
    "<minimax:tool_call>",
    "<invoke",
    "</invoke>",
    "<|tool_call|>",
    "functools[",
    "<|python_start|>",
    "<|tool_call_start|>",
    "<think>",
    "</think>",
    "```",
    "~~~",
    "<\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>",
    "<\u{ff5c}tool\u{2581}sep\u{ff5c}>",
    "<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}>",
    "<\u{ff5c}dsml\u{ff5c}",
];

/// The streaming checks of `cases` under `profile`: one per salvage case that applies to
/// it and chunking of its reply; `token_chunks` keeps special tokens whole.
pub fn checks(cases: &[Case], profile: Profile, token_chunks: bool) -> Vec<Case> {
    cases
        .iter()
        .filter(|c| c.op == "salvage")
        .filter_map(|c| Some((c, c.expectation(profile)?)))
        .flat_map(|(case, expectation)| {
            let content = case.input.get("content").and_then(Value::as_py_str);
            content
                .map(|content| chunkings(content.as_bytes(), &case.id, token_chunks))
                .unwrap_or_default()
                .into_iter()
                .map(move |(name, cuts)| check(case, expectation, &name, &cuts))
        })
        .collect()
}

/// One check: `case` with its reply cut at `cuts`.
fn check(case: &Case, expectation: &Expectation, name: &str, cuts: &[usize]) -> Case {
    let content = case
        .input
        .get("content")
        .and_then(Value::as_py_str)
        .expect("a reply");
    let mut input = Value::dict([("chunks", chunks(content, cuts))]);
    if let (Value::Dict(dict), Some(Value::Dict(original))) = (
        &mut input,
        case.input.as_dict().map(|d| Value::Dict(d.clone())),
    ) {
        for (key, value) in original.iter().filter(|(k, _)| k.as_bytes() != b"content") {
            dict.insert(key.clone(), value.clone());
        }
    }
    let reference = ops::run("salvage_stream", &input, expectation.profile);
    let expected = match &expectation.expected {
        Expected::Output(output) => {
            Expected::Output(streamed_expectation(output, &reference, cuts.len() + 1))
        }
        raises => raises.clone(),
    };
    let accepted = expectation
        .accepted
        .iter()
        .map(|other| accepted_streamed(other, content, cuts.len() + 1))
        .collect();
    let mut tags = case.tags.clone();
    tags.push("stream".to_owned());
    Case {
        id: format!("{}@{name}", case.id),
        op: "salvage_stream".to_owned(),
        input,
        tags,
        dialects: case.dialects.clone(),
        forms: case.forms.clone(),
        source: case.source.clone(),
        policies: case.policies.clone(),
        documented: None,
        expectations: vec![Expectation {
            expected,
            accepted,
            ..expectation.clone()
        }],
    }
}

/// Another answer the case accepts, as a stream gives it: its calls, which may come as
/// late as the stream's end (the reference's timing is of its own answer), and, when it
/// has none, the whole reply shown.
fn accepted_streamed(output: &Value, reply: &PyStr, chunks: usize) -> Value {
    let end = Value::int(i64::try_from(chunks).unwrap_or(i64::MAX));
    let calls = match output.get("calls") {
        Some(Value::List(items)) => Value::List(
            items
                .iter()
                .map(|call| {
                    let mut call = call.clone();
                    if let Value::Dict(dict) = &mut call {
                        dict.insert(PyStr::from("after_chunk"), end.clone());
                    }
                    call
                })
                .collect(),
        ),
        _ => Value::None,
    };
    Value::dict([("calls", calls), ("content", Value::Str(reply.clone()))])
}

/// The case's calls with the reference's `after_chunk` for each, and the reference's
/// content. When the reference streamed other calls than the case's (a case about a
/// policy the reference does not declare, such as a call drafted in reasoning under
/// `masks_reasoning = false`), its timing is of another answer: each call may then come
/// as late as the stream's end (`chunks`, the number of chunks).
fn streamed_expectation(
    output: &Value,
    reference: &crate::protocol::message::Answer,
    chunks: usize,
) -> Value {
    let end = Value::int(i64::try_from(chunks).unwrap_or(i64::MAX));
    let reference = match reference {
        crate::protocol::message::Answer::Output(value) => Some(value),
        _ => None,
    };
    let reference_calls: &[Value] = match reference.and_then(|r| r.get("calls")) {
        Some(Value::List(items)) => items,
        _ => &[],
    };
    let calls = match output.get("calls") {
        Some(Value::List(items)) => {
            let same_calls = semantic::calls_in(output) == reference.and_then(semantic::calls_in);
            let calls = items.iter().enumerate().map(|(k, call)| {
                let after = reference_calls
                    .get(k)
                    .filter(|_| same_calls)
                    .and_then(|c| c.get("after_chunk"));
                let mut call = call.clone();
                if let Value::Dict(dict) = &mut call {
                    dict.insert(
                        PyStr::from("after_chunk"),
                        after.cloned().unwrap_or_else(|| end.clone()),
                    );
                }
                call
            });
            Value::List(calls.collect())
        }
        _ => Value::None,
    };
    let content = reference
        .and_then(|r| r.get("content"))
        .cloned()
        .unwrap_or(Value::None);
    Value::dict([("calls", calls), ("content", content)])
}

/// The reply cut at `cuts` (sorted byte offsets at code point boundaries).
fn chunks(content: &PyStr, cuts: &[usize]) -> Value {
    let bytes = content.as_bytes();
    let mut at = 0;
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    for &cut in cuts.iter().chain([&bytes.len()]) {
        let piece = PyStr::from_surrogatepass(&bytes[at..cut]).unwrap_or_default();
        chunks.push(Value::Str(piece));
        at = cut;
    }
    Value::List(chunks)
}

/// Every chunking of `text`: its name and its cuts (never inside a special token when
/// `token_chunks`).
fn chunkings(text: &[u8], id: &str, token_chunks: bool) -> Vec<(String, Vec<usize>)> {
    let starts: Vec<usize> = (1..text.len())
        .filter(|&i| text[i] & 0xC0 != 0x80)
        .filter(|&i| !token_chunks || !tokens::splits_a_token(text, i))
        .collect();
    let seed = fnv1a(id.as_bytes());
    let mut out = vec![("one-chunk".to_owned(), Vec::new())];
    if starts.len() < MAX_CODE_POINT_CHUNKS {
        out.push(("code-points".to_owned(), starts.clone()));
    }
    out.push(("small".to_owned(), random_cuts(&starts, seed, 1, 8)));
    out.push((
        "large".to_owned(),
        random_cuts(&starts, seed ^ 0x9E37, 16, 256),
    ));
    let marker_cuts = marker_cuts(text, &starts);
    if !marker_cuts.is_empty() {
        out.push(("marker-cuts".to_owned(), marker_cuts));
    }
    out
}

/// Cuts every `min..=max` code points (of `starts`, the code point boundaries).
fn random_cuts(starts: &[usize], seed: u64, min: usize, max: usize) -> Vec<usize> {
    let mut state = seed;
    let mut cuts = Vec::new();
    let mut k = 0;
    loop {
        state = splitmix(state);
        k += min + (state % (max - min + 1) as u64) as usize;
        match starts.get(k - 1) {
            Some(&cut) => cuts.push(cut),
            None => return cuts,
        }
    }
}

/// One code point into, and halfway through, every marker occurrence.
fn marker_cuts(text: &[u8], starts: &[usize]) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let mut cuts = Vec::new();
    for marker in MARKERS {
        for at in memchr::memmem::find_iter(&lower, marker.as_bytes()) {
            let inside = [at + 1, at + marker.len() / 2];
            cuts.extend(inside.iter().filter_map(|&i| {
                let k = starts.partition_point(|&s| s < i);
                starts.get(k).copied().filter(|&s| s < at + marker.len())
            }));
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_chunks_never_cut_inside_a_special_token() {
        let text = "ok <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>".as_bytes();
        let every = chunkings(text, "x", false);
        let split = |cuts: &[usize]| cuts.iter().any(|&c| tokens::splits_a_token(text, c));
        assert!(every.iter().any(|(_, cuts)| split(cuts)));
        for (name, cuts) in chunkings(text, "x", true) {
            assert!(!split(&cuts), "{name} cuts inside a token");
        }
    }

    /// A call drafted in reasoning, under `masks_reasoning = false`: the reference masks
    /// reasoning and streams no call, so the check may not take its timing (`null`, which
    /// no stream meets); the call may come as late as the stream's end.
    #[test]
    fn a_call_the_reference_does_not_stream_may_come_at_the_end() {
        // spec-cases/salvage-fences/think-blocks.toml, draft-call-inside-think-is-recovered.
        let text = r#"
[[case]]
name = "draft"
op = "salvage"
tools = ["get_weather"]
adapter = "ollama"
dialects = ["tool_call"]
source = "behaviour §2(e).3: only ``` and ~~~ runs are masked; <think> is not a fence"
content = '<think>I could call <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call> but wait.</think>Let me look.'
expect.calls = [["get_weather", '{"city": "Oslo"}']]
portable = { rule = "G7" }
policies = { masks_reasoning = false }
"#;
        let path = std::path::Path::new("t.toml");
        let cases = crate::suite::load::load_text("t", path, text).expect("the case");
        for check in checks(&cases, Profile::Portable, false) {
            let chunks = match check.input.get("chunks") {
                Some(Value::List(chunks)) => chunks.len(),
                _ => panic!("{}: no chunks", check.id),
            };
            let Expected::Output(expected) = &check.expectations[0].expected else {
                panic!("{}: an output", check.id);
            };
            let Some(Value::List(calls)) = expected.get("calls") else {
                panic!("{}: calls", check.id);
            };
            let end = Value::int(i64::try_from(chunks).unwrap());
            assert_eq!(calls[0].get("after_chunk"), Some(&end), "{}", check.id);
        }
    }

    #[test]
    fn chunking_names_are_the_same_for_every_case() {
        let names = |id| -> Vec<String> {
            chunkings(b"<tool_call>{}</tool_call>", id, false)
                .into_iter()
                .map(|(name, _)| name)
                .collect()
        };
        assert_eq!(names("a"), names("b"));
        assert_eq!(
            names("a"),
            ["one-chunk", "code-points", "small", "large", "marker-cuts"]
        );
    }
}
