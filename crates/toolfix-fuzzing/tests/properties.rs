//! Property tests of salvage, the JSON decoder and dispatch, on model replies generated
//! from the dialect grammar (`toolfix::fuzzing`), plus random text where a property is
//! about every input.
//!
//! The grammar reads its choices from bytes; proptest generates and shrinks those bytes,
//! so a failure shrinks to a short reply. `PROPTEST_CASES` sets the number of cases per
//! property (default 1024: the whole file takes about ten seconds in a debug build).

use arbitrary::Unstructured;
mod support;

use proptest::prelude::*;

use toolfix::py::is_space;
use toolfix::py::json::{self, DecodeError, DecodeLimits};
use toolfix::py::{PyStr, Value};
use toolfix::salvage::{Allowlist, Call, Content, Dialect, Request, salvage_under};
use toolfix::{Adapter, Profile};
use toolfix_fuzzing::choice::Mode;
use toolfix_fuzzing::invariants;
use toolfix_fuzzing::reply::{MARKERS_NEW, Rendered, Reply, has_marker};
use toolfix_fuzzing::surrogates::joined;
use toolfix_fuzzing::targets;
use toolfix_fuzzing::text::py_str_from_bytes;

/// Replies of `mode`, rendered.
fn replies(mode: Mode) -> impl Strategy<Value = (Allowlist, Rendered)> {
    proptest::collection::vec(any::<u8>(), 0..1024).prop_map(move |bytes| {
        let reply = Reply::generate(&mut Unstructured::new(&bytes), mode)
            .expect("the grammar reads any bytes");
        (reply.offered.allowlist(), reply.render())
    })
}

/// Salvages `text` through the `ollama` adapter.
fn run(text: &str, tools: &Allowlist, profile: Profile) -> Option<Vec<Call>> {
    salvage_under(&Request::new(text, tools).adapter(Adapter::Ollama), profile).ok()
}

/// The calls under each profile (`None` for an error outcome).
fn both(text: &str, tools: &Allowlist) -> [Option<Vec<Call>>; 2] {
    toolfix_fuzzing::PROFILES.map(|profile| run(text, tools, profile))
}

