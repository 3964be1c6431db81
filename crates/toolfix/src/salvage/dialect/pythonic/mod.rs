//! Pythonic calls: a Python list of calls with keyword arguments,
//! `[get_weather(city="Paris"), search(q='x', n=3)]`, as Llama 3.2 and Llama 4's model
//! cards and chat templates ask for, and as engines read it with a Python parser.
//!
//! Where it is read:
//! * the reply, once stripped, begins with such a list (Llama 3.2, most models prompted
//!   for it). Text after the list is the reply's content and is scanned for calls as usual:
//!   LFM2 writes a sentence after its call, and an engine that strips LFM2's call tokens
//!   leaves `[get_weather(city="Paris")]Checking the weather.` A list that does not read
//!   is prose (`[1] See the docs`) and falls through to the other dialects, unless the
//!   reply ends inside it (a call list cut off mid-argument is reserved); one that reads
//!   but names no offered tool is reserved;
//! * anywhere, between Llama 4's `<|python_start|>` and `<|python_end|>`, or LFM2's
//!   `<|tool_call_start|>` and `<|tool_call_end|>` (there also a JSON array of
//!   `{"name", "arguments"}` objects, LFM2's JSON mode), or Olmo 3's `<function_calls>` and
//!   `</function_calls>`, which holds one call per line without the brackets; there, a body
//!   that does not read, or whose closer never comes, makes no call and stays reserved.
//!   `<|python_end|>` alone may be missing: servers strip it as a stop token, so a complete
//!   list that ends the reply (only whitespace after it) is read as if it were closed.
//!
//! The arguments are Python literals, read and never evaluated: strings in either quote
//! (triple-quoted and `r`/`u`-prefixed too, with Python's escapes), integers (exact at
//! any size, `_` separators allowed), floats, `True`, `False`, `None`, lists, tuples (as
//! lists) and dicts with string keys, a `-` before a number. JSON's `true`, `false` and
//! `null` read as their values too: Olmo 3's template writes every value as JSON, and
//! models prompted with JSON schemas write them. Anything else (a variable, an expression,
//! a call as a value) makes the list unreadable: nothing in it runs. Values keep the type
//! they were written with; a tool's schema does not convert them (`"3"` stays a string).

mod transcode;

use std::cell::Cell;
use std::ops::Range;

use smallvec::SmallVec;

use super::super::call::{Args, Call};
use super::super::payload::Payloads;
use super::super::span::{Candidates, Found};
use super::super::{Allowlist, SalvageError};
use super::Dialect;
use super::call_array;
use super::token::{Blocks, trimmed};
use super::tokens::pythonic;
use super::whole_json::Whole;
use crate::profile::{Profile, STRICT_MAX_DEPTH};
use crate::py::unicode::strip;
use crate::py::{Dict, PyInt, PyStr, Value};

/// What a wrapper holds between its tokens.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// A pythonic list.
    List,
    /// A pythonic list, or a JSON array of call objects (LFM2).
    ListOrJson,
    /// Calls one per line, without brackets (Olmo 3).
    Lines,
}

/// The wrappers templates put around the calls, and what each holds.
const WRAPPERS: [(&[u8], &[u8], Body); 3] = [
    (
        pythonic::PYTHON_START.as_bytes(),
        pythonic::PYTHON_END.as_bytes(),
        Body::List,
    ),
    (
        pythonic::TOOL_CALL_START.as_bytes(),
        pythonic::TOOL_CALL_END.as_bytes(),
        Body::ListOrJson,
    ),
    (
        pythonic::FUNCTION_CALLS.as_bytes(),
        pythonic::FUNCTION_CALLS_CLOSE.as_bytes(),
        Body::Lines,
    ),
];

