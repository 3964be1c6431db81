//! The `salvage_oracles` target: the costly checks of salvage, on the same inputs as
//! `salvage` (its seeds and regression inputs). Each input is salvaged three ways (as
//! lossy UTF-8, as a Python `str`, as a grammar reply) through every adapter under both
//! profiles, about thirty salvages, so it runs at a few hundred executions a second;
//! `salvage` checks the cheap invariants on one salvage per input, about six times faster.
//! What only this target checks: `ollama` and `local` agree, `strict` ⊆ `praisonai` with
//! the documented exceptions, the time budget linear in the input, and (on inputs up to
//! `DEFINITION_LEN` bytes) that `strict`'s one-pass reading finds what its definition
//! does: every dialect scanned at every place, none skipped for lacking a marker.

use super::salvage_input::{grammar_reply, offered};
use crate::budget::Budget;
use crate::choice::Mode;
use crate::invariants::{check_all, recovers_intended, strict_within_praisonai};
use crate::text::py_str_from_bytes;
use toolfix::salvage::{Allowlist, Call, Content, Request, salvage_under, salvage_unmemoised};
use toolfix::{Adapter, Profile};

/// The longest input held to the one-pass reading's definition, which is quadratic.
const DEFINITION_LEN: usize = 4096;

/// One input, three ways: the bytes as lossy UTF-8, the bytes as a Python `str` (lone
/// surrogates kept), and the bytes as the choices of a reply from the grammar.
pub fn salvage_oracles(data: &[u8], budget: Budget) {
    let text = String::from_utf8_lossy(data);
    let tools = offered(&text, data.len() % 2 == 1);
    check_content(Content::from(&*text), &tools, budget);
    let py = py_str_from_bytes(data);
    check_content(Content::from(&py), &tools, budget);
    structured(data, budget);
}

/// A reply from the grammar: the invariants, and for a clean reply the round trip under
/// both profiles (under `praisonai` when the grammar knows its calls: replies without
/// the formats only `strict` reads).
fn structured(data: &[u8], budget: Budget) {
    let Some((mode, rendered, tools)) = grammar_reply(data) else {
        return;
    };
    let outcomes = check_content(Content::from(rendered.text.as_str()), &tools, budget);
    if mode != Mode::Clean {
        return;
    }
    for (calls, profile) in outcomes.iter().zip(crate::PROFILES) {
        let (Some(calls), Some(intended)) = (calls, rendered.intended_under(profile)) else {
            continue;
        };
        if let Err(violation) = recovers_intended(intended, calls) {
            panic!(
                "{violation}\nunder {profile} in the clean reply {:?}",
                rendered.text
            );
        }
    }
}

/// Salvages `content` through every adapter under both profiles, within `budget`,
/// asserting every invariant; returns the outcome per profile (`None` for an error).
fn check_content(
    content: Content<'_>,
    tools: &Allowlist,
    budget: Budget,
) -> [Option<Vec<Call>>; 2] {
    let bytes = content.as_bytes();
    let outcomes = crate::PROFILES.map(|profile| {
        let request = Request::new(content, tools);
        let outcome = Adapter::ALL
            .map(|adapter| timed(&request.adapter(adapter), profile, budget, bytes.len()));
        let [ollama, local, hosted @ ..] = outcome;
        assert_eq!(ollama, local, "ollama and local salvage alike");
        for calls in hosted {
            assert_eq!(calls, Ok(Vec::new()), "hosted adapters never salvage");
        }
        if profile == Profile::Strict && bytes.len() <= DEFINITION_LEN {
            let defined = salvage_unmemoised(&request.adapter(Adapter::Ollama));
            assert_eq!(
                ollama.as_ref().ok(),
                Some(&defined),
                "the one pass is its definition"
            );
        }
        match ollama {
            Ok(calls) => {
                if let Err(violation) = check_all(content, tools, profile, &calls) {
                    panic!(
                        "{violation}\nunder {profile} in {:?}",
                        String::from_utf8_lossy(bytes)
                    );
                }
                Some(calls)
            }
            Err(error) => {
                assert_eq!(profile, Profile::PraisonAi, "strict never fails: {error}");
                None
            }
        }
    });
    if let [Some(praisonai), Some(strict)] = &outcomes {
        if let Err(violation) = strict_within_praisonai(content, strict, praisonai) {
            panic!("{violation}\nin {:?}", String::from_utf8_lossy(bytes));
        }
    }
    outcomes
}

/// One salvage, which must finish within the budget.
fn timed(
    request: &Request<'_>,
    profile: Profile,
    budget: Budget,
    len: usize,
) -> Result<Vec<Call>, toolfix::salvage::SalvageError> {
    budget
        .run(len, || salvage_under(request, profile))
        .unwrap_or_else(|overrun| panic!("salvage under {profile}: {overrun}"))
}