/// Asserts an invariant on the calls of every profile that did not fail.
fn holds(
    (tools, rendered): &(Allowlist, Rendered),
    check: impl Fn(Content<'_>, &Allowlist, Profile, &[Call]) -> Result<(), String>,
) -> Result<(), TestCaseError> {
    for (profile, calls) in toolfix_fuzzing::PROFILES
        .into_iter()
        .zip(both(&rendered.text, tools))
    {
        if let Some(calls) = calls {
            let checked = check(
                Content::from(rendered.text.as_str()),
                tools,
                profile,
                &calls,
            );
            prop_assert!(checked.is_ok(), "{} under {profile}", checked.unwrap_err());
        }
    }
    Ok(())
}

// 1024 cases per property, unless `PROPTEST_CASES` says otherwise (`support::config`).
proptest! {
    #![proptest_config(support::config(1024))]

    /// Ordering: recovered calls come out in the order of their spans.
    #[test]
    fn calls_come_out_in_text_order(reply in replies(Mode::Hostile)) {
        holds(&reply, |_, _, _, calls| invariants::text_order(calls))?;
    }

    /// Allowlist: every call from an embedded dialect names an offered tool; under
    /// `strict`, every call does (whole-content JSON too).
    #[test]
    fn calls_name_offered_tools(reply in replies(Mode::Hostile)) {
        holds(&reply, |_, tools, profile, calls| invariants::allowlisted(tools, profile, calls))?;
    }

    /// Fences: no call's span starts inside a fenced range of the content (under `strict`,
    /// unless a token dialect's call holds the fence).
    #[test]
    fn no_call_comes_from_a_fence(reply in replies(Mode::Hostile)) {
        holds(&reply, |content, _, profile, calls| match profile {
            Profile::PraisonAi => invariants::outside_fences(content, calls),
            _ => invariants::outside_fences_strict(content, calls),
        })?;
    }

    /// Overlap: no recovered span starts inside another call's span.
    #[test]
    fn no_span_starts_inside_another(reply in replies(Mode::Hostile)) {
        holds(&reply, |_, _, _, calls| invariants::no_span_starts_inside_another(calls))?;
    }

    /// Fence masking: the fenced ranges are exactly the matches of the package's fence
    /// regex (evaluated the obvious way), and masking keeps every code point, on replies
    /// and on runs of fence characters. The fence property above trusts `fenced_ranges`;
    /// this one checks it.
    #[test]
    fn fenced_ranges_are_the_regex_matches(
        (_, rendered) in replies(Mode::Hostile),
        noise in "[`~a \\n\u{e9}]{0,64}",
    ) {
        targets::fence(rendered.text.as_bytes());
        targets::fence(noise.as_bytes());
    }

    /// Fast path: text with no marker (in any ASCII case) and no whole-content payload
    /// gives no calls, even when a dialect's pattern would match it (a folded
    /// `<functıon=`).
    #[test]
    fn text_without_a_marker_gives_no_calls(
        (tools, rendered) in replies(Mode::Hostile),
        noise in "[a-z <>|=_/{}`~:\\[\\]İıſ\u{212A}\"]{0,64}",
    ) {
        for text in [defuse(&rendered.text), defuse(&noise)] {
            prop_assert!(!has_marker(&text));
            // `strict` also reads whole replies `praisonai` does not (Llama's `;`-separated
            // objects, a pythonic list, a payload after leading reasoning): without a
            // marker, every call it makes must come from that path.
            let strict = run(&text, &tools, Profile::Strict).unwrap_or_default();
            let whole = [Dialect::WholeJson, Dialect::LlamaJson, Dialect::Pythonic];
            prop_assert!(strict.iter().all(|c| whole.contains(&c.dialect())), "{strict:?}");
            if is_whole_content_json(&text) {
                continue;
            }
            prop_assert_eq!(run(&text, &tools, Profile::PraisonAi), Some(Vec::new()));
        }
    }

    /// Round trip: calls rendered in any dialect (offered names, object arguments, text
    /// arguments typed by the tools' schemas or not), with prose, fenced examples,
    /// reasoning and whitespace around them, come back as written: the same names,
    /// decoded arguments, dialects and spans, under `strict`; and under `praisonai` when
    /// the reply holds only what it reads (the six dialects, JSON whole content).
    #[test]
    fn clean_replies_round_trip((tools, rendered) in replies(Mode::Clean)) {
        let expected = [rendered.praisonai.as_ref(), Some(&rendered.intended)];
        for ((profile, calls), intended) in toolfix_fuzzing::PROFILES
            .into_iter()
            .zip(both(&rendered.text, &tools))
            .zip(expected)
        {
            let calls = calls.expect("clean replies never fail");
            let Some(intended) = intended else { continue };
            let checked = invariants::recovers_intended(intended, &calls);
            prop_assert!(checked.is_ok(), "{} under {profile}", checked.unwrap_err());
        }
    }

    /// Profiles: `strict` never recovers a call that `praisonai` does not, except where
    /// docs/profiles.md documents a rule.
    #[test]
    fn strict_recovers_nothing_praisonai_does_not((tools, rendered) in replies(Mode::Hostile)) {
        if let [Some(praisonai), Some(strict)] = both(&rendered.text, &tools) {
            let checked =
                invariants::strict_within_praisonai(Content::from(rendered.text.as_str()), &strict, &praisonai);
            prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
        }
    }

    /// Salvage never panics on any string, as `&str` or as a Python `str` with lone
    /// surrogates, under both profiles and through every adapter; hosted adapters never
    /// salvage, and only `praisonai` may fail.
    #[test]
    fn salvage_never_panics(text in any::<String>(), bytes in any::<Vec<u8>>()) {
        let tools = Allowlist::new(["a", "get_weather"]);
        let py = py_str_from_bytes(&bytes);
        for content in [Content::from(text.as_str()), Content::from(&py)] {
            for profile in toolfix_fuzzing::PROFILES {
                for adapter in Adapter::ALL {
                    let request = Request::new(content, &tools).adapter(adapter);
                    let outcome = salvage_under(&request, profile);
                    prop_assert!(outcome.is_ok() || profile == Profile::PraisonAi);
                    if !adapter.policy().salvages_text {
                        prop_assert_eq!(outcome, Ok(Vec::new()));
                    }
                }
            }
        }
    }

    /// The JSON decoder never panics, and decode, encode, decode is stable: `dumps` of a
    /// decoded value decodes to the same value and encodes to the same text. (A lone high
    /// surrogate followed by a lone low one reads back as one astral character, in CPython
    /// as here, so the value is compared with such pairs joined.)
    #[test]
    fn json_decode_encode_decode_is_stable(
        text in "[\\[\\]{}\",:0-9eE.+\\- \\\\ux/nNaIfinty\u{e9}\u{1F389}]{0,48}",
        bytes in any::<Vec<u8>>(),
    ) {
        for input in [PyStr::from(text.as_str()), py_str_from_bytes(&bytes)] {
            let Ok(value) = json::loads(input.as_bytes(), LIMITS) else { continue };
            let encoded = json::dumps(&value).expect("decoded values are serializable");
            let again = json::loads(encoded.as_bytes(), LIMITS).expect("dumps output decodes");
            prop_assert_eq!(&again, &joined(&value));
            prop_assert_eq!(json::dumps(&again).ok(), Some(encoded));
        }
        targets::pyjson(&bytes);
    }

    /// Where `transcode` writes a value, `raw_decode` reads it to the same end and
    /// `json.dumps` of what it reads is what `transcode` wrote, which reads back as that
    /// value: on arbitrary text at any offset, and on grammar values in any layout (each
    /// input is read every way the `pyjson` target reads one).
    #[test]
    fn transcode_writes_what_dumps_of_loads_writes(bytes in any::<Vec<u8>>()) {
        targets::pyjson_every_pick(&bytes);
    }

    /// Dispatch never panics on generated registries, names and arguments; `strict` never
    /// fails; a repaired dispatch targets a tool whose normalised name equals the
    /// requested one's; a not-found error's `available_tools` is sorted and unique.
    #[test]
    fn dispatch_keeps_its_guarantees(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        targets::execute(&bytes);
    }
}

/// Decoder limits for the round trip.
const LIMITS: DecodeLimits = DecodeLimits {
    max_depth: 512,
    int_max_str_digits: None,
};

/// `text` with every marker broken by the smallest change that `re.IGNORECASE` still
/// reads through where it can (`i` → `ı`, `s` → `ſ`) and `-` for `_` elsewhere, so the
/// dialect patterns may match but the probe finds nothing.
fn defuse(text: &str) -> String {
    let mut out = text.to_owned();
    for (marker, broken) in [
        ("<function=", "<functıon="),
        ("[tool_request]", "[tool_requeſt]"),
        ("action", "actıon"),
        ("<tool_call>", "<tool-call>"),
        ("[tool_call]", "[tool-call]"),
        ("<|python_tag|>", "<|python-tag|>"),
    ] {
        out = replace_ignoring_ascii_case(&out, marker, broken);
    }
    // The markers only `strict` and `portable` probe for: a `-` after the first character
    // breaks each, and no dialect folds it back.
    for marker in MARKERS_NEW.iter() {
        let first = marker.chars().next().map_or(0, char::len_utf8);
        let broken = format!("{}-{}", &marker[..first], &marker[first..]);
        out = replace_ignoring_ascii_case(&out, marker, &broken);
    }
    out
}

/// Replaces every ASCII-case-insensitive occurrence of `pattern` (ASCII) by `with`.
fn replace_ignoring_ascii_case(text: &str, pattern: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.char_indices().map(|(i, _)| i).find(|&i| {
        rest.as_bytes()[i..].len() >= pattern.len()
            && rest.as_bytes()[i..i + pattern.len()].eq_ignore_ascii_case(pattern.as_bytes())
    }) {
        out.push_str(&rest[..at]);
        out.push_str(with);
        rest = &rest[at + pattern.len()..];
    }
    out.push_str(rest);
    out
}

/// Whether the whole-content path could claim the text: under `praisonai`'s limits (the
/// wider ones) it decodes to an object or a list, or raises something other than a
/// syntax error.
fn is_whole_content_json(text: &str) -> bool {
    let praisonai = DecodeLimits {
        max_depth: 993,
        int_max_str_digits: Some(4300),
    };
    match json::loads(text.trim_matches(is_space).as_bytes(), praisonai) {
        Ok(value) => matches!(value, Value::Dict(_) | Value::List(_)),
        Err(DecodeError::Syntax { .. }) => false,
        Err(_) => true,
    }
}
