//! `toolfix serve`: the reference implementation speaking the driver protocol.

use crate::Exit;
use std::io;

use toolfix::Profile;
use toolfix_harness::protocol::server::serve;

#[derive(clap::Args)]
pub struct Args {
    /// The behaviour to serve.
    #[arg(long, default_value = "praisonai")]
    profile: Profile,
}

pub fn run(args: Args) -> Result<Exit, String> {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    serve(args.profile, stdin, stdout).map_err(|e| format!("serve: {e}"))?;
    Ok(Exit::SUCCESS)
}
