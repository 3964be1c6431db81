//! Calls in the native formats of today's model families, the dialects only `strict` and
//! `portable` recover (`crates/toolfix/src/salvage/dialect/`, `docs/dialects/`): Mistral's
//! `[TOOL_CALLS]` (a v3 array or v11 `NAME[ARGS]{…}` calls), Qwen3 XML, DeepSeek (V3,
//! V3.1, and the DSML of V3.2, V4 and V4.1), GLM, Kimi K2, Harmony, Gemma (FunctionGemma
//! and Gemma 4), MiniMax, Granite, Phi-4, pythonic lists in their wrappers, and Llama's
//! `;`-separated calls after one `<|python_tag|>`.
//!
//! One segment is one block of its format holding one or more calls, written as the
//! model's chat template writes them, with the whitespace and variants the scanners
//! accept. Each call knows its span and what it means, and, where the format reads all
//! of a block or nothing, the offset the text must reach for the call to be recovered
//! (a truncated reply cuts it). Arguments written as text (Qwen3 XML, GLM, MiniMax, DSML)
//! use keys some of which the offered tools' schema types (`names::SCHEMA`), so the
//! values convert by type when the reply's tools carry schemas and stay strings when not.

use std::ops::Range;
use std::sync::LazyLock;

use arbitrary::Result;

use super::call::Damage;
use super::choice::Gen;
use super::json::{Json, JsonStyle, render_string};
use super::markers::{concat, functools_word};
use super::names::{CallName, Offered, ParamType, TEXT_KEYS};
use super::python::{self, PyStyle, is_identifier};
use super::text::space;
use toolfix::py::json::{self, DecodeLimits};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::salvage::Dialect;
use toolfix::salvage::tokens::{
    deepseek, function, gemma, glm, granite, harmony, kimi, minimax, mistral, python_tag, pythonic,
    qwen_xml, tool_call,
};

/// A native format, with its variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `[TOOL_CALLS][{"name", "arguments"}, …]` (v3 to v7 tokenizers), entries with an
    /// `"id"` when `ids`.
    MistralArray { ids: bool },
    /// `[TOOL_CALLS]NAME[ARGS]{…}` (v11 and later), `[CALL_ID]ID` before `[ARGS]` when
    /// `ids`; later calls repeat `[TOOL_CALLS]` or follow directly.
    MistralV11 { ids: bool },
    /// `<function=NAME><parameter=K>V</parameter></function>`, in `<tool_call>` when
    /// `wrapped`, each value between newlines when `newlines`.
    QwenXml { wrapped: bool, newlines: bool },
    /// `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and a ```` ```json ```` fence.
    DeepSeekV3,
    /// `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`.
    DeepSeekV31,
    /// DeepSeek's DSML `invoke`s: V3.2's in `<｜DSML｜function_calls>`, V4's in
    /// `<｜DSML｜tool_calls>`, V4.1's in `<｜DSML｜ calls>` (`deepseek::DSML_VERSIONS`); a call
    /// without arguments closes its invoke itself (`<…invoke name="NAME"/>`) when
    /// `self_closing`.
    Dsml { version: usize, self_closing: bool },
    /// `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`.
    Glm { newlines: bool },
    /// `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>`.
    Kimi { prefix: bool },
    /// A Harmony `commentary` message to `functions.NAME`: its header (`HEADERS`) and the
    /// token that ends it (`harmony::ENDS`).
    Harmony { header: usize, end: usize },
    /// `<start_function_call>call:NAME{…}<end_function_call>` (FunctionGemma), or
    /// Gemma 4's `<|tool_call>call:NAME{…}<tool_call|>` when `gen4`.
    Gemma { gen4: bool },
    /// MiniMax M2's `invoke`s in `<minimax:tool_call>`.
    MiniMax,
    /// `<|tool_call|>[…]`.
    Granite,
    /// `functools[…]`.
    Phi4,
    /// A pythonic list between one of `WRAPPERS`.
    Pythonic { wrapper: usize },
    /// Llama 3.x: `<|python_tag|>{…}; {…}`, each object a call.
    PythonTagChain,
}

/// The wrappers pythonic lists are written in (Llama 4, LFM2).
const WRAPPERS: [(&str, &str); 2] = [
    (pythonic::PYTHON_START, pythonic::PYTHON_END),
    (pythonic::TOOL_CALL_START, pythonic::TOOL_CALL_END),
];

/// Harmony headers, before and after the recipient's name: the channel before or after
/// the recipient, with or without `<|start|>assistant` and a `<|constrain|>` type.
static HEADERS: LazyLock<[(&str, &str); 4]> = LazyLock::new(|| {
    use harmony::{CHANNEL, CONSTRAIN, FUNCTIONS, MESSAGE, RECIPIENT, START};
    let constrained = concat(&[" ", CONSTRAIN, "json", MESSAGE]);
    let to_functions = concat(&[CHANNEL, "commentary ", RECIPIENT, FUNCTIONS]);
    [
        (concat(&[START, "assistant", to_functions]), constrained),
        (
            concat(&[START, "assistant ", RECIPIENT, FUNCTIONS]),
            concat(&[CHANNEL, "commentary json", MESSAGE]),
        ),
        (to_functions, constrained),
        (to_functions, MESSAGE),
    ]
});

