//! Instruction counts on the clean path: a noise-free cross-check of the timed ratio of
//! salvage to the memmem floor (BENCHMARKS.md), for a machine shared with other work.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*clean_instructions::measured*' \
//!     <this bench's executable> salvage 65536
//! ```
//!
//! counts the instructions of `RUNS` runs of `salvage` or `memmem` on the clean
//! reply of that size; `scripts/benchmarks_table.py --callgrind` does this for every size.
//! Without arguments (as under `cargo test --benches`) it runs each once on each size.

use std::hint::black_box;

use memchr::memmem::Finder;
use toolfix::Profile;
use toolfix::salvage::salvage_under;

// Each bench uses its part of the shared inputs.
#[allow(dead_code)]
mod inputs;

/// Runs per count, so the counts of setup and of the first (cold) run vanish.
const RUNS: usize = 1000;

/// The code whose instructions are counted: `runs` runs of `kind` on `reply`.
#[inline(never)]
fn measured(kind: &str, reply: &inputs::Reply, runs: usize) -> usize {
    let tools = reply.allowlist();
    let request = reply.request(&tools);
    let finder = Finder::new(b"<tool_call>");
    let text = reply.text.as_bytes();
    (0..runs)
        .map(|_| match kind {
            "salvage" => salvage_under(black_box(&request), Profile::PraisonAi)
                .map_or(1, |calls| calls.len()),
            "memmem" => usize::from(finder.find(black_box(text)).is_some()),
            _ => panic!("unknown kind {kind:?}: salvage or memmem"),
        })
        .sum()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let (kinds, sizes, runs) = match args.as_slice() {
        [kind, size] => (
            vec![kind.as_str()],
            vec![size.parse().expect("a size in bytes")],
            RUNS,
        ),
        [] => (vec!["salvage", "memmem"], inputs::PROSE_SIZES.to_vec(), 1),
        _ => panic!("usage: clean_instructions [salvage|memmem SIZE]"),
    };
    for size in sizes {
        let reply = inputs::prose_replies()
            .into_iter()
            .find(|r| r.group == "clean" && r.len() == size)
            .expect("a clean reply of that size");
        inputs::check_prose(&reply);
        for &kind in &kinds {
            assert_eq!(measured(kind, &reply, runs), 0, "{kind} found something");
        }
    }
    println!("runs: {runs}");
}
