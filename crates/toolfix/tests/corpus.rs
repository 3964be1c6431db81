//! The model-output corpus (`corpus/`), snapshotted.
//!
//! Each `corpus/<category>/<item>.toml` records what a model wrote and what it was offered;
//! nothing in it says what salvage should make of it. The reference judges every item
//! under both profiles and insta records the result in `tests/snapshots/`, so a change in
//! behaviour, intended or not, can only land as a reviewed snapshot diff. `corpus/README.md`
//! documents the item format and the categories.
//!
//! `INSTA_UPDATE=always cargo test --test corpus` writes new snapshots; with `CI=true` (or
//! `INSTA_UPDATE=no`) a changed or missing snapshot fails the test instead.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use toolfix::py::Value;
use toolfix::py::repr;
use toolfix::salvage::{Allowlist, Call, Request, SalvageError, salvage_under};
use toolfix::{Adapter, Profile};

/// The corpus root (the repository's `corpus/`), relative to this crate.
const CORPUS_DIR: &str = "../../corpus";

/// The provenance of an item written for the corpus.
const WRITTEN_BY_HAND: &str = "written by hand";

/// Arguments longer than this many characters are shown abbreviated, with their length
/// and a hash, so a huge-argument item keeps a readable snapshot that still changes when
/// any byte does.
const ARGUMENTS_SHOWN: usize = 400;

/// How many characters of abbreviated arguments are shown before the ellipsis.
const ARGUMENTS_HEAD: usize = 200;

/// How many characters of abbreviated arguments are shown after the ellipsis.
const ARGUMENTS_TAIL: usize = 80;

/// One corpus item: a model's reply and the circumstances it was written in. Its shape
/// is the item format: every key is required and any other is an error, since a typo
/// would silently drop data (`tool = [...]` would leave the item with no tools).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    /// The model family or dialect the reply imitates.
    style: String,
    /// The trap or pattern the reply shows.
    pattern: String,
    /// Who wrote the reply (`check_provenance`).
    provenance: String,
    /// The tool names offered to the model.
    tools: Vec<String>,
    /// The adapter the reply came through.
    #[serde(deserialize_with = "adapter")]
    adapter: Adapter,
    /// The reply, verbatim.
    content: String,
}

/// An adapter by name, so an unknown one is an error on its own line.
fn adapter<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Adapter, D::Error> {
    String::deserialize(deserializer)?
        .parse()
        .map_err(serde::de::Error::custom)
}

/// Reads an item, or says exactly what is wrong with it and on which line: an item that
/// loads with a key misspelt or missing would be judged on different inputs than its
/// author wrote.
fn parse_item(text: &str) -> Result<Item, String> {
    if !text.starts_with("# ") {
        return Err(
            "line 1: the first line must be a `# ` comment saying what the output shows".into(),
        );
    }
    let item: Item = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(String::new(), |span| {
            format!("line {}: ", line_of(text, span.start))
        });
        format!("{at}{}", e.message().trim_end())
    })?;
    for (key, value) in [("style", &item.style), ("pattern", &item.pattern)] {
        if value.trim().is_empty() {
            return Err(format!("`{key}` must say something"));
        }
    }
    check_provenance(&item.provenance)?;
    Ok(item)
}

/// The 1-based line holding byte `offset` of `text`: `toml` reports byte spans.
fn line_of(text: &str, offset: usize) -> usize {
    let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    before.iter().filter(|&&b| b == b'\n').count() + 1
}

/// A provenance is `written by hand`, or `recorded from MODEL; source: WHERE; licence:
/// ID` for an output a named model produced, with where it was published and under which
/// licence it may be kept here.
fn check_provenance(provenance: &str) -> Result<(), String> {
    if provenance == WRITTEN_BY_HAND {
        return Ok(());
    }
    let recorded = provenance
        .strip_prefix("recorded from ")
        .map(|rest| rest.split("; ").collect::<Vec<_>>());
    match recorded.as_deref() {
        Some([model, source, licence])
            if !model.is_empty()
                && source.starts_with("source: ")
                && licence.starts_with("licence: ") =>
        {
            Ok(())
        }
        _ => Err(format!(
            "`provenance` must be \"{WRITTEN_BY_HAND}\" or \"recorded from MODEL; source: WHERE; licence: ID\", not {provenance:?}"
        )),
    }
}

