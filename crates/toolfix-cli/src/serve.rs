//! `toolfix serve`: the reference implementation speaking the driver protocol.

use crate::Exit;
use crate::salvage::read_template;
use std::io;
use std::path::PathBuf;

use toolfix::Profile;
use toolfix_harness::protocol::server::serve;

#[derive(clap::Args)]
pub struct Args {
    /// The behaviour to serve.
    #[arg(long, default_value = "praisonai")]
    profile: Profile,
    /// The model's format as a response template (a shipped one's name, or a JSON file):
    /// every salvage request's reply is read as it declares, unless the request names a
    /// template of its own (docs/dialects/README.md, "Your own format").
    #[arg(long, value_name = "NAME|FILE")]
    dialect: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, String> {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    let template = args
        .dialect
        .as_ref()
        .map(|path| read_template(path, args.profile))
        .transpose()?;
    serve((args.profile, template.as_ref()), stdin, stdout).map_err(|e| format!("serve: {e}"))?;
    Ok(Exit::SUCCESS)
}
