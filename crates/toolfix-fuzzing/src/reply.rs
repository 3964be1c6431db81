//! A model reply as the grammar describes it, and what it renders to.
//!
//! A reply is the tools it was offered, perhaps the reasoning it begins with, and a body:
//! either one whole-content payload, or a sequence of segments (prose, calls in any
//! dialect, blocks of the native formats, fenced blocks and reasoning blocks holding more
//! segments, and in hostile replies repetitions that turn a small input into a long one,
//! where a superlinear path would show). It may be cut short, as a streamed reply is.

use std::ops::Range;
use std::sync::LazyLock;

use arbitrary::{Arbitrary, Result, Unstructured};
use toolfix::Profile;

use super::call::{CallSpec, QUOTABLE_TOKENS};
use super::choice::{Gen, Mode};
use super::fence::Fence;
use super::names::Offered;
use super::native::{Form, NativeSpec, Piece, ShortEnd};
use super::prose::Prose;
use super::text::{separator, space};
use super::whole::{self, WholeJson};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::salvage::Dialect;
use toolfix::salvage::tokens::{harmony, reasoning};

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
    /// The reasoning the reply begins with (after `lead`), and the separator after it.
    pub reasoning: Option<(Reasoning, &'static str)>,
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
    /// A call in one of the six dialects of praisonaiagents.
    Call(Box<CallSpec>),
    /// A block of a native format (the dialects only `strict` and `portable` recover).
    Native(Box<NativeSpec>),
    /// A fenced block and what it holds (calls in it are examples, never intended).
    Fenced(Fence, Vec<Part>),
    /// Reasoning and what it holds (calls in it are drafts, never intended under `strict`).
    Reasoning(Reasoning),
    /// A segment written `n` times in a row (hostile replies only).
    Repeat(usize, Box<Segment>),
}

/// How reasoning is written, as the model families write it in a reply's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasoningKind {
    /// `<think>…</think>`.
    Think,
    /// `…</think>` at the very start of a reply (the template opened `<think>`).
    Unopened,
    /// Gemma 4's `<|channel>thought…<channel|>`.
    GemmaThought,
    /// Harmony's `<|channel|>analysis<|message|>…<|end|>`.
    HarmonyAnalysis,
}

/// Gemma 4's thought channel as its template opens it, on a line of its own.
static GEMMA_THOUGHT_LINE: LazyLock<String> =
    LazyLock::new(|| format!("{}\n", reasoning::GEMMA_THOUGHT));

impl ReasoningKind {
    /// The tokens around the reasoning.
    fn tokens(self) -> (&'static str, &'static str) {
        match self {
            ReasoningKind::Think => (reasoning::THINK, reasoning::THINK_CLOSE),
            ReasoningKind::Unopened => ("", reasoning::THINK_CLOSE),
            ReasoningKind::GemmaThought => (&GEMMA_THOUGHT_LINE, reasoning::GEMMA_THOUGHT_CLOSE),
            ReasoningKind::HarmonyAnalysis => (reasoning::HARMONY_ANALYSIS, harmony::END),
        }
    }
}

/// A reasoning block: its kind, what it holds, and whether it is closed (hostile replies
/// leave some open, which masks the rest of the reply).
#[derive(Clone, Debug)]
pub struct Reasoning {
    pub kind: ReasoningKind,
    pub parts: Vec<Part>,
    pub closed: bool,
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

impl Intended {
    /// The same call written `by` bytes further on.
    fn moved(&self, by: usize) -> Intended {
        Intended {
            span: moved(self.span.start, by)..moved(self.span.end, by),
            ..self.clone()
        }
    }
}

/// A rendered reply.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub text: String,
    /// The calls the reply means under `strict`, in text order. Exact for clean replies;
    /// for hostile ones, what the grammar meant.
    pub intended: Vec<Intended>,
    /// The calls `praisonai` recovers from a clean reply, when the grammar knows them
    /// exactly: replies with no native block, no reasoning and no whole-content form only
    /// `strict` reads, where they are `intended`.
    pub praisonai: Option<Vec<Intended>>,
}

impl Rendered {
    /// The calls the reply means under `profile`, when the grammar knows them: `praisonai`
    /// reads only the six dialects, the others every one.
    pub fn intended_under(&self, profile: Profile) -> Option<&[Intended]> {
        match profile {
            Profile::PraisonAi => self.praisonai.as_deref(),
            _ => Some(&self.intended),
        }
    }
}

