//! What the hostile-implementation tests share: the fake implementation
//! (`tests/hostile/fake.py MODE`), its cases, and assertions on the outcomes of a run.

#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use toolfix_harness::conform::{CaseResult, Options, Outcome, Quiet, Report, Target, conform};
use toolfix_harness::suite::{Case, load_dir};

/// Generous for a loaded CI machine; a healthy run of these cases takes a fraction of it.
pub const BOUND: Duration = Duration::from_secs(10);

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn hostile_cases() -> Vec<Case> {
    load_dir(&root().join("tests/hostile/cases")).expect("the hostile cases load")
}

pub fn fake(mode: &str) -> Vec<String> {
    let script = root().join("tests/hostile/fake.py");
    vec![
        "python3".to_owned(),
        script.display().to_string(),
        mode.to_owned(),
    ]
}

pub fn options() -> Options {
    Options {
        timeout: Duration::from_secs(2),
        handshake_timeout: Duration::from_secs(5),
        max_restarts: 3,
        ..Options::default()
    }
}

pub fn run_with(mode: &str, options: &Options) -> Report {
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

pub fn run(mode: &str) -> Report {
    run_with(mode, &options())
}

/// `(case name, outcome)` in run order.
pub fn outcomes(report: &Report) -> Vec<(&str, Outcome)> {
    report
        .results
        .iter()
        .map(|r| (r.id.rsplit('/').next().unwrap_or_default(), r.outcome))
        .collect()
}

pub fn result<'a>(report: &'a Report, name: &str) -> &'a CaseResult {
    let found = report
        .results
        .iter()
        .find(|r| r.id.ends_with(&format!("/{name}")));
    found.unwrap_or_else(|| panic!("no result for {name}"))
}

/// The outcomes when only "boom" goes wrong, as `boom`.
pub fn expected_with_boom(boom: Outcome) -> Vec<(&'static str, Outcome)> {
    vec![
        ("first", Outcome::Pass),
        ("boom", boom),
        ("third", Outcome::Pass),
        ("differs", Outcome::Fail),
        ("needs-react", Outcome::Skip),
        ("needs-execute", Outcome::Skip),
    ]
}

pub fn message<'a>(report: &'a Report, name: &str) -> &'a str {
    result(report, name).message.as_deref().unwrap_or_default()
}

/// Asserts that only "boom" went wrong, as `outcome`, with a message containing `needle`.
pub fn assert_boom(report: &Report, outcome: Outcome, needle: &str) {
    assert_eq!(outcomes(report), expected_with_boom(outcome));
    let message = message(report, "boom");
    assert!(message.contains(needle), "{needle:?} not in {message:?}");
}
