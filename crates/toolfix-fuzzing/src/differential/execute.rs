//! Inputs of the `execute` op: a registry (tools, MCP-style groups, duplicates), a call
//! and maybe a deny list, in thirteen families: the exact name, drifted, ambiguous,
//! unknown and near-miss names, names that are not strings, arguments that miss, exceed,
//! bend (kwarg sanitising) or are all falsy, a call into a group, a denied call, and a
//! signature Python refuses (the one family where both refusing is agreement).

use toolfix::py::{Dict, PyStr, Value};

use super::rng::Rng;
use super::signature::{Kind, Param, Tool, case_ambiguous};
use super::spelling::{drift, near_miss};
use super::wire_value::wire_value;

/// Registry names: near duplicates of one another, names repair must not merge, and names
/// that are not identifiers.
const REGISTRY_NAMES: [&str; 24] = [
    "web_search",
    "websearch",
    "Web_Search",
    "get_weather",
    "getWeather",
    "read_file",
    "write_file",
    "delete_file",
    "send-email",
    "calculator",
    "lookup",
    "search",
    "translate_text",
    "İnfo",
    "straße",
    "it's",
    "say \"hi\"",
    "web.search",
    "web\tsearch",
    "x",
    "network_scan",
    "fetch_url",
    "kill_process",
    "execute_command",
];

/// The families, drawn with equal weight.
pub const FAMILIES: [&str; 13] = [
    "exact",
    "drifted",
    "ambiguous",
    "unknown",
    "near_miss",
    "non_string_name",
    "bind_miss",
    "bind_extra",
    "kwarg_sanitise",
    "falsy",
    "mcp",
    "deny",
    "invalid_signature",
];

/// An entry of the registry: a tool, or a group of them.
enum Entry {
    Tool(Tool),
    Group(&'static str, Vec<Tool>),
}

impl Entry {
    fn to_value(&self) -> Value {
        match self {
            Entry::Tool(tool) => tool.to_value(),
            Entry::Group(name, tools) => Value::dict([
                ("mcp", Value::str(name)),
                (
                    "tools",
                    Value::List(tools.iter().map(Tool::to_value).collect()),
                ),
            ]),
        }
    }
}

/// One `execute` input and its family.
pub fn generate(rng: &mut Rng) -> (&'static str, Value) {
    let mut registry = registry(rng);
    let tools: Vec<Tool> = registry.iter().flat_map(tools_of).cloned().collect();
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    let family = rng.pick(&FAMILIES);
    let mut target = (!tools.is_empty()).then(|| rng.pick(&tools));
    let base = target
        .as_ref()
        .map_or("web_search".to_owned(), |t| t.name.clone());
    let name = match family {
        "drifted" => Value::str(&drift(rng, &base)),
        "ambiguous" => {
            registry.push(Entry::Tool(Tool::generate(rng, "web_search")));
            let twin = rng.pick(&["websearch", "WebSearch", "web-search"]);
            registry.push(Entry::Tool(Tool::generate(rng, twin)));
            target = None;
            Value::str(rng.pick(&["WebSearch", "web search", "WEB_SEARCH"]))
        }
        "unknown" => {
            target = None;
            Value::str(&unknown_name(rng))
        }
        "near_miss" => Value::str(&near_miss(rng, &base)),
        "non_string_name" => {
            target = None;
            non_string_name(rng)
        }
        "mcp" => {
            let group = vec![
                Tool::generate(rng, "read_file"),
                Tool::generate(rng, "write_file"),
            ];
            let chosen = rng.pick(&group);
            let spelled = match rng.chance(0.5) {
                true => chosen.name.clone(),
                false => drift(rng, &chosen.name),
            };
            target = Some(chosen);
            let at = rng.below(registry.len() + 1);
            registry.insert(at, Entry::Group("files", group));
            Value::str(&spelled)
        }
        "invalid_signature" => {
            let broken = Tool::with_params("broken", invalid_params(rng));
            registry.push(Entry::Tool(broken.clone()));
            target = Some(broken);
            Value::str("broken")
        }
        _ => Value::str(&base),
    };
    let every: Vec<&Tool> = registry.iter().flat_map(tools_of).collect();
    let ambiguous = |key: &str| every.iter().any(|tool| case_ambiguous(&tool.params, key));
    let arguments = arguments(rng, target.as_ref(), family, &ambiguous);
    let mut input = vec![
        (
            "tools",
            Value::List(registry.iter().map(Entry::to_value).collect()),
        ),
        (
            "call",
            Value::dict([("name", name.clone()), ("arguments", arguments)]),
        ),
    ];
    if family == "deny" || rng.chance(0.15) {
        input.push(("deny", deny_list(rng, &names, family, &name)));
    }
    (family, Value::dict(input))
}

/// The tools of an entry, groups opened.
fn tools_of(entry: &Entry) -> Vec<&Tool> {
    match entry {
        Entry::Tool(tool) => vec![tool],
        Entry::Group(_, tools) => tools.iter().collect(),
    }
}

/// Up to twelve tools (sometimes one twice), sometimes with a group among them.
fn registry(rng: &mut Rng) -> Vec<Entry> {
    let mut names: Vec<&str> = (0..rng.between(0, 12))
        .map(|_| rng.pick(&REGISTRY_NAMES))
        .collect();
    if !names.is_empty() && rng.chance(0.15) {
        names.push(rng.pick(&names));
    }
    let mut entries: Vec<Entry> = names
        .iter()
        .map(|name| Entry::Tool(Tool::generate(rng, name)))
        .collect();
    if rng.chance(0.25) {
        let group = rng.pick(&["files", "fetch", "db"]);
        let members = [
            "read_file",
            "write_file",
            "fetch",
            "query_db",
            "web_search",
            "list_dir",
        ];
        let tools = (0..rng.between(1, 3))
            .map(|_| {
                let name = rng.pick(&members);
                Tool::generate(rng, name)
            })
            .collect();
        let at = rng.below(entries.len() + 1);
        entries.insert(at, Entry::Group(group, tools));
    }
    entries
}

/// A name no registry holds: made up, overlong, an anagram, empty.
fn unknown_name(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => "totally_made_up_tool".to_owned(),
        1 => "nope".to_owned(),
        2 => "network_scan_v2".to_owned(),
        3 => "x".repeat(210),
        4 => "b".repeat(10) + &"a".repeat(200),
        5 => "tide".to_owned(),
        6 => "diet".to_owned(),
        _ => String::new(),
    }
}

