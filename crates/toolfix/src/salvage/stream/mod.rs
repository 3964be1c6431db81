//! Streaming salvage: the reply arrives in chunks; displayable text and completed calls
//! leave as soon as they are certain, and the calls are exactly what batch
//! [`salvage`](super::salvage) recovers from the whole reply, for every way of cutting it
//! into chunks.
//!
//! ```
//! use toolfix::salvage::{Allowlist, Event, Stream};
//! use toolfix::Adapter;
//!
//! let tools = Allowlist::new(["get_weather"]);
//! let mut stream = Stream::new(&tools, Adapter::Ollama);
//! let mut shown = String::new();
//! let mut calls = Vec::new();
//! let mut on = |event: Event<'_>| match event {
//!     Event::Text(text) => shown.push_str(text.as_str().unwrap()),
//!     Event::Call(call) => calls.push(call),
//! };
//! for chunk in ["Let me check. <tool_", "call>{\"name\": \"get_weather\", ", "\"arguments\": {\"city\": \"Paris\"}}</tool_call> Done."] {
//!     stream.feed(chunk, &mut on);
//! }
//! stream.finish(&mut on);
//! assert_eq!(shown, "Let me check.  Done.");
//! assert_eq!(calls[0].arguments_text().as_str(), Some(r#"{"city": "Paris"}"#));
//! ```
//!
//! A [`Stream`] reads under `strict` and cannot fail; a [`StreamUnder`] reads under a
//! profile chosen at run time. Under `praisonai` every chunk is shown as it arrives, the
//! markup of the calls included, and the calls come at `finish`: that is what the real
//! package's streaming loop does (it salvages the accumulated text after the stream), and
//! salvage of the whole reply can still raise there (`docs/streaming.md`).
//!
//! How it works: the text before the first byte at which a call, a fence or reasoning
//! could begin (`frontier`) is shown as it arrives and never stored, so streaming prose
//! allocates nothing. From that byte on the text is kept, and at `finish` salvage runs
//! over it, told whether anything but whitespace came before (`Beginning`): the same
//! calls as batch salvage over the whole reply, with the same spans, because nothing
//! before that byte can begin or change a match. When each call is emitted, and why no
//! earlier, is documented in `docs/streaming.md`.
//!
//! Total work is linear in the reply whatever the chunk sizes: each chunk is scanned once
//! for the frontier, and salvage runs once.

pub(super) mod frontier;
mod kept;

use std::borrow::Cow;

use smallvec::SmallVec;

use super::{Allowlist, Beginning, Call, Content, Request, SalvageError, guaranteed};
use crate::adapter::Adapter;
use crate::profile::Profile;
use crate::py::unicode::is_space;
use frontier::Scan;
use kept::Kept;

/// What a stream gives back, in the order of the reply.
#[derive(Debug)]
pub enum Event<'a> {
    /// Displayable text: the reply without the spans of the calls recovered from it.
    Text(Content<'a>),
    /// A call, complete: no continuation of the reply could change it.
    Call(Call),
}

/// A streaming salvager for one reply under `strict`: the calls are batch [`salvage`]'s.
///
/// It cannot fail, as [`salvage`] cannot: a stream under a profile that can is a
/// [`StreamUnder`].
///
/// [`salvage`]: super::salvage()
#[derive(Debug)]
pub struct Stream<'t>(Reader<'t>);

impl<'t> Stream<'t> {
    /// A stream salvaging calls to `tools` through `adapter`.
    pub fn new(tools: &'t Allowlist, adapter: Adapter) -> Stream<'t> {
        Stream(Reader::new(Cow::Borrowed(tools), adapter, Profile::Strict))
    }

    /// A stream that owns its tools (for a caller that cannot lend them for the stream's
    /// life, such as one kept across the awaits of an async response).
    pub fn owning(tools: Allowlist, adapter: Adapter) -> Stream<'static> {
        Stream(Reader::new(Cow::Owned(tools), adapter, Profile::Strict))
    }

    /// Takes the next chunk of the reply; `on` receives what became certain.
    pub fn feed<'c>(&mut self, chunk: impl Into<Content<'c>>, on: &mut impl FnMut(Event<'_>)) {
        self.0.feed(chunk.into(), on);
    }

    /// Ends the reply: `on` receives the rest of the text and every call not yet given.
    pub fn finish(self, on: &mut impl FnMut(Event<'_>)) {
        guaranteed(self.0.finish(on));
    }
}

/// A streaming salvager for one reply under a profile chosen at run time, for a caller
/// that takes the profile from its configuration or a conformance run: under `strict` and
/// `portable` it is a [`Stream`], and under `praisonai` it shows every chunk as it
/// arrives and gives the calls at [`finish`](StreamUnder::finish), which can fail.
#[derive(Debug)]
pub struct StreamUnder<'t>(Reader<'t>);

