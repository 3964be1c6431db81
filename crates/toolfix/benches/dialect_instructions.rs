//! Instruction counts of the dialect families (`inputs::DIALECT_FAMILIES`) under
//! `strict`: a noise-free check that each grows linearly, for a machine shared with other
//! work (BENCHMARKS.md).
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*dialect_instructions::measured*' \
//!     <this bench's executable> mistral-v11-chain 1048576
//! ```
//!
//! counts the instructions of one salvage of that family's reply of that size;
//! `scripts/benchmarks_table.py dialects --callgrind` does this at 256 KiB and 1 MiB for
//! every family. Without arguments (as under `cargo test --benches`) it runs each family
//! once at 16 KiB.

use std::hint::black_box;

use toolfix::salvage::salvage;

// Each bench uses its part of the shared inputs.
#[allow(dead_code)]
mod inputs;

/// The code whose instructions are counted: one salvage of `reply` under `strict`.
#[inline(never)]
fn measured(reply: &inputs::Reply) -> usize {
    let tools = reply.allowlist();
    let request = reply.request(&tools);
    salvage(black_box(&request)).len()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let runs: Vec<(&inputs::Family, usize)> = match args.as_slice() {
        [name, size] => {
            let family = inputs::DIALECT_FAMILIES
                .iter()
                .find(|f| f.name == name)
                .unwrap_or_else(|| panic!("no dialect family is called {name:?}"));
            vec![(family, size.parse().expect("a size in bytes"))]
        }
        [] => inputs::DIALECT_FAMILIES
            .iter()
            .map(|f| (f, 16 * inputs::KIB))
            .collect(),
        _ => panic!("usage: dialect_instructions [FAMILY SIZE]"),
    };
    for (family, size) in runs {
        let reply = inputs::adversarial_reply(family, size);
        assert_eq!(measured(&reply), reply.calls, "{}", reply.key());
    }
}
