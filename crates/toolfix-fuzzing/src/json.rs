//! JSON values as a model writes them in a payload: the arguments of a call.
//!
//! Every value knows the Python value `json.loads` makes of it, so a property can compare
//! what salvage decoded with what was written. Hostile values add what models also write:
//! integers past CPython's 4300-digit limit, nesting past the recursion limit, strings
//! quoting tags and fences, lone surrogates, and text that is not JSON at all.

use std::fmt::Write;
use std::sync::LazyLock;

use arbitrary::Result;

use super::choice::Gen;
use super::markers::{concat, title};
use super::text::json_space;
use toolfix::py::{Dict, PyInt, PyStr, Value};
use toolfix::salvage::tokens::{
    bracket, deepseek, function, gemma, glm, harmony, kimi, minimax, mistral, python_tag, qwen_xml,
    react, reasoning, tool_call,
};

/// A JSON value to write.
#[derive(Clone, Debug)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer of any length, as its decimal digits (no sign, no leading zero).
    BigInt(String),
    /// A float, written as `NaN`/`Infinity` when it is not finite (Python's extension).
    Float(f64),
    Str(PyStr),
    List(Vec<Json>),
    /// Members in order; a repeated key keeps its first position and last value.
    Object(Vec<(PyStr, Json)>),
    /// `depth` containers nested in one another (`[[[…]]]` or `{"a": {"a": …}}`).
    Deep {
        depth: usize,
        object: bool,
    },
    /// Text that is not JSON: Python literals, single quotes, trailing commas.
    Raw(&'static str),
}

/// Not-quite-JSON that models write in payloads.
const RAW: [&str; 8] = [
    "{'city': 'Paris'}",
    "{\"a\": True, \"b\": None}",
    "{\"a\": 1,}",
    "{\"a\": 1}{\"b\": 2}",
    "{{\"a\": 1}}",
    "{\"a\": 01}",
    "{\"a\": \"unterminated}",
    "{\"a\": [1, 2}",
];

/// Strings that stay data in clean replies: no tag, marker, fence or closing brace.
const CLEAN_STRINGS: [&str; 12] = [
    "Paris",
    "",
    "hello world",
    "Zürich",
    "東京",
    "emoji 🎉",
    "quote \" and backslash \\",
    "line\nbreak\ttab",
    "İstanbul ı ſ K",
    "\u{2028}\u{a0}",
    "100%",
    "a/b",
];

/// Strings that are not only data: each one can end, open or fake a payload, in the six
/// dialects, the native formats, or reasoning.
static HOSTILE_STRINGS: LazyLock<[&str; 36]> = LazyLock::new(|| {
    let action = title(react::ACTION);
    [
        tool_call::CLOSE,
        concat(&["}", tool_call::CLOSE]),
        concat(&[
            tool_call::OPEN,
            "{\"name\": \"get_weather\", \"arguments\": {}}",
            tool_call::CLOSE,
        ]),
        concat(&["}", function::CLOSE]),
        bracket::TOOL_CALL_CLOSE,
        bracket::TOOL_REQUEST_CLOSE,
        concat(&[python_tag::TAG, "{\"name\": \"get_weather\"}"]),
        concat(&[
            &action,
            ": get_weather\n",
            &action,
            " ",
            &title(react::INPUT),
            ": {\"city\": \"x\"}",
        ]),
        "```",
        "~~~~",
        concat(&[
            "```",
            tool_call::OPEN,
            "{\"name\": \"calc\"}",
            tool_call::CLOSE,
            "```",
        ]),
        "}{",
        "\\u0000",
        "`",
        concat(&[mistral::TOOL_CALLS, "get_weather", mistral::ARGS, "{}"]),
        concat(&[mistral::TOOL_CALLS, "a", mistral::ARGS, "{\"x\": \""]),
        qwen_xml::PARAMETER_CLOSE,
        concat(&[function::CLOSE, "\n", tool_call::CLOSE]),
        concat(&[function::OPEN, "get_weather>\n", function::CLOSE]),
        deepseek::CALL_BEGIN,
        deepseek::CALL_END,
        concat(&["```", deepseek::CALL_END]),
        deepseek::DSML_PARAMETER_CLOSE,
        concat(&[glm::VALUE_CLOSE, tool_call::CLOSE]),
        kimi::CALL_BEGIN,
        kimi::CALL_END,
        harmony::CALL,
        harmony::START,
        concat(&[
            harmony::RECIPIENT,
            harmony::FUNCTIONS,
            "get_weather",
            harmony::MESSAGE,
            "{}",
            harmony::CALL,
        ]),
        gemma::FUNCTION_GEMMA_CLOSE,
        gemma::FUNCTION_GEMMA_QUOTE,
        gemma::GEMMA_4_QUOTE,
        minimax::INVOKE_CLOSE,
        minimax::SECTION_CLOSE,
        reasoning::THINK,
        reasoning::THINK_CLOSE,
    ]
});

