//! Tools as the `execute` op describes them (`docs/protocol.md`): Python functions with a
//! parameter list valid for `inspect.Signature` (kinds in order, defaults after required
//! positionals, `*args` before keyword-only ones), and a body that returns a template, a
//! value or the bound arguments, or raises.

use toolfix::py::Value;

use super::rng::Rng;
use super::wire_value::wire_value;

/// Parameter names: identifiers, case variants of one another, a keyword, and names
/// `inspect` refuses (`my param`) or folds (`İd`).
const PARAM_NAMES: [&str; 20] = [
    "query", "limit", "city", "path", "x", "y", "id", "content", "text", "n", "timeout", "Query",
    "QUERY", "my param", "class", "İd", "a", "b", "units", "verbose",
];

/// The exception classes a tool body may raise.
const RAISE_TYPES: [&str; 14] = [
    "ValueError",
    "TypeError",
    "KeyError",
    "RuntimeError",
    "AttributeError",
    "IndexError",
    "LookupError",
    "OSError",
    "PermissionError",
    "TimeoutError",
    "ConnectionError",
    "NotImplementedError",
    "ZeroDivisionError",
    "Exception",
];

/// The messages it raises them with.
const RAISE_MESSAGES: [&str; 8] = [
    "query must not be empty",
    "card declined",
    "connection reset by peer",
    "",
    "missing",
    "rate limit exceeded",
    "unexpected keyword argument 'q'",
    "naïve ✓",
];

/// A parameter's kind, as `inspect.Parameter` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Before `/`.
    PositionalOnly,
    /// The default kind.
    PositionalOrKeyword,
    /// `*args`.
    VarPositional,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    VarKeyword,
}

impl Kind {
    /// Its name in the protocol.
    fn name(self) -> &'static str {
        match self {
            Kind::PositionalOnly => "positional_only",
            Kind::PositionalOrKeyword => "positional_or_keyword",
            Kind::VarPositional => "var_positional",
            Kind::KeywordOnly => "keyword_only",
            Kind::VarKeyword => "var_keyword",
        }
    }
}

/// One parameter; `None` fields are left out of the protocol object (their defaults apply).
#[derive(Clone, Debug)]
pub struct Param {
    /// Any string: the protocol lets names `inspect` refuses through.
    pub name: String,
    /// `None`: positional-or-keyword.
    pub kind: Option<Kind>,
    /// `None`: required unless a default is given.
    pub required: Option<bool>,
    /// `None`: no default (or `None` for an optional parameter).
    pub default: Option<Value>,
}

impl Param {
    /// A parameter with only a name (and kind, when given).
    pub fn named(name: &str, kind: Option<Kind>) -> Param {
        Param {
            name: name.to_owned(),
            kind,
            required: None,
            default: None,
        }
    }

    /// Its kind, the protocol's default applied.
    pub fn kind(&self) -> Kind {
        self.kind.unwrap_or(Kind::PositionalOrKeyword)
    }

    /// The protocol object.
    fn to_value(&self) -> Value {
        let mut pairs = vec![("name", Value::str(&self.name))];
        pairs.extend(self.kind.map(|k| ("kind", Value::str(k.name()))));
        pairs.extend(self.required.map(|r| ("required", Value::Bool(r))));
        pairs.extend(self.default.clone().map(|d| ("default", d)));
        Value::dict(pairs)
    }
}

/// One tool: its name, parameters and body.
#[derive(Clone, Debug)]
pub struct Tool {
    /// Its `__name__`.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// `returns_template`, `returns` and `raise`, as given.
    pub body: Vec<(&'static str, Value)>,
}

impl Tool {
    /// A tool named `name` with a valid signature and a random body.
    pub fn generate(rng: &mut Rng, name: &str) -> Tool {
        let params = params(rng);
        let body = body(rng, name, &params);
        Tool {
            name: name.to_owned(),
            params,
            body,
        }
    }

    /// A tool with the given (possibly invalid) parameters and the default body.
    pub fn with_params(name: &str, params: Vec<Param>) -> Tool {
        Tool {
            name: name.to_owned(),
            params,
            body: Vec::new(),
        }
    }

