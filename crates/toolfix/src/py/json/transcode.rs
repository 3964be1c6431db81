//! `json.dumps(json.loads(text))` written straight from the text, for the JSON a call's
//! arguments almost always are.
//!
//! Decoding a payload into a [`Value`] and encoding it again allocates a map, a key and a
//! value per member, then a string; for a reply of thousands of calls that is most of the
//! time salvage takes. Plain JSON needs none of it: its `dumps` is the text itself with
//! CPython's separators, non-ASCII escaped and whitespace dropped. This module writes that
//! text in one pass (nothing at all while it is the source byte for byte, as it is when a
//! model writes `dumps`'s own spacing, so a short payload never allocates; a run of
//! members written so, `"key": value, …`, each value a scalar or a flat object of such
//! members, is read by one tight loop and copied at once, and [`transcode_flat_first`]
//! reads an object that is only such a run with no writer at all) and gives up, leaving
//! the value to the full decoder, on anything whose round
//! trip is not a copy:
//! * a number with a fraction or an exponent (`repr` of a float), more than 18 digits
//!   or than the decoder's digit limit, `-0` (written `0`), or `NaN`/`Infinity`;
//! * a string holding a `\u` or `\/` escape, a lone surrogate (two would read back as
//!   one character), `DEL` or a raw control character (an error);
//! * an object key holding an escape, an object with a key written twice (the last value
//!   wins, at the first position) or with more keys than are cheap to compare;
//! * nesting deeper than [`MAX_DEPTH`] or than the decoder's limit;
//! * anything that is not JSON.
//!
//! What it accepts the decoder accepts, ending at the same offset, so giving up never
//! costs more than reading the text twice, and what it writes reads back as the value
//! the decoder gives, so that value can be decoded when it is asked for. When it gives up
//! because no JSON reads there (a byte no value may start with or follow, a string the
//! text ends in), it says so ([`GaveUp::NotJson`]), and [`raw_decode_after`] finds the
//! decoder's error without building the values a failed decode drops: a reply cut inside
//! an argument, or one that writes a quote where JSON wants a comma, costs no
//! allocation. All three, and `transcode(x) == dumps(loads(x))`, are checked on every
//! input of the `pyjson` fuzz target.

use std::ops::Range;

use smallvec::SmallVec;

use super::decode::{loads, raw_check, raw_decode};
use super::encode::u_escape;
use super::{DecodeError, DecodeLimits};
use crate::py::pystr::{code_point_len, decode_code_point};
use crate::py::{PyStr, Value};

/// Containers open at once beyond which the full decoder takes over.
pub const MAX_DEPTH: usize = 16;

/// Keys in one object beyond which the full decoder takes over (duplicates are found by
/// comparing every pair).
const MAX_KEYS: usize = 16;

/// Digits an integer may have: any `int` of 18 digits prints as written.
const MAX_DIGITS: usize = 18;

/// A JSON value read and written as `json.dumps(json.loads(…))` writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcoded<'t> {
    /// The value as `json.dumps` writes it.
    written: Written<'t>,
    /// Where the value ends in the source text.
    pub end: usize,
    /// When the value is an object, its members in order (keys are unique). A call
    /// object has two (`name`, `arguments`), so two are kept inline; a value small enough
    /// to move without a call to `memcpy` is moved several times per recovered call.
    pub members: SmallVec<[Member; 2]>,
}

/// Where what `json.dumps` writes is: most payloads are written as `dumps` writes them
/// (its separators, no other whitespace, ASCII), and then they are their own text, with
/// nothing copied until a call keeps them.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Written<'t> {
    /// A run of the source, byte for byte.
    Source(&'t [u8]),
    /// Bytes of its own, from the first one that differs from the source.
    Own(Vec<u8>),
}

/// One member of a transcoded object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The key's text in the source, quotes excluded (it holds no escape, so these bytes
    /// are the key).
    pub key: Range<usize>,
    /// The value's text in [`Transcoded::text`].
    pub value: Range<usize>,
}

