//! The one-pass reading of a reply under `strict` and `portable` (issue 32), built
//! beside `scan` and held to it by `crates/toolfix/tests/one_pass.rs` until the two
//! agree everywhere but where a rule is redefined on purpose.
//!
//! The reply is read once, left to right. At each place where something could begin (a
//! marker of a dialect, a fence mark, a reasoning marker: `stream::frontier` finds them)
//! the reader decides what begins there and where it ends, from the text from there on
//! alone, and goes on after its end:
//!
//! * a fence (a run of three or more backticks or tildes) runs to the first later
//!   occurrence of exactly that run, or the end: nothing in it is read;
//! * reasoning (`<think>`, Gemma 4's thought channel, `[THINK]`, `<seed:think>`, a Harmony analysis
//!   message) runs to its closer, or the end: nothing in it is read; an unopened
//!   `</think>` before any other reasoning marker makes everything before it reasoning;
//! * a dialect's block (the registry's dialects in registry order, the first that reads
//!   a block there wins): its calls, or its span reserved when it is no call; calls of
//!   the same structure that follow it directly (the second invoke of a section, the next
//!   call of a chain) are read with it;
//! * anything else is prose.
//!
//! What a region is depends only on the text from its start on, so a quoted marker
//! inside a call's arguments is the call's text, a fence inside a call is the call's
//! own, and text after a region never changes what it was. The readers are the
//! registry's scanners, run from the region's start; one scan serves every later place
//! it can (`blocks`), which keeps the reading linear.

use std::ops::Range;

mod blocks;
mod leading;
mod places;

use super::dialect::Dialect;
use super::dialect::tokens::reasoning;
use super::reasoning::BLOCKS as REASONING;
use super::span::Found;
use super::stream::frontier::Scan;
use super::text::{MarkerBytes, cp_at};
use super::{Allowlist, SalvageError};
use crate::profile::Profile;
use crate::py::unicode::is_space;
use blocks::Blocks;
pub use blocks::Memo;
pub use leading::Leading;
use places::Places;

/// A call the reading found: its span in the reply, its dialect, and what it is.
pub type Settled = (Range<usize>, Dialect, Found);

/// How many bytes other than whitespace must follow a region before a stream takes it as
/// decided: more than any reader looks past a region's end (a section closer, a wrapper's
/// closing tag, a Harmony end token, the next call of a chain) or past a marker before it
/// knows whether a block begins there (a name and the tokens after it). At the end of the
/// reply every region is decided.
const LOOK_AHEAD: usize = 320;

/// The calls of `rest`, text after a reply's start that showed the reply did not begin
/// with reasoning (a whole-reply list of calls): an unopened `</think>` in it makes
/// nothing before it reasoning.
pub fn read_rest(
    rest: &[u8],
    tools: &Allowlist,
    profile: Profile,
) -> Result<Vec<Settled>, SalvageError> {
    let mut reading = Reading::after_prose();
    reading.reasoning_seen = true;
    reading.advance(rest, true, tools, profile)?;
    Ok(reading.found)
}

/// A reading of a reply, resumable: what it has decided so far, and where it stopped.
/// Offsets are in the text it is given, which may drop a decided beginning (`forget`).
#[derive(Debug)]
pub struct Reading {
    /// The calls of the regions decided so far.
    pub found: Vec<Settled>,
    /// Whether a reasoning marker came: until one does, an unopened `</think>` would
    /// make everything before it reasoning.
    pub reasoning_seen: bool,
    /// The reasoning the reply begins with, so far.
    pub leading: Leading,
    /// Where the first region not yet decided begins.
    pos: usize,
    /// How far the text is decided: `pos`, or past it the prose no marker begins in.
    decided: usize,
    memo: Memo,
}

impl Reading {
    /// A reading of a reply not begun.
    pub fn new(memo: Memo) -> Reading {
        Reading {
            found: Vec::new(),
            reasoning_seen: false,
            leading: Leading::Blank { to: 0 },
            pos: 0,
            decided: 0,
            memo,
        }
    }

    /// A reading of the rest of a reply after prose: no reasoning begins the reply.
    pub fn after_prose() -> Reading {
        Reading {
            leading: Leading::Absent,
            ..Reading::new(Memo::On)
        }
    }

    /// How far the text is decided: nothing before this offset can change.
    pub fn decided(&self) -> usize {
        self.decided
    }

    /// Where the first region not yet decided begins: what a stream keeps from.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Decides every region of `text` (the reply so far, all of it when `at_end`) that
    /// the text decides, from where the last call stopped.
    pub fn advance(
        &mut self,
        text: &[u8],
        at_end: bool,
        tools: &Allowlist,
        profile: Profile,
    ) -> Result<(), SalvageError> {
        let read = self.read_regions(text, at_end, tools, profile);
        self.leading.decided(text, self.pos);
        read
    }

    /// `advance`, up to the first region the text does not decide.
    fn read_regions(
        &mut self,
        text: &[u8],
        at_end: bool,
        tools: &Allowlist,
        profile: Profile,
    ) -> Result<(), SalvageError> {
        let held = MarkerBytes::of(text);
        let blocks = Blocks::new(text, at_end, tools, profile, self.memo, held);
        let mut reader = Reader {
            text,
            at_end,
            blocks,
        };
        let mut places = Places::new(text, at_end, held);
        loop {
            let (horizon, present) = (reader.blocks.horizon(), reader.blocks.present());
            let at = match places.next(self.pos, horizon, present) {
                Scan::Marker(at) => at,
                Scan::Partial(at) => {
                    self.decided = at;
                    return Ok(());
                }
                Scan::Clear => {
                    self.decided = text.len();
                    return Ok(());
                }
            };
            match reader.region_at(at, self)? {
                Some(end) => self.pos = end,
                None => {
                    self.pos = at;
                    self.decided = at;
                    return Ok(());
                }
            }
        }
    }

