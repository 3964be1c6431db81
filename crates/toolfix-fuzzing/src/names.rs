//! Tool names: the set a reply's tools are offered from, and the names a model calls.

use arbitrary::Result;

use super::choice::Gen;
use super::json::Json;
use super::markers::title;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::Allowlist;
use toolfix::salvage::tokens::react;

/// Names tools are offered under. The last ones fall outside the `[a-zA-Z0-9_-]` class
/// of `<function=…>` and ReAct, so only the payload dialects can call them; `do_action`
/// holds a marker.
const OFFERED: [&str; 11] = [
    "get_weather",
    "web_search",
    "get_time",
    "calc",
    "send-email",
    "Lookup2",
    "a",
    "do_action",
    "get weather",
    "café",
    "日本",
];

/// Names a model makes up (the first two fit the `[a-zA-Z0-9_-]` class of every dialect).
const INVENTED: [&str; 6] = [
    "wire_transfer",
    "delete_all_files",
    "",
    "get_weather2",
    "GetWeather",
    "tool_call",
];

/// The tools a reply was offered: indices into `OFFERED`, at least one, and whether their
/// entries carry the parameter schema `TEXT_KEYS` describes.
#[derive(Clone, Debug)]
pub struct Offered(Vec<&'static str>, bool);

impl Offered {
    /// A non-empty set of names, typed or not.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<Offered> {
        let mut names = vec![g.pick(&OFFERED)?];
        for _ in 0..g.upto(4)? {
            let name = g.pick(&OFFERED)?;
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(Offered(names, g.any()?))
    }

    /// Whether the tools carry the schema of `TEXT_KEYS`, so that the formats that write
    /// arguments as text convert them by type.
    pub fn typed(&self) -> bool {
        self.1
    }

    /// The names, in the order offered.
    pub fn names(&self) -> &[&'static str] {
        &self.0
    }

    /// The tools as a protocol `salvage` input lists them (`docs/protocol.md`): bare
    /// names, or when typed OpenAI tool entries carrying the schema.
    pub fn protocol_entries(&self) -> Vec<Value> {
        let entry = |name: &str| {
            let function = Value::dict([
                ("name", Value::str(name)),
                ("description", Value::str("")),
                ("parameters", schema()),
            ]);
            Value::dict([("type", Value::str("function")), ("function", function)])
        };
        self.0
            .iter()
            .map(|name| match self.1 {
                true => entry(name),
                false => Value::str(name),
            })
            .collect()
    }

    /// The allowlist salvage checks names against (with every tool's schema when typed).
    pub fn allowlist(&self) -> Allowlist {
        let mut allowlist = Allowlist::new(self.0.iter().copied());
        if self.1 {
            let schema = schema();
            for name in &self.0 {
                allowlist.insert_schema(*name, &schema);
            }
        }
        allowlist
    }
}

/// A parameter's declared JSON schema type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    Integer,
    Number,
    Boolean,
    Object,
    Array,
    String,
    /// `["integer", "null"]`.
    IntegerOrNull,
    /// Not in the schema: the value stays the text written.
    Untyped,
}

/// The keys of the arguments written as text, with the type the offered tools' schema
/// declares for each.
pub const TEXT_KEYS: [(&str, ParamType); 11] = [
    ("count", ParamType::Integer),
    ("ratio", ParamType::Number),
    ("flag", ParamType::Boolean),
    ("meta", ParamType::Object),
    ("items", ParamType::Array),
    ("note", ParamType::String),
    ("maybe", ParamType::IntegerOrNull),
    ("city", ParamType::Untyped),
    ("query", ParamType::Untyped),
    ("nested key", ParamType::Untyped),
    ("日本", ParamType::Untyped),
];

impl ParamType {
    /// A value of this type (any value, now and then, in hostile replies).
    pub fn value(self, g: &mut Gen<'_, '_>) -> Result<Json> {
        if g.hostile() && g.chance(1, 4)? {
            return Json::generate(g);
        }
        Ok(match self {
            ParamType::Integer => Json::Int(g.any()?),
            ParamType::Number if g.any()? => Json::Int(g.any::<i32>()?.into()),
            ParamType::Number => {
                let f: f64 = g.any()?;
                Json::Float(if f.is_finite() { f } else { 1.5 })
            }
            ParamType::Boolean => Json::Bool(g.any()?),
            ParamType::Object => Json::object(g)?,
            ParamType::Array => Json::list(g)?,
            ParamType::IntegerOrNull if g.any()? => Json::Null,
            ParamType::IntegerOrNull => Json::Int(g.any()?),
            ParamType::String | ParamType::Untyped => Json::Str(super::json::string(g)?),
        })
    }

