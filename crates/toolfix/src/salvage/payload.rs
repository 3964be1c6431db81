//! Decoding a dialect's JSON payload, and `_name_and_args`.
//!
//! Every embedded dialect decodes its payload here, so the profile differences about
//! payloads live in one place:
//! * `praisonai` decodes from the fence-masked text with CPython's limits, and lets the
//!   exceptions the real package lets escape (`ValueError` for a >4300-digit integer,
//!   `RecursionError` for deep nesting) become a salvage error;
//! * `strict` finds the payload in the masked text the same way, then re-reads it from the
//!   text as written, and treats every decode failure as a rejected payload.

use std::cell::Cell;
use std::ops::Range;

use super::call::Args;
use super::fence::Masked;
use super::schema::{ParamTypes, Written, typed_arguments};
use super::span::Found;
use super::text::skip_space;
use super::{Allowlist, SalvageError};
use crate::profile::{JsonSite, Profile};
use crate::py::json::{self, DecodeError, DecodeLimits, GaveUp, Transcoded, skip_whitespace};
use crate::py::{PyStr, Value};

/// The payload decoder of one salvage run.
pub struct Payloads<'a> {
    masked: &'a Masked<'a>,
    allowed: &'a Allowlist,
    profile: Profile,
    /// The start of the earliest structure whose reading reached the end of the text, so
    /// that more text could change what it is (`stream`); `usize::MAX` when none did.
    open: Cell<usize>,
}

impl<'a> Payloads<'a> {
    pub fn new(masked: &'a Masked<'a>, allowed: &'a Allowlist, profile: Profile) -> Payloads<'a> {
        Payloads {
            masked,
            allowed,
            profile,
            open: Cell::new(usize::MAX),
        }
    }

    /// Records that the structure starting at `start` (a dialect's marker) reached the end
    /// of the text undecided: a streamed reply may go on and change it. Batch salvage
    /// ignores it; streaming salvage emits nothing from `start` on until it is decided.
    pub fn reaches_end(&self, start: usize) {
        self.open.set(self.open.get().min(start));
    }

    /// The start of the earliest structure that reached the end undecided.
    pub fn open(&self) -> Option<usize> {
        Some(self.open.get()).filter(|&at| at != usize::MAX)
    }

    /// The masked text the dialects scan.
    pub fn text(&self) -> &'a [u8] {
        self.masked.text()
    }

    /// Whether `name` was offered.
    pub fn allows(&self, name: &PyStr) -> bool {
        self.allowed.contains(name)
    }

    /// The profile the payloads are decoded under.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Arguments written as `(key, text)` pairs by a format without types, each typed by
    /// the offered tool's schema (`schema`): the call `name` when it was offered.
    pub fn typed_call(&self, name: PyStr, pairs: Vec<(PyStr, Written)>) -> Option<Found> {
        if !self.allows(&name) {
            return None;
        }
        let args = match self.allowed.types(&name) {
            Some(types) => typed_arguments(types, pairs),
            None => typed_arguments(&ParamTypes::default(), pairs),
        };
        Some(Found { name, args })
    }

    /// A call whose name the format writes outside its JSON arguments (`NAME[ARGS]{…}`):
    /// the JSON object at `range` of the masked text, decoded, re-read under `strict`.
    /// `Some(None)` when the name was offered but the arguments are not a JSON object.
    pub fn named_object(
        &self,
        name: PyStr,
        range: Range<usize>,
    ) -> Result<Option<Found>, SalvageError> {
        Ok(match self.loads_payload(range)? {
            Some(args) if args.is_object() && self.allows(&name) => Some(Found {
                name,
                args: args.into_args(),
            }),
            _ => None,
        })
    }

