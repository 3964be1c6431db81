//! A raised Python exception, as far as tool dispatch can observe one.
//!
//! The real package turns what a tool raises into `{"error": str(e), ...}` and decides
//! retrying with `isinstance(e, (ValueError, TypeError, AttributeError))`. So an exception is
//! fully described by its builtin type and its single argument: `str(e)` is that argument,
//! except for `KeyError`, whose `str` is the argument's `repr` (`str(KeyError('missing'))` is
//! `'missing'` with the quotes), a quirk that reaches the model verbatim.

use std::fmt;

use super::pystr::PyStr;
use super::repr::repr_str;

/// The builtin exception types a tool (or the call machinery) may raise here, each with its
/// base class; `Exception` is the root of the tree as far as tools are concerned.
const KNOWN_TYPES: &[(&str, &str)] = &[
    ("Exception", "Exception"),
    ("ValueError", "Exception"),
    ("TypeError", "Exception"),
    ("LookupError", "Exception"),
    ("KeyError", "LookupError"),
    ("IndexError", "LookupError"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("AttributeError", "Exception"),
    ("OSError", "Exception"),
    ("PermissionError", "OSError"),
    ("TimeoutError", "OSError"),
    ("ConnectionError", "OSError"),
    ("ArithmeticError", "Exception"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
];

/// A Python exception instance raised with one `str` argument: `TypeName(args_message)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyException {
    /// The builtin type's `__name__`, such as `"ValueError"`.
    pub type_name: &'static str,
    /// The single argument the exception was raised with.
    pub args_message: PyStr,
}

impl PyException {
    /// `type_name(message)`.
    pub fn new(type_name: &'static str, message: impl Into<PyStr>) -> PyException {
        PyException {
            type_name,
            args_message: message.into(),
        }
    }

    /// `name(message)` when `name` is a known builtin type (see [`is_known_type`]), so that a
    /// type named at run time (by a fixture, say) gets the static name.
    ///
    /// [`is_known_type`]: Self::is_known_type
    pub fn of_known_type(name: &str, message: impl Into<PyStr>) -> Option<PyException> {
        let (type_name, _) = KNOWN_TYPES.iter().find(|(known, _)| *known == name)?;
        Some(PyException::new(type_name, message))
    }

    /// `str(e)`: the argument itself, or its `repr` for a `KeyError` (`str(KeyError(''))` is
    /// `''`, two quote characters).
    pub fn str(&self) -> PyStr {
        if self.type_name == "KeyError" {
            repr_str(&self.args_message)
        } else {
            self.args_message.clone()
        }
    }

    /// Whether `name` is one of the builtin types modelled here: `ValueError`, `TypeError`,
    /// `KeyError`, `RuntimeError`, `AttributeError`, `IndexError`, `LookupError`, `OSError`,
    /// `PermissionError`, `TimeoutError`, `ConnectionError`, `NotImplementedError`,
    /// `ZeroDivisionError`, `OverflowError`, `ArithmeticError` and `Exception`.
    pub fn is_known_type(name: &str) -> bool {
        KNOWN_TYPES.iter().any(|(known, _)| *known == name)
    }

    /// `isinstance(e, class)` for a class named by its `__name__`: true for the exception's own
    /// type and each of its bases (`KeyError` is a `LookupError` and an `Exception`).
    pub fn is_instance(&self, class: &str) -> bool {
        let mut current = self.type_name;
        loop {
            if current == class {
                return true;
            }
            match KNOWN_TYPES.iter().find(|(known, _)| *known == current) {
                Some(&(_, base)) if base != current => current = base,
                _ => return false,
            }
        }
    }
}

impl fmt::Display for PyException {
    /// The last line of a Python traceback: `KeyError: 'missing'`, or the bare type name when
    /// `str(e)` is empty. Surrogates print as U+FFFD.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.str();
        if text.is_empty() {
            f.write_str(self.type_name)
        } else {
            write!(f, "{}: {}", self.type_name, text)
        }
    }
}

impl std::error::Error for PyException {}

#[cfg(test)]
mod tests {
    use super::*;

    fn str_of(type_name: &'static str, message: &str) -> String {
        PyException::new(type_name, message).str().to_string()
    }

    /// Each expectation is `str(e)` as printed by CPython 3.11.7.
    #[test]
    fn str_matches_cpython() {
        assert_eq!(str_of("KeyError", "missing"), "'missing'");
        assert_eq!(str_of("KeyError", ""), "''");
        assert_eq!(str_of("KeyError", "it's"), "\"it's\"");
        assert_eq!(str_of("KeyError", "a\"b'c"), r#"'a"b\'c'"#);
        assert_eq!(str_of("KeyError", "tab\t"), r"'tab\t'");
        assert_eq!(str_of("ValueError", ""), "");
        assert_eq!(str_of("ValueError", "bad 'x'"), "bad 'x'");
        assert_eq!(str_of("LookupError", "k"), "k");
        assert_eq!(str_of("IndexError", "i"), "i");
        let mut lone = PyStr::new();
        lone.push(0xD800);
        let e = PyException::new("KeyError", lone);
        assert_eq!(e.str(), r"'\ud800'");
    }

    #[test]
    fn known_types_and_their_bases() {
        for name in [
            "ValueError",
            "TypeError",
            "KeyError",
            "RuntimeError",
            "AttributeError",
            "IndexError",
            "LookupError",
            "OSError",
            "PermissionError",
            "TimeoutError",
            "ConnectionError",
            "NotImplementedError",
            "ZeroDivisionError",
            "Exception",
        ] {
            assert!(PyException::is_known_type(name), "{name}");
            let e = PyException::of_known_type(name, "m").expect(name);
            assert!(e.is_instance(name) && e.is_instance("Exception"), "{name}");
        }
        assert!(!PyException::is_known_type("valueerror"));
        assert!(!PyException::is_known_type("BaseException"));
        assert!(PyException::of_known_type("SystemExit", "m").is_none());
        let key = PyException::new("KeyError", "k");
        assert!(key.is_instance("LookupError") && !key.is_instance("ValueError"));
        assert!(PyException::new("PermissionError", "p").is_instance("OSError"));
        assert!(PyException::new("NotImplementedError", "n").is_instance("RuntimeError"));
        assert!(!PyException::new("Unknown", "u").is_instance("Exception"));
    }

    #[test]
    fn displays_like_a_traceback_line() {
        assert_eq!(
            PyException::new("KeyError", "missing").to_string(),
            "KeyError: 'missing'"
        );
        assert_eq!(PyException::new("ValueError", "").to_string(), "ValueError");
    }
}
