//! Fence masking against the fence regex: sorted, disjoint, well-formed ranges; masking
//! keeps code points.
//! The body is `toolfix::fuzzing::targets::fence`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix::fuzzing::targets::fence(data));
