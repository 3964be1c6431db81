//! What happened to one case, and how each outcome counts towards the verdict.
//!
//! The counting rules live here and nowhere else, so the summary line, the exit code, the
//! reports and `docs/conform.md` cannot drift apart.

use std::fmt;
use std::str::FromStr;

use crate::suite::Level;

/// The outcome of one case under one profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The output met the expectation.
    Pass,
    /// The output did not meet the expectation.
    Fail,
    /// A listed known failure that still fails.
    Xfail,
    /// A listed known failure that now passes.
    Xpass,
    /// Not sent: the implementation's declarations (ops, dialects, policies) leave it out.
    Skip,
    /// Sent, and the implementation answered `skipped`: it declined a case its
    /// declarations cover, which counts against it.
    Declined,
    /// The implementation answered `errored`.
    Error,
    /// The implementation exited (or closed its stdout) before answering.
    Crash,
    /// No answer within the per-case timeout.
    Timeout,
    /// An answer that breaks the protocol: not JSON, wrong `seq`, a second answer, an
    /// overlong line, not exactly one of `output`/`skipped`/`errored`.
    Protocol,
    /// Never attempted: the restart budget was spent, or a restart failed.
    NotRun,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Outcome; 11] = [
        Outcome::Pass,
        Outcome::Fail,
        Outcome::Xfail,
        Outcome::Xpass,
        Outcome::Skip,
        Outcome::Declined,
        Outcome::Error,
        Outcome::Crash,
        Outcome::Timeout,
        Outcome::Protocol,
        Outcome::NotRun,
    ];

    /// The outcome's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Xfail => "xfail",
            Outcome::Xpass => "xpass",
            Outcome::Skip => "skip",
            Outcome::Declined => "declined",
            Outcome::Error => "error",
            Outcome::Crash => "crash",
            Outcome::Timeout => "timeout",
            Outcome::Protocol => "protocol",
            Outcome::NotRun => "not_run",
        }
    }

    /// Whether the case was attempted and went wrong: the outcomes a known-failures entry
    /// turns into `xfail`.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Fail
                | Outcome::Declined
                | Outcome::Error
                | Outcome::Crash
                | Outcome::Timeout
                | Outcome::Protocol
        )
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Outcome {
    type Err = String;

    fn from_str(s: &str) -> Result<Outcome, String> {
        Outcome::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown outcome {s:?}"))
    }
}

/// Where a case counts in `conformance: N passed, N failed, N known failures, N may
/// differences, N not sent`. The order is the order of precedence when a case and its
/// streaming checks count differently (`report::Family`): one failing check fails the
/// case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// It fails the run: the exit status is 1 exactly when some case is here (or, under
    /// `--strict`, a known-failures entry matched no case).
    Failed,
    /// A listed known failure that still fails: reported, never failed.
    Known,
    /// A `may` case answered differently: implementation-defined, reported, never failed.
    May,
    /// It met its expectation.
    Passed,
    /// Not sent: outside what the implementation declared.
    NotSent,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 5] = [
        Verdict::Passed,
        Verdict::Failed,
        Verdict::Known,
        Verdict::May,
        Verdict::NotSent,
    ];

    /// The verdict's name in reports (a JSON-lines footer key, a column heading).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Known => "known",
            Verdict::May => "may",
            Verdict::NotSent => "not_sent",
        }
    }
}

/// How an outcome at a level counts.
///
/// * passed: `pass`, and `xpass` without `--strict`;
/// * failed: `fail` and `declined` at `must` or `should`, `error`, `crash`, `timeout`,
///   `protocol`, `not_run`, and `xpass` under `--strict`;
/// * known: `xfail`;
/// * may: `fail` or `declined` at `may` (reported, never failed);
/// * not sent: `skip`.
pub fn verdict(outcome: Outcome, level: Level, strict: bool) -> Verdict {
    match outcome {
        Outcome::Pass => Verdict::Passed,
        Outcome::Xpass if strict => Verdict::Failed,
        Outcome::Xpass => Verdict::Passed,
        Outcome::Fail | Outcome::Declined if level == Level::May => Verdict::May,
        Outcome::Skip => Verdict::NotSent,
        Outcome::Xfail => Verdict::Known,
        Outcome::Fail
        | Outcome::Declined
        | Outcome::Error
        | Outcome::Crash
        | Outcome::Timeout
        | Outcome::Protocol
        | Outcome::NotRun => Verdict::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for outcome in Outcome::ALL {
            assert_eq!(outcome.name().parse::<Outcome>(), Ok(outcome));
        }
    }

    #[test]
    fn may_differences_and_known_failures_never_fail_the_run() {
        assert_eq!(verdict(Outcome::Fail, Level::May, true), Verdict::May);
        assert_eq!(verdict(Outcome::Crash, Level::May, true), Verdict::Failed);
        assert_eq!(verdict(Outcome::Xfail, Level::Must, true), Verdict::Known);
        assert_eq!(verdict(Outcome::Xpass, Level::Must, true), Verdict::Failed);
        assert_eq!(verdict(Outcome::Xpass, Level::Must, false), Verdict::Passed);
        assert_eq!(verdict(Outcome::Fail, Level::Should, true), Verdict::Failed);
        assert_eq!(
            verdict(Outcome::Declined, Level::Must, true),
            Verdict::Failed
        );
        assert_eq!(verdict(Outcome::Declined, Level::May, true), Verdict::May);
        assert_eq!(verdict(Outcome::Skip, Level::Must, true), Verdict::NotSent);
    }
}
