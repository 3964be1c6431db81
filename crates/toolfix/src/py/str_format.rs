//! `template.format(**kwargs)`: Python's `str.format` with keyword arguments only, as a tool
//! body uses it (`return "Results for {query}".format(**kwargs)`).
//!
//! A tool written that way fails with whatever `str.format` raises, and the exception's text
//! reaches the model, so the parser follows CPython 3.11's `Objects/stringlib/unicode_format.h`
//! step for step: literal text and fields are processed left to right and the first error
//! wins (`"{missing} }"` is a `KeyError`, not the stray `}`); a field is looked up, then
//! converted (`!r`, `!s`, `!a`), then its spec is expanded (`{x:{width}}`, two levels deep),
//! then it is rendered. Rendering follows `Python/formatter_unicode.c`: the full mini-language
//! for `str`; for `int` and `bool` the `d`, `b`, `o`, `x`, `X` forms (the last four within
//! 128 bits) and the float forms below; for `float` the empty type (its `repr`) and `e`, `E`,
//! `f`, `F`, `%`; `object.__format__` for `None`, lists and dicts. What is not modelled (`g`,
//! `n`, `c`, `#` on floats, successful attribute access, an integer index into a dict)
//! raises a `ValueError` that says so, rather than guessing.

use std::borrow::Cow;

use super::exception::PyException;
use super::float_repr::float_repr;
use super::pystr::PyStr;
use super::repr::{check_int_str_limit, repr, str_of};
use super::value::Value;

/// `str.format`'s nesting limit: the template is level 2, a spec's nested field level 1.
const RECURSION_DEPTH: i32 = 2;

/// Widths and precisions above this are refused as unsupported instead of allocating (CPython
/// would try to build the string).
const SIZE_MAX: usize = 1 << 20;

/// `template.format(**kwargs)`. `kwargs` is a dict's items; a repeated key acts as in a dict
/// (the last value wins).
pub fn format_kwargs(template: &PyStr, kwargs: &[(PyStr, Value)]) -> Result<PyStr, PyException> {
    let template: Vec<u32> = template.code_points().collect();
    let mut out = PyStr::with_capacity(template.len());
    Formatter { kwargs }.build(&template, RECURSION_DEPTH, &mut out)?;
    Ok(out)
}

fn value_error(message: impl Into<PyStr>) -> PyException {
    PyException::ValueError {
        message: message.into(),
    }
}

fn type_error(message: impl Into<PyStr>) -> PyException {
    PyException::TypeError {
        message: message.into(),
    }
}

/// A `ValueError` for Python behaviour this port does not reproduce.
fn unsupported(what: &str) -> PyException {
    value_error(format!("unsupported by toolfix's str.format: {what}"))
}

const fn cp(c: char) -> u32 {
    c as u32
}

fn py_str(cps: &[u32]) -> PyStr {
    let mut s = PyStr::with_capacity(cps.len());
    cps.iter().for_each(|&c| s.push(c));
    s
}

/// A parsed replacement field, as spans of the template: `{name!conversion:spec}`.
struct Field {
    name: (usize, usize),
    conversion: Option<u32>,
    spec: (usize, usize),
    /// The spec holds a nested `{...}` and must be formatted itself first.
    spec_needs_expanding: bool,
}

struct Formatter<'k> {
    kwargs: &'k [(PyStr, Value)],
}

impl Formatter<'_> {
    /// `build_string`/`output_markup`: renders `s` into `out`, literal text and fields in turn.
    fn build(&self, s: &[u32], depth: i32, out: &mut PyStr) -> Result<(), PyException> {
        if depth <= 0 {
            return Err(value_error("Max string recursion exceeded"));
        }
        let mut pos = 0;
        while pos < s.len() {
            if let Some(field) = next_markup(s, &mut pos, out)? {
                self.output_markup(s, &field, depth, out)?;
            }
        }
        Ok(())
    }

    fn output_markup(
        &self,
        s: &[u32],
        field: &Field,
        depth: i32,
        out: &mut PyStr,
    ) -> Result<(), PyException> {
        let value = self.field_object(&s[field.name.0..field.name.1])?;
        let value = match field.conversion {
            Some(conversion) => convert(&value, conversion)?,
            None => value,
        };
        let spec = &s[field.spec.0..field.spec.1];
        let spec: Cow<[u32]> = if field.spec_needs_expanding {
            let mut expanded = PyStr::new();
            self.build(spec, depth - 1, &mut expanded)?;
            Cow::Owned(expanded.code_points().collect())
        } else {
            Cow::Borrowed(spec)
        };
        render_field(&value, &spec, out)
    }

    /// `get_field_object`: the keyword named by the field, then each `.attr` / `[key]` step.
    fn field_object(&self, name: &[u32]) -> Result<Value, PyException> {
        let split = name
            .iter()
            .position(|&c| c == cp('.') || c == cp('['))
            .unwrap_or(name.len());
        let first = &name[..split];
        // Positional fields: there are no positional arguments, so the first one raises (and
        // so the auto/manual numbering switch can never be reached). `{}` is index 0.
        if first.is_empty() {
            return Err(index_out_of_range(0));
        }
        if let Some(index) = decimal_integer(first)? {
            return Err(index_out_of_range(index));
        }
        let key = py_str(first);
        let mut value = match self.kwargs.iter().rev().find(|(k, _)| *k == key) {
            Some((_, v)) => v.clone(),
            None => {
                return Err(PyException::KeyError { message: key });
            }
        };
        let mut rest = &name[split..];
        while let Some((step, tail)) = next_field_step(rest)? {
            value = step.apply(&value)?;
            rest = tail;
        }
        Ok(value)
    }
}

fn index_out_of_range(index: usize) -> PyException {
    PyException::IndexError {
        message: PyStr::from(format!(
            "Replacement index {index} out of range for positional args tuple"
        )),
    }
}

/// `MarkupIterator_next`: writes the literal text before the next field to `out` (un-doubling
/// `{{` and `}}`) and parses the field that follows, if any.
fn next_markup(s: &[u32], pos: &mut usize, out: &mut PyStr) -> Result<Option<Field>, PyException> {
    let start = *pos;
    let mut c = 0;
    let mut markup_follows = false;
    while *pos < s.len() {
        c = s[*pos];
        *pos += 1;
        if c == cp('{') || c == cp('}') {
            markup_follows = true;
            break;
        }
    }
    let at_end = *pos >= s.len();
    let mut len = *pos - start;
    if c == cp('}') && (at_end || s[*pos] != c) {
        return Err(value_error("Single '}' encountered in format string"));
    }
    if at_end && c == cp('{') {
        return Err(value_error("Single '{' encountered in format string"));
    }
    if !at_end {
        if s[*pos] == c {
            *pos += 1;
            markup_follows = false;
        } else {
            len -= 1;
        }
    }
    s[start..start + len].iter().for_each(|&c| out.push(c));
    if !markup_follows {
        return Ok(None);
    }
    parse_field(s, pos).map(Some)
}

