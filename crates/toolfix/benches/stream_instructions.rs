//! Instruction counts of streaming salvage beside batch salvage (`streaming::inputs`): a
//! noise-free check of issue 13's claims (linear at any chunk size; what a chunk costs)
//! on a machine shared with other work (BENCHMARKS.md, "Streaming").
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*stream_instructions::measured*' \
//!     <this bench's executable> stream-prose strict 16 1048576
//! ```
//!
//! counts the instructions of one salvage of that input (`stream-prose` or
//! `stream-calls`) under that profile, streamed in chunks of that many bytes (`0`: batch
//! salvage of the whole text), at that size. `scripts/benchmarks_table.py stream` runs
//! every combination. Without arguments (as under `cargo test --benches`) it checks each
//! combination once at 16 KiB.

use std::hint::black_box;

use toolfix::salvage::{Allowlist, Request, salvage_under};
use toolfix::{Adapter, Profile};

#[allow(dead_code)]
mod inputs;
#[allow(dead_code)]
mod streaming;

use streaming::{CHUNKS, chunks, inputs, stream};

/// What one salvage reads: the whole text, or the text cut into chunks.
enum Fed<'t> {
    /// Batch salvage of the whole text.
    Whole(&'t str),
    /// A stream of these chunks, cut before the count begins: cutting is the caller's
    /// work (a server's tokens arrive cut), not the stream's.
    Chunks(Vec<&'t str>),
}

impl<'t> Fed<'t> {
    /// `text` whole (`chunk == 0`) or in chunks of `chunk` bytes.
    fn new(text: &'t str, chunk: usize) -> Fed<'t> {
        match chunk {
            0 => Fed::Whole(text),
            size => Fed::Chunks(chunks(text, size)),
        }
    }
}

/// The code whose instructions are counted: one batch salvage or one stream; how many
/// calls came out.
#[inline(never)]
fn measured(fed: &Fed<'_>, tools: &Allowlist, profile: Profile) -> usize {
    match fed {
        Fed::Whole(text) => {
            let request = Request::new(*text, tools).adapter(Adapter::Ollama);
            salvage_under(black_box(&request), profile).map_or(usize::MAX, |calls| calls.len())
        }
        Fed::Chunks(pieces) => stream(black_box(pieces), tools, profile),
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let (wanted, profiles, sizes, size): (Option<&str>, Vec<Profile>, Vec<usize>, usize) =
        match args.as_slice() {
            [input, profile, chunk, size] => (
                Some(input.as_str()),
                vec![profile.parse().expect("a profile")],
                vec![chunk.parse().expect("a chunk size in bytes")],
                size.parse().expect("a size in bytes"),
            ),
            [] => (
                None,
                vec![Profile::PraisonAi, Profile::Strict],
                [0].into_iter().chain(CHUNKS).collect(),
                16 * 1024,
            ),
            _ => panic!("usage: stream_instructions [INPUT PROFILE CHUNK SIZE]"),
        };
    for (name, text, tools) in inputs(size) {
        if wanted.is_some_and(|w| w != name) {
            continue;
        }
        let tools = Allowlist::new(tools);
        for &profile in &profiles {
            let batch = measured(&Fed::new(&text, 0), &tools, profile);
            for &chunk in &sizes {
                let fed = Fed::new(&text, chunk);
                assert_eq!(measured(&fed, &tools, profile), batch, "{name} {chunk}");
            }
        }
    }
}
