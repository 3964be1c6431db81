//! The one-pass reading (issue 32) held to its definitions: its memo (one scan of a
//! dialect serving every later place it can) to a scan at every place, and a stream to
//! batch salvage: under every chunking, a stream gives out the calls batch salvage
//! finds, at their place, and gives most of them before the reply ends.

use std::path::{Path, PathBuf};

use arbitrary::Unstructured;
use toolfix::Adapter;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::{Allowlist, Call, Event, Request, Stream, salvage, salvage_unmemoised};
use toolfix_fuzzing::choice::Mode;
use toolfix_fuzzing::reply::Reply;
use toolfix_harness::protocol::ops::tool_entries;
use toolfix_harness::suite::load_dir;

/// Grammar replies of each mode.
const GRAMMAR_REPLIES: usize = 800;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The calls of two salvages of `request`, when they differ.
fn differ_by(
    request: &Request<'_>,
    one: fn(&Request<'_>) -> Vec<Call>,
    other: fn(&Request<'_>) -> Vec<Call>,
) -> Option<(String, String)> {
    let show = |calls: Vec<Call>| {
        calls
            .iter()
            .map(|c| {
                format!(
                    "{}:{:?}{:?} {}",
                    c.dialect(),
                    c.name(),
                    c.span(),
                    c.arguments_text()
                )
            })
            .collect::<Vec<_>>()
            .join("\n    ")
    };
    let (one, other) = (show(one(request)), show(other(request)));
    (one != other).then_some((one, other))
}

/// Runs `check` on a thread with room for CPython's recursion limits.
fn with_stack(check: fn()) {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(check)
        .unwrap()
        .join()
        .unwrap();
}

/// A salvage spec case's input: its id, reply and tools (it is read through an adapter
/// that salvages, whichever its case names).
struct SalvageCase {
    id: String,
    content: PyStr,
    tools: Allowlist,
    /// Each offered entry's name when it is a plain string, else `None`.
    names: Vec<Option<String>>,
}

/// Every salvage spec case whose tool list `strict` reads (a malformed list is an error
/// before salvage runs).
fn salvage_cases() -> Vec<SalvageCase> {
    let cases = load_dir(&repository().join("spec-cases")).expect("the suite loads");
    cases
        .iter()
        .filter(|case| case.op == "salvage")
        .filter_map(|case| {
            let input = &case.input;
            let (Some(Value::Str(content)), Some(Value::List(tools))) =
                (input.get("content"), input.get("tools"))
            else {
                return None;
            };
            let entries = tool_entries(tools);
            let names = tools
                .iter()
                .map(|tool| match tool {
                    Value::Str(name) => name.as_str().map(str::to_owned),
                    _ => None,
                })
                .collect();
            let tools = Allowlist::from_tool_entries(&entries);
            Some(SalvageCase {
                id: case.id.clone(),
                content: content.clone(),
                tools,
                names,
            })
        })
        .collect()
}

/// Deterministic bytes for the grammar.
fn grammar_bytes(i: usize, state: &mut u64) -> Vec<u8> {
    (0..64 + i % 900)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            *state as u8
        })
        .collect()
}

/// The longest reply cut one code point a chunk.
const CODE_POINT_CHUNKS_UP_TO: usize = 1024;

/// The cuts of `text` into chunks: one chunk, seeded sizes of 1 to 7 and 1 to 64 bytes
/// (moved to the next character boundary), and one code point a chunk.
fn chunkings(text: &str, seed: u64) -> Vec<Vec<usize>> {
    let mut state = seed | 1;
    let mut sized = |most: usize| {
        let mut cuts = Vec::new();
        let mut at = 0;
        while at < text.len() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            at = (at + 1 + state as usize % most).min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            cuts.push(at);
        }
        cuts
    };
    let mut chunkings = vec![vec![text.len()], sized(7), sized(64)];
    // One code point a chunk costs a look per code point: kept to replies of a page.
    if text.len() <= CODE_POINT_CHUNKS_UP_TO {
        chunkings.push(text.char_indices().map(|(i, c)| i + c.len_utf8()).collect());
    }
    chunkings
}

