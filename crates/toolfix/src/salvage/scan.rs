//! The scan step: which text each dialect reads, and how their candidates meet.
//!
//! Under `praisonai` this is the real package's scan: the six dialects over the
//! fence-masked text. Under `strict` and `portable` every dialect runs, and what is not a
//! call is found first:
//!
//! 1. the token dialects scan the text as written, so that a fence their own syntax holds
//!    (DeepSeek V3's fenced JSON, a code argument of Qwen3-Coder) is seen as theirs;
//! 2. fences are found everywhere else (`fence::fenced_ranges_around` those spans): a fence
//!    opening before a call's first token still masks it, an example stays an example;
//! 3. reasoning is found outside the fences (`reasoning`); when there is some, the token
//!    dialects scan again with it masked, so a block drafted while thinking never pairs
//!    with a token after it;
//! 4. a token candidate that starts inside a fence or reasoning is dropped, and the six
//!    dialects scan the text with both masked;
//! 5. a token span that starts inside one of their candidates is quoted data, not a call
//!    (a string argument holding `<｜tool▁call▁begin｜>`), and one that starts inside
//!    reasoning is a draft: if one was kept out of fence masking, steps 2 to 4 run again
//!    without it (`quoted`, `in_reasoning`);
//! 6. `span::select` orders all candidates and applies the starts-inside rule.
//!
//! Every step is linear: each scans the text a fixed number of times (at most `ROUNDS`).

use std::ops::Range;

use super::dialect::{self, Dialect};
use super::fence::{self, Masked};
use super::payload::Payloads;
use super::reasoning::{merge, reasoning_ranges};
use super::span::{self, Candidate, Found};
use super::{Allowlist, SalvageError};
use crate::profile::Profile;

/// A selected call: its span in the original text, its dialect, what was found.
pub type Selected = (Range<usize>, Dialect, Found);

/// The calls of `content`, in text order, under `profile`.
pub fn scan(
    content: &[u8],
    tools: &Allowlist,
    profile: Profile,
) -> Result<Vec<Selected>, SalvageError> {
    if profile.is_faithful() {
        let masked = Masked::new(content);
        let candidates = embedded(&masked, tools, profile)?;
        return Ok(span::select(candidates));
    }
    let mut found = Some(tokens(
        &Masked::with_ranges(content, Vec::new()),
        tools,
        profile,
    ));
    let mut opaque = disjoint(found.as_deref().unwrap_or_default());
    for round in 1..=ROUNDS {
        let fenced = fence::fenced_ranges_around(content, &opaque);
        let reasoning = reasoning_ranges(content, &fenced);
        let mut tokens = match found.take() {
            Some(tokens) if reasoning.is_empty() => tokens,
            _ if reasoning.is_empty() => {
                tokens(&Masked::with_ranges(content, Vec::new()), tools, profile)
            }
            _ => tokens_in_original(content, reasoning.clone(), tools, profile),
        };
        let drafted = in_reasoning(&reasoning, &opaque);
        // The spans of the calls outside reasoning: what may stay opaque next round.
        let outside = if drafted.is_empty() {
            Vec::new()
        } else {
            disjoint(&tokens)
        };
        let hidden = merge(fenced.into_iter().chain(reasoning).collect());
        tokens.retain(|c| !starts_inside(&hidden, c.span.start));
        let masked = Masked::with_ranges(content, hidden);
        let mut candidates = embedded(&masked, tools, profile)?;
        let quoted_now = quoted(&candidates, &opaque);
        if (drafted.is_empty() && quoted_now.is_empty()) || round == ROUNDS {
            candidates.append(&mut tokens);
            return Ok(span::select(candidates));
        }
        opaque = match round {
            1 => {
                let mut kept = if drafted.is_empty() { opaque } else { outside };
                let mut not_calls = quoted(&candidates, &kept);
                // Opaque ranges are disjoint, so their starts tell them apart.
                not_calls.sort_unstable_by_key(|r| r.start);
                kept.retain(|o| {
                    not_calls
                        .binary_search_by_key(&o.start, |r| r.start)
                        .is_err()
                });
                kept
            }
            _ => Vec::new(),
        };
    }
    unreachable!("the last round returns")
}

/// How many times fences may be found: with every token span opaque; again without the
/// spans that are not calls (quoted inside an embedded candidate, or written in
/// reasoning); and, if that still leaves some (the new fences changed what the embedded
/// dialects match, or what is reasoning), with none opaque.
const ROUNDS: usize = 3;

/// The `opaque` ranges that start inside reasoning: a token dialect's opener the model
/// mentions while thinking (`<|tool_call_begin|>` in a `<think>` block) is no call, so
/// the fences after it are fences. Left opaque, one without its closer would hide every
/// fence to the end of the reply.
fn in_reasoning(reasoning: &[Range<usize>], opaque: &[Range<usize>]) -> Vec<Range<usize>> {
    opaque
        .iter()
        .filter(|o| starts_inside(reasoning, o.start))
        .cloned()
        .collect()
}

