//! Dispatch against generated registries, names and arguments: never panics, repairs and
//! inventories are sound.
//! The body is `toolfix_fuzzing::targets::execute`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolfix_fuzzing::targets::execute(data));
