//! The `salvage` target: model text, as bytes and as a reply from the grammar, through
//! every adapter under both profiles.

use arbitrary::Unstructured;

use crate::budget::Budget;
use crate::choice::Mode;
use crate::invariants::{check_all, recovers_intended, strict_within_praisonai};
use crate::reply::Reply;
use crate::text::py_str_from_bytes;
use toolfix::salvage::{Allowlist, Call, Content, Request, salvage as run_salvage};
use toolfix::{Adapter, Profile};

/// The tools offered to byte inputs: the names the spec cases and the corpus call most.
const TOOLS: [&str; 8] = [
    "get_weather",
    "get_time",
    "web_search",
    "search",
    "calc",
    "calculator",
    "read_file",
    "a",
];

/// One input, three ways: the bytes as lossy UTF-8, the bytes as a Python `str` (lone
/// surrogates kept), and the bytes as the choices of a reply from the grammar.
pub fn salvage(data: &[u8], budget: Budget) {
    let text = String::from_utf8_lossy(data);
    let tools = offered(&text, data.len() % 2 == 1);
    check_content(Content::from(&*text), &tools, budget);
    let py = py_str_from_bytes(data);
    check_content(Content::from(&py), &tools, budget);
    structured(data, budget);
}

/// The tools offered to byte inputs: `TOOLS`, and when `every_word`, every word of the
/// text that could be a name, so a seed reaches the accepting paths whatever tools its
/// calls name (inputs of odd length get this; the others keep `TOOLS` as the only names,
/// which keeps the rejecting paths as busy).
fn offered(text: &str, every_word: bool) -> Allowlist {
    let words = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .take(if every_word { 256 } else { 0 });
    Allowlist::new(TOOLS.into_iter().chain(words))
}

/// A reply from the grammar (clean or hostile, by the first choice): the invariants, and
/// for a clean reply, the round trip (under `strict` always, under `praisonai` when the
/// grammar knows its calls: replies without the formats only `strict` reads).
fn structured(data: &[u8], budget: Budget) {
    let mut u = Unstructured::new(data);
    let mode = match u.arbitrary::<bool>() {
        Ok(true) => Mode::Clean,
        _ => Mode::Hostile,
    };
    let Ok(reply) = Reply::generate(&mut u, mode) else {
        return;
    };
    let rendered = reply.render();
    let tools = reply.offered.allowlist();
    let outcomes = check_content(Content::from(rendered.text.as_str()), &tools, budget);
    if mode == Mode::Clean {
        let [praisonai, strict] = &outcomes;
        let expected = [rendered.praisonai.as_ref(), Some(&rendered.intended)];
        for ((calls, intended), profile) in [praisonai, strict]
            .into_iter()
            .zip(expected)
            .zip(crate::PROFILES)
        {
            let (Some(calls), Some(intended)) = (calls, intended) else {
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
        let request = Request::new(content, tools).profile(profile);
        let outcome = Adapter::ALL
            .map(|adapter| timed(&request.adapter(adapter), profile, budget, bytes.len()));
        let [ollama, local, hosted @ ..] = outcome;
        assert_eq!(ollama, local, "ollama and local salvage alike");
        for calls in hosted {
            assert_eq!(calls, Ok(Vec::new()), "hosted adapters never salvage");
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
        .run(len, || run_salvage(request))
        .unwrap_or_else(|overrun| panic!("salvage under {profile}: {overrun}"))
}
