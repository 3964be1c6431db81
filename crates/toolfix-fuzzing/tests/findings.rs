//! `fuzz/findings.toml` and what it describes agree: every committed fuzz input under
//! `fuzz/regressions/` belongs to a finding, every input a finding names exists, ids are
//! unique, and every finding id a comment in `crates/` cites (`F35`, "F38 in
//! fuzz/findings.toml") is a finding.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file: one `[[finding]]` table per finding.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Findings {
    finding: Vec<Finding>,
}

/// One finding. Only the fields this test checks are read for more than their presence,
/// but every field is declared, so that a misspelt key is an error.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Finding {
    id: String,
    target: String,
    found_by: String,
    seed: Option<u64>,
    runs: Option<u64>,
    kind: Kind,
    broke: String,
    what: String,
    fix: String,
    fix_commits: Vec<String>,
    regressions: Vec<String>,
    note: Option<String>,
}

/// Whose mistake a finding was.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Library,
    Invariant,
    Grammar,
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn findings() -> Vec<Finding> {
    let path = repository().join("fuzz/findings.toml");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str::<Findings>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .finding
}

/// `<target>/<name>` of every file under `fuzz/regressions/`, as the replay test reads them.
fn regression_inputs() -> BTreeSet<String> {
    let root = repository().join("fuzz/regressions");
    let mut inputs = BTreeSet::new();
    for dir in fs::read_dir(&root).expect("fuzz/regressions/") {
        let dir = dir.expect("a directory entry").path();
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in fs::read_dir(&dir).expect("fuzz/regressions/<target>/") {
            let name = file.expect("a directory entry").file_name();
            inputs.insert(format!("{target}/{}", name.to_string_lossy()));
        }
    }
    inputs
}

/// The finding ids (`F` then digits, a whole word) in the comments of one Rust file,
/// each with the line it is on. docs/behaviour.md's fence probes share the letter and
/// are cited otherwise, in probe lists (`[F1–F9]`) or after their section (`§4 F5`).
fn cited_ids(text: &str) -> Vec<(usize, String)> {
    let mut ids = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let Some(at) = line.find("//") else { continue };
        let comment = &line.as_bytes()[at..];
        for (i, &byte) in comment.iter().enumerate() {
            let word_start = i == 0 || !is_word(comment[i - 1]);
            if byte != b'F' || !word_start || is_behaviour_probe(&line[at..at + i]) {
                continue;
            }
            let digits = comment[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let end = i + 1 + digits;
            if digits > 0 && comment.get(end).is_none_or(|&b| !is_word(b)) {
                ids.push((number + 1, String::from_utf8_lossy(&comment[i..end]).into()));
            }
        }
    }
    ids
}

/// Whether an `F` after `before` is one of docs/behaviour.md's probes: in a bracketed
/// list or range, or right after a `§` section.
fn is_behaviour_probe(before: &str) -> bool {
    let before = before.trim_end();
    let in_list = before.ends_with(['[', '–', '-', ',']) && before.rfind('[') > before.rfind(']');
    let previous_word = before.rsplit(' ').next().unwrap_or("");
    in_list || previous_word.starts_with('§')
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Every `.rs` file under `dir`, build output left out.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn ids_are_unique_and_well_formed() {
    let mut seen = BTreeSet::new();
    for finding in findings() {
        let (prefix, number) = finding.id.split_at(1);
        assert!(
            matches!(prefix, "F" | "U") && number.parse::<u32>().is_ok(),
            "{}: an id is F or U and a number",
            finding.id
        );
        assert!(seen.insert(finding.id.clone()), "{} twice", finding.id);
        for commit in &finding.fix_commits {
            assert!(
                (7..=40).contains(&commit.len()) && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{}: {commit:?} is no commit hash",
                finding.id
            );
        }
        assert!(
            !finding.fix_commits.is_empty() || finding.note.is_some(),
            "{}: a finding with no fix commit says why in its note",
            finding.id
        );
    }
}

#[test]
fn every_regression_input_has_a_finding_and_every_finding_input_exists() {
    let inputs = regression_inputs();
    let mut named = BTreeMap::new();
    for finding in findings() {
        for input in finding.regressions {
            assert!(
                inputs.contains(&input),
                "{}: fuzz/regressions/{input} does not exist",
                finding.id
            );
            if let Some(other) = named.insert(input.clone(), finding.id.clone()) {
                panic!(
                    "fuzz/regressions/{input} belongs to {other} and {}",
                    finding.id
                );
            }
        }
    }
    let orphans: Vec<_> = inputs.iter().filter(|i| !named.contains_key(*i)).collect();
    assert!(
        orphans.is_empty(),
        "regression inputs with no finding in fuzz/findings.toml: {orphans:?}"
    );
}

#[test]
fn every_finding_cited_in_the_code_is_a_finding() {
    let ids: BTreeSet<String> = findings().into_iter().map(|f| f.id).collect();
    let mut files = Vec::new();
    rust_files(&repository().join("crates"), &mut files);
    assert!(files.len() > 50, "found only {} Rust files", files.len());
    let mut cited = 0;
    let mut unknown = Vec::new();
    let root = repository();
    for file in files {
        let name = file.strip_prefix(&root).unwrap_or(&file);
        // This file's examples of citations are not citations.
        if name == Path::new("crates/toolfix-fuzzing/tests/findings.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).expect("a Rust source file");
        for (line, id) in cited_ids(&text) {
            cited += 1;
            if !ids.contains(&id) {
                unknown.push(format!("{}:{line}: {id}", name.display()));
            }
        }
    }
    assert!(
        cited > 0,
        "no finding cited in crates/: the search is broken"
    );
    assert!(
        unknown.is_empty(),
        "cited, but not in fuzz/findings.toml: {unknown:?}"
    );
}

#[test]
fn citations_are_found_where_they_are_words() {
    let text = "let x = 0xF1; // F35 in fuzz/findings.toml, (F38), F2a, xF3, F\n// F7.\n\
                /// probes [F1–F9], [J5, F2], §4 F5, F6";
    let ids: Vec<_> = cited_ids(text).into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, ["F35", "F38", "F7", "F6"]);
}
