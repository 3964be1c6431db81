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
//! 3. reasoning is found outside the fences (`reasoning`); when there is some, it is found
//!    again outside the calls every dialect reads with only fences masked too, so a
//!    reasoning marker inside a call's arguments is text; then the token dialects scan
//!    again with the reasoning masked, so a block drafted while thinking never pairs with
//!    a token after it;
//! 4. a token candidate that starts inside a fence or reasoning is dropped, and the six
//!    dialects scan the text with both masked; when one also ends after its fence (an
//!    opener written as an example took the closer of a call after the fence), the token
//!    dialects scan again with fences masked too, so that call pairs its own tokens;
//! 5. a token span that starts inside one of their candidates is quoted data, not a call
//!    (a string argument holding `<｜tool▁call▁begin｜>`), and one that starts inside
//!    reasoning is a draft: if one was kept out of fence masking, steps 2 to 4 run again
//!    without it (`quoted`, `in_reasoning`), and a token span that started inside it is
//!    kept out in its place (F38); they run again too when a token span reaches
//!    further with reasoning masked (its first closer was written while thinking), so
//!    fences are found around the spans as they are read, whatever text comes later;
//!    a span read with fences masked stays opaque only over fences whose opener a token
//!    span read unmasked held (`read_around`): a block that read on through a fence's
//!    blanks does not own it;
//! 6. `span::select` orders all candidates and applies the starts-inside rule.
//!
//! Every step is linear: each scans the text a fixed number of times (at most `ROUNDS`).

use std::ops::Range;

use super::dialect::{self, Dialect};
use super::fence::{self, Masked};
use super::payload::Payloads;
use super::reasoning::{self, merge};
use super::span::{self, Candidate, Candidates};
use super::text::{MarkerBytes, cp_at};
use super::{Allowlist, Beginning, SalvageError};
use crate::profile::Profile;
use crate::py::unicode::is_space;

/// The calls of `content`, in text order, under `profile`.
pub fn scan(
    content: &[u8],
    beginning: Beginning,
    tools: &Allowlist,
    profile: Profile,
) -> Result<span::Selection, SalvageError> {
    let read = Read::new(content, beginning, tools, profile, Purpose::Batch);
    Ok(span::select(scanned_for(content, &read)?.candidates))
}

/// What a scan found, for a stream (`stream::kept`) as well as for batch salvage.
pub struct Scanned {
    /// Every candidate, unordered, spans in the original text.
    pub candidates: Candidates,
    /// Where the earliest structure that more text could change begins, if one does.
    pub open: Option<usize>,
    /// The ranges not read: fences and reasoning.
    pub hidden: Vec<Range<usize>>,
    /// Where the first `<think>` or `</think>` outside fences and calls is, which decides
    /// whether the reply began with reasoning (`Some(0)` when that was decided before
    /// this text); `None` while none came.
    pub think_marker: Option<usize>,
    /// The earliest start of any candidate, including ones reasoning then masked.
    pub first_start: Option<usize>,
    /// The spans of the token dialects' structures that hold several calls (`structures`):
    /// a stream keeps each from its opening marker until all of it is settled.
    pub structures: Vec<Range<usize>>,
    /// The spans the token dialects read in the text with nothing masked (sorted,
    /// disjoint): every round starts from that reading, and it decides which reasoning
    /// markers lie inside calls. A stream keeps its text from outside them, since cut
    /// inside one the rest would read differently (a block drafted in reasoning that took
    /// the opener of a later call hides that call's `<think>`; F35 in fuzz/findings.toml).
    pub unmasked: Vec<Range<usize>>,
}

/// Every candidate of `content` under `profile`, and the earliest open structure: an
/// unclosed fence or reasoning block, or a dialect's structure that reached the end of the
/// text undecided (`Payloads::reaches_end`).
pub fn scanned(
    content: &[u8],
    beginning: Beginning,
    tools: &Allowlist,
    profile: Profile,
) -> Result<Scanned, SalvageError> {
    let read = Read::new(content, beginning, tools, profile, Purpose::Stream);
    scanned_for(content, &read)
}

