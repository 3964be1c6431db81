//! CPython 3.11 semantics: the only corner of toolfix that knows Python exists.
//!
//! The real package's behaviour is made of Python's: `json`'s decoder and encoder,
//! `float.__repr__`, `str.isspace`, `str.lower`, `re.IGNORECASE` folding, `repr` of lists,
//! `difflib`, and the `TypeError` a failed call raises. Each lives here, in one module named
//! for the Python feature it reproduces, so the rest of the crate can state behaviour in
//! Python's own terms without re-deriving it.

pub mod difflib;
pub mod exception;
pub mod float_repr;
pub mod inspect;
pub mod json;
pub mod pystr;
pub mod repr;
pub mod signature;
pub mod str_format;
pub mod unicode;
pub mod value;

/// CPython's default `sys.get_int_max_str_digits()`: converting an `int` of more decimal
/// digits to or from text raises `ValueError`.
pub const INT_MAX_STR_DIGITS: usize = 4300;

pub use pystr::PyStr;
pub use value::{Dict, PyInt, Value};
