//! A raised Python exception, as far as tool calls can observe one.
//!
//! The real package turns what a tool raises into `{"error": str(e), ...}` and decides
//! retrying with `isinstance(e, (ValueError, TypeError, AttributeError))`. So an exception is
//! fully described by its builtin class and its single argument: `str(e)` is that argument,
//! except for `KeyError`, whose `str` is the argument's `repr` (`str(KeyError('missing'))` is
//! `'missing'` with the quotes), a quirk that reaches the model verbatim.
//!
//! [`PyException`] is an enum with one variant per builtin class, so a caller matches the
//! class it cares about (`Err(PyException::RecursionError { .. })`) instead of comparing
//! names; the argument is the variant's `message` field.

use std::fmt;

use super::pystr::PyStr;
use super::repr::repr_str;

/// Declares `PyException` with one variant per class, each with its base class, and the
/// tables that go with it, so the class tree is written once.
macro_rules! exceptions {
    ($($(#[doc = $doc:literal])+ $class:ident : $base:ident,)+) => {
        /// A Python exception instance raised with one `str` argument: `Class(message)`.
        ///
        /// Only the builtin classes a tool, the call machinery or salvage can raise here
        /// are modelled. More may be added, so matches need a wildcard arm.
        #[derive(Clone, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum PyException {
            $(
                $(#[doc = $doc])+
                $class {
                    /// The single argument the exception was raised with.
                    message: PyStr,
                },
            )+
        }

        impl PyException {
            /// Every class name, each with its base class's name.
            const TREE: &'static [(&'static str, &'static str)] =
                &[$((stringify!($class), stringify!($base)),)+];

            /// The class's `__name__`, such as `"ValueError"`.
            pub fn class_name(&self) -> &'static str {
                match self {
                    $(PyException::$class { .. } => stringify!($class),)+
                }
            }

            /// The single argument the exception was raised with.
            pub fn message(&self) -> &PyStr {
                match self {
                    $(PyException::$class { message } => message,)+
                }
            }

            /// `Class(message)` for a class named at run time (by a protocol request, say),
            /// or `None` when the name is not one of the modelled builtin classes.
            pub fn named(class: &str, message: impl Into<PyStr>) -> Option<PyException> {
                let message = message.into();
                match class {
                    $(stringify!($class) => Some(PyException::$class { message }),)+
                    _ => None,
                }
            }
        }
    };
}

exceptions! {
    /// `Exception`, the root of the classes modelled here.
    Exception: Exception,
    /// `ValueError`: a bad value (and the `int` digit limit).
    ValueError: Exception,
    /// `json.JSONDecodeError`, a `ValueError`.
    JSONDecodeError: ValueError,
    /// `TypeError`: a bad type, or a call that does not bind.
    TypeError: Exception,
    /// `LookupError`.
    LookupError: Exception,
    /// `KeyError`, a `LookupError`; its `str()` is its argument's `repr()`.
    KeyError: LookupError,
    /// `IndexError`, a `LookupError`.
    IndexError: LookupError,
    /// `RuntimeError`.
    RuntimeError: Exception,
    /// `NotImplementedError`, a `RuntimeError`.
    NotImplementedError: RuntimeError,
    /// `RecursionError`, a `RuntimeError`: CPython's recursion limit was reached.
    RecursionError: RuntimeError,
    /// `AttributeError`.
    AttributeError: Exception,
    /// `OSError`.
    OSError: Exception,
    /// `PermissionError`, an `OSError`.
    PermissionError: OSError,
    /// `TimeoutError`, an `OSError`.
    TimeoutError: OSError,
    /// `ConnectionError`, an `OSError`.
    ConnectionError: OSError,
    /// `ArithmeticError`.
    ArithmeticError: Exception,
    /// `ZeroDivisionError`, an `ArithmeticError`.
    ZeroDivisionError: ArithmeticError,
    /// `OverflowError`, an `ArithmeticError`.
    OverflowError: ArithmeticError,
    /// `SyntaxError`: a `def` Python would not compile (a tool declared with parameters no
    /// function can have).
    SyntaxError: Exception,
}

impl PyException {
    /// `str(e)`: the argument itself, or its `repr` for a `KeyError` (`str(KeyError(''))` is
    /// `''`, two quote characters).
    pub fn str(&self) -> PyStr {
        match self {
            PyException::KeyError { message } => repr_str(message),
            other => other.message().clone(),
        }
    }

    /// `isinstance(e, class)` for a class named by its `__name__`: true for the exception's
    /// own class and each of its bases (`KeyError` is a `LookupError` and an `Exception`).
    pub fn is_instance(&self, class: &str) -> bool {
        let mut current = self.class_name();
        loop {
            if current == class {
                return true;
            }
            match PyException::TREE.iter().find(|(name, _)| *name == current) {
                Some(&(_, base)) if base != current => current = base,
                _ => return false,
            }
        }
    }
}

impl fmt::Display for PyException {
    /// The last line of a traceback: `KeyError: 'missing'`, or the bare class name when
    /// `str(e)` is empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.str();
        if text.is_empty() {
            f.write_str(self.class_name())
        } else {
            write!(f, "{}: {}", self.class_name(), text)
        }
    }
}

impl std::error::Error for PyException {}

#[cfg(test)]
mod tests {
    use super::*;

    fn str_of(class: &str, message: &str) -> String {
        PyException::named(class, message)
            .expect(class)
            .str()
            .to_string()
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
        let e = PyException::KeyError { message: lone };
        assert_eq!(e.str(), r"'\ud800'");
    }

    #[test]
    fn classes_and_their_bases() {
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
            "RecursionError",
            "Exception",
        ] {
            let e = PyException::named(name, "m").expect(name);
            assert_eq!(e.class_name(), name);
            assert!(e.is_instance(name) && e.is_instance("Exception"), "{name}");
        }
        assert!(PyException::named("valueerror", "m").is_none());
        assert!(PyException::named("SystemExit", "m").is_none());
        let key = PyException::named("KeyError", "k").expect("KeyError");
        assert!(key.is_instance("LookupError") && !key.is_instance("ValueError"));
        let json = PyException::named("JSONDecodeError", "j").expect("JSONDecodeError");
        assert!(json.is_instance("ValueError"));
        let permission = PyException::PermissionError {
            message: PyStr::from("p"),
        };
        assert!(permission.is_instance("OSError") && !permission.is_instance("Unknown"));
    }

    #[test]
    fn displays_like_a_traceback_line() {
        assert_eq!(
            PyException::KeyError {
                message: PyStr::from("missing")
            }
            .to_string(),
            "KeyError: 'missing'"
        );
        let empty = PyException::ValueError {
            message: PyStr::new(),
        };
        assert_eq!(empty.to_string(), "ValueError");
    }
}