    /// Its `type` in a JSON schema.
    fn schema(self) -> Option<Value> {
        let name = match self {
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Object => "object",
            ParamType::Array => "array",
            ParamType::String => "string",
            ParamType::IntegerOrNull => {
                return Some(Value::List(vec![Value::str("integer"), Value::str("null")]));
            }
            ParamType::Untyped => return None,
        };
        Some(Value::str(name))
    }
}

/// The `parameters` schema every offered tool carries when typed.
fn schema() -> Value {
    let properties = TEXT_KEYS
        .iter()
        .filter_map(|(key, ty)| Some((*key, Value::dict([("type", ty.schema()?)]))))
        .collect::<Vec<_>>();
    Value::dict([
        ("type", Value::str("object")),
        ("properties", Value::dict(properties)),
    ])
}

/// The name a call is written with.
#[derive(Clone, Debug)]
pub enum CallName {
    /// The `n`th offered name (modulo their number).
    Offered(usize),
    /// An offered name with its case or separators changed: never offered itself.
    Drifted(usize),
    /// A name nobody offered.
    Invented(&'static str),
    /// Not a string at all (payload dialects only; other dialects write its JSON text).
    NotString(Box<Json>),
}

impl CallName {
    /// A name. Clean replies use offered names, and (when `may_reject`) now and then a
    /// made-up one that still fits every dialect, so the call is matched and rejected.
    pub fn generate(g: &mut Gen<'_, '_>, may_reject: bool) -> Result<CallName> {
        if !g.hostile() {
            return Ok(match may_reject && g.chance(1, 6)? {
                true => CallName::Invented(g.pick(&INVENTED[..2])?),
                false => CallName::Offered(g.upto(7)?),
            });
        }
        Ok(match g.below(6)? {
            0..=2 => CallName::Offered(g.upto(7)?),
            3 => CallName::Drifted(g.upto(7)?),
            4 => CallName::Invented(g.pick(&INVENTED)?),
            _ => CallName::NotString(Box::new(g.nested(Json::generate)?)),
        })
    }

    /// The name as text, when it is a string.
    pub fn text(&self, offered: &Offered) -> Option<String> {
        let nth = |n: usize| offered.0[n % offered.0.len()];
        match self {
            CallName::Offered(n) => Some(nth(*n).to_owned()),
            CallName::Drifted(n) => Some(drift(nth(*n))),
            CallName::Invented(name) => Some((*name).to_owned()),
            CallName::NotString(_) => None,
        }
    }

    /// The name as a JSON value.
    pub fn json(&self, offered: &Offered) -> Json {
        match (self, self.text(offered)) {
            (CallName::NotString(json), _) => (**json).clone(),
            (_, text) => Json::Str(PyStr::from(text.unwrap_or_default())),
        }
    }

    /// A ReAct step calling the first offered name that fits a ReAct step, as a model
    /// quotes one inside a string (data, never a call, while the call around it is
    /// matched), and that name.
    pub fn quoted_step(offered: &Offered) -> Option<(String, PyStr)> {
        let name = offered.0.iter().find(|n| in_name_class(n))?;
        let action = title(react::ACTION);
        let input = title(react::INPUT);
        Some((
            format!("{action}: {name} {action} {input}: {{}}"),
            PyStr::from(*name),
        ))
    }

    /// The offered name this call intends, if it names one exactly.
    pub fn intended(&self, offered: &Offered) -> Option<PyStr> {
        match self {
            CallName::Offered(_) => self.text(offered).map(PyStr::from),
            _ => None,
        }
    }
}

/// `get_weather` → `GetWeather`, `web-search` → `Web_Search`: a name as a model drifts
/// it, which always differs from the name itself.
fn drift(name: &str) -> String {
    let mut upper_next = true;
    let drifted: String = name
        .chars()
        .filter_map(|c| match c {
            '_' | '-' | ' ' => {
                upper_next = true;
                None
            }
            c if upper_next => {
                upper_next = false;
                Some(c.to_uppercase().next().unwrap_or(c))
            }
            c => Some(c),
        })
        .collect();
    if drifted == name {
        format!("{name}_")
    } else {
        drifted
    }
}

/// Whether `name` can be written in `<function=…>` and ReAct: `[a-zA-Z0-9_-]+`.
pub fn in_name_class(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
