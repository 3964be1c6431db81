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
//! * reasoning (`<think>`, Gemma 4's thought channel, `[THINK]`, a Harmony analysis
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
//! own, and text after a region never changes what it was. The readers here are today's
//! scanners run over the text from the region's start (quadratic on purpose: this is the
//! semantics to be held to the old core, not the speed).

use std::ops::Range;

use super::dialect::tokens::{harmony, reasoning};
use super::dialect::{Dialect, REGISTRY, Scanner};
use super::fence::Masked;
use super::payload::Payloads;
use super::span::{Candidates, Found};
use super::stream::frontier::{self, Scan};
use super::text::cp_at;
use super::{Allowlist, SalvageError};
use crate::profile::Profile;
use crate::py::unicode::is_space;

/// Reasoning blocks: an opener and the closers that end it.
const REASONING: [(&str, &[&str]); 4] = [
    (reasoning::THINK, &[reasoning::THINK_CLOSE]),
    (reasoning::GEMMA_THOUGHT, &[reasoning::GEMMA_THOUGHT_CLOSE]),
    (reasoning::MISTRAL_THINK, &[reasoning::MISTRAL_THINK_CLOSE]),
    (reasoning::HARMONY_ANALYSIS, &harmony::ENDS),
];

/// The calls of `content`, in text order, with their spans and dialects.
pub fn read(
    content: &[u8],
    tools: &Allowlist,
    profile: Profile,
) -> Result<Vec<(Range<usize>, Dialect, Found)>, SalvageError> {
    let mut reader = Reader {
        text: content,
        tools,
        profile,
        found: Vec::new(),
        reasoning_seen: false,
    };
    let mut pos = 0;
    while let Scan::Marker(at) = frontier::scan(content, pos) {
        pos = reader.region_at(at)?;
    }
    Ok(reader.found)
}

/// The reader's state: what it has found, and whether a reasoning marker came.
struct Reader<'t> {
    text: &'t [u8],
    tools: &'t Allowlist,
    profile: Profile,
    found: Vec<(Range<usize>, Dialect, Found)>,
    reasoning_seen: bool,
}

impl Reader<'_> {
    /// Reads what begins at `at`, and returns where reading goes on.
    fn region_at(&mut self, at: usize) -> Result<usize, SalvageError> {
        let text = self.text;
        if let Some(end) = fence_at(text, at) {
            return Ok(end);
        }
        if let Some(end) = reasoning_at(text, at) {
            self.reasoning_seen = true;
            return Ok(end);
        }
        if text[at..].starts_with(reasoning::THINK_CLOSE.as_bytes()) {
            if !self.reasoning_seen {
                // Everything before an unopened `</think>` was reasoning.
                self.found.clear();
            }
            self.reasoning_seen = true;
            return Ok(at + reasoning::THINK_CLOSE.len());
        }
        Ok(match self.block_at(at)? {
            Some(end) => end,
            None => at + cp_at(text, at).map_or(1, |(_, len)| len),
        })
    }

    /// The block of a dialect that begins at `at`: its calls are kept, and reading goes
    /// on after it. The readers see the text from the code point before `at` (which `\b`
    /// looks at) to the end.
    fn block_at(&mut self, at: usize) -> Result<Option<usize>, SalvageError> {
        let from = previous_cp_start(self.text, at);
        let sub = &self.text[from..];
        let masked = Masked::with_ranges(sub, Vec::new());
        let payloads = Payloads::new(&masked, self.tools, self.profile);
        for spec in &REGISTRY {
            let mut candidates = Candidates::new();
            match spec.scanner() {
                Scanner::None => continue,
                Scanner::Embedded(scan) => scan(&payloads, &mut candidates)?,
                Scanner::Token(scan) => scan(&payloads, &mut candidates),
            }
            if let Some(end) = self.structure(sub, candidates, at - from, from) {
                return Ok(Some(end));
            }
        }
        Ok(None)
    }

    /// Keeps the structure of `candidates` (spans in `sub`, which starts at `from`) that
    /// begins at `offset`: its first candidate and those that follow it directly without
    /// an opener of their own. Returns the end of the structure in the reply.
    fn structure(
        &mut self,
        sub: &[u8],
        candidates: Candidates,
        offset: usize,
        from: usize,
    ) -> Option<usize> {
        let mut all: Vec<_> = candidates.into_found().collect();
        all.sort_by_key(|(c, _)| c.span.start);
        let first = all.iter().position(|(c, _)| c.span.start == offset)?;
        let mut end = offset;
        for (candidate, found) in all.into_iter().skip(first) {
            let span = candidate.span.clone();
            let continues = span.start == offset
                || (span.start >= end
                    && only_separators(&sub[end..span.start])
                    && !super::dialect::opens_at(sub, span.start));
            if !continues {
                break;
            }
            end = end.max(span.end);
            if let Some(found) = found {
                let span = from + span.start..from + span.end;
                self.found.push((span, candidate.dialect, found));
            }
        }
        Some(from + end)
    }
}

/// Whether `gap`, between two calls of one structure, holds only what separates them:
/// `str.isspace` characters, `;` and `,`.
fn only_separators(gap: &[u8]) -> bool {
    let mut i = 0;
    while let Some((cp, len)) = cp_at(gap, i) {
        if !(is_space(cp) || cp == u32::from(b';') || cp == u32::from(b',')) {
            return false;
        }
        i += len;
    }
    i == gap.len()
}

/// The end of the fence that opens at `at`, if a run of three or more backticks or
/// tildes starts there.
fn fence_at(text: &[u8], at: usize) -> Option<usize> {
    let mark = *text.get(at)?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let run = text[at..].iter().take_while(|&&b| b == mark).count();
    if run < 3 {
        return Some(at + run);
    }
    let body = at + run;
    let close = memchr::memmem::find(&text[body..], &text[at..body]);
    Some(close.map_or(text.len(), |i| body + i + run))
}

/// The end of the reasoning block that opens at `at`.
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
    Some(close.unwrap_or(text.len()))
}

/// Where the code point before `at` starts (0 at the start of the text).
fn previous_cp_start(text: &[u8], at: usize) -> usize {
    let mut i = at.saturating_sub(1);
    while i > 0 && text[i] & 0xC0 == 0x80 {
        i -= 1;
    }
    i
}
