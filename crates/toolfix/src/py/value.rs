//! `Value`: the Python objects that tool calls and tool results are made of.
//!
//! Everything the real package moves around (decoded JSON, call arguments, tool results)
//! is one of these. The model is deliberately small: what `json.loads` produces, plus
//! `Opaque` for an object JSON cannot serialise (a `set`, a `datetime`), known only by its
//! `str()`/`repr()`.

use indexmap::IndexMap;
use smallvec::{SmallVec, smallvec};

use super::pystr::PyStr;

/// A Python `dict` with `str` keys: insertion-ordered, and re-assigning a key keeps its
/// first position (so `{"a":1,"b":2,"a":3}` decodes to `{'a': 3, 'b': 2}` as in CPython).
///
/// Keys come from model output, so the hasher is seeded per process (no chosen-key
/// collisions) but cheaper than SipHash, which dominated decoding call-heavy replies.
/// Build one with `Dict::default()`.
pub type Dict = IndexMap<PyStr, Value, foldhash::fast::RandomState>;

/// A Python object as far as tool calls can see it.
#[derive(Clone, Debug)]
pub enum Value {
    /// `None`
    None,
    /// `True` / `False`
    Bool(bool),
    /// An `int` of any size, kept exactly.
    Int(PyInt),
    /// A `float`, NaN and the infinities included.
    Float(f64),
    /// A `str`.
    Str(PyStr),
    /// A `list`.
    List(Vec<Value>),
    /// A `dict` with `str` keys.
    Dict(Dict),
    /// An object `json.dumps` rejects, known by its `str()` (which is also its `repr()`).
    Opaque(PyStr),
}

impl Value {
    /// Python truthiness (`bool(x)`).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => !i.is_zero(),
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Dict(d) => !d.is_empty(),
            Value::Opaque(_) => true,
        }
    }

    /// `type(v).__name__`, as Python's error messages print it; `None` for an opaque
    /// object, whose type is not known.
    pub fn type_name(&self) -> Option<&'static str> {
        Some(match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
            Value::Opaque(_) => return None,
        })
    }

    /// The dict, when this is one.
    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Value::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The dict, mutable, when this is one.
    pub fn as_dict_mut(&mut self) -> Option<&mut Dict> {
        match self {
            Value::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The string, when this is one.
    pub fn as_py_str(&self) -> Option<&PyStr> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A `str` value from Rust text.
    pub fn str(s: &str) -> Value {
        Value::Str(PyStr::from(s))
    }

    /// An `int` value from a machine integer.
    pub fn int(i: i64) -> Value {
        Value::Int(PyInt::from_i64(i))
    }

    /// A dict value from `(key, value)` pairs, in order.
    pub fn dict<'k>(pairs: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
        Value::Dict(
            pairs
                .into_iter()
                .map(|(k, v)| (PyStr::from(k), v))
                .collect(),
        )
    }

    /// A list value of strings.
    pub fn str_list(items: &[PyStr]) -> Value {
        Value::List(items.iter().cloned().map(Value::Str).collect())
    }

    /// How many containers deep the value nests: a scalar is 0, `[]` is 1, `{"a": [1]}` is 2.
    /// CPython's encoders and `repr` recurse once per level, so this is what their recursion
    /// limit counts.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        self.walk(|value, depth| {
            if matches!(value, Value::List(_) | Value::Dict(_)) {
                deepest = deepest.max(depth + 1);
            }
        });
        deepest
    }

    /// The most decimal digits of any `int` inside (0 when there is none): CPython refuses
    /// to print an `int` of more than 4300 digits.
    pub fn max_int_digits(&self) -> usize {
        let mut most = 0;
        self.walk(|value, _| {
            if let Value::Int(i) = value {
                most = most.max(i.as_decimal().trim_start_matches('-').len());
            }
        });
        most
    }

    /// Visits every value inside, this one included, with its container depth, without
    /// recursing (values can nest deeper than the stack allows). The pending values of a
    /// typical call's arguments fit in the inline stack, so a walk allocates nothing.
    fn walk(&self, mut visit: impl FnMut(&Value, usize)) {
        let mut stack: SmallVec<[(&Value, usize); 16]> = smallvec![(self, 0)];
        while let Some((value, depth)) = stack.pop() {
            visit(value, depth);
            match value {
                Value::List(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
                Value::Dict(dict) => stack.extend(dict.values().map(|v| (v, depth + 1))),
                _ => {}
            }
        }
    }

    /// `d.get(key)` on a dict value; `None` for other types or a missing key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_dict()?.get(key.as_bytes())
    }
}

