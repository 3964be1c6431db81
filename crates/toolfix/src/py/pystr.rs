//! `PyStr`: a Python `str`, that is, any sequence of code points, lone surrogates included.
//!
//! Rust's `String` cannot hold a lone surrogate, but a Python `str` can, and model output
//! reaches the real package through `json`, which turns `"\ud800"` into one. To stay
//! byte-faithful we store code points in *generalized UTF-8*: every code point, surrogates
//! included, is encoded on its own with the usual UTF-8 bit layout (a surrogate takes the
//! three bytes `ED A0..BF 80..BF`). Two lone surrogates are never merged into one
//! supplementary character, because Python never merges them either.
//!
//! This encoding keeps three properties the rest of the crate relies on:
//! * text without surrogates is plain UTF-8, so `&str` converts for free;
//! * byte order is code-point order, so `sorted(set(...))` is a byte sort;
//! * equal strings have equal bytes, so hashing and `==` are byte operations.

use std::fmt;

use smallvec::SmallVec;

/// The bytes of a `PyStr`. Most strings in tool calls (keys, names, short values) fit in
/// 16 bytes, so they are kept inline: a call-heavy reply decodes without one heap
/// allocation per string.
type Bytes = SmallVec<[u8; 16]>;

/// A Python `str`: a sequence of code points (U+0000..=U+10FFFF, surrogates allowed).
#[derive(Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PyStr {
    bytes: Bytes,
}

/// A copy made with one `memcpy`: `SmallVec`'s own `clone` copies byte by byte, which was
/// most of what copying a long argument cost.
impl Clone for PyStr {
    fn clone(&self) -> PyStr {
        PyStr {
            bytes: Bytes::from_slice(&self.bytes),
        }
    }
}

impl PyStr {
    /// An empty string.
    pub fn new() -> PyStr {
        PyStr {
            bytes: Bytes::new(),
        }
    }

    /// An empty string with room for `n` bytes.
    pub fn with_capacity(n: usize) -> PyStr {
        PyStr {
            bytes: Bytes::with_capacity(n),
        }
    }

    /// Wraps bytes that are already generalized UTF-8.
    ///
    /// The caller guarantees the encoding: every code point, surrogates included, is
    /// encoded in its shortest UTF-8 form.
    pub(crate) fn from_generalized_utf8_unchecked(bytes: Vec<u8>) -> PyStr {
        PyStr {
            bytes: Bytes::from_vec(bytes),
        }
    }

    /// Copies a slice of generalized UTF-8 that starts and ends on code-point boundaries
    /// (a slice of another `PyStr`'s bytes, or of a `&str`).
    pub(crate) fn from_generalized_utf8(bytes: &[u8]) -> PyStr {
        PyStr {
            bytes: Bytes::from_slice(bytes),
        }
    }

    /// Appends generalized UTF-8 that starts and ends on code-point boundaries.
    pub(crate) fn push_generalized_utf8(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// The generalized UTF-8 bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The text as `&str` when it holds no surrogate.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }

    /// The text with every surrogate replaced by U+FFFD, for people.
    pub fn to_string_lossy(&self) -> String {
        match self.as_str() {
            Some(s) => s.to_owned(),
            None => self
                .code_points()
                .map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
                .collect(),
        }
    }

    /// The string whose generalized UTF-8 is `bytes`: UTF-8 in which a lone surrogate is
    /// encoded like any other code point, as Python's `s.encode("utf-8",
    /// "surrogatepass")` writes it. `None` when `bytes` is not that encoding (a truncated
    /// sequence, an overlong form, a value past U+10FFFF).
    pub fn from_surrogatepass(bytes: &[u8]) -> Option<PyStr> {
        is_generalized_utf8(bytes).then(|| PyStr::from_generalized_utf8(bytes))
    }

    /// Appends one code point (a surrogate is kept as is).
    ///
    /// # Panics
    ///
    /// If `cp` is past U+10FFFF, which is no code point.
    pub fn push(&mut self, cp: u32) {
        assert!(cp <= 0x10FFFF, "{cp:#x} is not a code point");
        let (buf, len) = encode_code_point(cp);
        self.bytes.extend_from_slice(&buf[..len]);
    }

    /// Appends a Rust string.
    pub fn push_str(&mut self, s: &str) {
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// Appends another Python string.
    pub fn push_py(&mut self, s: &PyStr) {
        self.bytes.extend_from_slice(&s.bytes);
    }

    /// The code points, in order.
    pub fn code_points(&self) -> CodePoints<'_> {
        CodePoints { bytes: &self.bytes }
    }

    /// `len(s)`: the number of code points.
    pub fn char_len(&self) -> usize {
        self.bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
    }

    /// `len(s) == 0`.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The length in bytes of the generalized UTF-8 form.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }
}

/// A `PyStr` hashes, compares and orders as its bytes, so a dict keyed by `PyStr` can be
/// looked up with `"name".as_bytes()`, without building a key.
impl std::borrow::Borrow<[u8]> for PyStr {
    fn borrow(&self) -> &[u8] {
        &self.bytes
    }
}

impl From<&str> for PyStr {
    fn from(s: &str) -> PyStr {
        PyStr {
            bytes: Bytes::from_slice(s.as_bytes()),
        }
    }
}

impl From<String> for PyStr {
    fn from(s: String) -> PyStr {
        PyStr {
            bytes: Bytes::from_vec(s.into_bytes()),
        }
    }
}

impl PartialEq<str> for PyStr {
    fn eq(&self, other: &str) -> bool {
        self.bytes.as_slice() == other.as_bytes()
    }
}

impl PartialEq<&str> for PyStr {
    fn eq(&self, other: &&str) -> bool {
        self.bytes.as_slice() == other.as_bytes()
    }
}

impl fmt::Display for PyStr {
    /// Writes the text, with U+FFFD for surrogates. Use `py::repr` for Python's `repr`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(s) => f.write_str(s),
            None => f.write_str(&self.to_string_lossy()),
        }
    }
}

