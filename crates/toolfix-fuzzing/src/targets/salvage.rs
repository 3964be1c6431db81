//! The `salvage` target: one salvage per input, checked with the invariants that cost
//! little beside it, so libFuzzer explores several times as many inputs a second as
//! `salvage_oracles` (docs/fuzzing.md, "Throughput"). The costly checks (two profiles
//! compared, every adapter, the time budget) are in `salvage_oracles`, which reads the
//! same inputs.

use super::salvage_input::{grammar_reply, offered};
use crate::choice::Mode;
use crate::invariants::{check_all, recovers_intended};
use crate::text::py_str_from_bytes;
use toolfix::salvage::{Allowlist, Call, Content, Request, salvage as run_salvage};
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
    /// The bytes as the choices of a reply from the grammar.
    Grammar,
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
    const COUNT: usize = 24;

    /// The pick for an input of `len` bytes. It comes from the length, hashed so that one
    /// byte more or less can change every choice, and not from the bytes, so a seed (a
    /// model output) is read whole; a mutation that keeps the length keeps the pick,
    /// which keeps libFuzzer's notion of what an input covers stable.
    fn of(len: usize) -> Pick {
        let h = (len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        Pick::nth(h as usize % Pick::COUNT)
    }

    /// The `k`th pick, for `k` below `COUNT`.
    fn nth(k: usize) -> Pick {
        Pick {
            view: [View::Lossy, View::PyStr, View::Grammar][k % 3],
            profile: crate::PROFILES[k / 3 % 2],
            adapter: [Adapter::Ollama, Adapter::Local][k / 6 % 2],
            every_word: k / 12 % 2 == 1,
        }
    }
}

/// One salvage of the input, as `Pick::of` its length says, with every invariant of
/// `invariants::check_all`, and for a clean grammar reply the round trip.
pub fn salvage(data: &[u8]) {
    salvage_as(data, Pick::of(data.len()));
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
    match pick.view {
        View::Lossy => {
            let tools = offered(&text, pick.every_word);
            check(Content::from(&*text), &tools, pick);
        }
        View::PyStr => {
            let tools = offered(&text, pick.every_word);
            check(Content::from(&py_str_from_bytes(data)), &tools, pick);
        }
        View::Grammar => grammar(data, pick),
    }
}

/// A reply from the grammar: the invariants, and for a clean reply the round trip when
/// the grammar knows what the picked profile recovers.
fn grammar(data: &[u8], pick: Pick) {
    let Some((mode, rendered, tools)) = grammar_reply(data) else {
        return;
    };
    let calls = check(Content::from(rendered.text.as_str()), &tools, pick);
    let intended = match pick.profile {
        Profile::PraisonAi => rendered.praisonai.as_ref(),
        _ => Some(&rendered.intended),
    };
    if let (Mode::Clean, Some(calls), Some(intended)) = (mode, calls, intended) {
        if let Err(violation) = recovers_intended(intended, &calls) {
            panic!(
                "{violation}\nunder {} in the clean reply {:?}",
                pick.profile, rendered.text
            );
        }
    }
}

/// Salvages `content` through the picked adapter under the picked profile and asserts
/// every invariant (hosted adapters return nothing; `strict` never fails); returns the
/// calls, or `None` for an error.
fn check(content: Content<'_>, tools: &Allowlist, pick: Pick) -> Option<Vec<Call>> {
    let request = Request::new(content, tools).profile(pick.profile);
    for adapter in HOSTED {
        let calls = run_salvage(&request.adapter(adapter));
        assert_eq!(calls, Ok(Vec::new()), "hosted adapters never salvage");
    }
    match run_salvage(&request.adapter(pick.adapter)) {
        Ok(calls) => {
            if let Err(violation) = check_all(content, tools, pick.profile, &calls) {
                panic!(
                    "{violation}\nunder {} in {:?}",
                    pick.profile,
                    String::from_utf8_lossy(content.as_bytes())
                );
            }
            Some(calls)
        }
        Err(error) => {
            assert_eq!(
                pick.profile,
                Profile::PraisonAi,
                "strict never fails: {error}"
            );
            None
        }
    }
}
