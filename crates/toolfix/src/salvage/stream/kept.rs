//! The kept text of a stream under `strict` and `portable`: looked at again as it grows,
//! giving each call out as soon as no continuation of the reply could change it, and
//! forgetting the text that is settled.
//!
//! A look runs the batch pipeline (`scan::scanned`) over the kept text. Besides the
//! candidates, it says where the earliest structure that more text could change begins
//! (an unclosed fence or reasoning block; a payload, name or closer a dialect was still
//! reading when the text ended). Candidates that start before it are settled: text order
//! and the starts-inside rule only ever look back. Their calls are given out, the text
//! before the open structure is shown (less the calls' spans and a tail a cut may have
//! split, `tail`), and all of it is forgotten but the code point `\b` reads.
//!
//! Nothing is given out while the reply may still be a whole-content payload, or, under
//! the unopened-`</think>` rule, before the reply has said whether it began with reasoning
//! (`docs/streaming.md` says when each call comes).
//!
//! Looking costs the length of the kept text, which settling keeps short. A look is
//! taken when the new text holds a byte that can end a structure (`>`, `]`, `}`, a fence
//! mark, `:` or a newline), or on every chunk while the kept text is short; after
//! `PATIENCE` looks in a row that settle nothing, the next waits until the kept text has
//! grown by a quarter, which keeps the total work linear on any input.

use super::super::call::Call;
use super::super::dialect::tokens;
use super::super::dialect::{pythonic, whole_json};
use super::super::scan::{self, Scanned};
use super::super::span::{Candidate, Candidates, Found};
use super::super::text::{cp_at, skip_space};
use super::super::{Beginning, Request, SalvageError, probe, reasoning};
use super::{Event, show, tail};
use crate::py::Value;
use crate::py::unicode::is_space;

/// Kept text this short is looked at on every chunk.
const SHORT: usize = 512;

/// Looks in a row that settle nothing before the stream waits for more text.
const PATIENCE: u32 = 8;

/// The closer of reasoning, the longer of the two markers that decide the unopened-`</think>`
/// rule.
const THINK_CLOSE: &[u8] = tokens::reasoning::THINK_CLOSE.as_bytes();

/// The bytes after which a look may settle something.
const ENDINGS: &[u8] = b">]}`~:\n";

/// The kept text and what is known about it.
#[derive(Debug)]
pub struct Kept {
    /// `text[..shown]` was shown (or is the code point before a settled prefix).
    pub text: Vec<u8>,
    pub shown: usize,
    /// The offset in the reply of `text[0]`.
    pub base: usize,
    pub beginning: Beginning,
    /// Calls given out so far.
    emitted: usize,
    /// Whether the marker probe passed on the reply so far.
    probed: bool,
    /// The kept length at the last look.
    looked_at: usize,
    /// How far the text was checked for a reason to look (`worth_a_look`): each byte is
    /// checked once, so a long stretch without one costs its length, not its square.
    checked: usize,
    /// Whether the last look found a call held only by the unopened-`</think>` rule: no
    /// look can settle more until a `<think>` or `</think>` arrives.
    awaiting_think: bool,
    fruitless: u32,
    wait_until: usize,
}

impl Kept {
    /// Kept text whose first `shown` bytes were shown, starting at byte `base` of the
    /// reply.
    pub fn new(text: Vec<u8>, shown: usize, base: usize, beginning: Beginning) -> Kept {
        Kept {
            text,
            shown,
            base,
            beginning,
            emitted: 0,
            probed: beginning.marker_before,
            looked_at: 0,
            checked: 0,
            awaiting_think: false,
            fruitless: 0,
            wait_until: 0,
        }
    }