/// Where segments are being written.
#[derive(Clone, Copy, Debug, Default)]
struct Within {
    fence: bool,
    reasoning: bool,
    /// Whether clean prose may mention a native format's token (reasoning only: the token
    /// is masked with it; not in the reasoning an unopened `</think>` closes, which a cut
    /// can turn into live text).
    mentions: bool,
}

impl Reply {
    /// A reply of `mode`, with every choice read from `u`.
    pub fn generate(u: &mut Unstructured<'_>, mode: Mode) -> Result<Reply> {
        let g = &mut Gen::new(u, mode);
        let offered = Offered::generate(g)?;
        let mut reasoning = match g.chance(1, 8)? {
            true => {
                let kind = g.pick(&[
                    ReasoningKind::Think,
                    ReasoningKind::Unopened,
                    ReasoningKind::GemmaThought,
                    ReasoningKind::HarmonyAnalysis,
                ])?;
                let within = Within {
                    fence: false,
                    reasoning: true,
                    mentions: kind != ReasoningKind::Unopened,
                };
                let parts = g.nested(|g| parts(g, &offered, within))?;
                Some((
                    Reasoning {
                        kind,
                        parts,
                        closed: true,
                    },
                    separator(g)?,
                ))
            }
            false => None,
        };
        let mut body = if g.chance(1, 6)? {
            Body::Whole(WholeJson::generate(g, &offered)?)
        } else {
            Body::Segments(parts(g, &offered, Within::default())?)
        };
        let cut_odds = if g.hostile() { 4 } else { 8 };
        if let Body::Segments(parts) = &mut body {
            defuse_tokens(parts, reasoning.as_mut().map(|(r, _)| r));
        }
        Ok(Reply {
            mode,
            lead: space(g)?,
            trail: space(g)?,
            keep_permille: match g.chance(1, cut_odds)? {
                true => Some(g.upto(1000)?),
                false => None,
            },
            reasoning,
            offered,
            body,
        })
    }

    /// The text, and the calls it means.
    pub fn render(&self) -> Rendered {
        self.write(true)
    }

    /// `render`, copying steady repetitions when `copies` (see `Writer::repeat`).
    fn write(&self, copies: bool) -> Rendered {
        let mut writer = Writer {
            offered: &self.offered,
            text: String::new(),
            planned: Vec::new(),
            quoted: Vec::new(),
            semicolons: None,
            segments: 0,
            praisonai_exact: true,
            masked_from: usize::MAX,
            copies,
        };
        writer.text.push_str(self.lead);
        if let Some((reasoning, after)) = &self.reasoning {
            writer.praisonai_exact = false;
            writer.reasoning(reasoning, Within::default(), true);
            writer.text.push_str(after);
        }
        match &self.body {
            Body::Whole(whole) => writer.whole(whole),
            Body::Segments(parts) => writer.parts(parts, Within::default()),
        }
        writer.text.push_str(self.trail);
        writer.finish(self.keep_permille)
    }
}

/// Replaces the tokens clean calls quote where the reply also writes a block of their
/// dialect (`CallSpec::defuse_token`).
fn defuse_tokens(parts: &mut [Part], reasoning: Option<&mut Reasoning>) {
    fn natives(parts: &[Part], out: &mut Vec<Dialect>) {
        for part in parts {
            visit(&part.segment, out);
        }
    }
    fn visit(segment: &Segment, out: &mut Vec<Dialect>) {
        match segment {
            Segment::Native(native) => out.push(native.form.dialect()),
            Segment::Fenced(_, parts) => natives(parts, out),
            Segment::Reasoning(r) => natives(&r.parts, out),
            Segment::Repeat(_, segment) => visit(segment, out),
            Segment::Prose(_) | Segment::Call(_) => {}
        }
    }
    fn defuse(parts: &mut [Part], written: &[Dialect]) {
        for part in parts {
            defuse_segment(&mut part.segment, written);
        }
    }
    fn defuse_segment(segment: &mut Segment, written: &[Dialect]) {
        match segment {
            Segment::Call(call) => call.defuse_token(written),
            Segment::Fenced(_, parts) => defuse(parts, written),
            Segment::Reasoning(r) => defuse(&mut r.parts, written),
            Segment::Repeat(_, segment) => defuse_segment(segment, written),
            Segment::Prose(_) | Segment::Native(_) => {}
        }
    }
    let mut written = Vec::new();
    natives(parts, &mut written);
    if let Some(r) = &reasoning {
        natives(&r.parts, &mut written);
    }
    defuse(parts, &written);
    if let Some(r) = reasoning {
        defuse(&mut r.parts, &written);
    }
}

