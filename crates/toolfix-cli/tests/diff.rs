//! `toolfix diff` end to end: the reference against itself agrees on every case; two
//! profiles that differ are told apart, saved and replayed; an implementation that
//! crashes, hangs or writes garbage costs one case each and never the run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Generous for a loaded CI machine with a debug build; a healthy run takes seconds.
const BOUND: Duration = Duration::from_secs(120);

/// The reference, as a command.
fn serve(profile: &str) -> String {
    format!(
        "{} serve --profile {profile}",
        env!("CARGO_BIN_EXE_toolfix")
    )
}

/// Runs `toolfix diff` with `args`; the exit status and stdout.
fn diff(args: &[&str]) -> (i32, String) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_toolfix"))
        .arg("diff")
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        started.elapsed() < BOUND,
        "{args:?} took {:?}",
        started.elapsed()
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    (
        output.status.code().unwrap_or(-1),
        format!("{stdout}{stderr}"),
    )
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolfix-diff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_reference_agrees_with_itself() {
    let (a, b) = (serve("praisonai"), serve("praisonai"));
    let args = ["--a", &a, "--b", &b, "--count", "40", "--seed", "9"];
    let (code, out) = diff(&[&args[..], &["--min-compared", "120"]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 difference(s), 0 case(s) both refused, 120 compared"),
        "{out}"
    );
    for op in [
        "salvage: 40 cases",
        "execute: 40 cases",
        "format_result: 40 cases",
    ] {
        assert!(out.contains(op), "{out}");
    }
    let (code, out) = diff(&[&args[..], &["--min-compared", "121"]].concat());
    assert_eq!(code, 1, "too few compared must fail: {out}");
    assert!(
        out.contains("only 120 cases were compared; at least 121 are required"),
        "{out}"
    );
}

#[test]
fn two_profiles_differ_and_the_differences_replay() {
    let dir = scratch("profiles");
    let saved = dir.join("diffs.jsonl");
    let (a, b) = (serve("strict"), serve("praisonai"));
    let saved_arg = saved.to_str().unwrap();
    let (code, out) = diff(&[
        "--a",
        &a,
        "--b",
        &b,
        "--op",
        "salvage",
        "--count",
        "80",
        "--seed",
        "3",
        "--save-diffs",
        saved_arg,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("DIFFERENCE #1: salvage/"), "{out}");
    assert!(
        out.contains("handshake profile differs: a strict, b praisonai"),
        "{out}"
    );
    let found = count_differences(&out);
    assert!(found > 0);
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap().lines().count(),
        found
    );
    let (code, replayed) = diff(&["--a", &a, "--b", &b, "--replay", saved_arg]);
    assert_eq!(code, 1, "{replayed}");
    assert_eq!(count_differences(&replayed), found, "{replayed}");
}

/// The number of differences a run reports in its last line but one.
fn count_differences(out: &str) -> usize {
    let line = out
        .lines()
        .find(|l| l.contains(" difference(s), "))
        .unwrap();
    line.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_misbehaving_implementation_costs_cases_not_the_run() {
    let dir = scratch("misbehaving");
    let driver = write_bad_driver(&dir);
    let good = serve("praisonai");
    let bad = format!("python3 {}", driver.display());
    let (code, out) = diff(&[
        "--a",
        &good,
        "--b",
        &bad,
        "--op",
        "salvage",
        "--count",
        "12",
        "--timeout",
        "1",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("b was restarted 3 time(s)"), "{out}");
    assert!(
        out.contains("Crash: the implementation closed its stdout"),
        "{out}"
    );
    assert!(out.contains("Timeout: no answer within 1s"), "{out}");
    assert!(out.contains("Protocol: the line is not JSON"), "{out}");
    assert!(out.contains("salvage: 12 cases"), "{out}");
}

#[test]
fn an_implementation_that_does_not_start_is_status_3() {
    let good = serve("praisonai");
    let (code, out) = diff(&["--a", &good, "--b", "/nonexistent/driver"]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("b (/nonexistent/driver) did not start"),
        "{out}"
    );
}

/// A driver that crashes on seq 3, hangs on seq 6 and writes garbage on seq 9 (the
/// runner's seqs go on across restarts), and answers `{"calls": null}` otherwise.
fn write_bad_driver(dir: &Path) -> PathBuf {
    let path = dir.join("bad.py");
    std::fs::write(
        &path,
        r#"import json, sys, time
DIALECTS = ["whole_json", "tool_call", "function", "bracket", "python_tag", "react"]
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "hello":
        print(json.dumps({"protocol": 1, "profile": "praisonai", "ops": ["salvage"],
                          "dialects": DIALECTS, "policies": {"adapters": True},
                          "implementation": {"name": "bad", "version": "0", "language": "python"}}),
              flush=True)
        continue
    if request["cmd"] == "stop":
        break
    n = request["seq"]
    if n == 3:
        sys.exit(1)
    if n == 6:
        time.sleep(60)
    if n == 9:
        print("not json", flush=True)
        continue
    print(json.dumps({"seq": request["seq"], "output": {"calls": None}}), flush=True)
"#,
    )
    .unwrap();
    path
}

#[test]
fn written_cases_are_the_generated_ones_and_replay() {
    let dir = scratch("written");
    let path = dir.join("cases.jsonl");
    let path_arg = path.to_str().unwrap();
    let (code, out) = diff(&["--write-cases", path_arg, "--count", "7", "--seed", "4"]);
    assert_eq!(code, 0, "{out}");
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(written.lines().count(), 21);
    let (code, again) = diff(&["--write-cases", "-", "--count", "7", "--seed", "4"]);
    assert_eq!((code, again.as_str()), (0, written.as_str()));
    let (a, b) = (serve("praisonai"), serve("praisonai"));
    let (code, out) = diff(&["--a", &a, "--b", &b, "--replay", path_arg]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 difference(s), 0 case(s) both refused, 21 compared"),
        "{out}"
    );
}
