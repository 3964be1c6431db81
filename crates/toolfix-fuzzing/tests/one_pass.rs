//! The one-pass reading (`toolfix::salvage::salvage_one_pass`, issue 32) held to today's
//! scan (`salvage`) under `strict`, while the two are built side by side: on every salvage
//! spec case but those `tests/one_pass/differences.toml` lists with the reason, on every
//! corpus item but those it lists, and on replies of the fuzzing grammar. And the same
//! reading streamed held to itself in batch: under every chunking, a stream gives out
//! only calls batch salvage has, at their place, and ends with all of them.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use arbitrary::Unstructured;
use serde::Deserialize;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::{
    Allowlist, Call, Request, SalvageError, salvage, salvage_one_pass, salvage_one_pass_chunked,
    salvage_one_pass_unmemoised,
};
use toolfix::{Adapter, Profile};
use toolfix_fuzzing::choice::Mode;
use toolfix_fuzzing::reply::Reply;
use toolfix_harness::protocol::ops::tool_entries;
use toolfix_harness::suite::load_dir;

/// The listed differences.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Differences {
    difference: Vec<Difference>,
}

/// A case the two read differently on purpose.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Difference {
    case: String,
    why: String,
}

/// Hostile grammar replies the two may read differently, at most, of `GRAMMAR_REPLIES`:
/// calls whose strings hold a fence mark or a reasoning marker, which today's scan
/// masks and the one-pass reading leaves to the call. The bound only goes down.
const HOSTILE_DIFFERENCES: usize = 7;

/// Grammar replies of each mode.
const GRAMMAR_REPLIES: usize = 800;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The calls of `salvage` and `salvage_one_pass`, when they differ.
fn differ(request: &Request<'_>) -> Option<(String, String)> {
    differ_by(request, salvage, salvage_one_pass)
}

