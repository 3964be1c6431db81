//! A recovered call, as `_make_tool_call` builds it.

use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use super::SalvageError;
use super::dialect::Dialect;
use crate::profile::{Profile, praisonai_depth};
use crate::py::json;
use crate::py::repr::str_of;
use crate::py::{PyException, PyStr, Value};

/// A call's arguments as a dialect read them.
#[derive(Clone, Debug, PartialEq)]
pub enum Args {
    /// Decoded into a value.
    Decoded(Value),
    /// A JSON object or array whose `json.dumps` was written straight from the payload
    /// (`py::json::transcode`): the value is decoded from it only when asked for.
    Written(PyStr),
}

impl Args {
    /// Whether a call can be built from these arguments under `profile`: under
    /// `praisonai`, arguments nested deeper than `json.dumps` can go raise
    /// `RecursionError`, as in the real package. Written arguments never nest so deep.
    pub(crate) fn check(&self, profile: Profile) -> Result<(), SalvageError> {
        match self {
            Args::Decoded(args)
                if profile.raises_interpreter_errors()
                    && args.depth() > praisonai_depth::CALL_ARGUMENTS_ENCODE =>
            {
                let message = "maximum recursion depth exceeded while encoding a JSON object";
                Err(PyException::RecursionError {
                    message: message.into(),
                }
                .into())
            }
            _ => Ok(()),
        }
    }
}

/// A call's decoded arguments: built with the call, or read back from its argument string
/// on first use when that string was written straight from the payload.
#[derive(Clone)]
enum Decoded {
    Built(Value),
    OnFirstUse(OnceLock<Value>),
}

/// One tool call recovered from text.
#[derive(Clone)]
pub struct Call {
    name: Value,
    arguments_text: PyStr,
    arguments_value: Decoded,
    span: Range<usize>,
    dialect: Dialect,
    /// The index the real package's call id uses: the position in the output, or on the
    /// whole-content path the position in the decoded list (skipped entries count).
    position: usize,
}

impl Call {
    /// Builds a call as `_make_tool_call` does: `arguments` is derived from `args`, which
    /// may raise ([`Args::check`]). `position` is the index of its id.
    pub(crate) fn build(
        name: Value,
        args: Args,
        span: Range<usize>,
        at: (Dialect, usize),
        profile: Profile,
    ) -> Result<Call, SalvageError> {
        args.check(profile)?;
        Ok(Call::new(name, args, span, at))
    }

    /// [`Call::build`] of arguments that passed [`Args::check`]. Infallible, so a caller
    /// that pushes calls by the thousand can build each where it is stored: a `Result`
    /// around a call was moved twice before it got there.
    #[inline]
    pub(crate) fn new(
        name: Value,
        args: Args,
        span: Range<usize>,
        (dialect, position): (Dialect, usize),
    ) -> Call {
        let (arguments_text, arguments_value) = match args {
            Args::Written(text) => (text, Decoded::OnFirstUse(OnceLock::new())),
            Args::Decoded(args) => (arguments_string(&args), Decoded::Built(args)),
        };
        Call {
            arguments_text,
            name,
            arguments_value,
            span,
            dialect,
            position,
        }
    }

    /// The same call, found in a text that started `by` bytes later in the reply.
    pub(crate) fn shifted(mut self, by: usize) -> Call {
        self.span = self.span.start + by..self.span.end + by;
        self
    }

    /// The name as recovered: a string in every embedded dialect, any truthy JSON value on
    /// the whole-content path under `praisonai`.
    pub fn name(&self) -> &Value {
        &self.name
    }

    /// The name as Rust text, when it is a string without lone surrogates.
    pub fn name_str(&self) -> Option<&str> {
        self.name.as_py_str()?.as_str()
    }

    /// The argument string the real package hands to dispatch (the wire's `arguments`):
    /// `json.dumps` of a dict or list (CPython's separators, `ensure_ascii`, key order as
    /// written), else `str()` of the value (`"None"`, `"True"`, `"5"`, `"nan"`, or a
    /// string verbatim). Its decoded value is [`Call::arguments_value`].
    pub fn arguments_text(&self) -> &PyStr {
        &self.arguments_text
    }

    /// The decoded arguments the text was made from (usually a `Value::Dict`).
    pub fn arguments_value(&self) -> &Value {
        match &self.arguments_value {
            Decoded::Built(value) => value,
            // Written arguments are `json.dumps` of plain JSON, which reads back as the
            // value it was written from (the `pyjson` fuzz target checks it on every input).
            Decoded::OnFirstUse(value) => value.get_or_init(|| {
                json::read_back(self.arguments_text.as_bytes())
                    .unwrap_or_else(|_| Value::Opaque(self.arguments_text.clone()))
            }),
        }
    }

    /// Where the call was written: byte offsets into the content, from the first byte of
    /// its marker to the last byte of its payload or closer.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// How the call was written.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The id praisonaiagents 1.7.17 gives the call: `call_{name}_{index}_{hash % 10000}`,
    /// where `name` is printed with `str()`, `index` is the call's position in the output
    /// (on the whole-content path, its position in the decoded list, skipped entries
    /// counted), and `content_hash` is Python's `hash()` of the whole reply, which is
    /// seeded per process (`PYTHONHASHSEED`), so only a Python caller can supply it.
    pub fn praisonai_id(&self, content_hash: i64) -> PyStr {
        let mut id = PyStr::from("call_");
        id.push_py(&str_of(&self.name));
        id.push_str(&format!(
            "_{}_{}",
            self.position,
            content_hash.rem_euclid(10_000)
        ));
        id
    }
}

impl PartialEq for Call {
    fn eq(&self, other: &Call) -> bool {
        (
            &self.name,
            &self.arguments_text,
            &self.span,
            self.dialect,
            self.position,
        ) == (
            &other.name,
            &other.arguments_text,
            &other.span,
            other.dialect,
            other.position,
        ) && self.arguments_value() == other.arguments_value()
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("name", &self.name)
            .field("arguments_text", &self.arguments_text)
            .field("arguments_value", self.arguments_value())
            .field("span", &self.span)
            .field("dialect", &self.dialect)
            .field("position", &self.position)
            .finish()
    }
}

/// `json.dumps(args) if isinstance(args, (dict, list)) else str(args)`.
fn arguments_string(args: &Value) -> PyStr {
    match args {
        Value::List(_) | Value::Dict(_) => match json::dumps(args) {
            Ok(text) => PyStr::from(text),
            Err(_) => str_of(args),
        },
        other => str_of(other),
    }
}
