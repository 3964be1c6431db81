//! `toolfix smoke`: check an implementation's driver with one trivial case per declared op
//! and one well-formed call per declared dialect before a full run. Exit status: 0 every check passes, 1 some check fails (or none could
//! run), 3 the implementation did not start or complete the handshake.

use crate::Exit;

use toolfix::Profile;
use toolfix_harness::conform::{Options, Quiet, Report, Verdict, conform, smoke};
use toolfix_harness::protocol::wire::encode_line;

use super::conform::{Timing, not_started, target};

#[derive(clap::Args)]
pub struct Args {
    /// The implementation's driver command, split shell-style.
    #[arg(long = "impl", value_name = "CMD")]
    implementation: String,
    /// The profile whose expectations are checked [default: the declared one].
    #[arg(long)]
    profile: Option<Profile>,
    #[command(flatten)]
    timing: Timing,
}

pub fn run(args: Args) -> Result<Exit, String> {
    let target = target(Some(&args.implementation))?;
    let cases = smoke::cases();
    let options = Options {
        profile: args.profile,
        max_restarts: u32::try_from(cases.len()).unwrap_or(u32::MAX),
        cases_dir: "built-in smoke checks".to_owned(),
        ..args.timing.options()
    };
    let report = match conform(&target, &cases, &options, &mut Quiet) {
        Ok(report) => report,
        Err(error) => return Ok(not_started(&error)),
    };
    print_checks(&report);
    let summary = report.summary();
    println!(
        "smoke: {} passed, {} failed, {} skipped",
        summary.passed, summary.failed, summary.skipped
    );
    Ok(if summary.failed == 0 && summary.passed > 0 {
        Exit::SUCCESS
    } else {
        Exit::FAILURE
    })
}

fn print_checks(report: &Report) {
    let who = &report.implementation;
    let declared = who
        .declared_profile
        .map_or(String::new(), |p| format!(", declares profile {p}"));
    println!("handshake: ok: {}{declared}", who.title());
    for result in &report.results {
        let mark = match result.verdict(report.strict) {
            Verdict::Passed => "ok  ",
            Verdict::Failed => "FAIL",
            Verdict::Skipped => "skip",
        };
        println!(
            "{mark} {}: {} [{}]",
            result.id,
            smoke::description(&result.id),
            result.outcome
        );
        if result.verdict(report.strict) == Verdict::Passed {
            continue;
        }
        if let Some(message) = &result.message {
            println!("       {message}");
        }
        if result.verdict(report.strict) == Verdict::Failed {
            println!("       expected: {}", encode_line(&result.expected));
            if let Some(actual) = &result.actual {
                println!("       actual:   {}", encode_line(actual));
            }
            for line in result.stderr.lines() {
                println!("       stderr | {line}");
            }
        }
    }
}