    /// The protocol object.
    pub fn to_value(&self) -> Value {
        let params = self.params.iter().map(Param::to_value).collect();
        let mut pairs = vec![
            ("name", Value::str(&self.name)),
            ("params", Value::List(params)),
        ];
        pairs.extend(self.body.iter().cloned());
        Value::dict(pairs)
    }
}

/// A valid Python parameter list of up to four named parameters, maybe `*args` and
/// `**kwargs`.
fn params(rng: &mut Rng) -> Vec<Param> {
    let n = rng.between(0, 4);
    let names = rng.sample(&PARAM_NAMES, n);
    let mut kinds: Vec<Kind> = (0..n)
        .map(|_| match rng.below(6) {
            0..=3 => Kind::PositionalOrKeyword,
            4 => Kind::PositionalOnly,
            _ => Kind::KeywordOnly,
        })
        .collect();
    kinds.sort();
    let mut optional_seen = false;
    let mut params: Vec<Param> = names
        .iter()
        .zip(kinds)
        .map(|(name, kind)| param(rng, name, kind, &mut optional_seen))
        .collect();
    if rng.chance(0.15) {
        let star = Param::named(rng.pick(&["args", "rest", "*"]), Some(Kind::VarPositional));
        let split = params
            .iter()
            .position(|p| p.kind() == Kind::KeywordOnly)
            .unwrap_or(params.len());
        params.insert(split, star);
    }
    if rng.chance(0.2) {
        let name = rng.pick(&["kwargs", "extra", "opts"]);
        params.push(Param::named(name, Some(Kind::VarKeyword)));
    }
    params
}

/// One named parameter; once a positional one is optional, every later positional one is.
fn param(rng: &mut Rng, name: &str, kind: Kind, optional_seen: &mut bool) -> Param {
    let mut param = Param::named(name, None);
    if kind != Kind::PositionalOrKeyword || rng.chance(0.2) {
        param.kind = Some(kind);
    }
    let optional = rng.chance(0.35) || (*optional_seen && kind != Kind::KeywordOnly);
    if optional {
        param.required = Some(false);
        if rng.chance(0.8) {
            param.default = Some(wire_value(rng, 1));
        }
        *optional_seen |= kind != Kind::KeywordOnly;
    } else if rng.chance(0.1) {
        param.required = Some(true);
    }
    param
}

/// What the body does: a template, a value, or the bound arguments; and maybe a raise.
fn body(rng: &mut Rng, name: &str, params: &[Param]) -> Vec<(&'static str, Value)> {
    let plain: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let mut body = Vec::new();
    let roll = rng.unit();
    if roll < 0.3 && !plain.is_empty() {
        let target = rng.pick(&plain);
        let field = if format_safe(target) {
            target
        } else {
            "missing"
        };
        let templates = [
            format!("results for {{{field}}}"),
            format!("{name}: {{{field}}}!"),
            "{missing}".to_owned(),
            "{0}".to_owned(),
            "constant".to_owned(),
        ];
        body.push(("returns_template", Value::str(&rng.pick(&templates))));
    } else if roll < 0.45 {
        let returned = match rng.below(5) {
            0 => wire_value(rng, 0),
            1 => Value::dict([("error", Value::str("card declined"))]),
            2 => Value::List(vec![Value::dict([("error", Value::str("boom"))])]),
            3 => Value::None,
            _ => Value::str("ok"),
        };
        body.push(("returns", returned));
    }
    if rng.chance(0.25) {
        let mut spec = vec![
            ("type", Value::str(rng.pick(&RAISE_TYPES))),
            ("message", Value::str(rng.pick(&RAISE_MESSAGES))),
        ];
        if !plain.is_empty() && rng.chance(0.6) {
            spec.push(("if_falsy", Value::str(rng.pick(&plain))));
        }
        body.push(("raise", Value::dict(spec)));
    }
    body
}

/// Whether `{name}` is a plain `str.format` field for this parameter name.
fn format_safe(name: &str) -> bool {
    !name.is_empty()
        && !name.chars().any(|c| "{}[].!:".contains(c))
        && !name.chars().all(|c| c.is_ascii_digit())
}

/// Whether the real package's pick of a parameter for `key` is left to `set` iteration
/// order, which varies per process: the cleaned key names no parameter exactly and matches
/// several case-insensitively (docs/behaviour.md §2(c)). Such arguments are
/// implementation-defined, so the generator never sends them.
pub fn case_ambiguous(params: &[Param], key: &str) -> bool {
    let names: Vec<&str> = params
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| *n != "self")
        .collect();
    let clean = py_strip(py_strip(key).trim_end_matches('='));
    let folded = clean.to_lowercase();
    !names.contains(&clean) && names.iter().filter(|n| n.to_lowercase() == folded).count() > 1
}

/// `str.strip()`: Python's whitespace removed at both ends.
fn py_strip(s: &str) -> &str {
    s.trim_matches(toolfix::py::is_space)
}
