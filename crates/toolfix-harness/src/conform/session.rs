//! A live implementation as the runner sees it: one request in, one reply out. The
//! embedded reference and a driver process both look like this, so the runner has one code
//! path for both.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use super::outcome::Outcome;
use crate::protocol::handshake::Handshake;
use crate::protocol::message::Answer;
use crate::protocol::ops;
use toolfix::Profile;
use toolfix::py::Value;

/// The reply to one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A well-formed answer.
    Answered(Answer),
    /// The implementation crashed, timed out or broke the protocol (`outcome` says which);
    /// it must be restarted before the next case.
    Broken { outcome: Outcome, message: String },
}

/// One round trip.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub reply: Reply,
    /// From sending the request to reading the answer.
    pub duration: Duration,
    /// What the implementation wrote to stderr meanwhile (a bounded excerpt).
    pub stderr: String,
}

/// A seq answered a second time, and what was seen.
#[derive(Clone, Debug, PartialEq)]
pub struct Duplicate {
    pub seq: u64,
    pub message: String,
}

/// An implementation the runner talks to.
pub trait Session {
    /// What it declared.
    fn handshake(&self) -> &Handshake;
    /// Runs one case.
    fn exchange(&mut self, seq: u64, op: &str, input: &Value) -> Exchange;
    /// The seqs answered a second time since the last call.
    fn take_duplicates(&mut self) -> Vec<Duplicate>;
    /// Whether the implementation is gone and must be restarted before the next case.
    fn needs_restart(&self) -> bool;
    /// Starts the implementation again and replays the handshake.
    fn restart(&mut self) -> Result<(), String>;
    /// Ends the implementation; the result is any second answers it wrote meanwhile.
    fn stop(&mut self) -> Vec<Duplicate>;
    /// The shell command a person pipes protocol lines into to replay a case.
    fn command_line(&self) -> String;
}

/// The reference implementation, called in-process: no process, no pipes, no timeouts.
pub struct Reference {
    handshake: Handshake,
}

impl Reference {
    pub fn new(profile: Profile) -> Reference {
        Reference {
            handshake: Handshake::reference(profile),
        }
    }
}

impl Session for Reference {
    fn handshake(&self) -> &Handshake {
        &self.handshake
    }

    fn exchange(&mut self, _seq: u64, op: &str, input: &Value) -> Exchange {
        let started = Instant::now();
        let profile = self.handshake.profile;
        let reply = match catch_unwind(AssertUnwindSafe(|| ops::run(op, input, profile))) {
            Ok(answer) => Reply::Answered(answer),
            Err(_) => Reply::Broken {
                outcome: Outcome::Crash,
                message: "the reference panicked".to_owned(),
            },
        };
        Exchange {
            reply,
            duration: started.elapsed(),
            stderr: String::new(),
        }
    }

    fn take_duplicates(&mut self) -> Vec<Duplicate> {
        Vec::new()
    }

    fn needs_restart(&self) -> bool {
        false
    }

    fn restart(&mut self) -> Result<(), String> {
        Ok(())
    }

    fn stop(&mut self) -> Vec<Duplicate> {
        Vec::new()
    }

    fn command_line(&self) -> String {
        format!("toolfix serve --profile {}", self.handshake.profile)
    }
}