/// `parse_field`: the field after its `{`, up to and including the closing `}`.
fn parse_field(s: &[u32], pos: &mut usize) -> Result<Field, PyException> {
    let name_start = *pos;
    let mut c = 0;
    while *pos < s.len() {
        c = s[*pos];
        *pos += 1;
        match char::from_u32(c) {
            Some('{') => return Err(value_error("unexpected '{' in field name")),
            Some('[') => {
                while *pos < s.len() && s[*pos] != cp(']') {
                    *pos += 1;
                }
            }
            Some('}' | ':' | '!') => break,
            _ => {}
        }
    }
    let mut field = Field {
        name: (name_start, pos.saturating_sub(1).max(name_start)),
        conversion: None,
        spec: (*pos, *pos),
        spec_needs_expanding: false,
    };
    if c == cp('!') || c == cp(':') {
        if c == cp('!') && parse_conversion(s, pos, &mut field)? {
            return Ok(field);
        }
        parse_spec_span(s, pos, &mut field)?;
        return Ok(field);
    }
    if c != cp('}') {
        return Err(value_error("expected '}' before end of string"));
    }
    Ok(field)
}

/// The conversion character after `!`; `true` when the field ends right after it.
fn parse_conversion(s: &[u32], pos: &mut usize, field: &mut Field) -> Result<bool, PyException> {
    let Some(&conversion) = s.get(*pos) else {
        return Err(value_error(
            "end of string while looking for conversion specifier",
        ));
    };
    *pos += 1;
    field.conversion = Some(conversion);
    if let Some(&next) = s.get(*pos) {
        *pos += 1;
        if next == cp('}') {
            return Ok(true);
        }
        if next != cp(':') {
            return Err(value_error("expected ':' after conversion specifier"));
        }
    }
    Ok(false)
}

/// The format spec after `:`, up to the `}` that balances the field's `{`.
fn parse_spec_span(s: &[u32], pos: &mut usize, field: &mut Field) -> Result<(), PyException> {
    let start = *pos;
    let mut depth = 1;
    while *pos < s.len() {
        let c = s[*pos];
        *pos += 1;
        if c == cp('{') {
            field.spec_needs_expanding = true;
            depth += 1;
        } else if c == cp('}') {
            depth -= 1;
            if depth == 0 {
                field.spec = (start, *pos - 1);
                return Ok(());
            }
        }
    }
    Err(value_error("unmatched '{' in format spec"))
}

/// The decimal value of a Unicode decimal digit (`Py_UNICODE_TODECIMAL`), which `str.format`
/// accepts in field indexes, widths and precisions (`{٣}` is index 3).
fn decimal_digit(c: u32) -> Option<usize> {
    let zero = match DIGIT_ZEROS.binary_search(&c) {
        Ok(at) => DIGIT_ZEROS[at],
        Err(0) => return None,
        Err(at) => DIGIT_ZEROS[at - 1],
    };
    let value = c - zero;
    (value < 10).then_some(value as usize)
}

/// `get_integer` of `unicode_format.h`: `Some(n)` when every character is a decimal digit;
/// `Err` once the value would overflow `Py_ssize_t`, even if a non-digit follows.
fn decimal_integer(s: &[u32]) -> Result<Option<usize>, PyException> {
    if s.is_empty() {
        return Ok(None);
    }
    let mut value: usize = 0;
    for &c in s {
        let Some(digit) = decimal_digit(c) else {
            return Ok(None);
        };
        value = push_digit(value, digit)?;
    }
    Ok(Some(value))
}

/// `value * 10 + digit`, or CPython's overflow error past `PY_SSIZE_T_MAX`.
fn push_digit(value: usize, digit: usize) -> Result<usize, PyException> {
    const PY_SSIZE_T_MAX: usize = i64::MAX as usize;
    if value > (PY_SSIZE_T_MAX - digit) / 10 {
        return Err(value_error("Too many decimal digits in format string"));
    }
    Ok(value * 10 + digit)
}

/// One `.attr` or `[key]` step after the first name of a field.
enum FieldStep {
    Attribute(PyStr),
    Index(usize),
    Key(PyStr),
}

/// `FieldNameIterator_next`: the next step and what follows it, `None` at the end.
fn next_field_step(s: &[u32]) -> Result<Option<(FieldStep, &[u32])>, PyException> {
    let Some((&first, rest)) = s.split_first() else {
        return Ok(None);
    };
    let (name, tail, is_attribute) = if first == cp('.') {
        let end = rest
            .iter()
            .position(|&c| c == cp('.') || c == cp('['))
            .unwrap_or(rest.len());
        (&rest[..end], &rest[end..], true)
    } else if first == cp('[') {
        let Some(end) = rest.iter().position(|&c| c == cp(']')) else {
            return Err(value_error("Missing ']' in format string"));
        };
        (&rest[..end], &rest[end + 1..], false)
    } else {
        return Err(value_error(
            "Only '.' or '[' may follow ']' in format field specifier",
        ));
    };
    let step = if is_attribute {
        FieldStep::Attribute(py_str(name))
    } else {
        match decimal_integer(name)? {
            Some(index) => FieldStep::Index(index),
            None => FieldStep::Key(py_str(name)),
        }
    };
    if name.is_empty() {
        return Err(value_error("Empty attribute in format string"));
    }
    Ok(Some((step, tail)))
}

impl FieldStep {
    /// `getattr(obj, name)`, `obj[index]` or `obj[key]`, with CPython's errors.
    fn apply(&self, value: &Value) -> Result<Value, PyException> {
        match self {
            FieldStep::Attribute(name) => get_attribute(value, name),
            FieldStep::Index(index) => get_index(value, *index),
            FieldStep::Key(key) => get_key(value, key),
        }
    }
}

