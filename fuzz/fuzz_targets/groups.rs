//! A pattern's groups found by walking its match, held to the `regex` crate's own.
//! The body is `toolfix_fuzzing::targets::groups`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::groups(data));
