//! The `toolfix` command line: the reference over the protocol, the conformance runner,
//! and tools for a person at a terminal.

mod cli;

use std::process::ExitCode;
use std::thread;

/// The stack the command runs on. Protocol lines may nest values up to 4096 containers
/// deep (`protocol::wire`), and a few operations on such values (cloning, comparing,
/// wrapping for the wire) recurse once per level; 64 MiB of address space keeps that safe
/// in debug builds too, and costs nothing until touched.
const STACK: usize = 64 << 20;

fn main() -> ExitCode {
    thread::Builder::new()
        .name("toolfix".into())
        .stack_size(STACK)
        .spawn(cli::main)
        .and_then(|worker| worker.join().map_err(|_| std::io::Error::other("panicked")))
        .unwrap_or(ExitCode::FAILURE)
}