    /// The text it reads lost its first `dropped` bytes (decided, before `pos`).
    pub fn forget(&mut self, dropped: usize) {
        self.pos -= dropped;
        self.decided -= dropped;
        self.leading.forget(dropped);
        for (span, _, _) in &mut self.found {
            *span = span.start.saturating_sub(dropped)..span.end.saturating_sub(dropped);
        }
    }
}

/// What the reader reads: the reply so far, whether it is all of it, and the dialects'
/// blocks in it.
struct Reader<'t> {
    text: &'t [u8],
    at_end: bool,
    blocks: Blocks<'t>,
}

impl Reader<'_> {
    /// Reads what begins at `at` into `reading`, and returns where reading goes on, or
    /// `None` when the text does not decide it yet.
    fn region_at(
        &mut self,
        at: usize,
        reading: &mut Reading,
    ) -> Result<Option<usize>, SalvageError> {
        let text = self.text;
        if let Some(end) = fence_at(text, at) {
            return Ok(self.closed(end));
        }
        if let Some(end) = reasoning_at(text, at) {
            let end = self.closed(end);
            if let Some(end) = end {
                reading.reasoning_seen = true;
                reading.leading.block(text, at, end);
            }
            return Ok(end);
        }
        if text[at..].starts_with(reasoning::THINK_CLOSE.as_bytes()) {
            let end = at + reasoning::THINK_CLOSE.len();
            if !reading.reasoning_seen {
                // Everything before an unopened `</think>` was reasoning.
                reading.found.clear();
                reading.leading.unopened_close(end);
            }
            reading.reasoning_seen = true;
            return Ok(Some(end));
        }
        // A block's calls go straight onto those found, each moved once; they are taken
        // back when the block is not decided yet.
        let before = reading.found.len();
        let Some(block) = self.blocks.at(at, &mut reading.found)? else {
            return Ok(None);
        };
        match block {
            Some(end) if self.settled(end) => Ok(Some(end)),
            Some(_) => {
                reading.found.truncate(before);
                Ok(None)
            }
            None if self.settled(at) => Ok(Some(at + cp_at(text, at).map_or(1, |(_, len)| len))),
            None => Ok(None),
        }
    }

    /// `end` of a fence or reasoning block, when its closer came (`usize::MAX` from the
    /// finders means it did not): an unclosed one is decided only at the end.
    fn closed(&self, end: usize) -> Option<usize> {
        match end {
            usize::MAX if self.at_end => Some(self.text.len()),
            usize::MAX => None,
            end => Some(end),
        }
    }

    /// Whether what ends (or is a marker) at `at` is decided: the reply is all here, or
    /// `LOOK_AHEAD` bytes other than whitespace follow.
    fn settled(&self, at: usize) -> bool {
        self.at_end || look_ahead(&self.text[at..]) >= LOOK_AHEAD
    }
}

/// How many bytes of `text` are not `str.isspace` characters, counted up to `LOOK_AHEAD`.
fn look_ahead(text: &[u8]) -> usize {
    let (mut seen, mut i) = (0, 0);
    while let Some((cp, len)) = cp_at(text, i) {
        if !is_space(cp) {
            seen += len;
            if seen >= LOOK_AHEAD {
                break;
            }
        }
        i += len;
    }
    seen
}

/// The end of the fence that opens at `at`, if a run of three or more backticks or
/// tildes starts there (`usize::MAX` while it is not closed, or the run may go on).
fn fence_at(text: &[u8], at: usize) -> Option<usize> {
    let mark = *text.get(at)?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let run = text[at..].iter().take_while(|&&b| b == mark).count();
    if at + run == text.len() {
        // The run may go on: how long it is, and so what closes it, is not known yet.
        return Some(usize::MAX);
    }
    if run < 3 {
        return Some(at + run);
    }
    let body = at + run;
    let close = find_run(&text[body..], mark, run);
    Some(close.map_or(usize::MAX, |i| body + i + run))
}

/// Where `run` copies of `mark` first follow one another in `text`: what
/// `memmem::find(text, &[mark; run])` gives, without building a searcher for each fence
/// (a reply of many short fences built one per fence, a third of its salvage).
fn find_run(text: &[u8], mark: u8, run: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = memchr::memchr(mark, &text[from..]) {
        let start = from + found;
        let len = text[start..].iter().take_while(|&&b| b == mark).count();
        if len >= run {
            return Some(start);
        }
        from = start + len;
    }
    None
}

/// The end of the reasoning block that opens at `at` (`usize::MAX` while it is not
/// closed).
fn reasoning_at(text: &[u8], at: usize) -> Option<usize> {
    let rest = &text[at..];
    let (open, closers) = REASONING
        .iter()
        .find(|(open, _)| rest.starts_with(open.as_bytes()))?;
    let body = at + open.len();
    let close = closers
        .iter()
        .filter_map(|c| {
            memchr::memmem::find(&text[body..], c.as_bytes()).map(|i| body + i + c.len())
        })
        .min();
    Some(close.unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::find_run;

    proptest! {
        /// A run is found where a substring search for it finds it.
        #[test]
        fn a_run_is_found_where_memmem_finds_it(text in "[`~x]{0,80}", run in 1usize..6) {
            let needle = vec![b'`'; run];
            let text = text.as_bytes();
            prop_assert_eq!(find_run(text, b'`', run), memchr::memmem::find(text, &needle));
        }
    }
}
