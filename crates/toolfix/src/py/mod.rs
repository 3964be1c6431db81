//! CPython 3.11 semantics: the only corner of toolfix that knows Python exists.
//!
//! The real package's behaviour is made of Python's: `json`'s decoder and encoder,
//! `float.__repr__`, `str.isspace`, `str.lower`, `re.IGNORECASE` folding, `repr` of lists,
//! `difflib`, and the `TypeError` a failed call raises. Each lives here, in one module named
//! for the Python feature it reproduces, so the rest of the crate can state behaviour in
//! Python's own terms without re-deriving it.

pub(crate) mod difflib;
pub(crate) mod exception;
pub(crate) mod float_repr;
pub(crate) mod inspect;
pub mod json;
pub(crate) mod pystr;
pub(crate) mod repr;
pub(crate) mod signature;
pub(crate) mod str_format;
pub(crate) mod unicode;
pub(crate) mod value;

/// CPython's default `sys.get_int_max_str_digits()`: converting an `int` of more decimal
/// digits to or from text raises `ValueError`.
pub const INT_MAX_STR_DIGITS: usize = 4300;

pub use exception::PyException;

/// `ch.isspace()`: CPython 3.11's whitespace, the set `str.strip()` removes and `re`'s
/// `\s` matches. It is not Rust's [`char::is_whitespace`]: Python counts the information
/// separators `\x1c`..`\x1f`, and the real package strips a reply with it before reading
/// it as whole-content JSON.
pub fn is_space(ch: char) -> bool {
    unicode::is_space(u32::from(ch))
}
pub use pystr::{CodePoints, PyStr};
pub use repr::{repr, str_of};
pub use signature::{Param, ParamKind, Signature};
pub use str_format::format_kwargs as str_format;
pub use value::{Dict, PyInt, Value};
