//! An implementation run as a driver process (`docs/protocol.md`): handshake, one round
//! trip per case with a deadline, and recovery from anything the process does.
//!
//! Every failure of the process ends as a [`Reply::Broken`] for the case at hand: the
//! process group is killed and the runner restarts it before the next case. Nothing the
//! process writes or withholds can block the runner past a deadline or grow its memory past
//! the line bound.

use std::collections::HashSet;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::lines::Event;
use super::outcome::Outcome;
use super::process::{Process, describe_exit};
use super::session::{Duplicate, Exchange, Reply, Session};
use crate::protocol::handshake::Handshake;
use crate::protocol::message::{Answer, Request};
use crate::protocol::wire::{decode_line, encode_line};
use toolfix::py::Value;

/// How a driver is run.
#[derive(Clone, Debug)]
pub struct DriverConfig {
    /// The command, split into words.
    pub argv: Vec<String>,
    /// How long one case may take.
    pub case_timeout: Duration,
    /// How long the handshake may take (interpreters and JITs start slowly).
    pub handshake_timeout: Duration,
    /// How long the process has to exit after `stop` before it is killed.
    pub stop_grace: Duration,
    /// The longest answer line read.
    pub max_line: usize,
}

/// Why an implementation could not be started.
#[derive(Clone, Debug, PartialEq)]
pub struct StartError {
    pub message: String,
    /// What it wrote to stderr.
    pub stderr: String,
}

/// A driver process and what the runner knows about it.
pub struct Driver {
    config: DriverConfig,
    handshake: Handshake,
    /// `None` after a crash, timeout or protocol error, until the restart.
    process: Option<Process>,
    answered: HashSet<u64>,
    duplicates: Vec<Duplicate>,
}

/// One stdout line read while waiting for an answer.
enum Line {
    Answer(Answer),
    Duplicate(Duplicate),
    Bad(String),
}

impl Driver {
    /// Starts the driver and completes the handshake.
    pub fn start(config: DriverConfig) -> Result<Driver, StartError> {
        let (process, handshake) = start_process(&config)?;
        Ok(Driver {
            config,
            handshake,
            process: Some(process),
            answered: HashSet::new(),
            duplicates: Vec::new(),
        })
    }

    /// Waits for the answer to `seq`, setting aside second answers to earlier seqs.
    fn await_answer(&mut self, seq: u64, deadline: Instant) -> Reply {
        let Some(process) = self.process.as_mut() else {
            return broken(
                Outcome::Crash,
                "the implementation is not running".to_owned(),
            );
        };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = match process.lines.recv_timeout(left) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    let secs = self.config.case_timeout.as_secs_f64();
                    return broken(Outcome::Timeout, format!("no answer within {secs}s"));
                }
                Err(RecvTimeoutError::Disconnected) => Event::Closed(None),
            };
            match event {
                Event::Line(bytes) => match read_line(&bytes, seq, &self.answered) {
                    Line::Answer(answer) => return Reply::Answered(answer),
                    Line::Duplicate(duplicate) => self.duplicates.push(duplicate),
                    Line::Bad(message) => return broken(Outcome::Protocol, message),
                },
                Event::TooLong => {
                    let limit = self.config.max_line;
                    return broken(
                        Outcome::Protocol,
                        format!("an answer line longer than {limit} bytes"),
                    );
                }
                Event::Closed(error) => {
                    let how = describe_exit(process.kill());
                    let read = error
                        .map(|e| format!(" (reading failed: {e})"))
                        .unwrap_or_default();
                    let message = format!(
                        "the implementation closed its stdout before answering{read}; it {how}"
                    );
                    return broken(Outcome::Crash, message);
                }
            }
        }
    }
}

impl Session for Driver {
    fn handshake(&self) -> &Handshake {
        &self.handshake
    }

    fn exchange(&mut self, seq: u64, op: &str, input: &Value) -> Exchange {
        let started = Instant::now();
        let mark = self.process.as_ref().map_or(0, |p| p.stderr.mark());
        if let Some(process) = &self.process {
            process.send(&run_line(seq, op, input));
        }
        let reply = self.await_answer(seq, deadline(started, self.config.case_timeout));
        let duration = started.elapsed();
        let gone = matches!(reply, Reply::Broken { .. });
        if gone {
            // Killed before the excerpt is taken, so the excerpt has its last words.
            if let Some(process) = self.process.as_mut() {
                process.kill();
            }
        } else {
            self.answered.insert(seq);
        }
        let stderr = self
            .process
            .as_ref()
            .map_or_else(String::new, |p| p.stderr.since(mark));
        if gone {
            self.process = None;
        }
        Exchange {
            reply,
            duration,
            stderr,
        }
    }

    fn take_duplicates(&mut self) -> Vec<Duplicate> {
        std::mem::take(&mut self.duplicates)
    }

    fn needs_restart(&self) -> bool {
        self.process.is_none()
    }

