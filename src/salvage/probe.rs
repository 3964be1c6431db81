//! The marker probe: the cheap test that lets clean replies skip every scanner.
//!
//! The real package lowercases the whole reply (`str.lower()`) and looks for six markers
//! as substrings: `<tool_call>`, `<function=`, `[tool_call]`, `[tool_request]`,
//! `<|python_tag|>`, `action`. Every marker is ASCII, and the only non-ASCII code points
//! whose `lower()` contains ASCII are `İ` (to `i` + U+0307, which breaks any marker it
//! lands in) and `K` (to `k`, in no marker), so the probe is exactly an ASCII
//! case-insensitive search of the raw bytes. It allocates nothing.

use memchr::memchr2_iter;

/// The markers, lowercase.
pub const MARKERS: [&[u8]; 6] = [
    b"<tool_call>",
    b"<function=",
    b"[tool_call]",
    b"[tool_request]",
    b"<|python_tag|>",
    b"action",
];

/// Whether `text.lower()` contains a marker.
pub fn has_marker(text: &[u8]) -> bool {
    has_tag_marker(text) || has_action(text)
}

/// The five markers that start with `<` or `[`.
fn has_tag_marker(text: &[u8]) -> bool {
    memchr2_iter(b'<', b'[', text).any(|i| {
        MARKERS[..5]
            .iter()
            .any(|m| starts_with_ignore_case(&text[i..], m))
    })
}

/// `action`, in any ASCII case, found through its second letter (rarer in prose than `a`).
fn has_action(text: &[u8]) -> bool {
    memchr2_iter(b'c', b'C', text)
        .any(|i| i >= 1 && starts_with_ignore_case(&text[i - 1..], b"action"))
}

fn starts_with_ignore_case(text: &[u8], marker: &[u8]) -> bool {
    text.len() >= marker.len() && text[..marker.len()].eq_ignore_ascii_case(marker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_marker_in_any_ascii_case() {
        for text in [
            "x <TOOL_CALL> y",
            "<Function=a>",
            "[Tool_Request]",
            "<|PYTHON_TAG|>",
            "a transaction",
            "ACTION",
        ] {
            assert!(has_marker(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn ignores_near_misses() {
        for text in [
            "<tool call>",
            "act ion",
            "Ａction",
            "actİon",
            "<functıon=",
            "plain prose",
        ] {
            assert!(!has_marker(text.as_bytes()), "{text}");
        }
    }
}