    /// `loads`, written as `json.dumps` writes it when it is plain JSON.
    pub fn loads_payload(&self, range: Range<usize>) -> Result<Option<Payload<'a>>, SalvageError> {
        let text = &self.text()[..range.end];
        let at = skip_whitespace(text, range.start);
        let limits = self.profile.json_limits(JsonSite::Tag);
        if let Ok(plain) = json::transcode_flat_first(text, at, limits) {
            if skip_whitespace(text, plain.end) == range.end && self.as_written(range.clone()) {
                return Ok(Some(Payload::Plain(plain)));
            }
        }
        Ok(self.loads(range)?.map(Payload::Decoded))
    }

    /// `json.loads(group)` for a closed tag's JSON group at `range` of the masked text:
    /// `None` when it is not JSON (`JSONDecodeError`, caught by the real package).
    pub fn loads(&self, range: Range<usize>) -> Result<Option<Value>, SalvageError> {
        let limits = self.profile.json_limits(JsonSite::Tag);
        let decoded = json::loads(&self.text()[range.clone()], limits);
        let value = self.caught(decoded, false)?;
        Ok(value.and_then(|v| self.reread(v, range, Reread::Whole)))
    }

    /// `_json_object_at(scan_text, pos)`: skips `str.isspace` characters, then
    /// `raw_decode`s (a `ValueError` is caught here by the real package, unlike in tags).
    /// `start` is where the structure reading it begins: a decode cut short by the end of
    /// the text leaves it open (`reaches_end`).
    pub fn object_at(&self, start: usize, pos: usize) -> Result<ObjectAt<'a>, SalvageError> {
        let text = self.text();
        let at = skip_space(text, pos);
        let limits = self.profile.json_limits(JsonSite::OpenEnded);
        let gave_up = match json::transcode_flat_first(text, at, limits) {
            Ok(plain) if plain.is_object() && self.as_written(at..plain.end) => {
                let end = plain.end;
                let value = Some(Payload::Plain(plain));
                return Ok(ObjectAt::Object { value, end });
            }
            Ok(_) => GaveUp::Unplain,
            Err(gave_up) => gave_up,
        };
        let decoded = json::raw_decode_after(gave_up, text, at, limits);
        if at == text.len()
            || decoded
                .as_ref()
                .is_err_and(|e| e.may_be_cut_short(text.len()))
        {
            self.reaches_end(start);
        }
        Ok(match self.caught(decoded, true)? {
            Some((value @ Value::Dict(_), end)) => ObjectAt::Object {
                value: self
                    .reread(value, at..end, Reread::Prefix)
                    .map(Payload::Decoded),
                end,
            },
            _ => ObjectAt::NotObject { at },
        })
    }

    /// The JSON value that starts exactly at `pos` of the scanned text, and its end: what
    /// the token dialects read their payloads with (`strict` and `portable` only, so a
    /// failure is no value, never an error). `start` is where the structure reading it
    /// begins: a decode cut short by the end of the text leaves it open.
    pub fn value_at(&self, start: usize, pos: usize) -> Option<(Payload<'a>, usize)> {
        let text = self.text();
        let limits = self.profile.json_limits(JsonSite::OpenEnded);
        let decoded = read(text, pos, limits);
        if pos >= text.len()
            || decoded
                .as_ref()
                .is_err_and(|e| e.may_be_cut_short(text.len()))
        {
            self.reaches_end(start);
        }
        decoded.ok()
    }

    /// `value_at`, or when no value reads at `pos`, how far the payload reaches: the
    /// offset the decoder stopped at, or the end of the text when a string never closes
    /// (a reply cut inside an argument) or the value nests too deep. A dialect reserves
    /// `pos..reach` of a payload that does not read, so a call quoted in the part that was
    /// written never runs (`docs/guarantees.md` G4).
    pub fn payload_or_reach(&self, pos: usize) -> Result<(Payload<'a>, usize), usize> {
        let limits = self.profile.json_limits(JsonSite::OpenEnded);
        read(self.text(), pos, limits).map_err(|error| self.reach(pos, error))
    }

    /// `payload_or_reach` for arguments that must be a JSON object: the arguments, `None`
    /// when the value is not an object, and its end. Turned into `Args` where it is read,
    /// a transcoded payload is not moved through the results of its callers (a flood of
    /// small calls spends more on those moves than on reading the JSON).
    pub fn object_args_or_reach(&self, pos: usize) -> Result<(Option<Args>, usize), usize> {
        let text = self.text();
        let limits = self.profile.json_limits(JsonSite::OpenEnded);
        match json::transcode_object_text(text, pos, limits) {
            Ok((written, end)) => Ok((written.map(Args::Written), end)),
            Err(gave_up) => match json::raw_decode_after(gave_up, text, pos, limits) {
                Ok((value @ Value::Dict(_), end)) => Ok((Some(Args::Decoded(value)), end)),
                Ok((_, end)) => Ok((None, end)),
                Err(error) => Err(self.reach(pos, error)),
            },
        }
    }

    /// `payload_or_reach` without building the value: where it ends, or how far it reaches.
    pub fn check_or_reach(&self, pos: usize) -> Result<((), usize), usize> {
        let limits = self.profile.json_limits(JsonSite::OpenEnded);
        match json::raw_check(self.text(), pos, limits) {
            Ok(end) => Ok(((), end)),
            Err(error) => Err(self.reach(pos, error)),
        }
    }

    /// How far a payload at `pos` that raised `error` reaches.
    fn reach(&self, pos: usize, error: DecodeError) -> usize {
        let len = self.text().len();
        match error {
            // Cut short by the end of the text, it reaches the end (a streamed reply may
            // complete it: `tru` may become `true`).
            DecodeError::Syntax { pos: at, .. } if !error.may_be_cut_short(len) => {
                at.clamp(pos, len)
            }
            _ => len,
        }
    }

    /// `_name_and_args(data, allowed)`: the name is `data["name"]`, or `data["tool"]` when
    /// that is falsy; it must be a `str` that was offered, exactly. The arguments are
    /// `data["arguments"]` when present (even `null`), else `data["parameters"]`, else `{}`.
    pub fn name_and_args(&self, data: Payload<'_>) -> Option<Found> {
        let data = match data {
            Payload::Plain(plain) => return self.plain_name_and_args(plain),
            Payload::Decoded(value) => value,
        };
        let Value::Dict(mut dict) = data else {
            return None;
        };
        let name = match dict.get("name".as_bytes()) {
            Some(v) if v.is_truthy() => v,
            _ => dict.get("tool".as_bytes())?,
        };
        let name = name.as_py_str().filter(|n| self.allows(n))?.clone();
        let args = dict
            .swap_remove("arguments".as_bytes())
            .or_else(|| dict.swap_remove("parameters".as_bytes()))
            .unwrap_or_else(|| Value::Dict(Default::default()));
        Some(Found::new(name, args))
    }

    /// `name_and_args` of a plain JSON object, read from what `transcode` wrote.
    fn plain_name_and_args(&self, plain: Transcoded<'_>) -> Option<Found> {
        if !plain.is_object() {
            return None;
        }
        let text = self.text();
        let name = match plain.get(text, "name") {
            Some(name) if truthy(name) => name,
            _ => plain.get(text, "tool")?,
        };
        let Value::Str(name) = read_back(name)? else {
            return None;
        };
        if !self.allows(&name) {
            return None;
        }
        let args = arguments_member(plain, text);
        let args = match args.as_bytes()[0] {
            b'{' | b'[' => Args::Written(args),
            _ => Args::Decoded(read_back(args.as_bytes())?),
        };
        Some(Found { name, args })
    }

    /// Whether a payload at `range` of the masked text reads as it was written: no fence
    /// was masked inside it, or the profile decodes what it masked (`reread`).
    fn as_written(&self, range: Range<usize>) -> bool {
        if !self.profile.decodes_unmasked_payloads() {
            return true;
        }
        let start = self.masked.to_original(range.start);
        let end = self.masked.to_original(range.end);
        self.masked.original()[start..end] == self.text()[range]
    }

    /// Turns a decode result into what the real package sees after its `except` clause:
    /// `None` for a caught exception, `Err` for one that escapes.
    fn caught<T>(
        &self,
        decoded: Result<T, DecodeError>,
        value_error_caught: bool,
    ) -> Result<Option<T>, SalvageError> {
        match decoded {
            Ok(v) => Ok(Some(v)),
            Err(_) if !self.profile.raises_interpreter_errors() => Ok(None),
            Err(DecodeError::Syntax { .. }) => Ok(None),
            Err(DecodeError::IntTooLong { .. }) if value_error_caught => Ok(None),
            Err(e) => Err(SalvageError::from(e)),
        }
    }

    /// Under `strict`, re-reads a payload found in the masked text from the original text
    /// of the same span; a payload that does not re-read to the same extent is rejected.
    fn reread(&self, masked_value: Value, range: Range<usize>, how: Reread) -> Option<Value> {
        if !self.profile.decodes_unmasked_payloads() {
            return Some(masked_value);
        }
        let original = self.masked.original();
        let start = self.masked.to_original(range.start);
        let end = self.masked.to_original(range.end);
        // No fence inside the span: the text as written is the text decoded, and strict
        // decodes both with the same limits, so re-reading would give the same value.
        if original[start..end] == self.text()[range] {
            return Some(masked_value);
        }
        let limits = self.profile.json_limits(JsonSite::Tag);
        match how {
            Reread::Whole => json::loads(&original[start..end], limits).ok(),
            Reread::Prefix => match json::raw_decode(original, start, limits) {
                Ok((value, e)) if e == end => Some(value),
                _ => None,
            },
        }
    }
}