/// Object keys: what argument names look like, plus a repeated one.
const KEYS: [&str; 8] = [
    "city",
    "query",
    "q",
    "units",
    "limit",
    "",
    "nested key",
    "city",
];

impl Json {
    /// A value: scalars and strings at any depth, containers while nesting is allowed
    /// (a string in their place below that).
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<Json> {
        let kinds = if g.hostile() { 11 } else { 9 };
        Ok(match g.below(kinds)? {
            0 => Json::Null,
            1 => Json::Bool(g.any()?),
            2 => Json::Int(g.any()?),
            3 => Json::Float(finite_float(g)?),
            6 if g.can_nest() => Json::List(g.nested(|g| items(g, Json::generate))?),
            7 | 8 if g.can_nest() => Json::object(g)?,
            4..=8 => Json::Str(string(g)?),
            _ => hostile_value(g)?,
        })
    }

    /// An object: what every clean call's arguments are.
    pub fn object(g: &mut Gen<'_, '_>) -> Result<Json> {
        let members = g.nested(|g| {
            items(g, |g| {
                let key = PyStr::from(g.pick(&KEYS)?);
                Ok((key, Json::generate(g)?))
            })
        })?;
        Ok(Json::Object(members))
    }

    /// A list of up to five values.
    pub fn list(g: &mut Gen<'_, '_>) -> Result<Json> {
        Ok(Json::List(g.nested(|g| items(g, Json::generate))?))
    }

    /// The arguments of a call: an object in clean replies, anything in hostile ones.
    pub fn arguments(g: &mut Gen<'_, '_>) -> Result<Json> {
        if g.hostile() && g.chance(1, 3)? {
            Json::generate(g)
        } else {
            Json::object(g)
        }
    }

    /// The value `json.loads` makes of the written text; `None` for text that does not
    /// decode (`Raw`) or nests past any decoder limit (`Deep`).
    pub fn to_value(&self) -> Option<Value> {
        Some(match self {
            Json::Null => Value::None,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => Value::int(*i),
            Json::BigInt(digits) => Value::Int(PyInt::from_decimal(digits)?),
            Json::Float(f) => Value::Float(*f),
            Json::Str(s) => Value::Str(s.clone()),
            Json::List(items) => {
                Value::List(items.iter().map(Json::to_value).collect::<Option<_>>()?)
            }
            Json::Object(members) => {
                let mut dict = Dict::default();
                for (key, value) in members {
                    dict.insert(key.clone(), value.to_value()?);
                }
                Value::Dict(dict)
            }
            Json::Deep { .. } | Json::Raw(_) => return None,
        })
    }