/// Up to eight parts.
fn parts(g: &mut Gen<'_, '_>, offered: &Offered, within: Within) -> Result<Vec<Part>> {
    let n = g.upto(8)?;
    (0..n)
        .map(|_| {
            Ok(Part {
                before: separator(g)?,
                segment: segment(g, offered, within)?,
            })
        })
        .collect()
}

/// Prose, a call, a native block, or (while nesting is allowed) a fence, reasoning or a
/// repetition. Clean replies never nest fences (an inner fence's run would close the
/// outer one, and so would a DeepSeek V3 call's own fence) nor reasoning, and write no
/// Harmony message inside reasoning (its tokens end an analysis channel).
fn segment(g: &mut Gen<'_, '_>, offered: &Offered, within: Within) -> Result<Segment> {
    let hostile = g.hostile();
    let may_fence = g.can_nest() && (hostile || !within.fence);
    let may_reason = g.can_nest() && (hostile || !(within.fence || within.reasoning));
    Ok(match g.below(10)? {
        0..=2 if within.mentions && !hostile && g.chance(1, 3)? => {
            let mut prose = Prose::generate(g)?;
            let (token, _) = g.pick(&*QUOTABLE_TOKENS)?;
            prose.0.push_str(" then ");
            prose.0.push_str(token);
            Segment::Prose(prose)
        }
        0..=2 => Segment::Prose(Prose::generate(g)?),
        3 | 4 => Segment::Call(Box::new(CallSpec::generate(g, offered)?)),
        5 | 6 => {
            let mut native = NativeSpec::generate(g, offered)?;
            if within.reasoning && !hostile && matches!(native.form, Form::Harmony { .. }) {
                native.form = Form::Kimi { prefix: true };
            }
            // DeepSeek V3's own fence would close the fence around an example of it.
            if within.fence && !hostile && native.form == Form::DeepSeekV3 {
                native.form = Form::DeepSeekV31;
            }
            Segment::Native(Box::new(native))
        }
        7 if may_fence => {
            let fence = Fence::generate(g)?;
            let within = Within {
                fence: true,
                ..within
            };
            Segment::Fenced(fence, g.nested(|g| parts(g, offered, within))?)
        }
        8 if may_reason => {
            let kind = g.pick(&[
                ReasoningKind::Think,
                ReasoningKind::GemmaThought,
                ReasoningKind::HarmonyAnalysis,
            ])?;
            let inner = Within {
                reasoning: true,
                mentions: true,
                ..within
            };
            Segment::Reasoning(Reasoning {
                kind,
                parts: g.nested(|g| parts(g, offered, inner))?,
                closed: !hostile || g.chance(3, 4)?,
            })
        }
        // Long repetitions are what make a superlinear path show, but they cost the
        // fuzzer time on every run, so only one hostile segment in about forty is one.
        9 if hostile && g.can_nest() && g.chance(1, 4)? => {
            let times = g.pick(&[2, 10, 100, 1000, 10_000])?;
            Segment::Repeat(times, Box::new(g.nested(|g| segment(g, offered, within))?))
        }
        _ => Segment::Prose(Prose::generate(g)?),
    })
}

/// A call planned by the rendering, and what a truncated reply makes of it.
#[derive(Clone, Debug, PartialEq)]
struct Planned {
    call: Intended,
    /// How far the text must reach for the call to be recovered.
    requires: usize,
    /// A cut in `.0` still recovers the call, with its span ending at `.1`.
    short: Option<(Range<usize>, ShortEnd)>,
    /// From which length on the call is masked (it sits in reasoning that an unopened
    /// `</think>` closes, which a cut may remove).
    masked_from: usize,
    /// Whether the call comes from the whole-content path (which runs before the probe).
    whole: bool,
}

impl Planned {
    /// The same call written `by` bytes further on.
    fn moved(&self, by: usize) -> Planned {
        Planned {
            call: self.call.moved(by),
            requires: moved(self.requires, by),
            short: self.short.as_ref().map(|(cuts, end)| {
                let end = match *end {
                    ShortEnd::At(at) => ShortEnd::At(moved(at, by)),
                    ShortEnd::Cut => ShortEnd::Cut,
                };
                (moved(cuts.start, by)..moved(cuts.end, by), end)
            }),
            masked_from: moved(self.masked_from, by),
            whole: self.whole,
        }
    }

