//! Whole-content JSON: a reply that is nothing but `{"name": …, "arguments": …}` or a list
//! of such objects (surrounded by any `str.isspace` whitespace).

use arbitrary::Result;

use super::choice::Gen;
use super::json::{Json, JsonStyle};
use super::names::{CallName, Offered};
use toolfix::py::{Dict, PyStr, Value};

/// One entry of the payload.
#[derive(Clone, Debug)]
pub enum Entry {
    /// `{"name": NAME, "arguments": ARGS}`, without `arguments` when `args` is `None`.
    Call { name: CallName, args: Option<Json> },
    /// The keys the embedded dialects also accept, which this path ignores:
    /// `{"tool": NAME, "parameters": ARGS}` is no call here.
    ToolKeys { name: CallName, args: Json },
    /// Any other value (a list entry that is not an object is skipped).
    Other(Json),
}

/// The whole reply as one JSON payload.
#[derive(Clone, Debug)]
pub struct WholeJson {
    pub entries: Vec<Entry>,
    /// Whether the entries are written as a list (one entry may also be written bare).
    pub list: bool,
    pub style: JsonStyle,
}

impl WholeJson {
    /// One to three entries; clean replies only hold calls to offered names (under
    /// `praisonai` this path has no allowlist, so any other name would be a call there).
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<WholeJson> {
        let count = 1 + g.upto(2)?;
        let entries = (0..count)
            .map(|_| Entry::generate(g))
            .collect::<Result<Vec<_>>>()?;
        Ok(WholeJson {
            list: entries.len() > 1 || g.any()?,
            entries,
            style: JsonStyle::generate(g)?,
        })
    }

    /// Appends the payload.
    pub fn render(&self, offered: &Offered, out: &mut String) {
        let entries: Vec<Json> = self.entries.iter().map(|e| e.json(offered)).collect();
        let json = match (self.list, entries.as_slice()) {
            (false, [only]) => only.clone(),
            _ => Json::List(entries),
        };
        json.render(&self.style, out);
    }

    /// The calls it means under `strict` (offered names only), in order.
    pub fn intended(&self, offered: &Offered) -> Vec<(PyStr, Value)> {
        self.entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Call { name, args } => {
                    let args = match args {
                        None => Value::Dict(Dict::default()),
                        Some(json) => json.to_value()?,
                    };
                    Some((name.intended(offered)?, args))
                }
                _ => None,
            })
            .collect()
    }
}

impl Entry {
    fn generate(g: &mut Gen<'_, '_>) -> Result<Entry> {
        let choice = if g.hostile() { g.below(4)? } else { 0 };
        Ok(match choice {
            0 | 1 => Entry::Call {
                name: CallName::generate(g, false)?,
                args: if g.chance(1, 5)? {
                    None
                } else {
                    Some(g.nested(Json::arguments)?)
                },
            },
            2 => Entry::ToolKeys {
                name: CallName::generate(g, false)?,
                args: g.nested(Json::arguments)?,
            },
            _ => Entry::Other(g.nested(Json::generate)?),
        })
    }

    fn json(&self, offered: &Offered) -> Json {
        let key = |k: &str| PyStr::from(k);
        match self {
            Entry::Call { name, args } => {
                let mut members = vec![(key("name"), name.json(offered))];
                members.extend(args.iter().map(|a| (key("arguments"), a.clone())));
                Json::Object(members)
            }
            Entry::ToolKeys { name, args } => Json::Object(vec![
                (key("tool"), name.json(offered)),
                (key("parameters"), args.clone()),
            ]),
            Entry::Other(json) => json.clone(),
        }
    }
}