    /// Appends a chunk, and looks again when that may settle something.
    pub fn push(&mut self, chunk: &[u8], request: &Request<'_>, on: &mut impl FnMut(Event<'_>)) {
        self.text.extend_from_slice(chunk);
        if !self.worth_a_look() {
            return;
        }
        let before = (self.base, self.shown, self.emitted);
        self.look(request, on);
        self.looked_at = self.text.len();
        if (self.base, self.shown, self.emitted) != before {
            self.fruitless = 0;
            self.wait_until = 0;
        } else {
            self.fruitless += 1;
            if self.fruitless >= PATIENCE {
                self.wait_until = self.text.len() + self.text.len() / 4;
            }
        }
    }

    /// Whether the text added since the last look may settle something. Only the bytes
    /// not checked before are read (and a marker's length before them, which it may have
    /// begun in).
    fn worth_a_look(&mut self) -> bool {
        let len = self.text.len();
        if len <= self.looked_at || len < self.wait_until {
            return false;
        }
        let from = self.checked.max(self.looked_at);
        self.checked = len;
        if self.awaiting_think {
            let new = &self.text[from.saturating_sub(THINK_CLOSE.len() - 1)..];
            return [tokens::reasoning::THINK.as_bytes(), THINK_CLOSE]
                .iter()
                .any(|m| memchr::memmem::find(new, m).is_some());
        }
        len <= SHORT || self.text[from..].iter().any(|b| ENDINGS.contains(b))
    }

    /// The calls of the kept text, at the end of the reply: what batch salvage of the
    /// whole reply gives after the calls already given.
    pub fn calls_at_end(&self, request: &Request<'_>) -> Result<Vec<Call>, SalvageError> {
        let calls = super::super::salvage_text(&self.text, self.beginning, request)?;
        // The kept text may hold the start of a structure some of whose calls were given
        // out already (they lie before `shown`); they come first. It may also hold, before
        // `shown`, a call the reply does not make: read alone, the kept text has lost what
        // made it quoted data (the candidate it starts inside). Either way, it was shown or
        // given out: the calls after it are numbered on from those given out.
        let given = calls
            .iter()
            .take_while(|c| c.span().start < self.shown)
            .count();
        Ok(calls
            .into_iter()
            .skip(given)
            .map(|call| call.renumbered(given, self.emitted))
            .collect())
    }

    /// Looks at the kept text: gives out what is settled, and forgets it.
    fn look(&mut self, request: &Request<'_>, on: &mut impl FnMut(Event<'_>)) {
        if self.may_be_whole_content(request) {
            return;
        }
        let salvages = request.adapter.policy().salvages_text && !request.tools.is_empty();
        let scanned = match salvages {
            true => scan::scanned(&self.text, self.beginning, request.tools, request.profile),
            false => Ok(Scanned {
                candidates: Candidates::new(),
                open: None,
                hidden: Vec::new(),
                think_marker: Some(0),
                first_start: None,
                structures: Vec::new(),
                unmasked: Vec::new(),
            }),
        };
        let Ok(mut scanned) = scanned else {
            return;
        };
        self.probed = self.probed || probe::has_marker(&self.text, request.profile);
        scanned.candidates.sort_by_key(|c| c.span.start);
        let settled = Settled::of(&scanned, self.probed);
        self.awaiting_think = settled.awaiting_think;
        let tail_from = [self.shown, settled.last_end, last_closed(&scanned)]
            .into_iter()
            .max()
            .unwrap_or(0);
        let limit = outside(
            settled.limit.min(tail::held_from(&self.text, tail_from)),
            &scanned.hidden,
        )
        .max(self.shown);
        for candidate in &scanned.candidates[..settled.count] {
            let found = scanned.candidates.found(candidate);
            self.give(candidate, found, request, on);
        }
        let limit = limit.max(self.shown);
        show(false, &self.text[self.shown..limit], on);
        self.shown = limit;
        // A structure that holds several calls is read from its opening marker: keep it
        // whole until all of it is settled. A settled candidate may end inside a fence
        // that opened in its span and is still open: keep the fence's opening too.
        let keep_from = scanned
            .structures
            .iter()
            .filter(|r| r.start < limit && limit < r.end)
            .map(|r| r.start)
            .min()
            .unwrap_or(limit)
            .min(open_from(&scanned));
        self.forget(kept_from(keep_from, &scanned), scanned.think_marker);
    }

    /// Gives out a settled candidate: the text before it and its call, when it is one.
    fn give(
        &mut self,
        candidate: &Candidate,
        found: Option<&Found>,
        request: &Request<'_>,
        on: &mut impl FnMut(Event<'_>),
    ) {
        if candidate.span.start < self.shown {
            return;
        }
        let span = candidate.span.clone();
        let Some(found) = found else {
            // A rejected candidate is no call, but it reserves its span as in batch
            // salvage (`span::select`): nothing quoted inside it may be given.
            show(false, &self.text[self.shown..span.end], on);
            self.shown = span.end;
            return;
        };
        show(false, &self.text[self.shown..span.start], on);
        let call = Call::build(
            Value::Str(found.name.clone()),
            found.args.clone(),
            self.base + span.start..self.base + span.end,
            (candidate.dialect, self.emitted),
            request.profile,
        );
        if let Ok(call) = call {
            on(Event::Call(call));
            self.emitted += 1;
        }
        self.shown = span.end;
    }

    /// Forgets `text[..at]` (shown and settled), keeping in place of the code point before
    /// `at` a stand-in that `\b` reads the same (`stand_in`).
    fn forget(&mut self, at: usize, think_marker: Option<usize>) {
        let Some(last) = self.text[..at].iter().rposition(|&b| b & 0xC0 != 0x80) else {
            return;
        };
        // Whitespace the reply begins with is kept: forgetting it would lose that the reply
        // begins here, which a whole-content payload after leading reasoning needs
        // (`\u{a0}<think>…</think>{…}`; one ASCII space is never dropped, `at <= 1`).
        let leading_space = self.beginning.whole_content && skip_space(&self.text[..at], 0) == at;
        if at <= 1 || leading_space {
            return;
        }
        let before = stand_in(&self.text[last..at]);
        let dropped = at - 1;
        self.text.drain(..dropped);
        self.text[0] = before;
        self.base += dropped;
        self.shown -= dropped;
        self.looked_at = self.looked_at.saturating_sub(dropped);
        self.checked = self.checked.saturating_sub(dropped);
        self.wait_until = self.wait_until.saturating_sub(dropped);
        self.beginning = Beginning {
            whole_content: false,
            unopened_think: self.beginning.unopened_think && think_marker.is_none_or(|m| m >= at),
            marker_before: self.probed,
        };
    }

    /// Whether the kept text may still become a whole-content payload (or, under
    /// `strict` and `portable`, one after the reasoning it begins with), which only the end
    /// of the reply decides. Batch salvage reads the whole reply as a payload first, and
    /// after leading reasoning only when that fails (`whole_content_path`), so both are
    /// asked: a list of calls before an unopened `</think>` is still a whole reply.
    fn may_be_whole_content(&self, request: &Request<'_>) -> bool {
        let text = &self.text[..];
        let profile = request.profile;
        if self.beginning.whole_content && may_become_payload(text, profile) {
            return true;
        }
        if !profile.reads_payload_after_reasoning() {
            return false;
        }
        match leading_reasoning(text, self.beginning) {
            Some(run) => {
                let rest = &text[run.end..];
                run.end == text.len()
                    || may_become_payload(rest, profile)
                    || reasoning::may_open(rest)
            }
            None => false,
        }
    }
}

