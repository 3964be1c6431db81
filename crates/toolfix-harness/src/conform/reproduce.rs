//! The command that replays one case against an implementation by hand: the exact
//! protocol lines piped into its command (Bowtie #1319).

use super::driver::run_line;
use crate::protocol::message::Request;
use crate::protocol::wire::encode_line;
use crate::suite::Case;

/// `printf '%s\n' '<hello>' '<run>' | COMMAND`.
pub fn reproduce(command: &str, case: &Case) -> String {
    let hello = encode_line(&Request::hello().to_value());
    let run = run_line(1, &case.op, &case.input);
    format!(
        "printf '%s\\n' {} {} | {command}",
        shell_words::quote(&hello),
        shell_words::quote(&run)
    )
}
