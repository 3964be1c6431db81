//! What both salvage targets make of the fuzzer's bytes: the tools offered to byte
//! inputs, and the reply the bytes choose from the grammar.

use arbitrary::Unstructured;

use crate::choice::Mode;
use crate::reply::{Rendered, Reply};
use toolfix::salvage::Allowlist;

/// The tools offered to byte inputs: the names the spec cases and the corpus call most.
const TOOLS: [&str; 8] = [
    "get_weather",
    "get_time",
    "web_search",
    "search",
    "calc",
    "calculator",
    "read_file",
    "a",
];

/// The tools offered to byte inputs: `TOOLS`, and when `every_word`, every word of the
/// text that could be a name, so a seed reaches the accepting paths whatever tools its
/// calls name (the other inputs keep `TOOLS` as the only names, which keeps the
/// rejecting paths as busy).
pub fn offered(text: &str, every_word: bool) -> Allowlist {
    let words = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .take(if every_word { 256 } else { 0 });
    Allowlist::new(TOOLS.into_iter().chain(words))
}

/// A reply from the grammar, clean or hostile by the first choice, rendered, with the
/// tools it offers; `None` when the bytes run out before a reply is chosen.
pub fn grammar_reply(data: &[u8]) -> Option<(Mode, Rendered, Allowlist)> {
    let mut u = Unstructured::new(data);
    let mode = match u.arbitrary::<bool>() {
        Ok(true) => Mode::Clean,
        _ => Mode::Hostile,
    };
    let reply = Reply::generate(&mut u, mode).ok()?;
    Some((mode, reply.render(), reply.offered.allowlist()))
}