    fn restart(&mut self) -> Result<(), String> {
        self.process = None;
        let (process, _) = start_process(&self.config).map_err(|e| match e.stderr.is_empty() {
            true => e.message,
            false => format!("{}\n{}", e.message, e.stderr),
        })?;
        self.process = Some(process);
        Ok(())
    }

    fn stop(&mut self) -> Vec<Duplicate> {
        if let Some(mut process) = self.process.take() {
            process.send(&encode_line(&Request::Stop.to_value()));
            process.close_stdin();
            let deadline = deadline(Instant::now(), self.config.stop_grace);
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match process.lines.recv_timeout(left) {
                    Ok(Event::Line(bytes)) => {
                        if let Line::Duplicate(duplicate) = read_line(&bytes, 0, &self.answered) {
                            self.duplicates.push(duplicate);
                        }
                    }
                    Ok(Event::TooLong) => {}
                    Ok(Event::Closed(_)) | Err(_) => break,
                }
            }
            process.kill();
        }
        self.take_duplicates()
    }

    fn command_line(&self) -> String {
        shell_words::join(&self.config.argv)
    }
}

/// Spawns the process and completes the handshake within its deadline.
fn start_process(config: &DriverConfig) -> Result<(Process, Handshake), StartError> {
    let mut process =
        Process::spawn(&config.argv, config.max_line).map_err(|message| StartError {
            message,
            stderr: String::new(),
        })?;
    process.send(&encode_line(&Request::hello().to_value()));
    match read_handshake(&mut process, config) {
        Ok(handshake) => Ok((process, handshake)),
        Err(message) => {
            process.kill();
            let stderr = process.stderr.since(0);
            Err(StartError { message, stderr })
        }
    }
}

fn read_handshake(process: &mut Process, config: &DriverConfig) -> Result<Handshake, String> {
    let event = match process.lines.recv_timeout(config.handshake_timeout) {
        Ok(event) => event,
        Err(RecvTimeoutError::Timeout) => {
            let secs = config.handshake_timeout.as_secs_f64();
            return Err(format!("no handshake answer within {secs}s"));
        }
        Err(RecvTimeoutError::Disconnected) => Event::Closed(None),
    };
    match event {
        Event::Line(bytes) => {
            let value = decode_line(&bytes)
                .map_err(|e| format!("bad handshake answer: {e}: {}", excerpt(&bytes)))?;
            Handshake::parse(&value).map_err(|e| format!("bad handshake answer: {e}"))
        }
        Event::TooLong => Err(format!(
            "a handshake answer longer than {} bytes",
            config.max_line
        )),
        Event::Closed(_) => {
            let how = describe_exit(process.kill());
            Err(format!(
                "the implementation closed its stdout before the handshake; it {how}"
            ))
        }
    }
}

/// Reads one stdout line received while waiting for the answer to `seq`.
fn read_line(bytes: &[u8], seq: u64, answered: &HashSet<u64>) -> Line {
    let value = match decode_line(bytes) {
        Ok(value) => value,
        Err(e) => return Line::Bad(format!("{e}: {}", excerpt(bytes))),
    };
    let (got, answer) = match Answer::parse(&value) {
        Ok(parsed) => parsed,
        Err(e) => return Line::Bad(format!("{e}: {}", excerpt(bytes))),
    };
    let got_seq = got.as_ref().and_then(seq_number);
    match got_seq {
        Some(n) if n == seq => Line::Answer(answer),
        Some(n) if answered.contains(&n) => Line::Duplicate(Duplicate {
            seq: n,
            message: format!("a second answer for this case: {}", excerpt(bytes)),
        }),
        _ => {
            let shown = got
                .as_ref()
                .map_or("no seq".to_owned(), |v| format!("seq {}", encode_line(v)));
            Line::Bad(format!(
                "an answer with {shown} while waiting for seq {seq}: {}",
                excerpt(bytes)
            ))
        }
    }
}

fn seq_number(value: &Value) -> Option<u64> {
    match value {
        Value::Int(n) => n.to_i64().and_then(|n| u64::try_from(n).ok()),
        _ => None,
    }
}

/// The request line for one case: expected outputs are never part of it.
pub fn run_line(seq: u64, op: &str, input: &Value) -> String {
    let seq = Value::int(i64::try_from(seq).unwrap_or(i64::MAX));
    encode_line(
        &Request::Run {
            seq,
            op: op.to_owned(),
            input: input.clone(),
        }
        .to_value(),
    )
}

/// The start of a line, for messages.
fn excerpt(bytes: &[u8]) -> String {
    const SHOWN: usize = 200;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]).into_owned();
    if bytes.len() > SHOWN {
        format!("{text}… ({} bytes)", bytes.len())
    } else {
        text
    }
}

/// `from + wait`, with absurd waits cut to a year so the sum cannot overflow.
fn deadline(from: Instant, wait: Duration) -> Instant {
    from + wait.min(Duration::from_secs(365 * 24 * 3600))
}

fn broken(outcome: Outcome, message: String) -> Reply {
    Reply::Broken { outcome, message }
}
