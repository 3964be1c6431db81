//! Evidence that salvage and dispatch never panic, never hang and keep their guarantees.
//!
//! Used by the fuzz crate, the crate's own tests and the `toolfix diff` command; nothing
//! here is part of the core library's API.
//!
//! * A grammar-based generator of model replies ([`reply::Reply`]): prose, calls in every
//!   dialect with every case, whitespace and key variant the patterns accept, whole-content
//!   JSON, fences, truncation, and for hostile replies hallucinated names, damaged
//!   payloads and long repetitions. A reply renders to text and knows the calls it means.
//!   It implements `arbitrary::Arbitrary` for the fuzzer; the property tests drive the
//!   same generator from a byte vector proptest shrinks (`tests/properties.rs`).
//! * Dispatch inputs: registries with colliding names, groups and deny-sets, and the
//!   names and arguments models send ([`registry`]).
//! * The guarantees every salvage must keep ([`invariants`]), a time budget proportional
//!   to the input ([`budget`]), and two references to check against: the fence regex
//!   evaluated the obvious way ([`fence_oracle`]) and CPython's pairing of escaped lone
//!   surrogates on a JSON round trip ([`surrogates`]).
//! * The bodies of the fuzz targets ([`targets`]): each `fuzz/fuzz_targets/*.rs` is one
//!   call into them, as in rustls, so `cargo test` replays every committed regression
//!   input without cargo-fuzz (`tests/fuzz_regressions.rs`).
//! * The seed corpora, written from `corpus/` and `spec-cases/` ([`seeds`]).
//! * Streaming salvage checked against batch salvage for any cutting of a reply
//!   ([`stream`]).
//! * Protocol cases generated per seed for `toolfix diff`, which compares two
//!   implementations on them ([`differential`]).

use toolfix::Profile;

/// The profiles the targets and properties exercise: the two the reference implements
/// differently. `portable` is `strict` in the reference (a property checks they agree).
pub const PROFILES: [Profile; 2] = [Profile::PraisonAi, Profile::Strict];

pub mod budget;
pub mod call;
pub mod choice;
pub mod differential;
pub mod fence;
pub mod fence_oracle;
pub mod invariants;
pub mod json;
pub mod markers;
pub mod names;
pub mod native;
pub mod prose;
pub mod python;
pub mod registry;
pub mod reply;
pub mod seeds;
pub mod stream;
pub mod surrogates;
pub mod targets;
pub mod text;
pub mod whole;