impl<'t> StreamUnder<'t> {
    /// A stream salvaging calls to `tools` through `adapter` under `profile`.
    pub fn new(tools: &'t Allowlist, adapter: Adapter, profile: Profile) -> StreamUnder<'t> {
        StreamUnder(Reader::new(Cow::Borrowed(tools), adapter, profile))
    }

    /// A stream that owns its tools (for a caller that cannot lend them for the stream's
    /// life, such as the Python module).
    pub fn owning(tools: Allowlist, adapter: Adapter, profile: Profile) -> StreamUnder<'static> {
        StreamUnder(Reader::new(Cow::Owned(tools), adapter, profile))
    }

    /// Takes the next chunk of the reply; `on` receives what became certain.
    pub fn feed<'c>(&mut self, chunk: impl Into<Content<'c>>, on: &mut impl FnMut(Event<'_>)) {
        self.0.feed(chunk.into(), on);
    }

    /// Ends the reply: `on` receives the rest of the text and every call not yet given.
    /// Under `praisonai`, salvage of the whole reply may raise, as the real package does:
    /// then the text held so far is given as text and the error is returned.
    pub fn finish(self, on: &mut impl FnMut(Event<'_>)) -> Result<(), SalvageError> {
        self.0.finish(on)
    }
}

/// The reading of a stream, under any profile: what [`Stream`] and [`StreamUnder`] give.
#[derive(Debug)]
struct Reader<'t> {
    setup: Setup<'t>,
    /// Bytes of the reply received so far.
    received: usize,
    state: State,
}

/// What a stream reads for: a field of its own, so that the state can be changed in
/// place while it is read.
#[derive(Debug)]
struct Setup<'t> {
    tools: Cow<'t, Allowlist>,
    adapter: Adapter,
    profile: Profile,
    /// Whether every chunk is shown as it arrives, markup included, as the real package's
    /// streaming loop shows it (`praisonai`).
    echo: bool,
}

/// Bytes held before they can be shown: a few, except for long runs of whitespace.
type Held = SmallVec<[u8; 48]>;

/// How much of a chunk is looked at together with the bytes held from the one before:
/// more than the longest word marker (`frontier`), so a marker that began in the held
/// bytes is whole in the window or ends with the chunk.
const WINDOW: usize = 32;

#[derive(Debug)]
enum State {
    /// Only whitespace so far: it is held, since the reply may yet be a whole-content
    /// payload, whose span starts after it.
    Start(Held),
    /// Text is shown as it comes. `partial` may begin a word marker (`frontier`); `before`
    /// is the last code point shown, which `\b` may read.
    Clear { partial: Held, before: Held },
    /// A match may have begun: everything from there is kept (`kept`).
    Kept(Kept),
}

impl<'t> Reader<'t> {
    fn new(tools: Cow<'t, Allowlist>, adapter: Adapter, profile: Profile) -> Reader<'t> {
        Reader {
            setup: Setup {
                tools,
                adapter,
                profile,
                echo: profile.echoes_stream_chunks(),
            },
            received: 0,
            state: State::Start(Held::new()),
        }
    }

    /// Takes the next chunk of the reply; `on` receives what became certain.
    ///
    /// Each state is changed in place, and the stream moves to another only when a match
    /// may begin: a token-sized chunk of prose or of kept text costs a few comparisons
    /// and its bytes. Kept text (most of a reply with calls in it) takes the shortest
    /// path; the rest is out of line (`feed_other`).
    #[inline]
    fn feed(&mut self, chunk: Content<'_>, on: &mut impl FnMut(Event<'_>)) {
        let chunk = chunk.as_bytes();
        let setup = &self.setup;
        if let (State::Kept(kept), false) = (&mut self.state, setup.echo) {
            self.received += chunk.len();
            kept.push(chunk, || setup.request(), on);
            return;
        }
        self.feed_other(chunk, on);
    }

    /// [`Reader::feed`] while the text is shown as it comes, or under `praisonai`, which
    /// echoes every chunk.
    #[inline(never)]
    fn feed_other(&mut self, chunk: &[u8], on: &mut impl FnMut(Event<'_>)) {
        let setup = &self.setup;
        if setup.echo && !chunk.is_empty() {
            on(Event::Text(Content(chunk)));
        }
        let start = self.received;
        self.received += chunk.len();
        let next = match &mut self.state {
            State::Kept(kept) => {
                kept.text.extend_from_slice(chunk);
                return;
            }
            State::Clear { partial, before } => setup.clear(partial, before, chunk, start, on),
            State::Start(held) => setup.start(held, chunk, start, on),
        };
        if let Some(next) = next {
            self.state = next;
        }
    }

    /// Ends the reply: `on` receives the rest of the text and every call not yet given.
    /// Under `praisonai`, salvage of the whole reply may raise: then the text held so far
    /// is given as text and the error is returned.
    fn finish(self, on: &mut impl FnMut(Event<'_>)) -> Result<(), SalvageError> {
        let setup = &self.setup;
        match self.state {
            State::Start(held) => show(setup.echo, &held, on),
            State::Clear { partial, .. } => show(setup.echo, &partial, on),
            State::Kept(mut kept) => {
                let calls = match kept.calls_at_end(&setup.request()) {
                    Ok(calls) => calls,
                    Err(error) => {
                        show(setup.echo, &kept.text[kept.shown..], on);
                        return Err(error);
                    }
                };
                let mut at = kept.shown;
                for call in calls {
                    let span = call.span();
                    show(setup.echo, &kept.text[at..span.start.max(at)], on);
                    at = at.max(span.end);
                    on(Event::Call(call.shifted(kept.base)));
                }
                show(setup.echo, &kept.text[at..], on);
            }
        }
        Ok(())
    }
}

impl Setup<'_> {
    /// A request for this stream's tools, adapter and profile whose content is unused:
    /// what a stream hands the readers of its kept text.
    fn request(&self) -> Request<'_> {
        Request::new(Content(&[]), &self.tools)
            .adapter(self.adapter)
            .under(self.profile)
    }