/// The calls of two salvages of `request`, when they differ.
fn differ_by(
    request: &Request<'_>,
    one: fn(&Request<'_>) -> Result<Vec<Call>, SalvageError>,
    other: fn(&Request<'_>) -> Result<Vec<Call>, SalvageError>,
) -> Option<(String, String)> {
    let show = |result: Result<Vec<Call>, SalvageError>| match result {
        Ok(calls) => calls
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
            .join("\n    "),
        Err(error) => format!("error {error}"),
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

/// A salvage spec case's input: its id, reply, tools and adapter.
struct SalvageCase {
    id: String,
    content: PyStr,
    tools: Allowlist,
    adapter: Adapter,
}

/// Every salvage spec case whose tool list `strict` reads (a malformed list is an error
/// before salvage runs, the same for both readings).
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
            let adapter = match input.get("adapter") {
                Some(Value::Str(name)) => name.to_string().parse().ok()?,
                _ => Adapter::Local,
            };
            let entries = tool_entries(tools);
            let tools = Allowlist::from_tool_entries(&entries, Profile::Strict).ok()?;
            Some(SalvageCase {
                id: case.id.clone(),
                content: content.clone(),
                tools,
                adapter,
            })
        })
        .collect()
}

/// The spec cases and corpus items listed as read differently on purpose.
fn listed() -> BTreeSet<String> {
    let path = repository().join("crates/toolfix-fuzzing/tests/one_pass/differences.toml");
    let listed: Differences = toml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert!(listed.difference.iter().all(|d| !d.why.trim().is_empty()));
    listed.difference.into_iter().map(|d| d.case).collect()
}

/// Fails on a difference not listed, and on a listed one of `kind` that no longer
/// differs.
fn check_listed(found: &BTreeSet<String>, unlisted: &[String], kind: &str) {
    assert!(
        unlisted.is_empty(),
        "unlisted differences:\n{}",
        unlisted.join("\n")
    );
    let gone: Vec<_> = listed()
        .into_iter()
        .filter(|id| id.starts_with("corpus/") == (kind == "corpus") && !found.contains(id))
        .collect();
    assert!(
        gone.is_empty(),
        "listed cases that no longer differ: {gone:?}"
    );
}

#[test]
fn spec_cases_read_the_same_but_where_listed() {
    with_stack(|| {
        let listed = listed();
        let mut found = BTreeSet::new();
        let mut unlisted = Vec::new();
        for case in salvage_cases() {
            let request = Request::new(&case.content, &case.tools)
                .adapter(case.adapter)
                .profile(Profile::Strict);
            if let Some((scan, pass)) = differ(&request) {
                found.insert(case.id.clone());
                if !listed.contains(&case.id) {
                    unlisted.push(format!("{}\n  scan: {scan}\n  pass: {pass}", case.id));
                }
            }
        }
        check_listed(&found, &unlisted, "spec");
    });
}

#[test]
fn corpus_items_read_the_same_but_where_listed() {
    with_stack(|| {
        let listed = listed();
        let (mut found, mut unlisted) = (BTreeSet::new(), Vec::new());
        for category in fs::read_dir(repository().join("corpus")).unwrap() {
            let category = category.unwrap().path();
            if !category.is_dir() {
                continue;
            }
            for item in fs::read_dir(&category).unwrap() {
                let item = item.unwrap().path();
                let table: toml::Table = fs::read_to_string(&item).unwrap().parse().unwrap();
                let content = table["content"].as_str().unwrap();
                let names = table["tools"].as_array().unwrap();
                let names = names.iter().map(|n| n.as_str().unwrap());
                let adapter: Adapter = table["adapter"].as_str().unwrap().parse().unwrap();
                let tools = Allowlist::new(names);
                let request = Request::new(content, &tools).adapter(adapter);
                let id = format!(
                    "corpus/{}/{}",
                    category.file_name().unwrap().to_string_lossy(),
                    item.file_stem().unwrap().to_string_lossy()
                );
                if let Some((scan, pass)) = differ(&request) {
                    found.insert(id.clone());
                    if !listed.contains(&id) {
                        unlisted.push(format!("{id}\n  scan: {scan}\n  pass: {pass}"));
                    }
                }
            }
        }
        check_listed(&found, &unlisted, "corpus");
    });
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

/// How many of `GRAMMAR_REPLIES` replies of `mode` the two read differently, with the
/// first few.
fn grammar_differences(mode: Mode) -> (usize, Vec<String>) {
    let mut state = 0x9E37_79B9_7F4A_7C15;
    let mut shown = Vec::new();
    let mut count = 0;
    for i in 0..GRAMMAR_REPLIES {
        let bytes = grammar_bytes(i, &mut state);
        let reply = Reply::generate(&mut Unstructured::new(&bytes), mode).unwrap();
        let tools = reply.offered.allowlist();
        let text = reply.render().text;
        let request = Request::new(text.as_str(), &tools).adapter(Adapter::Ollama);
        if let Some((scan, pass)) = differ(&request) {
            count += 1;
            if shown.len() < 5 {
                shown.push(format!("{text:?}\n  scan: {scan}\n  pass: {pass}"));
            }
        }
    }
    (count, shown)
}

#[test]
fn clean_grammar_replies_read_the_same() {
    with_stack(|| {
        let (count, shown) = grammar_differences(Mode::Clean);
        assert_eq!(count, 0, "{}", shown.join("\n"));
    });
}

#[test]
fn hostile_grammar_replies_rarely_read_differently() {
    with_stack(|| {
        let (count, shown) = grammar_differences(Mode::Hostile);
        eprintln!("hostile differences: {count} of {GRAMMAR_REPLIES}");
        assert!(
            count <= HOSTILE_DIFFERENCES,
            "{count}:\n{}",
            shown.join("\n")
        );
    });
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

/// Where a stream of `request`'s reply gives out a call batch salvage does not have at
/// that place, or ends with other calls than batch salvage.
fn stream_differs(
    request: &Request<'_>,
    text: &str,
    seed: u64,
    early: &mut Early,
) -> Option<String> {
    let batch = salvage_one_pass(request).ok()?;
    let spans: Vec<_> = batch.iter().map(Call::span).collect();
    for cuts in chunkings(text, seed) {
        let (given, calls) = salvage_one_pass_chunked(request, &cuts).ok()?;
        let ends: Vec<_> = calls.iter().map(Call::span).collect();
        if ends != spans {
            return Some(format!("at the end {ends:?}, batch {spans:?}"));
        }
        if cuts.len() > 1 {
            let before_the_end = given[..cuts.len() - 1].iter().map(Vec::len).max();
            early.given += before_the_end.unwrap_or(0);
            early.calls += spans.len();
        }
        for (cut, given) in cuts.iter().zip(given) {
            if !spans.starts_with(&given) {
                return Some(format!("after {cut} bytes gave {given:?}, batch {spans:?}"));
            }
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
                if let Some(why) = stream_differs(&request, &text, seed, &mut early) {
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
                if let Some(why) = stream_differs(&request, &text, i as u64, &mut early) {
                    differing.push(format!("{text:?}: {why}"));
                }
            }
        }
        assert!(differing.is_empty(), "{}", differing.join("\n"));
    });
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
    let (memo, fresh) = differ_by(request, salvage_one_pass, salvage_one_pass_unmemoised)?;
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
