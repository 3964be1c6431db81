//! Gemma's argument syntax, read by one grammar in two ways: checking it (`Check`), which
//! builds, allocates and moves nothing, or building the values it writes (`Build`).
//!
//! A long block that fails late (arguments broken at their end) is checked and costs one
//! pass over its bytes; arguments that check are written by `transcode`, and built only
//! when they are not plain. The two ways are one reader made generic over what it makes,
//! so they cannot disagree on where a value ends or whether it reads.

use std::cell::Cell;
use std::marker::PhantomData;

use super::super::super::text::skip_space;
use super::super::token::find_near;
use crate::profile::STRICT_MAX_DEPTH;
use crate::py::json::{self, DecodeError, DecodeLimits};
use crate::py::{Dict, PyStr, Value};

/// Reads Gemma's argument syntax out of `text`, making `M`'s values of it.
pub struct Reader<'t, M> {
    /// The text, up to where the read must stop.
    text: &'t [u8],
    /// The generation's string delimiter.
    quote: &'static [u8],
    /// Set when a read failed because the text ended: more text could have completed it.
    cut: &'t Cell<Cut>,
    make: PhantomData<M>,
}

/// Whether, and where, a read failed because its text ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cut {
    /// It did not (or has not failed).
    Not,
    /// Between values: the next bytes would have to continue the syntax.
    Outside,
    /// Inside a string, which may hold a closing token.
    InString,
}

/// What a read makes of the syntax it reads.
pub trait Make {
    /// A value read.
    type Value;
    /// A key read.
    type Key;
    /// An object being read.
    type Object: Default;
    /// A list being read.
    type List: Default;
    /// A string from its bytes, as written.
    fn string(bytes: &[u8]) -> Self::Key;
    /// A string as a value.
    fn string_value(string: Self::Key) -> Self::Value;
    /// The key a string value makes (a key in JSON quotes is read as a value).
    fn key(value: Self::Value) -> Option<Self::Key>;
    /// Adds a member to an object being read.
    fn insert(object: &mut Self::Object, key: Self::Key, value: Self::Value);
    /// Adds an item to a list being read.
    fn push(list: &mut Self::List, value: Self::Value);
    /// An object read whole.
    fn object(object: Self::Object) -> Self::Value;
    /// A list read whole.
    fn list(list: Self::List) -> Self::Value;
    /// The JSON string, number or literal at `i`, and its end.
    fn scalar(
        text: &[u8],
        i: usize,
        limits: DecodeLimits,
    ) -> Result<(Self::Value, usize), DecodeError>;
}

/// Reads the syntax only: every value is `()`.
pub struct Check;

impl Make for Check {
    type Value = ();
    type Key = ();
    type Object = ();
    type List = ();
    fn string(_: &[u8]) {}
    fn string_value(_: ()) {}
    fn key(_: ()) -> Option<()> {
        Some(())
    }
    fn insert(_: &mut (), _: (), _: ()) {}
    fn push(_: &mut (), _: ()) {}
    fn object(_: ()) {}
    fn list(_: ()) {}
    /// An integer or a literal by its bytes, anything else by the decoder, which then
    /// builds nothing.
    fn scalar(text: &[u8], i: usize, limits: DecodeLimits) -> Result<((), usize), DecodeError> {
        match plain_scalar_end(text, i) {
            Some(end) => Ok(((), end)),
            None => json::raw_check(text, i, limits).map(|end| ((), end)),
        }
    }
}

/// Builds the values, as the engines decode them.
pub struct Build;

impl Make for Build {
    type Value = Value;
    type Key = PyStr;
    type Object = Dict;
    type List = Vec<Value>;
    fn string(bytes: &[u8]) -> PyStr {
        PyStr::from_generalized_utf8(bytes)
    }
    fn string_value(string: PyStr) -> Value {
        Value::Str(string)
    }
    fn key(value: Value) -> Option<PyStr> {
        match value {
            Value::Str(key) => Some(key),
            _ => None,
        }
    }
    fn insert(object: &mut Dict, key: PyStr, value: Value) {
        object.insert(key, value);
    }
    fn push(list: &mut Vec<Value>, value: Value) {
        list.push(value);
    }
    fn object(object: Dict) -> Value {
        Value::Dict(object)
    }
    fn list(list: Vec<Value>) -> Value {
        Value::List(list)
    }
    /// `Reader::value` reads containers itself, so what starts at `i` is never one.
    fn scalar(text: &[u8], i: usize, limits: DecodeLimits) -> Result<(Value, usize), DecodeError> {
        json::raw_decode(text, i, limits)
    }
}

