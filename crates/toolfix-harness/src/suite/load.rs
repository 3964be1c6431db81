//! Reading case files (`docs/spec-cases.md` is the reference for people).
//!
//! A file is a TOML document with an optional `[defaults]` table and an array of
//! `[[case]]` tables. Each case is `defaults` with its own keys on top. The format's shape
//! is serde's (`CaseFile`, `RawCase`, `RawExpect`, with `deny_unknown_fields`): an
//! unknown key is an error naming the file, line and key, so a typo never silently drops
//! an expectation. What serde cannot say (which op takes which keys, the defaults, levels,
//! rules, dialects, forms) is checked once a case is merged, with the case's line.
//!
//! | key | meaning |
//! |---|---|
//! | `name` | required, unique in the file; the id is `<folder>/<file stem>/<name>` |
//! | `op` | `salvage`, `execute` or `format_result` |
//! | `source` | required: where the expectation comes from |
//! | `level` | `must` (default), `should`, `may` |
//! | `tags`, `dialects` | lists of strings |
//! | `form` | the form of its one dialect the case is written in (`suite::forms`), where the dialect has several; a list for a reply in several |
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

use serde::Deserialize;
use toml::Spanned;

use super::case::{Case, Expectation, Expected, Level};
use super::forms;
use super::guarantee;
use super::schema;
use super::toml_value::{from_json, to_value};
use toolfix::Profile;
use toolfix::py::{PyStr, Value};
use toolfix::salvage::Dialect;

/// A case file that could not be read, with the line and the case it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    /// The line the problem is on (1-based): the key's for a key that does not fit the
    /// format, the case's for a case that does not make sense.
    pub line: Option<usize>,
    pub case: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ": line {line}")?;
        }
        if let Some(case) = &self.case {
            write!(f, ": case {case:?}")?;
        }
        write!(f, ": {}", self.message)
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

impl OpSpec {
    fn takes(&self, key: &str) -> bool {
        self.inputs.iter().any(|(k, _)| *k == key)
    }
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

/// The policies a case may be about (`docs/guarantees.md`, "Policies").
pub const POLICIES: [&str; 5] = [
    "adapters",
    "unclosed_calls",
    "lenient_json",
    "case_insensitive_names",
    "masks_reasoning",
];

/// A key given in TOML, as JSON text (`<key>_json`), or both (an error).
type Written<'a> = (Option<&'a toml::Value>, Option<&'a str>);

/// A case file's shape: an optional `[defaults]` table and the `[[case]]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    #[serde(default)]
    defaults: RawCase,
    case: Vec<Spanned<RawCase>>,
}

/// The `form` key as written: one form, or the several a reply shows at once.
#[derive(Clone, Deserialize)]
#[serde(untagged)]
enum FormKey {
    /// `form = "v3"`.
    One(String),
    /// `form = ["functiongemma", "gemma-4"]`.
    Several(Vec<String>),
}

/// The keys of a case (and of `[defaults]`), for every op: which op takes which input
/// keys is checked once the op is known, since the op may come from the defaults.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: Option<String>,
    form: Option<FormKey>,
    op: Option<String>,
    source: Option<String>,
    level: Option<String>,
    tags: Option<Vec<String>>,
    dialects: Option<Vec<String>>,
    profiles: Option<Vec<String>>,
    policies: Option<Policies>,
    documented: Option<String>,
    expect: Option<RawExpect>,
    praisonai: Option<RawExpect>,
    strict: Option<RawExpect>,
    portable: Option<RawExpect>,
    input_json: Option<String>,
    content: Option<toml::Value>,
    content_json: Option<String>,
    tools: Option<toml::Value>,
    tools_json: Option<String>,
    adapter: Option<toml::Value>,
    adapter_json: Option<String>,
    call: Option<toml::Value>,
    call_json: Option<String>,
    deny: Option<toml::Value>,
    deny_json: Option<String>,
    function_name: Option<toml::Value>,
    function_name_json: Option<String>,
    tool_result: Option<toml::Value>,
    tool_result_json: Option<String>,
    tool_call_id: Option<toml::Value>,
    tool_call_id_json: Option<String>,
    r#loop: Option<toml::Value>,
    loop_json: Option<String>,
    prompt: Option<toml::Value>,
    prompt_json: Option<String>,
    replies: Option<toml::Value>,
    replies_json: Option<String>,
}