    /// The call, if a text of `len` bytes recovers it.
    fn after_cut(&self, len: usize) -> Option<Intended> {
        if len >= self.masked_from {
            return None;
        }
        if len >= self.requires {
            return Some(self.call.clone());
        }
        let (cuts, end) = self.short.clone()?;
        let end = match end {
            ShortEnd::At(end) => end,
            ShortEnd::Cut => len,
        };
        cuts.contains(&len).then(|| Intended {
            span: self.call.span.start..end,
            ..self.call.clone()
        })
    }
}

/// A ReAct step quoted inside a call that salvage rejects: what must not run while the
/// call around it is there, and must run once a cut removes the call without reserving
/// the step.
#[derive(Clone, Debug, PartialEq)]
struct Quoted {
    step: Intended,
    /// A cut before this offset removes the call.
    requires: usize,
    /// A cut at or after this offset leaves the cut call reserving the step.
    reserved_from: usize,
    masked_from: usize,
}

impl Quoted {
    /// The same step written `by` bytes further on.
    fn moved(&self, by: usize) -> Quoted {
        Quoted {
            step: self.step.moved(by),
            requires: moved(self.requires, by),
            reserved_from: moved(self.reserved_from, by),
            masked_from: moved(self.masked_from, by),
        }
    }
}

/// A whole-content list of objects separated by `;` (`whole::Form::Semicolons`): a cut
/// between two objects still reads the ones before it.
struct Semicolons {
    start: usize,
    objects: Vec<Range<usize>>,
    /// The calls, each with the index of its object.
    calls: Vec<(usize, Intended)>,
}

/// Renders parts, planning the calls they mean when live (outside fences and reasoning).
struct Writer<'o> {
    offered: &'o Offered,
    text: String,
    planned: Vec<Planned>,
    quoted: Vec<Quoted>,
    semicolons: Option<Semicolons>,
    /// Segments written so far.
    segments: usize,
    /// Whether the praisonai calls are known exactly.
    praisonai_exact: bool,
    /// `Planned::masked_from` of calls written now.
    masked_from: usize,
    /// Whether repetitions that write the same thing are copied (`repeat`); the tests
    /// render without copies to check that copying changes nothing.
    copies: bool,
}

/// What one segment wrote: its text and the calls it planned, as ranges of the writer's
/// vectors, and how many segments it counted.
#[derive(Clone, Debug)]
struct Written {
    text: Range<usize>,
    planned: Range<usize>,
    quoted: Range<usize>,
    segments: usize,
}

/// Where the next segment starts: the lengths of the writer's text and vectors, and the
/// segments counted so far.
#[derive(Clone, Copy, Debug)]
struct Mark {
    text: usize,
    planned: usize,
    quoted: usize,
    segments: usize,
}

/// The items of `items` in `a` beside those in `b` (ranges of the same length).
fn zip<T>(items: &[T], a: Range<usize>, b: Range<usize>) -> impl Iterator<Item = (&T, &T)> {
    items[a].iter().zip(&items[b])
}

/// An offset moved `by` bytes along; `usize::MAX` stands for never and stays.
fn moved(at: usize, by: usize) -> usize {
    if at == usize::MAX { at } else { at + by }
}

