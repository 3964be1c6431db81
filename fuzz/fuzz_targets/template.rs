//! Every shipped response template reads the input as a reply, and the input is loaded
//! as a template of its own, with the invariants of every salvage.
//! The body is `toolfix_fuzzing::targets::template`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::template(data));
