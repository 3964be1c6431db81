//! A reply cut into chunks at points the fuzzer picks and streamed under every profile:
//! the calls, the error and the displayable text must be batch salvage's. The body is
//! `toolfix_fuzzing::targets::stream`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::stream(data));
