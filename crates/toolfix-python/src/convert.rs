//! Python objects to toolfix values and back.
//!
//! Two directions, two rules:
//!
//! * [`exact`]: a value the core can print exactly as CPython would. Only the exact
//!   built-in types `json.dumps` and `str()` treat natively qualify (`None`, `bool`,
//!   `int`, `float`, `str`, `list`, `dict` with `str` keys); a tuple, a subclass, a set or
//!   any other object makes the whole value inexact, and the caller prints it with
//!   Python instead.
//! * [`lenient`]: a tool list, of which salvage reads only the names. Containers are
//!   read through `isinstance`, anything else becomes an opaque object (truthy, never a
//!   name a call can match).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use toolfix::{Dict, PyStr, Value};

/// How deep a Python value is followed before it counts as inexact: past it, the
/// caller's Python fallback reaches CPython's own recursion limit, which is the answer.
const MAX_DEPTH: usize = 2_000;

/// The value `object` is, when every part of it is an exact built-in JSON type.
pub fn exact(object: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    exact_at(object, 0)
}

fn exact_at(object: &Bound<'_, PyAny>, depth: usize) -> PyResult<Option<Value>> {
    if depth > MAX_DEPTH {
        return Ok(None);
    }
    if object.is_none() {
        return Ok(Some(Value::None));
    }
    if object.is_exact_instance_of::<PyBool>() {
        return Ok(Some(Value::Bool(object.is_truthy()?)));
    }
    if object.is_exact_instance_of::<PyInt>() {
        return Ok(int(object));
    }
    if object.is_exact_instance_of::<PyFloat>() {
        return Ok(Some(Value::Float(object.extract()?)));
    }
    if object.is_exact_instance_of::<PyString>() {
        return Ok(Some(Value::Str(py_str(object)?)));
    }
    if let Ok(list) = object.cast_exact::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        for item in list.iter() {
            match exact_at(&item, depth + 1)? {
                Some(value) => items.push(value),
                None => return Ok(None),
            }
        }
        return Ok(Some(Value::List(items)));
    }
    if let Ok(dict) = object.cast_exact::<PyDict>() {
        let mut out = Dict::default();
        for (key, item) in dict.iter() {
            if !key.is_exact_instance_of::<PyString>() {
                return Ok(None);
            }
            match exact_at(&item, depth + 1)? {
                Some(value) => out.insert(py_str(&key)?, value),
                None => return Ok(None),
            };
        }
        return Ok(Some(Value::Dict(out)));
    }
    Ok(None)
}

/// An `int` as an exact integer; `None` when CPython refuses to print it (more than
/// 4300 digits), which the Python fallback then raises as CPython does.
fn int(object: &Bound<'_, PyAny>) -> Option<Value> {
    let decimal = object.str().ok()?;
    let decimal: String = decimal.extract().ok()?;
    toolfix::PyInt::from_decimal(&decimal).map(Value::Int)
}

/// A tool list (or any object salvage reads names from), read leniently.
pub fn lenient(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    lenient_at(object, 0)
}

fn lenient_at(object: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth <= MAX_DEPTH {
        if let Some(value) = exact_scalar(object)? {
            return Ok(value);
        }
        if let Ok(list) = object.cast::<PyList>() {
            let items = list.iter().map(|item| lenient_at(&item, depth + 1));
            return Ok(Value::List(items.collect::<PyResult<_>>()?));
        }
        if let Ok(dict) = object.cast::<PyDict>() {
            let mut out = Dict::default();
            for (key, item) in dict.iter() {
                if key.is_instance_of::<PyString>() {
                    out.insert(py_str(&key)?, lenient_at(&item, depth + 1)?);
                }
            }
            return Ok(Value::Dict(out));
        }
    }
    Ok(Value::Opaque(py_str(object.repr()?.as_any())?))
}

/// `None`, a `bool`, an `int`, a `float` or a `str`, including subclasses.
fn exact_scalar(object: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    Ok(if object.is_none() {
        Some(Value::None)
    } else if object.is_instance_of::<PyBool>() {
        Some(Value::Bool(object.is_truthy()?))
    } else if object.is_instance_of::<PyInt>() {
        int(object)
    } else if object.is_instance_of::<PyFloat>() {
        Some(Value::Float(object.extract()?))
    } else if object.is_instance_of::<PyString>() {
        Some(Value::Str(py_str(object)?))
    } else {
        None
    })
}

/// A Python `str` as a `PyStr`, lone surrogates kept.
pub fn py_str(object: &Bound<'_, PyAny>) -> PyResult<PyStr> {
    let bytes = object.call_method1("encode", ("utf-8", "surrogatepass"))?;
    let bytes: &[u8] = bytes.extract()?;
    PyStr::from_surrogatepass(bytes)
        .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("surrogatepass wrote invalid UTF-8"))
}

/// A `PyStr` as a Python `str`.
pub fn to_py_str<'py>(py: Python<'py>, s: &PyStr) -> PyResult<Bound<'py, PyAny>> {
    if let Some(text) = s.as_str() {
        return Ok(PyString::new(py, text).into_any());
    }
    let bytes = pyo3::types::PyBytes::new(py, s.as_bytes());
    bytes.call_method1("decode", ("utf-8", "surrogatepass"))
}

/// A value as the Python object `json.loads` would have made.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::None => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(i) => py.get_type::<PyInt>().call1((i.as_decimal(),))?.into_any(),
        Value::Float(f) => PyFloat::new(py, *f).into_any(),
        Value::Str(s) => to_py_str(py, s)?,
        Value::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Dict(dict) => {
            let out = PyDict::new(py);
            for (key, item) in dict {
                out.set_item(to_py_str(py, key)?, to_py(py, item)?)?;
            }
            out.into_any()
        }
        Value::Opaque(text) => to_py_str(py, text)?,
    })
}