/// How many calls streams gave out before the end of their reply, of how many.
#[derive(Default)]
struct Early {
    given: usize,
    calls: usize,
}

/// What a stream of `text` cut at `cuts` gives: the calls, each with whether it came
/// before the last chunk was fed.
fn streamed(text: &str, cuts: &[usize], tools: &Allowlist) -> Vec<(Call, bool)> {
    let mut stream = Stream::new(tools, Adapter::Ollama);
    let mut calls = Vec::new();
    let mut at = 0;
    for (index, &cut) in cuts.iter().enumerate() {
        let early = index + 1 < cuts.len();
        stream.feed(&text[at..cut], &mut |event| {
            if let Event::Call(call) = event {
                calls.push((call, early));
            }
        });
        at = cut;
    }
    stream.finish(&mut |event| {
        if let Event::Call(call) = event {
            calls.push((call, false));
        }
    });
    calls
}

/// Where a stream of `request`'s reply ends with other calls than batch salvage (by
/// name, span and arguments), under some chunking.
fn stream_differs(
    request: &Request<'_>,
    tools: &Allowlist,
    text: &str,
    seed: u64,
    early: &mut Early,
) -> Option<String> {
    let show = |calls: &mut dyn Iterator<Item = &Call>| {
        calls
            .map(|c| format!("{:?}{:?} {}", c.name(), c.span(), c.arguments_text()))
            .collect::<Vec<_>>()
    };
    let batch = show(&mut salvage(request).iter());
    for cuts in chunkings(text, seed) {
        let calls = streamed(text, &cuts, tools);
        let ends = show(&mut calls.iter().map(|(call, _)| call));
        if ends != batch {
            return Some(format!(
                "cut at {cuts:?}: streamed {ends:?}, batch {batch:?}"
            ));
        }
        if cuts.len() > 1 {
            early.given += calls.iter().filter(|(_, early)| *early).count();
            early.calls += calls.len();
        }
    }
    None
}

#[test]
fn streams_read_as_batch_on_every_spec_case() {
    with_stack(|| {
        let mut differing = Vec::new();
        let mut early = Early::default();
        for case in salvage_cases() {
            let Some(text) = case.content.as_str() else {
                continue;
            };
            let tools = &case.tools;
            for text in [text.to_owned(), opened(text)] {
                let request = Request::new(text.as_str(), tools).adapter(Adapter::Ollama);
                let seed = case.id.len() as u64;
                if let Some(why) = stream_differs(&request, tools, &text, seed, &mut early) {
                    differing.push(format!("{}: {why}", case.id));
                }
            }
        }
        assert!(differing.is_empty(), "{}", differing.join("\n"));
        // The streams are not held to the end: a third of the calls, at least, come out
        // before it (the replies after a reasoning block give theirs early).
        assert!(
            3 * early.given >= early.calls,
            "{} of {}",
            early.given,
            early.calls
        );
    });
}

#[test]
fn streams_read_as_batch_on_grammar_replies() {
    with_stack(|| {
        let mut state = 0x2545_F491_4F6C_DD1D;
        let mut differing = Vec::new();
        let mut early = Early::default();
        for i in 0..STREAMED_REPLIES {
            let bytes = grammar_bytes(i, &mut state);
            let mode = [Mode::Clean, Mode::Hostile][i % 2];
            let reply = Reply::generate(&mut Unstructured::new(&bytes), mode).unwrap();
            let tools = reply.offered.allowlist();
            let text = reply.render().text;
            for text in [text.clone(), opened(&text)] {
                let request = Request::new(text.as_str(), &tools).adapter(Adapter::Ollama);
                if let Some(why) = stream_differs(&request, &tools, &text, i as u64, &mut early) {
                    differing.push(format!("{text:?}: {why}"));
                }
            }
        }
        assert!(differing.is_empty(), "{}", differing.join("\n"));
    });
}

