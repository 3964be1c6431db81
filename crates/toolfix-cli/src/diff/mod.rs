//! `toolfix diff`: two implementations of the protocol compared on generated inputs.
//!
//! Both commands are started once and sent the same cases, one at a time. Each op has
//! generator families (`toolfix_fuzzing::differential`): salvage replies from the reply
//! grammar, execute registries of Python signatures and calls, format_result tool
//! results. Every case whose answers differ is printed with both answers, then counts
//! per op and family. The exit status is 1 on any difference, crash, timeout, refusal
//! outside the families malformed on purpose, or too few cases compared
//! (`--min-compared`, so a run that quietly sends nothing cannot pass); 3 when an
//! implementation does not start.

mod args;
mod declared;
mod judge;
mod pair;
mod saved;
mod tally;

use std::sync::mpsc::sync_channel;
use std::thread;
use std::time::{Duration, Instant};

use toolfix_fuzzing::differential::{Case, OPS, generate};
use toolfix_harness::conform::session::Reply;
use toolfix_harness::protocol::wire::encode_line;

use crate::Exit;
use crate::conform::EXIT_NOT_STARTED;
pub use args::Args;
use judge::{Outcome, judge};
use pair::{Deadlines, Side, exchange_both};
use saved::{Saved, reply_value};
use tally::Tally;

/// How many generated cases may wait to be sent: generation runs on a thread of its
/// own, beside the exchanges, so a slow generator and a slow implementation overlap.
const QUEUED_CASES: usize = 256;

/// The generator thread's stack (the reply grammar recurses while it nests segments).
const GENERATOR_STACK: usize = 16 << 20;

/// A run in progress: the counts, the differences so far, the last seq sent.
struct Run<'a> {
    args: &'a Args,
    tally: Tally,
    differences: usize,
    seq: u64,
    saved: Option<Saved>,
}

pub fn run(args: Args) -> Result<Exit, String> {
    if let Some(path) = &args.write_cases {
        saved::write_cases(path, &args.seed, generated(&args))?;
        return Ok(Exit::SUCCESS);
    }
    let cases = match &args.replay {
        Some(path) => saved::replayed(path)?,
        None => Vec::new(),
    };
    let saved = args.save_diffs.as_deref().map(Saved::create).transpose()?;
    let mut sides = match start_both(&args) {
        Ok(sides) => sides,
        Err(message) => {
            eprintln!("toolfix diff: {message}");
            return Ok(Exit::from(EXIT_NOT_STARTED));
        }
    };
    let mut run = Run {
        args: &args,
        tally: Tally::default(),
        differences: handshake_report(&sides, args.profile_check),
        seq: 0,
        saved,
    };
    let started = Instant::now();
    let halted = match args.replay.is_some() {
        true => run.all(&mut sides, cases.into_iter()),
        false => thread::scope(|scope| {
            let (sender, cases) = sync_channel(QUEUED_CASES);
            let args = &args;
            let generator = thread::Builder::new()
                .stack_size(GENERATOR_STACK)
                .spawn_scoped(scope, move || {
                    for case in generated(args) {
                        if sender.send(case).is_err() {
                            return;
                        }
                    }
                });
            match generator {
                Ok(_) => run.all(&mut sides, cases.into_iter()),
                Err(e) => Some(format!("the case generator could not start: {e}")),
            }
        }),
    };
    for side in &mut sides {
        side.stop();
    }
    if let Some(saved) = run.saved.take() {
        saved.finish()?;
    }
    Ok(run.summary(&sides, started.elapsed(), halted))
}

/// Starts both implementations; a failure stops the one already started.
fn start_both(args: &Args) -> Result<[Side; 2], String> {
    let deadlines = Deadlines {
        case: args.timeout,
        handshake: args.handshake_timeout,
    };
    let command = |c: &Option<String>| c.clone().unwrap_or_default();
    let a = Side::start("a", &command(&args.a), deadlines)?;
    match Side::start("b", &command(&args.b), deadlines) {
        Ok(b) => Ok([a, b]),
        Err(message) => {
            let mut a = a;
            a.stop();
            Err(message)
        }
    }
}

/// The ops a run covers, in report order.
fn ops(args: &Args) -> Vec<&'static str> {
    OPS.into_iter()
        .filter(|op| args.op == "all" || args.op == *op)
        .collect()
}

/// The generated cases: `count` of each op, in order.
fn generated(args: &Args) -> impl Iterator<Item = Case> + '_ {
    ops(args).into_iter().flat_map(move |op| {
        (0..args.count).filter_map(move |index| generate(&args.seed, op, index))
    })
}

