//! Command-line parsing (clap) and one module per subcommand.

mod conform;
mod repair;
mod report;
mod salvage;
mod serve;
mod smoke;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Making LLM tool calls that go wrong safe and repairable, and proving it.
#[derive(Parser)]
#[command(name = "toolfix", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak the driver protocol (docs/protocol.md) on stdin/stdout as the reference.
    Serve(serve::Args),
    /// Recover the tool calls written as text in a model reply, and print them.
    Salvage(salvage::Args),
    /// Dispatch one call against a few tools: name repair, corrective errors, bind hints.
    Repair(repair::Args),
    /// Run the conformance suite against an implementation (docs/conform.md).
    Conform(Box<conform::Args>),
    /// Check an implementation's driver with a few trivial cases before a full run.
    Smoke(smoke::Args),
    /// Combine JSON-lines reports of several runs into HTML or Markdown.
    Report(report::Args),
}

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Salvage(args) => salvage::run(args),
        Command::Repair(args) => repair::run(args),
        Command::Conform(args) => conform::run(*args),
        Command::Smoke(args) => smoke::run(args),
        Command::Report(args) => report::run(args),
    };
    result.unwrap_or_else(|message| {
        eprintln!("toolfix: {message}");
        ExitCode::from(2)
    })
}