impl Transcoded<'_> {
    /// The value as `json.dumps` writes it (ASCII).
    pub fn text(&self) -> &[u8] {
        match &self.written {
            Written::Source(run) => run,
            Written::Own(bytes) => bytes,
        }
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        self.text().first() == Some(&b'{')
    }

    /// The value of member `key` (its bytes, a `str` or a `PyStr`'s), as `json.dumps`
    /// writes it.
    pub fn get(&self, source: &[u8], key: impl AsRef<[u8]>) -> Option<&[u8]> {
        self.member(source, key)
            .map(|m| &self.text()[m.value.clone()])
    }

    /// Member `key`.
    pub fn member(&self, source: &[u8], key: impl AsRef<[u8]>) -> Option<&Member> {
        let key = key.as_ref();
        self.members.iter().find(|m| &source[m.key.clone()] == key)
    }

    /// The value as a `str`: its own bytes, or a copy of its run of the source (inline
    /// when it is short, as most arguments are).
    pub fn into_text(self) -> PyStr {
        match self.written {
            Written::Source(run) => PyStr::from_generalized_utf8(run),
            Written::Own(bytes) => PyStr::from_generalized_utf8_unchecked(bytes),
        }
    }

    /// The text of `member`'s value as a `str`, taken from the whole value's text (empty
    /// for a member of another value that does not fit in this one's text).
    pub fn into_value_text(self, member: &Member) -> PyStr {
        let Some(value) = self.text().get(member.value.clone()) else {
            return PyStr::new();
        };
        match self.written {
            Written::Source(_) => PyStr::from_generalized_utf8(value),
            Written::Own(mut bytes) => {
                bytes.truncate(member.value.end);
                bytes.drain(..member.value.start);
                PyStr::from_generalized_utf8_unchecked(bytes)
            }
        }
    }
}

/// Why [`transcode`] left a value to the full decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// What is there may be JSON whose round trip is not a copy (see the module's list).
    Unplain,
    /// No JSON value reads there: the decoder raises.
    NotJson,
}

/// [`transcode`] for a call object or a call's arguments, which are most often an object
/// of plain members, scalars or (one level down) flat objects: `{"city": "Paris", "days":
/// 3}`, `{"name": "f", "arguments": {"x": 1}}`. Such an object is read by one loop and
/// is its own text, with none of the writer's steps; anything else goes to
/// [`transcode`], which reads it again from the start.
pub fn transcode_flat_first(
    text: &[u8],
    pos: usize,
    limits: DecodeLimits,
) -> Result<Transcoded<'_>, GaveUp> {
    if let Some(nest) = flat_nesting(limits) {
        if let Some(flat) = flat_object(text, pos, max_digits(limits), nest) {
            return Ok(flat);
        }
    }
    transcode(text, pos, limits)
}

/// [`transcode_flat_first`] for arguments that must be an object, when only their text is
/// wanted: the text when they are an object (`None` for another value), and where they
/// end. A flat object's members are not kept: moving a [`Transcoded`] with its members
/// just after writing them cost more than reading the object.
pub fn transcode_object_text(
    text: &[u8],
    pos: usize,
    limits: DecodeLimits,
) -> Result<(Option<PyStr>, usize), GaveUp> {
    if let Some(nest) = flat_nesting(limits) {
        if let Some(end) = flat_object_end(text, pos, max_digits(limits), nest, |_| ()) {
            return Ok((Some(PyStr::from_generalized_utf8(&text[pos..end])), end));
        }
    }
    let plain = transcode(text, pos, limits)?;
    let end = plain.end;
    Ok((plain.is_object().then(|| plain.into_text()), end))
}

/// Whether the flat loop may read an object under `limits` (`Some`: one container fits),
/// and whether a member's value may then be a flat object too (two fit).
fn flat_nesting(limits: DecodeLimits) -> Option<bool> {
    (limits.max_depth > 0).then_some(limits.max_depth > 1)
}

/// Digits an integer may have for its round trip to be a copy: [`MAX_DIGITS`], or fewer
/// under the decoder's limit.
fn max_digits(limits: DecodeLimits) -> usize {
    limits
        .int_max_str_digits
        .unwrap_or(MAX_DIGITS)
        .min(MAX_DIGITS)
}

/// The value that starts exactly at `pos` of `text`, written as `json.dumps` of
/// `raw_decode(text, pos)` writes it, when the round trip is a copy; otherwise why the
/// full decoder must decide (see the module's list).
pub fn transcode(text: &[u8], pos: usize, limits: DecodeLimits) -> Result<Transcoded<'_>, GaveUp> {
    let mut writer = Writer {
        text,
        at: pos,
        out: Out {
            source: text,
            start: pos,
            to: pos,
            own: None,
        },
        max_depth: limits.max_depth.min(MAX_DEPTH),
        max_digits: max_digits(limits),
        members: SmallVec::new(),
        not_json: false,
    };
    if writer.value(0).is_none() {
        return Err(if writer.not_json {
            GaveUp::NotJson
        } else {
            GaveUp::Unplain
        });
    }
    let Out { start, to, own, .. } = writer.out;
    Ok(Transcoded {
        written: match own {
            Some(bytes) => Written::Own(bytes),
            None => Written::Source(&text[start..to]),
        },
        end: writer.at,
        members: writer.members,
    })
}

