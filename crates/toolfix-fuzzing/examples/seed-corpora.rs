//! Writes the fuzz targets' seed corpora (`fuzz/corpus/<target>/`) from `corpus/` and
//! `spec-cases/`: `cargo run -p toolfix-fuzzing --example seed-corpora` (or
//! `fuzz/seed-corpora.sh`). See `toolfix_fuzzing::seeds`.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.as_path();
    let out = root.join("fuzz/corpus");
    let mut skipped = Vec::new();
    match toolfix_fuzzing::seeds::write(root, &out, &mut skipped) {
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
