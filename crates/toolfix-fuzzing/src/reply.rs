//! A model reply as the grammar describes it, and what it renders to.
//!
//! A reply is the tools it was offered and a body: either one whole-content JSON payload,
//! or a sequence of segments (prose, calls in any dialect, fenced blocks holding more
//! segments, and in hostile replies repetitions that turn a small input into a long one,
//! where a superlinear path would show). It may be cut short, as a streamed reply is.

use std::ops::Range;

use arbitrary::{Arbitrary, Result, Unstructured};

use super::call::CallSpec;
use super::choice::{Gen, Mode};
use super::fence::Fence;
use super::names::Offered;
use super::prose::Prose;
use super::text::{separator, space};
use super::whole::WholeJson;
use toolfix::py::{Dict, PyStr, Value};
use toolfix::salvage::Dialect;

/// The longest rendering: repetitions stop growing a reply past it (64 KiB is enough
/// for a quadratic path to cost a thousand times a linear one).
pub const MAX_LEN: usize = 64 * 1024;

/// The most segments one rendering writes, so repetitions of segments that write nothing
/// (empty prose, nested repetitions of it) still end quickly.
const MAX_SEGMENTS: usize = 100_000;

/// A model reply.
#[derive(Clone, Debug)]
pub struct Reply {
    pub mode: Mode,
    pub offered: Offered,
    /// Whitespace before and after the body.
    pub lead: &'static str,
    pub trail: &'static str,
    pub body: Body,
    /// Truncation: keep this many thousandths of the rendering.
    pub keep_permille: Option<usize>,
}

/// What a reply holds.
#[derive(Clone, Debug)]
pub enum Body {
    Whole(WholeJson),
    Segments(Vec<Part>),
}

/// A segment and the separator written before it.
#[derive(Clone, Debug)]
pub struct Part {
    pub before: &'static str,
    pub segment: Segment,
}

/// One piece of a reply.
#[derive(Clone, Debug)]
pub enum Segment {
    Prose(Prose),
    Call(Box<CallSpec>),
    /// A fenced block and what it holds (calls in it are examples, never intended).
    Fenced(Fence, Vec<Part>),
    /// A segment written `n` times in a row (hostile replies only).
    Repeat(usize, Box<Segment>),
}

/// A call the reply means: what salvage should recover from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Intended {
    pub name: PyStr,
    pub args: Value,
    pub dialect: Dialect,
    /// Byte offsets of the call in the rendered text.
    pub span: Range<usize>,
}

/// A rendered reply.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub text: String,
    /// The calls the reply means, in text order. Exact for clean replies (under both
    /// profiles); for hostile ones, what the grammar meant under `strict`.
    pub intended: Vec<Intended>,
}

impl Reply {
    /// A reply of `mode`, with every choice read from `u`.
    pub fn generate(u: &mut Unstructured<'_>, mode: Mode) -> Result<Reply> {
        let g = &mut Gen::new(u, mode);
        let offered = Offered::generate(g)?;
        let body = if g.chance(1, 6)? {
            Body::Whole(WholeJson::generate(g)?)
        } else {
            Body::Segments(parts(g, &offered, false)?)
        };
        let cut_odds = if g.hostile() { 4 } else { 8 };
        Ok(Reply {
            mode,
            lead: space(g)?,
            trail: space(g)?,
            keep_permille: match g.chance(1, cut_odds)? {
                true => Some(g.upto(1000)?),
                false => None,
            },
            offered,
            body,
        })
    }

    /// The text, and the calls it means.
    pub fn render(&self) -> Rendered {
        let mut writer = Writer {
            offered: &self.offered,
            text: String::new(),
            intended: Vec::new(),
            quoted: Vec::new(),
            segments: 0,
        };
        writer.text.push_str(self.lead);
        match &self.body {
            Body::Whole(whole) => writer.whole(whole),
            Body::Segments(parts) => writer.parts(parts, true),
        }
        writer.text.push_str(self.trail);
        let Writer {
            mut text,
            mut intended,
            quoted,
            ..
        } = writer;
        if let Some(permille) = self.keep_permille {
            let keep = text.len() * permille / 1000;
            truncate(&mut text, keep);
            intended.retain(|call| call.span.end <= text.len());
            intended.extend(unshadowed(quoted, text.len()));
            intended.sort_by_key(|call| call.span.start);
        }
        if !has_marker(&text) {
            intended.retain(|call| call.dialect == Dialect::WholeJson);
        }
        Rendered { text, intended }
    }
}

/// Up to eight parts (`fenced`: inside a fence).
fn parts(g: &mut Gen<'_, '_>, offered: &Offered, fenced: bool) -> Result<Vec<Part>> {
    let n = g.upto(8)?;
    (0..n)
        .map(|_| {
            Ok(Part {
                before: separator(g)?,
                segment: segment(g, offered, fenced)?,
            })
        })
        .collect()
}