/// A member `dumps` writes as it is: `"key": value` followed by `, "` or by the object's
/// `}`, where the value is a plain scalar or, one level down, a flat object (the
/// arguments of a call object, `{"name": "f", "arguments": {"x": 1}}`).
struct PlainMember {
    /// The key's text, quotes excluded.
    key: Range<usize>,
    /// The value's text.
    value: Range<usize>,
    /// Where the next member starts, or after the `}`.
    next: usize,
    /// Whether the object closes after it.
    closes: bool,
}

/// The member at `at` when `dumps` writes it as it is (`PlainMember`); its value may be
/// a flat object when `nest` (one more container fits under the depth limit).
#[inline(always)]
fn plain_member(text: &[u8], at: usize, max_digits: usize, nest: bool) -> Option<PlainMember> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    let key_end = plain_string_end(text, at + 1)?;
    let start = key_end + 3;
    if text.get(key_end + 1..start) != Some(b": ") {
        return None;
    }
    let end = match text.get(start) {
        Some(b'{') if nest => nested_flat_object_end(text, start, max_digits)?,
        _ => plain_scalar_end(text, start, max_digits)?,
    };
    let (next, closes) = match text.get(end..end + 3) {
        Some([b',', b' ', b'"']) => (end + 2, false),
        _ if text.get(end) == Some(&b'}') => (end + 1, true),
        _ => return None,
    };
    Some(PlainMember {
        key: at + 1..key_end,
        value: start..end,
        next,
        closes,
    })
}

/// The object at `pos` when all of it is plain members (`plain_member`), as most
/// arguments are: read with none of the writer's steps, it is its own text. Anything else
/// (`{}` too) is left to the writer, which reads it from the start.
fn flat_object(text: &[u8], pos: usize, max_digits: usize, nest: bool) -> Option<Transcoded<'_>> {
    let mut members = SmallVec::new();
    let end = flat_object_end(text, pos, max_digits, nest, |member| {
        members.push(Member {
            key: member.key,
            value: member.value.start - pos..member.value.end - pos,
        })
    })?;
    Some(Transcoded {
        written: Written::Source(&text[pos..end]),
        end,
        members,
    })
}

/// Where the object at `pos` ends when all of it is plain members (`flat_object`), each
/// given to `each` in order; `nest` lets a member's value be a flat object.
#[inline(always)]
fn flat_object_end(
    text: &[u8],
    pos: usize,
    max_digits: usize,
    nest: bool,
    mut each: impl FnMut(PlainMember),
) -> Option<usize> {
    if text.get(pos) != Some(&b'{') {
        return None;
    }
    let mut keys = SmallVec::<[Range<usize>; MAX_KEYS]>::new();
    let mut at = pos + 1;
    loop {
        let member = plain_member(text, at, max_digits, nest)?;
        if keys.len() == MAX_KEYS {
            return None;
        }
        new_key(text, &mut keys, &member.key)?;
        at = member.next;
        let closes = member.closes;
        each(member);
        if closes {
            return Some(at);
        }
    }
}

/// Where the flat object at `pos` ends, as a member's value: its members' values are
/// scalars.
fn nested_flat_object_end(text: &[u8], pos: usize, max_digits: usize) -> Option<usize> {
    flat_object_end(text, pos, max_digits, false, |_| ())
}

/// Adds `key` to the `keys` of an object, or `None` when it is there already: the last
/// value would win, at the first key's place, so the round trip is not a copy.
fn new_key(
    text: &[u8],
    keys: &mut SmallVec<[Range<usize>; MAX_KEYS]>,
    key: &Range<usize>,
) -> Option<()> {
    if keys.iter().any(|k| text[k.clone()] == text[key.clone()]) {
        return None;
    }
    keys.push(key.clone());
    Some(())
}

