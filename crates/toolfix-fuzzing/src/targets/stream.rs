//! The `stream` target: a reply cut into chunks at points the fuzzer picks, streamed under
//! every profile; the calls, the error and the displayable text must be batch salvage's.

use arbitrary::Unstructured;

use crate::choice::Mode;
use crate::reply::Reply;
use crate::stream::{agrees_with_batch, cuts_from};
use crate::text::py_str_from_bytes;
use toolfix::salvage::{Allowlist, Content};
use toolfix::{Adapter, Profile};

/// The first byte picks the cutting; the rest is the reply, as a Python `str` and as the
/// choices of a reply from the grammar.
pub fn stream(data: &[u8]) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let choices: Vec<u8> = rest.iter().map(|b| b.wrapping_add(seed)).collect();
    let text = py_str_from_bytes(rest);
    let tools = Allowlist::new(["get_weather", "search", "a", "calc"]);
    check(Content::from(&text), &choices, &tools);
    if let Ok(reply) = Reply::generate(&mut Unstructured::new(rest), Mode::Hostile) {
        let rendered = reply.render();
        check(
            Content::from(rendered.text.as_str()),
            &choices,
            &reply.offered.allowlist(),
        );
    }
}

fn check(text: Content<'_>, choices: &[u8], tools: &Allowlist) {
    let cuts = cuts_from(text.as_bytes(), choices);
    for profile in Profile::ALL {
        if let Err(violation) = agrees_with_batch(text, &cuts, tools, Adapter::Ollama, profile) {
            panic!("{violation}");
        }
    }
}
