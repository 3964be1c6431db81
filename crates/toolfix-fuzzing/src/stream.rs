//! Streaming salvage against batch salvage: the same calls (names, arguments, spans,
//! dialects, ids), the same error, and the displayable text the reply less the calls'
//! spans (all of it under `praisonai`, which shows every chunk as it arrives), for a
//! reply cut at any points.

use toolfix::py::PyStr;
use toolfix::salvage::{Allowlist, Call, Content, Event, Request, StreamUnder, salvage_under};
use toolfix::{Adapter, Profile};

use super::invariants::Violation;

/// Streams `text` cut at `cuts` (sorted byte offsets at code point boundaries) and
/// compares it with batch salvage of `text`.
pub fn agrees_with_batch(
    text: Content<'_>,
    cuts: &[usize],
    tools: &Allowlist,
    adapter: Adapter,
    profile: Profile,
) -> Result<(), Violation> {
    let bytes = text.as_bytes();
    let batch = salvage_under(&Request::new(text, tools).adapter(adapter), profile);
    let (shown, calls, finished) = streamed(bytes, cuts, tools, adapter, profile);
    let context = || format!("under {profile} through {adapter:?}, cut at {cuts:?}");
    match (batch, finished) {
        (Err(want), Err(got)) if want == got => Ok(()),
        (Err(want), got) => Err(format!(
            "batch raised {want:?}, the stream gave {got:?} {}",
            context()
        )),
        (Ok(_), Err(got)) => Err(format!(
            "the stream raised {got:?}, batch did not {}",
            context()
        )),
        (Ok(batch), Ok(())) => {
            if calls != batch {
                return Err(format!(
                    "calls differ {}: stream {calls:?}, batch {batch:?}",
                    context()
                ));
            }
            let expected = match profile.echoes_stream_chunks() {
                true => bytes.to_vec(),
                false => without_spans(bytes, &batch),
            };
            match shown == expected {
                true => Ok(()),
                false => Err(format!(
                    "content differs {}: stream {:?}, expected {:?}",
                    context(),
                    String::from_utf8_lossy(&shown),
                    String::from_utf8_lossy(&expected)
                )),
            }
        }
    }
}

/// What a stream gives for `text` cut at `cuts`: its text, its calls, how it finished.
fn streamed(
    text: &[u8],
    cuts: &[usize],
    tools: &Allowlist,
    adapter: Adapter,
    profile: Profile,
) -> (Vec<u8>, Vec<Call>, Result<(), toolfix::SalvageError>) {
    let mut stream = StreamUnder::new(tools, adapter, profile);
    let (mut shown, mut calls) = (Vec::new(), Vec::new());
    let mut on = |event: Event<'_>| match event {
        Event::Text(t) => shown.extend_from_slice(t.as_bytes()),
        Event::Call(call) => calls.push(call),
    };
    let mut at = 0;
    for &cut in cuts.iter().chain([&text.len()]) {
        let piece = &text[at..cut];
        match std::str::from_utf8(piece) {
            Ok(piece) => stream.feed(piece, &mut on),
            // A Python `str` holding lone surrogates, cut at code point boundaries.
            Err(_) => {
                let piece = PyStr::from_surrogatepass(piece).expect("generalized UTF-8");
                stream.feed(&piece, &mut on);
            }
        }
        at = cut;
    }
    let finished = stream.finish(&mut on);
    (shown, calls, finished)
}

/// `text` without the spans of `calls` (spans of one whole-content payload coincide).
pub fn without_spans(text: &[u8], calls: &[Call]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut from = 0;
    for call in calls {
        let span = call.span();
        out.extend_from_slice(&text[from..span.start.max(from)]);
        from = from.max(span.end);
    }
    out.extend_from_slice(&text[from..]);
    out
}

/// Cut points of `text` drawn from `choices`: each choice byte, read as a gap of 1 to 16
/// code points (0 as a long gap), moves the next cut forward.
pub fn cuts_from(text: &[u8], choices: &[u8]) -> Vec<usize> {
    let starts: Vec<usize> = (1..text.len())
        .filter(|&i| text[i] & 0xC0 != 0x80)
        .collect();
    let mut cuts = Vec::new();
    let mut k = 0;
    for &choice in choices {
        k += match choice % 17 {
            0 => 64,
            gap => usize::from(gap),
        };
        match starts.get(k - 1) {
            Some(&cut) => cuts.push(cut),
            None => break,
        }
    }
    cuts
}
