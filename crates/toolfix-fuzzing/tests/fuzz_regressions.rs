//! Replays every committed fuzz input (`fuzz/regressions/<dir>/<file>`) through the body
//! in `toolfix_fuzzing::targets` of every target that reads `<dir>` (`regressions_of`:
//! `salvage/` goes through `salvage` and `salvage_oracles`), one test per file, so a
//! finding stays fixed without cargo-fuzz or a nightly toolchain.

use std::path::Path;

use toolfix_fuzzing::budget::Budget;
use toolfix_fuzzing::targets;

fn replay(path: &Path, data: Vec<u8>) -> datatest_stable::Result<()> {
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .ok_or("a regression input lives in fuzz/regressions/<target>/")?;
    let budget = if cfg!(debug_assertions) {
        Budget::UNOPTIMIZED
    } else {
        Budget::OPTIMIZED
    };
    let readers: Vec<&str> = targets::TARGETS
        .into_iter()
        .filter(|&t| targets::regressions_of(t) == dir)
        .collect();
    if readers.is_empty() {
        return Err(format!("no fuzz target reads fuzz/regressions/{dir}/").into());
    }
    for target in readers {
        targets::run(target, &data, budget);
    }
    Ok(())
}

datatest_stable::harness! {
    { test = replay, root = "../../fuzz/regressions", pattern = r"^[a-z]+/[^/.][^/]*$" },
}
