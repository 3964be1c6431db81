//! CPython's json: decode, encode, decode is stable; raw_decode stays in bounds; never
//! panics.
//! The body is `toolfix_fuzzing::targets::pyjson`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::pyjson(data));