/// The `policies` table: the policies (`POLICIES`) a case is about, each with the value
/// an implementation must declare.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Policies {
    adapters: Option<bool>,
    unclosed_calls: Option<bool>,
    lenient_json: Option<bool>,
    case_insensitive_names: Option<bool>,
    masks_reasoning: Option<bool>,
}

/// An expectation table (`expect`, `praisonai`, `strict`, `portable`) with the output
/// keys of every op; which op has which keys, and which table may hold `deviation`,
/// `level`, `rule` and `accept`, is checked in code.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    output_json: Option<String>,
    error: Option<String>,
    calls: Option<toml::Value>,
    calls_json: Option<String>,
    returned: Option<toml::Value>,
    returned_json: Option<String>,
    dispatched: Option<toml::Value>,
    dispatched_json: Option<String>,
    repair_log: Option<toml::Value>,
    repair_log_json: Option<String>,
    role: Option<toml::Value>,
    role_json: Option<String>,
    content: Option<toml::Value>,
    content_json: Option<String>,
    tool_call_id: Option<toml::Value>,
    tool_call_id_json: Option<String>,
    executed: Option<toml::Value>,
    executed_json: Option<String>,
    tool_messages: Option<toml::Value>,
    tool_messages_json: Option<String>,
    r#final: Option<toml::Value>,
    final_json: Option<String>,
    raised: Option<toml::Value>,
    raised_json: Option<String>,
    model_calls: Option<toml::Value>,
    model_calls_json: Option<String>,
    deviation: Option<String>,
    level: Option<String>,
    rule: Option<String>,
    accept: Option<toml::Value>,
}

impl RawCase {
    /// This case on top of the file's defaults. A case that lists its own `profiles`
    /// does not inherit a default expectation for a profile it leaves out (a file whose
    /// defaults give every case a `portable` table can still have cases that are not
    /// portable).
    fn over(self, defaults: &RawCase) -> RawCase {
        let mut defaults = defaults.clone();
        if let Some(own) = &self.profiles {
            for profile in Profile::ALL {
                if own.iter().any(|p| p == profile.name()) {
                    continue;
                }
                if let Some(inherited) = defaults.expectation_mut(profile) {
                    *inherited = None;
                }
            }
        }
        macro_rules! over {
            ($($key:ident),*) => {
                RawCase { $($key: self.$key.or(defaults.$key)),* }
            };
        }
        over!(
            name,
            form,
            op,
            source,
            level,
            tags,
            dialects,
            profiles,
            policies,
            documented,
            expect,
            praisonai,
            strict,
            portable,
            input_json,
            content,
            content_json,
            tools,
            tools_json,
            adapter,
            adapter_json,
            call,
            call_json,
            deny,
            deny_json,
            function_name,
            function_name_json,
            tool_result,
            tool_result_json,
            tool_call_id,
            tool_call_id_json,
            r#loop,
            loop_json,
            prompt,
            prompt_json,
            replies,
            replies_json
        )
    }

    /// The expectation table of one profile (none for a profile the format has no
    /// table for).
    fn expectation(&self, profile: Profile) -> Option<&RawExpect> {
        match profile {
            Profile::PraisonAi => self.praisonai.as_ref(),
            Profile::Strict => self.strict.as_ref(),
            Profile::Portable => self.portable.as_ref(),
            _ => None,
        }
    }

    /// Where the expectation table of one profile is kept, when the format has one.
    fn expectation_mut(&mut self, profile: Profile) -> Option<&mut Option<RawExpect>> {
        match profile {
            Profile::PraisonAi => Some(&mut self.praisonai),
            Profile::Strict => Some(&mut self.strict),
            Profile::Portable => Some(&mut self.portable),
            _ => None,
        }
    }

