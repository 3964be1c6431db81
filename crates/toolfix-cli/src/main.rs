//! The `toolfix` binary: the command line of `toolfix_cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    toolfix_cli::run(std::env::args_os().collect::<Vec<_>>())
}
