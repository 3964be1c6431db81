//! The fuzz targets' bodies: each takes the fuzzer's bytes and panics on a violation.

mod execute;
mod fence;
mod protocol;
mod pyjson;
mod salvage;
mod stream;

pub use execute::execute;
pub use fence::fence;
pub use protocol::protocol;
pub use pyjson::pyjson;
pub use salvage::salvage;
pub use stream::stream;

use super::budget::Budget;

/// Every target, by the name of its `fuzz/fuzz_targets/` file.
pub const TARGETS: [&str; 6] = [
    "salvage", "fence", "pyjson", "execute", "protocol", "stream",
];

/// Runs the target called `name` on `data` (for replaying committed inputs).
pub fn run(name: &str, data: &[u8], budget: Budget) {
    match name {
        "salvage" => salvage(data, budget),
        "fence" => fence(data),
        "pyjson" => pyjson(data),
        "execute" => execute(data),
        "protocol" => protocol(data),
        "stream" => stream(data),
        other => panic!("no fuzz target is called {other:?}"),
    }
}
