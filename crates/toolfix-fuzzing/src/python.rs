//! Values written as Python literals, as the pythonic dialect reads them
//! (`[get_weather(city="Paris", days=3)]`): strings in either quote, triple-quoted or
//! not, integers, floats, `True`, `False`, `None`, lists, tuples and dicts.

use std::fmt::Write;

use arbitrary::Result;

use super::choice::Gen;
use super::json::Json;
use toolfix::py::PyStr;

/// How literals are laid out.
#[derive(Clone, Debug)]
pub struct PyStyle {
    /// The quote strings use: `"` or `'`.
    pub quote: char,
    /// Whether strings are triple-quoted.
    pub triple: bool,
    /// Whether lists are written as tuples (`(1, 2)`).
    pub tuples: bool,
    /// After `,` and around `=` (`", "`, `","`, `",\n  "`).
    pub comma: &'static str,
    /// Around the `=` of a keyword argument.
    pub equals: &'static str,
}

impl PyStyle {
    /// Any layout Python allows.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<PyStyle> {
        Ok(PyStyle {
            quote: g.pick(&['"', '\''])?,
            triple: g.chance(1, 4)?,
            tuples: g.chance(1, 4)?,
            comma: g.pick(&[", ", ",", ",\n  ", " , "])?,
            equals: g.pick(&["=", " = "])?,
        })
    }
}

/// Whether `name` is an identifier the pythonic reader takes: ASCII letters, digits and
/// `_`, not starting with a digit.
pub fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `key` as a keyword argument's name: itself when it is an identifier, else an
/// identifier made from it (`nested key` → `nested_key`, `` → `k`).
pub fn keyword(key: &PyStr) -> PyStr {
    let text = key.to_string();
    if is_identifier(&text) {
        return key.clone();
    }
    let made: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match is_identifier(&made) {
        true => PyStr::from(made),
        false => PyStr::from(format!("k{made}")),
    }
}

/// Writes `value` as a Python literal. Values with no literal (`NaN`, deep nesting past
/// the reader's bound) are written as Python would print them, which the reader rejects.
pub fn render(value: &Json, style: &PyStyle, out: &mut String) {
    match value {
        Json::Null => out.push_str("None"),
        Json::Bool(true) => out.push_str("True"),
        Json::Bool(false) => out.push_str("False"),
        Json::Int(i) => write!(out, "{i}").unwrap(),
        Json::BigInt(digits) => out.push_str(digits),
        Json::Float(f) if f.is_nan() => out.push_str("nan"),
        Json::Float(f) if f.is_infinite() => out.push_str(if *f > 0.0 { "inf" } else { "-inf" }),
        Json::Float(f) => write!(out, "{f:?}").unwrap(),
        Json::Str(s) => string(s, style, out),
        Json::List(items) => {
            let (open, close) = if style.tuples { ('(', ')') } else { ('[', ']') };
            out.push(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.comma);
                }
                render(item, style, out);
            }
            // A one-item tuple needs its comma, or it is a parenthesized value.
            if style.tuples && items.len() == 1 {
                out.push(',');
            }
            out.push(close);
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.comma);
                }
                string(key, style, out);
                out.push_str(": ");
                render(value, style, out);
            }
            out.push('}');
        }
        Json::Deep { depth, object } => {
            let (open, close) = if *object { ("{'a': ", "}") } else { ("[", "]") };
            (0..*depth).for_each(|_| out.push_str(open));
            out.push('1');
            (0..*depth).for_each(|_| out.push_str(close));
        }
        Json::Raw(text) => out.push_str(text),
    }
}

/// A string literal: backslash, the quote, and control characters escaped (`\n`, `\t`,
/// `\r`, else `\xNN`), lone surrogates as `\uXXXX`, everything else as written.
fn string(s: &PyStr, style: &PyStyle, out: &mut String) {
    let quote = if style.triple {
        style.quote.to_string().repeat(3)
    } else {
        style.quote.to_string()
    };
    out.push_str(&quote);
    for cp in s.code_points() {
        match char::from_u32(cp) {
            Some('\\') => out.push_str("\\\\"),
            Some(c) if c == style.quote => {
                out.push('\\');
                out.push(c);
            }
            Some('\n') => out.push_str("\\n"),
            Some('\t') => out.push_str("\\t"),
            Some('\r') => out.push_str("\\r"),
            Some(c) if (c as u32) < 0x20 || c == '\u{7f}' => {
                write!(out, "\\x{:02x}", c as u32).unwrap()
            }
            Some(c) => out.push(c),
            None => write!(out, "\\u{cp:04x}").unwrap(),
        }
    }
    out.push_str(&quote);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_identifiers() {
        assert_eq!(keyword(&PyStr::from("city")).to_string(), "city");
        assert_eq!(
            keyword(&PyStr::from("nested key")).to_string(),
            "nested_key"
        );
        assert_eq!(keyword(&PyStr::from("")).to_string(), "k");
        assert_eq!(keyword(&PyStr::from("日本")).to_string(), "__");
    }
}