impl Form {
    /// The dialect salvage reports for its calls.
    pub fn dialect(self) -> Dialect {
        match self {
            Form::MistralArray { .. } | Form::MistralV11 { .. } => Dialect::Mistral,
            Form::QwenXml { .. } => Dialect::QwenXml,
            Form::DeepSeekV3 | Form::DeepSeekV31 | Form::Dsml { .. } => Dialect::DeepSeek,
            Form::Glm { .. } => Dialect::Glm,
            Form::Kimi { .. } => Dialect::Kimi,
            Form::Harmony { .. } => Dialect::Harmony,
            Form::Gemma { .. } => Dialect::Gemma,
            Form::MiniMax => Dialect::MiniMax,
            Form::Granite => Dialect::Granite,
            Form::Phi4 => Dialect::Phi4,
            Form::Pythonic { .. } => Dialect::Pythonic,
            Form::PythonTagChain => Dialect::PythonTag,
        }
    }

    /// Any form, each dialect about equally likely.
    fn generate(g: &mut Gen<'_, '_>) -> Result<Form> {
        Ok(match g.below(13)? {
            0 if g.any()? => Form::MistralArray { ids: g.any()? },
            0 => Form::MistralV11 { ids: g.any()? },
            1 => Form::QwenXml {
                wrapped: g.any()?,
                newlines: g.chance(3, 4)?,
            },
            2 if g.any()? => g.pick(&[Form::DeepSeekV3, Form::DeepSeekV31])?,
            2 => Form::Dsml {
                version: g.below(deepseek::DSML_VERSIONS.len())?,
                self_closing: g.any()?,
            },
            3 => Form::Glm { newlines: g.any()? },
            4 => Form::Kimi {
                prefix: g.chance(3, 4)?,
            },
            5 => Form::Harmony {
                header: g.below(HEADERS.len())?,
                end: g.below(harmony::ENDS.len())?,
            },
            6 => Form::Gemma { gen4: g.any()? },
            7 => Form::MiniMax,
            8 => Form::Granite,
            9 => Form::Phi4,
            10 => Form::Pythonic {
                wrapper: g.below(WRAPPERS.len())?,
            },
            11 => Form::PythonTagChain,
            _ => Form::MistralV11 { ids: false },
        })
    }

    /// Whether the format can write `name` as a call's name.
    pub fn fits(self, name: &str) -> bool {
        let no_space = !name.is_empty() && !name.chars().any(char::is_whitespace);
        match self {
            Form::MistralV11 { .. } => no_space && !name.contains('[') && name.len() <= 256,
            Form::QwenXml { .. } | Form::Harmony { .. } => no_space && !name.contains(['<', '>']),
            Form::Glm { .. } => {
                name.len() <= 256
                    && !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b) || b >= 0x80)
            }
            Form::Pythonic { .. } => is_identifier(name),
            Form::Gemma { .. } => !name.trim().is_empty() && !name.contains('{'),
            Form::DeepSeekV3 | Form::DeepSeekV31 | Form::Kimi { .. } => {
                !name.is_empty() && name.trim() == name && !name.contains('\n')
            }
            Form::Dsml { .. } | Form::MiniMax => !name.is_empty() && !name.contains(['"', '>']),
            Form::MistralArray { .. } | Form::Granite | Form::Phi4 | Form::PythonTagChain => true,
        }
    }

    /// Whether arguments are written as text (typed by the schema) rather than as a value.
    fn writes_text(self) -> bool {
        matches!(
            self,
            Form::QwenXml { .. } | Form::Glm { .. } | Form::Dsml { .. } | Form::MiniMax
        )
    }
}

/// The keys of a call object in an array (Mistral v3, Granite, Phi-4) or after
/// `<|python_tag|>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKeys {
    NameArguments,
    NameParameters,
    /// No arguments key: the arguments are `{}`.
    NameOnly,
    /// `tool` instead of `name` (only `<|python_tag|>` reads it).
    ToolParameters,
}

/// An argument written as text, and how.
#[derive(Clone, Debug)]
pub struct TextArg {
    pub key: &'static str,
    pub value: Json,
    /// How a boolean is written (`true`, `True`, `TRUE`); the schema reads any case.
    pub bool_case: usize,
    /// DSML's `string="true"` (`Some(true)`), `string="false"` (`Some(false)`), or none.
    pub string_attr: Option<bool>,
}

/// A call's arguments: a JSON value (written as JSON, Gemma's syntax or Python literals),
/// or text per key.
#[derive(Clone, Debug)]
pub enum Args {
    Value(Json),
    Text(Vec<TextArg>),
}

