//! Salvage of the bytes (as lossy UTF-8 and as a Python `str`) and of a reply from the
//! dialect grammar, through every adapter under both profiles: the costly oracles (the
//! profiles compared, the adapters compared, a time budget linear in the input) on top
//! of every invariant of `salvage`.
//! The body is `toolfix_fuzzing::targets::salvage_oracles`.
#![no_main]

use toolfix_fuzzing::budget::Budget;

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::salvage_oracles(
    data,
    Budget::OPTIMIZED
));