/// Loads the item at `path`, failing the test with the file named.
fn load_item(path: &Path) -> Item {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("corpus item {}: cannot read: {e}", path.display()));
    parse_item(&text).unwrap_or_else(|e| panic!("malformed corpus item {}: {e}", path.display()))
}

/// The snapshot text: the circumstances, then the outcome under each profile. `strict`
/// is spelled out only where it differs, so the profile differences stand out.
fn render(item: &Item) -> String {
    let tools = if item.tools.is_empty() {
        "(none)".to_string()
    } else {
        item.tools.join(", ")
    };
    let allowlist = Allowlist::new(item.tools.iter().map(String::as_str));
    let outcome = |profile| {
        let request = Request::new(item.content.as_str(), &allowlist).adapter(item.adapter);
        render_outcome(&salvage_under(&request, profile))
    };
    let praisonai = outcome(Profile::PraisonAi);
    let strict = outcome(Profile::Strict);
    let mut out = format!("tools: {tools} · adapter: {}\npraisonai:", item.adapter);
    out.push_str(&praisonai);
    if strict == praisonai {
        out.push_str("\nstrict: same as praisonai\n");
    } else {
        out.push_str("\nstrict:");
        out.push_str(&strict);
        out.push('\n');
    }
    out
}

/// One profile's outcome, starting with the separator after the profile label.
fn render_outcome(outcome: &Result<Vec<Call>, SalvageError>) -> String {
    match outcome {
        Err(e) => format!(" error: {e}"),
        Ok(calls) if calls.is_empty() => " no calls".to_string(),
        Ok(calls) => {
            let mut out = String::new();
            for (i, call) in calls.iter().enumerate() {
                let _ = write!(
                    out,
                    "\n  {}. {} {}   {} @ {}..{}",
                    i + 1,
                    render_name(call.name()),
                    render_arguments(call),
                    call.dialect(),
                    call.span().start,
                    call.span().end,
                );
            }
            out
        }
    }
}

/// A name that reads as an identifier is shown bare; anything else (a person's name
/// recovered from a data object, an integer name) as its Python `repr`, so `42` the int
/// and `'42'` the string, or a name with a trailing space, cannot be confused.
fn render_name(name: &Value) -> String {
    if let Some(s) = name.as_py_str().and_then(|s| s.as_str()) {
        let mut chars = s.chars();
        let identifier = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if identifier {
            return s.to_string();
        }
    }
    repr(name).to_string_lossy()
}

/// The argument string dispatch would receive. Arguments that were not a dict or list
/// (`"arguments": "…"`, `null`, `5`) are marked with their Python type, since their
/// string form alone can look exactly like a dumped dict.
fn render_arguments(call: &Call) -> String {
    let mut chars = Vec::new();
    for c in call.arguments_text().to_string_lossy().chars() {
        if c.is_control() {
            chars.extend(c.escape_debug());
        } else {
            chars.push(c);
        }
    }
    let shown = if chars.len() > ARGUMENTS_SHOWN {
        let head: String = chars[..ARGUMENTS_HEAD].iter().collect();
        let tail: String = chars[chars.len() - ARGUMENTS_TAIL..].iter().collect();
        format!(
            "{head} … {tail} ({} bytes, fnv1a-64 {:016x})",
            call.arguments_text().byte_len(),
            fnv1a64(call.arguments_text().as_bytes())
        )
    } else {
        chars.into_iter().collect()
    };
    let kind = match call.arguments_value() {
        Value::Dict(_) | Value::List(_) => return shown,
        Value::None => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) => "str",
        Value::Opaque(_) => "object",
    };
    format!("{shown} (arguments: {kind})")
}

/// FNV-1a, 64-bit: a dependency-free fingerprint for abbreviated arguments.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every `*.toml` under the corpus, in path order.
fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries =
            fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS_DIR),
        &mut out,
    );
    out.sort();
    out
}

/// Whether `s` is a kebab-case file or folder name.
fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The snapshot of every item under both profiles.
#[test]
fn corpus() {
    insta::glob!("../../../corpus", "**/*.toml", |path| {
        let item = load_item(path);
        insta::with_settings!({
            description => format!("{} · {}", item.style, item.pattern),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(render(&item));
        });
    });
}