/// The whole-content form: the stripped reply begins with a list of calls. The calls of
/// the text after the list, scanned as a reply of its own, follow them.
pub fn recover_whole(
    content: &[u8],
    allowed: &Allowlist,
    profile: Profile,
) -> Result<Whole, SalvageError> {
    let stripped = strip(content);
    if stripped.first() != Some(&b'[') {
        return Ok(Whole::NotCalls);
    }
    let start = stripped.as_ptr() as usize - content.as_ptr() as usize;
    let (calls, end) = match checked_then_built(stripped, Mode::Check, |r| r.calls(0)) {
        Ok(read) => read,
        Err(reached_end) => {
            // Cut off inside a call: the list was being written, and a call quoted in the
            // argument it was cut in must not run (G4).
            let cut = reached_end && starts_with_call(stripped, 1);
            return Ok(if cut {
                Whole::Reserved
            } else {
                Whole::NotCalls
            });
        }
    };
    if calls.is_empty() && end != stripped.len() {
        return Ok(Whole::NotCalls);
    }
    let span = start..start + end;
    let mut recovered = Vec::new();
    for ((name, args), _) in calls {
        if allowed.contains(&name) {
            let position = (Dialect::Pythonic, recovered.len());
            recovered.push(Call::build(
                Value::Str(name),
                args,
                span.clone(),
                position,
                profile,
            )?);
        }
    }
    if end != stripped.len() {
        let tail = span.end;
        tail_calls(&content[tail..], tail, allowed, profile, &mut recovered)?;
    }
    Ok(match recovered.is_empty() {
        true => Whole::Reserved,
        false => Whole::Calls(recovered),
    })
}

/// The calls of the text after a leading list, which starts at `offset` of the content,
/// appended to `calls`: the scan `salvage` runs on a reply, on that text alone.
fn tail_calls(
    tail: &[u8],
    offset: usize,
    allowed: &Allowlist,
    profile: Profile,
    calls: &mut Vec<Call>,
) -> Result<(), SalvageError> {
    if !super::super::probe::has_marker(tail, profile) {
        return Ok(());
    }
    // The tail does not begin the reply, and the list before it shows that the reply did
    // not begin with reasoning.
    let settled = super::super::pass::read_rest(tail, allowed, profile)?;
    let read = super::super::calls_of(settled, calls.len(), profile)?;
    calls.extend(read.into_iter().map(|call| call.shifted(offset)));
    Ok(())
}

/// Whether more text could still make `text` (stripped at the start, beginning with `[`)
/// a whole-content list of calls: it reads so far (a list followed by any text is one: the
/// text is scanned after it), or it is a prefix of one as far as a quick look can tell:
/// `[`, then space, then a name whose `(` has not been contradicted.
pub fn may_become_whole(text: &[u8]) -> bool {
    let reader = Reader::checking(text);
    if reader.calls(0).is_some() {
        return true;
    }
    let at = reader.space(1);
    text.get(at) == Some(&b']') || call_may_start(text, at)
}

/// Adds a candidate for every call of every wrapped body.
pub fn scan(payloads: &Payloads<'_>, out: &mut Candidates) {
    let text = payloads.text();
    for (open, close, body) in WRAPPERS {
        let accept = match body {
            Body::Lines => olmo_body,
            Body::List | Body::ListOrJson => super::token::any,
        };
        for block in Blocks::new(text, open, close, accept) {
            if !block.closed {
                // Its closer may still come in a streamed reply.
                payloads.reaches_end(block.span.start);
                if !closer_may_be_stripped(body) {
                    out.push(block.span, Dialect::Pythonic, None);
                    continue;
                }
            }
            let inner = trimmed(text, block.body.clone());
            let read = checked_then_built(&text[..inner.end], Mode::Plain, |reader| match body {
                Body::Lines => reader.lines(inner.start),
                Body::List | Body::ListOrJson => reader.calls(inner.start),
            });
            match read {
                Ok((calls, end)) if end == inner.end && !calls.is_empty() => {
                    push_calls(payloads, calls, block.span, out);
                }
                _ if body == Body::ListOrJson && text.get(inner.start) == Some(&b'[') => {
                    push_json(payloads, inner, block.span, out);
                }
                _ => out.push(block.span, Dialect::Pythonic, None),
            }
        }
    }
}

/// Whether a block of `body` whose closer never came is still read: Llama 4's
/// `<|python_end|>` ends the model's turn, and a server that strips it as a stop token
/// leaves the list the last thing in the reply. Its body must then read whole, as a closed
/// one does, so only a complete list followed by nothing but whitespace is a call.
fn closer_may_be_stripped(body: Body) -> bool {
    body == Body::List
}

