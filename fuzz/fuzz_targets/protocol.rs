//! One request line into `toolfix serve`: never a panic, exactly one answer line (none for
//! stop).
//! The body is `toolfix_fuzzing::targets::protocol`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::protocol(data));
