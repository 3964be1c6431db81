//! The kept text of a stream under `strict` and `portable`: read on as it grows by the
//! one-pass reading (`pass::Reading`), giving each call out as soon as its region is
//! decided, and forgetting the text that is.
//!
//! A stream is the batch reading fed in parts: the reading decides a region only when
//! the text so far decides it, and never reopens one, so the calls a stream gives are
//! batch salvage's, at their place. Three things only the end of the reply can settle
//! hold calls back: the reply may still be a whole-content payload; the probe has not
//! passed; no reasoning marker came, so an unopened `</think>` could still make what came
//! before it reasoning (`docs/streaming.md`). Text is shown up to where the reading has
//! decided it, less the calls' spans, and up to the first call held back.
//!
//! A look costs the kept text after the first undecided region, which forgetting keeps
//! short. A look is taken when the new text holds a byte that can end a structure (`>`,
//! `]`, `}`, a fence mark, `:` or a newline), when it grew by `GROWTH` bytes, or on every
//! chunk while the kept text is short; after `PATIENCE` looks in a row that settle
//! nothing, the next waits until the kept text has grown by a quarter, which keeps the
//! total work linear on any input.

use super::super::call::Call;
use super::super::dialect::tokens;
use super::super::dialect::whole_json::Whole;
use super::super::dialect::{pythonic, whole_json};
use super::super::pass::{Memo, Reading, Settled};
use super::super::text::{byte_set, cp_at, skip_space};
use super::super::{Beginning, Content, Request, SalvageError, probe, read_to_end, reasoning};
use super::{Event, show};
use crate::py::Value;
use crate::py::unicode::is_space;

/// Kept text this short is looked at on every chunk.
const SHORT: usize = 512;

/// Growth of the kept text since the last look after which a look is taken whatever the
/// new text holds: a region is decided once enough text follows it (`pass::LOOK_AHEAD`),
/// which prose without a structure's end byte provides too.
const GROWTH: usize = 128;

/// Looks in a row that settle nothing before the stream waits for more text.
const PATIENCE: u32 = 8;

/// The closer of reasoning, the longer of the two markers that decide the unopened-`</think>`
/// rule.
const THINK_CLOSE: &[u8] = tokens::reasoning::THINK_CLOSE.as_bytes();