    /// An input key of some op, as written.
    fn input(&self, key: &str) -> Written<'_> {
        let (toml, json) = match key {
            "content" => (&self.content, &self.content_json),
            "tools" => (&self.tools, &self.tools_json),
            "adapter" => (&self.adapter, &self.adapter_json),
            "call" => (&self.call, &self.call_json),
            "deny" => (&self.deny, &self.deny_json),
            "function_name" => (&self.function_name, &self.function_name_json),
            "tool_result" => (&self.tool_result, &self.tool_result_json),
            "tool_call_id" => (&self.tool_call_id, &self.tool_call_id_json),
            "loop" => (&self.r#loop, &self.loop_json),
            "prompt" => (&self.prompt, &self.prompt_json),
            "replies" => (&self.replies, &self.replies_json),
            _ => return (None, None),
        };
        (toml.as_ref(), json.as_deref())
    }
}

impl Policies {
    /// The policies given, in `POLICIES` order.
    fn given(&self) -> Vec<(String, bool)> {
        let all = [
            self.adapters,
            self.unclosed_calls,
            self.lenient_json,
            self.case_insensitive_names,
            self.masks_reasoning,
        ];
        POLICIES
            .iter()
            .zip(all)
            .filter_map(|(name, value)| Some(((*name).to_owned(), value?)))
            .collect()
    }
}

impl RawExpect {
    /// An output key of some op, as written (`error` has no JSON form).
    fn output(&self, key: &str) -> Written<'_> {
        let (toml, json) = match key {
            "calls" => (&self.calls, &self.calls_json),
            "returned" => (&self.returned, &self.returned_json),
            "dispatched" => (&self.dispatched, &self.dispatched_json),
            "repair_log" => (&self.repair_log, &self.repair_log_json),
            "role" => (&self.role, &self.role_json),
            "content" => (&self.content, &self.content_json),
            "tool_call_id" => (&self.tool_call_id, &self.tool_call_id_json),
            "executed" => (&self.executed, &self.executed_json),
            "tool_messages" => (&self.tool_messages, &self.tool_messages_json),
            "final" => (&self.r#final, &self.final_json),
            "raised" => (&self.raised, &self.raised_json),
            "model_calls" => (&self.model_calls, &self.model_calls_json),
            _ => return (None, None),
        };
        (toml.as_ref(), json.as_deref())
    }

    /// Whether output key `key` (of any op, or `output_json`) is given.
    fn has(&self, key: &str) -> bool {
        match key {
            "error" => self.error.is_some(),
            "output_json" => self.output_json.is_some(),
            _ => self.output(key) != (None, None),
        }
    }

    /// Whether the table says what the output is, rather than only how it is judged.
    fn has_outputs(&self) -> bool {
        output_keys().any(|key| self.has(key))
    }

    /// The output keys alone.
    fn outputs(&self) -> RawExpect {
        RawExpect {
            deviation: None,
            level: None,
            rule: None,
            accept: None,
            ..self.clone()
        }
    }

    /// The keys beyond the outputs that are given.
    fn extras(&self) -> impl Iterator<Item = &'static str> + '_ {
        [
            ("deviation", self.deviation.is_some()),
            ("level", self.level.is_some()),
            ("rule", self.rule.is_some()),
            ("accept", self.accept.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, given)| given.then_some(key))
    }
}

/// The output keys of every op, and `output_json`.
fn output_keys() -> impl Iterator<Item = &'static str> {
    OPS.iter()
        .flat_map(|spec| spec.outputs.iter().copied())
        .chain(["output_json"])
}