/// Whether `text`, after the whitespace it begins with, may still become a whole-content
/// payload: JSON, or under `strict` and `portable` a pythonic list.
fn may_become_payload(text: &[u8], profile: crate::Profile) -> bool {
    let start = skip_space(text, 0);
    let Some(&first) = text.get(start) else {
        return true;
    };
    let rest = &text[start..];
    match first {
        b'{' => whole_json::may_become_whole(rest, profile),
        b'[' => {
            whole_json::may_become_whole(rest, profile)
                || (profile.reads_native_formats() && pythonic::may_become_whole(rest))
        }
        _ => false,
    }
}

/// What of a look is settled: how many of the sorted candidates, where shown text must
/// stop, and where the last settled candidate ends.
struct Settled {
    count: usize,
    limit: usize,
    last_end: usize,
    /// Whether a candidate is held only because the reply has not said whether it began
    /// with reasoning.
    awaiting_think: bool,
}

impl Settled {
    /// The candidates that start before the earliest open structure (and the one it lies
    /// in, whose end then settles it); none while the reply has not said whether it
    /// began with reasoning (by a marker before the open structure, which cannot turn
    /// into text), or while the probe has not passed.
    fn of(scanned: &Scanned, probed: bool) -> Settled {
        let candidates = &scanned.candidates;
        let open = scanned.open.unwrap_or(usize::MAX);
        let think_decided = scanned.think_marker.is_some_and(|m| m < open);
        if !think_decided || !probed {
            let first = scanned.first_start.unwrap_or(usize::MAX);
            return Settled {
                count: 0,
                limit: open.min(first),
                last_end: 0,
                awaiting_think: probed && scanned.think_marker.is_none() && first < open,
            };
        }
        let (mut count, mut consumed, mut limit) = (0, 0, open);
        for candidate in candidates {
            if candidate.span.start >= open {
                break;
            }
            count += 1;
            if candidate.span.start < consumed {
                continue;
            }
            consumed = candidate.span.end;
            if candidate.span.end > open {
                limit = candidate.span.end;
                break;
            }
        }
        if let Some(next) = candidates.get(count) {
            limit = limit.min(next.span.start.max(consumed));
        }
        Settled {
            count,
            limit: limit.max(consumed),
            last_end: consumed,
            awaiting_think: false,
        }
    }
}

