//! One salvage per input (the bytes as lossy UTF-8, as a Python `str`, or as a reply from
//! the dialect grammar; one profile and adapter, picked by the input's length) with the
//! cheap invariants and, for clean replies, the round trip.
//! The body is `toolfix_fuzzing::targets::salvage`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::salvage(data));
