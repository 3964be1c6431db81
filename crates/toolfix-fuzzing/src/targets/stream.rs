//! The `stream` target: a reply cut into chunks at points the fuzzer picks, streamed under
//! every profile; the calls, the error and the displayable text must be batch salvage's.

use arbitrary::Unstructured;

use crate::choice::Mode;
use crate::reply::Reply;
use crate::stream::{agrees_with_batch, cuts_from};
use crate::text::py_str_from_bytes;
use toolfix::salvage::{Allowlist, Content};
use toolfix::{Adapter, Profile};

/// The first byte picks the cutting; the rest is the reply, as a Python `str` or as the
/// choices of a reply from the grammar, streamed under one profile. Which view and
/// profile, the length picks (one byte more or less changes it): streaming every view
/// under every profile made six streams and six batch salvages of each input.
pub fn stream(data: &[u8]) {
    stream_as(data, data.len() % PICKS);
}

/// How many ways `stream` reads an input: two views under each profile.
const PICKS: usize = 2 * Profile::ALL.len();

/// `stream` every way, for replaying a committed input: whatever its length, it keeps
/// being checked the way it was when it was found.
pub fn stream_every_pick(data: &[u8]) {
    for pick in 0..PICKS {
        stream_as(data, pick);
    }
}

fn stream_as(data: &[u8], pick: usize) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let choices: Vec<u8> = rest.iter().map(|b| b.wrapping_add(seed)).collect();
    let profile = Profile::ALL[pick % Profile::ALL.len()];
    if pick / Profile::ALL.len() == 0 {
        let text = py_str_from_bytes(rest);
        let tools = Allowlist::new(["get_weather", "search", "a", "calc"]);
        check(Content::from(&text), &choices, &tools, profile);
    } else if let Ok(reply) = Reply::generate(&mut Unstructured::new(rest), Mode::Hostile) {
        let rendered = reply.render();
        let tools = reply.offered.allowlist();
        check(
            Content::from(rendered.text.as_str()),
            &choices,
            &tools,
            profile,
        );
    }
}

fn check(text: Content<'_>, choices: &[u8], tools: &Allowlist, profile: Profile) {
    let cuts = cuts_from(text.as_bytes(), choices);
    if let Err(violation) = agrees_with_batch(text, &cuts, tools, Adapter::Ollama, profile) {
        panic!(
            "{violation}\nreply: {:?}",
            String::from_utf8_lossy(text.as_bytes())
        );
    }
}