/// The `opaque` ranges that start inside an embedded candidate which starts before them:
/// a token dialect's opener quoted in another call's payload (a string argument holding
/// `<｜tool▁call▁begin｜>`) is that call's data, so the fences after it are fences. Left
/// opaque, an opener quoted without its closer would hide every fence to the end of the
/// reply, and a fenced example after the call would run.
fn quoted(embedded: &[Candidate], opaque: &[Range<usize>]) -> Vec<Range<usize>> {
    if embedded.is_empty() || opaque.is_empty() {
        return Vec::new();
    }
    let mut spans: Vec<(usize, usize)> = embedded
        .iter()
        .map(|c| (c.span.start, c.span.end))
        .collect();
    spans.sort_unstable();
    // The furthest end among the spans that start at or before each one.
    let mut furthest = 0;
    let reach: Vec<usize> = spans
        .iter()
        .map(|&(_, end)| {
            furthest = furthest.max(end);
            furthest
        })
        .collect();
    opaque
        .iter()
        .filter(|o| {
            let before = spans.partition_point(|&(start, _)| start < o.start);
            before > 0 && reach[before - 1] > o.start
        })
        .cloned()
        .collect()
}

/// The six dialects' candidates over `masked`, with spans in the original text.
fn embedded(
    masked: &Masked<'_>,
    tools: &Allowlist,
    profile: Profile,
) -> Result<Vec<Candidate>, SalvageError> {
    let payloads = Payloads::new(masked, tools, profile);
    let mut candidates = dialect::scan_embedded(&payloads)?;
    to_original(masked, &mut candidates);
    Ok(candidates)
}

/// The token dialects' candidates over `masked`, spans as they were found.
fn tokens(masked: &Masked<'_>, tools: &Allowlist, profile: Profile) -> Vec<Candidate> {
    dialect::scan_tokens(&Payloads::new(masked, tools, profile))
}

/// The token dialects' candidates with `hidden` masked, spans in the original text.
fn tokens_in_original(
    content: &[u8],
    hidden: Vec<Range<usize>>,
    tools: &Allowlist,
    profile: Profile,
) -> Vec<Candidate> {
    let masked = Masked::with_ranges(content, hidden);
    let mut candidates = tokens(&masked, tools, profile);
    to_original(&masked, &mut candidates);
    candidates
}

/// Maps each candidate's span from the masked text to the original.
fn to_original(masked: &Masked<'_>, candidates: &mut [Candidate]) {
    for c in candidates {
        c.span = masked.to_original(c.span.start)..masked.to_original(c.span.end);
    }
}

/// The spans of `candidates` as sorted, disjoint ranges: a span that starts inside an
/// earlier one is left out, as `span::select` would leave its candidate out.
fn disjoint(candidates: &[Candidate]) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = candidates.iter().map(|c| c.span.clone()).collect();
    spans.sort_by_key(|s| s.start);
    let mut kept: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for s in spans {
        if kept.last().is_none_or(|k| s.start >= k.end) && !s.is_empty() {
            kept.push(s);
        }
    }
    kept
}

/// Whether `at` lies inside one of `ranges` (sorted, disjoint).
fn starts_inside(ranges: &[Range<usize>], at: usize) -> bool {
    let next = ranges.partition_point(|r| r.end <= at);
    ranges.get(next).is_some_and(|r| r.start <= at)
}

#[cfg(test)]
mod tests {
    use crate::salvage::{Allowlist, Request, salvage};

    fn names(reply: &str) -> Vec<String> {
        let tools = Allowlist::new(["get_weather", "delete_all"]);
        salvage(&Request::new(reply, &tools))
            .unwrap()
            .iter()
            .map(|c| c.name_str().unwrap().to_owned())
            .collect()
    }

    /// A token dialect's opener quoted in a call's argument (here without its closer, so
    /// its span would run to the end) does not keep the fences after it from masking.
    #[test]
    fn an_opener_quoted_in_an_argument_hides_no_fence() {
        let call = r#"<tool_call>{"name": "get_weather", "arguments": {"s": "<｜tool▁call▁begin｜>"}}</tool_call>"#;
        let example =
            "```\n<tool_call>{\"name\": \"delete_all\", \"arguments\": {}}</tool_call>\n```";
        assert_eq!(
            names(&format!("{call}\nNever run:\n{example}")),
            ["get_weather"]
        );
        let closed_later = format!("{call}\n{example}\n<｜tool▁call▁end｜>");
        assert_eq!(names(&closed_later), ["get_weather"]);
    }

    /// An opener mentioned in reasoning does not keep the fences after it from masking.
    #[test]
    fn an_opener_in_reasoning_hides_no_fence() {
        let example =
            "```\n<tool_call>{\"name\": \"delete_all\", \"arguments\": {}}</tool_call>\n```";
        let reply = format!("<think>I could write <|tool_call_begin|> here.</think>\n{example}");
        assert_eq!(names(&reply), Vec::<String>::new());
    }

    /// After an opener mentioned in reasoning, a call of the same dialect is read with its
    /// own fence, and a fenced example after it stays an example.
    #[test]
    fn a_call_after_an_opener_in_reasoning_keeps_its_fence() {
        let call = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>";
        let example =
            "```\n<tool_call>{\"name\": \"delete_all\", \"arguments\": {}}</tool_call>\n```";
        let reply =
            format!("<think>It writes <｜tool▁call▁begin｜> first.</think>\n{call}\n{example}");
        assert_eq!(names(&reply), ["get_weather"]);
    }

    /// A token call's own fence stays its own: DeepSeek V3's JSON between ```json and ```.
    #[test]
    fn a_token_calls_own_fence_is_not_an_example() {
        let reply = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>";
        assert_eq!(names(reply), ["get_weather"]);
    }
}
