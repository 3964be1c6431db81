//! One salvage per input of a reply from the dialect grammar (one profile and adapter,
//! picked by the input's length) with the cheap invariants and, for clean replies, the
//! round trip. The body is `toolfix_fuzzing::targets::salvage_grammar`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::salvage_grammar(data));
