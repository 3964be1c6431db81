//! Reading case files (`docs/spec-cases.md` is the reference for people).
//!
//! A file is a TOML document with an optional `[defaults]` table and an array of
//! `[[case]]` tables. Each case is `defaults` with its own keys on top. Keys are checked:
//! an unknown key is an error, so a typo never silently drops an expectation.
//!
//! | key | meaning |
//! |---|---|
//! | `name` | required, unique in the file; the id is `<folder>/<file stem>/<name>` |
//! | `op` | `salvage`, `execute` or `format_result` |
//! | `source` | required: where the expectation comes from |
//! | `level` | `must` (default), `should`, `may` |
//! | `tags`, `dialects` | lists of strings |
//! | `form` | the form of its one dialect the case is written in (`suite::forms`), where the dialect has several |
//! | `profiles` | the profiles the case applies to (default: `praisonai` and `strict`, plus `portable` when the case has a `portable` table) |
//! | `policies` | a table of booleans: the policies (`docs/guarantees.md`) the case is about, with the value an implementation must declare |
//! | `documented` | what the seed page shows for this example |
//! | op input keys | see [`OpSpec`]; any of them as `<key>_json` (JSON text); or `input_json` |
//! | `expect` | the expectation for every profile |
//! | `praisonai`, `strict` | the expectation for one profile, with `deviation` and `level` |
//! | `portable` | the portable expectation: `rule` (required, a `docs/guarantees.md` id), optional `level` (default: the rule's), optional `accept` (salvage: the other answers allowed, each a `calls` list; nothing else meets the case), and expectation keys when they differ from `expect` (or from `strict`'s when there is no `expect`) |

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use super::case::{Case, Expectation, Expected, Level};
use super::forms;
use super::guarantee;
use super::toml_value::{from_json, to_value};
use toolfix::Profile;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::Dialect;

/// A case file that could not be read, with the case it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    pub case: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.case {
            Some(case) => write!(
                f,
                "{}: case {case:?}: {}",
                self.file.display(),
                self.message
            ),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// The input and output keys of one op.
struct OpSpec {
    op: &'static str,
    /// Input keys in protocol order, and whether each is required.
    inputs: &'static [(&'static str, bool)],
    /// Expectation keys.
    outputs: &'static [&'static str],
}

const OPS: [OpSpec; 4] = [
    OpSpec {
        op: "salvage",
        inputs: &[("content", true), ("tools", true), ("adapter", true)],
        outputs: &["calls", "error"],
    },
    OpSpec {
        op: "execute",
        inputs: &[("tools", true), ("call", true), ("deny", false)],
        outputs: &["returned", "dispatched", "repair_log"],
    },
    OpSpec {
        op: "format_result",
        inputs: &[
            ("adapter", true),
            ("function_name", true),
            ("tool_result", true),
            ("tool_call_id", false),
        ],
        outputs: &["role", "content", "tool_call_id", "error"],
    },
    OpSpec {
        op: "turn",
        inputs: &[
            ("tools", true),
            ("adapter", true),
            ("loop", true),
            ("prompt", false),
            ("deny", false),
            ("replies", true),
        ],
        outputs: &[
            "executed",
            "tool_messages",
            "final",
            "raised",
            "model_calls",
        ],
    },
];

const CASE_KEYS: [&str; 15] = [
    "name",
    "form",
    "op",
    "source",
    "level",
    "tags",
    "dialects",
    "profiles",
    "policies",
    "documented",
    "expect",
    "praisonai",
    "strict",
    "portable",
    "input_json",
];

/// The policies a case may be about (`docs/guarantees.md`, "Policies").
pub const POLICIES: [&str; 5] = [
    "adapters",
    "unclosed_calls",
    "lenient_json",
    "case_insensitive_names",
    "masks_reasoning",
];