/// The attributes `dir()` lists for an instance of the type, beyond `object`'s: an attribute
/// outside both raises `AttributeError`; one inside exists, and is not modelled.
fn extra_attributes(value: &Value) -> &'static [&'static str] {
    match value {
        Value::None => NONE_ATTRS,
        Value::Bool(_) | Value::Int(_) => INT_ATTRS,
        Value::Float(_) => FLOAT_ATTRS,
        Value::Str(_) => STR_ATTRS,
        Value::List(_) => LIST_ATTRS,
        Value::Dict(_) => DICT_ATTRS,
        Value::Opaque(_) => &[],
    }
}

fn get_attribute(value: &Value, name: &PyStr) -> Result<Value, PyException> {
    let Some(type_name) = value.type_name() else {
        return Err(unsupported("attribute access on an opaque object"));
    };
    let known = |attrs: &[&str]| attrs.iter().any(|a| name == *a);
    if known(OBJECT_ATTRS) || known(extra_attributes(value)) {
        return Err(unsupported("attribute access on a value"));
    }
    let mut message = PyStr::from(format!("'{type_name}' object has no attribute '"));
    message.push_py(name);
    message.push(cp('\''));
    Err(PyException::AttributeError { message })
}

/// `obj[index]` for an index written as digits (`PySequence_GetItem` on sequences).
fn get_index(value: &Value, index: usize) -> Result<Value, PyException> {
    match value {
        Value::List(items) => items
            .get(index)
            .cloned()
            .ok_or_else(|| PyException::IndexError {
                message: PyStr::from("list index out of range"),
            }),
        Value::Str(s) => s
            .code_points()
            .nth(index)
            .map(|c| Value::Str(py_str(&[c])))
            .ok_or_else(|| PyException::IndexError {
                message: PyStr::from("string index out of range"),
            }),
        Value::Dict(_) => Err(unsupported("an integer index into a dict")),
        other => not_subscriptable(other),
    }
}

/// `obj[key]` for any other key, which is passed as a `str`.
fn get_key(value: &Value, key: &PyStr) -> Result<Value, PyException> {
    match value {
        Value::Dict(d) => d.get(key).cloned().ok_or_else(|| PyException::KeyError {
            message: key.clone(),
        }),
        Value::List(_) => Err(type_error(
            "list indices must be integers or slices, not str",
        )),
        Value::Str(_) => Err(type_error("string indices must be integers, not 'str'")),
        other => not_subscriptable(other),
    }
}

fn not_subscriptable(value: &Value) -> Result<Value, PyException> {
    match value.type_name() {
        Some(name) => Err(type_error(format!("'{name}' object is not subscriptable"))),
        None => Err(unsupported("subscripting an opaque object")),
    }
}

/// `!r`, `!s`, `!a`, or CPython's error for any other conversion character.
fn convert(value: &Value, conversion: u32) -> Result<Value, PyException> {
    check_int_str_limit(value)?;
    match char::from_u32(conversion) {
        Some('r') => Ok(Value::Str(repr(value))),
        Some('s') => Ok(Value::Str(str_of(value))),
        Some('a') => Ok(Value::Str(ascii(&repr(value)))),
        Some(c) if conversion > 32 && conversion < 127 => {
            Err(value_error(format!("Unknown conversion specifier {c}")))
        }
        _ => Err(value_error(format!(
            "Unknown conversion specifier \\x{conversion:x}"
        ))),
    }
}

/// `ascii()` from `repr()`: every non-ASCII code point backslash-escaped.
fn ascii(repr: &PyStr) -> PyStr {
    let mut out = PyStr::with_capacity(repr.byte_len());
    for c in repr.code_points() {
        match c {
            0..=0x7F => out.push(c),
            0x80..=0xFF => out.push_str(&format!("\\x{c:02x}")),
            0x100..=0xFFFF => out.push_str(&format!("\\u{c:04x}")),
            _ => out.push_str(&format!("\\U{c:08x}")),
        }
    }
    out
}

/// `format(value, spec)` as `render_field` does it, appended to `out`.
fn render_field(value: &Value, spec: &[u32], out: &mut PyStr) -> Result<(), PyException> {
    check_int_str_limit(value)?;
    match value {
        Value::Str(s) if spec.is_empty() => out.push_py(s),
        Value::Str(s) => format_str(s, &parse_spec(spec, 's', '<', "str")?, out)?,
        Value::Int(i) if spec.is_empty() => out.push_str(i.as_decimal()),
        Value::Int(i) => format_int(i.as_decimal(), spec, "int", out)?,
        Value::Bool(b) if spec.is_empty() => out.push_str(if *b { "True" } else { "False" }),
        Value::Bool(b) => format_int(if *b { "1" } else { "0" }, spec, "bool", out)?,
        Value::Float(x) if spec.is_empty() => out.push_str(&float_repr(*x)),
        Value::Float(x) => format_float(*x, &parse_spec(spec, '\0', '>', "float")?, out)?,
        Value::Opaque(text) if spec.is_empty() => out.push_py(text),
        Value::Opaque(_) => return Err(unsupported("a format spec for an opaque object")),
        other if spec.is_empty() => out.push_py(&str_of(other)),
        other => {
            let name = other.type_name().unwrap_or("object");
            return Err(type_error(format!(
                "unsupported format string passed to {name}.__format__"
            )));
        }
    }
    Ok(())
}

/// `,` or `_` between digit groups.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Grouping {
    None,
    Comma,
    Underscore,
}

/// `InternalFormatSpec`: `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
struct Spec {
    fill: u32,
    align: u32,
    sign: Option<u32>,
    no_neg_0: bool,
    alternate: bool,
    width: Option<usize>,
    grouping: Grouping,
    precision: Option<usize>,
    /// The presentation type; `0` for none.
    ty: u32,
}

/// A cursor over a format spec.
struct SpecReader<'s> {
    s: &'s [u32],
    pos: usize,
}

impl SpecReader<'_> {
    fn peek_is(&self, c: char) -> bool {
        self.s.get(self.pos) == Some(&cp(c))
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek_is(c);
        self.pos += usize::from(hit);
        hit
    }

    /// `get_integer` of `formatter_unicode.c`: digits, possibly none.
    fn integer(&mut self) -> Result<Option<usize>, PyException> {
        let mut value = None;
        while let Some(digit) = self.s.get(self.pos).and_then(|&c| decimal_digit(c)) {
            value = Some(push_digit(value.unwrap_or(0), digit)?);
            self.pos += 1;
        }
        Ok(value)
    }
}

fn is_align(c: u32) -> bool {
    [cp('<'), cp('>'), cp('='), cp('^')].contains(&c)
}