    /// Whether the value is an object (the only arguments `<function=…>` and ReAct take).
    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_)) || matches!(self, Json::Deep { object: true, .. })
    }

    /// Writes the value in `style`.
    pub fn render(&self, style: &JsonStyle, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => write!(out, "{i}").unwrap(),
            Json::BigInt(digits) => out.push_str(digits),
            Json::Float(f) => render_float(*f, out),
            Json::Str(s) => render_string(s, style.ascii, out),
            Json::List(items) => {
                style.container(out, '[', ']', items, |v, out| v.render(style, out))
            }
            Json::Object(members) => style.container(out, '{', '}', members, |(k, v), out| {
                render_string(k, style.ascii, out);
                out.push_str(style.colon);
                v.render(style, out);
            }),
            Json::Deep { depth, object } => render_deep(*depth, *object, out),
            Json::Raw(text) => out.push_str(text),
        }
    }
}

/// A finite float that survives the trip through its shortest text.
fn finite_float(g: &mut Gen<'_, '_>) -> Result<f64> {
    let f: f64 = g.any()?;
    Ok(if f.is_finite() { f } else { 0.5 })
}

/// A string: clean ones from a safe list or arbitrary safe text; hostile ones may quote
/// tags and fences, or hold a lone surrogate (written as an escape).
pub fn string(g: &mut Gen<'_, '_>) -> Result<PyStr> {
    if g.hostile() && g.chance(1, 2)? {
        if g.chance(1, 4)? {
            let mut s = PyStr::from("lone ");
            s.push(0xD800 + g.upto(0x7FF)? as u32);
            return Ok(s);
        }
        return Ok(PyStr::from(g.pick(&*HOSTILE_STRINGS)?));
    }
    if g.chance(1, 4)? {
        let text: String = g.any()?;
        let safe: String = text.chars().filter(|c| is_clean_char(*c)).collect();
        return Ok(PyStr::from(safe));
    }
    Ok(PyStr::from(g.pick(&CLEAN_STRINGS)?))
}

/// Whether `c` can appear in a clean string: not a character that could close a payload
/// (`}`, `<`, `[`), open a fence (`` ` ``, `~`), or start a ReAct step (`:`).
fn is_clean_char(c: char) -> bool {
    !matches!(c, '}' | '<' | '[' | '`' | '~' | ':' | '{' | ']' | '>' | '|')
}

/// What only hostile replies hold: huge integers, deep nesting, non-JSON, odd floats.
fn hostile_value(g: &mut Gen<'_, '_>) -> Result<Json> {
    Ok(match g.below(4)? {
        0 => Json::BigInt(big_digits(g)?),
        1 => Json::Deep {
            depth: g.pick(&[2, 511, 512, 513, 990, 993, 994, 995, 2000])?,
            object: g.any()?,
        },
        2 => Json::Raw(g.pick(&RAW)?),
        _ => Json::Float(g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0])?),
    })
}

/// Digits of an integer around CPython's 4300-digit limit, or of any length below it.
fn big_digits(g: &mut Gen<'_, '_>) -> Result<String> {
    let len = match g.below(3)? {
        0 => g.pick(&[4300, 4301])?,
        1 => 1 + g.upto(40)?,
        _ => 1 + g.upto(5000)?,
    };
    Ok(format!("1{}", "0".repeat(len - 1)))
}

/// Up to five items.
fn items<T>(
    g: &mut Gen<'_, '_>,
    mut item: impl FnMut(&mut Gen<'_, '_>) -> Result<T>,
) -> Result<Vec<T>> {
    let n = g.upto(5)?;
    (0..n).map(|_| item(g)).collect()
}

/// How the JSON text is laid out: separators, whitespace, escaping.
#[derive(Clone, Debug)]
pub struct JsonStyle {
    /// After `,` between items (`", "`, `","`, `",\n  "`).
    pub comma: &'static str,
    /// Between a key and its value (`": "`, `":"`).
    pub colon: &'static str,
    /// Inside brackets, after the opening one and before the closing one.
    pub pad: &'static str,
    /// Whether non-ASCII characters are written as `\uXXXX` escapes.
    pub ascii: bool,
}