/// Python's `==` on the values JSON can hold, except that two floats are equal when they
/// are the same `float` (NaN equals NaN, `0.0` differs from `-0.0`) and an `int` never
/// equals a `float`: the equality of their `repr`, which is what a conformance check of
/// Python output needs. Dicts compare without regard to order, as Python's do.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::None, Value::None) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Dict(a), Value::Dict(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k) == Some(v))
            }
            (Value::Opaque(a), Value::Opaque(b)) => a == b,
            _ => false,
        }
    }
}

/// A Python `int` of any size, held as its canonical decimal text (`-?[1-9][0-9]*` or `0`).
///
/// Tool calls never do arithmetic on integers; they decode them, test them for zero and
/// print them. Holding the digits is exact for any size and costs nothing extra.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PyInt {
    digits: Box<str>,
}

impl PyInt {
    /// From a machine integer.
    pub fn from_i64(i: i64) -> PyInt {
        PyInt {
            digits: i.to_string().into_boxed_str(),
        }
    }

    /// From decimal text `-?[0-9]+`, normalising `-0` and leading zeros as `int()` does.
    /// Returns `None` for anything else.
    pub fn from_decimal(text: &str) -> Option<PyInt> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        let canonical = match (trimmed.is_empty(), negative) {
            (true, _) => "0".to_owned(),
            (false, true) => format!("-{trimmed}"),
            (false, false) => trimmed.to_owned(),
        };
        Some(PyInt {
            digits: canonical.into_boxed_str(),
        })
    }

    /// The canonical decimal text, which is also `str(i)` and `repr(i)`.
    pub fn as_decimal(&self) -> &str {
        &self.digits
    }

    /// `i == 0`.
    pub fn is_zero(&self) -> bool {
        &*self.digits == "0"
    }

    /// The value as `i64` when it fits.
    pub fn to_i64(&self) -> Option<i64> {
        self.digits.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dict_keeps_first_position_and_last_value() {
        let mut d = Dict::default();
        d.insert(PyStr::from("a"), Value::int(1));
        d.insert(PyStr::from("b"), Value::int(2));
        d.insert(PyStr::from("a"), Value::int(3));
        let keys: Vec<_> = d.keys().map(|k| k.to_string()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(d[&PyStr::from("a")], Value::int(3));
    }

    #[test]
    fn truthiness_follows_python() {
        assert!(!Value::None.is_truthy());
        assert!(!Value::int(0).is_truthy());
        assert!(Value::Float(f64::NAN).is_truthy());
        assert!(!Value::Float(-0.0).is_truthy());
        assert!(!Value::str("").is_truthy());
        assert!(Value::str("0").is_truthy());
        assert!(!Value::List(vec![]).is_truthy());
    }

    #[test]
    fn ints_are_canonical() {
        assert_eq!(PyInt::from_decimal("-0").unwrap().as_decimal(), "0");
        assert_eq!(PyInt::from_decimal("007").unwrap().as_decimal(), "7");
        assert_eq!(PyInt::from_decimal("-12").unwrap().as_decimal(), "-12");
        assert!(PyInt::from_decimal("1.0").is_none());
        assert!(PyInt::from_decimal("").is_none());
    }

    #[test]
    fn depth_and_int_digits() {
        assert_eq!(Value::int(5).depth(), 0);
        assert_eq!(Value::List(vec![]).depth(), 1);
        let nested = Value::dict([("a", Value::List(vec![Value::int(-12345)]))]);
        assert_eq!(nested.depth(), 2);
        assert_eq!(nested.max_int_digits(), 5);
    }

    #[test]
    fn floats_compare_as_the_same_python_float() {
        assert_eq!(Value::Float(f64::NAN), Value::Float(f64::NAN));
        assert_ne!(Value::Float(0.0), Value::Float(-0.0));
        assert_ne!(Value::int(1), Value::Float(1.0));
    }
}