/// Every case of every `*.toml` file under `root`, in path order.
pub fn load_dir(root: &Path) -> Result<Vec<Case>, Vec<LoadError>> {
    let mut files = Vec::new();
    collect_files(root, &mut files)
        .map_err(|e| vec![error(root, None, None, format!("cannot list: {e}"))])?;
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
        .map_err(|e| vec![error(file, None, None, format!("cannot read: {e}"))])?;
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
    let doc: CaseFile =
        schema::parse(text).map_err(|e| vec![error(file, e.line, None, e.message)])?;
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    let mut names = HashSet::new();
    for raw in doc.case {
        let line = Some(schema::line_of(text, raw.span().start));
        let merged = raw.into_inner().over(&doc.defaults);
        let name = merged.name.clone();
        let result = match &name {
            None => Err("a case needs a name".to_owned()),
            Some(n) if !names.insert(n.clone()) => {
                Err("the name is used twice in this file".to_owned())
            }
            Some(n) => parse_case(&format!("{prefix}/{n}"), merged),
        };
        match result {
            Ok(case) => cases.push(case),
            Err(message) => errors.push(error(file, line, name, message)),
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

fn error(file: &Path, line: Option<usize>, case: Option<String>, message: String) -> LoadError {
    LoadError {
        file: file.to_owned(),
        line,
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

/// One case from its merged keys.
fn parse_case(id: &str, case: RawCase) -> Result<Case, String> {
    let op = case.op.clone().ok_or("a case needs an op")?;
    let spec = OPS
        .iter()
        .find(|s| s.op == op)
        .ok_or_else(|| format!("unknown op {op:?}"))?;
    check_inputs(&case, spec)?;
    let level = match &case.level {
        Some(level) => level.parse()?,
        None => Level::Must,
    };
    let source = case
        .source
        .clone()
        .filter(|s| !s.trim().is_empty())
        .ok_or("a case needs a source")?;
    let dialects = case.dialects.clone().unwrap_or_default();
    if let Some(bad) = dialects.iter().find(|d| d.parse::<Dialect>().is_err()) {
        return Err(format!("unknown dialect {bad:?}"));
    }
    let forms = forms_of(case.form.clone(), &dialects)?;
    Ok(Case {
        id: id.to_owned(),
        op: op.clone(),
        input: with_template(input(&case, spec)?, &dialects, &forms)?,
        tags: case.tags.clone().unwrap_or_default(),
        dialects,
        forms,
        source,
        policies: case
            .policies
            .as_ref()
            .map_or_else(Vec::new, Policies::given),
        documented: case.documented.clone(),
        expectations: expectations(&case, spec, level)?,
    })
}

/// A case of dialect `template` is written in the format of one shipped template, its
/// form: the input names it (`template`), so the implementation reads the reply as that
/// template declares (docs/protocol.md, op `salvage`).
fn with_template(input: Value, dialects: &[String], forms: &[String]) -> Result<Value, String> {
    let template = Dialect::Template.name();
    if dialects.iter().all(|d| d != template) {
        return Ok(input);
    }
    let ([_], [form]) = (dialects, forms) else {
        return Err(format!(
            "a case of dialect {template} has it as its one dialect and names one form: the template"
        ));
    };
    let Value::Dict(mut dict) = input else {
        return Ok(input);
    };
    dict.insert(PyStr::from("template"), Value::str(form));
    Ok(Value::Dict(dict))
}

/// The `form` key: documented forms (`suite::forms`) of the case's one dialect, each
/// once.
fn forms_of(form: Option<FormKey>, dialects: &[String]) -> Result<Vec<String>, String> {
    let named = match form {
        None => return Ok(Vec::new()),
        Some(FormKey::One(form)) => vec![form],
        Some(FormKey::Several(named)) if named.is_empty() => {
            return Err("`form = []` names no form: leave the key out".to_owned());
        }
        Some(FormKey::Several(named)) => named,
    };
    let [dialect] = dialects else {
        return Err(format!(
            "form {named:?} needs exactly one dialect in `dialects` to be a form of"
        ));
    };
    for (k, form) in named.iter().enumerate() {
        if !forms::is_form_of(dialect, form) {
            return Err(format!(
                "{form:?} is not a form of dialect {dialect} (its forms: {})",
                forms::names_of(dialect).join(", ")
            ));
        }
        if named[..k].contains(form) {
            return Err(format!("form {form:?} is named twice"));
        }
    }
    Ok(named)
}

/// Rejects input keys of other ops: the format knows them, this case's op does not.
fn check_inputs(case: &RawCase, spec: &OpSpec) -> Result<(), String> {
    let foreign = OPS
        .iter()
        .flat_map(|other| other.inputs.iter().map(|(key, _)| *key))
        .filter(|key| !spec.takes(key))
        .find_map(|key| match case.input(key) {
            (Some(_), _) => Some(key.to_owned()),
            (None, Some(_)) => Some(format!("{key}_json")),
            (None, None) => None,
        });
    match foreign {
        Some(key) => Err(format!("key {key:?} is not an input of op {}", spec.op)),
        None => Ok(()),
    }
}

/// The protocol input: `input_json`, or the op's input keys in protocol order.
fn input(case: &RawCase, spec: &OpSpec) -> Result<Value, String> {
    if let Some(json) = &case.input_json {
        return from_json(json);
    }
    let mut pairs = Vec::new();
    for &(key, required) in spec.inputs {
        match value(case.input(key), key)? {
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
fn value(written: Written<'_>, key: &str) -> Result<Option<Value>, String> {
    match written {
        (Some(_), Some(_)) => Err(format!("{key:?} is given twice (as TOML and as JSON)")),
        (Some(v), None) => to_value(v).map(Some),
        (None, Some(json)) => from_json(json).map(Some),
        (None, None) => Ok(None),
    }
}

/// One expectation per profile the case applies to.
fn expectations(case: &RawCase, spec: &OpSpec, level: Level) -> Result<Vec<Expectation>, String> {
    let profiles: Vec<Profile> = match &case.profiles {
        None => Profile::ALL
            .into_iter()
            .filter(|p| *p != Profile::Portable || case.portable.is_some())
            .collect(),
        Some(names) => names.iter().map(|p| p.parse()).collect::<Result<_, _>>()?,
    };
    for profile in Profile::ALL {
        if case.expectation(profile).is_some() && !profiles.contains(&profile) {
            return Err(format!(
                "an expectation for {profile}, which the case does not apply to"
            ));
        }
    }
    profiles
        .into_iter()
        .map(|profile| match (profile, case.expectation(profile)) {
            (Profile::Portable, _) => portable(case, spec),
            (_, Some(own)) => expectation(own, spec, profile, level, &["deviation", "level"]),
            (_, None) => expectation(shared(case, profile)?, spec, profile, level, &[]),
        })
        .collect()
}

/// The `expect` table, which holds for every profile without one of its own.
fn shared(case: &RawCase, profile: Profile) -> Result<&RawExpect, String> {
    case.expect
        .as_ref()
        .ok_or_else(|| format!("no expectation for {profile}"))
}

/// The portable expectation: the `portable` table's own expectation keys, else `expect`'s,
/// else the `strict` table's (the reference behaves under `portable` as under `strict`),
/// with the rule it checks and its level (by default the rule's).
fn portable(case: &RawCase, spec: &OpSpec) -> Result<Expectation, String> {
    let own = case.portable.clone().unwrap_or_default();
    check_extras(&own, &["rule", "level", "accept"])?;
    let id = own.rule.as_deref().ok_or(
        "a portable expectation needs a rule (an id of docs/guarantees.md, such as \"G1\")",
    )?;
    let rule = guarantee::find(id).ok_or_else(|| format!("unknown rule {id:?}"))?;
    let accepted = match &own.accept {
        None => Vec::new(),
        Some(list) => accepted(list, spec)?,
    };
    let expect = if own.has_outputs() {
        own.outputs()
    } else if let Some(strict) = case.strict.as_ref().filter(|_| case.expect.is_none()) {
        strict.outputs()
    } else {
        shared(case, Profile::Portable)?.outputs()
    };
    let mut expectation = expectation(&expect, spec, Profile::Portable, rule.level, &[])?;
    if let Some(level) = &own.level {
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

/// Rejects what an expectation table holds beyond outputs where the table takes none
/// of it: `deviation` and `level` belong to `praisonai` and `strict`; `rule`, `level`
/// and `accept` to `portable`.
fn check_extras(table: &RawExpect, allowed: &[&str]) -> Result<(), String> {
    match table.extras().find(|key| !allowed.contains(key)) {
        Some(key) => Err(format!("{key:?} does not belong in this expectation table")),
        None => Ok(()),
    }
}

/// Rejects output keys of other ops: the format knows them, this case's op does not.
fn check_outputs(table: &RawExpect, spec: &OpSpec) -> Result<(), String> {
    let foreign = output_keys()
        .filter(|key| *key != "output_json" && !spec.outputs.contains(key))
        .find(|key| table.has(key));
    match foreign {
        Some(key) => Err(format!(
            "{key:?} is not an expectation key of op {}",
            spec.op
        )),
        None => Ok(()),
    }
}

fn expectation(
    table: &RawExpect,
    spec: &OpSpec,
    profile: Profile,
    level: Level,
    extras: &[&str],
) -> Result<Expectation, String> {
    check_extras(table, extras)?;
    check_outputs(table, spec)?;
    Ok(Expectation {
        profile,
        expected: expected(table, spec.op)?,
        level: match &table.level {
            Some(l) => l.parse()?,
            None => level,
        },
        deviation: table.deviation.clone(),
        rule: None,
        accepted: Vec::new(),
    })
}

/// The expected output from an expectation table.
fn expected(table: &RawExpect, op: &str) -> Result<Expected, String> {
    if let Some(json) = &table.output_json {
        return from_json(json).map(Expected::Output);
    }
    if let Some(class) = &table.error {
        return Ok(Expected::Raises(class.clone()));
    }
    let optional = |key: &str| value(table.output(key), key);
    let required =
        |key: &str| optional(key)?.ok_or_else(|| format!("expectation key {key:?} is missing"));
    let output = match op {
        "salvage" => Value::dict([("calls", calls(required("calls")?)?)]),
        "turn" => turn_output(table)?,
        "execute" => {
            let mut pairs = vec![
                ("dispatched", optional("dispatched")?.unwrap_or(Value::None)),
                ("returned", required("returned")?),
            ];
            if let Some(line) = optional("repair_log")? {
                pairs.push(("repair_log", line));
            }
            Value::dict(pairs)
        }
        _ => {
            let mut message = vec![
                ("role", required("role")?),
                ("content", required("content")?),
            ];
            if let Some(id) = optional("tool_call_id")? {
                message.push(("tool_call_id", id));
            }
            Value::dict([("message", Value::dict(message))])
        }
    };
    Ok(Expected::Output(output))
}

/// A `turn` expectation: `executed` and `tool_messages` default to `[]`, `final` to
/// `null`, `raised` to absent; `model_calls` is required.
fn turn_output(table: &RawExpect) -> Result<Value, String> {
    let optional = |key: &str| value(table.output(key), key);
    let list = |key: &str| -> Result<Value, String> {
        Ok(optional(key)?.unwrap_or(Value::List(Vec::new())))
    };
    let mut pairs = vec![
        ("executed", list("executed")?),
        ("tool_messages", list("tool_messages")?),
        ("final", optional("final")?.unwrap_or(Value::None)),
    ];
    if let Some(raised) = optional("raised")? {
        pairs.push(("raised", raised));
    }
    let calls = optional("model_calls")?.ok_or("expectation key \"model_calls\" is missing")?;
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

    /// The one error of loading `text`, shown as `toolfix conform` shows it.
    fn only_error(text: &str) -> String {
        let errors = load_text("f/t", Path::new("f/t.toml"), text).expect_err(text);
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors[0].to_string()
    }

    #[test]
    fn an_unknown_key_is_named_with_file_and_line() {
        let good = "[defaults]\nop = \"salvage\"\ntools = [\"a\"]\nadapter = \"ollama\"\nsource = \"test\"\n\n[[case]]\nname = \"c\"\ncontent = 'x'\nexpect.calls = []\n";
        assert!(load_text("f/t", Path::new("f/t.toml"), good).is_ok());
        for (bad, shown) in [
            (
                good.replace("content =", "contnet ="),
                "f/t.toml: line 9: unknown field `contnet`",
            ),
            (
                good.replace("expect.calls", "expect.call"),
                "f/t.toml: line 10: unknown field `call`",
            ),
            (
                good.replace("source =", "sauce ="),
                "f/t.toml: line 5: unknown field `sauce`",
            ),
            (
                good.replace("[[case]]", "[[cases]]"),
                "f/t.toml: line 7: unknown field `cases`",
            ),
            (
                format!("{good}policies = {{ lenient = true }}\n"),
                "f/t.toml: line 11: unknown field `lenient`",
            ),
        ] {
            let error = only_error(&bad);
            assert!(error.starts_with(shown), "{error}");
        }
    }

    #[test]
    fn a_key_of_another_op_is_named_with_its_case_and_line() {
        let error = only_error(
            "[defaults]\nop = \"salvage\"\ntools = []\nadapter = \"ollama\"\nsource = \"t\"\n\n[[case]]\nname = \"c\"\ncontent = 'x'\ncall_json = '{}'\nexpect.returned = 1\n",
        );
        assert_eq!(
            error,
            "f/t.toml: line 7: case \"c\": key \"call_json\" is not an input of op salvage"
        );
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