impl Writer<'_> {
    fn whole(&mut self, whole: &WholeJson) {
        let spans = whole.render(self.offered, &mut self.text);
        let span = spans[0].start..spans[spans.len() - 1].end;
        let calls = whole.intended_entries(self.offered);
        match whole.praisonai(self.offered) {
            Some(praisonai) => {
                let same = praisonai.len() == calls.len()
                    && calls
                        .iter()
                        .zip(&praisonai)
                        .all(|((_, n, a, d), (pn, pa))| {
                            n == pn && a == pa && *d == Dialect::WholeJson
                        });
                self.praisonai_exact &= same;
            }
            None => self.praisonai_exact = false,
        }
        if whole.form == whole::Form::Semicolons {
            self.semicolons = Some(Semicolons {
                start: span.start,
                objects: spans,
                calls: calls
                    .into_iter()
                    .map(|(k, name, args, dialect)| {
                        let span = span.clone();
                        (
                            k,
                            Intended {
                                name,
                                args,
                                dialect,
                                span,
                            },
                        )
                    })
                    .collect(),
            });
            return;
        }
        for (_, name, args, dialect) in calls {
            self.planned.push(Planned {
                call: Intended {
                    name,
                    args,
                    dialect,
                    span: span.clone(),
                },
                requires: span.end,
                short: None,
                masked_from: usize::MAX,
                whole: true,
            });
        }
    }

    fn parts(&mut self, parts: &[Part], within: Within) {
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                self.text.push_str(part.before);
            }
            self.segment(&part.segment, within);
        }
    }

    fn segment(&mut self, segment: &Segment, within: Within) {
        self.segments += 1;
        let live = !within.fence && !within.reasoning;
        match segment {
            Segment::Prose(prose) => self.text.push_str(&prose.0),
            Segment::Call(call) => {
                if call.token.is_some() {
                    // `praisonai`'s probe does not know the token, `strict`'s does.
                    self.praisonai_exact = false;
                }
                let written = call.render(self.offered, &mut self.text);
                if let (true, Some((span, name))) = (live, written.quoted) {
                    self.quoted.push(Quoted {
                        step: react_step(name, span),
                        requires: written.span.end,
                        reserved_from: usize::MAX,
                        masked_from: self.masked_from,
                    });
                }
                if let (true, Some((name, args))) = (live, written.intended) {
                    let requires = written.span.end;
                    self.plan(
                        name,
                        args,
                        call.syntax.dialect(),
                        written.span,
                        requires,
                        None,
                    );
                }
            }
            Segment::Native(native) => {
                self.praisonai_exact = false;
                let pieces = native.render(self.offered, self.offered.typed(), &mut self.text);
                if live {
                    self.native(native.form.dialect(), pieces);
                }
            }
            Segment::Fenced(fence, parts) => {
                fence.open(&mut self.text);
                let body_start = self.text.len();
                let inner = Within {
                    fence: true,
                    ..within
                };
                self.parts(parts, inner);
                if fence.inline && self.text.len() == body_start {
                    // An empty inline fence would be one long run, not a fence and its close.
                    self.text.push_str("code");
                }
                fence.close(&mut self.text);
            }
            Segment::Reasoning(reasoning) => {
                self.praisonai_exact = false;
                self.reasoning(reasoning, within, false);
            }
            Segment::Repeat(times, segment) => self.repeat(*times, segment, within),
        }
    }

    /// `segment` written `times` times, or until the reply is longer than `MAX_LEN` or has
    /// more than `MAX_SEGMENTS` segments.
    ///
    /// Rendering a segment depends on what it is and where it starts, and on nothing
    /// written before it. So once a repetition is the one before it moved along, every
    /// later one would be too, and is copied instead of rendered (the test
    /// `copied_repetitions_render_as_each_one_written` checks it): rendering each of ten
    /// thousand repetitions cost the `salvage` target about a sixth of its executions
    /// (docs/fuzzing.md, "The `salvage` rate"). A copy is made only when the whole of it stays
    /// within both bounds, so a nested repetition never stops short inside one; the last
    /// repetitions, which reach a bound, are rendered.
    fn repeat(&mut self, times: usize, segment: &Segment, within: Within) {
        let mut last: Option<Written> = None;
        // The text of `last` while it is a steady repetition.
        let mut steady: Option<String> = None;
        for _ in 0..times {
            if self.text.len() > MAX_LEN || self.segments > MAX_SEGMENTS {
                break;
            }
            last = Some(match (last, &steady) {
                (Some(rep), Some(text)) if self.fits(&rep) => self.copy(&rep, text),
                (last, _) => {
                    let before = self.mark();
                    self.segment(segment, within);
                    let rep = self.since(before);
                    // A rendered repetition that is not the last one moved along (one
                    // a bound cut short) ends the steady run: its text is not the copy's.
                    steady = (self.copies && last.is_some_and(|last| self.repeats(&last, &rep)))
                        .then(|| self.text[rep.text.clone()].to_owned());
                    rep
                }
            });
        }
    }

    /// Where the next segment starts.
    fn mark(&self) -> Mark {
        Mark {
            text: self.text.len(),
            planned: self.planned.len(),
            quoted: self.quoted.len(),
            segments: self.segments,
        }
    }

    /// What was written since `start`.
    fn since(&self, start: Mark) -> Written {
        Written {
            text: start.text..self.text.len(),
            planned: start.planned..self.planned.len(),
            quoted: start.quoted..self.quoted.len(),
            segments: self.segments - start.segments,
        }
    }

    /// Whether `rep` repeats `last`: is `last` moved to where `rep` starts.
    fn repeats(&self, last: &Written, rep: &Written) -> bool {
        let by = rep.text.start - last.text.start;
        self.text[last.text.clone()] == self.text[rep.text.clone()]
            && last.segments == rep.segments
            && last.planned.len() == rep.planned.len()
            && last.quoted.len() == rep.quoted.len()
            && zip(&self.planned, last.planned.clone(), rep.planned.clone())
                .all(|(a, b)| a.moved(by) == *b)
            && zip(&self.quoted, last.quoted.clone(), rep.quoted.clone())
                .all(|(a, b)| a.moved(by) == *b)
    }

    /// Whether a copy of `rep` stays within `MAX_LEN` and `MAX_SEGMENTS`.
    fn fits(&self, rep: &Written) -> bool {
        self.text.len() + rep.text.len() <= MAX_LEN && self.segments + rep.segments <= MAX_SEGMENTS
    }

    /// Writes `rep`, whose text is `text`, again after the text, with its calls moved
    /// along; returns the copy.
    fn copy(&mut self, rep: &Written, text: &str) -> Written {
        let start = self.mark();
        let by = start.text - rep.text.start;
        self.text.push_str(text);
        for k in rep.planned.clone() {
            let planned = self.planned[k].moved(by);
            self.planned.push(planned);
        }
        for k in rep.quoted.clone() {
            let quoted = self.quoted[k].moved(by);
            self.quoted.push(quoted);
        }
        self.segments += rep.segments;
        self.since(start)
    }

    /// A reasoning block; `leading`: the one a reply begins with, where an unopened
    /// `</think>` closes what comes before it (and a cut before that `</think>` leaves
    /// the calls in it live).
    fn reasoning(&mut self, reasoning: &Reasoning, within: Within, leading: bool) {
        let (open, close) = reasoning.kind.tokens();
        self.text.push_str(open);
        let unopened = leading && reasoning.kind == ReasoningKind::Unopened;
        if unopened {
            let start = self.planned.len();
            let quoted = self.quoted.len();
            self.parts(&reasoning.parts, within);
            let masked_from = self.text.len() + close.len();
            for planned in &mut self.planned[start..] {
                planned.masked_from = masked_from;
            }
            for step in &mut self.quoted[quoted..] {
                step.masked_from = masked_from;
            }
        } else {
            let inner = Within {
                reasoning: true,
                ..within
            };
            self.parts(&reasoning.parts, inner);
        }
        if reasoning.closed {
            self.text.push_str(close);
        }
    }

    /// The calls of a native block.
    fn native(&mut self, dialect: Dialect, pieces: Vec<Piece>) {
        for piece in pieces {
            if let Some((span, name, reserved_from)) = piece.quoted {
                self.quoted.push(Quoted {
                    step: react_step(name, span),
                    requires: piece.requires,
                    reserved_from,
                    masked_from: self.masked_from,
                });
            }
            if let Some((name, args)) = piece.intended {
                self.plan(name, args, dialect, piece.span, piece.requires, piece.short);
            }
        }
    }

    fn plan(
        &mut self,
        name: PyStr,
        args: Value,
        dialect: Dialect,
        span: Range<usize>,
        requires: usize,
        short: Option<(Range<usize>, ShortEnd)>,
    ) {
        self.planned.push(Planned {
            call: Intended {
                name,
                args,
                dialect,
                span,
            },
            requires,
            short,
            masked_from: self.masked_from,
            whole: false,
        });
    }

    /// The rendering, cut to `keep_permille` thousandths when given.
    fn finish(self, keep_permille: Option<usize>) -> Rendered {
        let Writer {
            mut text,
            planned,
            quoted,
            semicolons,
            praisonai_exact,
            ..
        } = self;
        if let Some(permille) = keep_permille {
            let keep = text.len() * permille / 1000;
            truncate(&mut text, keep);
        }
        let len = text.len();
        let marker = has_marker(&text);
        let mut intended: Vec<Intended> = planned
            .iter()
            .filter(|p| marker || p.whole)
            .filter_map(|p| p.after_cut(len))
            .collect();
        intended.extend(semicolons.map_or_else(Vec::new, |s| s.after_cut(&text)));
        if marker {
            intended.extend(
                quoted
                    .iter()
                    .filter(|q| {
                        len < q.requires
                            && q.step.span.end <= len
                            && len < q.reserved_from
                            && len < q.masked_from
                    })
                    .map(|q| q.step.clone()),
            );
        }
        intended.sort_by_key(|call| call.span.start);
        let praisonai = praisonai_exact.then(|| intended.clone());
        Rendered {
            text,
            intended,
            praisonai,
        }
    }
}