/// `parse_internal_render_format_spec` with the type's defaults (`s`/`<` for `str`, `d`/`>`
/// for `int`, none/`>` for `float`).
fn parse_spec(
    s: &[u32],
    default_type: char,
    default_align: char,
    type_name: &str,
) -> Result<Spec, PyException> {
    let mut spec = Spec {
        fill: cp(' '),
        align: cp(default_align),
        sign: None,
        no_neg_0: false,
        alternate: false,
        width: None,
        grouping: Grouping::None,
        precision: None,
        ty: cp(default_type),
    };
    let mut r = SpecReader { s, pos: 0 };
    let (fill_specified, align_specified) = parse_fill_align(&mut r, &mut spec);
    if let Some(&sign) = s
        .get(r.pos)
        .filter(|&&c| [cp(' '), cp('+'), cp('-')].contains(&c))
    {
        spec.sign = Some(sign);
        r.pos += 1;
    }
    spec.no_neg_0 = r.eat('z');
    spec.alternate = r.eat('#');
    if !fill_specified && r.eat('0') {
        spec.fill = cp('0');
        if !align_specified && default_align == '>' {
            spec.align = cp('=');
        }
    }
    spec.width = r.integer()?;
    spec.grouping = parse_grouping(&mut r)?;
    if r.eat('.') {
        spec.precision = Some(
            r.integer()?
                .ok_or_else(|| value_error("Format specifier missing precision"))?,
        );
    }
    match &s[r.pos..] {
        [] => {}
        [ty] => spec.ty = *ty,
        _ => {
            let mut message = PyStr::from("Invalid format specifier '");
            message.push_py(&py_str(s));
            message.push_str(&format!("' for object of type '{type_name}'"));
            return Err(value_error(message));
        }
    }
    check_grouping_type(&mut spec)?;
    Ok(spec)
}

/// `[[fill]align]`: returns whether a fill and whether an alignment were given.
fn parse_fill_align(r: &mut SpecReader, spec: &mut Spec) -> (bool, bool) {
    match r.s {
        [fill, align, ..] if is_align(*align) => {
            (spec.fill, spec.align) = (*fill, *align);
            r.pos = 2;
            (true, true)
        }
        [align, ..] if is_align(*align) => {
            spec.align = *align;
            r.pos = 1;
            (false, true)
        }
        _ => (false, false),
    }
}

/// `[,|_]`, refusing both.
fn parse_grouping(r: &mut SpecReader) -> Result<Grouping, PyException> {
    let mut grouping = Grouping::None;
    if r.eat(',') {
        grouping = Grouping::Comma;
    }
    if r.eat('_') {
        if grouping != Grouping::None {
            return Err(value_error("Cannot specify both ',' and '_'."));
        }
        grouping = Grouping::Underscore;
    }
    if r.peek_is(',') && grouping == Grouping::Underscore {
        return Err(value_error("Cannot specify both ',' and '_'."));
    }
    Ok(grouping)
}

/// Grouping is allowed with the decimal and float types, and `_` with `b`, `o`, `x`, `X`.
fn check_grouping_type(spec: &mut Spec) -> Result<(), PyException> {
    let separator = match spec.grouping {
        Grouping::None => return Ok(()),
        Grouping::Comma => ',',
        Grouping::Underscore => '_',
    };
    let ty = char::from_u32(spec.ty).unwrap_or('\u{fffd}');
    match ty {
        'd' | 'e' | 'f' | 'g' | 'E' | 'G' | '%' | 'F' | '\0' => Ok(()),
        'b' | 'o' | 'x' | 'X' if spec.grouping == Grouping::Underscore => Ok(()),
        _ if spec.ty > 32 && spec.ty < 128 => Err(value_error(format!(
            "Cannot specify '{separator}' with '{ty}'."
        ))),
        _ => Err(value_error(format!(
            "Cannot specify '{separator}' with '\\x{:x}'.",
            spec.ty
        ))),
    }
}

fn unknown_presentation_type(ty: u32, type_name: &str) -> PyException {
    match char::from_u32(ty) {
        Some(c) if ty > 32 && ty < 128 => value_error(format!(
            "Unknown format code '{c}' for object of type '{type_name}'"
        )),
        _ => value_error(format!(
            "Unknown format code '\\x{ty:x}' for object of type '{type_name}'"
        )),
    }
}

/// Refuses a width or precision too large to build.
fn check_size(n: Option<usize>) -> Result<(), PyException> {
    match n {
        Some(n) if n > SIZE_MAX => Err(unsupported("a width or precision above 2**20")),
        _ => Ok(()),
    }
}

/// `format_string_internal`: a `str` with a non-empty spec.
fn format_str(s: &PyStr, spec: &Spec, out: &mut PyStr) -> Result<(), PyException> {
    if spec.ty != cp('s') {
        return Err(unknown_presentation_type(spec.ty, "str"));
    }
    match spec.sign {
        Some(c) if c == cp(' ') => {
            return Err(value_error("Space not allowed in string format specifier"));
        }
        Some(_) => return Err(value_error("Sign not allowed in string format specifier")),
        None => {}
    }
    if spec.no_neg_0 {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in string format specifier",
        ));
    }
    if spec.alternate {
        return Err(value_error(
            "Alternate form (#) not allowed in string format specifier",
        ));
    }
    if spec.align == cp('=') {
        return Err(value_error(
            "'=' alignment not allowed in string format specifier",
        ));
    }
    check_size(spec.width)?;
    let len = s.char_len();
    let kept = spec.precision.map_or(len, |p| p.min(len));
    let total = spec.width.map_or(kept, |w| w.max(kept));
    let left = match char::from_u32(spec.align) {
        Some('>') => total - kept,
        Some('^') => (total - kept) / 2,
        _ => 0,
    };
    push_fill(out, spec.fill, left);
    s.code_points().take(kept).for_each(|c| out.push(c));
    push_fill(out, spec.fill, total - kept - left);
    Ok(())
}

fn push_fill(out: &mut PyStr, fill: u32, n: usize) {
    (0..n).for_each(|_| out.push(fill));
}

/// `int.__format__` (and `bool.__format__`) with a non-empty spec; `digits` is the decimal
/// text of the value.
fn format_int(
    digits: &str,
    spec: &[u32],
    type_name: &str,
    out: &mut PyStr,
) -> Result<(), PyException> {
    let spec = parse_spec(spec, 'd', '>', type_name)?;
    match char::from_u32(spec.ty).unwrap_or('\0') {
        'b' | 'c' | 'd' | 'o' | 'x' | 'X' | 'n' => format_long(digits, &spec, out),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%' => {
            let x: f64 = digits.parse().unwrap_or(f64::INFINITY);
            if x.is_infinite() {
                return Err(PyException::OverflowError {
                    message: PyStr::from("int too large to convert to float"),
                });
            }
            format_float(x, &spec, out)
        }
        _ => Err(unknown_presentation_type(spec.ty, type_name)),
    }
}