/// Every salvage spec case with its offered names stretched past the look-ahead, as a
/// stream sees them: a name, key or index of any dialect that runs longer than
/// `pass::LOOK_AHEAD` must be decided as batch salvage decides it (F40), whether the
/// dialect bounds it (then no call) or reads it whole.
#[test]
fn streams_read_as_batch_with_names_past_the_look_ahead() {
    with_stack(|| {
        let mut differing = Vec::new();
        let mut early = Early::default();
        let stretch = "n".repeat(330);
        for (case, names) in salvage_cases().iter().filter_map(with_plain_names) {
            let Some(text) = case.content.as_str() else {
                continue;
            };
            let Some(name) = names.iter().find(|name| text.contains(name.as_str())) else {
                continue;
            };
            let long = format!("{name}_{stretch}");
            let text = text.replace(name.as_str(), &long);
            let tools = Allowlist::new(names.iter().map(|n| n.replace(name.as_str(), &long)));
            for text in [text.clone(), opened(&text)] {
                let request = Request::new(text.as_str(), &tools).adapter(Adapter::Ollama);
                let seed = case.id.len() as u64;
                if let Some(why) = stream_differs(&request, &tools, &text, seed, &mut early) {
                    differing.push(format!("{}: {why}", case.id));
                }
            }
        }
        assert!(differing.is_empty(), "{}", differing.join("\n"));
    });
}

/// A case and its offered names, when every tool it offers is a plain name (a schema
/// would have to be stretched too).
fn with_plain_names(case: &SalvageCase) -> Option<(&SalvageCase, Vec<String>)> {
    let names = case
        .names
        .iter()
        .cloned()
        .collect::<Option<Vec<String>>>()?;
    Some((case, names))
}

/// `text` after a closed reasoning block and before prose long enough to decide every
/// region: a reply a stream gives calls out of before its end (without a reasoning
/// marker, an unopened `</think>` could still withdraw them, so none is given early).
fn opened(text: &str) -> String {
    format!(
        "<think>Let me see.</think>\nSure. {text}\n{}",
        "Done. ".repeat(80)
    )
}

/// Grammar replies streamed under every chunking.
const STREAMED_REPLIES: usize = 60;

/// Where the memo of the one-pass reading (one scan of a dialect serving every later
/// place it can) reads `request` otherwise than a scan at every place.
fn memo_differs(request: &Request<'_>, text: &str) -> Option<String> {
    let (memo, fresh) = differ_by(request, salvage, salvage_unmemoised)?;
    Some(format!("{text:?}\n  memo: {memo}\n  fresh: {fresh}"))
}

#[test]
fn the_memo_reads_as_a_scan_at_every_place() {
    with_stack(|| {
        let mut differing = Vec::new();
        for case in salvage_cases() {
            let Some(text) = case.content.as_str() else {
                continue;
            };
            for text in [text.to_owned(), opened(text)] {
                let request = Request::new(text.as_str(), &case.tools).adapter(Adapter::Ollama);
                differing.extend(memo_differs(&request, &text));
            }
        }
        let mut state = 0x5851_F42D_4C95_7F2D;
        for i in 0..GRAMMAR_REPLIES {
            let bytes = grammar_bytes(i, &mut state);
            let mode = [Mode::Clean, Mode::Hostile][i % 2];
            let reply = Reply::generate(&mut Unstructured::new(&bytes), mode).unwrap();
            let tools = reply.offered.allowlist();
            let text = reply.render().text;
            let request = Request::new(text.as_str(), &tools).adapter(Adapter::Ollama);
            differing.extend(memo_differs(&request, &text));
        }
        assert!(differing.is_empty(), "{}", differing.join("\n"));
    });
}
