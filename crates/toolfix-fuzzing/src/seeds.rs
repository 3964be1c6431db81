//! Seed corpora for the fuzz targets, written from the repository's model outputs:
//! every corpus item (`corpus/**/*.toml`) and every spec case (`spec-cases/**/*.toml`).
//!
//! * `salvage`, `salvage_grammar`, `salvage_oracles`, `fence`: each content, as its bytes;
//! * `stream`: each content after a zero byte (the first byte picks the cutting, and zero
//!   leaves the rest as the choices of the cuts);
//! * `pyjson`: each content, and each balanced `{…}` in it (the payloads);
//! * `protocol`: each spec case as the `run` request line a runner sends, each corpus
//!   item as a `salvage` request, and `hello` and `stop`;
//! * `template`: each content, and each shipped response template's JSON and example
//!   reply (`crates/toolfix/src/salvage/template/shipped/`);
//! * `groups`: each pattern of the shipped templates, a zero byte, and each example
//!   reply; and each example alone, which every shipped pattern reads;
//! * `execute` reads every choice (tool names, parameters, arguments) from constant
//!   tables by index, so a text means nothing to it: it starts from nothing.
//!
//! Files are named after the item or case id, so rewriting the corpora is idempotent.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use toolfix::internals::template::shipped_patterns;
use toolfix::py::{PyStr, Value};
use toolfix_harness::protocol::message::Request;
use toolfix_harness::protocol::wire::encode_line;
use toolfix_harness::suite::load_file;

/// How many seeds were written per target.
#[derive(Debug, Default)]
pub struct Written {
    /// For `salvage`, `salvage_grammar` and `salvage_oracles` each.
    pub salvage: usize,
    pub fence: usize,
    pub stream: usize,
    pub pyjson: usize,
    pub protocol: usize,
    pub template: usize,
    pub groups: usize,
}

/// Writes `out/<target>/<name>` for every seed found under `root` (the repository).
/// Files that do not load (a case being edited) are skipped and listed in `skipped`.
pub fn write(root: &Path, out: &Path, skipped: &mut Vec<String>) -> io::Result<Written> {
    let mut seeds = Seeds {
        out: out.to_owned(),
        written: Written::default(),
    };
    seeds.line("hello", br#"{"cmd": "hello", "protocol": 1}"#)?;
    seeds.line("stop", br#"{"cmd": "stop"}"#)?;
    for file in toml_files(&root.join("corpus"))? {
        match corpus_item(&file) {
            Some((content, request)) => {
                let name = id(&root.join("corpus"), &file, "corpus");
                seeds.content(&name, content.as_bytes())?;
                seeds.line(&name, encode_line(&request).as_bytes())?;
            }
            None => skipped.push(file.display().to_string()),
        }
    }
    let cases_root = root.join("spec-cases");
    for file in toml_files(&cases_root)? {
        let Ok(cases) = load_file(&cases_root, &file) else {
            skipped.push(file.display().to_string());
            continue;
        };
        for case in cases {
            let name = format!("spec-{}", case.id.replace('/', "-"));
            if let Some(content) = case.input.get("content").and_then(Value::as_py_str) {
                seeds.content(&name, content.as_bytes())?;
            }
            let request = Request::Run {
                seq: Value::int(1),
                op: case.op.clone(),
                input: case.input.clone(),
            };
            seeds.line(&name, encode_line(&request.to_value()).as_bytes())?;
        }
    }
    let shipped = root.join("crates/toolfix/src/salvage/template/shipped");
    for entry in fs::read_dir(&shipped)? {
        let path = entry?.path();
        let (Some(stem), Some(ext)) = (path.file_stem(), path.extension()) else {
            continue;
        };
        let name = format!(
            "template-{}.{}",
            stem.to_string_lossy(),
            ext.to_string_lossy()
        );
        let bytes = fs::read(&path)?;
        seeds.file("template", &name, &bytes)?;
        seeds.written.template += 1;
        if ext == "txt" {
            seeds.groups(&stem.to_string_lossy(), &bytes)?;
        }
    }
    Ok(seeds.written)
}

/// The seed writer.
struct Seeds {
    out: PathBuf,
    written: Written,
}

impl Seeds {
    /// A model output: a seed for `salvage`, `salvage_grammar`, `salvage_oracles`,
    /// `fence`, `pyjson` and `stream`, plus its payloads for `pyjson`.
    fn content(&mut self, name: &str, content: &[u8]) -> io::Result<()> {
        self.file("salvage", name, content)?;
        self.file("salvage_grammar", name, content)?;
        self.file("salvage_oracles", name, content)?;
        self.file("fence", name, content)?;
        self.file("pyjson", name, content)?;
        self.file("stream", name, &[&[0], content].concat())?;
        self.file("template", name, content)?;
        self.written.template += 1;
        self.written.salvage += 1;
        self.written.fence += 1;
        self.written.pyjson += 1;
        self.written.stream += 1;
        for (n, payload) in balanced_braces(content).into_iter().enumerate() {
            self.file("pyjson", &format!("{name}-payload{n}"), payload)?;
            self.written.pyjson += 1;
        }
        Ok(())
    }

    /// A shipped template's example reply, for `groups`: alone, and after each shipped
    /// pattern.
    fn groups(&mut self, name: &str, example: &[u8]) -> io::Result<()> {
        self.file("groups", &format!("{name}.txt"), example)?;
        self.written.groups += 1;
        for (n, pattern) in shipped_patterns().iter().enumerate() {
            let seed = [pattern.as_bytes(), &[0], example].concat();
            self.file("groups", &format!("{name}-pattern{n}.txt"), &seed)?;
            self.written.groups += 1;
        }
        Ok(())
    }

    /// A request line for `protocol`.
    fn line(&mut self, name: &str, line: &[u8]) -> io::Result<()> {
        self.written.protocol += 1;
        self.file("protocol", name, line)
    }

    fn file(&self, target: &str, name: &str, bytes: &[u8]) -> io::Result<()> {
        let dir = self.out.join(target);
        fs::create_dir_all(&dir)?;
        fs::write(dir.join(name), bytes)
    }
}

/// A corpus item's content and the `salvage` request for it.
fn corpus_item(file: &Path) -> Option<(String, Value)> {
    let doc: toml::Table = fs::read_to_string(file).ok()?.parse().ok()?;
    let content = doc.get("content")?.as_str()?.to_owned();
    let tools: Vec<Value> = doc
        .get("tools")?
        .as_array()?
        .iter()
        .filter_map(|t| t.as_str().map(Value::str))
        .collect();
    let adapter = doc
        .get("adapter")
        .and_then(|a| a.as_str())
        .unwrap_or("ollama");
    let input = Value::dict([
        ("content", Value::Str(PyStr::from(content.as_str()))),
        ("tools", Value::List(tools)),
        ("adapter", Value::str(adapter)),
    ]);
    let request = Request::Run {
        seq: Value::int(1),
        op: "salvage".to_owned(),
        input,
    };
    Some((content, request.to_value()))
}

/// Every `*.toml` under `dir`, in path order (none if `dir` does not exist).
fn toml_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if dir.is_dir() {
        collect(dir, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}

/// `<prefix>-<path under root without .toml, slashes as dashes>`.
fn id(root: &Path, file: &Path, prefix: &str) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file).with_extension("");
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    format!("{prefix}-{}", parts.join("-"))
}

/// Each outermost `{…}` whose braces balance (strings are not parsed: a seed needs to be
/// plausible, not exact).
fn balanced_braces(text: &[u8]) -> Vec<&[u8]> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        match b {
            b'{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    found.push(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    found
}