impl Semicolons {
    /// The calls a text cut at its length (or whole) reads: the objects before the cut,
    /// when the cut falls between two objects or after the last.
    fn after_cut(self, text: &str) -> Vec<Intended> {
        let len = text.len();
        let complete = self.objects.iter().filter(|o| o.end <= len).count();
        let between = self
            .objects
            .get(complete)
            .is_none_or(|next| len <= next.start);
        if complete == 0 || !between {
            return Vec::new();
        }
        let end = self.start + text[self.start..].trim_end_matches(is_py_space).len();
        self.calls
            .into_iter()
            .filter(|(k, _)| *k < complete)
            .map(|(_, call)| Intended {
                span: self.start..end,
                ..call
            })
            .collect()
    }
}

/// Python's `str.isspace`, for the characters the grammar writes.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A quoted ReAct step as the call it would be.
fn react_step(name: PyStr, span: Range<usize>) -> Intended {
    Intended {
        name,
        args: Value::Dict(Dict::default()),
        dialect: Dialect::React,
        span,
    }
}

/// Cuts `text` to at most `len` bytes, on a character boundary.
fn truncate(text: &mut String, mut len: usize) {
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    text.truncate(len);
}

/// The substrings the marker probe looks for in `str.lower()` of a reply, for the
/// real package's six dialects (docs/behaviour.md §2(e).2): the registry's probe markers
/// of the dialects `praisonai` recovers, lowercased. Only the data comes from the
/// registry; the oracle below answers with its own algorithm, so it does not trust the
/// probe it checks.
pub static MARKERS_PRAISONAI: LazyLock<Vec<String>> = LazyLock::new(|| probe_markers(true));

