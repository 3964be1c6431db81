//! Each dialect's markers are written once: outside tests, a marker the registry
//! declares (`Dialect::spec`: probe markers, openers, special tokens) appears in a string
//! literal of one source file of the core, `salvage/dialect/tokens.rs`, and in none of
//! the fuzzing crate, which asks the registry. Copies kept by hand drifted apart before
//! the registry (F30 and F33 in `fuzz/findings.toml`).

use std::fs;
use std::path::{Path, PathBuf};

use toolfix::salvage::Dialect;

/// Where the markers are written.
const HOME: &str = "src/salvage/dialect/tokens.rs";

/// The source trees held to the rule, from this crate's directory.
const TREES: [&str; 2] = ["src", "../toolfix-fuzzing/src"];

/// Every `.rs` file under `dir` but the test modules kept in files of their own (named
/// `tests.rs`, declared under `#[cfg(test)]`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("tests.rs") {
            out.push(path);
        }
    }
}

/// The string literals of `source` before its first `#[cfg(test)]`, comments skipped:
/// `"…"` and `b"…"` with `\"` and `\\` read (other escapes left as written), and raw
/// `r#"…"#` ones.
fn literals(source: &str) -> Vec<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or("");
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += code[i..].find('\n').unwrap_or(code.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += code[i..].find("*/").map_or(code.len() - i, |end| end + 2);
            }
            b'\'' => i += char_literal_len(&bytes[i..]),
            b'r' if raw_start(&bytes[i..]).is_some() => {
                let hashes = raw_start(&bytes[i..]).expect("checked");
                let body = i + 2 + hashes;
                let closer = format!("\"{}", "#".repeat(hashes));
                let end = code[body..].find(&closer).map_or(code.len(), |e| body + e);
                out.push(code[body..end].to_owned());
                i = end + closer.len();
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let written = &code[i + 1..j.min(code.len())];
                out.push(written.replace("\\\"", "\"").replace("\\\\", "\\"));
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// How many hashes a raw string starting here has (`r"`, `r#"`, …), if one does.
fn raw_start(bytes: &[u8]) -> Option<usize> {
    let hashes = bytes[1..].iter().take_while(|&&b| b == b'#').count();
    (bytes.get(1 + hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of a char literal at the start of `bytes`, or 1 for a lifetime's `'`.
fn char_literal_len(bytes: &[u8]) -> usize {
    match bytes.get(1) {
        Some(b'\\') => bytes[2..]
            .iter()
            .position(|&b| b == b'\'')
            .map_or(1, |p| p + 3),
        Some(_) => {
            let len = bytes[1..].iter().take(5).position(|&b| b == b'\'');
            len.map_or(1, |p| p + 2)
        }
        None => 1,
    }
}

/// The markers of tags and tokens the registry declares (words such as ReAct's `action`
/// are English, written in messages and docs alike, and left out).
fn markers() -> Vec<&'static str> {
    let mut markers: Vec<&str> = Dialect::ALL
        .iter()
        .flat_map(|d| {
            let spec = d.spec();
            [spec.probe(), spec.openers(), spec.tokens()].concat()
        })
        .filter(|m| m.contains(['<', '[', '|']))
        .collect();
    markers.sort_unstable();
    markers.dedup();
    markers
}

#[test]
fn every_marker_is_written_in_one_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for tree in TREES {
        sources(&root.join(tree), &mut files);
    }
    let home = root.join(HOME);
    let markers = markers();
    assert!(markers.len() > 30, "the registry declares {markers:?}");
    let mut elsewhere = Vec::new();
    for file in &files {
        let source = fs::read_to_string(file).expect("a source file");
        let literals = literals(&source);
        for marker in &markers {
            if *file != home && literals.iter().any(|l| l.contains(marker)) {
                elsewhere.push(format!("{marker} in {}", file.display()));
            }
        }
    }
    assert!(elsewhere.is_empty(), "{}", elsewhere.join("\n"));
    let home_source = fs::read_to_string(&home).expect("tokens.rs");
    let home_literals = literals(&home_source);
    for marker in &markers {
        assert!(
            home_literals.iter().any(|l| l.contains(marker)),
            "{marker} is not written in {HOME}"
        );
    }
}

#[test]
fn literals_are_found_outside_comments_and_tests() {
    let source = "// \"<a>\"\nlet x = \"<b>\"; let c = '\"'; fn f<'a>() {}\n\
                  /* \"<c>\" */ let r = r#\"<d \"q\">\"#;\n#[cfg(test)]\nlet t = \"<e>\";";
    assert_eq!(literals(source), ["<b>", "<d \"q\">"]);
    assert_eq!(literals(r#"let g = "<|\"|>";"#), [r#"<|"|>"#]);
}
