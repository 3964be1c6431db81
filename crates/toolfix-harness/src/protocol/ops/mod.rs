//! The ops the reference implements: each reads its protocol input, calls the library,
//! and shapes the output as `docs/protocol.md` says.

mod execute;
mod format_result;
mod salvage;
mod salvage_stream;
mod turn;

pub use salvage::tool_entries;

use super::message::Answer;
use toolfix::Profile;
use toolfix::py::Value;
use toolfix::salvage::template::Template;

/// The ops `toolfix serve` declares in its handshake.
pub const OPS: [&str; 5] = [
    "salvage",
    "salvage_stream",
    "execute",
    "format_result",
    "turn",
];

/// Runs `op` on `input`. A malformed input is an `errored` answer.
pub fn run(op: &str, input: &Value, profile: Profile) -> Answer {
    run_with_template(op, input, profile, None)
}

/// [`run`], the salvage ops reading a reply as `template` declares when the input names
/// no template of its own (`toolfix serve --dialect`).
pub fn run_with_template(
    op: &str,
    input: &Value,
    profile: Profile,
    template: Option<&Template>,
) -> Answer {
    let result = match op {
        "salvage" => salvage::run(input, profile, template),
        "salvage_stream" => salvage_stream::run(input, profile, template),
        "execute" => execute::run(input, profile),
        "format_result" => format_result::run(input, profile),
        "turn" => turn::run(input, profile),
        other => Err(format!("unknown op {other:?}")),
    };
    match result {
        Ok(output) => Answer::Output(output),
        Err(message) => Answer::Errored(message),
    }
}
