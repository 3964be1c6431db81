//! The Python driver template (`templates/python/toolfix_driver.py`) answers as
//! `docs/protocol.md` says: an exception from the package under test, even
//! `NotImplementedError`, is `errored` with its message; only the driver's own `Declined`
//! declines; the streaming hook's calls carry the chunk that completed them.

use std::io::Write;
use std::process::{Command, Stdio};

/// The answer lines of the template driver to `requests`.
fn answers(requests: &[&str]) -> Vec<String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/templates/python_driver.py"
    );
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (CI has CPython 3.11)");
    let mut stdin = child.stdin.take().expect("stdin");
    for request in requests {
        writeln!(stdin, "{request}").expect("write");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the driver exits");
    String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

fn salvage(seq: u32, content: &str) -> String {
    format!(
        r#"{{"cmd": "run", "seq": {seq}, "op": "salvage", "input": {{"content": "{content}", "tools": ["f"], "adapter": "ollama"}}}}"#
    )
}

#[test]
fn not_implemented_is_an_error_and_only_declined_declines() {
    let got = answers(&[&salvage(1, "unsupported"), &salvage(2, "declined")]);
    assert!(
        got[0].contains(r#""errored""#) && got[0].contains("NotImplementedError"),
        "{got:?}"
    );
    assert!(got[0].contains("has_tool_call"), "{got:?}");
    assert_eq!(
        got[1],
        r#"{"seq": 2, "skipped": "the driver does not read this"}"#
    );
}

#[test]
fn the_streaming_hook_gives_each_call_the_chunk_that_completed_it() {
    let request = r#"{"cmd": "run", "seq": 1, "op": "salvage_stream", "input": {"chunks": ["ok ", "<ca", "ll>"], "tools": ["f"], "adapter": "ollama"}}"#;
    let got = answers(&[request]);
    assert_eq!(
        got[0],
        r#"{"seq": 1, "output": {"calls": [{"name": "f", "arguments": "{}", "after_chunk": 2}], "content": "ok "}}"#
    );
}