/// One call of a block.
#[derive(Clone, Debug)]
pub struct NativeCall {
    pub name: CallName,
    pub args: Args,
    pub keys: ObjectKeys,
    /// For Mistral v11: whether `[TOOL_CALLS]` is repeated before a later call.
    pub marker: bool,
    /// The ReAct step quoted in the arguments (clean calls to made-up names), and the
    /// offered name it calls.
    pub quoted: Option<(String, PyStr)>,
}

/// A block of one native format.
#[derive(Clone, Debug)]
pub struct NativeSpec {
    pub form: Form,
    pub calls: Vec<NativeCall>,
    /// Whitespace the format allows: after the opener, between calls, before the closer.
    pub pads: [&'static str; 3],
    /// Whether the calls sit in their section tokens (DeepSeek, Kimi).
    pub section: bool,
    pub style: JsonStyle,
    pub py: PyStyle,
    /// Gemma: whether strings are written between escape tokens (else as JSON strings).
    pub escaped: bool,
    pub damage: Damage,
}

/// What writing one call of a block produced.
pub struct Piece {
    pub span: Range<usize>,
    /// The call it means, when it means one.
    pub intended: Option<(PyStr, Value)>,
    /// How far the text must reach for the call to be recovered.
    pub requires: usize,
    /// A cut in `.0` still recovers the call, with its span ending at `.1` (Harmony
    /// without its end token, Qwen3 XML without `</tool_call>`, Gemma 4 and Llama 4 without
    /// the closer a server strips as a stop token).
    pub short: Option<(Range<usize>, ShortEnd)>,
    /// The ReAct step the arguments quote, the name it calls, and from which cut on the
    /// cut call still reserves it.
    pub quoted: Option<(Range<usize>, PyStr, usize)>,
}

/// Where the span of a call that a cut reply still recovers ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShortEnd {
    /// At this offset, wherever the cut falls.
    At(usize),
    /// Where the reply is cut: a block whose closing token a server may strip as a stop
    /// token runs to the end of the reply.
    Cut,
}

impl NativeSpec {
    /// A block of one to three calls (one per block for the formats whose blocks hold one).
    pub fn generate(g: &mut Gen<'_, '_>, offered: &Offered) -> Result<NativeSpec> {
        let form = Form::generate(g)?;
        let count = 1 + g.upto(2)?;
        let calls = (0..count)
            .map(|_| NativeCall::generate(g, offered, form))
            .collect::<Result<Vec<_>>>()?;
        let hostile = g.hostile();
        Ok(NativeSpec {
            form,
            calls,
            pads: [pad(g, form)?, pad(g, form)?, pad(g, form)?],
            section: g.any()?,
            style: super::json::JsonStyle::generate(g)?,
            py: PyStyle::generate(g)?,
            escaped: g.chance(3, 4)?,
            damage: if hostile && g.chance(1, 3)? {
                g.pick(&[
                    Damage::NoCloser,
                    Damage::Cut(1),
                    Damage::Cut(7),
                    Damage::ExtraBrace,
                ])?
            } else {
                Damage::None
            },
        })
    }

    /// Appends the block to `out`; `typed`: whether the offered tools carry schemas.
    pub fn render(&self, offered: &Offered, typed: bool, out: &mut String) -> Vec<Piece> {
        let mut w = BlockWriter {
            spec: self,
            offered,
            typed,
            out,
            pieces: Vec::new(),
        };
        w.block();
        let pieces = w.pieces;
        if self.damage != Damage::None {
            // A damaged block means nothing; where salvage draws the line is for the
            // invariants to judge, not the round trip.
            return pieces
                .into_iter()
                .map(|p| Piece {
                    intended: None,
                    quoted: None,
                    ..p
                })
                .collect();
        }
        pieces
    }
}

/// Whitespace a format allows at its pads: ASCII inside pythonic lists, any `str.isspace`
/// run elsewhere.
fn pad(g: &mut Gen<'_, '_>, form: Form) -> Result<&'static str> {
    match form {
        Form::Pythonic { .. } => g.pick(&["", " ", "\n", "\n  "]),
        Form::MistralArray { .. } | Form::Granite | Form::Phi4 => g.pick(&["", " ", "\n", "\t"]),
        _ => space(g),
    }
}

