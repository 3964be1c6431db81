//! The `toolfix` command line: the reference over the protocol, the conformance runner,
//! and tools for a person at a terminal.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
