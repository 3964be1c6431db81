//! The fuzz targets' bodies: each takes the fuzzer's bytes and panics on a violation.

mod execute;
mod fence;
mod groups;
mod protocol;
mod pyjson;
mod salvage;
mod salvage_grammar;
mod salvage_input;
mod salvage_oracles;
mod stream;
mod template;

pub use execute::execute;
pub use fence::fence;
pub use groups::groups;
pub use protocol::protocol;
pub use pyjson::{pyjson, pyjson_every_pick};
pub use salvage::{salvage, salvage_every_pick};
pub use salvage_grammar::{salvage_grammar, salvage_grammar_every_pick};
pub use salvage_oracles::salvage_oracles;
pub use stream::{stream, stream_every_pick};
pub use template::template;

use super::budget::Budget;

/// Every target, by the name of its `fuzz/fuzz_targets/` file.
pub const TARGETS: [&str; 10] = [
    "salvage",
    "salvage_grammar",
    "salvage_oracles",
    "fence",
    "pyjson",
    "execute",
    "protocol",
    "stream",
    "template",
    "groups",
];

/// The directory of `fuzz/regressions/` whose inputs `target` replays: its own name,
/// except that `salvage_grammar` and `salvage_oracles` replay `salvage`'s, since the
/// three read the same inputs and a finding of any must stay fixed under all.
pub fn regressions_of(target: &str) -> &str {
    match target {
        "salvage_grammar" | "salvage_oracles" => "salvage",
        other => other,
    }
}

/// Replays `data` through the target called `name`. The targets that read an input one
/// of several ways, picked by its length (`salvage`, `salvage_grammar`, `pyjson`,
/// `stream`), read it every way here, so a committed input keeps its finding whatever
/// its length picks.
pub fn run(name: &str, data: &[u8], budget: Budget) {
    match name {
        "salvage" => salvage_every_pick(data),
        "salvage_grammar" => salvage_grammar_every_pick(data),
        "salvage_oracles" => salvage_oracles(data, budget),
        "fence" => fence(data),
        "pyjson" => pyjson_every_pick(data),
        "execute" => execute(data),
        "protocol" => protocol(data),
        "stream" => stream_every_pick(data),
        "template" => template(data),
        "groups" => groups(data),
        other => panic!("no fuzz target is called {other:?}"),
    }
}