impl<'t, M: Make> Reader<'t, M> {
    /// A reader of `text` (up to where the read must stop), with `quote` the generation's
    /// string delimiter, that records in `cut` whether a read failed at the text's end.
    pub fn new(text: &'t [u8], quote: &'static [u8], cut: &'t Cell<Cut>) -> Self {
        Reader {
            text,
            quote,
            cut,
            make: PhantomData,
        }
    }

    /// The value at `i` (after whitespace) and its end.
    pub fn value(&self, i: usize, depth: usize) -> Option<(M::Value, usize)> {
        let i = self.space(i);
        if depth > STRICT_MAX_DEPTH {
            return None;
        }
        match self.byte(i)? {
            b'{' => self.object(i + 1, depth + 1),
            b'[' => self.list(i + 1, depth + 1),
            _ if self.quote_at(i) => self.escaped(i),
            _ => self.scalar(i),
        }
    }

    /// `{KEY:VALUE,…}` after its `{`.
    fn object(&self, i: usize, depth: usize) -> Option<(M::Value, usize)> {
        let mut object = M::Object::default();
        let end = self.items(i, b'}', |i| {
            let (key, after_key) = self.key(self.space(i))?;
            let colon = self.space(after_key);
            (self.byte(colon)? == b':').then_some(())?;
            let (value, end) = self.value(colon + 1, depth)?;
            M::insert(&mut object, key, value);
            Some(end)
        })?;
        Some((M::object(object), end))
    }

    /// `[VALUE,…]` after its `[`.
    fn list(&self, i: usize, depth: usize) -> Option<(M::Value, usize)> {
        let mut list = M::List::default();
        let end = self.items(i, b']', |i| {
            let (value, end) = self.value(i, depth)?;
            M::push(&mut list, value);
            Some(end)
        })?;
        Some((M::list(list), end))
    }

    /// The items of a container after its opener, up to `close`, and the end of `close`:
    /// `item` reads one at `i` (where, after whitespace, one starts) and gives its end;
    /// the commas between items and the closer are read here.
    fn items(
        &self,
        mut i: usize,
        close: u8,
        mut item: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        i = self.space(i);
        if self.text.get(i) == Some(&close) {
            return Some(i + 1);
        }
        loop {
            i = self.space(item(i)?);
            match self.byte(i)? {
                b',' => i += 1,
                byte if byte == close => return Some(i + 1),
                _ => return None,
            }
        }
    }

    /// A key: a JSON string, an escaped string, or bare words.
    fn key(&self, i: usize) -> Option<(M::Key, usize)> {
        if self.quote_at(i) || self.text.get(i) == Some(&b'"') {
            let (value, end) = self.value(i, 0)?;
            return Some((M::key(value)?, end));
        }
        let len = bare_key_len(&self.text[i..]);
        if len == 0 {
            // The beginning of a quote token: the rest of it may be still to come.
            self.cut_if(self.quote.starts_with(&self.text[i..]), Cut::Outside);
            return None;
        }
        Some((M::string(&self.text[i..i + len]), i + len))
    }

    /// A string between two quote tokens, taken as written.
    fn escaped(&self, i: usize) -> Option<(M::Value, usize)> {
        let start = i + self.quote.len();
        let Some(len) = find_near(&self.text[start..], self.quote) else {
            self.cut_if(true, Cut::InString);
            return None;
        };
        let value = M::string_value(M::string(&self.text[start..start + len]));
        Some((value, start + len + self.quote.len()))
    }

    /// A JSON string, number, `true`, `false` or `null`. `value` reads containers, so none
    /// starts here and the depth limit never binds; it is the strict profile's only so an
    /// error at the end of the text is the syntax error it is (a decoder at its depth
    /// limit reports a recursion error instead), which says the read was cut.
    fn scalar(&self, i: usize) -> Option<(M::Value, usize)> {
        let limits = DecodeLimits {
            max_depth: STRICT_MAX_DEPTH,
            int_max_str_digits: None,
        };
        let decoded = M::scalar(self.text, i, limits);
        let kind = match self.text[i] {
            b'"' => Cut::InString,
            _ => Cut::Outside,
        };
        self.cut_if(
            decoded
                .as_ref()
                .is_err_and(|e| e.may_be_cut_short(self.text.len())),
            kind,
        );
        decoded.ok()
    }

