//! The `salvage_grammar` target: the fuzzer's bytes as the choices of a reply from the
//! dialect grammar (clean or hostile), salvaged once per input with the invariants of
//! `salvage`, and for a clean reply the round trip: the calls the grammar planned are the
//! calls recovered. Generating and rendering a reply costs several times a salvage, so it
//! is a target of its own and `salvage` keeps to bytes (docs/fuzzing.md, "The `salvage`
//! rate"). It reads `salvage`'s inputs.

use super::salvage::{check, pick_of};
use super::salvage_input::grammar_reply;
use crate::choice::Mode;
use crate::invariants::recovers_intended;
use toolfix::salvage::Content;
use toolfix::{Adapter, Profile};

/// How many picks there are: a profile and an adapter.
const PICKS: usize = 4;

/// The `k`th pick, for `k` below `PICKS`: a profile, and `ollama` or `local` (they
/// salvage alike: `salvage_oracles` checks it).
fn nth(k: usize) -> (Profile, Adapter) {
    (
        crate::PROFILES[k % 2],
        [Adapter::Ollama, Adapter::Local][k / 2 % 2],
    )
}

/// One grammar reply, salvaged as `salvage::pick_of` its length says.
pub fn salvage_grammar(data: &[u8]) {
    grammar_as(data, nth(pick_of(data.len(), PICKS)));
}

/// `salvage_grammar` under every pick, for replaying a committed input.
pub fn salvage_grammar_every_pick(data: &[u8]) {
    for k in 0..PICKS {
        grammar_as(data, nth(k));
    }
}

/// A reply from the grammar: the invariants, and for a clean reply the round trip when
/// the grammar knows what `profile` recovers.
fn grammar_as(data: &[u8], (profile, adapter): (Profile, Adapter)) {
    let Some((mode, rendered, tools)) = grammar_reply(data) else {
        return;
    };
    let calls = check(
        Content::from(rendered.text.as_str()),
        &tools,
        profile,
        adapter,
    );
    let intended = rendered.intended_under(profile);
    if let (Mode::Clean, Some(calls), Some(intended)) = (mode, calls, intended) {
        if let Err(violation) = recovers_intended(intended, &calls) {
            panic!(
                "{violation}\nunder {profile} in the clean reply {:?}",
                rendered.text
            );
        }
    }
}
