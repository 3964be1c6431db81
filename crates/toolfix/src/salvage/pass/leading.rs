//! The reasoning a reply begins with, as the reading decides it: a whole-content payload
//! may follow it (`<think>…</think>{…}`), and `salvage` and a stream read the rest of the
//! reply after it as one (`Profile::reads_payload_after_reasoning`).
//!
//! The reply begins with reasoning when the first region the reading decides after only
//! whitespace is a reasoning block, or when an unopened `</think>` makes everything
//! before it reasoning; reasoning blocks that follow after only whitespace extend it (a
//! model that thinks in two blocks has begun its reply with both). Because the reading
//! decides it, a fence or a marker inside an earlier region (a call's arguments, the
//! reasoning itself) is that region's text here too.

use super::super::text::skip_space;

/// What the regions decided so far say about the reasoning the reply begins with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leading {
    /// The text is whitespace up to `to` (at least): reasoning opened after it would
    /// begin the reply.
    Blank {
        /// How far the text is known to be whitespace.
        to: usize,
    },
    /// No payload can follow reasoning the reply begins with: text other than whitespace
    /// came first, or the end of that reasoning was forgotten by a stream that found no
    /// payload after it.
    Absent,
    /// The reply begins with reasoning that ends at `end`.
    Reasoning {
        /// Where the reasoning ends, in the reading's text.
        end: usize,
    },
}

impl Leading {
    /// A reasoning block from `start` to `end` of `text` was decided.
    pub fn block(&mut self, text: &[u8], start: usize, end: usize) {
        let after = match *self {
            Leading::Blank { to } => skip_space(text, to),
            Leading::Reasoning { end } => skip_space(text, end),
            Leading::Absent => return,
        };
        *self = match (after == start, *self) {
            (true, _) => Leading::Reasoning { end },
            (false, Leading::Blank { .. }) => Leading::Absent,
            (false, other) => other,
        };
    }

    /// An unopened `</think>` ending at `end` was decided before any other reasoning:
    /// everything before it was reasoning.
    pub fn unopened_close(&mut self, end: usize) {
        *self = Leading::Reasoning { end };
    }

    /// The reading has decided `text` up to `pos`: text other than whitespace before it
    /// means no reasoning can begin the reply any more.
    pub fn decided(&mut self, text: &[u8], pos: usize) {
        if let Leading::Blank { to } = *self {
            let to = skip_space(text, to);
            *self = match to < pos {
                true => Leading::Absent,
                false => Leading::Blank { to },
            };
        }
    }

    /// The reading's text lost its first `dropped` bytes.
    pub fn forget(&mut self, dropped: usize) {
        *self = match *self {
            Leading::Blank { to } => Leading::Blank {
                to: to.saturating_sub(dropped),
            },
            Leading::Reasoning { end } if end > dropped => {
                Leading::Reasoning { end: end - dropped }
            }
            Leading::Reasoning { .. } | Leading::Absent => Leading::Absent,
        };
    }

    /// Where the reasoning the reply begins with ends, if it does.
    pub fn end(self) -> Option<usize> {
        match self {
            Leading::Reasoning { end } => Some(end),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(text: &str, blocks: &[(usize, usize)]) -> Option<usize> {
        let mut leading = Leading::Blank { to: 0 };
        for &(start, end) in blocks {
            leading.block(text.as_bytes(), start, end);
        }
        leading.end()
    }

    #[test]
    fn reasoning_after_whitespace_begins_the_reply() {
        let text = "\u{85} <think>a</think> {}";
        let start = text.find('<').unwrap();
        assert_eq!(after(text, &[(start, start + 16)]), Some(start + 16));
        assert_eq!(after("x <think>a</think>", &[(2, 18)]), None);
    }

    #[test]
    fn blocks_only_whitespace_separates_are_one_beginning() {
        let text = "<think>a</think>\n<think>b</think>{}";
        assert_eq!(after(text, &[(0, 16), (17, 33)]), Some(33));
        let prose = "<think>a</think> so <think>b</think>{}";
        assert_eq!(after(prose, &[(0, 16), (20, 36)]), Some(16));
    }

    #[test]
    fn prose_decided_first_ends_the_chance() {
        let mut leading = Leading::Blank { to: 0 };
        leading.decided(b"  x <think>", 4);
        assert_eq!(leading, Leading::Absent);
        leading.unopened_close(9);
        assert_eq!(leading.end(), Some(9));
        leading.forget(9);
        assert_eq!(leading, Leading::Absent);
    }
}
