//! `toolfix smoke`: check an implementation's driver with one trivial case per declared op
//! and, per declared dialect, one well-formed call in each of the dialect's documented
//! forms (the dialect passes when some form does) before a full run. Exit status: 0 every
//! check passes, 1 some check fails (or none could run), 3 the implementation did not
//! start or complete the handshake.

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
    let checks = smoke::checks(&report);
    print_checks(&report, &checks);
    let count = |verdict| checks.iter().filter(|c| c.verdict == verdict).count();
    let (passed, failed) = (count(Verdict::Passed), count(Verdict::Failed));
    let skipped = checks.len() - passed - failed;
    println!("smoke: {passed} passed, {failed} failed, {skipped} skipped");
    Ok(if failed == 0 && passed > 0 {
        Exit::SUCCESS
    } else {
        Exit::FAILURE
    })
}

fn mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "ok  ",
        Verdict::Failed => "FAIL",
        Verdict::Known | Verdict::May | Verdict::NotSent => "skip",
    }
}

/// Each check with its verdict; a dialect with how each of its forms fared (a form that
/// failed where another passed is a `miss`, not a failure); a failing check with what
/// each of its failing cases expected and got.
fn print_checks(report: &Report, checks: &[smoke::Check<'_>]) {
    let who = &report.implementation;
    let declared = who
        .declared_profile
        .map_or(String::new(), |p| format!(", declares profile {p}"));
    println!("handshake: ok: {}{declared}", who.title());
    for check in checks {
        let what = match check.forms.as_slice() {
            [] => format!("[{}]", check.results[0].outcome),
            forms => {
                let forms: Vec<String> = forms
                    .iter()
                    .map(|(form, verdict)| {
                        let how = match verdict {
                            Verdict::Passed => "ok",
                            Verdict::Known | Verdict::May | Verdict::NotSent => "skip",
                            Verdict::Failed if check.verdict == Verdict::Passed => "miss",
                            Verdict::Failed => "FAIL",
                        };
                        format!("{form} {how}")
                    })
                    .collect();
                format!("[forms: {}]", forms.join(", "))
            }
        };
        println!(
            "{} {}: {} {what}",
            mark(check.verdict),
            check.id,
            smoke::description(&check.id)
        );
        if check.verdict == Verdict::Passed {
            continue;
        }
        if check.verdict == Verdict::NotSent {
            // Every form was skipped for the same reason (an undeclared op or dialect).
            if let Some(message) = check.results.first().and_then(|r| r.message.as_ref()) {
                println!("       {message}");
            }
            continue;
        }
        for result in &check.results {
            let verdict = result.verdict(report.strict);
            if verdict == Verdict::Passed {
                continue;
            }
            if !check.forms.is_empty() || verdict == Verdict::Failed {
                println!("       {} [{}]", result.id, result.outcome);
            }
            if let Some(message) = &result.message {
                println!("       {message}");
            }
            if verdict == Verdict::Failed {
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
}