/// Every case of every `*.toml` file under `root`, in path order.
pub fn load_dir(root: &Path) -> Result<Vec<Case>, Vec<LoadError>> {
    let mut files = Vec::new();
    collect_files(root, &mut files)
        .map_err(|e| vec![error(root, None, format!("cannot list: {e}"))])?;
    files.sort();
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        match load_file(root, &file) {
            Ok(mut more) => cases.append(&mut more),
            Err(mut more) => errors.append(&mut more),
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}

/// The cases of one file; ids are relative to `root`.
pub fn load_file(root: &Path, file: &Path) -> Result<Vec<Case>, Vec<LoadError>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| vec![error(file, None, format!("cannot read: {e}"))])?;
    load_text(&id_prefix(root, file), file, &text)
}

/// Every case of the suite embedded in this crate when it was built (the repository's
/// `spec-cases/`), in path order: what `toolfix conform` runs unless given `--cases`.
pub fn load_embedded() -> Result<Vec<Case>, Vec<LoadError>> {
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for (path, text) in super::embedded::FILES {
        let prefix = path.strip_suffix(".toml").unwrap_or(path);
        let shown = Path::new(super::embedded::ROOT).join(path);
        match load_text(prefix, &shown, text) {
            Ok(mut more) => cases.append(&mut more),
            Err(mut more) => errors.append(&mut more),
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

/// The cases of one file's `text`, with ids starting `prefix/`; `file` names it in errors.
pub(crate) fn load_text(
    prefix: &str,
    file: &Path,
    text: &str,
) -> Result<Vec<Case>, Vec<LoadError>> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e| vec![error(file, None, format!("not TOML: {e}"))])?;
    let defaults = match doc.get("defaults") {
        None => toml::Table::new(),
        Some(toml::Value::Table(t)) => t.clone(),
        Some(_) => return Err(vec![error(file, None, "[defaults] must be a table".into())]),
    };
    if let Some(key) = doc
        .keys()
        .find(|k| !["defaults", "case"].contains(&k.as_str()))
    {
        return Err(vec![error(
            file,
            None,
            format!("unknown top-level key {key:?}"),
        )]);
    }
    let raw_cases = match doc.get("case") {
        Some(toml::Value::Array(items)) => items.as_slice(),
        _ => return Err(vec![error(file, None, "no [[case]] tables".into())]),
    };
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    let mut names = HashSet::new();
    for raw in raw_cases {
        let merged = merge(&defaults, raw.as_table());
        let name = merged
            .get("name")
            .and_then(|n| n.as_str())
            .map(str::to_owned);
        let result = match &name {
            None => Err("a case needs a name".to_owned()),
            Some(n) if !names.insert(n.clone()) => {
                Err("the name is used twice in this file".to_owned())
            }
            Some(n) => parse_case(&format!("{prefix}/{n}"), &merged),
        };
        match result {
            Ok(case) => cases.push(case),
            Err(message) => errors.push(error(file, name, message)),
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

fn error(file: &Path, case: Option<String>, message: String) -> LoadError {
    LoadError {
        file: file.to_owned(),
        case,
        message,
    }
}

/// `<folder>/<file stem>` relative to `root`, with `/` separators.
fn id_prefix(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file).with_extension("");
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// One case from its merged table.
fn parse_case(id: &str, table: &toml::Table) -> Result<Case, String> {
    let op = string(table, "op")?.ok_or("a case needs an op")?;
    let spec = OPS
        .iter()
        .find(|s| s.op == op)
        .ok_or_else(|| format!("unknown op {op:?}"))?;
    check_keys(table, spec)?;
    let level = match string(table, "level")? {
        Some(level) => level.parse()?,
        None => Level::Must,
    };
    let source = string(table, "source")?
        .filter(|s| !s.trim().is_empty())
        .ok_or("a case needs a source")?;
    let dialects = strings(table, "dialects")?;
    if let Some(bad) = dialects.iter().find(|d| d.parse::<Dialect>().is_err()) {
        return Err(format!("unknown dialect {bad:?}"));
    }
    let form = form(table, &dialects)?;
    Ok(Case {
        id: id.to_owned(),
        op: op.clone(),
        input: input(table, spec)?,
        tags: strings(table, "tags")?,
        dialects,
        form,
        source,
        policies: policies(table)?,
        documented: string(table, "documented")?,
        expectations: expectations(table, spec, level)?,
    })
}

/// The `form` key: a documented form (`suite::forms`) of the case's one dialect.
fn form(table: &toml::Table, dialects: &[String]) -> Result<Option<String>, String> {
    let Some(form) = string(table, "form")? else {
        return Ok(None);
    };
    let [dialect] = dialects else {
        return Err(format!(
            "form {form:?} needs exactly one dialect in `dialects` to be a form of"
        ));
    };
    if !forms::is_form_of(dialect, &form) {
        return Err(format!(
            "{form:?} is not a form of dialect {dialect} (its forms: {})",
            forms::names_of(dialect).join(", ")
        ));
    }
    Ok(Some(form))
}

/// A case's table on top of the file's defaults. A case that lists its own `profiles`
/// does not inherit a default expectation for a profile it leaves out (a file whose
/// defaults give every case a `portable` table can still have cases that are not
/// portable).
fn merge(defaults: &toml::Table, case: Option<&toml::Table>) -> toml::Table {
    let mut merged = defaults.clone();
    let Some(case) = case else {
        return merged;
    };
    if let Some(toml::Value::Array(own)) = case.get("profiles") {
        for profile in Profile::ALL {
            if !own.iter().any(|p| p.as_str() == Some(profile.name())) {
                merged.remove(profile.name());
            }
        }
    }
    merged.extend(case.iter().map(|(k, v)| (k.clone(), v.clone())));
    merged
}

/// The `policies` table: known policy names, boolean values.
fn policies(table: &toml::Table) -> Result<Vec<(String, bool)>, String> {
    let Some(value) = table.get("policies") else {
        return Ok(Vec::new());
    };
    let policies = value
        .as_table()
        .ok_or("policies must be a table of booleans")?;
    policies
        .iter()
        .map(|(name, value)| {
            if !POLICIES.contains(&name.as_str()) {
                return Err(format!(
                    "unknown policy {name:?} (expected one of {})",
                    POLICIES.join(", ")
                ));
            }
            let value = value
                .as_bool()
                .ok_or_else(|| format!("policy {name:?} must be true or false"))?;
            Ok((name.clone(), value))
        })
        .collect()
}

/// Rejects keys the format does not know.
fn check_keys(table: &toml::Table, spec: &OpSpec) -> Result<(), String> {
    let known = |key: &str| {
        let base = key.strip_suffix("_json").unwrap_or(key);
        CASE_KEYS.contains(&key) || spec.inputs.iter().any(|(k, _)| *k == base)
    };
    match table.keys().find(|k| !known(k)) {
        Some(key) => Err(format!("unknown key {key:?} for op {}", spec.op)),
        None => Ok(()),
    }
}

/// The protocol input: `input_json`, or the op's input keys in protocol order.
fn input(table: &toml::Table, spec: &OpSpec) -> Result<Value, String> {
    if let Some(json) = table.get("input_json") {
        return from_json(json);
    }
    let mut pairs = Vec::new();
    for &(key, required) in spec.inputs {
        match value(table, key)? {
            Some(v) if spec.op == "turn" && key == "replies" => pairs.push((key, replies(v)?)),
            Some(v) => pairs.push((key, v)),
            None if required => return Err(format!("input key {key:?} is missing")),
            None => {}
        }
    }
    Ok(Value::dict(pairs))
}

/// A `turn` case's replies: TOML has no `null`, so a reply table without `content` is a
/// reply whose content is `null`.
fn replies(written: Value) -> Result<Value, String> {
    let Value::List(items) = written else {
        return Err("replies must be a list of reply tables".into());
    };
    let items = items
        .into_iter()
        .map(|item| match item {
            Value::Dict(dict) if !dict.contains_key("content".as_bytes()) => {
                let mut reply = toolfix::py::Dict::default();
                reply.insert(PyStr::from("content"), Value::None);
                reply.extend(dict);
                Ok(Value::Dict(reply))
            }
            Value::Dict(dict) => Ok(Value::Dict(dict)),
            _ => Err("each reply must be a table".to_owned()),
        })
        .collect::<Result<_, String>>()?;
    Ok(Value::List(items))
}

/// A value key, given in TOML or as `<key>_json`.
fn value(table: &toml::Table, key: &str) -> Result<Option<Value>, String> {
    match (table.get(key), table.get(&format!("{key}_json"))) {
        (Some(_), Some(_)) => Err(format!("{key:?} is given twice (as TOML and as JSON)")),
        (Some(v), None) => to_value(v).map(Some),
        (None, Some(json)) => from_json(json).map(Some),
        (None, None) => Ok(None),
    }
}

fn string(table: &toml::Table, key: &str) -> Result<Option<String>, String> {
    match table.get(key) {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{key:?} must be a string")),
    }
}

fn strings(table: &toml::Table, key: &str) -> Result<Vec<String>, String> {
    match table.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{key:?} must list strings"))
            })
            .collect(),
        Some(_) => Err(format!("{key:?} must be a list of strings")),
    }
}

/// One expectation per profile the case applies to.
fn expectations(
    table: &toml::Table,
    spec: &OpSpec,
    level: Level,
) -> Result<Vec<Expectation>, String> {
    let profiles: Vec<Profile> = match table.get("profiles") {
        None => Profile::ALL
            .into_iter()
            .filter(|p| *p != Profile::Portable || table.contains_key("portable"))
            .collect(),
        Some(_) => strings(table, "profiles")?
            .iter()
            .map(|p| p.parse())
            .collect::<Result<_, _>>()?,
    };
    for profile in Profile::ALL {
        if table.contains_key(profile.name()) && !profiles.contains(&profile) {
            return Err(format!(
                "an expectation for {profile}, which the case does not apply to"
            ));
        }
    }
    profiles
        .into_iter()
        .map(|profile| match profile {
            Profile::Portable => portable(table, spec),
            _ => {
                let (expect, per_profile) = match table.get(profile.name()) {
                    Some(t) => (t, true),
                    None => (shared(table, profile)?, false),
                };
                let expect = expect.as_table().ok_or("an expectation must be a table")?;
                expectation(expect, spec, profile, level, per_profile)
            }
        })
        .collect()
}

/// The `expect` table, which holds for every profile without one of its own.
fn shared(table: &toml::Table, profile: Profile) -> Result<&toml::Value, String> {
    table
        .get("expect")
        .ok_or_else(|| format!("no expectation for {profile}"))
}

/// The portable expectation: the `portable` table's own expectation keys, else `expect`'s,
/// else the `strict` table's (the reference behaves under `portable` as under `strict`),
/// with the rule it checks and its level (by default the rule's).
fn portable(table: &toml::Table, spec: &OpSpec) -> Result<Expectation, String> {
    let own = match table.get("portable") {
        Some(t) => t.as_table().ok_or("portable must be a table")?.clone(),
        None => toml::Table::new(),
    };
    let id = string(&own, "rule")?.ok_or(
        "a portable expectation needs a rule (an id of docs/guarantees.md, such as \"G1\")",
    )?;
    let rule = guarantee::find(&id).ok_or_else(|| format!("unknown rule {id:?}"))?;
    let mut keys = own.clone();
    keys.remove("rule");
    keys.remove("level");
    let accepted = match keys.remove("accept") {
        None => Vec::new(),
        Some(list) => accepted(&list, spec)?,
    };
    let expect = if !keys.is_empty() {
        keys
    } else if let Some(strict) = table
        .get("strict")
        .filter(|_| !table.contains_key("expect"))
    {
        let mut strict = strict
            .as_table()
            .ok_or("an expectation must be a table")?
            .clone();
        strict.remove("deviation");
        strict.remove("level");
        strict
    } else {
        shared(table, Profile::Portable)?
            .as_table()
            .ok_or("an expectation must be a table")?
            .clone()
    };
    let mut expectation = expectation(&expect, spec, Profile::Portable, rule.level, false)?;
    if let Some(level) = string(&own, "level")? {
        expectation.level = level.parse()?;
    }
    if matches!(expectation.expected, Expected::Raises(_)) {
        return Err("a portable expectation is an output, never a raised exception".into());
    }
    if !accepted.is_empty() && expectation.level == Level::May {
        return Err(
            "accept lists the only answers a case allows; a may case allows any, so it takes no accept"
                .into(),
        );
    }
    expectation.rule = Some(rule);
    expectation.accepted = accepted;
    Ok(expectation)
}

/// A portable `accept` list: the other answers a salvage case allows, each written as
/// `calls` is (`[]` for no call).
fn accepted(list: &toml::Value, spec: &OpSpec) -> Result<Vec<Value>, String> {
    if spec.op != "salvage" {
        return Err(format!("accept is for op salvage, not {}", spec.op));
    }
    let toml::Value::Array(items) = list else {
        return Err("accept must be a list of calls lists ([[NAME, ARGUMENTS], …])".into());
    };
    if items.is_empty() {
        return Err("accept lists at least one answer".into());
    }
    items
        .iter()
        .map(|item| Ok(Value::dict([("calls", calls(to_value(item)?)?)])))
        .collect()
}

fn expectation(
    table: &toml::Table,
    spec: &OpSpec,
    profile: Profile,
    level: Level,
    per_profile: bool,
) -> Result<Expectation, String> {
    let extra: &[&str] = if per_profile {
        &["deviation", "level"]
    } else {
        &[]
    };
    let known = |key: &str| {
        let base = key.strip_suffix("_json").unwrap_or(key);
        key == "output_json" || spec.outputs.contains(&base) || extra.contains(&key)
    };
    if let Some(key) = table.keys().find(|k| !known(k)) {
        return Err(format!(
            "unknown expectation key {key:?} for op {}",
            spec.op
        ));
    }
    Ok(Expectation {
        profile,
        expected: expected(table, spec.op)?,
        level: match string(table, "level")? {
            Some(l) => l.parse()?,
            None => level,
        },
        deviation: string(table, "deviation")?,
        rule: None,
        accepted: Vec::new(),
    })
}

/// The expected output from an expectation table.
fn expected(table: &toml::Table, op: &str) -> Result<Expected, String> {
    if let Some(json) = table.get("output_json") {
        return from_json(json).map(Expected::Output);
    }
    if let Some(class) = string(table, "error")? {
        return Ok(Expected::Raises(class));
    }
    let required =
        |key: &str| value(table, key)?.ok_or_else(|| format!("expectation key {key:?} is missing"));
    let output = match op {
        "salvage" => Value::dict([("calls", calls(required("calls")?)?)]),
        "turn" => turn_output(table)?,
        "execute" => {
            let mut pairs = vec![
                (
                    "dispatched",
                    value(table, "dispatched")?.unwrap_or(Value::None),
                ),
                ("returned", required("returned")?),
            ];
            if let Some(line) = value(table, "repair_log")? {
                pairs.push(("repair_log", line));
            }
            Value::dict(pairs)
        }
        _ => {
            let mut message = vec![
                ("role", required("role")?),
                ("content", required("content")?),
            ];
            if let Some(id) = value(table, "tool_call_id")? {
                message.push(("tool_call_id", id));
            }
            Value::dict([("message", Value::dict(message))])
        }
    };
    Ok(Expected::Output(output))
}

/// A `turn` expectation: `executed` and `tool_messages` default to `[]`, `final` to
/// `null`, `raised` to absent; `model_calls` is required.
fn turn_output(table: &toml::Table) -> Result<Value, String> {
    let list = |key: &str| -> Result<Value, String> {
        Ok(value(table, key)?.unwrap_or(Value::List(Vec::new())))
    };
    let mut pairs = vec![
        ("executed", list("executed")?),
        ("tool_messages", list("tool_messages")?),
        ("final", value(table, "final")?.unwrap_or(Value::None)),
    ];
    if let Some(raised) = value(table, "raised")? {
        pairs.push(("raised", raised));
    }
    let calls = value(table, "model_calls")?.ok_or("expectation key \"model_calls\" is missing")?;
    pairs.push(("model_calls", calls));
    Ok(Value::dict(pairs))
}

/// `[[NAME, ARGUMENTS], …]` as the protocol's calls: `null` when empty.
fn calls(written: Value) -> Result<Value, String> {
    let Value::List(items) = written else {
        return Err("calls must be a list of [name, arguments] pairs".into());
    };
    if items.is_empty() {
        return Ok(Value::None);
    }
    let calls = items
        .into_iter()
        .map(|item| match item {
            Value::List(pair) if pair.len() == 2 && matches!(pair[1], Value::Str(_)) => {
                let mut pair = pair.into_iter();
                let (name, arguments) = (
                    pair.next().unwrap_or(Value::None),
                    pair.next().unwrap_or(Value::None),
                );
                Ok(Value::Dict(
                    [
                        (PyStr::from("name"), name),
                        (PyStr::from("arguments"), arguments),
                    ]
                    .into_iter()
                    .collect(),
                ))
            }
            _ => {
                Err("each call must be a [name, arguments] pair with arguments a string".to_owned())
            }
        })
        .collect::<Result<_, String>>()?;
    Ok(Value::List(calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(case: &str) -> Result<Vec<Case>, Vec<LoadError>> {
        let text = format!(
            "[defaults]\nop = \"salvage\"\ntools = [\"write_note\"]\nadapter = \"ollama\"\nsource = \"test\"\n\n[[case]]\nname = \"c\"\ncontent = 'x'\n{case}"
        );
        load_text("f/t", Path::new("f/t.toml"), &text)
    }

    #[test]
    fn accept_lists_the_other_answers_a_case_allows() {
        let cases = load(
            "expect.calls = []\nportable = { rule = \"G4\", accept = [[[\"write_note\", '{\"text\": \"a\"}']]] }\n",
        )
        .expect("loads");
        let portable = cases[0].expectation(Profile::Portable).expect("portable");
        assert_eq!(portable.level, Level::Must);
        assert_eq!(portable.accepted.len(), 1);
        let whole = crate::protocol::wire::decode_line(
            br#"{"calls": [{"name": "write_note", "arguments": "{\"text\": \"a\"}"}]}"#,
        )
        .expect("JSON");
        let cut = crate::protocol::wire::decode_line(
            br#"{"calls": [{"name": "write_note", "arguments": "{\"text\": \"\"}"}]}"#,
        )
        .expect("JSON");
        let none = crate::protocol::wire::decode_line(br#"{"calls": null}"#).expect("JSON");
        assert!(portable.is_met_by("salvage", &none));
        assert!(portable.is_met_by("salvage", &whole));
        assert!(!portable.is_met_by("salvage", &cut));
        // The other profiles keep their one answer.
        let strict = cases[0].expectation(Profile::Strict).expect("strict");
        assert!(strict.accepted.is_empty());
        assert!(!strict.is_met_by("salvage", &whole));
    }

    #[test]
    fn accept_is_refused_where_it_means_nothing() {
        for bad in [
            "expect.calls = []\nportable = { rule = \"G4\", level = \"may\", accept = [[]] }\n",
            "expect.calls = []\nportable = { rule = \"G4\", accept = [] }\n",
            "expect.calls = []\nportable = { rule = \"G4\", accept = [\"write_note\"] }\n",
        ] {
            assert!(load(bad).is_err(), "{bad}");
        }
    }
}