impl NativeCall {
    fn generate(g: &mut Gen<'_, '_>, offered: &Offered, form: Form) -> Result<NativeCall> {
        let mut name = CallName::generate(g, true)?;
        let hostile = g.hostile();
        if !hostile && !name.text(offered).is_some_and(|n| form.fits(&n)) {
            name = CallName::Invented("wire_transfer");
        }
        let mut quoted = None;
        let args = if form.writes_text() {
            let mut args = text_args(g, form)?;
            if let (false, CallName::Invented(_)) = (hostile, &name) {
                if let Some((step, called)) = CallName::quoted_step(offered) {
                    args.push(TextArg {
                        key: "quoted",
                        value: Json::Str(PyStr::from(step.as_str())),
                        bool_case: 0,
                        string_attr: Some(true),
                    });
                    quoted = Some((step, called));
                }
            }
            Args::Text(args)
        } else {
            let mut args = g.nested(Json::arguments)?;
            if let (Form::Pythonic { .. }, false, Json::Object(members)) =
                (form, hostile, &mut args)
            {
                for (key, _) in members.iter_mut() {
                    *key = python::keyword(key);
                }
            }
            if let (false, CallName::Invented(_), Json::Object(members)) =
                (hostile, &name, &mut args)
            {
                if let Some((step, called)) = CallName::quoted_step(offered) {
                    members.push((PyStr::from("quoted"), Json::Str(PyStr::from(step.as_str()))));
                    quoted = Some((step, called));
                }
            }
            Args::Value(args)
        };
        let keys = match (form, hostile) {
            (_, true) => g.pick(&[
                ObjectKeys::NameArguments,
                ObjectKeys::NameParameters,
                ObjectKeys::NameOnly,
                ObjectKeys::ToolParameters,
            ])?,
            (Form::PythonTagChain, false) => g.pick(&[
                ObjectKeys::NameArguments,
                ObjectKeys::NameParameters,
                ObjectKeys::ToolParameters,
            ])?,
            (_, false) => g.pick(&[ObjectKeys::NameArguments, ObjectKeys::NameParameters])?,
        };
        Ok(NativeCall {
            name,
            args,
            keys,
            marker: g.any()?,
            quoted,
        })
    }

    /// The arguments as the format means them (`typed`: the tools carry schemas).
    fn value(&self, form: Form, typed: bool) -> Option<Value> {
        match &self.args {
            Args::Value(json) => match (form, self.keys) {
                (
                    Form::MistralArray { .. } | Form::Granite | Form::Phi4 | Form::PythonTagChain,
                    ObjectKeys::NameOnly,
                ) => Some(Value::Dict(Dict::default())),
                _ => json.to_value(),
            },
            Args::Text(args) => {
                let mut dict = Dict::default();
                for arg in args {
                    let written = arg.text();
                    let read = match form {
                        Form::QwenXml { newlines, .. } if newlines || framed(&written) => {
                            one_newline_off(&format!("\n{written}\n")).to_owned()
                        }
                        Form::QwenXml { .. } => one_newline_off(&written).to_owned(),
                        _ => written,
                    };
                    dict.insert(PyStr::from(arg.key), arg.meant(form, typed, &read)?);
                }
                Some(Value::Dict(dict))
            }
        }
    }
}

/// Up to four text arguments, each key's value of its schema type. Qwen3 XML writes a key
/// as a tag name (`<parameter=K>`), which holds no whitespace, so a key with a space is not
/// one of its keys (`docs/dialects/qwen_xml.md`).
fn text_args(g: &mut Gen<'_, '_>, form: Form) -> Result<Vec<TextArg>> {
    let n = g.upto(4)?;
    (0..n)
        .map(|_| {
            let (mut key, mut ty) = g.pick(&TEXT_KEYS)?;
            if matches!(form, Form::QwenXml { .. }) && key.contains(' ') {
                (key, ty) = TEXT_KEYS[0];
            }
            let value = g.nested(|g| ty.value(g))?;
            let string_attr = match (&value, g.below(3)?) {
                (_, 0) => None,
                (Json::Str(_), _) => Some(true),
                _ => Some(false),
            };
            Ok(TextArg {
                key,
                value,
                bool_case: g.below(3)?,
                string_attr,
            })
        })
        .collect()
}

impl TextArg {
    /// The text written for the value (JSON values in `json.dumps`'s layout).
    fn text(&self) -> String {
        match &self.value {
            Json::Str(s) => s.to_string(),
            Json::Bool(b) if self.string_attr != Some(false) => {
                let text = if *b { "true" } else { "false" };
                match self.bool_case {
                    0 => text.to_owned(),
                    1 => {
                        let mut c = text.chars();
                        c.next().map_or(String::new(), |f| {
                            f.to_ascii_uppercase().to_string() + c.as_str()
                        })
                    }
                    _ => text.to_ascii_uppercase(),
                }
            }
            other => {
                let mut text = String::new();
                other.render(&JsonStyle::DUMPS, &mut text);
                text
            }
        }
    }

    /// What salvage makes of the value, given the text it reads (`read`): DSML's `string`
    /// attribute decides when written, else the schema's type when the tools carry
    /// schemas, else the text, which GLM reads as JSON when it is a JSON value other than
    /// a string (its template writes non-strings as JSON: `docs/dialects/glm.md`).
    fn meant(&self, form: Form, typed: bool, read: &str) -> Option<Value> {
        let declared = TEXT_KEYS
            .iter()
            .find(|(k, _)| *k == self.key)
            .map(|(_, t)| *t);
        match (form, self.string_attr) {
            (Form::Dsml { .. }, Some(true)) => return Some(Value::Str(PyStr::from(read))),
            (Form::Dsml { .. }, Some(false)) => return self.value.to_value(),
            _ => {}
        }
        match declared {
            // A string is the text as read: Qwen3 XML's trimmed newlines (a value ending in
            // `\r`, framed by `\n`, loses that `\r` to the CRLF the reader trims) are not
            // the value's.
            Some(ParamType::String) if typed => Some(Value::Str(PyStr::from(read))),
            Some(ty) if typed && ty != ParamType::Untyped => self.value.to_value(),
            _ if matches!(form, Form::Glm { .. }) => Some(json_or_text(read)),
            _ => Some(Value::Str(PyStr::from(read))),
        }
    }
}

