//! Reading a call's argument string as the loop does (`_extract_tool_call_info`,
//! `_parse_tool_call_arguments`), and the text of the `JSONDecodeError` it can raise.

use super::calls::{FoundCall, Origin};
use crate::Profile;
use crate::profile::JsonSite;
use crate::py::json::{self, DecodeError};
use crate::py::{PyStr, Value};

/// What reading a call's arguments gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    /// The decoded value (an object, usually).
    Value(Value),
    /// The string is not JSON: the call is answered with a parse error and not run.
    Failed,
    /// `json.loads` raised something other than `JSONDecodeError` (a >4300-digit integer,
    /// nesting past the interpreter's limit): it escapes the loop under `praisonai`.
    Escaped,
}

/// The call's arguments as the loop reads them.
///
/// A native call (an object) reads an empty string as `{}`; a recovered call (a dict)
/// does too, except on Ollama, where `json.loads("")` fails.
pub fn parse(call: &FoundCall, ollama: bool, profile: Profile) -> Parsed {
    let text = &call.arguments;
    let empty_is_object = match call.origin {
        Origin::Native => true,
        Origin::Salvaged | Origin::Older => !ollama,
    };
    if text.is_empty() && empty_is_object {
        return Parsed::Value(Value::Dict(Default::default()));
    }
    match json::loads(text.as_bytes(), profile.json_limits(JsonSite::Tag)) {
        Ok(value) => Parsed::Value(value),
        Err(DecodeError::Syntax { .. }) => Parsed::Failed,
        Err(_) if profile.raises_interpreter_errors() => Parsed::Escaped,
        Err(_) => Parsed::Failed,
    }
}

/// `str(e)` of the `JSONDecodeError` `json.loads(text)` raises, with CPython's
/// `: line L column C (char N)` suffix (positions in code points), or `None` when the
/// text decodes (or fails otherwise).
pub fn decode_error_text(text: &PyStr, profile: Profile) -> Result<Option<PyStr>, DecodeError> {
    match json::loads(text.as_bytes(), profile.json_limits(JsonSite::Tag)) {
        Ok(_) => Ok(None),
        Err(DecodeError::Syntax { msg, pos }) => {
            let before = &text.as_bytes()[..pos.min(text.byte_len())];
            let char_index = PyStr::from_generalized_utf8(before).char_len();
            let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
            let column = match before.iter().rposition(|&b| b == b'\n') {
                Some(nl) => PyStr::from_generalized_utf8(&before[nl + 1..]).char_len() + 1,
                None => char_index + 1,
            };
            Ok(Some(PyStr::from(format!(
                "{msg}: line {line} column {column} (char {char_index})"
            ))))
        }
        Err(other) => Err(other),
    }
}