/// The bytes after which a look may settle something, `ENDS[b]` for byte `b`: a lookup
/// per byte, where a chunk of one token is checked on every call.
const ENDS: [bool; 256] = byte_set(b">]}`~:\n");

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
    /// The one-pass reading of the kept text.
    reading: Reading,
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
            reading: match beginning.whole_content {
                true => Reading::new(Memo::On),
                false => Reading::after_prose(),
            },
            fruitless: 0,
            wait_until: 0,
        }
    }

    /// Appends a chunk, and looks again when that may settle something (the stream's
    /// `request` is only made then).
    #[inline]
    pub fn push<'r>(
        &mut self,
        chunk: &[u8],
        request: impl FnOnce() -> Request<'r>,
        on: &mut impl FnMut(Event<'_>),
    ) {
        match chunk.len() {
            // A token's bytes, pushed one by one: cheaper than a call to copy them.
            0..=8 => chunk.iter().for_each(|&b| self.text.push(b)),
            _ => self.text.extend_from_slice(chunk),
        }
        if self.worth_a_look() {
            self.look_and_count(&request(), on);
        }
    }

    /// Looks, and counts the looks in a row that settle nothing.
    #[inline(never)]
    fn look_and_count(&mut self, request: &Request<'_>, on: &mut impl FnMut(Event<'_>)) {
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
    #[inline]
    fn worth_a_look(&mut self) -> bool {
        let len = self.text.len();
        if len <= self.looked_at || len < self.wait_until {
            return false;
        }
        let from = self.checked.max(self.looked_at);
        self.checked = len;
        if self.awaiting_think {
            // Both markers end with `>`: new text without one completes neither.
            let new = &self.text[from..];
            // A few bytes (a token, a small chunk) are looked at in a loop: `contains`
            // calls a search, which costs a 1-byte stream 2% more instructions.
            #[allow(clippy::manual_contains)]
            let closes = match new.len() {
                0..=16 => new.iter().any(|&b| b == b'>'),
                _ => memchr::memchr(b'>', new).is_some(),
            };
            return closes && self.think_marker_since(from);
        }
        len <= SHORT
            || len >= self.looked_at + GROWTH
            || self.text[from..].iter().any(|&b| ENDS[usize::from(b)])
    }

    /// Whether a reasoning marker ends in the text from `from` on (or began a marker's
    /// length before it), while a call waits for one (`awaiting_think`).
    #[inline(never)]
    fn think_marker_since(&self, from: usize) -> bool {
        let new = &self.text[from.saturating_sub(THINK_CLOSE.len() - 1)..];
        [tokens::reasoning::THINK.as_bytes(), THINK_CLOSE]
            .iter()
            .any(|m| memchr::memmem::find(new, m).is_some())
    }

    /// The calls of the kept text, at the end of the reply: what batch salvage of the
    /// whole reply gives after the calls already given.
    pub fn calls_at_end(&mut self, request: &Request<'_>) -> Result<Vec<Call>, SalvageError> {
        if !request.profile.reads_native_formats() {
            let request = Request::new(Content(&self.text), request.tools)
                .adapter(request.adapter)
                .under(request.profile);
            return super::super::salvage_with(&request, self.beginning, Memo::On);
        }
        if !request.salvages() {
            return Ok(Vec::new());
        }
        let (tools, profile) = (request.tools, request.profile);
        match super::super::whole_content_path(&self.text, self.beginning, tools, profile)? {
            Whole::Calls(calls) => return Ok(calls),
            Whole::Reserved => return Ok(Vec::new()),
            Whole::NotCalls => {}
        }
        let probed = self.probed || probe::has_marker(&self.text, profile);
        read_to_end(&self.text, &mut self.reading, probed, self.emitted, request)
    }

    /// Looks at the kept text: gives out what is decided, and forgets it.
    fn look(&mut self, request: &Request<'_>, on: &mut impl FnMut(Event<'_>)) {
        let (tools, profile) = (request.tools, request.profile);
        let whole = self.beginning.whole_content && may_become_payload(&self.text, profile);
        if !request.salvages() || whole {
            return;
        }
        let advanced = self.reading.advance(&self.text, false, tools, profile);
        if advanced.is_err() || self.payload_may_follow_reasoning(profile) {
            return;
        }
        self.probed = self.probed || probe::has_marker(&self.text, profile);
        let gives = self.probed && self.reading.reasoning_seen;
        self.awaiting_think = self.probed && !self.reading.reasoning_seen;
        let mut limit = self.reading.decided();
        if gives {
            for settled in std::mem::take(&mut self.reading.found) {
                self.give(settled, request, on);
            }
        } else if let Some((span, _, _)) = self.reading.found.first() {
            limit = limit.min(span.start);
        }
        let limit = limit.max(self.shown);
        show(false, &self.text[self.shown..limit], on);
        self.shown = limit;
        self.forget(self.shown.min(self.reading.pos()));
    }

    /// Gives out a decided call: the text before it, and the call.
    fn give(&mut self, settled: Settled, request: &Request<'_>, on: &mut impl FnMut(Event<'_>)) {
        let (span, dialect, found) = settled;
        show(
            false,
            &self.text[self.shown..span.start.max(self.shown)],
            on,
        );
        let call = Call::build(
            Value::Str(found.name),
            found.args,
            self.base + span.start..self.base + span.end,
            (dialect, self.emitted),
            request.profile,
        );
        if let Ok(call) = call {
            on(Event::Call(call));
            self.emitted += 1;
        }
        self.shown = self.shown.max(span.end);
    }

    /// Forgets `text[..at]` (shown and decided), keeping in place of the code point
    /// before `at` a stand-in that `\b` reads the same (`stand_in`).
    fn forget(&mut self, at: usize) {
        let Some(last) = self.text[..at].iter().rposition(|&b| b & 0xC0 != 0x80) else {
            return;
        };
        // Whitespace the reply begins with is kept: forgetting it would lose that the reply
        // begins here, which a whole-content payload after leading reasoning needs
        // (`\u{a0}<think>…</think>{…}`; one ASCII space is never dropped, `at <= 1`).
        let leading_space = self.beginning.whole_content && skip_space(&self.text[..at], 0) == at;
        if at <= 1 || leading_space || !self.probed {
            return;
        }
        let before = stand_in(&self.text[last..at]);
        let dropped = at - 1;
        self.text.drain(..dropped);
        self.text[0] = before;
        self.base += dropped;
        self.shown -= dropped;
        self.reading.forget(dropped);
        self.looked_at = self.looked_at.saturating_sub(dropped);
        self.checked = self.checked.saturating_sub(dropped);
        self.wait_until = self.wait_until.saturating_sub(dropped);
        self.beginning = Beginning {
            whole_content: false,
            marker_before: self.probed,
        };
    }

    /// Whether a whole-content payload may still follow the reasoning the reply begins
    /// with, as the reading has decided it (`pass::Leading`): only the end of the reply
    /// decides that, and batch salvage reads such a payload before any call after the
    /// reasoning. More reasoning after only whitespace would extend it.
    fn payload_may_follow_reasoning(&self, profile: crate::Profile) -> bool {
        let Some(end) = self.reading.leading.end() else {
            return false;
        };
        let rest = &self.text[end..];
        profile.reads_payload_after_reasoning()
            && (may_become_payload(rest, profile) || reasoning::may_open(rest))
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
