//! Streaming salvage equals batch salvage for every chunking: over every single cut of
//! replies from the grammar, and over random chunkings of longer ones (`stream`).
//! `PROPTEST_CASES` sets the number of cases per property (default 16; CI's fuzz step
//! runs more).

use arbitrary::Unstructured;
mod support;

use proptest::prelude::*;

use toolfix::salvage::{Allowlist, Content};
use toolfix::{Adapter, Profile};
use toolfix_fuzzing::choice::Mode;
use toolfix_fuzzing::reply::{Rendered, Reply};
use toolfix_fuzzing::stream::{agrees_with_batch, cuts_from};

/// Replies of `mode`, rendered, with their tools.
fn replies(mode: Mode, max: usize) -> impl Strategy<Value = (Allowlist, Rendered)> {
    proptest::collection::vec(any::<u8>(), 0..max).prop_map(move |bytes| {
        let reply = Reply::generate(&mut Unstructured::new(&bytes), mode)
            .expect("the grammar reads any bytes");
        (reply.offered.allowlist(), reply.render())
    })
}

/// Streams `text` cut at `cuts` through `adapter` under every profile.
fn agrees_through(
    adapter: Adapter,
    text: &str,
    cuts: &[usize],
    tools: &Allowlist,
) -> Result<(), TestCaseError> {
    for profile in Profile::ALL {
        let checked = agrees_with_batch(Content::from(text), cuts, tools, adapter, profile);
        prop_assert!(checked.is_ok(), "{}\nreply: {text:?}", checked.unwrap_err());
    }
    Ok(())
}

/// Through `ollama`, an adapter that salvages (`local` salvages the same way).
fn agrees(text: &str, cuts: &[usize], tools: &Allowlist) -> Result<(), TestCaseError> {
    agrees_through(Adapter::Ollama, text, cuts, tools)
}

proptest! {
    #![proptest_config(support::config(16))]

    /// Two chunks, cut at every code point boundary.
    #[test]
    fn every_single_cut((tools, rendered) in replies(Mode::Hostile, 128)) {
        let text = &rendered.text;
        for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            agrees(text, &[cut], &tools)?;
        }
    }

    /// One code point per chunk.
    #[test]
    fn one_code_point_per_chunk((tools, rendered) in replies(Mode::Hostile, 512)) {
        let text = &rendered.text;
        let cuts: Vec<usize> = (1..text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        agrees(text, &cuts, &tools)?;
    }

    /// Through an adapter that does not salvage, every chunk is text and nothing is a call.
    #[test]
    fn hosted_adapters_show_everything(
        (tools, rendered) in replies(Mode::Hostile, 512),
        choices in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let cuts = cuts_from(rendered.text.as_bytes(), &choices);
        agrees_through(Adapter::Default, &rendered.text, &cuts, &tools)?;
    }

    /// Random chunkings, clean and hostile replies.
    #[test]
    fn random_chunkings(
        (tools, rendered) in prop_oneof![replies(Mode::Hostile, 1024), replies(Mode::Clean, 1024)],
        choices in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let cuts = cuts_from(rendered.text.as_bytes(), &choices);
        agrees(&rendered.text, &cuts, &tools)?;
    }
}