/// `format_long_internal`.
fn format_long(digits: &str, spec: &Spec, out: &mut PyStr) -> Result<(), PyException> {
    if spec.precision.is_some() {
        return Err(value_error(
            "Precision not allowed in integer format specifier",
        ));
    }
    if spec.no_neg_0 {
        return Err(value_error(
            "Negative zero coercion (z) not allowed in integer format specifier",
        ));
    }
    check_size(spec.width)?;
    let (negative, magnitude) = match digits.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, digits),
    };
    let ty = char::from_u32(spec.ty).unwrap_or('\0');
    let (prefix, text) = match ty {
        // `n` is `d` under the C locale, which CPython keeps for LC_NUMERIC.
        'd' | 'n' => ("", Cow::Borrowed(magnitude)),
        'b' | 'o' | 'x' | 'X' => {
            let Ok(n) = magnitude.parse::<u128>() else {
                return Err(unsupported("a binary, octal or hex int beyond 128 bits"));
            };
            based(n, ty, spec.alternate)
        }
        _ => return Err(unsupported("the 'c' int format")),
    };
    let number = Number {
        negative,
        prefix,
        digits: &text,
        decimal: false,
        remainder: "",
    };
    layout_number(&number, spec, group_size(ty), out);
    Ok(())
}

/// The digits of `n` in the base of `ty`, and the `0b`/`0o`/`0x`/`0X` prefix when `#` asks.
fn based(n: u128, ty: char, alternate: bool) -> (&'static str, Cow<'static, str>) {
    let (prefix, text) = match ty {
        'b' => ("0b", format!("{n:b}")),
        'o' => ("0o", format!("{n:o}")),
        'x' => ("0x", format!("{n:x}")),
        _ => ("0X", format!("{n:X}")),
    };
    (if alternate { prefix } else { "" }, Cow::Owned(text))
}

/// Digits per group: three in decimal, four in binary, octal and hex.
fn group_size(ty: char) -> usize {
    if matches!(ty, 'b' | 'o' | 'x' | 'X') {
        4
    } else {
        3
    }
}

/// `format_float_internal` for the supported types.
fn format_float(x: f64, spec: &Spec, out: &mut PyStr) -> Result<(), PyException> {
    if spec.precision.is_some_and(|p| p > i32::MAX as usize) {
        return Err(value_error("precision too big"));
    }
    let ty = char::from_u32(spec.ty).unwrap_or('\u{fffd}');
    if !matches!(ty, '\0' | 'e' | 'E' | 'f' | 'F' | '%' | 'g' | 'G' | 'n') {
        return Err(unknown_presentation_type(spec.ty, "float"));
    }
    if matches!(ty, 'g' | 'G' | 'n') || (ty == '\0' && spec.precision.is_some()) {
        return Err(unsupported("the 'g' and 'n' float formats"));
    }
    if spec.alternate {
        return Err(unsupported("'#' with a float"));
    }
    check_size(spec.width)?;
    check_size(spec.precision)?;
    let text = float_text(x, ty, spec.precision.unwrap_or(6));
    let (negative, body) = match text.strip_prefix('-') {
        Some(body) => (!(spec.no_neg_0 && is_all_zero(body)), body),
        None => (false, text.as_str()),
    };
    let int_end = body.bytes().take_while(u8::is_ascii_digit).count();
    let (digits, tail) = body.split_at(int_end);
    let (decimal, remainder) = match tail.strip_prefix('.') {
        Some(rest) => (true, rest),
        None => (false, tail),
    };
    let number = Number {
        negative,
        prefix: "",
        digits,
        decimal,
        remainder,
    };
    layout_number(&number, spec, 3, out);
    Ok(())
}

/// Whether a formatted number shows only zeros, so `z` may drop its minus sign.
fn is_all_zero(body: &str) -> bool {
    let mantissa = body.split(['e', 'E']).next().unwrap_or(body);
    mantissa
        .bytes()
        .all(|b| b == b'0' || b == b'.' || b == b'%')
}

/// `PyOS_double_to_string` for `repr` (no type), `e`/`E`, `f`/`F` and `%`: the sign, if
/// negative, then the digits. Rust's fixed and scientific forms are correctly rounded, like
/// David Gay's modes 2 and 3 that CPython uses; only the exponent's spelling differs.
fn float_text(x: f64, ty: char, precision: usize) -> String {
    let upper = matches!(ty, 'E' | 'F');
    let sign = if x.is_sign_negative() && !x.is_nan() {
        "-"
    } else {
        ""
    };
    let percent = if ty == '%' { "%" } else { "" };
    if !x.is_finite() {
        let word = if x.is_nan() { "nan" } else { "inf" };
        let word = if upper {
            word.to_uppercase()
        } else {
            word.to_owned()
        };
        return format!("{sign}{word}{percent}");
    }
    match ty {
        '\0' => float_repr(x),
        'e' | 'E' => {
            let text = format!("{:.*e}", precision, x.abs());
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
            let exponent: i32 = exponent.parse().unwrap_or(0);
            let e = if upper { 'E' } else { 'e' };
            let exp_sign = if exponent < 0 { '-' } else { '+' };
            format!("{sign}{mantissa}{e}{exp_sign}{:02}", exponent.abs())
        }
        '%' => format!("{sign}{:.*}%", precision, (x * 100.0).abs()),
        _ => format!("{sign}{:.*}", precision, x.abs()),
    }
}

/// A number split the way `calc_number_widths` sees it.
struct Number<'a> {
    negative: bool,
    prefix: &'a str,
    /// The integer digits, grouped when asked.
    digits: &'a str,
    /// Whether a decimal point follows the digits.
    decimal: bool,
    /// Everything after the decimal point (or after the digits): fraction, exponent, `%`.
    remainder: &'a str,
}