/// A call name that is not a string.
fn non_string_name(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => Value::int(42),
        1 => Value::None,
        2 => Value::Bool(true),
        3 => Value::Float(1.5),
        4 => Value::List(vec![Value::str("web_search")]),
        5 => Value::dict([("name", Value::str("web_search"))]),
        _ => Value::Float(f64::NAN),
    }
}

/// A parameter list `inspect.Signature` refuses (or the protocol calls a contradiction).
fn invalid_params(rng: &mut Rng) -> Vec<Param> {
    let p = |name: &str| Param::named(name, None);
    let with = |mut param: Param, f: &dyn Fn(&mut Param)| {
        f(&mut param);
        param
    };
    match rng.below(6) {
        0 => vec![with(p("a"), &|p| p.required = Some(false)), p("b")],
        1 => vec![Param::named("a", Some(Kind::KeywordOnly)), p("b")],
        2 => vec![p("a"), p("a")],
        3 => vec![
            Param::named("r", Some(Kind::VarPositional)),
            Param::named("s", Some(Kind::VarPositional)),
        ],
        4 => vec![with(p("a"), &|p| {
            p.required = Some(true);
            p.default = Some(Value::int(1));
        })],
        _ => vec![with(Param::named("k", Some(Kind::VarKeyword)), &|p| {
            p.default = Some(Value::Dict(Dict::default()))
        })],
    }
}

/// Arguments for `tool`: binding, or broken the way the family says. A key `ambiguous`
/// says is left to the package's set order for some tool is never sent: dispatch may
/// resolve the call (a duplicate name, a repair, a close match) to any tool of the
/// registry, not only to `tool`.
fn arguments(
    rng: &mut Rng,
    tool: Option<&Tool>,
    family: &str,
    ambiguous: &dyn Fn(&str) -> bool,
) -> Value {
    let params = tool.map_or(&[][..], |t| &t.params[..]);
    let mut args = binding(rng, params);
    match family {
        "bind_miss" if !args.is_empty() => {
            let at = rng.below(args.len());
            args.remove(at);
        }
        "bind_extra" => {
            let key = rng.pick(&["q", "bogus", "querry", "limit", "self"]);
            set(&mut args, key, wire_value(rng, 0));
        }
        "kwarg_sanitise" if !args.is_empty() => bend(rng, ambiguous, &mut args),
        "falsy" => {
            for (_, value) in &mut args {
                *value = falsy(rng);
            }
        }
        _ => {}
    }
    let mut dict = Dict::default();
    for (key, value) in args {
        if !ambiguous(&key) {
            dict.insert(PyStr::from(key.as_str()), value);
        }
    }
    Value::Dict(dict)
}

