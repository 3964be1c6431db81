//! `toolfix conform`: run the suite against an implementation and report (docs/conform.md).
//!
//! Exit status: 0 conformant, 1 some case fails the run (or, under `--strict`, a stale
//! known-failures entry), 2 a usage error or a bad case or known-failures file, 3 the
//! implementation did not start or complete the handshake.

use crate::Exit;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use toolfix::Profile;
use toolfix_harness::conform::report::{human, jsonl, junit, markdown};
use toolfix_harness::conform::{
    CaseResult, Filter, KnownFailures, Options, Progress, Quiet, Report, StartError, Target,
    conform, known_failures,
};
use toolfix_harness::suite::{Case, Level, embedded, load_dir, load_embedded};

/// Exit status: the implementation did not start.
pub const EXIT_NOT_STARTED: u8 = 3;

/// Exit status: usage, or bad input files.
const EXIT_USAGE: u8 = 2;

#[derive(clap::Args)]
pub struct Args {
    /// The implementation's driver command, split shell-style ('python3 driver.py');
    /// without it, the embedded reference runs in-process.
    #[arg(long = "impl", value_name = "CMD")]
    implementation: Option<String>,
    /// The profile whose expectations are checked [default: the one the implementation
    /// declares; all three for the embedded reference].
    #[arg(long)]
    profile: Option<Profile>,
    /// A case directory to run instead of the suite embedded in this binary.
    #[arg(long, value_name = "DIR")]
    cases: Option<PathBuf>,
    /// Only cases whose id matches this glob (repeatable; `*` crosses `/`).
    #[arg(long = "id", value_name = "GLOB", value_parser = glob_pattern)]
    ids: Vec<glob::Pattern>,
    /// Only cases with this tag (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Only cases at this level (repeatable): must, should, may.
    #[arg(long = "level", value_name = "LEVEL")]
    levels: Vec<Level>,
    /// Leave out cases whose id matches this glob (repeatable).
    #[arg(long = "exclude-id", value_name = "GLOB", value_parser = glob_pattern)]
    exclude_ids: Vec<glob::Pattern>,
    /// Leave out cases with this tag (repeatable).
    #[arg(long = "exclude-tag", value_name = "TAG")]
    exclude_tags: Vec<String>,
    #[command(flatten)]
    timing: Timing,
    /// How many times a crashed, hung or garbled implementation is restarted.
    #[arg(long, value_name = "N", default_value_t = 10)]
    max_restarts: u32,
    /// The implementation's known-failures file (TOML).
    #[arg(long, value_name = "FILE")]
    known_failures: Option<PathBuf>,
    /// Write the current failures out as a known-failures file.
    #[arg(long, value_name = "FILE")]
    write_known_failures: Option<PathBuf>,
    /// Fail the run on a known failure that passes or an entry that matches no case
    /// (the default).
    #[arg(long, overrides_with = "no_strict")]
    strict: bool,
    /// Only warn about known failures that pass and entries that match no case.
    #[arg(long, overrides_with = "strict")]
    no_strict: bool,
    /// Write the JSON-lines report here.
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a Markdown summary here (for CI step summaries).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Print only the failing cases and the summary line; no progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// The per-case and handshake deadlines, shared with `toolfix smoke`.
#[derive(clap::Args)]
pub struct Timing {
    /// Seconds one case may take.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    timeout: Duration,
    /// Seconds the implementation may take to start and answer the handshake (a driver
    /// may build its environment on first start).
    #[arg(long, value_name = "SECS", default_value = "120", value_parser = seconds)]
    handshake_timeout: Duration,
}

impl Timing {
    /// Options with these deadlines.
    pub fn options(&self) -> Options {
        Options {
            timeout: self.timeout,
            handshake_timeout: self.handshake_timeout,
            ..Options::default()
        }
    }
}

pub fn run(args: Args) -> Result<Exit, String> {
    let target = target(args.implementation.as_deref())?;
    let Some(options) = options(&args) else {
        return Ok(Exit::from(EXIT_USAGE));
    };
    let Some(cases) = cases(args.cases.as_deref()) else {
        return Ok(Exit::from(EXIT_USAGE));
    };
    let mut progress = bar(args.quiet);
    let report = match conform(&target, &cases, &options, progress.as_mut()) {
        Ok(report) => report,
        Err(error) => return Ok(not_started(&error)),
    };
    drop(progress);
    if report.results.is_empty() {
        eprintln!(
            "toolfix: no case of {} matches the profile and filters",
            cases_shown(args.cases.as_deref())
        );
        return Ok(Exit::from(EXIT_USAGE));
    }
    write_outputs(&args, &report, &options.known_failures, &cases)?;
    print!("{}", human::render(&[&report], args.quiet));
    Ok(if report.conformant() {
        Exit::SUCCESS
    } else {
        Exit::FAILURE
    })
}

/// `--impl`, split shell-style.
pub fn target(command: Option<&str>) -> Result<Target, String> {
    match command {
        None => Ok(Target::Reference),
        Some(command) => {
            let argv =
                shell_words::split(command).map_err(|e| format!("--impl {command:?}: {e}"))?;
            if argv.is_empty() {
                return Err("--impl: the command is empty".to_owned());
            }
            Ok(Target::Command(argv))
        }
    }
}

/// The run's options; `None` after printing every problem with the known-failures file.
fn options(args: &Args) -> Option<Options> {
    let known_failures = match &args.known_failures {
        None => KnownFailures::default(),
        Some(path) => match KnownFailures::load(path) {
            Ok(known) => known,
            Err(errors) => {
                errors.iter().for_each(|e| eprintln!("toolfix: {e}"));
                return None;
            }
        },
    };
    Some(Options {
        profile: args.profile,
        filter: Filter {
            ids: args.ids.clone(),
            tags: args.tags.clone(),
            levels: args.levels.clone(),
            exclude_ids: args.exclude_ids.clone(),
            exclude_tags: args.exclude_tags.clone(),
        },
        max_restarts: args.max_restarts,
        strict: !args.no_strict,
        known_failures,
        cases_dir: args.cases.as_deref().map_or_else(
            || embedded::ROOT.to_owned(),
            |dir| dir.display().to_string(),
        ),
        ..args.timing.options()
    })
}

/// How reports name the suite: the case directory, or the embedded suite.
fn cases_shown(dir: Option<&Path>) -> String {
    dir.map_or_else(|| embedded::ROOT.to_owned(), |d| d.display().to_string())
}

/// The suite: the cases of `dir`, or the embedded ones; `None` after printing every load
/// error.
fn cases(dir: Option<&Path>) -> Option<Vec<Case>> {
    let shown = cases_shown(dir);
    let loaded = dir.map_or_else(load_embedded, load_dir);
    match loaded {
        Ok(cases) if cases.is_empty() => {
            eprintln!("toolfix: no cases in {shown}");
            None
        }
        Ok(cases) => Some(cases),
        Err(errors) => {
            errors.iter().for_each(|e| eprintln!("toolfix: {e}"));
            eprintln!("toolfix: {} problems in {shown}", errors.len());
            None
        }
    }
}

/// Says why the implementation did not start, with its stderr, and gives the exit status.
pub fn not_started(error: &StartError) -> Exit {
    eprintln!(
        "toolfix: the implementation did not start: {}",
        error.message
    );
    for line in error.stderr.lines() {
        eprintln!("  stderr | {line}");
    }
    Exit::from(EXIT_NOT_STARTED)
}

fn write_outputs(
    args: &Args,
    report: &Report,
    known: &KnownFailures,
    cases: &[Case],
) -> Result<(), String> {
    if let Some(path) = &args.jsonl {
        let mut file = std::io::BufWriter::new(create(path)?);
        jsonl::write(report, &mut file).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.junit {
        write(path, &junit::render(report))?;
    }
    if let Some(path) = &args.markdown {
        write(path, &markdown::render(report))?;
    }
    if let Some(path) = &args.write_known_failures {
        write(
            path,
            &known_failures::write(known, &report.results, report.strict, &|result| {
                deviation_note(cases, result)
            }),
        )?;
    }
    Ok(())
}

/// Why an implementation faithful to one profile fails the other profile's expectation,
/// from the case itself: its note on where the real package departs from its
/// documentation, or else, when the profiles simply expect different things, its source.
/// Both are about `praisonai` against `strict`, so they explain only a failure under one
/// of those two: a `portable` failure is another implementation's behaviour, which its
/// maintainers describe themselves (the written reason stays the TODO).
fn deviation_note(cases: &[Case], result: &CaseResult) -> Option<String> {
    if !matches!(result.profile, Profile::PraisonAi | Profile::Strict) {
        return None;
    }
    let case = cases.iter().find(|case| case.id == result.id)?;
    let pinned: Vec<_> = case
        .expectations
        .iter()
        .filter(|e| matches!(e.profile, Profile::PraisonAi | Profile::Strict))
        .collect();
    if let Some(note) = pinned.iter().find_map(|e| e.deviation.as_deref()) {
        return Some(format!("documented deviation: {note}"));
    }
    let differ = pinned
        .windows(2)
        .any(|pair| pair[0].expected != pair[1].expected);
    differ.then(|| {
        format!(
            "the profiles expect different things here (docs/profiles.md): {}",
            case.source
        )
    })
}

fn create(path: &Path) -> Result<std::fs::File, String> {
    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn glob_pattern(text: &str) -> Result<glob::Pattern, String> {
    glob::Pattern::new(text).map_err(|e| e.to_string())
}

pub fn seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds"))
}

/// A progress bar on stderr when it is a terminal.
pub fn bar(quiet: bool) -> Box<dyn Progress> {
    if quiet || !std::io::stderr().is_terminal() {
        return Box::new(Quiet);
    }
    Box::new(Bar(ProgressBar::hidden()))
}

struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&mut self, total: usize) {
        let bar = ProgressBar::new(total as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        self.0 = bar;
    }

    fn finished(&mut self, result: &CaseResult) {
        self.0.set_message(result.feature().to_owned());
        self.0.inc(1);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolfix_harness::conform::Outcome;

    fn failing(id: &str, profile: Profile) -> CaseResult {
        let cases = load_embedded().expect("the embedded suite loads");
        let case = cases.iter().find(|c| c.id == id).expect("the case");
        let expectation = case.expectation(profile).expect("the profile");
        CaseResult {
            id: id.to_owned(),
            profile,
            op: case.op.clone(),
            outcome: Outcome::Fail,
            level: expectation.level,
            duration: Duration::ZERO,
            expected: toolfix::py::Value::None,
            accepted: Vec::new(),
            actual: None,
            message: None,
            deviation: None,
            rule: expectation.rule,
            checks: expectation.rule,
            source: case.source.clone(),
            tags: Vec::new(),
            dialects: Vec::new(),
            reproduce: None,
            stderr: String::new(),
            known: None,
        }
    }

    /// The praisonai and strict expectations of this case differ (no allowlist on the
    /// whole-content path): that explains a strict failure of the real package, never a
    /// portable failure of another implementation.
    #[test]
    fn a_note_about_praisonai_and_strict_is_no_reason_for_a_portable_failure() {
        // Loading the suite recurses into its deepest case values: the command's stack.
        let check = || {
            let cases = load_embedded().expect("the embedded suite loads");
            let id = "salvage-whole-json/names/string-zero-is-truthy";
            assert!(deviation_note(&cases, &failing(id, Profile::Strict)).is_some());
            assert_eq!(
                deviation_note(&cases, &failing(id, Profile::Portable)),
                None
            );
        };
        std::thread::Builder::new()
            .stack_size(crate::STACK)
            .spawn(check)
            .expect("a thread")
            .join()
            .expect("the check passes");
    }
}