/// The JSON value that starts exactly at `pos` of `text` (`raw_decode`), and its end:
/// transcoded when it is plain JSON, decoded otherwise.
fn read(
    text: &[u8],
    pos: usize,
    limits: DecodeLimits,
) -> Result<(Payload<'_>, usize), DecodeError> {
    match json::transcode_flat_first(text, pos, limits) {
        Ok(plain) => {
            let end = plain.end;
            Ok((Payload::Plain(plain), end))
        }
        Err(gave_up) => json::raw_decode_after(gave_up, text, pos, limits)
            .map(|(value, end)| (Payload::Decoded(value), end)),
    }
}

/// A JSON payload as read.
pub enum Payload<'t> {
    /// Plain JSON, written as `json.dumps` writes it (`py::json::transcode`).
    Plain(Transcoded<'t>),
    /// Decoded.
    Decoded(Value),
}

impl Payload<'_> {
    /// Whether it is a JSON object.
    pub fn is_object(&self) -> bool {
        match self {
            Payload::Plain(plain) => plain.is_object(),
            Payload::Decoded(value) => matches!(value, Value::Dict(_)),
        }
    }

    /// The payload as a call's arguments.
    pub fn into_args(self) -> Args {
        match self {
            Payload::Plain(plain) => Args::Written(plain.into_text()),
            Payload::Decoded(value) => Args::Decoded(value),
        }
    }
}