/// Arguments that bind: every required parameter, half the optional ones, and now and
/// then an extra keyword for `**kwargs`.
fn binding(rng: &mut Rng, params: &[Param]) -> Vec<(String, Value)> {
    let mut args = Vec::new();
    for param in params {
        match param.kind() {
            Kind::VarPositional => {}
            Kind::VarKeyword => {
                if rng.chance(0.5) {
                    let key = rng.pick(&["extra", "q", "query"]);
                    set(&mut args, key, wire_value(rng, 0));
                }
            }
            _ => {
                if param.required.unwrap_or(true) || rng.chance(0.5) {
                    set(&mut args, &param.name, wire_value(rng, 0));
                }
            }
        }
    }
    args
}

/// Renames one argument the way kwarg sanitising must undo (spaces, `=`, case), and now
/// and then sends the original key too, so the two collide after sanitising.
fn bend(rng: &mut Rng, ambiguous: &dyn Fn(&str) -> bool, args: &mut Vec<(String, Value)>) {
    let at = rng.below(args.len());
    let key = args[at].0.clone();
    let bends: Vec<String> = [
        format!(" {key} "),
        format!("{key}="),
        format!("{key} ="),
        key.to_uppercase(),
        key.to_lowercase(),
        py_title(&key),
    ]
    .into_iter()
    .filter(|b| !ambiguous(b))
    .collect();
    if bends.is_empty() {
        return;
    }
    args[at].0 = rng.pick(&bends);
    if rng.chance(0.2) {
        set(args, &key, wire_value(rng, 0));
    }
}

/// A falsy value (or, now and then, a truthy one).
fn falsy(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => Value::str(""),
        1 => Value::int(0),
        2 => Value::None,
        3 => Value::List(Vec::new()),
        4 => Value::Dict(Dict::default()),
        5 => Value::Bool(false),
        _ => Value::str("x"),
    }
}

/// Sets `key` as a dict assignment does: in place when present, else at the end.
fn set(args: &mut Vec<(String, Value)>, key: &str, value: Value) {
    match args.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => args.push((key.to_owned(), value)),
    }
}

/// `str.title()`: each run of letters with its first letter upper-cased, the rest lower.
fn py_title(s: &str) -> String {
    let mut out = String::new();
    let mut in_word = false;
    for c in s.chars() {
        match (c.is_alphabetic(), in_word) {
            (true, false) => out.extend(c.to_uppercase()),
            (true, true) => out.extend(c.to_lowercase()),
            (false, _) => out.push(c),
        }
        in_word = c.is_alphabetic();
    }
    out
}

/// A deny list of one to three registry (or dangerous) names, some drifted, and in the
/// `deny` family the called name itself.
fn deny_list(rng: &mut Rng, names: &[String], family: &str, called: &Value) -> Value {
    let mut pool: Vec<String> = names.to_vec();
    pool.extend(["delete_file", "execute_command", "write_file", "web_search"].map(str::to_owned));
    let k = rng.between(1, 3).min(pool.len());
    let mut deny: Vec<String> = rng
        .sample(&pool, k)
        .into_iter()
        .map(|n| spelled(rng, n))
        .collect();
    if let (true, Some(name)) = (family == "deny", called.as_py_str()) {
        deny.push(spelled(rng, name.to_string_lossy()));
    }
    Value::List(deny.iter().map(|n| Value::str(n)).collect())
}

/// `name`, or half the time a drift of it.
fn spelled(rng: &mut Rng, name: String) -> String {
    match rng.chance(0.5) {
        true => name,
        false => drift(rng, &name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_as_python_does() {
        assert_eq!(py_title("my param"), "My Param");
        assert_eq!(py_title("QUERY"), "Query");
        assert_eq!(py_title("x1y"), "X1Y");
    }
}