/// The probe's substrings for the dialects only `strict` and `portable` recover, less
/// those the six already look for (`<tool_call>` is GLM's too).
pub static MARKERS_NEW: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut new = probe_markers(false);
    new.retain(|m| !MARKERS_PRAISONAI.contains(m));
    new
});

/// The lowercased probe markers of the dialects `praisonai` recovers (or the others),
/// each once, in registry order.
fn probe_markers(praisonai: bool) -> Vec<String> {
    let mut markers: Vec<String> = Vec::new();
    let specs = Dialect::ALL.iter().map(|d| d.spec());
    for spec in specs.filter(|s| s.is_praisonai() == praisonai) {
        for marker in spec.probe() {
            let lower = marker.to_lowercase();
            if !markers.contains(&lower) {
                markers.push(lower);
            }
        }
    }
    markers
}

/// Whether `str.lower()` of the text holds a marker of any profile: the probe's question, answered the
/// slow, obvious way (Rust's full lowercase mapping agrees with Python's on every
/// character that can produce an ASCII letter).
pub fn has_marker(text: &str) -> bool {
    let lower = text.to_lowercase();
    MARKERS_PRAISONAI
        .iter()
        .chain(MARKERS_NEW.iter())
        .any(|m| lower.contains(m.as_str()))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Copying steady repetitions (`Writer::repeat`) writes the text and plans the calls
    /// that rendering every repetition does, on hostile replies from pseudo-random bytes.
    #[test]
    fn copied_repetitions_render_as_each_one_written() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut grown = 0;
        for n in 0..2000 {
            let bytes: Vec<u8> = (0..64 + n % 1500)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 32) as u8
                })
                .collect();
            let Ok(reply) = Reply::generate(&mut Unstructured::new(&bytes), Mode::Hostile) else {
                continue;
            };
            let copied = reply.write(true);
            assert_eq!(copied, reply.write(false), "reply {n}: {reply:?}");
            grown += usize::from(copied.text.len() > 16 * 1024);
        }
        assert!(
            grown >= 20,
            "{grown} replies grown past 16 KiB: too few to test copies"
        );
    }
}