/// [`scanned`] for `read.purpose`. For a batch, `open` and `structures` leave out what
/// [`Unsettled`] works out: batch salvage reads only the candidates.
fn scanned_for(content: &[u8], read: &Read<'_>) -> Result<Scanned, SalvageError> {
    if !read.profile.masks_reasoning() && !read.profile.reads_native_formats() {
        let fenced = fence::fenced_ranges(content);
        let open = fence::unclosed(content, &fenced);
        let masked = Masked::with_ranges(content, fenced.clone());
        let (candidates, reached) = embedded(&masked, read)?;
        return Ok(Scanned {
            first_start: first_start(&candidates),
            candidates,
            open: earliest([open, reached]),
            hidden: fenced,
            think_marker: Some(0),
            structures: Vec::new(),
            unmasked: Vec::new(),
        });
    }
    let read_tokens = || match read.held.any() {
        true => tokens(&Masked::with_ranges(content, Vec::new()), read),
        false => (Candidates::new(), None),
    };
    let raw = read_tokens();
    // Every span as read, overlapping or not: a span that starts inside one a later round
    // finds quoted (F38) is a call of its own once that one is dropped.
    let read_unmasked = spans(&raw.0);
    let unmasked = disjoint(&read_unmasked);
    // What a round keeps out of fence masking: in the first, every span of `unmasked`.
    let mut opaque: Option<Vec<Range<usize>>> = None;
    let mut reuse = Reuse {
        unmasked: Some(raw),
        early: None,
    };
    // What an earlier round read decided what the next one masks: a structure still open
    // in any round may yet change the answer.
    let mut open_before = None;
    for round in 1..=ROUNDS {
        let kept_out = opaque.as_deref().unwrap_or(&unmasked);
        let raw = reuse.unmasked.take().unwrap_or_else(read_tokens);
        let mut pass = pass(content, read, raw, kept_out, reuse.early.take())?;
        reuse = std::mem::take(&mut pass.reuse);
        let drafted = in_reasoning(&pass.reasoning, kept_out);
        let quoted_now = quoted(&pass.embedded, kept_out);
        // With reasoning or a fence masked, a token span may reach further (its closer
        // was written while thinking) or start later (its opener was an example in a
        // fence): the fences must be found around the spans as they are read.
        let spans_moved = round == 1
            && pass
                .reread
                .as_deref()
                .is_some_and(|r| disjoint(r) != kept_out);
        if (drafted.is_empty() && quoted_now.is_empty() && !spans_moved) || round == ROUNDS {
            let mut scanned = pass.scanned;
            scanned.open = earliest([scanned.open, open_before]);
            scanned.unmasked = unmasked;
            return Ok(scanned);
        }
        open_before = earliest([open_before, pass.scanned.open]);
        let next = match round {
            1 => {
                let mut kept = pass.reread.unwrap_or_else(|| read_unmasked.clone());
                let mut quoted: Vec<(usize, usize)> = quoted(&pass.embedded, &kept)
                    .iter()
                    .map(|r| (r.start, r.end))
                    .collect();
                quoted.sort_unstable();
                kept.retain(|o| quoted.binary_search(&(o.start, o.end)).is_err());
                disjoint(&kept)
            }
            _ => Vec::new(),
        };
        open_before = earliest([open_before, rounds_differ_from(content, kept_out, &next)]);
        opaque = Some(next);
    }
    unreachable!("the last round returns")
}

/// The earliest token span that holds a fence mark. A later round of the scan may keep
/// no span out of fence masking (`ROUNDS`), and then that mark pairs with the marks after
/// it, which changes how all the text after it reads: a stream settles nothing from it
/// until the end decides.
fn fence_mark_inside(content: &[u8], tokens: &[Candidate]) -> Option<usize> {
    // Most replies hold no mark at all: asked once, not of each span of a flood.
    if !fence::holds_mark(content) {
        return None;
    }
    tokens
        .iter()
        .filter(|c| fence::holds_mark(&content[c.span.clone()]))
        .map(|c| c.span.start)
        .min()
}

/// Where a round that keeps `next` out of fence masking, after one that kept `previous`,
/// may read the text differently: from the first span in one and not the other, when a
/// fence mark comes after it (fences are paired from the start of the text, and only
/// they depend on what is kept out of masking). The text before reads the same in every
/// round; a stream settles nothing after it until the end decides.
fn rounds_differ_from(
    content: &[u8],
    previous: &[Range<usize>],
    next: &[Range<usize>],
) -> Option<usize> {
    let only_in = |a: &[Range<usize>], b: &[Range<usize>]| {
        a.iter()
            .find(|r| b.binary_search_by_key(&r.start, |s| s.start).is_err())
            .map(|r| r.start)
    };
    let from = earliest([only_in(previous, next), only_in(next, previous)])?;
    let rest = &content[from..];
    fence::holds_mark(rest).then_some(from)
}