/// Checks every item before any snapshot is compared and reports all problems at once,
/// since the glob above stops at the first malformed file. Items live exactly at
/// `corpus/<category>/<item>.toml` with kebab-case names: the category is the folder,
/// and the snapshot names are derived from the path.
#[test]
fn every_item_is_well_formed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS_DIR);
    let files = corpus_files();
    assert!(
        !files.is_empty(),
        "no corpus items under {}",
        root.display()
    );
    let mut problems = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&root).expect("under the corpus root");
        let parts: Vec<&str> = relative.iter().map(|p| p.to_str().unwrap_or("")).collect();
        let layout_ok = parts.len() == 2
            && is_kebab(parts[0])
            && parts[1].strip_suffix(".toml").is_some_and(is_kebab);
        if !layout_ok {
            problems.push(format!(
                "{}: items go in corpus/<category>/<item>.toml, kebab-case",
                relative.display()
            ));
        }
        let text = fs::read_to_string(path).unwrap_or_default();
        if let Err(e) = parse_item(&text) {
            problems.push(format!("{}: {e}", relative.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "malformed corpus items:\n  {}",
        problems.join("\n  ")
    );
}

/// A snapshot whose item was renamed or deleted would otherwise linger unchecked and
/// mislead a reviewer.
#[test]
fn every_snapshot_has_an_item() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let items: Vec<String> = corpus_files()
        .iter()
        .map(|p| {
            let relative = p.strip_prefix(root.join(CORPUS_DIR)).expect("under corpus");
            format!(
                "corpus__corpus@{}.snap",
                relative.to_string_lossy().replace('/', "__")
            )
        })
        .collect();
    let snapshots = root.join("tests/snapshots");
    let entries = fs::read_dir(&snapshots)
        .unwrap_or_else(|e| panic!("the snapshots folder {}: {e}", snapshots.display()));
    let names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("corpus__corpus@") && name.ends_with(".snap"))
        .collect();
    let orphans: Vec<&String> = names.iter().filter(|name| !items.contains(name)).collect();
    assert!(
        orphans.is_empty(),
        "snapshots without a corpus item (delete them): {orphans:?}"
    );
    let missing: Vec<&String> = items.iter().filter(|item| !names.contains(item)).collect();
    assert!(
        missing.is_empty(),
        "corpus items without a committed snapshot (review and commit them): {missing:?}"
    );
}

/// The loader names the problem for each kind of malformed item, rather than loading
/// something else than the author meant.
#[test]
fn malformed_items_are_rejected() {
    let good = "# ok\nstyle = \"s\"\npattern = \"p\"\nprovenance = \"written by hand\"\ntools = [\"a\"]\nadapter = \"ollama\"\ncontent = 'x'\n";
    assert!(parse_item(good).is_ok());
    let recorded = good.replace(
        "written by hand",
        "recorded from Qwen3-8B; source: https://example.org/run; licence: CC-BY-4.0",
    );
    assert!(parse_item(&recorded).is_ok());
    let cases = [
        (
            good.replace("tools", "tool"),
            "line 5: unknown field `tool`",
        ),
        (
            good.replace("tools = [\"a\"]\n", ""),
            "missing field `tools`",
        ),
        (
            good.replace("content = 'x'\n", ""),
            "missing field `content`",
        ),
        (
            good.replace("ollama", "openai"),
            "line 6: unknown adapter \"openai\"",
        ),
        (
            good.replace("[\"a\"]", "[1]"),
            "line 5: invalid type: integer `1`, expected a string",
        ),
        (
            good.replace("[\"a\"]", "\"a\""),
            "line 5: invalid type: string \"a\", expected a sequence",
        ),
        (good.replace("# ok\n", ""), "`# ` comment"),
        (
            good.replace("pattern = \"p\"", "pattern = \" \""),
            "`pattern` must say",
        ),
        (good.replace("'x'", "'x"), "line 7: "),
        (
            good.replace("provenance = \"written by hand\"\n", ""),
            "missing field `provenance`",
        ),
        (
            good.replace("written by hand", "from a model"),
            "`provenance` must be",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_item(&text).expect_err(&text);
        assert!(
            error.contains(expected),
            "for\n{text}\nexpected an error containing {expected:?}, got {error:?}"
        );
    }
}
