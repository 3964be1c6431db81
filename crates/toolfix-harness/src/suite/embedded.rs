//! The spec cases embedded in the crate at build time (`build.rs`), so the suite runs
//! from any directory and from an installed binary.

/// Where the embedded files came from, as reports and errors name it.
pub const ROOT: &str = "spec-cases (embedded)";

/// Every case file of `spec-cases/`: its path relative to that folder (with `/`) and its
/// text, sorted by path.
pub static FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/spec_cases.rs"));