/// Prints both handshakes; returns the mismatches that count as differences.
fn handshake_report(sides: &[Side; 2], profile_check: bool) -> usize {
    for side in sides {
        let hello = side.hello();
        println!(
            "{} = {}: {} {} ({}), profile {}",
            side.label, side.command, hello.name, hello.version, hello.language, hello.profile
        );
    }
    let (a, b) = (sides[0].hello(), sides[1].hello());
    let sorted = |items: &[String]| {
        let mut items = items.to_vec();
        items.sort();
        items
    };
    let mut mismatches = Vec::new();
    if a.profile != b.profile {
        mismatches.push(format!("profile differs: a {}, b {}", a.profile, b.profile));
    }
    for (key, left, right) in [
        ("ops", &a.ops, &b.ops),
        ("dialects", &a.dialects, &b.dialects),
    ] {
        if sorted(left) != sorted(right) {
            mismatches.push(format!("{key} differ: a {left:?}, b {right:?}"));
        }
    }
    for mismatch in &mismatches {
        println!("handshake {mismatch}");
    }
    if profile_check { mismatches.len() } else { 0 }
}

impl Run<'_> {
    /// Sends every case; the error is why the run stopped early.
    fn all(&mut self, sides: &mut [Side; 2], cases: impl Iterator<Item = Case>) -> Option<String> {
        for case in cases {
            if let Err(why) = self.one(sides, &case) {
                return Some(why);
            }
        }
        None
    }

    /// Sends one case (when both declare what it needs) and counts its outcome.
    fn one(&mut self, sides: &mut [Side; 2], case: &Case) -> Result<(), String> {
        if !declared::sent(case, sides[0].hello(), sides[1].hello()) {
            self.tally.add(&case.op, &case.family, Outcome::NotSent);
            return Ok(());
        }
        self.seq += 1;
        let replies = exchange_both(sides, self.seq, &case.op, &case.input)?;
        let outcome = judge(&replies, &case.op, &case.family);
        self.tally.add(&case.op, &case.family, outcome);
        if outcome == Outcome::Different {
            self.differences += 1;
            self.show(case, &replies)?;
        }
        match sides.iter().find(|s| s.restarts > self.args.max_restarts) {
            Some(side) => Err(format!(
                "{} was restarted more than {} times (--max-restarts); the run stops here",
                side.label, self.args.max_restarts
            )),
            None => Ok(()),
        }
    }

    /// Prints one difference, and saves it when asked.
    fn show(&mut self, case: &Case, replies: &[Reply; 2]) -> Result<(), String> {
        let answers = [
            reply_value(&replies[0], self.seq),
            reply_value(&replies[1], self.seq),
        ];
        let limit = self.args.show_chars;
        println!(
            "\nDIFFERENCE #{}: {}/{} case {} (seed {})",
            self.differences, case.op, case.family, case.index, self.args.seed
        );
        println!("  input: {}", shorten(&encode_line(&case.input), limit));
        for (label, answer) in ["a", "b"].iter().zip(&answers) {
            println!("  {label}: {}", shorten(&encode_line(answer), limit));
        }
        match &mut self.saved {
            Some(saved) => saved.write(case, &self.args.seed, &answers),
            None => Ok(()),
        }
    }

    /// Prints the counts and returns the exit status.
    fn summary(&self, sides: &[Side; 2], elapsed: Duration, halted: Option<String>) -> Exit {
        println!(
            "\n{} cases sent in {:.1} s",
            self.seq,
            elapsed.as_secs_f64()
        );
        for line in self.tally.lines(&ops(self.args)) {
            println!("{line}");
        }
        for side in sides.iter().filter(|s| s.restarts > 0) {
            println!(
                "{} was restarted {} time(s) after a crash or timeout",
                side.label, side.restarts
            );
        }
        let both_errored = self.tally.total(Outcome::BothErrored);
        let compared = self.tally.compared();
        println!(
            "{} difference(s), {both_errored} case(s) both refused, {compared} compared",
            self.differences
        );
        let mut failed = self.differences > 0 || both_errored > 0;
        if let Some(why) = halted {
            println!("stopped early: {why}");
            failed = true;
        }
        if compared < self.args.min_compared {
            println!(
                "only {compared} cases were compared; at least {} are required",
                self.args.min_compared
            );
            failed = true;
        }
        if failed { Exit::FAILURE } else { Exit::SUCCESS }
    }
}

/// `text`, cut to `limit` characters with a note of how many were left out.
fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((at, _)) => {
            let more = text[at..].chars().count();
            format!("{}... [{more} more chars]", &text[..at])
        }
        None => text.to_owned(),
    }
}