/// `calc_number_widths` and `fill_number`: padding, sign, prefix, grouped digits, remainder.
fn layout_number(n: &Number, spec: &Spec, group: usize, out: &mut PyStr) {
    let sign = match (spec.sign.and_then(char::from_u32), n.negative) {
        (_, true) => Some('-'),
        (Some('+'), false) => Some('+'),
        (Some(' '), false) => Some(' '),
        _ => None,
    };
    let fixed =
        usize::from(sign.is_some()) + n.prefix.len() + usize::from(n.decimal) + n.remainder.len();
    let width = spec.width.map_or(-1, |w| w as isize);
    let min_width = if spec.fill == cp('0') && spec.align == cp('=') {
        width - fixed as isize
    } else {
        0
    };
    let separator = match spec.grouping {
        Grouping::None => None,
        Grouping::Comma => Some(','),
        Grouping::Underscore => Some('_'),
    };
    let grouped = if n.digits.is_empty() {
        String::new()
    } else {
        group_digits(n.digits, min_width, separator, group)
    };
    let padding = (width - (fixed + grouped.len()) as isize).max(0) as usize;
    let (left, inner, right) = match char::from_u32(spec.align) {
        Some('<') => (0, 0, padding),
        Some('^') => (padding / 2, 0, padding - padding / 2),
        Some('=') => (0, padding, 0),
        _ => (padding, 0, 0),
    };
    push_fill(out, spec.fill, left);
    if let Some(sign) = sign {
        out.push(u32::from(sign));
    }
    out.push_str(n.prefix);
    push_fill(out, spec.fill, inner);
    out.push_str(&grouped);
    if n.decimal {
        out.push(cp('.'));
    }
    out.push_str(n.remainder);
    push_fill(out, spec.fill, right);
}

/// `_PyUnicode_InsertThousandsGrouping`: groups of `group` digits from the right, left-padded
/// with zeros (grouped too) up to `min_width` characters.
fn group_digits(digits: &str, min_width: isize, separator: Option<char>, group: usize) -> String {
    let Some(separator) = separator else {
        let zeros = (min_width - digits.len() as isize).max(0) as usize;
        return "0".repeat(zeros) + digits;
    };
    let bytes = digits.as_bytes();
    let mut remaining = bytes.len() as isize;
    let mut min_width = min_width;
    let mut chunks: Vec<String> = Vec::new();
    loop {
        let l = (group as isize).min(remaining.max(min_width).max(1));
        let zeros = (l - remaining).max(0) as usize;
        let take = remaining.min(l).max(0) as usize;
        let end = remaining.max(0) as usize;
        let mut chunk = "0".repeat(zeros);
        chunk.push_str(&digits[end - take..end]);
        if !chunks.is_empty() {
            chunk.push(separator);
        }
        chunks.push(chunk);
        remaining -= take as isize;
        min_width -= l;
        if remaining <= 0 && min_width <= 0 {
            break;
        }
        min_width -= 1;
    }
    chunks.iter().rev().map(String::as_str).collect()
}

/// The code points of Unicode 14.0's decimal digit zeros; each starts a run of ten
/// (`[c for c in map(chr, range(0x110000)) if unicodedata.decimal(c, -1) == 0]`).
const DIGIT_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// `dir(object())` in CPython 3.11.7.
#[rustfmt::skip]
const OBJECT_ATTRS: &[&str] = &[
    "__class__", "__delattr__", "__dir__", "__doc__", "__eq__", "__format__", "__ge__",
    "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__", "__init_subclass__",
    "__le__", "__lt__", "__ne__", "__new__", "__reduce__", "__reduce_ex__", "__repr__",
    "__setattr__", "__sizeof__", "__str__", "__subclasshook__",
];

// `sorted(set(dir(v)) - set(dir(object())))` in CPython 3.11.7, for `v` of each type
// (`bool` has exactly `int`'s attributes).

#[rustfmt::skip]
const NONE_ATTRS: &[&str] = &["__bool__"];

#[rustfmt::skip]
const INT_ATTRS: &[&str] = &[
    "__abs__", "__add__", "__and__", "__bool__", "__ceil__", "__divmod__", "__float__",
    "__floor__", "__floordiv__", "__getnewargs__", "__index__", "__int__", "__invert__",
    "__lshift__", "__mod__", "__mul__", "__neg__", "__or__", "__pos__", "__pow__", "__radd__",
    "__rand__", "__rdivmod__", "__rfloordiv__", "__rlshift__", "__rmod__", "__rmul__",
    "__ror__", "__round__", "__rpow__", "__rrshift__", "__rshift__", "__rsub__",
    "__rtruediv__", "__rxor__", "__sub__", "__truediv__", "__trunc__", "__xor__",
    "as_integer_ratio", "bit_count", "bit_length", "conjugate", "denominator", "from_bytes",
    "imag", "numerator", "real", "to_bytes",
];

#[rustfmt::skip]
const FLOAT_ATTRS: &[&str] = &[
    "__abs__", "__add__", "__bool__", "__ceil__", "__divmod__", "__float__", "__floor__",
    "__floordiv__", "__getformat__", "__getnewargs__", "__int__", "__mod__", "__mul__",
    "__neg__", "__pos__", "__pow__", "__radd__", "__rdivmod__", "__rfloordiv__", "__rmod__",
    "__rmul__", "__round__", "__rpow__", "__rsub__", "__rtruediv__", "__sub__", "__truediv__",
    "__trunc__", "as_integer_ratio", "conjugate", "fromhex", "hex", "imag", "is_integer",
    "real",
];

#[rustfmt::skip]
const STR_ATTRS: &[&str] = &[
    "__add__", "__contains__", "__getitem__", "__getnewargs__", "__iter__", "__len__",
    "__mod__", "__mul__", "__rmod__", "__rmul__", "capitalize", "casefold", "center", "count",
    "encode", "endswith", "expandtabs", "find", "format", "format_map", "index", "isalnum",
    "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric",
    "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip",
    "maketrans", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
    "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip",
    "swapcase", "title", "translate", "upper", "zfill",
];

#[rustfmt::skip]
const LIST_ATTRS: &[&str] = &[
    "__add__", "__class_getitem__", "__contains__", "__delitem__", "__getitem__", "__iadd__",
    "__imul__", "__iter__", "__len__", "__mul__", "__reversed__", "__rmul__", "__setitem__",
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove",
    "reverse", "sort",
];