/// One pass of the scan with `opaque` kept out of fence masking.
struct Pass {
    /// What the pass found.
    scanned: Scanned,
    /// Its reasoning ranges.
    reasoning: Vec<Range<usize>>,
    /// The spans of the token candidates read again with reasoning, or fences too,
    /// masked (`None` when they were read only once), sorted and overlapping: what may
    /// stay opaque in the next pass, once the quoted ones are left out.
    reread: Option<Vec<Range<usize>>>,
    /// The spans of the six dialects' candidates in the original text (empty when no span
    /// was opaque).
    embedded: Vec<Range<usize>>,
    /// What it read that the next pass may take rather than read the whole text again.
    reuse: Reuse,
}

/// What one pass read that the next may share, each read depending only on what it is
/// kept with.
#[derive(Default)]
struct Reuse {
    /// The token candidates of the unmasked text, handed back when reasoning masked
    /// replaced them: that reading depends on nothing a round decides.
    unmasked: Option<Reading>,
    /// The six dialects' candidates with only fences masked, and those fences: the next
    /// round often finds the same fences.
    early: Option<(Vec<Range<usize>>, Reading)>,
}

/// How a scan reads a text, which of `<` and `[` the text holds, and what for.
#[derive(Clone, Copy)]
struct Read<'t> {
    beginning: Beginning,
    tools: &'t Allowlist,
    profile: Profile,
    held: MarkerBytes,
    purpose: Purpose,
}

impl<'t> Read<'t> {
    /// How to read `content`.
    fn new(
        content: &[u8],
        beginning: Beginning,
        tools: &'t Allowlist,
        profile: Profile,
        purpose: Purpose,
    ) -> Read<'t> {
        // Every marker but ReAct's holds `<` or `[`: which of them the text holds is
        // asked once here, not again by reasoning and the think marker of every round
        // (prose that reaches the scan through `action` has neither). The scanners ask
        // again of the text they read: masking reasoning or a fence may leave it without
        // a byte the content holds.
        Read {
            beginning,
            tools,
            profile,
            held: MarkerBytes::of(content),
            purpose,
        }
    }
}

/// Who reads what a scan found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Batch salvage, which takes the candidates: what more text could change is not
    /// worked out (for a flood of calls, sorting their spans twice more).
    Batch,
    /// A stream, which also keeps what more text could change ([`Unsettled`]).
    Stream,
}