/// Prose, a call, or (while nesting is allowed) a fence or a repetition. Clean replies
/// never nest fences: an inner fence's run would close the outer one.
fn segment(g: &mut Gen<'_, '_>, offered: &Offered, fenced: bool) -> Result<Segment> {
    let may_fence = g.can_nest() && (g.hostile() || !fenced);
    let kinds = match (may_fence, g.hostile()) {
        (false, _) => 6,
        (true, false) => 7,
        (true, true) => 8,
    };
    Ok(match g.below(kinds)? {
        0..=2 => Segment::Prose(Prose::generate(g)?),
        3..=5 => Segment::Call(Box::new(CallSpec::generate(g, offered)?)),
        6 => {
            let fence = Fence::generate(g)?;
            Segment::Fenced(fence, g.nested(|g| parts(g, offered, true))?)
        }
        // Long repetitions are what make a superlinear path show, but they cost the
        // fuzzer time on every run, so only one hostile segment in about thirty is one.
        _ if g.chance(1, 4)? => {
            let times = g.pick(&[2, 10, 100, 1000, 10_000])?;
            Segment::Repeat(times, Box::new(g.nested(|g| segment(g, offered, fenced))?))
        }
        _ => Segment::Call(Box::new(CallSpec::generate(g, offered)?)),
    })
}

/// Renders parts, collecting the calls they mean when `live` (outside every fence).
struct Writer<'o> {
    offered: &'o Offered,
    text: String,
    intended: Vec<Intended>,
    /// Steps quoted by rejected calls: the call's span, and the step as a call.
    quoted: Vec<(Range<usize>, Intended)>,
    /// Segments written so far.
    segments: usize,
}

impl Writer<'_> {
    fn whole(&mut self, whole: &WholeJson) {
        let start = self.text.len();
        whole.render(self.offered, &mut self.text);
        let span = start..self.text.len();
        let calls = whole.intended(self.offered);
        self.intended
            .extend(calls.into_iter().map(|(name, args)| Intended {
                name,
                args,
                dialect: Dialect::WholeJson,
                span: span.clone(),
            }));
    }

    fn parts(&mut self, parts: &[Part], live: bool) {
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.text.push_str(part.before);
            }
            self.segment(&part.segment, live);
        }
    }

    fn segment(&mut self, segment: &Segment, live: bool) {
        self.segments += 1;
        match segment {
            Segment::Prose(prose) => self.text.push_str(&prose.0),
            Segment::Call(call) => {
                let written = call.render(self.offered, &mut self.text);
                if let (true, Some((span, name))) = (live, written.quoted) {
                    let step = Intended {
                        name,
                        args: Value::Dict(Dict::default()),
                        dialect: Dialect::React,
                        span,
                    };
                    self.quoted.push((written.span.clone(), step));
                }
                if let (true, Some((name, args))) = (live, written.intended) {
                    self.intended.push(Intended {
                        name,
                        args,
                        dialect: call.syntax.dialect(),
                        span: written.span,
                    });
                }
            }
            Segment::Fenced(fence, parts) => {
                fence.open(&mut self.text);
                let body_start = self.text.len();
                self.parts(parts, false);
                if fence.inline && self.text.len() == body_start {
                    // An empty inline fence would be one long run, not a fence and its close.
                    self.text.push_str("code");
                }
                fence.close(&mut self.text);
            }
            Segment::Repeat(times, segment) => {
                for _ in 0..*times {
                    if self.text.len() > MAX_LEN || self.segments > MAX_SEGMENTS {
                        break;
                    }
                    self.segment(segment, live);
                }
            }
        }
    }
}

/// The quoted steps that run after truncation at `len`: those whose rejected call was cut
/// (so it no longer matches and reserves nothing) while the step itself survived whole.
fn unshadowed(quoted: Vec<(Range<usize>, Intended)>, len: usize) -> impl Iterator<Item = Intended> {
    quoted
        .into_iter()
        .filter(move |(call, step)| call.end > len && step.span.end <= len)
        .map(|(_, step)| step)
}

/// Cuts `text` to at most `len` bytes, on a character boundary.
fn truncate(text: &mut String, mut len: usize) {
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    text.truncate(len);
}

/// The substrings the marker probe looks for in `str.lower()` of a reply: the first six
/// are praisonaiagents' (docs/behaviour.md §2(e).2), the others those of the dialects only
/// `strict` and `portable` recover. The grammar's own copy, so the oracle below does not
/// trust the probe it checks.
pub const MARKERS: [&str; 20] = [
    "<tool_call>",
    "<function=",
    "[tool_call]",
    "[tool_request]",
    "<|python_tag|>",
    "action",
    // The markers of the dialects only `strict` and `portable` recover.
    "[tool_calls]",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜dsml｜function_calls>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|message|>",
    "<start_function_call>",
    "<minimax:tool_call>",
    "<|tool_call|>",
    "<|tool_call>",
    "<|python_start|>",
    "<|tool_call_start|>",
    "functools[",
];

/// Whether `str.lower()` of the text holds a marker of any profile: the probe's question, answered the
/// slow, obvious way (Rust's full lowercase mapping agrees with Python's on every
/// character that can produce an ASCII letter).
pub fn has_marker(text: &str) -> bool {
    let lower = text.to_lowercase();
    MARKERS.iter().any(|m| lower.contains(m))
}

impl<'a> Arbitrary<'a> for Reply {
    /// A hostile reply.
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Reply> {
        Reply::generate(u, Mode::Hostile)
    }
}

/// A clean reply: its intended calls are exactly what salvage must recover.
#[derive(Clone, Debug)]
pub struct CleanReply(pub Reply);

impl<'a> Arbitrary<'a> for CleanReply {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<CleanReply> {
        Reply::generate(u, Mode::Clean).map(CleanReply)
    }
}
