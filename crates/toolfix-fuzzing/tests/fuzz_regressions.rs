//! Replays every committed fuzz input (`fuzz/regressions/<target>/<file>`) through the
//! target's body in `toolfix_fuzzing::targets`, one test per file, so a finding stays
//! fixed without cargo-fuzz or a nightly toolchain.

use std::path::Path;

use toolfix_fuzzing::budget::Budget;
use toolfix_fuzzing::targets;

fn replay(path: &Path, data: Vec<u8>) -> datatest_stable::Result<()> {
    let target = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .ok_or("a regression input lives in fuzz/regressions/<target>/")?;
    let budget = if cfg!(debug_assertions) {
        Budget::UNOPTIMIZED
    } else {
        Budget::OPTIMIZED
    };
    targets::run(target, &data, budget);
    Ok(())
}

datatest_stable::harness! {
    { test = replay, root = "../../fuzz/regressions", pattern = r"^[a-z]+/[^/.][^/]*$" },
}
