//! The runner against hostile implementations: `tests/hostile/fake.py MODE` misbehaves on
//! the case whose content is "boom" (crash, hang, garbage, wrong seq, two answers, floods)
//! or around the handshake. Every run must finish, quickly, with the right outcome for each
//! case; nothing the implementation does may hang, crash or bloat the runner.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use toolfix::conform::{
    KnownFailures, Options, Outcome, Quiet, Report, StartError, Target, conform,
    stderr::EXCERPT_BYTES,
};
use toolfix::suite::{Case, load_dir};

/// Generous for a loaded CI machine; a healthy run of these cases takes a fraction of it.
const BOUND: Duration = Duration::from_secs(10);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hostile_cases() -> Vec<Case> {
    load_dir(&root().join("tests/hostile/cases")).expect("the hostile cases load")
}

fn fake(mode: &str) -> Vec<String> {
    let script = root().join("tests/hostile/fake.py");
    vec![
        "python3".to_owned(),
        script.display().to_string(),
        mode.to_owned(),
    ]
}

fn options() -> Options {
    Options {
        timeout: Duration::from_secs(2),
        handshake_timeout: Duration::from_secs(5),
        max_restarts: 3,
        ..Options::default()
    }
}

fn run_with(mode: &str, options: &Options) -> Report {
    let started = Instant::now();
    let report = conform(
        &Target::Command(fake(mode)),
        &hostile_cases(),
        options,
        &mut Quiet,
    )
    .unwrap_or_else(|e| panic!("{mode}: did not start: {e:?}"));
    assert!(
        started.elapsed() < BOUND,
        "{mode}: took {:?}",
        started.elapsed()
    );
    report
}

fn run(mode: &str) -> Report {
    run_with(mode, &options())
}

/// `(case name, outcome)` in run order.
fn outcomes(report: &Report) -> Vec<(&str, Outcome)> {
    report
        .results
        .iter()
        .map(|r| (r.id.rsplit('/').next().unwrap_or_default(), r.outcome))
        .collect()
}

fn result<'a>(report: &'a Report, name: &str) -> &'a toolfix::conform::CaseResult {
    let found = report
        .results
        .iter()
        .find(|r| r.id.ends_with(&format!("/{name}")));
    found.unwrap_or_else(|| panic!("no result for {name}"))
}

/// The outcomes when only "boom" goes wrong, as `boom`.
fn expected_with_boom(boom: Outcome) -> Vec<(&'static str, Outcome)> {
    vec![
        ("first", Outcome::Pass),
        ("boom", boom),
        ("third", Outcome::Pass),
        ("differs", Outcome::Fail),
        ("needs-react", Outcome::Skip),
        ("needs-execute", Outcome::Skip),
    ]
}

fn message<'a>(report: &'a Report, name: &str) -> &'a str {
    result(report, name).message.as_deref().unwrap_or_default()
}

/// Asserts that only "boom" went wrong, as `outcome`, with a message containing `needle`.
fn assert_boom(report: &Report, outcome: Outcome, needle: &str) {
    assert_eq!(outcomes(report), expected_with_boom(outcome));
    let message = message(report, "boom");
    assert!(message.contains(needle), "{needle:?} not in {message:?}");
}

#[test]
fn a_well_behaved_implementation() {
    let report = run("good");
    assert_eq!(outcomes(&report), expected_with_boom(Outcome::Pass));
    assert_eq!((report.restarts, report.partial), (0, false));
    assert!(message(&report, "needs-react").contains("dialect \"react\""));
    assert!(message(&report, "needs-execute").contains("op \"execute\""));
    assert_eq!(report.implementation.name, "fake-good");
    assert_eq!(
        report.summary().line(),
        "conformance: 3 passed, 1 failed, 2 skipped"
    );
}

#[test]
fn a_crash_mid_run_is_charged_to_its_case_and_the_run_goes_on() {
    let report = run("crash");
    assert_boom(&report, Outcome::Crash, "exited with status 3");
    assert_eq!(report.restarts, 1);
    assert!(
        result(&report, "boom")
            .stderr
            .contains("RuntimeError: fake crash")
    );
}

