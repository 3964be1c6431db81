//! Tool names: the set a reply's tools are offered from, and the names a model calls.

use arbitrary::Result;

use super::choice::Gen;
use super::json::Json;
use toolfix::py::PyStr;
use toolfix::salvage::Allowlist;

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

/// The tools a reply was offered: indices into `OFFERED`, at least one.
#[derive(Clone, Debug)]
pub struct Offered(Vec<&'static str>);

impl Offered {
    /// A non-empty set of names.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<Offered> {
        let mut names = vec![g.pick(&OFFERED)?];
        for _ in 0..g.upto(4)? {
            let name = g.pick(&OFFERED)?;
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(Offered(names))
    }

    /// The allowlist salvage checks names against.
    pub fn allowlist(&self) -> Allowlist {
        Allowlist::new(self.0.iter().copied())
    }
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
        Some((
            format!("Action: {name} Action Input: {{}}"),
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
