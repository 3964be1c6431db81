//! The probe and the presence pass against naive searches.

use proptest::prelude::*;

use super::markers::{COUNT, EVERY};
use super::present::{WORDS, scalar};
use super::*;
use crate::salvage::dialect::{PROBE_NEW, PROBE_PRAISONAI};

/// The real package's markers.
fn markers() -> Vec<&'static [u8]> {
    PROBE_PRAISONAI.iter().map(|m| m.as_bytes()).collect()
}

/// The definition: some marker at some offset.
fn naive(text: &[u8]) -> bool {
    (0..text.len()).any(|i| {
        markers()
            .iter()
            .any(|m| starts_with_ignore_case(&text[i..], m))
    })
}

#[test]
fn strict_finds_the_markers_of_every_dialect_and_praisonai_only_its_own() {
    for text in [
        "[TOOL_CALLS]get_weather[ARGS]{}",
        "x <｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        "<｜DSML｜function_calls>",
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>functions.a:0",
        "commentary to=functions.a <|constrain|>json<|message|>{}",
        "<start_function_call>call:a{}",
        "<minimax:tool_call>",
        "<|tool_call|>[]",
        "<|tool_call>call:a{}<tool_call|>",
        "<|python_start|>[a()]<|python_end|>",
        "<|tool_call_start|>[a()]<|tool_call_end|>",
        "functools[{}]",
    ] {
        let padded = format!("{text}{}", " padding".repeat(20));
        for t in [text.to_owned(), padded] {
            assert!(has_marker(t.as_bytes(), Profile::Strict), "{t}");
            assert!(has_marker(t.as_bytes(), Profile::Portable), "{t}");
            assert!(!has_marker(t.as_bytes(), Profile::PraisonAi), "{t}");
        }
    }
    assert!(!has_marker(b"functools [x] functool[", Profile::Strict));
}

#[test]
fn finds_each_marker_in_any_ascii_case() {
    for text in [
        "x <TOOL_CALL> y",
        "<Function=a>",
        "[Tool_Request]",
        "<|PYTHON_TAG|>",
        "a transaction",
        "ACTION",
    ] {
        assert!(has_marker(text.as_bytes(), Profile::PraisonAi), "{text}");
    }
}

#[test]
fn ignores_near_misses() {
    for text in [
        "<tool call>",
        "act ion",
        "Ａction",
        "actİon",
        "<functıon=",
        "plain prose",
        "a function and an instruction, each one in its section",
    ] {
        assert!(!has_marker(text.as_bytes(), Profile::PraisonAi), "{text}");
    }
}

/// A marker written over every offset of texts long enough to take each path of the
/// vector search (main loop, single vectors, the overlapping last vector), cut short
/// where it runs past the end.
#[test]
fn finds_a_marker_at_every_offset() {
    let filler = b"ction cn <tool call [tool n c ".repeat(20);
    for len in [0, 5, 36, 37, 38, 100, 132, 133, 134, 165, 261, 262, 300] {
        let base = &filler[..len];
        assert!(
            !naive(base) && !has_marker(base, Profile::PraisonAi),
            "{len}"
        );
        for marker in markers() {
            for at in 0..=len {
                let mut text = base.to_vec();
                for (slot, &b) in text[at..].iter_mut().zip(marker) {
                    *slot = b;
                }
                assert_eq!(
                    has_marker(&text, Profile::PraisonAi),
                    naive(&text),
                    "{len} {at}"
                );
            }
        }
    }
}

/// Phi-4's `functools[` is found at its `[`, so it can end in the last bytes, where no
/// other marker starts and the vector search does not look. Found by the `salvage`
/// fuzz target: a clean reply whose folded `actİon` call was let through under
/// `strict` by a quoted `"functools["` four bytes from its end, which the probe missed.
#[test]
fn finds_functools_at_every_offset() {
    let filler = b"ction cn <tool call [tool n c ".repeat(20);
    for len in [0, 5, 36, 37, 38, 100, 132, 133, 134, 165, 261, 262, 300] {
        for at in 0..=len {
            let mut text = filler[..len].to_vec();
            for (slot, &b) in text[at..].iter_mut().zip(b"functools[") {
                *slot = b;
            }
            let whole = text.windows(10).any(|w| w == b"functools[");
            assert_eq!(has_marker(&text, Profile::Strict), whole, "{len} {at}");
        }
    }
}

/// The probe with memchr alone.
fn portable_has_marker(text: &[u8], wanted: u64) -> bool {
    portable::starts(text, &mut |i| markers_at(text, i, wanted) != 0)
}

/// The definition under `strict`: a marker of any dialect at some offset.
fn naive_every(text: &[u8]) -> bool {
    let every: Vec<&[u8]> = PROBE_PRAISONAI
        .iter()
        .chain(&PROBE_NEW)
        .map(|m| m.as_bytes())
        .collect();
    (0..text.len()).any(|i| every.iter().any(|m| starts_with_ignore_case(&text[i..], m)))
}

