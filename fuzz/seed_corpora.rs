//! Writes the fuzz targets' seed corpora (`fuzz/corpus/<target>/`) from `corpus/` and
//! `spec-cases/`: `cargo run --example seed-corpora --features fuzzing` (or
//! `fuzz/seed-corpora.sh`). See `toolfix::fuzzing::seeds`.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("fuzz/corpus");
    let mut skipped = Vec::new();
    match toolfix::fuzzing::seeds::write(root, &out, &mut skipped) {
        Ok(written) => {
            for file in &skipped {
                eprintln!("skipped (does not load): {file}");
            }
            println!("wrote {written:?} to {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot write seeds: {e}");
            ExitCode::FAILURE
        }
    }
}
