//! The `toolfix` command: the reference over the protocol, the conformance runner, and
//! tools for a person at a terminal. Command-line parsing (clap) here, one module per
//! subcommand.
//!
//! The binary (`main.rs`) and the Python package's `toolfix` command both call [`run`],
//! so the two are the same program.

mod conform;
mod diff;
mod proxy;
mod repair;
mod report;
mod salvage;
mod serve;
mod shadow;
mod smoke;

use std::ffi::OsString;
use std::process::ExitCode;
use std::thread;

use clap::{Parser, Subcommand};

/// The stack the command runs on. Protocol lines may nest values up to 4096 containers
/// deep (`toolfix_harness::protocol::wire`), and a few operations on such values (cloning,
/// comparing, wrapping for the wire) recurse once per level; 64 MiB of address space keeps
/// that safe in debug builds too, and costs nothing until touched.
const STACK: usize = 64 << 20;

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
    /// Compare two implementations on generated inputs (docs/differential.md).
    Diff(Box<diff::Args>),
    /// Stand in front of an OpenAI-compatible server and repair its tool calls (docs/proxy.md).
    Proxy(proxy::Args),
}

/// A process exit status: 0 on success, 1 for a run that did not conform, 2 for a usage
/// or setup error, 3 for an implementation that did not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exit(u8);

impl Exit {
    /// Success.
    pub const SUCCESS: Exit = Exit(0);
    /// The run finished and did not conform (or a check failed).
    pub const FAILURE: Exit = Exit(1);

    /// The status as a number.
    pub fn code(self) -> u8 {
        self.0
    }
}

impl From<u8> for Exit {
    fn from(code: u8) -> Exit {
        Exit(code)
    }
}

/// Runs the command line `args` (the program name first) on a thread with a large stack,
/// and returns the exit status for the process.
pub fn run<I>(args: I) -> ExitCode
where
    I: IntoIterator<Item = OsString> + Send + 'static,
{
    ExitCode::from(run_status(args).code())
}

/// [`run`], with the status as a value (the Python package's `toolfix` script returns it
/// to the interpreter).
pub fn run_status<I>(args: I) -> Exit
where
    I: IntoIterator<Item = OsString> + Send + 'static,
{
    thread::Builder::new()
        .name("toolfix".into())
        .stack_size(STACK)
        .spawn(move || dispatch(args))
        .and_then(|worker| worker.join().map_err(|_| std::io::Error::other("panicked")))
        .unwrap_or(Exit::FAILURE)
}

/// Parses the command line and runs the subcommand. Help, the version and usage errors
/// are printed and returned as a status, never by exiting the process (the Python
/// package runs this inside its interpreter).
fn dispatch(args: impl IntoIterator<Item = OsString>) -> Exit {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return Exit::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Salvage(args) => salvage::run(args),
        Command::Repair(args) => repair::run(args),
        Command::Conform(args) => conform::run(*args),
        Command::Smoke(args) => smoke::run(args),
        Command::Report(args) => report::run(args),
        Command::Diff(args) => diff::run(*args),
        Command::Proxy(args) => proxy::run(args),
    };
    result.unwrap_or_else(|message| {
        eprintln!("toolfix: {message}");
        Exit::from(2)
    })
}