/// `read` decoded as one JSON value when it is one and not a string, else `read` as text.
fn json_or_text(read: &str) -> Value {
    let limits = DecodeLimits {
        // The depth `strict` decodes to; the grammar's values are far shallower.
        max_depth: 512,
        int_max_str_digits: None,
    };
    json::loads(read.as_bytes(), limits)
        .ok()
        .filter(|v| !matches!(v, Value::Str(_)))
        .unwrap_or_else(|| Value::Str(PyStr::from(read)))
}

/// Writes one block, collecting its pieces.
struct BlockWriter<'a> {
    spec: &'a NativeSpec,
    offered: &'a Offered,
    typed: bool,
    out: &'a mut String,
    pieces: Vec<Piece>,
}

impl BlockWriter<'_> {
    fn block(&mut self) {
        let spec = self.spec;
        let [p0, p1, p2] = spec.pads;
        match spec.form {
            Form::MistralArray { ids } => self.array(mistral::TOOL_CALLS, p0, ids),
            Form::Granite => self.array(granite::TOOL_CALL, p0, false),
            Form::Phi4 => self.array(functools_word(), "", false),
            Form::MistralV11 { ids } => {
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(p1);
                    }
                    let start = self.out.len();
                    if k == 0 || call.marker {
                        self.out.push_str(mistral::TOOL_CALLS);
                        self.out.push_str(p0);
                    }
                    self.out.push_str(&self.name_text(call));
                    if ids {
                        self.out.push_str(mistral::CALL_ID);
                        self.out.push_str(p2);
                        self.out.push_str(&format!("a1B2c3D{k}e"));
                    }
                    self.out.push_str(mistral::ARGS);
                    self.out.push_str(p2);
                    let args = self.json_text(call);
                    self.out.push_str(&self.damaged(args));
                    let end = self.out.len();
                    // A call cut off reserves the rest of the reply (`docs/dialects/mistral.md`).
                    self.piece(call, start..end, end, None, start);
                }
            }
            Form::QwenXml { wrapped, newlines } => {
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push('\n');
                    }
                    let start = self.out.len();
                    if wrapped {
                        self.out.push_str(tool_call::OPEN);
                        self.out.push('\n');
                    }
                    self.out.push_str(function::OPEN);
                    self.out.push_str(&self.name_text(call));
                    self.out.push_str(">\n");
                    for arg in text(call) {
                        self.out.push_str(qwen_xml::PARAMETER);
                        self.out.push_str(arg.key);
                        self.out.push('>');
                        let value = self.text_value(arg);
                        // The reader trims one newline (or CRLF) at each end of a value: one
                        // that begins or ends with a newline is written with the newlines
                        // around it, or that newline would be read as framing.
                        let frame = newlines || framed(&value);
                        if frame {
                            self.out.push('\n');
                        }
                        self.out.push_str(&value);
                        if frame {
                            self.out.push('\n');
                        }
                        self.out.push_str(qwen_xml::PARAMETER_CLOSE);
                        self.out.push('\n');
                    }
                    self.out.push_str(&self.closer(function::CLOSE));
                    let function_end = self.out.len();
                    if wrapped {
                        self.out.push_str(p0);
                        self.out.push_str(&self.closer(tool_call::CLOSE));
                    }
                    let end = self.out.len();
                    let short = wrapped.then_some((function_end..end, ShortEnd::At(function_end)));
                    self.piece(call, start..end, end, short, start);
                }
            }
            Form::DeepSeekV3 | Form::DeepSeekV31 => {
                if spec.section {
                    self.out.push_str(deepseek::CALLS_BEGIN);
                }
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(p1);
                    }
                    let start = self.out.len();
                    self.out.push_str(deepseek::CALL_BEGIN);
                    let name = self.name_text(call);
                    let args = self.damaged(self.json_text(call));
                    if spec.form == Form::DeepSeekV3 {
                        self.out.push_str("function");
                        self.out.push_str(deepseek::SEP);
                        self.out.push_str(&name);
                        self.out.push_str("\n```json\n");
                        self.out.push_str(&args);
                        self.out.push_str("\n```");
                    } else {
                        self.out.push_str(&name);
                        self.out.push_str(deepseek::SEP);
                        self.out.push_str(&args);
                    }
                    self.out.push_str(&self.closer(deepseek::CALL_END));
                    let end = self.out.len();
                    self.piece(call, start..end, end, None, start);
                }
                if spec.section {
                    self.out.push_str(deepseek::CALLS_END);
                }
            }
            Form::Dsml { version, .. } => {
                let [section, invoke, parameter] = deepseek::DSML_VERSIONS[version];
                self.invokes(section, invoke, parameter)
            }
            Form::MiniMax => self.invokes(
                (minimax::SECTION, minimax::SECTION_CLOSE),
                (minimax::INVOKE, minimax::INVOKE_CLOSE),
                (minimax::PARAMETER, minimax::PARAMETER_CLOSE),
            ),
            Form::Glm { newlines } => {
                let nl = if newlines { "\n" } else { "" };
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push('\n');
                    }
                    let start = self.out.len();
                    self.out.push_str(tool_call::OPEN);
                    self.out.push_str(&self.name_text(call));
                    self.out.push_str(nl);
                    for arg in text(call) {
                        let value = self.text_value(arg);
                        self.out.push_str(&format!(
                            "{}{}{}{nl}{}{value}{}{nl}",
                            glm::KEY,
                            arg.key,
                            glm::KEY_CLOSE,
                            glm::VALUE,
                            glm::VALUE_CLOSE
                        ));
                    }
                    self.out.push_str(&self.closer(tool_call::CLOSE));
                    let end = self.out.len();
                    self.piece(call, start..end, end, None, start);
                }
            }
            Form::Kimi { prefix } => {
                if spec.section {
                    self.out.push_str(kimi::SECTION_BEGIN);
                    self.out.push_str(p0);
                }
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(p1);
                    }
                    let start = self.out.len();
                    self.out.push_str(kimi::CALL_BEGIN);
                    if prefix {
                        self.out.push_str(kimi::FUNCTIONS);
                    }
                    self.out.push_str(&self.name_text(call));
                    self.out.push_str(&format!(":{k}{}", kimi::ARGUMENT_BEGIN));
                    let args = self.damaged(self.json_text(call));
                    self.out.push_str(&args);
                    self.out.push_str(&self.closer(kimi::CALL_END));
                    let end = self.out.len();
                    self.piece(call, start..end, end, None, start);
                }
                if spec.section {
                    self.out.push_str(p2);
                    self.out.push_str(kimi::SECTION_END);
                }
            }
            Form::Harmony { header, end } => {
                let (before, after) = HEADERS[header];
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(p1);
                    }
                    let start = self.out.len();
                    self.out.push_str(before);
                    self.out.push_str(&self.name_text(call));
                    self.out.push_str(after);
                    // A function message reserves its body to its end once `<|message|>`
                    // is written, whether or not the body reads whole (a cut one does
                    // not): a step quoted in it never runs.
                    let body = self.out.len();
                    self.out.push_str(p0);
                    let args = self.damaged(self.json_text(call));
                    self.out.push_str(&args);
                    let json_end = self.out.len();
                    self.out.push_str(p2);
                    let token_start = self.out.len();
                    self.out.push_str(&self.closer(harmony::ENDS[end]));
                    let end = self.out.len();
                    let short = Some((json_end..token_start + 1, ShortEnd::At(json_end)));
                    self.piece(call, start..end, end, short, body);
                }
            }
            Form::Gemma { gen4 } => {
                let (open, close, quote) = if gen4 {
                    (
                        gemma::GEMMA_4_OPEN,
                        gemma::GEMMA_4_CLOSE,
                        gemma::GEMMA_4_QUOTE,
                    )
                } else {
                    (
                        gemma::FUNCTION_GEMMA_OPEN,
                        gemma::FUNCTION_GEMMA_CLOSE,
                        gemma::FUNCTION_GEMMA_QUOTE,
                    )
                };
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(p1);
                    }
                    let start = self.out.len();
                    self.out.push_str(open);
                    self.out.push_str(p0);
                    self.out.push_str("call:");
                    self.out.push_str(&self.name_text(call));
                    let mut args = String::new();
                    if let Args::Value(json) = &call.args {
                        gemma(json, quote, spec.escaped, &spec.style, &mut args);
                    }
                    self.out.push_str(&self.damaged(args));
                    let args_end = self.out.len();
                    self.out.push_str(p2);
                    let token_start = self.out.len();
                    self.out.push_str(&self.closer(close));
                    let end = self.out.len();
                    // A server strips Gemma 4's `<tool_call|>` as a stop token: arguments
                    // that end the reply, whitespace after them at most, are a call.
                    let short = gen4.then_some((args_end..token_start + 1, ShortEnd::Cut));
                    self.piece(call, start..end, end, short, start);
                }
            }
            Form::Pythonic { wrapper } => {
                let (open, close) = WRAPPERS[wrapper];
                let start = self.out.len();
                self.out.push_str(open);
                self.out.push_str(p0);
                let mut list = String::from("[");
                let mut spans = Vec::new();
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        list.push_str(spec.py.comma);
                    }
                    let call_start = list.len();
                    list.push_str(&self.name_text(call));
                    list.push('(');
                    if let Args::Value(Json::Object(members)) = &call.args {
                        for (i, (key, value)) in members.iter().enumerate() {
                            if i > 0 {
                                list.push_str(spec.py.comma);
                            }
                            list.push_str(&key.to_string());
                            list.push_str(spec.py.equals);
                            python::render(value, &spec.py, &mut list);
                        }
                    }
                    list.push(')');
                    let at = self.out.len();
                    spans.push(at + call_start..at + list.len());
                }
                list.push(']');
                let list = self.damaged(list);
                self.out.push_str(&list);
                let list_end = self.out.len();
                self.out.push_str(p2);
                let token_start = self.out.len();
                self.out.push_str(&self.closer(close));
                let end = self.out.len();
                // A server strips Llama 4's `<|python_end|>` as a stop token: a list that
                // ends the reply, whitespace after it at most, is read.
                let stripped = (close == pythonic::PYTHON_END).then_some(list_end..token_start + 1);
                self.group(start, end, spans, stripped, start);
            }
            Form::PythonTagChain => {
                let mut start = self.out.len();
                self.out.push_str(python_tag::TAG);
                self.out.push_str(p0);
                for (k, call) in spec.calls.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(p1);
                        self.out.push(';');
                        self.out.push_str(p2);
                    }
                    let object = self.damaged(self.object_text(call, false));
                    self.out.push_str(&object);
                    let end = self.out.len();
                    self.piece(call, start..end, end, None, usize::MAX);
                    start = end;
                }
            }
        }
    }

    /// A JSON array of call objects after `marker` (and `pad`).
    fn array(&mut self, marker: &str, pad: &str, ids: bool) {
        let spec = self.spec;
        let start = self.out.len();
        self.out.push_str(marker);
        self.out.push_str(pad);
        self.out.push('[');
        self.out.push_str(spec.pads[1]);
        let mut spans = Vec::new();
        let last = spec.calls.len() - 1;
        for (k, call) in spec.calls.iter().enumerate() {
            if k > 0 {
                self.out.push_str(spec.style.comma);
            }
            let element_start = self.out.len();
            let mut object = self.object_text(call, ids);
            if k == last {
                object = self.damaged(object);
            }
            self.out.push_str(&object);
            spans.push(element_start..self.out.len());
        }
        self.out.push_str(spec.pads[2]);
        self.out.push_str(&self.closer("]"));
        let end = self.out.len();
        // An array cut off reserves the rest of the reply, as every token block does.
        self.group(start, end, spans, None, start);
    }

    /// DSML's or MiniMax's section of invokes.
    fn invokes(&mut self, section: (&str, &str), invoke: (&str, &str), parameter: (&str, &str)) {
        let spec = self.spec;
        let start = self.out.len();
        self.out.push_str(section.0);
        self.out.push('\n');
        let mut spans = Vec::new();
        let self_closing = matches!(
            spec.form,
            Form::Dsml {
                self_closing: true,
                ..
            }
        );
        for call in &spec.calls {
            let invoke_start = self.out.len();
            if self_closing && text(call).is_empty() {
                self.out
                    .push_str(&format!("{} name=\"{}\"/>", invoke.0, self.name_text(call)));
                spans.push(invoke_start..self.out.len());
                self.out.push('\n');
                continue;
            }
            self.out.push_str(&format!(
                "{} name=\"{}\">\n",
                invoke.0,
                self.name_text(call)
            ));
            for arg in text(call) {
                let attribute = match (spec.form, arg.string_attr) {
                    (Form::Dsml { .. }, Some(true)) => " string=\"true\"",
                    (Form::Dsml { .. }, Some(false)) => " string=\"false\"",
                    _ => "",
                };
                let value = self.text_value(arg);
                self.out.push_str(&format!(
                    "{} name=\"{}\"{attribute}>{value}{}\n",
                    parameter.0, arg.key, parameter.1
                ));
            }
            self.out.push_str(invoke.1);
            spans.push(invoke_start..self.out.len());
            self.out.push('\n');
        }
        self.out.push_str(&self.closer(section.1));
        let end = self.out.len();
        self.group(start, end, spans, None, start);
    }

    /// The calls of a block read whole or not at all: the first from the block's start,
    /// the last to its end.
    fn group(
        &mut self,
        start: usize,
        end: usize,
        spans: Vec<Range<usize>>,
        stripped: Option<Range<usize>>,
        reserved_from: usize,
    ) {
        let last = spans.len().saturating_sub(1);
        for (k, (call, span)) in self.spec.calls.iter().zip(spans).enumerate() {
            let from = if k == 0 { start } else { span.start };
            let to = if k == last { end } else { span.end };
            // A cut in `stripped` (the closer gone) still reads every call of the group;
            // the last one's span then runs to the cut.
            let short_end = if k == last {
                ShortEnd::Cut
            } else {
                ShortEnd::At(to)
            };
            let short = stripped.clone().map(|cuts| (cuts, short_end));
            self.piece(call, from..to, end, short, reserved_from);
        }
    }

    /// Records one call.
    fn piece(
        &mut self,
        call: &NativeCall,
        span: Range<usize>,
        requires: usize,
        short: Option<(Range<usize>, ShortEnd)>,
        reserved_from: usize,
    ) {
        let form = self.spec.form;
        let intended = (|| {
            let name = call.name.intended(self.offered)?;
            if !form.fits(&name.to_string()) {
                return None;
            }
            if call.keys == ObjectKeys::ToolParameters && form != Form::PythonTagChain {
                return None;
            }
            let value = call.value(form, self.typed)?;
            let must_be_object = form != Form::PythonTagChain;
            (!must_be_object || matches!(value, Value::Dict(_))).then_some((name, value))
        })();
        let quoted = call.quoted.as_ref().and_then(|(step, called)| {
            let at = span.start + self.out[span.start..].find(step.as_str())?;
            Some((at..at + step.len(), called.clone(), reserved_from))
        });
        self.pieces.push(Piece {
            span,
            intended,
            requires,
            short,
            quoted,
        });
    }

    /// The name as written.
    fn name_text(&self, call: &NativeCall) -> String {
        call.name.text(self.offered).unwrap_or_else(|| {
            let mut text = String::new();
            call.name
                .json(self.offered)
                .render(&self.spec.style, &mut text);
            text
        })
    }

    /// The arguments as JSON text.
    fn json_text(&self, call: &NativeCall) -> String {
        let mut text = String::new();
        if let Args::Value(json) = &call.args {
            json.render(&self.spec.style, &mut text);
        }
        text
    }

    /// A call object of an array, or after `<|python_tag|>`.
    fn object_text(&self, call: &NativeCall, id: bool) -> String {
        let key = |k: &str| PyStr::from(k);
        let name = call.name.json(self.offered);
        let args = match &call.args {
            Args::Value(json) => json.clone(),
            Args::Text(_) => Json::Object(Vec::new()),
        };
        let mut members = Vec::new();
        if id {
            members.push((key("id"), Json::Str(PyStr::from("a1B2c3D4e"))));
        }
        match call.keys {
            ObjectKeys::NameArguments => {
                members.push((key("name"), name));
                members.push((key("arguments"), args));
            }
            ObjectKeys::NameParameters => {
                members.push((key("name"), name));
                members.push((key("parameters"), args));
            }
            ObjectKeys::NameOnly => members.push((key("name"), name)),
            ObjectKeys::ToolParameters => {
                members.push((key("tool"), name));
                members.push((key("parameters"), args));
            }
        }
        let mut text = String::new();
        Json::Object(members).render(&self.spec.style, &mut text);
        text
    }

    /// A text argument's value as written.
    fn text_value(&self, arg: &TextArg) -> String {
        arg.text()
    }

    /// `text` with the block's damage applied to its end (`Cut`, `ExtraBrace`).
    fn damaged(&self, mut text: String) -> String {
        match self.spec.damage {
            Damage::Cut(n) => {
                for _ in 0..n {
                    text.pop();
                }
            }
            Damage::ExtraBrace => text.push('}'),
            Damage::None | Damage::NoCloser => {}
        }
        text
    }

    /// A closing token, unless the damage drops it.
    fn closer(&self, token: &str) -> String {
        match self.spec.damage {
            Damage::NoCloser => String::new(),
            _ => token.to_owned(),
        }
    }
}