/// Whether an Olmo 3 `<function_calls>` body starting at `body` begins with a call, or
/// the text ends before saying: other formats use the same tag (Claude's XML), and a tag
/// in prose must not reserve the rest of the reply.
fn olmo_body(text: &[u8], body: usize) -> bool {
    call_may_start(text, body)
}

/// Whether a call may start at `at` (after whitespace) as far as a quick look can tell:
/// the text ends there, or a name follows whose `(` has not been contradicted.
fn call_may_start(text: &[u8], at: usize) -> bool {
    let reader = Reader::checking(text);
    let at = reader.space(at);
    if at == text.len() {
        return true;
    }
    match reader.identifier(at) {
        Some(end) => {
            let after = reader.space(end);
            after == text.len() || text[after] == b'('
        }
        None => false,
    }
}

/// Whether `NAME(` starts at `at`, whitespace allowed before the name and before the
/// parenthesis.
fn starts_with_call(text: &[u8], at: usize) -> bool {
    let reader = Reader::checking(text);
    reader
        .identifier(reader.space(at))
        .is_some_and(|end| reader.0.get(reader.space(end)) == Some(&b'('))
}

/// The calls read from a wrapper's body, each its own candidate (the first from the
/// start of `span`, the last to its end), as `call_array` reads a JSON list.
fn push_calls(
    payloads: &Payloads<'_>,
    calls: SpannedCalls,
    span: Range<usize>,
    out: &mut Candidates,
) {
    let last = calls.len() - 1;
    for (k, ((name, args), call)) in calls.into_iter().enumerate() {
        let from = if k == 0 { span.start } else { call.start };
        let to = if k == last { span.end } else { call.end };
        out.push(
            from..to,
            Dialect::Pythonic,
            payloads.allows(&name).then_some(Found { name, args }),
        );
    }
}

/// LFM2's JSON mode: the body at `inner` is a JSON array of call objects, read as
/// `call_array` reads one; it must fill the body.
fn push_json(
    payloads: &Payloads<'_>,
    inner: Range<usize>,
    span: Range<usize>,
    out: &mut Candidates,
) {
    match call_array::read(payloads, span.start, inner.start, Dialect::Pythonic) {
        Ok((mut read, end)) if end == inner.end => {
            if let Some(last) = read.last_mut() {
                last.span.end = span.end;
            }
            out.append(&mut read);
        }
        _ => out.push(span, Dialect::Pythonic, None),
    }
}

/// A call as read: its name and its keyword arguments, as a dict or as the `json.dumps`
/// of one (`transcode`).
type Read = (PyStr, Args);

/// A call as read and its span.
type Spanned = (Read, Range<usize>);

/// The calls of a list or body as read: most hold one, kept inline, so reading a flood
/// of one-call lists (checked, then built) allocates no vector for them.
type SpannedCalls = SmallVec<[Spanned; 1]>;

/// What `read` gives when the syntax reads, read first in mode `first`: `Check`, and
/// then again building the values, so a long list that fails late (a call broken at the
/// end of the reply) costs one pass that allocates nothing; or `Plain`, for a list that
/// is likely whole (its wrapper closed), so a flood of plain calls takes one pass, and
/// only from a call that is not plain on is the syntax checked and then read again.
/// When it does not read, whether reading ran into the end of the text.
fn checked_then_built<T>(
    text: &[u8],
    first: Mode,
    read: impl Fn(&Reader<'_>) -> Option<T>,
) -> Result<T, bool> {
    let reader = Reader(text, Cell::new(0), Cell::new(first));
    let Some(read_once) = read(&reader) else {
        return Err(reader.reached_end());
    };
    if reader.2.get() == Mode::Plain {
        return Ok(read_once);
    }
    read(&Reader::new(text)).ok_or(false)
}

/// Reads Python literal syntax out of a byte string, and remembers how far it looked, so
/// a failure at the end of the text (a cut-off reply) can be told from a syntax error.
/// The third field says what becomes of the values read.
struct Reader<'t>(&'t [u8], Cell<usize>, Cell<Mode>);

