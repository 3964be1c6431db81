//! Fence masking against the fence regex: sorted, disjoint, well-formed ranges; masking
//! keeps code points.
//! The body is `toolfix_fuzzing::targets::fence`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::fence(data));
