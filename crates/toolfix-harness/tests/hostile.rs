//! The runner against hostile implementations: `tests/hostile/fake.py MODE` misbehaves on
//! the case whose content is "boom" (crash, hang, garbage, wrong seq, two answers, floods)
//! or around the handshake. Every run must finish, quickly, with the right outcome for each
//! case; nothing the implementation does may hang, crash or bloat the runner.

mod support;

use std::time::{Duration, Instant};

use support::*;
use toolfix_harness::conform::{
    KnownFailures, Options, Outcome, Quiet, StartError, Target, conform, stderr::EXCERPT_BYTES,
};
use toolfix_harness::suite::{Case, load_dir, load_embedded};

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
        "conformance: 3 passed, 1 failed, 0 known failures, 0 may differences, 2 not sent"
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
    assert_boom(&skipped, Outcome::Declined, "not supported here");
    assert!(
        !skipped.conformant(),
        "a declined case counts against the run"
    );
    let no_reason = run("skipped-without-reason");
    assert_boom(&no_reason, Outcome::Protocol, "without a reason");
}

#[test]
fn a_driver_that_skips_everything_does_not_conform() {
    let report = run("skip-everything");
    assert!(!report.conformant());
    assert_eq!(report.summary().passed, 0);
    let unchecked = report.unchecked();
    assert!(
        unchecked.iter().any(|r| r == "no case passed"),
        "{unchecked:?}"
    );
    assert!(
        unchecked.iter().any(|r| r.contains("op salvage")),
        "{unchecked:?}"
    );
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
        "conformance: 2 passed, 1 failed, 1 known failures, 0 may differences, 2 not sent"
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
        "conformance: 3 passed, 0 failed, 1 known failures, 0 may differences, 2 not sent"
    );
    assert!(lenient.conformant());
}

/// The suite embedded in the binary is the repository's. (Running it is the README's main
/// command, which CI runs in-process and over the wire under every profile.)
#[test]
fn the_embedded_suite_is_the_repositorys() {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(embedded_suite_is_the_repositorys)
        .expect("a test thread")
        .join()
        .expect("loading does not panic");
}

fn embedded_suite_is_the_repositorys() {
    let cases = load_embedded().unwrap_or_else(|errors| panic!("{errors:#?}"));
    let on_disk = load_dir(&root().join("../../spec-cases")).expect("the spec cases load");
    let ids = |cases: &[Case]| cases.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&cases),
        ids(&on_disk),
        "the embedded suite is the repository's"
    );
    assert!(!cases.is_empty());
}
