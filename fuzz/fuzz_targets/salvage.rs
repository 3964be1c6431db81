//! One salvage per input (the bytes as lossy UTF-8 or as a Python `str`; one profile and
//! adapter, picked by the input's length) with the cheap invariants.
//! The body is `toolfix_fuzzing::targets::salvage`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::salvage(data));