/// Steps 2 to 4 of the scan, given the token candidates `raw` found in the unmasked text
/// and the spans `opaque` whose fences are theirs.
fn pass(
    content: &[u8],
    read: &Read<'_>,
    raw: Reading,
    opaque: &[Range<usize>],
    earlier: Option<(Vec<Range<usize>>, Reading)>,
) -> Result<Pass, SalvageError> {
    let Read {
        beginning, held, ..
    } = *read;
    let (mut tokens, raw_token_open) = raw;
    let fenced = fence::fenced_ranges_around(content, opaque);
    let open_fence = fence::unclosed(content, &fenced);
    let mut reasoning = reasoning::reasoning(content, &fenced, beginning, held);
    let mut read_as_text = fenced.clone();
    let mut first = first_start(&tokens);
    // A structure still open in the text with only fences masked may yet turn a
    // reasoning marker inside it into text, and so unmask what that marker masks.
    let tokens_open_before = earliest([raw_token_open, calls_near_end(content, &tokens)]);
    let mut early_open_before = None;
    let mut reuse = Reuse::default();
    if !reasoning.ranges.is_empty() {
        // A reasoning marker inside a call's arguments (a file that holds `</think>`) is
        // text: find the calls with only fences masked, and look for reasoning outside
        // them as well as outside the fences.
        let (early, early_open) = match earlier {
            Some((fences, early)) if fences == fenced => early,
            _ => embedded(&Masked::with_ranges(content, fenced.clone()), read)?,
        };
        first = earliest([first, first_start(&early)]);
        early_open_before = early_open;
        let calls = tokens.iter().chain(early.iter()).filter(|c| c.is_call());
        read_as_text = merge(
            fenced
                .iter()
                .cloned()
                .chain(calls.map(|c| c.span.clone()))
                .collect(),
        );
        reasoning = reasoning::reasoning(content, &read_as_text, beginning, held);
        reuse.early = Some((fenced.clone(), (early, early_open)));
    }
    let open_reasoning = reasoning.unclosed();
    let reasoning = reasoning.ranges;
    let think_marker = match beginning.unopened_think {
        true => reasoning::first_think_marker(content, &read_as_text, held),
        false => Some(0),
    };
    let mut reached_in_tokens = None;
    let mut reread = None;
    if !reasoning.is_empty() {
        let (read_again, reached) = tokens_in_original(content, reasoning.clone(), read);
        reuse.unmasked = Some((std::mem::replace(&mut tokens, read_again), raw_token_open));
        reached_in_tokens = reached;
        reread = Some(spans(&tokens));
    }
    let hidden = merge(
        fenced
            .iter()
            .cloned()
            .chain(reasoning.iter().cloned())
            .collect(),
    );
    let hidden_reaching_past = reached_past_hidden(&hidden, &tokens);
    if hidden_reaching_past.is_some() {
        // An opener written in a fence (an example of the format) took the closer of the
        // first call of its dialect after the fence: read the tokens again with the
        // fences masked too, so that call pairs its own opener with its closer.
        let unmasked = std::mem::take(&mut tokens);
        (tokens, reached_in_tokens) = tokens_in_original(content, hidden.clone(), read);
        reread = Some(read_around(spans(&tokens), &fenced, &unmasked));
    }
    tokens.retain(|c| !starts_inside(&hidden, c.span.start));
    let reached_in_tokens = reached_in_tokens.filter(|&at| !starts_inside(&hidden, at));
    let masked = Masked::with_ranges(content, hidden.clone());
    let (mut candidates, reached) = embedded(&masked, read)?;
    // Only spans kept out of fence masking can be quoted: nothing to record without them.
    let embedded_spans = match opaque.is_empty() {
        true => Vec::new(),
        false => candidates.iter().map(|c| c.span.clone()).collect(),
    };
    let unsettled = match read.purpose {
        Purpose::Stream => Unsettled::of(
            content,
            (&candidates, &tokens),
            [reached_in_tokens, tokens_open_before],
        ),
        Purpose::Batch => Unsettled::default(),
    };
    candidates.append(&mut tokens);
    let scanned = Scanned {
        first_start: earliest([first, first_start(&candidates)]),
        candidates,
        open: earliest([
            open_fence,
            open_reasoning,
            reached,
            early_open_before,
            unsettled.open,
            hidden_reaching_past,
        ]),
        hidden,
        think_marker,
        structures: unsettled.structures,
        unmasked: Vec::new(),
    };
    Ok(Pass {
        scanned,
        reasoning,
        reread,
        embedded: embedded_spans,
        reuse,
    })
}

