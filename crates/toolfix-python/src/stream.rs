//! `toolfix.StreamSalvager`: streaming salvage for a Python runtime that shows a model's
//! reply as it arrives (`docs/streaming.md`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use toolfix::salvage::{Allowlist, Call, Event, StreamUnder};
use toolfix::{PyStr, Value};

use super::convert::{lenient, py_str, to_py, to_py_str};
use super::{parse_adapter, parse_profile, raise};

/// A reply streamed chunk by chunk: `feed` each chunk, then `finish`; each returns the
/// events that became certain, in the order of the reply: `("text", str)` to show, and
/// `("call", {"type": "function", "function": {"name", "arguments"}})` for a call no
/// continuation could change. The calls are exactly those of
/// `recover_tool_calls_from_text` on the whole reply, however it is cut.
#[pyclass(module = "toolfix._native")]
pub struct StreamSalvager {
    stream: Option<StreamUnder<'static>>,
    /// Why the tool list could not be read. The package reads it only when there is text
    /// to salvage, so this is raised at `finish`, and only if a chunk held text.
    refused: Option<PyErr>,
    /// Whether any chunk held text.
    fed_text: bool,
}

#[pymethods]
impl StreamSalvager {
    /// A stream of one reply through `adapter` under `profile` (`strict` by default,
    /// which gives calls as soon as they are settled; `praisonai` gives them at the end,
    /// as the real package's streaming loop does, and may raise there).
    #[new]
    #[pyo3(signature = (tools, adapter = "ollama", profile = "strict"))]
    fn new(tools: &Bound<'_, PyAny>, adapter: &str, profile: &str) -> PyResult<StreamSalvager> {
        let (adapter, profile) = (parse_adapter(adapter)?, parse_profile(profile)?);
        let entries = match tools.is_truthy()? {
            true => match lenient(tools)? {
                Value::List(entries) => entries,
                _ => return Err(PyValueError::new_err("tools must be a list")),
            },
            false => Vec::new(),
        };
        let read = match adapter.policy().salvages_text && !entries.is_empty() {
            true => Allowlist::from_tool_entries_under(&entries, profile).map_err(raise),
            false => Ok(Allowlist::new(Vec::<PyStr>::new())),
        };
        let (allowlist, refused) = match read {
            Ok(allowlist) => (allowlist, None),
            Err(error) => (Allowlist::new(Vec::<PyStr>::new()), Some(error)),
        };
        Ok(StreamSalvager {
            stream: Some(StreamUnder::owning(allowlist, adapter, profile)),
            refused,
            fed_text: false,
        })
    }

    /// Takes the next chunk; returns what became certain.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyList>> {
        let chunk = py_str(chunk.as_any())?;
        self.fed_text |= !chunk.is_empty();
        let stream = self
            .stream
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("the stream is finished"))?;
        let mut events = Collected::default();
        stream.feed(&chunk, &mut |event| events.add(event));
        events.into_py(py)
    }

    /// Ends the reply; returns the rest of the text and every call not given yet.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let stream = self
            .stream
            .take()
            .ok_or_else(|| PyValueError::new_err("the stream is finished"))?;
        if let (Some(error), true) = (self.refused.take(), self.fed_text) {
            return Err(error);
        }
        let mut events = Collected::default();
        stream
            .finish(&mut |event| events.add(event))
            .map_err(raise)?;
        events.into_py(py)
    }
}

/// Events, collected while the stream runs (without the interpreter), then turned into
/// Python objects.
#[derive(Default)]
struct Collected(Vec<Owned>);

enum Owned {
    Text(Vec<u8>),
    Call(Call),
}

impl Collected {
    fn add(&mut self, event: Event<'_>) {
        match (event, self.0.last_mut()) {
            (Event::Text(text), Some(Owned::Text(last))) => last.extend_from_slice(text.as_bytes()),
            (Event::Text(text), _) => self.0.push(Owned::Text(text.as_bytes().to_vec())),
            (Event::Call(call), _) => self.0.push(Owned::Call(call)),
        }
    }

    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
        let out = PyList::empty(py);
        for event in self.0 {
            let pair = match event {
                Owned::Text(bytes) => {
                    let text = PyStr::from_surrogatepass(&bytes).unwrap_or_default();
                    PyTuple::new(
                        py,
                        [PyString::new(py, "text").into_any(), to_py_str(py, &text)?],
                    )?
                }
                Owned::Call(call) => PyTuple::new(
                    py,
                    [PyString::new(py, "call").into_any(), call_dict(py, &call)?],
                )?,
            };
            out.append(pair)?;
        }
        Ok(out)
    }
}

/// `{"type": "function", "function": {"name", "arguments"}}`.
fn call_dict<'py>(py: Python<'py>, call: &Call) -> PyResult<Bound<'py, PyAny>> {
    let function = PyDict::new(py);
    function.set_item("name", to_py(py, call.name())?)?;
    function.set_item("arguments", to_py_str(py, call.arguments_text())?)?;
    let entry = PyDict::new(py);
    entry.set_item("type", "function")?;
    entry.set_item("function", function)?;
    Ok(entry.into_any())
}
