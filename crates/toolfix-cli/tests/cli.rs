//! The `toolfix` binary end to end: exit statuses, the summary line, the report files,
//! known failures, `report` and `smoke`, against the reference and against the hostile
//! fake implementation of the harness's tests (`toolfix-harness/tests/hostile/`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Generous for a loaded CI machine; a healthy run takes a fraction of it.
const BOUND: Duration = Duration::from_secs(10);

/// The harness crate's test folder, where the fake implementation and its cases live.
fn hostile() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolfix-harness/tests/hostile")
}

/// The binary end to end: exit statuses, the summary line, the report files, a
/// known-failures file written from one run keeping the next green, and `report`.
#[test]
fn the_binary_end_to_end() {
    let dir = scratch("end-to-end");
    let impl_crash = format!("python3 {}", hostile().join("fake.py").display());
    let cases = hostile().join("cases");
    let jsonl = dir.join("crash.jsonl");
    let known = dir.join("known-failures.toml");
    let (code, stdout) = toolfix(&[
        "conform",
        "--impl",
        &format!("{impl_crash} crash"),
        "--cases",
        cases.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
        "--junit",
        dir.join("crash.xml").to_str().unwrap(),
        "--markdown",
        dir.join("crash.md").to_str().unwrap(),
        "--write-known-failures",
        known.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("conformance: 2 passed, 2 failed, 0 known failures, 0 may differences, 2 not sent")
    );
    let lines = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(lines.lines().count(), 8);
    assert!(
        lines
            .lines()
            .next()
            .unwrap()
            .contains("\"type\": \"header\"")
    );
    assert!(lines.lines().last().unwrap().contains("\"partial\": false"));
    let junit = std::fs::read_to_string(dir.join("crash.xml")).unwrap();
    assert!(junit.contains("<error message=\"crash (must)"), "{junit}");
    let written = std::fs::read_to_string(&known).unwrap();
    assert!(written.contains("# ---- no rule: 2 cases"), "{written}");
    assert!(
        written.contains("# missing call, got: fail {\"calls\": null}"),
        "{written}"
    );
    assert!(
        written.contains("# crash, got: crash the implementation closed its stdout"),
        "{written}"
    );
    let (code, stdout) = toolfix(&[
        "conform",
        "--impl",
        &format!("{impl_crash} crash"),
        "--cases",
        cases.to_str().unwrap(),
        "--known-failures",
        known.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "a file with TODO reasons does not load: {stdout}");
    let reasoned = written.replace(
        "TODO: say in one sentence what the implementation does here",
        "the fake crashes on purpose",
    );
    std::fs::write(&known, reasoned).unwrap();

    let (code, stdout) = toolfix(&[
        "conform",
        "--impl",
        &format!("{impl_crash} crash"),
        "--cases",
        cases.to_str().unwrap(),
        "--known-failures",
        known.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("conformance: 2 passed, 0 failed, 2 known failures, 0 may differences, 2 not sent")
    );

    let html = dir.join("matrix.html");
    let (code, stdout) = toolfix(&[
        "report",
        jsonl.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("fake-crash 0.0.1 (python) [strict]")
            && page.contains("2 ✓ 2 ✗")
            && page.contains("conformance: 2 passed, 2 failed"),
        "{page}"
    );

    let (code, _) = toolfix(&[
        "conform",
        "--impl",
        &format!("{impl_crash} no-handshake"),
        "--handshake-timeout",
        "0.5",
    ]);
    assert_eq!(code, 3);
    std::fs::write(dir.join("bad.toml"), "[[failure]]\nid = \"x\"\n").unwrap();
    let (code, _) = toolfix(&[
        "conform",
        "--known-failures",
        dir.join("bad.toml").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
}

#[test]
fn a_driver_that_skips_everything_exits_non_zero() {
    let fake = format!(
        "python3 {} skip-everything",
        hostile().join("fake.py").display()
    );
    let cases = hostile().join("cases");
    let (code, stdout) = toolfix(&[
        "conform",
        "--impl",
        &fake,
        "--cases",
        cases.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("not conformant: no case passed"),
        "{stdout}"
    );
}

#[test]
fn smoke_checks_an_adapter() {
    let serve = format!("{} serve --profile strict", env!("CARGO_BIN_EXE_toolfix"));
    let (code, stdout) = toolfix(&["smoke", "--impl", &serve]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("smoke: 27 passed, 0 failed, 0 skipped")
    );
    // Each op check and each of its streaming checks counts once, each dialect once with
    // all its forms. Under `praisonai` the reference declares the six dialects of the real
    // package: the checks of the others are skipped, not failed.
    let serve = format!(
        "{} serve --profile praisonai",
        env!("CARGO_BIN_EXE_toolfix")
    );
    let (code, stdout) = toolfix(&["smoke", "--impl", &serve]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("smoke: 14 passed, 0 failed, 13 skipped")
    );
    let fake = format!("python3 {} good", hostile().join("fake.py").display());
    let (code, stdout) = toolfix(&["smoke", "--impl", &fake]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL salvage/smoke/dialect-tool_call"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[forms: inline FAIL, qwen-layout FAIL]"),
        "{stdout}"
    );
}

/// Runs the binary from a directory outside the repository (so the embedded suite is what
/// runs); its exit status and stdout.
#[test]
fn report_reads_a_proxy_shadow_file_as_a_run() {
    let dir = scratch("shadow");
    let shadow = dir.join("shadow.jsonl");
    let line = |rules: &str| {
        format!(
            r#"{{"time": 1.0, "model": "m", "stream": false, "tools": [], "content": "c", "server": [], "toolfix": [], "rules": {rules}, "kinds": []}}"#
        )
    };
    std::fs::write(
        &shadow,
        format!("{}\n{}\n", line(r#"["G7"]"#), line(r#"["G2"]"#)),
    )
    .unwrap();
    let html = dir.join("shadow.html");
    let (code, stdout) = toolfix(&[
        "report",
        shadow.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("conformance: 0 passed, 2 failed"),
        "{stdout}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("salvage-allowlist") && page.contains("salvage-tool-call"),
        "{page}"
    );
}

fn toolfix(args: &[&str]) -> (i32, String) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_toolfix"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("the binary runs");
    assert!(
        started.elapsed() < BOUND,
        "{args:?} took {:?}",
        started.elapsed()
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code().unwrap_or(-1), stdout)
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolfix-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