/// Bytes drawn mostly from the markers' letters in both cases, so that random texts
/// hold candidates, near misses and markers.
fn marker_heavy() -> impl Strategy<Value = Vec<u8>> {
    let alphabet = b"aAcCtTiIoOnN<[|_=]>fFpPlLrR \n\x00\x80\xc4\xb0x".to_vec();
    proptest::collection::vec(proptest::sample::select(alphabet), 0..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn agrees_with_the_naive_search(text in marker_heavy()) {
        prop_assert_eq!(has_marker(&text, Profile::PraisonAi), naive(&text));
        prop_assert_eq!(portable_has_marker(&text, PRAISONAI), naive(&text));
    }

    /// Under `strict` every dialect's marker counts, in any ASCII case: the table of
    /// second bytes (`STARTS`) lets none through that the definition would not.
    #[test]
    fn strict_agrees_with_the_naive_search(
        text in marker_heavy(),
        marker in proptest::sample::select(PROBE_NEW.to_vec()),
        at in any::<proptest::sample::Index>(),
        upper in proptest::collection::vec(any::<bool>(), 32),
    ) {
        prop_assert_eq!(has_marker(&text, Profile::Strict), naive_every(&text));
        let mut text = text;
        let at = at.index(text.len() + 1);
        let cased = marker
            .bytes()
            .zip(&upper)
            .map(|(b, &u)| if u { b.to_ascii_uppercase() } else { b });
        text.splice(at..at, cased);
        prop_assert!(has_marker(&text, Profile::Strict));
    }

    #[test]
    fn agrees_on_arbitrary_bytes(text in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(has_marker(&text, Profile::PraisonAi), naive(&text));
    }

    #[test]
    fn finds_a_marker_in_any_case_anywhere(
        text in marker_heavy(),
        marker in proptest::sample::select(markers()),
        at in any::<proptest::sample::Index>(),
        upper in proptest::collection::vec(any::<bool>(), 14),
    ) {
        let mut text = text;
        let at = at.index(text.len() + 1);
        let cased = marker
            .iter()
            .zip(&upper)
            .map(|(&b, &u)| if u { b.to_ascii_uppercase() } else { b });
        text.splice(at..at, cased);
        prop_assert!(has_marker(&text, Profile::PraisonAi));
    }
}

/// The definition of the presence pass: each tag marker's bit is set when it occurs at
/// some offset, in any ASCII case; the words are taken as held.
fn naive_present(text: &[u8]) -> u64 {
    (0..COUNT)
        .filter(|&k| (0..text.len()).any(|i| starts_with_ignore_case(&text[i..], marker(k))))
        .fold(WORDS, |set, k| set | 1 << k)
}

/// Bytes drawn from every marker's bytes in both cases, with markers whole among them.
fn presence_heavy() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<Vec<u8>> = (0..COUNT)
        .map(|k| marker(k).to_vec())
        .chain(
            b"<[|/_:=fFsSaAcCnNtT \n\xef\xbd\x9c"
                .iter()
                .map(|&b| vec![b]),
        )
        .collect();
    let piece = proptest::sample::select(pieces);
    proptest::collection::vec((piece, any::<bool>()), 0..60).prop_map(|pieces| {
        pieces
            .into_iter()
            .flat_map(|(piece, cut)| match cut && piece.len() > 2 {
                true => piece[1..].to_vec(),
                false => piece,
            })
            .collect()
    })
}

#[test]
fn finds_each_marker_alone_at_every_offset_of_a_flood() {
    for k in 0..COUNT {
        for flood in [&b"<tool_call>"[..], b"[TOOL_CALLS]", b"ction ", b"x"] {
            let base = flood.repeat(12);
            for at in 0..=base.len() {
                let mut text = base.clone();
                text.splice(at..at, marker(k).iter().copied());
                let present = Present::of(&text);
                assert_eq!(present.0, naive_present(&text), "{k} {at} {:?}", flood);
            }
        }
    }
}

#[test]
fn a_text_of_no_marker_holds_none_and_skips_every_dialect() {
    let present = Present::of(&b"plain <b>markup</b> [1] and no marker ".repeat(30));
    let words = Present(WORDS).dialects();
    assert_eq!(present.dialects(), words);
    assert_eq!(words.count_ones(), 2, "ReAct's and Phi-4's");
    assert!(!present.may_hold("<think>"));
    assert!(present.may_hold("not a marker the pass looks for"));
}

#[test]
fn a_pass_of_too_many_near_misses_stops_and_takes_every_marker_as_held() {
    let near_misses = b"<|tool_call_end|> ".repeat(400);
    assert_eq!(Present::of(&near_misses).0, EVERY);
    assert_eq!(scalar(&near_misses, EVERY & !WORDS), EVERY & !WORDS);
    let few = b"<|tool_call_end|> ".repeat(40);
    assert_eq!(Present::of(&few).0, naive_present(&few));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn presence_agrees_with_its_definition(text in presence_heavy()) {
        let naive = naive_present(&text);
        prop_assert_eq!(Present::of(&text).0, naive);
        prop_assert_eq!(scalar(&text, EVERY & !WORDS) | WORDS, naive);
    }

    #[test]
    fn presence_agrees_on_arbitrary_bytes(text in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(Present::of(&text).0, naive_present(&text));
    }
}
