//! Whole-content JSON: a reply that is nothing but `{"name": …, "arguments": …}` or a list
//! of such objects (surrounded by any `str.isspace` whitespace); under `strict` also Llama
//! 3.x's `{"name": …, "parameters": …}`, several objects separated by `;` (`llama_json`),
//! and a pythonic list of calls (`[get_weather(city="Paris")]`).

use std::ops::Range;

use arbitrary::Result;

use super::choice::Gen;
use super::json::{Json, JsonStyle};
use super::names::{CallName, Offered};
use super::python::{self, PyStyle, is_identifier};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::salvage::Dialect;

/// How the whole reply is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// One JSON value: an object, or a list of entries.
    Json,
    /// Objects separated by `;` or whitespace (Llama 3.x), read only by `strict`.
    Semicolons,
    /// A pythonic list of calls, read only by `strict`.
    Pythonic,
}

/// What separates the objects of `Form::Semicolons`.
const SEPARATORS: [&str; 6] = ["; ", ";", " ", "\n", ";\n", " ; "];

/// One entry of the payload.
#[derive(Clone, Debug)]
pub enum Entry {
    /// `{"name": NAME, "arguments": ARGS}`, without `arguments` when `args` is `None`, or
    /// with Llama's `parameters` instead when `llama` (read as arguments by `strict` only).
    Call {
        name: CallName,
        args: Option<Json>,
        llama: bool,
    },
    /// The keys the embedded dialects also accept, which this path ignores:
    /// `{"tool": NAME, "parameters": ARGS}` is no call here.
    ToolKeys { name: CallName, args: Json },
    /// Any other value (a list entry that is not an object is skipped).
    Other(Json),
}

/// The whole reply as one payload.
#[derive(Clone, Debug)]
pub struct WholeJson {
    pub entries: Vec<Entry>,
    /// Whether the entries are written as a list (one entry may also be written bare).
    pub list: bool,
    pub style: JsonStyle,
    pub form: Form,
    /// The separator after each object of `Form::Semicolons`.
    pub separators: Vec<&'static str>,
    pub py: PyStyle,
}

impl WholeJson {
    /// One to three entries; clean replies only hold calls to offered names (under
    /// `praisonai` this path has no allowlist, so any other name would be a call there),
    /// except in the forms only `strict` reads.
    pub fn generate(g: &mut Gen<'_, '_>, offered: &Offered) -> Result<WholeJson> {
        let form = g.pick(&[Form::Json, Form::Json, Form::Semicolons, Form::Pythonic])?;
        let count = match form {
            Form::Semicolons => 2 + g.upto(2)?,
            _ => 1 + g.upto(2)?,
        };
        let entries = (0..count)
            .map(|_| Entry::generate(g, offered, form))
            .collect::<Result<Vec<_>>>()?;
        Ok(WholeJson {
            list: entries.len() > 1 || g.any()?,
            separators: (0..count)
                .map(|_| g.pick(&SEPARATORS))
                .collect::<Result<Vec<_>>>()?,
            entries,
            style: JsonStyle::generate(g)?,
            form,
            py: PyStyle::generate(g)?,
        })
    }

    /// Appends the payload; returns the span of each entry (for `Form::Semicolons`, where
    /// a reply cut between two objects still reads the ones before the cut).
    pub fn render(&self, offered: &Offered, out: &mut String) -> Vec<Range<usize>> {
        match self.form {
            Form::Json => {
                let entries: Vec<Json> = self.entries.iter().map(|e| e.json(offered)).collect();
                let json = match (self.list, entries.as_slice()) {
                    (false, [only]) => only.clone(),
                    _ => Json::List(entries),
                };
                let start = out.len();
                json.render(&self.style, out);
                std::iter::once(start..out.len()).collect()
            }
            Form::Semicolons => {
                let mut spans = Vec::new();
                for (k, entry) in self.entries.iter().enumerate() {
                    if k > 0 {
                        out.push_str(self.separators[k - 1]);
                    }
                    let start = out.len();
                    entry.json(offered).render(&self.style, out);
                    spans.push(start..out.len());
                }
                spans
            }
            Form::Pythonic => {
                let start = out.len();
                out.push('[');
                for (k, entry) in self.entries.iter().enumerate() {
                    if k > 0 {
                        out.push_str(self.py.comma);
                    }
                    entry.python(offered, &self.py, out);
                }
                out.push(']');
                std::iter::once(start..out.len()).collect()
            }
        }
    }