/// How many times fences may be found: with every token span opaque; again without the
/// spans that are not calls (quoted inside an embedded candidate, or written in
/// reasoning) and with the spans as reasoning masked reads them; and, if that still leaves some (the new fences changed what the embedded
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
fn quoted(embedded: &[Range<usize>], opaque: &[Range<usize>]) -> Vec<Range<usize>> {
    if embedded.is_empty() || opaque.is_empty() {
        return Vec::new();
    }
    let mut spans: Vec<(usize, usize)> = embedded.iter().map(|s| (s.start, s.end)).collect();
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

/// What a stream must keep after a pass because more text could change it, beyond the
/// fences, reasoning and payloads left open (`Scanned::open`, `Scanned::structures`).
#[derive(Default)]
struct Unsettled {
    /// The earliest position more text could change.
    open: Option<usize>,
    /// The token dialects' structures that hold several calls.
    structures: Vec<Range<usize>>,
}

impl Unsettled {
    /// What is unsettled among the six dialects' `candidates` and the `tokens`, given
    /// where the token dialects reached the end undecided (`tokens_open`).
    ///
    /// A token opener quoted inside another candidate (a string argument holding
    /// `<minimax:tool_call>`, a `<function=` inside a Kimi call) is that candidate's data:
    /// the starts-inside rule drops whatever begins there, so it holds nothing open, and no
    /// stream keeps its text. An open position inside a candidate moves to the candidate's
    /// end: an earliest position that merged several (`Payloads::open`) may hide a real
    /// one after the candidate, never one inside it.
    fn of(
        content: &[u8],
        (candidates, tokens): (&[Candidate], &[Candidate]),
        tokens_open: [Option<usize>; 2],
    ) -> Unsettled {
        let outermost = Outermost::of(candidates.iter().chain(tokens), content.len());
        let data = |at: Option<usize>| at.map(|at| outermost.around(at).map_or(at, |s| s.end));
        let [reached, open_before] = tokens_open;
        let tokens_open = earliest([
            data(reached),
            data(open_before),
            data(calls_near_end(content, tokens)),
        ]);
        let mut structures = structures(content, tokens, &outermost);
        structures.extend(chains(candidates));
        Unsettled {
            open: earliest([
                tokens_open,
                markers_near_end(content, &outermost.spans),
                outermost.reached_past,
                fence_mark_inside(content, tokens),
            ]),
            structures,
        }
    }
}

/// The spans of the candidates that start inside no other, sorted and disjoint: what
/// starts strictly inside one of them is its data (the starts-inside rule of
/// `span::select` drops it).
struct Outermost {
    spans: Vec<Range<usize>>,
    /// The earliest outermost span that a candidate quoted inside it reaches past (a
    /// block whose closer comes after the span), or may yet (one that reaches the end of
    /// the text): what follows the span is read with that block open, so a stream must
    /// keep the span's text, and settle nothing from it, until the end decides.
    reached_past: Option<usize>,
}

impl Outermost {
    /// The outermost spans of `candidates`, in a text `len` bytes long. Found in the one
    /// pass that sorts them: a span that starts strictly inside the last outermost one is
    /// quoted in it.
    fn of<'c>(candidates: impl Iterator<Item = &'c Candidate>, len: usize) -> Outermost {
        let mut spans: Vec<Range<usize>> = candidates.map(|c| c.span.clone()).collect();
        spans.sort_unstable_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
        let mut outer: Vec<Range<usize>> = Vec::new();
        let mut reached_past = None;
        for span in spans {
            match outer.last() {
                Some(last) if span.start < last.end => {
                    let quoted = last.start < span.start;
                    if quoted && (span.end > last.end || span.end == len) {
                        reached_past = earliest([reached_past, Some(last.start)]);
                    }
                }
                _ => outer.push(span),
            }
        }
        Outermost {
            spans: outer,
            reached_past,
        }
    }

    /// The outermost span `at` lies strictly inside.
    fn around(&self, at: usize) -> Option<&Range<usize>> {
        let before = self.spans.partition_point(|s| s.start < at);
        self.spans[..before].last().filter(|s| at < s.end)
    }
}

/// The structures the token candidates belong to: a candidate that begins with one of
/// the dialects' opening markers begins a structure; one that does not (the second
/// invoke of a DSML or MiniMax section, the next element of a `[TOOL_CALLS]` array or a
/// pythonic list, the next call of a Mistral chain) belongs to the structure before it,
/// whose opening marker a scan must see to read it. A candidate that starts inside
/// another (a token quoted in an argument) is that one's data, and neither begins nor
/// ends a structure.
fn structures(content: &[u8], tokens: &[Candidate], outermost: &Outermost) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = tokens.iter().map(|c| c.span.clone()).collect();
    spans.sort_unstable_by_key(|s| s.start);
    let mut out: Vec<Range<usize>> = Vec::new();
    // Both run in text order: one pass over the outermost spans finds each one around.
    let mut outer = outermost.spans.iter().peekable();
    for span in spans {
        while outer.next_if(|o| o.end <= span.start).is_some() {}
        if outer.peek().is_some_and(|o| o.start < span.start) {
            continue;
        }
        let opens = dialect::opens_at(content, span.start);
        match out.last_mut() {
            Some(last) if !opens && last.end <= span.start => last.end = span.end,
            _ => out.push(span),
        }
    }
    out
}

/// The Llama chains among the embedded `candidates` (`<|python_tag|>` then objects
/// separated by `;`): each object after the first is a call only after the tag, so a
/// stream keeps the chain from its tag until all of it is settled, like a token
/// structure. A chain's candidates follow one another with no gap; two tags written back
/// to back read as one chain here, which keeps more text than needed, never less.
fn chains(candidates: &[Candidate]) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = candidates
        .iter()
        .filter(|c| c.dialect == Dialect::PythonTag)
        .map(|c| c.span.clone())
        .collect();
    spans.sort_unstable_by_key(|s| s.start);
    let mut chains: Vec<(Range<usize>, usize)> = Vec::new();
    for span in spans {
        match chains.last_mut() {
            Some((chain, links)) if chain.end == span.start => {
                chain.end = span.end;
                *links += 1;
            }
            _ => chains.push((span, 1)),
        }
    }
    chains
        .into_iter()
        .filter(|(_, links)| *links > 1)
        .map(|(chain, _)| chain)
        .collect()
}

