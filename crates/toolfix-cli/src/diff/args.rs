//! The command line of `toolfix diff`.

use std::time::Duration;

use crate::conform::seconds;

#[derive(clap::Args)]
pub struct Args {
    /// The command of implementation a, split shell-style.
    #[arg(long, value_name = "CMD", required_unless_present = "write_cases")]
    pub a: Option<String>,
    /// The command of implementation b.
    #[arg(long, value_name = "CMD", required_unless_present = "write_cases")]
    pub b: Option<String>,
    /// The op whose cases are sent.
    #[arg(long, default_value = "all", value_parser = ["salvage", "execute", "format_result", "all"])]
    pub op: String,
    /// Cases generated per op.
    #[arg(long, default_value_t = 200)]
    pub count: u64,
    /// The seed: case i of op X is generated from "SEED/X/i" alone.
    #[arg(long, default_value = "0")]
    pub seed: String,
    /// Fail when fewer cases than this were answered by both and compared.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub min_compared: usize,
    /// Count handshake differences (profile, ops, dialects) as differences.
    #[arg(long)]
    pub profile_check: bool,
    /// Write the differing cases, with both answers, to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub save_diffs: Option<String>,
    /// Send the cases of a --save-diffs or --write-cases file instead of generating any.
    #[arg(long, value_name = "FILE")]
    pub replay: Option<String>,
    /// Only write the generated cases to FILE (`-`: stdout) as JSON lines, and exit.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["a", "b", "replay", "save_diffs"])]
    pub write_cases: Option<String>,
    /// Seconds one answer may take.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = seconds)]
    pub timeout: Duration,
    /// Seconds an implementation may take to start and answer the handshake.
    #[arg(long, value_name = "SECS", default_value = "600", value_parser = seconds)]
    pub handshake_timeout: Duration,
    /// How many times one implementation is restarted after a crash or timeout before
    /// the run stops.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_restarts: u32,
    /// Truncate each printed input and answer to this many characters.
    #[arg(long, value_name = "N", default_value_t = 3000)]
    pub show_chars: usize,
}
