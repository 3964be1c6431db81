//! `toolfix proxy`: the reference in front of an OpenAI-compatible server, repairing the
//! tool calls its replies write as text (docs/proxy.md).

use crate::Exit;
use std::net::SocketAddr;
use std::path::PathBuf;

use toolfix::Profile;
use toolfix_proxy::{Config, Upstream};

#[derive(clap::Args)]
pub struct Args {
    /// The base URL an OpenAI client would be given for the server, such as
    /// http://localhost:11434/v1 (plain http).
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// Where clients connect: give them http://ADDRESS/v1 as their base URL.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:8088")]
    listen: SocketAddr,
    /// The salvage profile: strict or portable.
    #[arg(long, default_value = "strict")]
    profile: Profile,
    /// Shadow mode: change nothing, and append each reply where the server's calls and
    /// toolfix's disagree to FILE as a JSON line.
    #[arg(long, value_name = "FILE")]
    shadow: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, String> {
    if args.profile == Profile::PraisonAi {
        return Err("proxy: --profile must be strict or portable".into());
    }
    let mut config = Config::new(Upstream::parse(&args.upstream)?);
    config.profile = args.profile;
    config.shadow = args.shadow;
    toolfix_proxy::run(config, args.listen).map_err(|e| format!("proxy: {e}"))?;
    Ok(Exit::SUCCESS)
}
