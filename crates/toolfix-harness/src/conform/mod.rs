//! `toolfix conform`: the conformance runner. It runs the spec cases against any
//! implementation that speaks the driver protocol (`docs/protocol.md`), or against the
//! embedded reference in-process, and reports per case (`docs/conform.md`).
//!
//! The shape follows Bowtie and toml-test: one long-lived process per implementation, one
//! request line per case, expected outputs never sent, and every misbehaviour of the
//! implementation (a crash, a hang, garbage, a flood) turned into the outcome of one case,
//! never into a hung or crashed runner.
//!
//! * [`plan`]: which cases a run covers and which are sent;
//! * [`session`], [`driver`], [`process`], [`lines`], [`stderr`]: talking to an
//!   implementation and surviving it;
//! * [`runner`]: one profile's cases through a session, with restarts;
//! * [`outcome`], [`result`], [`known_failures`]: what happened and how it counts;
//! * [`report`]: the forms a run is written in; [`smoke`]: the adapter check.

pub mod driver;

pub mod kind;
pub mod known_failures;
pub mod lines;
pub mod outcome;
pub mod plan;
pub mod process;
pub mod report;
pub mod result;
pub mod runner;
pub mod session;
pub mod smoke;
pub mod stderr;
pub mod streaming;
pub mod tokens;

mod clock;
mod reproduce;

use std::time::{Duration, Instant};

pub use driver::{DriverConfig, StartError};
pub use known_failures::KnownFailures;
pub use outcome::{Outcome, Verdict};
pub use plan::Filter;
pub use report::{Declared, Implementation, Report, Summary};
pub use result::CaseResult;
pub use runner::{Progress, Quiet};

use crate::protocol::handshake::Handshake;
use crate::suite::Case;
use driver::Driver;
use session::{Reference, Session};
use toolfix::Profile;

/// What to run the suite against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The embedded reference, in-process.
    Reference,
    /// A driver command, split into words.
    Command(Vec<String>),
}

/// How to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The profile whose expectations are checked: by default the one the implementation
    /// declares (both, one after the other, for the embedded reference).
    pub profile: Option<Profile>,
    pub filter: Filter,
    /// How long one case may take.
    pub timeout: Duration,
    /// How long the handshake may take.
    pub handshake_timeout: Duration,
    /// How many times a crashed, hung or garbled implementation is restarted.
    pub max_restarts: u32,
    /// Whether an `xpass` or a stale known-failures entry fails the run.
    pub strict: bool,
    pub known_failures: KnownFailures,
    /// Where the cases came from, for reports.
    pub cases_dir: String,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            profile: None,
            filter: Filter::default(),
            timeout: Duration::from_secs(5),
            handshake_timeout: Duration::from_secs(120),
            max_restarts: 10,
            strict: true,
            known_failures: KnownFailures::default(),
            cases_dir: "spec-cases".to_owned(),
        }
    }
}

impl Options {
    /// How a driver command is run under these options.
    pub fn driver_config(&self, argv: Vec<String>) -> DriverConfig {
        DriverConfig {
            argv,
            case_timeout: self.timeout,
            handshake_timeout: self.handshake_timeout,
            stop_grace: Duration::from_secs(2),
            max_line: lines::MAX_LINE_BYTES,
        }
    }
}

/// Runs `cases` against `target`. Fails only when the implementation cannot be started or
/// does not complete the handshake.
pub fn conform(
    target: &Target,
    cases: &[Case],
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Report, StartError> {
    let started = (Instant::now(), clock::utc_now());
    let mut sessions = open_sessions(target, options)?;
    let suites: Vec<Vec<Case>> = sessions
        .iter()
        .map(|(session, profile)| with_streaming_checks(cases, *profile, session.handshake()))
        .collect();
    let plans: Vec<_> = sessions
        .iter()
        .zip(&suites)
        .map(|((session, profile), cases)| {
            plan::plan(cases, *profile, &options.filter, session.handshake())
        })
        .collect();
    progress.start(plans.iter().map(Vec::len).sum());
    let mut results = Vec::new();
    let (mut restarts, mut notes) = (0, Vec::new());
    for ((session, _), plan) in sessions.iter_mut().zip(&plans) {
        let output = runner::run_plan(session.as_mut(), plan, options.max_restarts, progress);
        results.extend(output.results);
        restarts += output.restarts;
        notes.extend(output.halted);
    }
    let profiles: Vec<Profile> = sessions.iter().map(|(_, p)| *p).collect();
    let suite: Vec<(&str, Profile)> = suites
        .iter()
        .zip(&profiles)
        .flat_map(|(cases, &p)| suite_ids(cases, &[p]))
        .collect();
    let stale = options.known_failures.apply(&mut results, &suite);
    let handshake = sessions.first().map(|(s, _)| s.handshake().clone());
    Ok(Report {
        implementation: implementation(target, handshake.as_ref()),
        profiles,
        cases_dir: options.cases_dir.clone(),
        suite_cases: cases.len(),
        started: started.1,
        duration: started.0.elapsed(),
        strict: options.strict,
        partial: results.iter().any(|r| r.outcome == Outcome::NotRun),
        results,
        restarts,
        stale,
        notes,
    })
}

/// The cases of a run under `profile`: the suite, and its streaming checks when the
/// implementation declares `salvage_stream` (`streaming`).
fn with_streaming_checks(cases: &[Case], profile: Profile, declared: &Handshake) -> Vec<Case> {
    let mut all = cases.to_vec();
    if declared.ops.iter().any(|op| op == "salvage_stream") {
        all.extend(streaming::checks(cases, profile, declared.token_chunks));
    }
    all
}

type Sessions = Vec<(Box<dyn Session>, Profile)>;

/// The sessions of a run with the profile each is checked against.
fn open_sessions(target: &Target, options: &Options) -> Result<Sessions, StartError> {
    match target {
        Target::Reference => {
            let profiles = options.profile.map_or(Profile::ALL.to_vec(), |p| vec![p]);
            Ok(profiles
                .into_iter()
                .map(|p| (Box::new(Reference::new(p)) as Box<dyn Session>, p))
                .collect())
        }
        Target::Command(argv) => {
            let driver = Driver::start(options.driver_config(argv.clone()))?;
            let profile = options.profile.unwrap_or(driver.handshake().profile);
            Ok(vec![(Box::new(driver), profile)])
        }
    }
}

/// Every case id of the suite under each profile it applies to, filters aside: what a
/// known-failures entry must match to be current.
fn suite_ids<'a>(cases: &'a [Case], profiles: &[Profile]) -> Vec<(&'a str, Profile)> {
    let applying = |p: Profile| cases.iter().filter(move |c| c.expectation(p).is_some());
    profiles
        .iter()
        .flat_map(|&p| applying(p).map(move |c| (c.id.as_str(), p)))
        .collect()
}

fn implementation(target: &Target, handshake: Option<&Handshake>) -> Implementation {
    let (name, version, language) = handshake.map_or_else(Default::default, |h| {
        (h.name.clone(), h.version.clone(), h.language.clone())
    });
    let (command, declared_profile) = match target {
        Target::Reference => (None, None),
        Target::Command(argv) => (Some(shell_words::join(argv)), handshake.map(|h| h.profile)),
    };
    let declared = handshake.map_or_else(Declared::default, |h| Declared {
        ops: h.ops.clone(),
        dialects: h.dialects.clone(),
        policies: h.policies.clone(),
    });
    Implementation {
        name,
        version,
        language,
        command,
        declared_profile,
        declared,
    }
}