    /// The offset after the whitespace at `i`. The reader asks between every two tokens,
    /// and most of the time none is there: a printable ASCII byte is answered inline.
    #[inline(always)]
    fn space(&self, i: usize) -> usize {
        match self.text.get(i) {
            Some(&b) if b > b' ' && b < 0x7F => i,
            _ => skip_space(self.text, i),
        }
    }

    /// Whether a quote token starts at `i` (its first byte compared first: most values
    /// start with another).
    fn quote_at(&self, i: usize) -> bool {
        self.text.get(i) == self.quote.first() && self.text[i..].starts_with(self.quote)
    }

    /// The byte at `i`; at the end of the text, none, and the read was cut.
    fn byte(&self, i: usize) -> Option<u8> {
        let byte = self.text.get(i).copied();
        self.cut_if(byte.is_none(), Cut::Outside);
        byte
    }

    /// Records that the read was cut by the end of the text, `kind` of cut, when `cut`.
    fn cut_if(&self, cut: bool, kind: Cut) {
        if cut {
            self.cut.set(self.cut.get().max(kind));
        }
    }
}

/// The length of the bare key `text` starts with: bare words and the whitespace between
/// them, as written (`first name`). Engines take a key as all it holds before its `:`,
/// trimmed, so a key with a space in it names that key, not a syntax error.
pub fn bare_key_len(text: &[u8]) -> usize {
    let mut len = bare_word_len(text);
    while len > 0 {
        let next = skip_space(text, len);
        let word = bare_word_len(&text[next..]);
        if next == len || word == 0 {
            break;
        }
        len = next + word;
    }
    len
}

/// The length of the bare word `text` starts with: ASCII letters, digits, `_` and `-`,
/// and any character beyond ASCII.
fn bare_word_len(text: &[u8]) -> usize {
    text.iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80)
        .count()
}

/// Where the JSON integer or literal at `i` ends, when the decoder reads it to exactly
/// there: `true`, `false`, `null`, or `-?(0|[1-9][0-9]*)` followed by a byte that no number
/// continues with. Anything else (a float, `NaN`, a string, the text ending) is left to
/// the decoder.
fn plain_scalar_end(text: &[u8], i: usize) -> Option<usize> {
    let rest = &text[i..];
    for literal in [&b"true"[..], b"false", b"null"] {
        if rest.starts_with(literal) {
            return Some(i + literal.len());
        }
    }
    let sign = usize::from(rest.first() == Some(&b'-'));
    let digits = rest[sign..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = sign + digits;
    let plain = digits > 0
        && (rest[sign] != b'0' || digits == 1)
        && !matches!(rest.get(end), None | Some(b'.' | b'e' | b'E'));
    plain.then_some(i + end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The syntax check's fast path ends every scalar it reads where the decoder does, and
    /// leaves the rest to it.
    #[test]
    fn a_plain_scalar_ends_where_the_decoder_ends_it() {
        let limits = DecodeLimits {
            max_depth: STRICT_MAX_DEPTH,
            int_max_str_digits: None,
        };
        let mut read = 0;
        for text in [
            "1,",
            "-0}",
            "0]",
            "123456789012345678901234567890,",
            "7 ",
            "true,",
            "falsey",
            "null}",
            "01,",
            "-01}",
            "1.5,",
            "1.}",
            "2e3,",
            "2E3}",
            "-,",
            "-a",
            "12",
            "tru",
            "NaN,",
            "\"s\",",
            "١,",
            "1١,",
        ] {
            let decoded = json::raw_check(text.as_bytes(), 0, limits).ok();
            match plain_scalar_end(text.as_bytes(), 0) {
                Some(end) => {
                    read += 1;
                    assert_eq!(Some(end), decoded, "{text:?}");
                }
                None => assert!(
                    decoded.is_none()
                        || text.contains(['.', 'e', 'E', 'N', '"', '0'])
                        || decoded == Some(text.len()),
                    "{text:?}"
                ),
            }
        }
        assert_eq!(read, 9);
    }
}