/// Where the string whose body starts at `at` ends (its closing quote), when every byte
/// before that is printable ASCII other than `\`: its `dumps` is itself.
fn plain_string_end(text: &[u8], at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    let mut words = rest.chunks_exact(8);
    let mut len = 0;
    for word in &mut words {
        let stop = stops(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if stop != 0 {
            len += stop.trailing_zeros() as usize / 8;
            return (rest[len] == b'"').then_some(at + len);
        }
        len += 8;
    }
    len += words
        .remainder()
        .iter()
        .position(|&b| !plain(b) || b == b'"')?;
    (rest[len] == b'"').then_some(at + len)
}

/// The high bit of every byte of the little-endian word `w` that ends a run of
/// [`plain`] string bytes (a `"`, a `\`, a control byte, `DEL`, a byte of a non-ASCII
/// character), eight bytes at a time; above the first such byte, bits may be set for
/// bytes that are plain (a borrow), so only the lowest is meant.
fn stops(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let below = |n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH;
    let equal = |b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    below(0x20) | equal(b'"') | equal(b'\\') | equal(0x7F) | (w & HIGH)
}

/// Whether `dumps` writes byte `b` of a string as it is (`"` aside).
fn plain(b: u8) -> bool {
    matches!(b, 0x20..=0x7E) && b != b'\\'
}

/// Where the scalar at `at` ends when `dumps` writes it as it is: a string of
/// [`plain`] bytes, an integer ([`integer_end`]), or a literal.
fn plain_scalar_end(text: &[u8], at: usize, max_digits: usize) -> Option<usize> {
    match *text.get(at)? {
        b'"' => plain_string_end(text, at + 1).map(|end| end + 1),
        b't' => literal_end(text, at, b"true"),
        b'f' => literal_end(text, at, b"false"),
        b'n' => literal_end(text, at, b"null"),
        b'-' | b'0'..=b'9' => integer_end(text, at, max_digits),
        _ => None,
    }
}

/// Where `word` ends when it is at `at`.
fn literal_end(text: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    text[at..].starts_with(word).then_some(at + word.len())
}

/// Where the integer at `at` ends when `dumps` prints it as written: `-?(0|[1-9][0-9]*)`
/// of at most `max_digits` digits, not `-0`, not followed by a fraction or an exponent.
fn integer_end(text: &[u8], at: usize, max_digits: usize) -> Option<usize> {
    let negative = text.get(at) == Some(&b'-');
    let digits = at + usize::from(negative);
    let len = text[digits..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = digits + len;
    let leading_zero = text.get(digits) == Some(&b'0');
    if len == 0 || len > max_digits || (leading_zero && (len > 1 || negative)) {
        return None;
    }
    (!matches!(text.get(end), Some(b'.' | b'e' | b'E'))).then_some(end)
}

/// `raw_decode(text, pos)` of a value [`transcode`] gave up on: when no JSON reads
/// there, the error is found first by `raw_check`, which builds nothing (the decoder
/// raises the same error at the same offset either way).
pub fn raw_decode_after(
    gave_up: GaveUp,
    text: &[u8],
    pos: usize,
    limits: DecodeLimits,
) -> Result<(Value, usize), DecodeError> {
    if gave_up == GaveUp::NotJson {
        raw_check(text, pos, limits)?;
    }
    raw_decode(text, pos, limits)
}

/// The value of what [`transcode`] wrote, or of a member of it: decoded under limits
/// that fit anything it writes.
pub fn read_back(written: &[u8]) -> Result<Value, DecodeError> {
    let limits = DecodeLimits {
        max_depth: MAX_DEPTH,
        int_max_str_digits: None,
    };
    loads(written, limits)
}

/// The transcoder's state: the source, where it reads, what it wrote.
struct Writer<'t> {
    text: &'t [u8],
    at: usize,
    out: Out<'t>,
    max_depth: usize,
    max_digits: usize,
    /// The top-level object's members.
    members: SmallVec<[Member; 2]>,
    /// Whether it gave up because no JSON value reads here.
    not_json: bool,
}

/// What the transcoder wrote. While that is the source from `start` byte for byte, it is
/// only where the copy ends (`to`); from the first byte that differs, bytes of its own.
struct Out<'t> {
    source: &'t [u8],
    start: usize,
    to: usize,
    own: Option<Vec<u8>>,
}