    /// The calls it means under `strict` (offered names only), in order, with the dialect
    /// each is reported in.
    pub fn intended(&self, offered: &Offered) -> Vec<(PyStr, Value, Dialect)> {
        self.intended_entries(offered)
            .into_iter()
            .map(|(_, name, args, dialect)| (name, args, dialect))
            .collect()
    }

    /// `intended`, each call with the index of its entry.
    pub fn intended_entries(&self, offered: &Offered) -> Vec<(usize, PyStr, Value, Dialect)> {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(k, entry)| match entry {
                Entry::Call { name, args, llama } => {
                    let name = name.intended(offered)?;
                    let args = match args {
                        None => Value::Dict(Dict::default()),
                        Some(json) => json.to_value()?,
                    };
                    let dialect = match (self.form, llama) {
                        (Form::Pythonic, _) => {
                            if !is_identifier(&name.to_string()) || !matches!(args, Value::Dict(_))
                            {
                                return None;
                            }
                            Dialect::Pythonic
                        }
                        (_, true) => Dialect::LlamaJson,
                        (_, false) => Dialect::WholeJson,
                    };
                    Some((k, name, args, dialect))
                }
                _ => None,
            })
            .collect()
    }

    /// The calls `praisonai` makes of it, when that is known exactly: a JSON value whose
    /// every entry is a call (the path has no allowlist there, and ignores `parameters`).
    pub fn praisonai(&self, offered: &Offered) -> Option<Vec<(PyStr, Value)>> {
        if self.form != Form::Json {
            return None;
        }
        self.entries
            .iter()
            .map(|entry| match entry {
                Entry::Call { name, args, llama } => {
                    let args = match (args, llama) {
                        (Some(json), false) => json.to_value()?,
                        _ => Value::Dict(Dict::default()),
                    };
                    Some((name.intended(offered)?, args))
                }
                _ => None,
            })
            .collect()
    }
}

impl Entry {
    fn generate(g: &mut Gen<'_, '_>, offered: &Offered, form: Form) -> Result<Entry> {
        let choice = if g.hostile() { g.below(4)? } else { 0 };
        Ok(match choice {
            0 | 1 => {
                let mut name = CallName::generate(g, false)?;
                let mut args = if g.chance(1, 5)? {
                    None
                } else {
                    Some(g.nested(Json::arguments)?)
                };
                if form == Form::Pythonic && !g.hostile() {
                    if let Some(Json::Object(members)) = &mut args {
                        for (key, _) in members.iter_mut() {
                            *key = python::keyword(key);
                        }
                    }
                    if !name.text(offered).is_some_and(|n| is_identifier(&n)) {
                        name = CallName::Invented("wire_transfer");
                    }
                }
                Entry::Call {
                    name,
                    llama: args.is_some() && form != Form::Pythonic && g.chance(1, 3)?,
                    args,
                }
            }
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
            Entry::Call { name, args, llama } => {
                let args_key = if *llama { "parameters" } else { "arguments" };
                let mut members = vec![(key("name"), name.json(offered))];
                members.extend(args.iter().map(|a| (key(args_key), a.clone())));
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

impl Entry {
    /// The entry as a pythonic call, `NAME(key=value, …)` (anything else as a literal,
    /// which makes the list unreadable).
    fn python(&self, offered: &Offered, style: &PyStyle, out: &mut String) {
        match self {
            Entry::Call { name, args, .. } => {
                out.push_str(&name.text(offered).unwrap_or_default());
                out.push('(');
                match args {
                    Some(Json::Object(members)) => {
                        for (i, (key, value)) in members.iter().enumerate() {
                            if i > 0 {
                                out.push_str(style.comma);
                            }
                            out.push_str(&key.to_string());
                            out.push_str(style.equals);
                            python::render(value, style, out);
                        }
                    }
                    Some(other) => python::render(other, style, out),
                    None => {}
                }
                out.push(')');
            }
            Entry::ToolKeys { args, .. } => python::render(args, style, out),
            Entry::Other(json) => python::render(json, style, out),
        }
    }
}
