//! The two implementations under comparison, each a driver process run by the harness
//! (`toolfix_harness::conform::driver`): a crash, a hang or a garbled line becomes the
//! answer of the case that caused it, and the process is restarted for the next case, so
//! one bad input never ends the run and nothing an implementation does can block it.

use std::thread;
use std::time::Duration;

use toolfix::py::Value;
use toolfix_harness::conform::driver::Driver;
use toolfix_harness::conform::lines::MAX_LINE_BYTES;
use toolfix_harness::conform::session::{Reply, Session};
use toolfix_harness::conform::{DriverConfig, Outcome, StartError};
use toolfix_harness::protocol::handshake::Handshake;

/// The stack of the thread that talks to side `b`: answers nest up to 4096 containers
/// deep, and reading them recurses once per level (as on the command's main thread).
const STACK: usize = 64 << 20;

/// One implementation: its label (`a` or `b`), command, driver and restart count.
pub struct Side {
    /// `a` or `b`, as the report names it.
    pub label: &'static str,
    /// The command as given.
    pub command: String,
    driver: Driver,
    /// How many times it was restarted after a crash, a timeout or garbage.
    pub restarts: u32,
}

/// How long an implementation may take to answer.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    /// For one answer.
    pub case: Duration,
    /// For starting and answering `hello`.
    pub handshake: Duration,
}

impl Side {
    /// Starts `command` and completes its handshake.
    pub fn start(label: &'static str, command: &str, deadlines: Deadlines) -> Result<Side, String> {
        let argv =
            shell_words::split(command).map_err(|e| format!("--{label} {command:?}: {e}"))?;
        if argv.is_empty() {
            return Err(format!("--{label}: the command is empty"));
        }
        let config = DriverConfig {
            argv,
            case_timeout: deadlines.case,
            handshake_timeout: deadlines.handshake,
            stop_grace: Duration::from_secs(10),
            max_line: MAX_LINE_BYTES,
        };
        let driver = Driver::start(config).map_err(|e| started_badly(label, command, &e))?;
        Ok(Side {
            label,
            command: command.to_owned(),
            driver,
            restarts: 0,
        })
    }

    /// What it declared.
    pub fn hello(&self) -> &Handshake {
        self.driver.handshake()
    }

    /// Sends one case and waits for its answer, within the case deadline.
    fn exchange(&mut self, seq: u64, op: &str, input: &Value) -> Reply {
        self.driver.exchange(seq, op, input).reply
    }

    /// Restarts the process if the last case left it gone.
    fn recover(&mut self) -> Result<(), String> {
        if !self.driver.needs_restart() {
            return Ok(());
        }
        self.restarts += 1;
        self.driver.restart().map_err(|e| {
            format!(
                "{} ({}) could not be restarted: {e}",
                self.label, self.command
            )
        })
    }

    /// Ends the process (`stop`, then a kill after the grace period).
    pub fn stop(&mut self) {
        self.driver.stop();
    }
}

/// Sends the same case to both sides at once and returns both replies. A side left gone
/// by the case is restarted; the error says which one could not be.
pub fn exchange_both(
    sides: &mut [Side; 2],
    seq: u64,
    op: &str,
    input: &Value,
) -> Result<[Reply; 2], String> {
    let [a, b] = sides;
    let replies = thread::scope(|scope| {
        let other = thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, || b.exchange(seq, op, input));
        let first = a.exchange(seq, op, input);
        let second = match other {
            Ok(handle) => handle.join().map_err(|_| "panicked".to_owned()),
            Err(e) => Err(format!("could not start: {e}")),
        };
        let second = second.unwrap_or_else(|why| Reply::Broken {
            outcome: Outcome::Crash,
            message: format!("the runner's thread for this side {why}"),
        });
        [first, second]
    });
    a.recover()?;
    b.recover()?;
    Ok(replies)
}

/// The message for a side that did not start, with what it wrote to stderr.
fn started_badly(label: &str, command: &str, error: &StartError) -> String {
    let mut message = format!("{label} ({command}) did not start: {}", error.message);
    for line in error.stderr.lines() {
        message.push_str("\n  stderr | ");
        message.push_str(line);
    }
    message
}