/// The earliest start among `candidates`.
fn first_start(candidates: &[Candidate]) -> Option<usize> {
    candidates.iter().map(|c| c.span.start).min()
}

/// How many bytes other than whitespace a token dialect reads, at most, after a marker
/// before it knows whether a call begins there: a name (at most 256 bytes) and the tokens
/// that follow it.
const AFTER_MARKER: usize = 320;

/// How many bytes other than whitespace a token dialect reads, at most, after a call
/// before it knows where the call ends: a closing wrapper or section token, a Harmony end
/// token (none is longer than 40 bytes).
const AFTER_CALL: usize = 64;

/// The earliest token candidate near the end of `content`: with fewer than `AFTER_CALL`
/// bytes (not counting whitespace) after it, more text could still change where it
/// ends. (Payloads a dialect was still decoding at the end are reported by the dialect.)
fn calls_near_end(content: &[u8], tokens: &[Candidate]) -> Option<usize> {
    let near = near_end(content, AFTER_CALL);
    tokens
        .iter()
        .filter(|c| c.span.end >= near)
        .map(|c| c.span.start)
        .min()
}

/// The earliest token marker with fewer than `AFTER_MARKER` bytes (not counting
/// whitespace) after it that neither begins nor lies inside one of `covering`: more text
/// could still make a call begin there. A marker inside a fence or reasoning counts too:
/// the structure it begins may read on past the range's end (its header still reading
/// when the fence closed), and then batch salvage reads the text after the range around
/// it (`reached_past_hidden`), so a stream keeps the range until that is decided (F32
/// in fuzz/findings.toml).
fn markers_near_end(content: &[u8], covering: &[Range<usize>]) -> Option<usize> {
    let near = near_end(content, AFTER_MARKER);
    // Only ranges that reach past `near` can cover a marker after it: picked once, so a
    // flood of candidates is not walked again for each marker near the end.
    let late: Vec<&Range<usize>> = covering.iter().filter(|c| c.end > near).collect();
    let covered = |at: usize| late.iter().any(|c| c.start <= at && at < c.end);
    dialect::TOKEN_OPENERS
        .iter()
        .flat_map(|m| memchr::memmem::find_iter(&content[near..], m.as_bytes()).map(|i| near + i))
        .filter(|&at| !covered(at))
        .min()
}

/// The offset after which fewer than `bytes` bytes of `content` are not whitespace
/// (`str.isspace`, which the dialects skip).
fn near_end(content: &[u8], bytes: usize) -> usize {
    let mut seen = 0;
    for i in (0..content.len()).rev() {
        if content[i] & 0xC0 == 0x80 {
            continue;
        }
        match cp_at(content, i) {
            Some((cp, _)) if is_space(cp) => {}
            Some((_, len)) => {
                seen += len;
                if seen >= bytes {
                    return i;
                }
            }
            None => {}
        }
    }
    0
}

/// The earliest of some positions.
fn earliest<const N: usize>(positions: [Option<usize>; N]) -> Option<usize> {
    positions.into_iter().flatten().min()
}

/// Candidates, and the start of the earliest structure that reached the end undecided.
type Reading = (Candidates, Option<usize>);

/// The six dialects' candidates over `masked`, with spans in the original text.
fn embedded(masked: &Masked<'_>, read: &Read<'_>) -> Result<Reading, SalvageError> {
    let payloads = Payloads::new(masked, read.tools, read.profile);
    let mut candidates = dialect::scan_embedded(&payloads)?;
    to_original(masked, &mut candidates);
    let reached = payloads.open().map(|at| masked.to_original(at));
    Ok((candidates, reached))
}

/// The token dialects' candidates over `masked`, spans as they were found.
fn tokens(masked: &Masked<'_>, read: &Read<'_>) -> Reading {
    let payloads = Payloads::new(masked, read.tools, read.profile);
    let candidates = dialect::scan_tokens(&payloads);
    (candidates, payloads.open())
}