/// The text arguments of a call (none for a value).
fn text(call: &NativeCall) -> &[TextArg] {
    match &call.args {
        Args::Text(args) => args,
        Args::Value(_) => &[],
    }
}

/// Whether a Qwen3 XML value must be written between newlines even when the block does
/// not frame its values: it begins or ends with a newline, which the reader would trim.
fn framed(value: &str) -> bool {
    value.starts_with('\n') || value.starts_with("\r\n") || value.ends_with('\n')
}

/// `value` without one leading and one trailing `\n` (or `\r\n`), the Qwen3 XML rule.
fn one_newline_off(value: &str) -> &str {
    let value = value
        .strip_prefix("\r\n")
        .or_else(|| value.strip_prefix('\n'))
        .unwrap_or(value);
    value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(value)
}

/// Writes `value` in Gemma's argument syntax: bare keys where they are words, strings
/// between `quote` tokens when `escaped` and they do not hold the token, else JSON.
fn gemma(value: &Json, quote: &str, escaped: bool, style: &JsonStyle, out: &mut String) {
    match value {
        Json::Str(s) => gemma_string(s, quote, escaped, style, out),
        Json::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                gemma(item, quote, escaped, style, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let bare = !key.is_empty()
                    && key
                        .as_bytes()
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80);
                if bare {
                    out.push_str(&key.to_string());
                } else {
                    gemma_string(key, quote, escaped, style, out);
                }
                out.push(':');
                gemma(value, quote, escaped, style, out);
            }
            out.push('}');
        }
        other => other.render(style, out),
    }
}

fn gemma_string(s: &PyStr, quote: &str, escaped: bool, style: &JsonStyle, out: &mut String) {
    let text = s.to_string();
    if escaped && s.as_str().is_some() && !text.contains(quote) {
        out.push_str(quote);
        out.push_str(&text);
        out.push_str(quote);
    } else {
        render_string(s, style.ascii, out);
    }
}