impl fmt::Debug for PyStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(s) => fmt::Debug::fmt(s, f),
            None => write!(f, "PyStr({:?})", self.code_points().collect::<Vec<_>>()),
        }
    }
}

/// Iterator over the code points of generalized UTF-8 bytes.
#[derive(Clone)]
pub struct CodePoints<'a> {
    bytes: &'a [u8],
}

impl Iterator for CodePoints<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let (cp, len) = decode_code_point(self.bytes)?;
        self.bytes = &self.bytes[len..];
        Some(cp)
    }
}

/// Whether `bytes` is generalized UTF-8: every sequence well formed and shortest, as in
/// UTF-8, except that the surrogates U+D800..U+DFFF are allowed.
fn is_generalized_utf8(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        let continuation = |at: usize, range: std::ops::RangeInclusive<u8>| {
            bytes.get(i + at).is_some_and(|b| range.contains(b))
        };
        let (second, len) = match bytes[i] {
            0x00..=0x7F => {
                i += 1;
                continue;
            }
            0xC2..=0xDF => (0x80..=0xBF, 2),
            0xE0 => (0xA0..=0xBF, 3),
            0xE1..=0xEF => (0x80..=0xBF, 3),
            0xF0 => (0x90..=0xBF, 4),
            0xF1..=0xF3 => (0x80..=0xBF, 4),
            0xF4 => (0x80..=0x8F, 4),
            _ => return false,
        };
        if !continuation(1, second) || !(2..len).all(|at| continuation(at, 0x80..=0xBF)) {
            return false;
        }
        i += len;
    }
    true
}

/// Appends the generalized UTF-8 encoding of `cp` to `out`.
pub fn push_code_point(out: &mut Vec<u8>, cp: u32) {
    let (buf, len) = encode_code_point(cp);
    out.extend_from_slice(&buf[..len]);
}

/// The generalized UTF-8 encoding of `cp`: the bytes and how many of them are used.
fn encode_code_point(cp: u32) -> ([u8; 4], usize) {
    match cp {
        0..=0x7F => ([cp as u8, 0, 0, 0], 1),
        0x80..=0x7FF => ([0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8, 0, 0], 2),
        0x800..=0xFFFF => (
            [
                0xE0 | (cp >> 12) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
                0,
            ],
            3,
        ),
        _ => (
            [
                0xF0 | (cp >> 18) as u8,
                0x80 | ((cp >> 12) & 0x3F) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ],
            4,
        ),
    }
}

/// Decodes the code point at the start of generalized UTF-8 `bytes`: `(code point, length)`.
///
/// Returns `None` on empty input. The input is trusted to be generalized UTF-8, which
/// every `PyStr` and every `&str` is.
#[inline]
pub fn decode_code_point(bytes: &[u8]) -> Option<(u32, usize)> {
    let b0 = *bytes.first()?;
    let cont = |i: usize| (bytes[i] & 0x3F) as u32;
    Some(match b0 {
        0..=0x7F => (b0 as u32, 1),
        0xC0..=0xDF => (((b0 & 0x1F) as u32) << 6 | cont(1), 2),
        0xE0..=0xEF => (((b0 & 0x0F) as u32) << 12 | cont(1) << 6 | cont(2), 3),
        _ => (
            ((b0 & 0x07) as u32) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3),
            4,
        ),
    })
}

/// The number of bytes of the code point that starts with byte `b0`.
#[inline]
pub fn code_point_len(b0: u8) -> usize {
    match b0 {
        0..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_stay_separate_and_sort_by_code_point() {
        let mut s = PyStr::new();
        s.push(0xD83D);
        s.push(0xDE00);
        assert_eq!(s.code_points().collect::<Vec<_>>(), vec![0xD83D, 0xDE00]);
        assert_eq!(s.char_len(), 2);
        assert!(s.as_str().is_none());

        let mut below = PyStr::new();
        below.push(0xD7FF);
        let mut above = PyStr::new();
        above.push(0xE000);
        let mut astral = PyStr::new();
        astral.push(0x1F600);
        assert!(below < s && s < above && above < astral);
    }

    #[test]
    fn from_surrogatepass_takes_what_python_writes_and_nothing_else() {
        let lone = PyStr::from_surrogatepass(b"a\xed\xa0\x80b").expect("a lone surrogate");
        assert_eq!(
            lone.code_points().collect::<Vec<_>>(),
            vec![0x61, 0xD800, 0x62]
        );
        assert_eq!(
            PyStr::from_surrogatepass("é😀".as_bytes()).unwrap(),
            PyStr::from("é😀")
        );
        for bad in [
            &b"\xc0\x80"[..],
            b"\xe0\x80\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\xff",
            b"\x80",
        ] {
            assert_eq!(PyStr::from_surrogatepass(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn plain_text_round_trips() {
        let s = PyStr::from("héllo ✓ 😀");
        assert_eq!(s.as_str(), Some("héllo ✓ 😀"));
        assert_eq!(s.char_len(), 9);
        let rebuilt: Vec<u32> = "héllo ✓ 😀".chars().map(u32::from).collect();
        assert_eq!(s.code_points().collect::<Vec<_>>(), rebuilt);
    }
}