/// The token dialects' candidates with `hidden` masked, spans in the original text.
fn tokens_in_original(content: &[u8], hidden: Vec<Range<usize>>, read: &Read<'_>) -> Reading {
    let masked = Masked::with_ranges(content, hidden);
    let (mut candidates, reached) = tokens(&masked, read);
    to_original(&masked, &mut candidates);
    (candidates, reached.map(|at| masked.to_original(at)))
}

/// Maps each candidate's span from the masked text to the original.
fn to_original(masked: &Masked<'_>, candidates: &mut [Candidate]) {
    for c in candidates {
        c.span = masked.to_original(c.span.start)..masked.to_original(c.span.end);
    }
}

/// The spans of `candidates`, sorted by start as `span::select` sorts them (two that
/// start together stay in the order found); they may overlap.
fn spans(candidates: &[Candidate]) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = candidates.iter().map(|c| c.span.clone()).collect();
    spans.sort_by_key(|s| s.start);
    spans
}

/// The sorted `spans` as disjoint ranges: a span that starts inside an earlier one is
/// left out, as `span::select` would leave its candidate out.
fn disjoint(spans: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut kept: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for s in spans {
        if kept.last().is_none_or(|k| s.start >= k.end) && !s.is_empty() {
            kept.push(s.clone());
        }
    }
    kept
}

/// The `spans` (sorted), read with `fenced` masked, that may stay opaque in the
/// next round: each fence one of them overlaps must open inside a span read with no
/// fence masked (`unmasked`), as a call's own fence does (DeepSeek V3's ```` ```json ````,
/// found as a fence only because the span that held it took the closer of a later call).
/// A span that grew over a fence whose opener no token read (a block left open reads on
/// through the blanks of the fence after its opener) does not own it: kept opaque, it
/// would unmask that fence in the next round, and the example inside would run (F31 in
/// fuzz/findings.toml).
fn read_around(
    spans: Vec<Range<usize>>,
    fenced: &[Range<usize>],
    unmasked: &[Candidate],
) -> Vec<Range<usize>> {
    let token_text = merge(unmasked.iter().map(|c| c.span.clone()).collect());
    spans
        .into_iter()
        .filter(|s| {
            let first = fenced.partition_point(|f| f.end <= s.start);
            fenced[first..]
                .iter()
                .take_while(|f| f.start < s.end)
                .all(|f| starts_inside(&token_text, f.start))
        })
        .collect()
}

/// The earliest token candidate that starts inside a hidden range (a fence, reasoning)
/// and ends after it. Such a candidate is dropped, but it paired its opener with a closer
/// after the range, so the block whose closer it took reads as no call (the pairing
/// limitation in docs/fuzzing.md): how the text after the range reads depends on text
/// inside it, and a stream must keep that text, and settle nothing after it, until the
/// end decides (`stream/kept.rs`, `open_from`).
fn reached_past_hidden(hidden: &[Range<usize>], tokens: &[Candidate]) -> Option<usize> {
    tokens
        .iter()
        .filter(|c| range_at(hidden, c.span.start).is_some_and(|r| r.end < c.span.end))
        .map(|c| c.span.start)
        .min()
}

/// Whether `at` lies inside one of `ranges` (sorted, disjoint).
fn starts_inside(ranges: &[Range<usize>], at: usize) -> bool {
    range_at(ranges, at).is_some()
}

/// The one of `ranges` (sorted, disjoint) that `at` lies inside, if any.
fn range_at(ranges: &[Range<usize>], at: usize) -> Option<&Range<usize>> {
    let next = ranges.partition_point(|r| r.end <= at);
    ranges.get(next).filter(|r| r.start <= at)
}

#[cfg(test)]
mod tests {
    use crate::profile::Profile;
    use crate::salvage::{Allowlist, Beginning, Request, salvage};

    fn names(reply: &str) -> Vec<String> {
        let tools = Allowlist::new(["get_weather", "delete_all"]);
        salvage(&Request::new(reply, &tools))
            .unwrap()
            .iter()
            .map(|c| c.name_str().unwrap().to_owned())
            .collect()
    }

