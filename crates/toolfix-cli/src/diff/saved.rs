//! Cases as JSON lines: the differing ones with both answers as they were
//! (`--save-diffs`), every generated one without answers (`--write-cases`), and reading
//! either back to send again (`--replay`). A line holds the case: op, family, index,
//! seed, dialects and input.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};

use toolfix::py::Value;
use toolfix_fuzzing::differential::Case;
use toolfix_harness::conform::session::Reply;
use toolfix_harness::protocol::wire::{decode_line, encode_line};

/// A reply as a protocol value: the answer line, or `{"driver_failure": why}`.
pub fn reply_value(reply: &Reply, seq: u64) -> Value {
    match reply {
        Reply::Answered(answer) => answer.to_value(Some(&Value::int(seq_int(seq)))),
        Reply::Broken { outcome, message } => Value::dict([(
            "driver_failure",
            Value::str(&format!("{outcome:?}: {message}")),
        )]),
    }
}

fn seq_int(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

/// Where differing cases are written.
pub struct Saved(BufWriter<File>);

impl Saved {
    /// Creates (or empties) `path`.
    pub fn create(path: &str) -> Result<Saved, String> {
        let file = File::create(path).map_err(|e| format!("--save-diffs {path}: {e}"))?;
        Ok(Saved(BufWriter::new(file)))
    }

    /// Writes one differing case and both replies.
    pub fn write(&mut self, case: &Case, seed: &str, replies: &[Value; 2]) -> Result<(), String> {
        let mut line = case_line(case, seed);
        if let Value::Dict(dict) = &mut line {
            dict.insert("a".into(), replies[0].clone());
            dict.insert("b".into(), replies[1].clone());
        }
        writeln!(self.0, "{}", encode_line(&line)).map_err(|e| format!("--save-diffs: {e}"))
    }

    /// Flushes what was written.
    pub fn finish(mut self) -> Result<(), String> {
        self.0.flush().map_err(|e| format!("--save-diffs: {e}"))
    }
}

/// A case as a line of a `--save-diffs` or `--write-cases` file (without answers).
pub fn case_line(case: &Case, seed: &str) -> Value {
    let dialects = case.dialects.iter().map(|d| Value::str(d)).collect();
    Value::dict([
        ("op", Value::str(&case.op)),
        ("family", Value::str(&case.family)),
        ("index", Value::int(seq_int(case.index))),
        ("seed", Value::str(seed)),
        ("dialects", Value::List(dialects)),
        ("input", case.input.clone()),
    ])
}

/// Writes the generated cases to `path` (`-`: stdout), one line each, for tools that
/// send them some other way (`scripts/check_python_module.py` calls the Python module
/// and the package in one interpreter) and for `--replay`.
pub fn write_cases(
    path: &str,
    seed: &str,
    cases: impl Iterator<Item = Case>,
) -> Result<(), String> {
    let out: Box<dyn Write> = match path {
        "-" => Box::new(std::io::stdout().lock()),
        _ => Box::new(File::create(path).map_err(|e| format!("--write-cases {path}: {e}"))?),
    };
    let mut out = BufWriter::new(out);
    for case in cases {
        writeln!(out, "{}", encode_line(&case_line(&case, seed)))
            .map_err(|e| format!("--write-cases {path}: {e}"))?;
    }
    out.flush()
        .map_err(|e| format!("--write-cases {path}: {e}"))
}

/// The cases of a `--save-diffs` or `--write-cases` file, in order.
pub fn replayed(path: &str) -> Result<Vec<Case>, String> {
    let file = File::open(path).map_err(|e| format!("--replay {path}: {e}"))?;
    let mut cases = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("--replay {path}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let case = read_case(&line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        cases.push(case);
    }
    Ok(cases)
}

fn read_case(line: &str) -> Result<Case, String> {
    let value = decode_line(line.as_bytes())?;
    let text = |key: &str| {
        value
            .get(key)
            .and_then(|v| v.as_py_str())
            .map(|s| s.to_string_lossy())
            .ok_or_else(|| format!("no string {key:?}"))
    };
    let index = match value.get("index") {
        Some(Value::Int(n)) => n.to_i64().and_then(|n| u64::try_from(n).ok()),
        _ => None,
    }
    .ok_or("no index")?;
    let dialects = match value.get("dialects") {
        Some(Value::List(items)) => items
            .iter()
            .map(|d| d.as_py_str().map(|s| s.to_string_lossy()))
            .collect::<Option<Vec<_>>>()
            .ok_or("a dialect that is not a string")?,
        None => Vec::new(),
        Some(_) => return Err("dialects is not a list".to_owned()),
    };
    Ok(Case {
        op: text("op")?,
        family: text("family")?,
        index,
        input: value.get("input").cloned().ok_or("no input")?,
        dialects,
    })
}