impl Out<'_> {
    /// Writes `bytes` (a separator, or a byte of an escape), compared with the source
    /// in place while the copy holds.
    fn write<const N: usize>(&mut self, bytes: [u8; N]) {
        if self.own.is_none() && self.source.get(self.to..self.to + N) == Some(&bytes[..]) {
            self.to += N;
        } else {
            self.own().extend_from_slice(&bytes);
        }
    }

    /// Writes the source's bytes at `run`.
    fn copy(&mut self, run: Range<usize>) {
        if self.own.is_none() && run.start == self.to {
            self.to = run.end;
        } else {
            let source = self.source;
            self.own().extend_from_slice(&source[run]);
        }
    }

    /// The bytes written, made its own on the first byte that differs from the source.
    fn own(&mut self) -> &mut Vec<u8> {
        let (source, copied) = (self.source, self.start..self.to);
        self.own.get_or_insert_with(|| {
            let mut own = Vec::with_capacity(64.max(2 * copied.len()));
            own.extend_from_slice(&source[copied]);
            own
        })
    }

    /// How many bytes were written.
    fn len(&self) -> usize {
        match &self.own {
            Some(own) => own.len(),
            None => self.to - self.start,
        }
    }
}

impl Writer<'_> {
    /// Writes the value at `self.at`, `depth` containers deep.
    fn value(&mut self, depth: usize) -> Option<()> {
        let Some(&first) = self.text.get(self.at) else {
            return self.not_json();
        };
        match first {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(drop),
            b'-' | b'0'..=b'9' => self.integer(),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            // `NaN` and `Infinity` read as floats.
            b'N' | b'I' => None,
            _ => self.not_json(),
        }
    }

    /// Gives up where no JSON value reads: the decoder raises here too.
    fn not_json<T>(&mut self) -> Option<T> {
        self.not_json = true;
        None
    }

    /// `{…}`: `{"k": v, …}`, keys unique and escape-free.
    fn object(&mut self, depth: usize) -> Option<()> {
        let mut keys: SmallVec<[Range<usize>; MAX_KEYS]> = SmallVec::new();
        let mut more = self.open(depth, b'}')?;
        while more {
            if self.plain_members(depth, &mut keys)? {
                return Some(());
            }
            if self.text.get(self.at) != Some(&b'"') {
                return self.not_json();
            }
            if keys.len() == MAX_KEYS {
                return None;
            }
            let key = self.key()?;
            new_key(self.text, &mut keys, &key)?;
            self.skip_space();
            if !self.eat(b':') {
                return self.not_json();
            }
            self.out.write(*b": ");
            self.skip_space();
            let start = self.out.len();
            self.value(depth + 1)?;
            if depth == 0 {
                let value = start..self.out.len();
                self.members.push(Member { key, value });
            }
            more = self.after_item(b'}')?;
        }
        Some(())
    }

    /// Reads the run of members at `self.at` that `dumps` writes as they are, each
    /// `"key": value` followed by `, "` or by the object's `}`, the value a scalar or,
    /// when one more container fits, a flat object (most call objects and arguments are
    /// such a run), and writes the run with one copy. Whether it read through the `}`; `false`
    /// leaves the next member, the first not in the run, to the general reading, which
    /// gives the same verdicts on keys (`None` on too many or a repeated one).
    fn plain_members(
        &mut self,
        depth: usize,
        keys: &mut SmallVec<[Range<usize>; MAX_KEYS]>,
    ) -> Option<bool> {
        let (run, written) = (self.at, self.out.len());
        let mut closed = false;
        while !closed {
            let nest = depth + 1 < self.max_depth;
            let Some(member) = plain_member(self.text, self.at, self.max_digits, nest) else {
                break;
            };
            if keys.len() == MAX_KEYS {
                return None;
            }
            new_key(self.text, keys, &member.key)?;
            if depth == 0 {
                let value =
                    written + (member.value.start - run)..written + (member.value.end - run);
                self.members.push(Member {
                    key: member.key,
                    value,
                });
            }
            closed = member.closes;
            self.at = member.next;
        }
        if self.at > run {
            self.out.copy(run..self.at);
        }
        Some(closed)
    }

    /// `[…]`: `[v, …]`.
    fn array(&mut self, depth: usize) -> Option<()> {
        let mut more = self.open(depth, b']')?;
        while more {
            self.value(depth + 1)?;
            more = self.after_item(b']')?;
        }
        Some(())
    }

    /// Opens the container at `self.at`, `depth` containers deep: whether an item follows
    /// (not when it closes at once); `None` when it would nest too deep.
    fn open(&mut self, depth: usize, close: u8) -> Option<bool> {
        if depth == self.max_depth {
            return None;
        }
        self.out.copy(self.at..self.at + 1);
        self.at += 1;
        self.skip_space();
        Some(!self.closes(close))
    }

    /// After an item: whether another follows (a `,`), or the container closes (`close`);
    /// `None` for anything else.
    fn after_item(&mut self, close: u8) -> Option<bool> {
        self.skip_space();
        if self.closes(close) {
            return Some(false);
        }
        if !self.eat(b',') {
            return self.not_json();
        }
        self.out.write(*b", ");
        self.skip_space();
        Some(true)
    }

    /// Steps over and writes `close` when it is next.
    fn closes(&mut self, close: u8) -> bool {
        let closes = self.text.get(self.at) == Some(&close);
        if closes {
            self.out.copy(self.at..self.at + 1);
            self.at += 1;
        }
        closes
    }

    /// A key: a string without escapes, written as `dumps` writes it. Its source range,
    /// quotes excluded.
    fn key(&mut self) -> Option<Range<usize>> {
        let (body, escaped) = self.string()?;
        (!escaped).then_some(body)
    }

    /// A string at `self.at`: written with `ensure_ascii`; its source range, quotes
    /// excluded, and whether it held an escape.
    fn string(&mut self) -> Option<(Range<usize>, bool)> {
        let start = self.at + 1;
        let mut at = start;
        let mut escaped = false;
        self.out.copy(self.at..start);
        loop {
            let Some(run) = self.text[at..].iter().position(|&b| !plain(b) || b == b'"') else {
                // The text ends inside the string.
                return self.not_json();
            };
            // Printable ASCII other than `"` and `\` is written as it is.
            self.out.copy(at..at + run);
            at += run;
            match self.text[at] {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    let Some(&escape) = self.text.get(at + 1) else {
                        return self.not_json();
                    };
                    if matches!(escape, b'u' | b'/') {
                        return None;
                    }
                    if !matches!(escape, b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f') {
                        return self.not_json();
                    }
                    self.out.copy(at..at + 2);
                    at += 2;
                }
                0..=0x7F => return None,
                b0 => {
                    let bytes = self.text.get(at..at + code_point_len(b0))?;
                    if !(0xC2..=0xF4).contains(&b0) || bytes[1..].iter().any(|b| b >> 6 != 2) {
                        return None;
                    }
                    let (cp, len) = decode_code_point(bytes)?;
                    if (0xD800..=0xDFFF).contains(&cp) {
                        // A lone surrogate: written next to its partner, it would read
                        // back joined into one character.
                        return None;
                    }
                    u_escape(cp, |b| self.out.write([b]));
                    at += len;
                }
            }
        }
        self.out.copy(at..at + 1);
        self.at = at + 1;
        Some((start..at, escaped))
    }

    /// `-?(0|[1-9][0-9]*)` not followed by a fraction or an exponent, not `-0`, of at most
    /// [`MAX_DIGITS`] digits and within the decoder's limit: printed as written.
    fn integer(&mut self) -> Option<()> {
        let start = self.at;
        let end = integer_end(self.text, start, self.max_digits)?;
        self.out.copy(start..end);
        self.at = end;
        Some(())
    }

    /// `true`, `false` or `null`, written as they are.
    fn literal(&mut self, word: &str) -> Option<()> {
        let Some(end) = literal_end(self.text, self.at, word.as_bytes()) else {
            // No other value starts with the byte `word` does.
            return self.not_json();
        };
        self.out.copy(self.at..end);
        self.at = end;
        Some(())
    }

    /// Steps over `byte` when it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.text.get(self.at) == Some(&byte);
        self.at += usize::from(next);
        next
    }

    /// Steps over JSON whitespace.
    fn skip_space(&mut self) {
        while matches!(self.text.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::json::{dumps, raw_decode};

    const LIMITS: DecodeLimits = DecodeLimits {
        max_depth: 900,
        int_max_str_digits: Some(4300),
    };

    #[test]
    fn a_string_ends_where_the_first_unplain_byte_is_in_any_lane() {
        for stop in 0..=u8::MAX {
            for lane in 0..20 {
                let mut text = vec![b'a'; 24];
                text[lane] = stop;
                let first = text.iter().position(|&b| !plain(b) || b == b'"');
                let expected = first.filter(|&i| text[i] == b'"');
                assert_eq!(plain_string_end(&text, 0), expected, "{stop:#x} at {lane}");
            }
        }
    }

    /// `Some` exactly when expected, and then what `dumps(raw_decode(…))` writes.
    fn check(text: &str, copies: bool) {
        let got = transcode(text.as_bytes(), 0, LIMITS);
        assert_eq!(got.is_ok(), copies, "{text:?}: {got:?}");
        if let Ok(got) = got {
            let (value, end) = raw_decode(text.as_bytes(), 0, LIMITS).unwrap();
            assert_eq!(got.text(), dumps(&value).unwrap().as_bytes(), "{text:?}");
            assert_eq!(got.end, end, "{text:?}");
        }
    }

    #[test]
    fn plain_json_is_written_as_dumps_writes_it() {
        check(r#"{"city":"Paris","n":3}"#, true);
        check("{ \"a\" :\n[1 ,true,false, null, {}, []] }  tail", true);
        check(r#"{"q": "caf\u00e9"}"#, false);
        check("{\"q\": \"café 😀\", \"e\": \"\\\"\\\\\\n\\t\"}", true);
        check(r#"[-12, 0, 123456789012345678]"#, true);
        check(r#""just a string""#, true);
    }

    #[test]
    fn what_does_not_copy_is_left_to_the_decoder() {
        for text in [
            r#"{"a": 1.5}"#,
            r#"{"a": 1e3}"#,
            r#"{"a": -0}"#,
            r#"{"a": 1234567890123456789}"#,
            r#"{"a": NaN}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"\u0061": 1}"#,
            r#"{"a": "x\/y"}"#,
            "{\"a\": \"tab\there\"}",
            r#"{"a": 01}"#,
        ] {
            check(text, false);
            let got = transcode(text.as_bytes(), 0, LIMITS);
            assert_eq!(got.err(), Some(GaveUp::Unplain), "{text:?}");
        }
    }

    #[test]
    fn what_is_not_json_is_said_so_and_raises() {
        for text in [
            "",
            "x",
            r#"{"a": 1"#,
            r#"{"a" 1}"#,
            r#"{"a": tru}"#,
            "{\"a\": \"unterminated",
            r#""\q""#,
            "[1,]",
            r#"{"a": 1,}"#,
            "{'a': 1}",
            r#"{"a": "x" "y"}"#,
        ] {
            let got = transcode(text.as_bytes(), 0, LIMITS);
            assert_eq!(got.err(), Some(GaveUp::NotJson), "{text:?}");
            let decoded = raw_decode(text.as_bytes(), 0, LIMITS);
            assert!(decoded.is_err(), "{text:?}");
            let after = raw_decode_after(GaveUp::NotJson, text.as_bytes(), 0, LIMITS);
            assert_eq!(after, decoded, "{text:?}");
        }
    }

    #[test]
    fn nesting_past_the_bound_is_left_to_the_decoder() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        check(&deep(MAX_DEPTH), true);
        check(&deep(MAX_DEPTH + 1), false);
    }

    /// A flat object inside a run of plain members is one more container: it is read
    /// only while one more fits under the decoder's limit, by the writer and by the
    /// flat loop alike.
    #[test]
    fn a_nested_flat_object_counts_against_the_depth_limit() {
        let nested = br#"{"a": {"b": 1}}"#;
        let in_arrays = br#"[[{"a": {"b": 1}}]]"#;
        for (text, containers) in [(&nested[..], 2), (&in_arrays[..], 4)] {
            for max_depth in [containers - 1, containers] {
                let limits = DecodeLimits {
                    max_depth,
                    int_max_str_digits: None,
                };
                let got = transcode(text, 0, limits);
                assert_eq!(got.is_ok(), max_depth == containers, "{max_depth}");
                assert_eq!(transcode_flat_first(text, 0, limits), got);
            }
        }
    }

    #[test]
    fn a_top_level_object_lists_its_members() {
        let text = br#"{"name": "f", "arguments": {"x": [1, 2]}}"#;
        let got = transcode(text, 0, LIMITS).unwrap();
        assert_eq!(got.get(text, "name"), Some(&b"\"f\""[..]));
        assert_eq!(got.get(text, "arguments"), Some(&b"{\"x\": [1, 2]}"[..]));
        assert_eq!(got.get(text, "parameters"), None);
        let arguments = got.member(text, "arguments").unwrap().clone();
        assert_eq!(got.into_value_text(&arguments), "{\"x\": [1, 2]}");
    }

    #[test]
    fn a_run_of_plain_members_reads_as_the_general_writer_does() {
        let runs = [
            r#"{"a": 1, "b": "x y", "c": true, "d": null, "e": false, "f": -20}"#,
            // The run stops at a container and starts again after it.
            r#"{"a": 1, "b": [1, {"c": 2}], "c": "z", "d": {}}"#,
            // But not at a flat object, as a call object's arguments are; one level down.
            r#"{"name": "f", "arguments": {"x": 1, "y": "z"}, "id": 3}"#,
            r#"{"a": {"b": {"c": 1}}, "d": {"e": 2, "f": 3}}"#,
            r#"[{"a": {"b": 1}}]"#,
            // It stops at a separator `dumps` does not write, or at whitespace.
            r#"{"a": 1 , "b": 2,"c": 3}"#,
            r#"{ "a": 1, "b": 2 }"#,
            // And at an escape, or a character `dumps` escapes.
            "{\"a\": \"x\\ny\", \"b\": \"caf\u{e9}\", \"c\": 3}",
            r#"[{"a": 1, "b": 2}, {"a": 1}]"#,
        ];
        for text in runs {
            check(text, true);
            let got = transcode(text.as_bytes(), 0, LIMITS).unwrap();
            let (Value::Dict(dict), _) = raw_decode(text.as_bytes(), 0, LIMITS).unwrap() else {
                assert!(got.members.is_empty(), "{text:?}");
                continue;
            };
            let members: Vec<(&[u8], Value)> = (got.members.iter())
                .map(|m| {
                    (
                        &text.as_bytes()[m.key.clone()],
                        read_back(&got.text()[m.value.clone()]).unwrap(),
                    )
                })
                .collect();
            let expected: Vec<(&[u8], Value)> = dict
                .iter()
                .map(|(k, v)| (k.as_bytes(), v.clone()))
                .collect();
            assert_eq!(members, expected, "{text:?}");
        }
        // The verdicts on keys are the general writer's: a repeated key, too many keys,
        // and an integer `dumps` does not print as written are left to the decoder.
        let many: Vec<String> = (0..=MAX_KEYS).map(|i| format!("\"k{i}\": {i}")).collect();
        for text in [
            r#"{"a": 1, "a": 2}"#.to_owned(),
            format!("{{{}}}", many.join(", ")),
            r#"{"a": 1, "b": 01}"#.to_owned(),
            r#"{"a": 1, "b": 1.5}"#.to_owned(),
            r#"{"a": {"b": 1, "b": 2}}"#.to_owned(),
            r#"{"a": {"b": 1.5}}"#.to_owned(),
            format!("{{\"a\": {{{}}}}}", many.join(", ")),
        ] {
            assert_eq!(
                transcode(text.as_bytes(), 0, LIMITS),
                Err(GaveUp::Unplain),
                "{text}"
            );
        }
    }

    /// The flat-object loop of `transcode_flat_first` gives what the writer gives: the
    /// text, the end and every member, and the writer's verdicts where it stops; read by
    /// `transcode_object_text`, the text when it is an object, and the end.
    #[test]
    fn arguments_read_by_the_flat_loop_as_the_writer_reads_them() {
        let many: Vec<String> = (0..=MAX_KEYS).map(|i| format!("\"k{i}\": {i}")).collect();
        let texts = [
            r#"{"city": "Paris", "days": 3, "metric": true, "note": null} and after"#.to_owned(),
            r#"{"a": 1, "b": [1, 2]}"#.to_owned(),
            r#"{"name": "f", "parameters": {"k": 1}}; {"name": "g"}"#.to_owned(),
            r#"{"a": {"b": 1}, "c": {"d": {}}}"#.to_owned(),
            r#"{"a": {"b": 1, "b": 2}}"#.to_owned(),
            r#"{"a": 1, "a": 2}"#.to_owned(),
            r#"{"a": 1 }"#.to_owned(),
            r#"{"a": 1, "b": 1.5}"#.to_owned(),
            r#"{"a": "x"#.to_owned(),
            "{}".to_owned(),
            format!("{{{}}}", many.join(", ")),
        ];
        let texts_and_values = texts.iter().map(String::as_str).chain(["[1] {}", "3}"]);
        for text in texts_and_values {
            let text = text.as_bytes();
            let written = transcode(text, 0, LIMITS);
            assert_eq!(transcode_flat_first(text, 0, LIMITS), written, "{text:?}");
            let object_text = written.map(|w| {
                let (object, end) = (w.is_object(), w.end);
                (object.then(|| w.into_text()), end)
            });
            assert_eq!(transcode_object_text(text, 0, LIMITS), object_text);
        }
        let flat = transcode_flat_first(texts[0].as_bytes(), 0, LIMITS).unwrap();
        assert_eq!(flat.members.len(), 4);
        assert_eq!(flat.text(), &texts[0].as_bytes()[..flat.end]);
    }
}