    /// The reply so far is whitespace (`held`); `chunk`, starting at byte `start`, goes
    /// on. The next state, unless it is still whitespace.
    fn start(
        &self,
        held: &mut Held,
        chunk: &[u8],
        start: usize,
        on: &mut impl FnMut(Event<'_>),
    ) -> Option<State> {
        let Some(first) = first_non_space(chunk) else {
            held.extend_from_slice(chunk);
            return None;
        };
        if self.keeps_from_the_start(chunk[first]) {
            let mut text = std::mem::take(held).into_vec();
            text.extend_from_slice(chunk);
            let mut kept = Kept::new(text, 0, 0, Beginning::REPLY);
            if !self.echo {
                kept.push(&[], || self.request(), on);
            }
            return Some(State::Kept(kept));
        }
        show(self.echo, held, on);
        let (mut partial, mut before) = (Held::new(), Held::new());
        let kept = self.clear(&mut partial, &mut before, chunk, start, on);
        Some(kept.unwrap_or(State::Clear { partial, before }))
    }

    /// Whether a reply whose first non-space byte is `first` is kept whole: it may be a
    /// whole-content payload (or, under `praisonai`, raise on one: a leading integer of
    /// more than 4300 digits), or begin with a fence or a tag, and so with reasoning that
    /// a whole-content payload may follow. Any other start is prose: the whitespace
    /// before it is shown, and nothing a later match does reaches back into it.
    fn keeps_from_the_start(&self, first: u8) -> bool {
        match first {
            b'{' | b'[' | b'<' | b'`' | b'~' => true,
            b'-' | b'0'..=b'9' => self.profile.raises_interpreter_errors(),
            _ => false,
        }
    }

    /// The state once a match may begin at byte `from` of the reply: `parts` from there on
    /// are kept, after `before`, the code point shown just before them, and looked at.
    fn keep(
        &self,
        before: &[u8],
        parts: &[&[u8]],
        from: usize,
        on: &mut impl FnMut(Event<'_>),
    ) -> State {
        // The code point before the match, as a one-byte stand-in the dialects read alike.
        let before = match before.is_empty() {
            true => Vec::new(),
            false => vec![kept::stand_in(before)],
        };
        let base = from - before.len();
        let mut kept = Kept::new(before.clone(), before.len(), base, Beginning::AFTER_PROSE);
        for part in parts {
            match self.echo {
                true => kept.text.extend_from_slice(part),
                false => kept.push(part, || self.request(), on),
            }
        }
        State::Kept(kept)
    }

    /// Shows what of `partial` + `chunk` cannot begin a match, and holds the rest in
    /// `partial`; `before` becomes the last code point shown. `chunk` starts at byte
    /// `start` of the reply. The kept state, when a match may begin.
    fn clear(
        &self,
        partial: &mut Held,
        before: &mut Held,
        chunk: &[u8],
        start: usize,
        on: &mut impl FnMut(Event<'_>),
    ) -> Option<State> {
        if !partial.is_empty() {
            let mut head = partial.clone();
            head.extend_from_slice(&chunk[..window_end(chunk)]);
            let whole_chunk = head.len() == partial.len() + chunk.len();
            match frontier::scan(&head, 0) {
                Scan::Marker(at) if at < partial.len() => {
                    show(self.echo, &head[..at], on);
                    last_code_point(&head[..at], before);
                    let from = start - partial.len() + at;
                    return Some(self.keep(before, &[&partial[at..], chunk], from, on));
                }
                Scan::Partial(at) if at < partial.len() && whole_chunk => {
                    show(self.echo, &head[..at], on);
                    last_code_point(&head[..at], before);
                    *partial = Held::from_slice(&head[at..]);
                    return None;
                }
                _ => {
                    show(self.echo, partial, on);
                    last_code_point(partial, before);
                    partial.clear();
                }
            }
        }
        let shown = match frontier::scan(chunk, 0) {
            Scan::Clear => chunk.len(),
            Scan::Partial(at) => {
                partial.extend_from_slice(&chunk[at..]);
                at
            }
            Scan::Marker(at) => {
                show(self.echo, &chunk[..at], on);
                last_code_point(&chunk[..at], before);
                return Some(self.keep(before, &[&chunk[at..]], start + at, on));
            }
        };
        show(self.echo, &chunk[..shown], on);
        last_code_point(&chunk[..shown], before);
        None
    }
}

/// Gives `text` to `on` when there is any, unless the stream echoes every chunk.
pub(super) fn show(echo: bool, text: &[u8], on: &mut impl FnMut(Event<'_>)) {
    if !echo && !text.is_empty() {
        on(Event::Text(Content(text)));
    }
}

/// The offset of the first code point of `text` that is not whitespace (`str.isspace`).
fn first_non_space(text: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some((cp, len)) = super::text::cp_at(text, i) {
        if !is_space(cp) {
            return Some(i);
        }
        i += len;
    }
    None
}

/// Replaces `before` with the last code point of `text`, when it has one.
fn last_code_point(text: &[u8], before: &mut Held) {
    // Most often one ASCII byte: set without a copy.
    if let Some(&last) = text.last().filter(|b| b.is_ascii()) {
        before.clear();
        before.push(last);
        return;
    }
    if let Some(start) = text.iter().rposition(|&b| b & 0xC0 != 0x80) {
        before.clear();
        before.extend_from_slice(&text[start..]);
    }
}

/// Where the window of `chunk` looked at with the held bytes ends: `WINDOW` bytes in, or
/// before, on a code point boundary, since the frontier decodes the code points it is
/// given up to their end.
fn window_end(chunk: &[u8]) -> usize {
    let mut end = chunk.len().min(WINDOW);
    while end < chunk.len() && chunk[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::salvage::{salvage, salvage_under};

    /// Found by the `stream` fuzz target: a held word (`act`) and a chunk whose `WINDOW`th
    /// byte is inside a code point right after a letter that may begin a word marker
    /// (here `a`, then `é`) made the frontier decode past the end of the window.
    /// Found by the `stream` fuzz target: a reply that begins with non-ASCII whitespace
    /// (U+00A0, `str.isspace`), then reasoning and a whole-content payload, lost its call
    /// under `strict` when cut inside the reasoning: the whitespace was shown and forgotten
    /// with the fact that the reply began there, and an unclosed reasoning block counted
    /// as leading only after ASCII whitespace.
    #[test]
    fn non_ascii_space_before_leading_reasoning_keeps_the_whole_content_call() {
        for payload in [
            r#"[{"name": "a", "arguments": false}]"#,
            r#"{"name": "a", "arguments": {}}"#,
        ] {
            every_cut(&format!("\u{a0}<think></think>{payload}"), false);
            every_cut(&format!("\u{3000}\u{a0}<think>hm</think> {payload}"), false);
        }
    }

    /// F34, found by the `stream` fuzz target: batch salvage reads the reasoning a reply
    /// begins with outside fences, so a `</think>` shown in a fence after it closes
    /// nothing, and the pythonic list after the reasoning is the whole content's. The
    /// stream read that reasoning with no fence masked, took the fenced `</think>` for
    /// the end of one run of reasoning, and lost the call.
    #[test]
    fn a_fenced_think_close_ends_no_leading_reasoning_in_the_stream_either() {
        let reply = "\u{c}<|channel>thought\nx<channel|>\u{a0}[get_weather(city=\"Oslo\")]\\```json\n</think> z";
        let tools = Allowlist::new(["get_weather"]);
        assert_eq!(salvage(&Request::new(reply, &tools)).len(), 1);
        every_cut(reply, false);
    }

    /// F35, found by the `stream` fuzz target: the first GLM block is drafted in the
    /// reasoning an unopened `</think>` closes, and read with nothing masked it takes the
    /// opener of the call after it, so that call's arguments are not a call's to batch
    /// salvage: its `<think>` opens reasoning to the end of the reply, and no call runs.
    /// A look forgot the text before that call (settled, as reasoning masked reads it);
    /// read without the drafted block's opener, the `<think>` was inside a call, and the
    /// call ran. The kept text now begins outside every span of the unmasked reading.
    #[test]
    fn a_block_drafted_in_reasoning_is_kept_while_it_holds_an_opener() {
        let reply = format!(
            "{}{}{}{}",
            "<tool_call>get_weathe<arg_key>c</think>I will check.",
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris, or rather ",
            "the city of Paris in <think>Fisink><tool_cal3</arg_value></tool_call><toolrio",
            "x".repeat(130),
        );
        let tools = Allowlist::new(["get_weather"]);
        assert_eq!(salvage(&Request::new(reply.as_str(), &tools)), []);
        every_cut(&reply, false);
    }

    /// Found by the `stream` fuzz target: once reasoning had decided how the reply began,
    /// a settled rejected call (to a tool not offered) was skipped without reserving its
    /// span, so a call quoted in its arguments ran under `strict`; batch salvage drops it.
    #[test]
    fn a_rejected_call_reserves_its_span_in_the_stream_too() {
        let quoting = r#"<tool_call>{"name": "s", "arguments": {"q": "<function=get_weather>{}</function>"}}</tool_call>"#;
        every_cut(&format!("<think>x</think>\n{quoting} done"), false);
    }

    /// Found by the `stream` fuzz target: a Gemma (or Kimi) call whose closing token is
    /// quoted in a string argument is read past that token; while the text ended before
    /// the call's own closer, the block stayed a rejected candidate that nothing held
    /// open, so once reasoning had been decided, a look settled it and the call was lost.
    #[test]
    fn a_closer_quoted_in_an_argument_holds_the_call_open() {
        let padding = "e".repeat(60);
        for call in [
            format!(
                "<start_function_call>call:get_weather{{q:<escape><end_function_call><escape>,city:\"{padding}\"}}<end_function_call>"
            ),
            format!(
                "<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{{\"q\": \"<|tool_call_end|>\", \"city\": \"{padding}\"}}<|tool_call_end|>"
            ),
        ] {
            every_cut(&format!("</think>{call} done"), false);
        }
    }

    /// Found by the `stream` fuzz target: a `<tool_call>` quoted in a rejected Qwen3 XML
    /// block pairs with the next `</tool_call>`, so the `<tool_call>` between them opens
    /// nothing and the Llama call after it runs. The stream settled the block, then forgot
    /// it with the quoted opener (the earliest open structure, inside text already shown),
    /// and paired the later opener instead, whose rejected block hid the call.
    #[test]
    fn an_opener_quoted_in_a_settled_block_still_pairs_with_the_next_closer() {
        let reply = concat!(
            "</think>\n<function=g><parameter=<tool_call>{</function>",
            "<tool_call>{<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {}}}",
            "</tool_call> and after",
        );
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target: a `<think>` block whose text so far ended with a
    /// Harmony end token (`<|call|>`) counted as closed, because any reasoning closer
    /// closed any block; a look then settled it, and the MiniMax call that came after it,
    /// inside the still open reasoning, ran under `strict` and `portable`.
    #[test]
    fn reasoning_closes_only_with_its_own_closer() {
        let reply = concat!(
            "```\n```<think><|call|>\u{1c}<minimax:tool_call><invoke name=\"a\">",
            "</invoke></minimax:tool_call>",
        );
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target: a DeepSeek opener in a fence pairs with the
    /// closer of the real call after the fence, so batch salvage drops both (the pairing
    /// limitation of docs/fuzzing.md). The real call's opener was the earliest open
    /// structure once a Kimi section after it came, so a look forgot the fence before it,
    /// and the stream read the call alone and ran it (`strict`).
    #[test]
    fn an_opener_in_a_fence_that_takes_a_later_closer_holds_the_stream() {
        let reply = concat!(
            "</think>```<｜tool▁call▁begin｜>```<｜tool▁call▁begin｜>function<｜tool▁sep｜>",
            "get_weather\n```json{\"\":\"\"}```<｜tool▁call▁end｜> Then <|tool_calls_section_begin|>",
            "<|tool_call_begin|>functions.wri",
        );
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target: the second object of a `<|python_tag|>` chain
    /// is a call only after the tag, but a Kimi opener quoted in its arguments held the
    /// stream from the object's start, so a look settled the first object and forgot the
    /// tag with it; read without its tag, the second object was no call (`strict`).
    #[test]
    fn a_llama_chain_is_kept_from_its_tag() {
        let reply = concat!(
            "</think><|python_tag|>{\"name\": \"\", \"parameters\": {}};",
            "{\"name\": \"get_weather\", \"parameters\": {\"q\": \"<|tool_call_begin|>\"}}|",
        );
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target: a Kimi opener quoted in the first invoke of a
    /// MiniMax section, unclosed, began a structure of its own that the next invoke was
    /// counted in; dropped as quoted data, it left that invoke a structure of its own, so
    /// the stream forgot the section's opener and lost the invoke under `portable`.
    #[test]
    fn a_token_quoted_in_a_section_does_not_split_it() {
        let reply = concat!(
            "</think><minimax:tool_call><invoke name=\"\"><parameter name=\"\">",
            "<|tool_call_begin|></parameter></invoke>\n",
            "<invoke name=\"search\"></invoke></minimax:tool_call>and some more text",
        );
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target: a GLM block whose first closer was written in
    /// reasoning reaches further once reasoning is masked, but fences were found around
    /// its shorter span, pairing a fence mark inside it; whether a later call was drafted
    /// in reasoning (which made a second round find them around the longer span) decided
    /// which marks paired, so text after the block read differently once more came, and
    /// a stream that had settled the block disagreed with batch salvage.
    #[test]
    fn fences_pair_around_a_token_span_as_reasoning_masked_reads_it() {
        let reply = concat!(
            "<tool_call>a\n<arg_key>x<think>o \"P</tool_call>? gen.</think>\n",
            "<```<tool>`</tool_call>```\"``l>\n<think>\u{3000}<|end|> ```json ",
            "<tool_call>\n<function=search>\n<parameter=y></parameter></function>",
        );
        every_cut(reply, false);
    }

    /// Found with the one above, and a second guard for it: a settled block that ends
    /// inside a fence opened in its span and still open was forgotten with the fence's
    /// opening mark, so the call the fence hides was read as a call. Keeping the kept text
    /// from the fence's opening, or finding fences around the block as reasoning masked
    /// reads it, each make this pass.
    #[test]
    fn the_opening_of_an_open_fence_is_kept() {
        let reply = concat!(
            "<tool_call>a\n<arg_key>x<think>\nVD</tool_call>.</think>\n",
            "<too\"```<t\"}</tool_call>``d|> <tool_call>\n<function=search>\n",
            "<parameter=city>\nIstanbul\n</parameter>\n</function> ",
        );
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target once a scan could take a second round for a
    /// token span that reasoning masking lengthens (the test above): reasoning left open
    /// in the first round (its `</think>` inside a fence the second round does not find)
    /// decided what the second round masked, but only the last round's open structures
    /// held the stream, which settled a GLM block and forgot the fence mark that batch
    /// salvage pairs after it. A structure open in any round now holds the stream.
    #[test]
    fn a_structure_open_in_an_earlier_round_holds_the_stream() {
        let reply = concat!(
            "\":\tt\u{a0}<tool_call>a<arg_key>\u{3000}python\u{3000}<\u{ff5c}\0\0\0\0\0\0\0",
            "<think>\nFormat check:\n```\n<tool_call>{\"name\": \"get_stce\", ",
            "\"argument\u{1}\0\0\0{\"symbol\": \"NVDA\"}}</tool_call>\n```\nLooks right.\n",
            "</think>\n<tool_call>\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            "k_price\", \"argument\u{1}\0\0\0{\"symbol\": \"NVDA\"}}</tool_call>\n```\n\n",
            "reacequest\trequest\trequest\trequest\trequest\trequest\trequest\trequest",
            "\trequest\n````````<|tool_call|>[{\"name\":\"lookup2\"}]",
        );
        let cuts = [
            6, 25, 30, 43, 47, 63, 78, 94, 107, 114, 118, 134, 135, 148, 162, 182, 183, 198, 207,
            215, 234, 238, 249, 250, 251, 252, 270, 271, 284, 291, 305, 306, 323, 331, 346, 362,
            380, 388,
        ];
        compare(reply, &cuts, Profile::Strict);
        every_cut(reply, false);
    }

    /// Found by the `stream` fuzz target: a Qwen3 XML opener quoted in a `<tool_call>`
    /// payload pairs with the only `</function>`, after the payload; batch salvage drops
    /// that block as quoted data, and the `<function=…>` inside it is no call. A stream
    /// that settled the payload forgot the quoted opener, and paired the closer with the
    /// later opener instead. A candidate that a block quoted in it reaches past (or may)
    /// is now held, with its text, until the end decides.
    #[test]
    fn a_block_quoted_in_a_settled_candidate_keeps_its_opener() {
        every_cut(
            "<tool_call>{<function=w><parameter=<think></think>}</tool_call><function=lookup2></function>",
            false,
        );
    }

    /// Found by the `stream` fuzz target: under `strict` and `portable` a whole-content
    /// payload too deep to read reserves the whole reply, but the stream, told the payload
    /// could not become whole, scanned it as text and ran a Mistral call quoted in one of
    /// its strings.
    #[test]
    fn a_whole_payload_too_deep_to_read_reserves_the_stream_too() {
        let depth = crate::profile::STRICT_MAX_DEPTH + 1;
        let reply = format!(
            "{{\"tool\": \"a\", \"parameters\": {{\"q\": \"[TOOL_CALLS]get_weather[ARGS]{{}}\", \"d\": {}1{}}}}}",
            "[".repeat(depth),
            "]".repeat(depth),
        );
        for profile in Profile::ALL {
            for cut in [1, 60, reply.len() / 2, reply.len() - 1] {
                compare(&reply, &[cut], profile);
            }
        }
    }

    /// Found by the `stream` fuzz target: batch salvage reads the whole reply as a
    /// payload first, and after leading reasoning only when that fails, so a pythonic list
    /// of calls before an unopened `</think>` is a whole reply under `strict`; the stream
    /// asked only after the reasoning, and lost the list's call.
    #[test]
    fn a_whole_reply_list_before_an_unopened_think_close_is_still_whole() {
        every_cut(
            "[get_weather(city=\"Ghent\")]\nthen.\n</think>\n\n<tool_call>{\"name\": \"search\", \"arguments\": {}}</tool_call>",
            false,
        );
    }

    /// Found by the `stream` fuzz target (F27): a decode cut short with nearly every
    /// level of the depth bound in use fails as CPython's raise would (`RecursionError`,
    /// the syntax error it stands for is at the end of the text), and that was not taken
    /// as cut short, so the stream settled a ReAct step batch salvage reads as a call.
    #[test]
    fn a_deep_payload_cut_short_is_still_open() {
        for depth in [
            crate::profile::STRICT_MAX_DEPTH - 2,
            crate::profile::STRICT_MAX_DEPTH - 1,
        ] {
            let reply = format!(
                "Action: get_weather\nAction Input: {}1{} done",
                "{\"a\": ".repeat(depth),
                "}".repeat(depth),
            );
            let cut = reply.find('1').unwrap() + 1;
            for profile in [Profile::Strict, Profile::Portable] {
                compare(&reply, &[cut], profile);
            }
        }
    }

    /// Found by the `stream` fuzz target (F26): two thought channels that touch were one
    /// leading block in batch salvage, so the list after them was the whole reply; the
    /// stream settled the first channel before the second came and lost the call. Blocks
    /// that only whitespace separates are now one beginning, and the stream holds while
    /// another may open.
    #[test]
    fn reasoning_in_two_blocks_still_begins_the_reply() {
        for reply in [
            "<|channel>thought<channel|><|channel>thought<channel|>[a(x=1)]",
            "<think>a</think>\n <think>b</think>[a(x=1)]",
        ] {
            every_cut(reply, true);
            let bytes: Vec<usize> = (1..reply.len())
                .filter(|&i| reply.is_char_boundary(i))
                .collect();
            compare(reply, &bytes, Profile::Strict);
        }
    }

    /// Found by the `stream` fuzz target: a fence mark inside a Qwen3 XML block is
    /// masked while the scan keeps the block out of fence masking, but a later round that
    /// keeps nothing out (here set off by text that came last) pairs it with the marks
    /// after it, which moved reasoning and let a Mistral call out of it; the stream had
    /// forgotten the block. A token span holding a fence mark now holds the stream.
    #[test]
    fn a_fence_mark_inside_a_token_span_holds_the_stream() {
        let r = "</think><function=r><parameter=```</function><think>```\n```<function=r><parameter=```[TOOL_CALLS]get_weather[CALL_ID]e[ARGS]{\"\":\"\"}</think><function=e><parameter=";
        compare(
            r,
            &[
                5, 24, 27, 36, 40, 56, 71, 87, 100, 107, 111, 127, 128, 141, 155,
            ],
            Profile::Strict,
        );
    }

    #[test]
    fn the_window_after_held_bytes_ends_on_a_code_point() {
        let reply = format!("the act {}a\u{e9} and more", "x".repeat(29));
        for profile in Profile::ALL {
            compare(&reply, &["the act".len()], profile);
        }
    }

    /// What a stream gave: its text and calls, and what batch salvage gives: the calls
    /// and the reply without their spans.
    fn compare(reply: &str, cuts: &[usize], profile: Profile) {
        let tools = Allowlist::new(["get_weather", "a", "search", "lookup2"]);
        let request = Request::new(reply, &tools).adapter(Adapter::Ollama);
        let batch = salvage_under(&request, profile);
        let mut stream = StreamUnder::new(&tools, Adapter::Ollama, profile);
        let (mut text, mut calls) = (Vec::new(), Vec::new());
        let mut on = |event: Event<'_>| match event {
            Event::Text(t) => text.extend_from_slice(t.as_bytes()),
            Event::Call(call) => calls.push(call),
        };
        let mut at = 0;
        for &cut in cuts.iter().chain([&reply.len()]) {
            stream.feed(&reply[at..cut], &mut on);
            at = cut;
        }
        let finished = stream.finish(&mut on);
        match batch {
            Err(e) => assert_eq!(finished, Err(e), "{reply:?} {cuts:?}"),
            Ok(batch) => {
                assert_eq!(finished, Ok(()));
                assert_eq!(calls, batch, "{reply:?} cut at {cuts:?} under {profile}");
                let mut expected = Vec::new();
                let mut from = 0;
                let shown_calls = if profile.echoes_stream_chunks() {
                    &[][..]
                } else {
                    &batch[..]
                };
                for call in shown_calls {
                    expected
                        .extend_from_slice(&reply.as_bytes()[from..call.span().start.max(from)]);
                    from = from.max(call.span().end);
                }
                expected.extend_from_slice(&reply.as_bytes()[from..]);
                assert_eq!(
                    String::from_utf8(text).unwrap(),
                    String::from_utf8(expected).unwrap()
                );
            }
        }
    }

    const REPLIES: [&str; 10] = [
        "It is sunny in Paris today.",
        "Let me check. <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call> Done.",
        "  {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}  ",
        "The transaction: a Action Input: {\"k\": 1} then Action: a Action Input: {\"k\": 2}",
        "Example:\n```\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n```\nDone.",
        "Sure </think> [get_weather(city=\"Paris\")]",
        "<think>plan <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think> ok",
        "use functools[{\"name\": \"a\", \"arguments\": {}}] now",
        "x commentary to=functions.a <|constrain|>json<|message|>{\"k\": 1}",
        "a fact, an act, act\u{131}on: search Action Input: {}",
    ];

    /// Streams `reply` cut once at every code point boundary, also a second time every
    /// seventh boundary after the first when `twice`, and one code point per chunk.
    fn every_cut(reply: &str, twice: bool) {
        let bounds: Vec<usize> = (0..=reply.len())
            .filter(|&i| reply.is_char_boundary(i))
            .collect();
        for profile in Profile::ALL {
            for &i in &bounds {
                compare(reply, &[i], profile);
                if twice {
                    for &j in bounds.iter().filter(|&&j| j >= i).step_by(7) {
                        compare(reply, &[i, j], profile);
                    }
                }
            }
            compare(reply, &bounds[1..bounds.len() - 1], profile);
        }
    }

    #[test]
    fn every_single_and_double_cut_gives_the_batch_answer() {
        for reply in REPLIES {
            every_cut(reply, true);
        }
    }

    /// Replies in the formats of `llama_json`, `pythonic`, `mistral`, `granite` and
    /// `phi4`, where structures stay open until their JSON, token or line says more.
    const JSON_FAMILY_REPLIES: [&str; 12] = [
        "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Rome\"}search[ARGS]{} and more",
        "ok [TOOL_CALLS]a[CALL_ID]x1y2z3w4v[ARGS]{\"k\": 1}[TOOL_CALLS]search{\"q\": \"]\"}",
        "[THINK]no [TOOL_CALLS]a[ARGS]{}[/THINK][TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}}] x",
        "<think>t</think><|tool_call|>[{\"name\": \"a\", \"arguments\": {}}] y",
        "<|tool_call|>{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"search\"}<|/tool_call|> z",
        "<|tool_call|>[{\"name\": \"a\"}]<|/tool_call|><|tool_call|>[{\"name\": \"search\"}]",
        "functools[{\"name\": \"a\", \"arguments\": {\"p\": \"x[0]\"}}] done",
        "Checking.<function_calls>get_weather(city=\"Oslo\")\nsearch(q=null)</function_calls> ok",
        "<think>m <|tool_call_start|>[a()]<|tool_call_end|></think><|tool_call_start|>[search(q='x')]<|tool_call_end|>",
        "[get_weather(city=\"Ghent\")]Checking. <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
        "{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"search\", \"parameters\": {\"q\": 1}}",
        "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"search\", \"parameters\": {}}",
    ];

    #[test]
    fn json_family_replies_stream_as_batch() {
        for reply in JSON_FAMILY_REPLIES {
            every_cut(reply, false);
        }
    }

    /// Found by the stream properties and fuzzing: a `;`-chain stays open from its
    /// `<|python_tag|>`, a token opener quoted in another candidate holds nothing open and
    /// keeps no text, and the code point before kept text stands in for what a Harmony
    /// recipient looks back at (a quote is no whitespace), and a recipient outside the
    /// `functions` namespace, written before its channel token, is read alike in both:
    /// kept from its `to=`, and a recipient only right after `<|start|>` and the role (F25);
    /// and text kept from inside a candidate, which read alone holds a call the reply does
    /// not make before what was shown (F37).
    const QUOTED_AND_LOOKED_BACK_AT: [&str; 10] = [
        "</think><|python_tag|>{\"\":false};{\"tool\":\"a\",\"\":true}",
        "</think><|tool_call_begin|><function=a><parameter=<|tool_call_end|>\n[TOOL_CALLS]a[ARGS]{\"c\":null}ull,\"c[AR",
        "</think><|python_tag|>{\"name\": \"a\", \"arguments\": {\"e\": \"<minimax:tool_call>\"}}<tool_call>a</tool_call>",
        "\"to=functions.get_weather<|message|>{}<|call|>",
        "hi to=functions.get_weather<|message|>{}<|call|> \u{a0}to=functions.a<|message|>{}<|call|>",
        "to=browser.search<|channel|>commentary<|message|>{\"q\": \"x\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
        "to=browser.<<|channel|>\u{c}<|message|>{\"q>\n[TOOL_CALL]{\"name\": \"a\", \"arguments\": {}}[/TOOL_CALL]\n<|ll|>",
        "\u{fffd}\0<|arch <|constrain|>jsohanne\u{1}\0\0\u{fffd}alysis to=browser.search <|<|channel|>\0\0\0\0\0\0\0\u{c}<|message|>{\"quarthe<\u{fffd}iunction>\n[TOOL_CALL]{\"name\": \"a\", \"arguments\": {}}[/TOOL_CALL]\n<|{\"namell|>",
        "<|start|>functions.a to=assistant<|channel|>commentary<|message|>{\"r\": \"<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
        "<tool_call>{<think><function=r><parameter=</think><|python_tag|>{\"name\":\"a\"}</tool_call><|python_tag|>{\"name\":\"a\"}",
    ];

    #[test]
    fn quoted_openers_and_look_behinds_stream_as_batch() {
        for reply in QUOTED_AND_LOOKED_BACK_AT {
            every_cut(reply, false);
        }
    }
}