#[test]
fn a_hang_times_out_after_the_case_timeout() {
    let options = Options {
        timeout: Duration::from_millis(700),
        ..options()
    };
    let started = Instant::now();
    let report = run_with("hang", &options);
    assert_boom(&report, Outcome::Timeout, "no answer within 0.7s");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn garbage_is_a_protocol_error() {
    let report = run("garbage");
    assert_boom(&report, Outcome::Protocol, "not JSON");
}

#[test]
fn a_wrong_seq_is_a_protocol_error() {
    let report = run("wrong-seq");
    assert_boom(
        &report,
        Outcome::Protocol,
        "seq 1002 while waiting for seq 2",
    );
}

#[test]
fn a_second_answer_is_a_protocol_error_for_the_case_answered_twice() {
    let report = run("twice");
    assert_boom(&report, Outcome::Protocol, "second answer");
    assert_eq!(report.restarts, 0);
}

#[test]
fn a_second_answer_to_the_last_case_is_caught_at_stop() {
    let mut options = options();
    options.filter.ids = vec![
        glob::Pattern::new("*/first").unwrap(),
        glob::Pattern::new("*/boom").unwrap(),
    ];
    let report = run_with("twice", &options);
    assert_eq!(
        outcomes(&report),
        [("first", Outcome::Pass), ("boom", Outcome::Protocol)]
    );
}

#[test]
fn an_answer_with_two_results_is_a_protocol_error() {
    let report = run("both");
    assert_eq!(outcomes(&report), expected_with_boom(Outcome::Protocol));
}

#[test]
fn errored_and_skipped_answers() {
    let errored = run("errored");
    assert_boom(&errored, Outcome::Error, "fake failure");
    let skipped = run("skipped");
    assert_boom(&skipped, Outcome::Skip, "not supported here");
}

#[test]
fn an_implementation_that_leaves_after_the_handshake_spends_the_restart_budget() {
    let options = Options {
        max_restarts: 2,
        ..options()
    };
    let report = run_with("exit-after-handshake", &options);
    assert_eq!(
        outcomes(&report),
        [
            ("first", Outcome::Crash),
            ("boom", Outcome::Crash),
            ("third", Outcome::Crash),
            ("differs", Outcome::NotRun),
            ("needs-react", Outcome::Skip),
            ("needs-execute", Outcome::Skip),
        ]
    );
    assert!(report.partial);
    assert_eq!(report.restarts, 2);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("restart budget (2)"))
    );
    assert!(!report.conformant());
}

#[test]
fn a_100_mb_stdout_line_is_a_protocol_error_in_bounded_memory() {
    let report = run("flood-stdout");
    assert_boom(&report, Outcome::Protocol, "longer than");
    let peak = peak_rss_bytes();
    assert!(peak < 100 * 1024 * 1024, "peak RSS {peak} bytes");
}

#[test]
fn a_stderr_flood_never_blocks_and_is_kept_bounded() {
    let report = run("flood-stderr");
    assert_eq!(outcomes(&report), expected_with_boom(Outcome::Pass));
    let stderr = &result(&report, "boom").stderr;
    assert!(stderr.len() <= EXCERPT_BYTES);
}