    /// F32: a token marker inside a closed fence near the end of the text may be a header
    /// still reading when the fence closed (a Harmony `<|channel|>` whose `<|message|>` is
    /// yet to come). Batch salvage would then read the text after the fence around it, so
    /// a stream's scan reports a structure open from the marker, and the stream keeps the
    /// fence; with enough text after the marker, nothing is open.
    #[test]
    fn a_marker_in_a_closed_fence_near_the_end_is_open() {
        let tools = Allowlist::new(["get_weather"]);
        let open = |text: &str| {
            super::scanned(text.as_bytes(), Beginning::REPLY, &tools, Profile::Portable)
                .unwrap()
                .open
        };
        let text = "Example:\n```\n<|channel|>commentary to=functions.get_weather\n```\n";
        assert_eq!(open(text), text.find("<|channel|>"));
        assert_eq!(open(&format!("{text}{}", "Done. ".repeat(60))), None);
    }

    /// F28's root cause: an opener shown in a fence without its closer took the closer of
    /// the first real call of its dialect after the fence, and both were lost; the token
    /// dialects are now read again with fences masked (DeepSeek V3 and V3.1, Kimi).
    #[test]
    fn an_opener_shown_in_a_fence_leaves_the_call_after_it() {
        for call in [
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|>",
        ] {
            let opener = &call[..call.find("get_weather").unwrap()];
            let reply = format!("The format:\n```\n{opener}\n```\nNow:\n{call}");
            assert_eq!(names(&reply), ["get_weather"], "{reply}");
        }
    }

    /// The scan skips every dialect but ReAct, and reasoning, in text without `<` or `[`
    /// (`text::MarkerBytes::any`), and the token dialects whose byte the text lacks
    /// (`text::MarkerBytes`): Mistral's and Phi-4's openers hold `[`, every other one `<`,
    /// save Harmony's recipient, which its dialect reads only before a `<|message|>`. A
    /// ReAct step in such prose is still found, and so is every dialect once a `<` comes.
    #[test]
    fn tag_free_text_skips_only_what_cannot_match() {
        for &opener in super::dialect::TOKEN_OPENERS {
            let bracketed = matches!(opener, "[TOOL_CALLS]" | "functools[");
            let held = match bracketed {
                true => b'[',
                false => b'<',
            };
            assert!(
                opener.as_bytes().contains(&held) || opener == "to=",
                "{opener}"
            );
        }
        let mistral = "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}";
        assert_eq!(names(mistral), ["get_weather"]);
        let tagged = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>";
        assert_eq!(names(tagged), ["get_weather"]);
        let step = "The action: Action: get_weather\nAction Input: {\"city\": \"Paris\"}";
        assert_eq!(names(step), ["get_weather"]);
        assert!(names("to=functions.get_weather {\"city\": \"Paris\"}").is_empty());
        let harmony = "<|start|>assistant<|channel|>commentary to=functions.get_weather \
                       <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>";
        assert_eq!(names(harmony), ["get_weather"]);
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

    /// F31: a Granite block left open reads on through the fence after its opener, with
    /// that fence masked, when a Harmony message that starts inside the fence's second
    /// part (the rest of its closing run opens another) reaches past it. The block's
    /// longer span must not unmask the fence in the next round: the example stays one.
    #[test]
    fn a_block_read_over_a_masked_fence_does_not_unmask_it() {
        let reply = "<|tool_call|>[\t````````text\n\
                     <tool_call>delete_all\n<arg_key>path</arg_key>\n<arg_value>/</arg_value>\n</tool_call>\n\
                     ```````````\n\
                     <|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\n  \"```\"";
        assert_eq!(names(reply), Vec::<String>::new());
    }

    /// F38: a token span read from inside a fence made the tokens be read again with the
    /// fences masked, and there a MiniMax opener quoted in a `<tool_call>` ran to the end
    /// of the reply, over the DeepSeek call after it. Once the quoted span is dropped,
    /// the DeepSeek span it held stays opaque: its own ```json is not masked as a fence.
    #[test]
    fn a_call_inside_a_quoted_span_keeps_its_fence() {
        let example = "````x <tool_call>a <arg_key>\n`````` ";
        let quoting =
            r#"<tool_call>{"name": "x", "arguments": {"t": "<minimax:tool_call>"}}</tool_call> "#;
        let call = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{}\n```<｜tool▁call▁end｜>";
        for reply in [
            format!("{example}{quoting}{call}"),
            format!("{quoting}{call}"),
        ] {
            assert_eq!(names(&reply), ["get_weather"], "{reply}");
        }
    }

    /// A token call's own fence stays its own: DeepSeek V3's JSON between ```json and ```.
    #[test]
    fn a_token_calls_own_fence_is_not_an_example() {
        let reply = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>";
        assert_eq!(names(reply), ["get_weather"]);
    }
}