/// `at`, or the start of the range of `ranges` (sorted, disjoint) it falls strictly
/// inside. For the hidden ranges (fences, reasoning): the kept text must begin outside
/// them, or what follows would be read without its fence.
fn outside(at: usize, ranges: &[std::ops::Range<usize>]) -> usize {
    let next = ranges.partition_point(|r| r.end <= at);
    ranges
        .get(next)
        .filter(|r| r.start < at)
        .map_or(at, |r| r.start)
}

/// Where the kept text must begin for `at` to be forgotten: outside the hidden ranges
/// and outside the spans of the unmasked token reading, which the rest would read
/// differently without their start (`Scanned::unmasked`). Moving out of one may move into
/// another, so it repeats until neither holds the point.
fn kept_from(mut at: usize, scanned: &Scanned) -> usize {
    loop {
        let out = outside(outside(at, &scanned.hidden), &scanned.unmasked);
        if out == at {
            return at;
        }
        at = out;
    }
}

/// Where the earliest open structure begins, or the candidate it lies inside when one
/// does (`usize::MAX` when nothing is open). Text already shown may hold it: a settled
/// candidate shadows what it quotes, but a structure quoted in it still reads on (a
/// `<tool_call>` quoted in a Qwen3 XML block pairs with the next `</tool_call>`, so an
/// opener between them opens nothing). Kept from there, the next look reads that
/// pairing, and what the candidate shadows, as batch salvage does.
fn open_from(scanned: &Scanned) -> usize {
    let Some(open) = scanned.open else {
        return usize::MAX;
    };
    scanned
        .candidates
        .iter()
        .filter(|c| c.span.start < open && open < c.span.end)
        .map(|c| c.span.start)
        .fold(open, usize::min)
}

/// The end of the last hidden range that is closed, before the earliest open structure.
fn last_closed(scanned: &Scanned) -> usize {
    let open = scanned.open.unwrap_or(usize::MAX);
    scanned
        .hidden
        .iter()
        .filter(|r| r.end <= open)
        .map(|r| r.end)
        .max()
        .unwrap_or(0)
}

/// One byte that stands for the settled code point `cp` before the kept text, read alike
/// by every look-behind of the dialects: `\b` (word or not), whitespace (`str.isspace`,
/// and whether it is ASCII whitespace, which a Harmony recipient must follow), a line
/// break, a token's closing `>`. Nothing else of it is kept: the code point itself (a
/// backtick, a `<`) must not join what follows it into a fence run or a marker.
pub fn stand_in(cp: &[u8]) -> u8 {
    match cp_at(cp, 0) {
        Some((c, _)) if crate::py::unicode::is_word(c) => b'x',
        Some((_, 1)) if cp[0].is_ascii_whitespace() || cp[0] == b'>' => cp[0],
        // Line breaks for `str.splitlines` that are not ASCII whitespace.
        Some((0x0b | 0x1c..=0x1e | 0x85 | 0x2028 | 0x2029, _)) => 0x1e,
        // Other whitespace that is not ASCII whitespace.
        Some((c, _)) if is_space(c) => 0x1f,
        _ => b'!',
    }
}

/// The reasoning the text begins with, as whole-content salvage reads it: the run of
/// blocks that only whitespace separates (`reasoning::run_end`), with fences masked (a
/// `</think>` shown in a fence after the reasoning closes nothing; F34 in
/// fuzz/findings.toml).
fn leading_reasoning(text: &[u8], beginning: Beginning) -> Option<std::ops::Range<usize>> {
    let ranges = reasoning::fenced_reading(text, beginning);
    let run = ranges.first()?.start..reasoning::run_end(text, &ranges);
    let counted = reasoning::leading_from(text, beginning, &ranges).is_some()
        || (run.end == text.len() && skip_space(&text[..run.start], 0) == run.start);
    counted.then_some(run)
}