#[test]
fn an_implementation_that_never_answers_the_handshake_does_not_start() {
    let options = Options {
        handshake_timeout: Duration::from_millis(700),
        ..options()
    };
    let started = Instant::now();
    let error = start_error("no-handshake", &options);
    assert!(
        error.message.contains("no handshake answer within 0.7s"),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_handshake_in_another_protocol_or_a_missing_program_does_not_start() {
    let error = start_error("bad-handshake", &options());
    assert!(error.message.contains("protocol 99"), "{error:?}");
    let missing = conform(
        &Target::Command(vec!["/nonexistent/driver".to_owned()]),
        &hostile_cases(),
        &options(),
        &mut Quiet,
    );
    assert!(matches!(missing, Err(e) if e.message.contains("cannot start")));
}

fn start_error(mode: &str, options: &Options) -> StartError {
    match conform(
        &Target::Command(fake(mode)),
        &hostile_cases(),
        options,
        &mut Quiet,
    ) {
        Err(error) => error,
        Ok(report) => panic!("{mode} started: {report:?}"),
    }
}

#[test]
fn known_failures_turn_into_xfail_and_xpass_and_stale_entries_are_found() {
    let known = KnownFailures::parse(concat!(
        "[[failure]]\nid = \"hostile/basic/differs\"\nreason = \"answers null\"\n",
        "[[failure]]\nid = \"*/first\"\nreason = \"was broken once\"\nlink = \"https://example.org/1\"\n",
        "[[failure]]\nid = \"hostile/gone/*\"\nreason = \"no such case\"\n",
        "[[failure]]\nid = \"*/third\"\nreason = \"only under praisonai\"\nprofile = \"praisonai\"\n",
    ))
    .unwrap();
    let strict = run_with(
        "good",
        &Options {
            known_failures: known.clone(),
            ..options()
        },
    );
    assert_eq!(result(&strict, "differs").outcome, Outcome::Xfail);
    assert_eq!(result(&strict, "first").outcome, Outcome::Xpass);
    assert_eq!(result(&strict, "third").outcome, Outcome::Pass);
    assert_eq!(strict.stale.len(), 2, "{:?}", strict.stale);
    assert_eq!(
        strict.summary().line(),
        "conformance: 2 passed, 1 failed, 3 skipped"
    );
    assert!(!strict.conformant());
    let lenient = run_with(
        "good",
        &Options {
            known_failures: known,
            strict: false,
            ..options()
        },
    );
    assert_eq!(
        lenient.summary().line(),
        "conformance: 3 passed, 0 failed, 3 skipped"
    );
    assert!(lenient.conformant());
}

/// The runner's in-process path over the whole suite. The suite pins CPython's recursion
/// limits with values about a thousand levels deep, which a few value operations walk
/// recursively: the run gets a big stack, as the `toolfix` binary does.
#[test]
fn the_embedded_reference_passes_the_whole_suite() {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(embedded_reference_passes_the_whole_suite)
        .expect("a test thread")
        .join()
        .expect("the run does not panic");
}

fn embedded_reference_passes_the_whole_suite() {
    let cases = load_dir(&root().join("spec-cases")).unwrap_or_else(|errors| panic!("{errors:#?}"));
    assert!(!cases.is_empty());
    let started = Instant::now();
    let report = conform(&Target::Reference, &cases, &Options::default(), &mut Quiet).unwrap();
    let failing: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.outcome != Outcome::Pass)
        .collect();
    assert!(failing.is_empty(), "{failing:#?}");
    assert!(report.results.len() >= cases.len());
    assert!(started.elapsed() < BOUND, "{:?}", started.elapsed());
}

/// The binary end to end: exit statuses, the summary line, the report files, a
/// known-failures file written from one run keeping the next green, and `report`.
#[test]
fn the_binary_end_to_end() {
    let dir = scratch("end-to-end");
    let impl_crash = format!("python3 {}", root().join("tests/hostile/fake.py").display());
    let cases = root().join("tests/hostile/cases");
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
        Some("conformance: 2 passed, 2 failed, 2 skipped")
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
    assert!(
        written.contains("reason = \"fails in crash: the implementation closed its stdout"),
        "{written}"
    );
    assert!(!written.contains("TODO"));

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
        Some("conformance: 2 passed, 0 failed, 4 skipped")
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
        page.contains("fake-crash 0.0.1 (python) [strict]") && page.contains("2/4"),
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
fn smoke_checks_an_adapter() {
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_toolfix"));
    let (code, stdout) = toolfix(&["smoke", "--impl", &serve]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("smoke: 4 passed, 0 failed, 0 skipped")
    );
    let fake = format!(
        "python3 {} good",
        root().join("tests/hostile/fake.py").display()
    );
    let (code, stdout) = toolfix(&["smoke", "--impl", &fake]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL salvage/smoke/one-tool-call"),
        "{stdout}"
    );
}

/// Runs the binary from the crate root; its exit status and stdout.
fn toolfix(args: &[&str]) -> (i32, String) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_toolfix"))
        .args(args)
        .current_dir(root())
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

/// The test process's peak resident set size.
fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage writes into the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}
