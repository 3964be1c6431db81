//! The `salvage` target: the fuzzer's bytes as a reply (lossy UTF-8, or a Python `str`
//! with its lone surrogates), salvaged once per input and checked with the invariants
//! that cost little beside it, so libFuzzer runs as many inputs a second as it can
//! (docs/fuzzing.md, "The `salvage` rate"). Replies from the dialect grammar, which cost
//! several times a salvage to generate, are `salvage_grammar`'s; the costly checks (two
//! profiles compared, every adapter, the time budget) are `salvage_oracles`'. All three
//! read the same inputs.

use super::salvage_input::offered;
use crate::invariants::check_all;
use crate::text::py_str_from_bytes;
use toolfix::salvage::{Allowlist, Call, Content, Request, salvage_under};
use toolfix::{Adapter, Profile};

/// The adapters that never salvage: each must return nothing, which costs a branch.
const HOSTED: [Adapter; 3] = [Adapter::Default, Adapter::Anthropic, Adapter::Gemini];

/// How the bytes become the content salvaged.
#[derive(Clone, Copy, Debug)]
enum View {
    /// The bytes as lossy UTF-8.
    Lossy,
    /// The bytes as a Python `str` (lone surrogates kept).
    PyStr,
}

/// How one input is salvaged.
#[derive(Clone, Copy, Debug)]
struct Pick {
    view: View,
    profile: Profile,
    /// `ollama` or `local` (they salvage alike: `salvage_oracles` checks it).
    adapter: Adapter,
    /// Byte inputs are also offered every word of their text (see `offered`).
    every_word: bool,
}

impl Pick {
    /// How many picks there are.
    const COUNT: usize = 16;

    /// The `k`th pick, for `k` below `COUNT`.
    fn nth(k: usize) -> Pick {
        Pick {
            view: [View::Lossy, View::PyStr][k % 2],
            profile: crate::PROFILES[k / 2 % 2],
            adapter: [Adapter::Ollama, Adapter::Local][k / 4 % 2],
            every_word: k / 8 % 2 == 1,
        }
    }
}

/// Which of `count` picks an input of `len` bytes gets. It comes from the length, hashed
/// so that one byte more or less can change every choice, and not from the bytes, so a
/// seed (a model output) is read whole; a mutation that keeps the length keeps the pick,
/// which keeps libFuzzer's notion of what an input covers stable.
pub(super) fn pick_of(len: usize, count: usize) -> usize {
    let h = (len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    h as usize % count
}

/// One salvage of the input, as `pick_of` its length says, with every invariant of
/// `invariants::check_all`.
pub fn salvage(data: &[u8]) {
    salvage_as(data, Pick::nth(pick_of(data.len(), Pick::COUNT)));
}

/// `salvage` under every pick, for replaying a committed input: whatever its length, it
/// keeps being checked the way it was when it was found.
pub fn salvage_every_pick(data: &[u8]) {
    for k in 0..Pick::COUNT {
        salvage_as(data, Pick::nth(k));
    }
}

fn salvage_as(data: &[u8], pick: Pick) {
    let text = String::from_utf8_lossy(data);
    let tools = offered(&text, pick.every_word);
    match pick.view {
        View::Lossy => check(Content::from(&*text), &tools, pick.profile, pick.adapter),
        View::PyStr => {
            let py = py_str_from_bytes(data);
            check(Content::from(&py), &tools, pick.profile, pick.adapter)
        }
    };
}

/// Salvages `content` through `adapter` under `profile` and asserts every invariant
/// (hosted adapters return nothing; `strict` never fails); returns the calls, or `None`
/// for an error.
pub(super) fn check(
    content: Content<'_>,
    tools: &Allowlist,
    profile: Profile,
    adapter: Adapter,
) -> Option<Vec<Call>> {
    let request = Request::new(content, tools);
    for hosted in HOSTED {
        let calls = salvage_under(&request.adapter(hosted), profile);
        assert_eq!(calls, Ok(Vec::new()), "hosted adapters never salvage");
    }
    match salvage_under(&request.adapter(adapter), profile) {
        Ok(calls) => {
            if let Err(violation) = check_all(content, tools, profile, &calls) {
                panic!(
                    "{violation}\nunder {profile} in {:?}",
                    String::from_utf8_lossy(content.as_bytes())
                );
            }
            Some(calls)
        }
        Err(error) => {
            assert_eq!(profile, Profile::PraisonAi, "strict never fails: {error}");
            None
        }
    }
}
