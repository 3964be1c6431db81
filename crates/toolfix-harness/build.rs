//! Embeds the spec cases in the crate, so `toolfix conform` runs the suite from any
//! directory: writes `$OUT_DIR/spec_cases.rs`, a sorted table of every `*.toml` file under
//! `spec-cases/` with its path and its text (`include_str!`).
//!
//! In the repository `spec-cases` here is a link to the top-level `spec-cases/`; a packaged
//! crate holds a copy. Where links are not checked out as links (Windows without developer
//! mode), the top-level folder is read directly.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = [
        manifest.join("spec-cases"),
        manifest.join("../../spec-cases"),
    ]
    .into_iter()
    .find(|dir| dir.is_dir())
    .expect("the spec cases: spec-cases/ beside this crate or at the repository root");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for (relative, absolute) in &files {
        println!("cargo::rerun-if-changed={}", absolute.display());
        table.push_str(&format!(
            "    ({relative:?}, include_str!({:?})),\n",
            absolute.display().to_string()
        ));
    }
    table.push(']');
    println!("cargo::rerun-if-changed={}", root.display());
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("spec_cases.rs");
    fs::write(out, table).expect("OUT_DIR is writable");
}

/// Every `*.toml` file under `dir`, as (path relative to `root` with `/`, absolute path).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable folder entry").path();
        if path.is_dir() {
            println!("cargo::rerun-if-changed={}", path.display());
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "toml") {
            let relative = path.strip_prefix(root).expect("under the root");
            let relative = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let absolute = path.canonicalize().expect("an existing file");
            files.push((relative, absolute));
        }
    }
}