#[rustfmt::skip]
const DICT_ATTRS: &[&str] = &[
    "__class_getitem__", "__contains__", "__delitem__", "__getitem__", "__ior__", "__iter__",
    "__len__", "__or__", "__reversed__", "__ror__", "__setitem__", "clear", "copy", "fromkeys",
    "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::{Dict, PyInt};

    fn s(text: &str) -> Value {
        Value::str(text)
    }

    fn big(digits: &str) -> Value {
        Value::Int(PyInt::from_decimal(digits).expect("decimal"))
    }

    fn dict(items: &[(&str, Value)]) -> Value {
        let d: Dict = items
            .iter()
            .map(|(k, v)| (PyStr::from(*k), v.clone()))
            .collect();
        Value::Dict(d)
    }

    type Case = (
        &'static str,
        Vec<(&'static str, Value)>,
        Result<&'static str, (&'static str, &'static str)>,
    );

    /// `(template, kwargs, template.format(**kwargs))`, the outcome as printed by CPython
    /// 3.11.7: the text, or the exception's type and `str()`.
    #[rustfmt::skip]
    fn cpython_cases() -> Vec<Case> {
        vec![
        ("Results for {query}", vec![("query", s("cats"))], Ok("Results for cats")),
        ("{{literal}} {a}", vec![("a", Value::int(1))], Ok("{literal} 1")),
        ("}}{{", vec![], Ok("}{")),
        ("{ a }", vec![(" a ", Value::int(1))], Ok("1")),
        ("{missing}", vec![], Err(("KeyError", "'missing'"))),
        ("{missing} }", vec![], Err(("KeyError", "'missing'"))),
        ("{a}", vec![("a", s(""))], Ok("")),
        ("{}", vec![], Err(("IndexError", "Replacement index 0 out of range for positional args tuple"))),
        ("{0}", vec![], Err(("IndexError", "Replacement index 0 out of range for positional args tuple"))),
        ("{00}", vec![], Err(("IndexError", "Replacement index 0 out of range for positional args tuple"))),
        ("{\u{663}}", vec![], Err(("IndexError", "Replacement index 3 out of range for positional args tuple"))),
        ("{99999999999999999999}", vec![], Err(("ValueError", "Too many decimal digits in format string"))),
        ("{-1}", vec![], Err(("KeyError", "'-1'"))),
        ("}", vec![], Err(("ValueError", "Single '}' encountered in format string"))),
        ("a}b", vec![], Err(("ValueError", "Single '}' encountered in format string"))),
        ("{", vec![], Err(("ValueError", "Single '{' encountered in format string"))),
        ("{a", vec![("a", Value::int(1))], Err(("ValueError", "expected '}' before end of string"))),
        ("{a!", vec![("a", Value::int(1))], Err(("ValueError", "end of string while looking for conversion specifier"))),
        ("{a!r", vec![("a", Value::int(1))], Err(("ValueError", "unmatched '{' in format spec"))),
        ("{a!rx}", vec![("a", Value::int(1))], Err(("ValueError", "expected ':' after conversion specifier"))),
        ("{a!x}", vec![("a", Value::int(1))], Err(("ValueError", "Unknown conversion specifier x"))),
        ("{a!\u{e9}}", vec![("a", Value::int(1))], Err(("ValueError", "Unknown conversion specifier \\xe9"))),
        ("{a{b}", vec![], Err(("ValueError", "unexpected '{' in field name"))),
        ("{a}}", vec![("a", Value::int(1))], Err(("ValueError", "Single '}' encountered in format string"))),
        ("{a!r}", vec![("a", s("it's"))], Ok("\"it's\"")),
        ("{a!s}", vec![("a", Value::List(vec![Value::int(1), s("x"), Value::None]))], Ok("[1, 'x', None]")),
        ("{a!a}", vec![("a", s("\u{e9}\u{1f600}"))], Ok("'\\xe9\\U0001f600'")),
        ("{a!r:>8}", vec![("a", s("x"))], Ok("     'x'")),
        ("{a}", vec![("a", Value::Float(1.0))], Ok("1.0")),
        ("{a}", vec![("a", Value::Bool(true))], Ok("True")),
        ("{a}", vec![("a", Value::None)], Ok("None")),
        ("{a}", vec![("a", dict(&[("k", Value::List(vec![Value::int(1), Value::Float(2.5)]))]))], Ok("{'k': [1, 2.5]}")),
        ("{a:>5}", vec![("a", Value::None)], Err(("TypeError", "unsupported format string passed to NoneType.__format__"))),
        ("{a:>5}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("TypeError", "unsupported format string passed to list.__format__"))),
        ("{a:>5}", vec![("a", Value::Bool(true))], Ok("    1")),
        ("{a:d}", vec![("a", Value::Bool(false))], Ok("0")),
        ("{a:*^7}", vec![("a", s("ab"))], Ok("**ab***")),
        ("{a:05}", vec![("a", s("ab"))], Ok("ab000")),
        ("{a:5.1}", vec![("a", s("ab"))], Ok("a    ")),
        ("{a:.0}", vec![("a", s("ab"))], Ok("")),
        ("{a:\u{e9}^5}", vec![("a", s("ab"))], Ok("\u{e9}ab\u{e9}\u{e9}")),
        ("{a:\u{663}}", vec![("a", s("ab"))], Ok("ab ")),
        ("{a:+}", vec![("a", s("ab"))], Err(("ValueError", "Sign not allowed in string format specifier"))),
        ("{a: }", vec![("a", s("ab"))], Err(("ValueError", "Space not allowed in string format specifier"))),
        ("{a:#}", vec![("a", s("ab"))], Err(("ValueError", "Alternate form (#) not allowed in string format specifier"))),
        ("{a:z}", vec![("a", s("ab"))], Err(("ValueError", "Negative zero coercion (z) not allowed in string format specifier"))),
        ("{a:=5}", vec![("a", s("ab"))], Err(("ValueError", "'=' alignment not allowed in string format specifier"))),
        ("{a:,}", vec![("a", s("ab"))], Err(("ValueError", "Cannot specify ',' with 's'."))),
        ("{a:,_}", vec![("a", s("ab"))], Err(("ValueError", "Cannot specify both ',' and '_'."))),
        ("{a:,,}", vec![("a", s("ab"))], Err(("ValueError", "Cannot specify ',' with ','."))),
        ("{a:d}", vec![("a", s("ab"))], Err(("ValueError", "Unknown format code 'd' for object of type 'str'"))),
        ("{a:ss}", vec![("a", s("ab"))], Err(("ValueError", "Invalid format specifier 'ss' for object of type 'str'"))),
        ("{a:.}", vec![("a", s("ab"))], Err(("ValueError", "Format specifier missing precision"))),
        ("{a:{w}}", vec![("a", s("x")), ("w", s(">5"))], Ok("    x")),
        ("{a:{w:{p}}}", vec![("a", s("x")), ("w", s("y")), ("p", s("z"))], Err(("ValueError", "Max string recursion exceeded"))),
        ("{a:{}}", vec![("a", Value::int(1))], Err(("IndexError", "Replacement index 0 out of range for positional args tuple"))),
        ("{a:{w}", vec![("a", Value::int(1)), ("w", Value::int(5))], Err(("ValueError", "unmatched '{' in format spec"))),
        ("{a:010,}", vec![("a", Value::int(1234))], Ok("00,001,234")),
        ("{a:+,}", vec![("a", Value::int(-1234567))], Ok("-1,234,567")),
        ("{a:_x}", vec![("a", Value::int(1099511627776))], Ok("100_0000_0000")),
        ("{a:#X}", vec![("a", Value::int(-255))], Ok("-0XFF")),
        ("{a:#010b}", vec![("a", Value::int(5))], Ok("0b00000101")),
        ("{a:,x}", vec![("a", Value::int(5))], Err(("ValueError", "Cannot specify ',' with 'x'."))),
        ("{a:.2}", vec![("a", Value::int(5))], Err(("ValueError", "Precision not allowed in integer format specifier"))),
        ("{a:s}", vec![("a", Value::int(5))], Err(("ValueError", "Unknown format code 's' for object of type 'int'"))),
        ("{a:s}", vec![("a", Value::Bool(true))], Err(("ValueError", "Unknown format code 's' for object of type 'bool'"))),
        ("{a:f}", vec![("a", big("10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"))], Err(("OverflowError", "int too large to convert to float"))),
        ("{a:.2f}", vec![("a", Value::Float(0.125))], Ok("0.12")),
        ("{a:.2f}", vec![("a", Value::Float(2.675))], Ok("2.67")),
        ("{a:.3e}", vec![("a", Value::Float(-12345.678))], Ok("-1.235e+04")),
        ("{a:E}", vec![("a", Value::Float(f64::INFINITY))], Ok("INF")),
        ("{a:010f}", vec![("a", Value::Float(f64::NEG_INFINITY))], Ok("-000000inf")),
        ("{a:.1%}", vec![("a", Value::Float(0.12345))], Ok("12.3%")),
        ("{a:z.1f}", vec![("a", Value::Float(-0.04))], Ok("0.0")),
        ("{a:,.2f}", vec![("a", Value::Float(1234567.891))], Ok("1,234,567.89")),
        ("{a:>12}", vec![("a", Value::Float(1e+16))], Ok("       1e+16")),
        ("{a:d}", vec![("a", Value::Float(1.5))], Err(("ValueError", "Unknown format code 'd' for object of type 'float'"))),
        ("{a.b}", vec![], Err(("KeyError", "'a'"))),
        ("{a.b}", vec![("a", dict(&[]))], Err(("AttributeError", "'dict' object has no attribute 'b'"))),
        ("{a.x y}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("AttributeError", "'list' object has no attribute 'x y'"))),
        ("{a[x]}", vec![("a", dict(&[("x", Value::int(5))]))], Ok("5")),
        ("{a[x]}", vec![("a", dict(&[]))], Err(("KeyError", "'x'"))),
        ("{a[0]}", vec![("a", Value::List(vec![Value::int(1)]))], Ok("1")),
        ("{a[1]}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("IndexError", "list index out of range"))),
        ("{a[x]}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("TypeError", "list indices must be integers or slices, not str"))),
        ("{a[0][1]}", vec![("a", Value::List(vec![Value::List(vec![Value::int(1), Value::int(2)])]))], Ok("2")),
        ("{a[0]}", vec![("a", s("xy"))], Ok("x")),
        ("{a[x]}", vec![("a", s("xy"))], Err(("TypeError", "string indices must be integers, not 'str'"))),
        ("{a[0]}", vec![("a", Value::int(5))], Err(("TypeError", "'int' object is not subscriptable"))),
        ("{a[0]}", vec![("a", Value::None)], Err(("TypeError", "'NoneType' object is not subscriptable"))),
        ("{a.}", vec![("a", Value::int(1))], Err(("ValueError", "Empty attribute in format string"))),
        ("{a[]}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("ValueError", "Empty attribute in format string"))),
        ("{a[0]x}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("ValueError", "Only '.' or '[' may follow ']' in format field specifier"))),
        ("{a[0}", vec![("a", Value::List(vec![Value::int(1)]))], Err(("ValueError", "expected '}' before end of string"))),
        ]
    }

    #[test]
    fn matches_cpython() {
        for (template, kwargs, expected) in cpython_cases() {
            let kwargs: Vec<(PyStr, Value)> = kwargs
                .into_iter()
                .map(|(k, v)| (PyStr::from(k), v))
                .collect();
            let got = format_kwargs(&PyStr::from(template), &kwargs)
                .map(|s| s.to_string())
                .map_err(|e| (e.class_name(), e.str().to_string()));
            let expected = expected
                .map(str::to_owned)
                .map_err(|(t, m)| (t, m.to_owned()));
            assert_eq!(got, expected, "{template:?}");
        }
    }

    #[test]
    fn lone_surrogates_pass_through_and_escape() {
        let mut lone = PyStr::new();
        lone.push(0xD800);
        let kwargs = [(PyStr::from("a"), Value::Str(lone.clone()))];
        let mut template = PyStr::from("{a}");
        template.push(0xDFFF);
        let mut expected = lone;
        expected.push(0xDFFF);
        assert_eq!(format_kwargs(&template, &kwargs), Ok(expected));
        let ascii = format_kwargs(&PyStr::from("{a!a}"), &kwargs).expect("formats");
        assert_eq!(ascii, PyStr::from(r"'\ud800'"));
    }

    #[test]
    fn unmodelled_forms_are_clear_value_errors() {
        let kwargs = [
            (PyStr::from("f"), Value::Float(1.5)),
            (PyStr::from("d"), dict(&[("0", Value::int(1))])),
            (PyStr::from("s"), s("x")),
            (PyStr::from("o"), Value::Opaque(PyStr::from("{1, 2}"))),
        ];
        for template in [
            "{f:g}",
            "{f:.3}",
            "{f:#f}",
            "{d[0]}",
            "{s.upper}",
            "{o:>5}",
            "{o[0]}",
            "{s:>2000000}",
        ] {
            let e = format_kwargs(&PyStr::from(template), &kwargs).unwrap_err();
            assert_eq!(e.class_name(), "ValueError", "{template}");
            assert!(e.str().to_string().contains("unsupported"), "{template}");
        }
        let opaque = format_kwargs(&PyStr::from("{o}"), &kwargs).expect("formats");
        assert_eq!(opaque, PyStr::from("{1, 2}"));
    }
}