impl JsonStyle {
    /// `json.dumps`'s default layout.
    pub const DUMPS: JsonStyle = JsonStyle {
        comma: ", ",
        colon: ": ",
        pad: "",
        ascii: true,
    };

    /// Any layout JSON allows.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<JsonStyle> {
        Ok(JsonStyle {
            comma: g.pick(&[", ", ",", ",\n  ", " , "])?,
            colon: g.pick(&[": ", ":", " : ", ":\t"])?,
            pad: json_space(g)?,
            ascii: g.any()?,
        })
    }

    /// Writes a bracketed, separated sequence.
    fn container<T>(
        &self,
        out: &mut String,
        open: char,
        close: char,
        items: &[T],
        mut write: impl FnMut(&T, &mut String),
    ) {
        out.push(open);
        out.push_str(self.pad);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(self.comma);
            }
            write(item, out);
        }
        out.push_str(self.pad);
        out.push(close);
    }
}

/// A float in the shortest text that reads back to the same `f64` (Rust's `Debug` is
/// shortest round-trip, and its `1e21`/`1.5` forms are JSON numbers).
fn render_float(f: f64, out: &mut String) {
    match f {
        f if f.is_nan() => out.push_str("NaN"),
        f64::INFINITY => out.push_str("Infinity"),
        f64::NEG_INFINITY => out.push_str("-Infinity"),
        f => write!(out, "{f:?}").unwrap(),
    }
}

/// A JSON string as `json.dumps` escapes it: quotes, backslashes and control characters
/// escaped (the short forms where JSON has one), surrogates always as `\uXXXX`, and when
/// `ascii` everything outside `' '..='~'` (DEL included) as escapes.
pub fn render_string(s: &PyStr, ascii: bool, out: &mut String) {
    out.push('"');
    for cp in s.code_points() {
        match char::from_u32(cp) {
            Some('"') => out.push_str("\\\""),
            Some('\\') => out.push_str("\\\\"),
            Some('\n') => out.push_str("\\n"),
            Some('\t') => out.push_str("\\t"),
            Some('\r') => out.push_str("\\r"),
            Some('\u{8}') => out.push_str("\\b"),
            Some('\u{c}') => out.push_str("\\f"),
            Some(c) if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).unwrap(),
            Some(c) if (' '..='~').contains(&c) || !ascii => out.push(c),
            Some(c) => {
                let mut units = [0; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(out, "\\u{unit:04x}").unwrap();
                }
            }
            None => write!(out, "\\u{cp:04x}").unwrap(),
        }
    }
    out.push('"');
}

/// `depth` nested containers.
fn render_deep(depth: usize, object: bool, out: &mut String) {
    let (open, close) = if object {
        ("{\"a\": ", "}")
    } else {
        ("[", "]")
    };
    for _ in 0..depth {
        out.push_str(open);
    }
    out.push('1');
    for _ in 0..depth {
        out.push_str(close);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolfix::py::json::{DecodeLimits, loads};

    #[test]
    fn rendered_values_decode_to_their_value() {
        let mut lone = PyStr::from("x");
        lone.push(0xDC00);
        let value = Json::Object(vec![
            (PyStr::from("s"), Json::Str(PyStr::from("é\"\\\n\u{1F389}"))),
            (PyStr::from("l"), Json::Str(lone)),
            (PyStr::from("f"), Json::Float(1e21)),
            (PyStr::from("n"), Json::Float(f64::NAN)),
            (PyStr::from("b"), Json::BigInt("1".repeat(30))),
        ]);
        let limits = DecodeLimits {
            max_depth: 10,
            int_max_str_digits: None,
        };
        for ascii in [true, false] {
            let mut text = String::new();
            value.render(
                &JsonStyle {
                    ascii,
                    ..JsonStyle::DUMPS
                },
                &mut text,
            );
            assert_eq!(
                loads(text.as_bytes(), limits).ok(),
                value.to_value(),
                "{text}"
            );
        }
    }
}