/// The value of a member `transcode` wrote (a name, scalar arguments).
pub fn read_back(written: &[u8]) -> Option<Value> {
    // What `transcode` writes is ASCII, so a string without a backslash is its own text.
    let plain = written
        .strip_prefix(b"\"")
        .and_then(|s| s.strip_suffix(b"\""))
        .filter(|s| !s.iter().any(|&b| b == b'\\' || b == b'"'));
    match plain {
        Some(text) => Some(Value::Str(PyStr::from_generalized_utf8(text))),
        None => json::read_back(written).ok(),
    }
}

/// The `arguments` member of a transcoded call object, else its `parameters`, else `{}`,
/// as `json.dumps` writes it (in the buffer the object was written in).
pub fn arguments_member(plain: Transcoded<'_>, text: &[u8]) -> PyStr {
    let member = plain
        .member(text, "arguments")
        .or_else(|| plain.member(text, "parameters"))
        .cloned();
    match member {
        Some(member) => plain.into_value_text(&member),
        None => PyStr::from("{}"),
    }
}

/// Python truthiness of a value as `json.dumps` writes it.
fn truthy(written: &[u8]) -> bool {
    !matches!(written, b"\"\"" | b"0" | b"false" | b"null" | b"[]" | b"{}")
}

/// What `_json_object_at` found.
pub enum ObjectAt<'t> {
    /// A JSON object ending at `end` of the masked text; `value` is `None` when `strict`
    /// rejected it on re-reading.
    Object {
        value: Option<Payload<'t>>,
        end: usize,
    },
    /// No object; the skipped whitespace ends at `at`.
    NotObject { at: usize },
}

/// How a payload is delimited: a whole group (`json.loads`) or a prefix (`raw_decode`).
#[derive(Clone, Copy)]
enum Reread {
    Whole,
    Prefix,
}