/// What a reader makes of the arguments it reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Only their syntax is read: every string, list and dict comes back empty, every
    /// other value `None`.
    Check,
    /// A plain call's arguments are written as their `json.dumps` (`transcode`); at the
    /// first call that is not plain the reader turns to `Check`, since the values must
    /// then be read again and built.
    Plain,
    /// They are built into values (the reference the tests hold `Write` to).
    #[cfg(test)]
    Build,
    /// A plain call's arguments are written as their `json.dumps` (`transcode`); the
    /// others are built.
    Write,
}

impl<'t> Reader<'t> {
    /// A reader that writes or builds the values it reads.
    fn new(text: &'t [u8]) -> Reader<'t> {
        Reader(text, Cell::new(0), Cell::new(Mode::Write))
    }

    /// A reader that only checks the syntax.
    fn checking(text: &'t [u8]) -> Reader<'t> {
        Reader(text, Cell::new(0), Cell::new(Mode::Check))
    }

    /// Whether values are built (or written).
    fn builds(&self) -> bool {
        !matches!(self.2.get(), Mode::Check | Mode::Plain)
    }

    /// `bytes` as a string, when values are built.
    fn text(&self, bytes: &[u8]) -> PyStr {
        match self.builds() {
            true => PyStr::from_generalized_utf8(bytes),
            false => PyStr::new(),
        }
    }

    /// The byte at `i`, noting that the reader looked there.
    fn byte(&self, i: usize) -> Option<u8> {
        self.touch(i);
        self.0.get(i).copied()
    }

    /// Notes that the reader looked at offset `i`.
    fn touch(&self, i: usize) {
        if i > self.1.get() {
            self.1.set(i);
        }
    }

    /// Whether reading ran into the end of the text.
    fn reached_end(&self) -> bool {
        self.1.get() >= self.0.len()
    }

    /// `[call, …]` at `i`: the calls with their spans, and the end of the list.
    fn calls(&self, i: usize) -> Option<(SpannedCalls, usize)> {
        let mut i = self.expect(i, b'[')?;
        let mut calls = SpannedCalls::new();
        loop {
            i = self.space(i);
            if self.byte(i) == Some(b']') {
                return Some((calls, i + 1));
            }
            let (call, end) = self.call(i)?;
            self.keep(&mut calls, call, i..end);
            i = self.space(end);
            match self.byte(i)? {
                b',' => i += 1,
                b']' => return Some((calls, i + 1)),
                _ => return None,
            }
        }
    }

    /// Calls one per line from `i` to the end of the text (Olmo 3's body): each call
    /// after the first starts on a new line.
    fn lines(&self, mut i: usize) -> Option<(SpannedCalls, usize)> {
        let (start, mut calls) = (i, SpannedCalls::new());
        loop {
            let next = self.space(i);
            if next == self.0.len() {
                return Some((calls, next));
            }
            if i != start && !self.0[i..next].contains(&b'\n') {
                return None;
            }
            let (call, end) = self.call(next)?;
            self.keep(&mut calls, call, next..end);
            i = end;
        }
    }

    /// Adds a call read to `calls`, unless only the syntax is being checked: what a check
    /// reads is read again, and a flood of calls that fails at its end then costs no
    /// vector of empty calls.
    fn keep(&self, calls: &mut SpannedCalls, call: Read, span: Range<usize>) {
        if self.2.get() != Mode::Check {
            calls.push((call, span));
        }
    }

    /// `NAME(key=value, …)` at `i`.
    fn call(&self, i: usize) -> Option<(Read, usize)> {
        if matches!(self.2.get(), Mode::Write | Mode::Plain) {
            if let Some((name, args, end)) = transcode::call(self.0, i) {
                self.touch(end);
                return Some(((name, Args::Written(args)), end));
            }
            if self.2.get() == Mode::Plain {
                self.2.set(Mode::Check);
            }
        }
        let name_end = self.identifier(i)?;
        let name = self.text(&self.0[i..name_end]);
        let mut i = self.expect(self.space(name_end), b'(')?;
        let mut args = Dict::default();
        loop {
            i = self.space(i);
            if self.byte(i) == Some(b')') {
                return Some(((name, Args::Decoded(Value::Dict(args))), i + 1));
            }
            let key_end = self.identifier(i)?;
            let key = self.text(&self.0[i..key_end]);
            let eq = self.expect(self.space(key_end), b'=')?;
            let (value, end) = self.value(eq, 0)?;
            if self.builds() {
                args.insert(key, value);
            }
            i = self.space(end);
            match self.byte(i)? {
                b',' => i += 1,
                b')' => return Some(((name, Args::Decoded(Value::Dict(args))), i + 1)),
                _ => return None,
            }
        }
    }

    /// A literal at `i` (after whitespace) and its end.
    fn value(&self, i: usize, depth: usize) -> Option<(Value, usize)> {
        if depth > STRICT_MAX_DEPTH {
            return None;
        }
        let i = self.space(i);
        match self.byte(i)? {
            b'[' => self.sequence(i + 1, b']', depth + 1),
            b'(' => self.sequence(i + 1, b')', depth + 1),
            b'{' => self.dict(i + 1, depth + 1),
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(i),
            b'"' | b'\'' => self.string(i, false),
            b'r' | b'R' | b'u' | b'U' if matches!(self.0.get(i + 1), Some(b'"' | b'\'')) => {
                self.string(i + 1, matches!(self.0[i], b'r' | b'R'))
            }
            _ => self.constant(i),
        }
    }

    /// `[a, b]` or `(a, b)` after its opener, as a list. Parentheses around one value and
    /// no comma are no tuple: `(1)` is `1`, as Python reads it (`(1,)` is a tuple).
    fn sequence(&self, mut i: usize, close: u8, depth: usize) -> Option<(Value, usize)> {
        let (mut items, mut count, mut first) = (Vec::new(), 0, None);
        loop {
            i = self.space(i);
            if self.byte(i) == Some(close) {
                return Some((Value::List(items), i + 1));
            }
            let (value, end) = self.value(i, depth)?;
            count += 1;
            // Without building, the first item is still kept (`(x)` is `x`), out of the
            // list, which then allocates nothing.
            match self.builds() {
                true => items.push(value),
                false => _ = first.get_or_insert(value),
            }
            i = self.space(end);
            match self.byte(i)? {
                b',' => i += 1,
                b')' if close == b')' && count == 1 => {
                    return Some((first.or_else(|| items.pop())?, i + 1));
                }
                c if c == close => return Some((Value::List(items), i + 1)),
                _ => return None,
            }
        }
    }

    /// `{key: value, …}` after its `{`; every key must be a string.
    fn dict(&self, mut i: usize, depth: usize) -> Option<(Value, usize)> {
        let mut dict = Dict::default();
        loop {
            i = self.space(i);
            if self.byte(i) == Some(b'}') {
                return Some((Value::Dict(dict), i + 1));
            }
            let (Value::Str(key), key_end) = self.value(i, depth)? else {
                return None;
            };
            let colon = self.expect(self.space(key_end), b':')?;
            let (value, end) = self.value(colon, depth)?;
            if self.builds() {
                dict.insert(key, value);
            }
            i = self.space(end);
            match self.byte(i)? {
                b',' => i += 1,
                b'}' => return Some((Value::Dict(dict), i + 1)),
                _ => return None,
            }
        }
    }

    /// `True`, `False` or `None` at `i`, or JSON's `true`, `false` or `null`.
    fn constant(&self, i: usize) -> Option<(Value, usize)> {
        let end = self.identifier(i)?;
        let value = match &self.0[i..end] {
            b"True" | b"true" => Value::Bool(true),
            b"False" | b"false" => Value::Bool(false),
            b"None" | b"null" => Value::None,
            _ => return None,
        };
        Some((value, end))
    }

    /// A decimal integer or float literal at `i`, with an optional sign.
    fn number(&self, i: usize) -> Option<(Value, usize)> {
        let sign = usize::from(matches!(self.0[i], b'-' | b'+'));
        let len = self.0[i + sign..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-'))
            .count();
        let end = i + sign + len;
        self.touch(end);
        let digits = &self.0[i + sign..end];
        if digits.is_empty() {
            // A sign alone is no number, to the check as to the build.
            return None;
        }
        if !self.builds() && plain_int(digits) {
            // What most numbers are; only whether it reads counts.
            return Some((Value::None, end));
        }
        let literal = std::str::from_utf8(digits).ok()?;
        let negative = self.0[i] == b'-';
        Some((number_value(literal, negative, self.builds())?, end))
    }

    /// A string literal whose opening quote is at `i`.
    fn string(&self, i: usize, raw: bool) -> Option<(Value, usize)> {
        let quote = self.0[i];
        let triple = self.0[i..].starts_with(&[quote; 3]);
        let delimiter: &[u8] = if triple {
            &self.0[i..i + 3]
        } else {
            &self.0[i..i + 1]
        };
        let mut j = i + delimiter.len();
        let mut out = PyStr::new();
        loop {
            let b = self.byte(j)?;
            if self.0[j..].starts_with(delimiter) {
                return Some((Value::Str(out), j + delimiter.len()));
            }
            if b == b'\n' && !triple {
                return None;
            }
            if b == b'\\' {
                // An escape cut off by the end of the text is a cut-off string.
                self.touch(j + 2);
                j = escape(self.0, j, raw, &mut out)?;
                if !self.builds() {
                    out = PyStr::new();
                }
                continue;
            }
            let (cp, len) = super::super::text::cp_at(self.0, j)?;
            if self.builds() {
                out.push(cp);
            }
            j += len;
        }
    }

    /// The end of the identifier at `i` (ASCII letters, digits and `_`, not starting with
    /// a digit).
    fn identifier(&self, i: usize) -> Option<usize> {
        let first = self.byte(i)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let len = self.0[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        self.touch(i + len);
        Some(i + len)
    }

    /// The end of `byte` at `i`.
    fn expect(&self, i: usize, byte: u8) -> Option<usize> {
        (self.byte(i) == Some(byte)).then_some(i + 1)
    }

    /// The first offset at or after `i` that is not ASCII whitespace.
    fn space(&self, mut i: usize) -> usize {
        while self.0.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        self.touch(i);
        i
    }
}

/// Whether `digits` is an `int` literal of plain digits Python reads: not `007`.
fn plain_int(digits: &[u8]) -> bool {
    match digits {
        [b'0'..=b'9'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// The value of a Python number literal (without its sign): an `int` when it is digits
/// (with `_` between digits), else a `float` Python would read. Without `build`, `None`
/// for either: only whether it reads counts.
fn number_value(literal: &str, negative: bool, build: bool) -> Option<Value> {
    let valid_underscores = !literal.starts_with('_')
        && !literal.ends_with('_')
        && !literal.contains("__")
        && literal
            .as_bytes()
            .windows(2)
            .all(|w| !(w.contains(&b'_') && !(w[0].is_ascii_digit() || w[1].is_ascii_digit())));
    if !valid_underscores {
        return None;
    }
    let plain = match literal.contains('_') {
        true => std::borrow::Cow::Owned(literal.chars().filter(|&c| c != '_').collect()),
        false => std::borrow::Cow::Borrowed(literal),
    };
    if plain.bytes().all(|b| b.is_ascii_digit()) {
        // Python rejects leading zeros on a non-zero integer (`007`).
        if plain.len() > 1 && plain.starts_with('0') && plain.bytes().any(|b| b != b'0') {
            return None;
        }
        if !build {
            return Some(Value::None);
        }
        let int = match negative {
            true => PyInt::from_decimal(&format!("-{plain}")),
            false => PyInt::from_decimal(&plain),
        };
        return int.map(Value::Int);
    }
    let is_float_syntax = plain
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && plain.bytes().any(|b| b.is_ascii_digit());
    if !is_float_syntax {
        return None;
    }
    let value: f64 = plain.parse().ok()?;
    Some(Value::Float(if negative { -value } else { value }))
}

/// Reads the escape sequence whose `\` is at `i` into `out`; returns where the string
/// goes on. In a raw string the backslash and the character after it are kept.
fn escape(text: &[u8], i: usize, raw: bool, out: &mut PyStr) -> Option<usize> {
    let &next = text.get(i + 1)?;
    if raw {
        out.push(u32::from(b'\\'));
        let (cp, len) = super::super::text::cp_at(text, i + 1)?;
        out.push(cp);
        return Some(i + 1 + len);
    }
    let simple = match next {
        b'\n' => return Some(i + 2),
        b'\\' => Some('\\'),
        b'\'' => Some('\''),
        b'"' => Some('"'),
        b'a' => Some('\x07'),
        b'b' => Some('\x08'),
        b'f' => Some('\x0c'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        b'v' => Some('\x0b'),
        _ => None,
    };
    if let Some(c) = simple {
        out.push(c as u32);
        return Some(i + 2);
    }
    let hex_len = match next {
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        b'0'..=b'7' => return octal(text, i + 1, out),
        _ => {
            // Python keeps an unknown escape as written, backslash included.
            out.push(u32::from(b'\\'));
            return Some(i + 1);
        }
    };
    let digits = text.get(i + 2..i + 2 + hex_len)?;
    let cp = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
    if cp > 0x10FFFF || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    out.push(cp);
    Some(i + 2 + hex_len)
}

/// An octal escape of one to three digits starting at `i`.
fn octal(text: &[u8], i: usize, out: &mut PyStr) -> Option<usize> {
    let len = text[i..]
        .iter()
        .take(3)
        .take_while(|b| (b'0'..=b'7').contains(b))
        .count();
    let cp = u32::from_str_radix(std::str::from_utf8(&text[i..i + len]).ok()?, 8).ok()?;
    out.push(cp);
    Some(i + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Vec<(String, String)>> {
        let (calls, end) = Reader::new(text.as_bytes()).calls(0)?;
        (end == text.len()).then(|| {
            calls
                .into_iter()
                .map(|((n, a), _)| (n.to_string(), super::super::argument_string(a)))
                .collect()
        })
    }

    #[test]
    fn reads_literals_as_python_does() {
        let calls = read(
            r#"[get_weather(city="Paris", days=3), search(q='it''s', n=-1.5e3, ok=True, none=None, tags=["a", ('b',)], meta={"k": 1_000})]"#,
        );
        assert_eq!(calls, None, "adjacent literals are an expression");
        let calls = read(
            r#"[get_weather(city="Paris", days=3), search(q='it\'s\n', n=-1.5e3, ok=True, none=None, tags=["a", ('b',)], meta={"k": 1_000})]"#,
        )
        .unwrap();
        assert_eq!(
            calls[0],
            (
                "get_weather".into(),
                r#"{"city": "Paris", "days": 3}"#.into()
            )
        );
        assert_eq!(
            calls[1].1,
            r#"{"q": "it's\n", "n": -1500.0, "ok": true, "none": null, "tags": ["a", ["b"]], "meta": {"k": 1000}}"#
        );
    }

    #[test]
    fn strings_quotes_and_escapes() {
        let calls = read(r#"[f(a="""x"y""", b=r'\d+', c='\x41\u00e9\101', d='\q')]"#).unwrap();
        assert_eq!(
            calls[0].1,
            r#"{"a": "x\"y", "b": "\\d+", "c": "A\u00e9A", "d": "\\q"}"#
        );
    }

    #[test]
    fn parentheses_around_one_value_are_no_tuple() {
        let calls = read("[f(a=(1), b=(1,), c=(), d=((2)), e=(1, 2))]").unwrap();
        assert_eq!(
            calls[0].1,
            r#"{"a": 1, "b": [1], "c": [], "d": 2, "e": [1, 2]}"#
        );
    }

    #[test]
    fn expressions_do_not_read() {
        for text in [
            "[f(a=b)]",
            "[f(a=1+2)]",
            "[f(a=g())]",
            "[f(1)]",
            "[f(a=007)]",
            "[f(a=-)]",
            "[f(a=[-\t])]",
            "[f(a=1__0)]",
            "[f(a='x)]",
            "[f(a={1: 2})]",
            "[f(a=1)",
        ] {
            assert_eq!(read(text), None, "{text}");
            let checked = Reader::checking(text.as_bytes()).calls(0);
            assert!(checked.is_none(), "{text}: the check reads it");
        }
        assert_eq!(read("[]"), Some(vec![]));
    }

    #[test]
    fn json_literals_read_as_their_values() {
        let calls = read("[f(a=true, b=false, c=null, d=[true])]").unwrap();
        assert_eq!(
            calls[0].1,
            r#"{"a": true, "b": false, "c": null, "d": [true]}"#
        );
        assert_eq!(read("[f(a=TRUE)]"), None);
    }

    #[test]
    fn olmo_lines_need_a_newline_between_calls() {
        let lines = |text: &str| {
            Reader::new(text.as_bytes())
                .lines(0)
                .map(|(calls, _)| calls.len())
        };
        assert_eq!(lines("f(a=1)\n  g(b=\"x\")\n"), Some(2));
        assert_eq!(lines("f(a=1) g(b=2)"), None);
        assert_eq!(lines("f(a=1)\ng(b="), None);
    }

    #[test]
    fn a_cut_off_list_is_told_from_a_syntax_error() {
        for (text, cut) in [
            (r#"[f(a="never closed"#, true),
            (r#"[f(a="x", b=[1, 2"#, true),
            (r#"[f(a="x\"#, true),
            ("[f(a=12", true),
            ("[f(a=b) and more", false),
            ("[1] See the docs", false),
            ("[f(a=1)] tail", false),
        ] {
            let reader = Reader::new(text.as_bytes());
            let failed = reader.calls(0).is_none();
            assert_eq!(failed && reader.reached_end(), cut, "{text}");
        }
    }

    /// The calls of `scan` over `text`, and the span of every candidate.
    fn scanned(text: &str) -> (Vec<(String, String)>, Vec<Range<usize>>) {
        super::super::scanned_by(scan, text)
    }

    #[test]
    fn wrappers_lfm2_json_and_olmo_lines() {
        let (calls, _) = scanned(
            r#"<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>"#,
        );
        assert_eq!(
            calls,
            [("get_weather".into(), r#"{"city": "Paris"}"#.into())]
        );
        let (calls, _) = scanned(
            "<function_calls>get_weather(city=\"Paris\")\nsearch(q=\"x\", n=null)</function_calls>",
        );
        assert_eq!(calls.len(), 2);
        // Claude's XML under the same tag is not Olmo's, and reserves nothing.
        let (calls, spans) = scanned("<function_calls><invoke name=\"search\">");
        assert!(calls.is_empty() && spans.is_empty());
        // JSON is LFM2's only: Llama 4's tokens hold a pythonic list.
        let (calls, spans) =
            scanned(r#"<|python_start|>[{"name": "search", "arguments": {}}]<|python_end|>"#);
        assert!(calls.is_empty());
        assert_eq!(spans.len(), 1);
    }

    #[test]
    fn many_openers_without_a_closer_take_one_pass() {
        for opener in [
            "<function_calls>f(",
            "<|tool_call_start|>[",
            "<|python_start|>[",
        ] {
            let text = opener.repeat(50_000);
            let (calls, spans) = scanned(&text);
            assert!(calls.is_empty());
            assert_eq!(
                spans,
                vec![Range {
                    start: 0,
                    end: text.len()
                }],
                "{opener}"
            );
        }
    }

    #[test]
    fn a_leading_list_then_text_scanned_as_a_reply() {
        let tools = Allowlist::new(["get_weather", "search"]);
        let text = "[get_weather(city=\"Antwerp\")]Checking.\n<tool_call>{\"name\": \"search\", \"arguments\": {}}</tool_call>";
        let Whole::Calls(calls) = recover_whole(text.as_bytes(), &tools, Profile::Strict).unwrap()
        else {
            panic!("no calls");
        };
        let names: Vec<_> = calls.iter().map(|c| c.name_str().unwrap()).collect();
        assert_eq!(names, ["get_weather", "search"]);
        assert_eq!(
            &text[calls[1].span().clone()],
            &text[text.find('<').unwrap()..]
        );
        let cut = "[search(q=\"<function=get_weather>{}</function>";
        assert!(matches!(
            recover_whole(cut.as_bytes(), &tools, Profile::Strict).unwrap(),
            Whole::Reserved
        ));
    }
}
