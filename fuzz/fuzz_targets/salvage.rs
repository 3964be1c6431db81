//! Salvage of the bytes (as lossy UTF-8 and as a Python `str`) and of a reply from the
//! dialect grammar, through every adapter under both profiles: every invariant, the
//! round trip for clean replies, and a time budget linear in the input.
//! The body is `toolfix_fuzzing::targets::salvage`.
#![no_main]

use toolfix_fuzzing::budget::Budget;

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::salvage(
    data,
    Budget::OPTIMIZED
));
