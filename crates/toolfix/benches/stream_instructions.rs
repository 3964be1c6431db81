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

/// The code whose instructions are counted: one batch salvage (`chunk == 0`) or one
/// stream of `text` in chunks of `chunk` bytes; how many calls came out.
#[inline(never)]
fn measured(text: &str, tools: &Allowlist, profile: Profile, chunk: usize) -> usize {
    match chunk {
        0 => {
            let request = Request::new(text, tools).adapter(Adapter::Ollama);
            salvage_under(black_box(&request), profile).map_or(usize::MAX, |calls| calls.len())
        }
        size => stream(black_box(&chunks(text, size)), tools, profile),
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
            let batch = measured(&text, &tools, profile, 0);
            for &chunk in &sizes {
                assert_eq!(
                    measured(&text, &tools, profile, chunk),
                    batch,
                    "{name} {chunk}"
                );
            }
        }
    }
}
