//! The `groups` target: a pattern's groups found by walking the match
//! (`salvage/template/groups.rs`), and a match found from where it may start
//! (`salvage/template/find.rs`), against the `regex` crate's own, on the fuzzer's
//! pattern and text.
//!
//! A template's groups name the call and its arguments, so a walk that put a group's
//! bounds one byte off would hand the tool an argument the model never wrote. The walk
//! answers only where its path is the one the crate's backtracker takes and gives the
//! rest back; this target holds every answer it gives to the crate's. The input is a
//! pattern, a zero byte, then the text; an input with no zero byte is a text that every
//! pattern of the shipped templates reads.

use toolfix::internals::template::{walk_agrees, walks_of_shipped_agree};

/// Checks the walk of the input's pattern (or every shipped one) on its text.
pub fn groups(data: &[u8]) {
    let checked = match data.iter().position(|b| *b == 0) {
        Some(at) => walk_agrees(&String::from_utf8_lossy(&data[..at]), &data[at + 1..]),
        None => walks_of_shipped_agree(data),
    };
    if let Err(difference) = checked {
        panic!("{difference}");
    }
}
