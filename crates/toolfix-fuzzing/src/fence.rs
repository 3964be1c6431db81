//! Markdown code fences around part of a reply: what masking must blank.
//!
//! A fence is a run of three or more backticks or tildes; it closes at the next
//! occurrence of exactly that run (a longer closing run leaves its extra characters
//! behind), and an unclosed fence runs to the end of the reply.

use arbitrary::Result;

use super::choice::Gen;

/// How a fence ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Close {
    /// The same run.
    Same,
    /// A run `n` characters longer (its first characters close the fence).
    Longer(usize),
    /// A run one character shorter, which closes nothing.
    Shorter,
    /// A run of the other character, which closes nothing.
    OtherMark,
    /// No closing run at all.
    Unclosed,
}

/// A fence: its character, length, info string, layout and end.
#[derive(Clone, Debug)]
pub struct Fence {
    pub mark: char,
    pub len: usize,
    /// The info string after a block fence's opening run (`json`, `xml`).
    pub info: &'static str,
    /// Whether the fence is inline (no line breaks around its body).
    pub inline: bool,
    pub close: Close,
}

impl Fence {
    /// A fence; clean replies close every fence, with a run at most two characters
    /// longer, so what is left of the closing run can never open another fence.
    pub fn generate(g: &mut Gen<'_, '_>) -> Result<Fence> {
        let close = if g.hostile() {
            g.pick(&[
                Close::Same,
                Close::Longer(1),
                Close::Longer(3),
                Close::Shorter,
                Close::OtherMark,
                Close::Unclosed,
            ])?
        } else {
            g.pick(&[Close::Same, Close::Longer(1), Close::Longer(2)])?
        };
        Ok(Fence {
            mark: g.pick(&['`', '~'])?,
            len: 3 + g.upto(if g.hostile() { 5 } else { 2 })?,
            info: g.pick(&["", "json", "xml", "python", "text"])?,
            inline: g.any()?,
            close,
        })
    }

    /// Appends the opening run.
    pub fn open(&self, out: &mut String) {
        push_run(out, self.mark, self.len);
        if !self.inline {
            out.push_str(self.info);
            out.push('\n');
        }
    }

    /// Appends the closing run, if any.
    pub fn close(&self, out: &mut String) {
        if !self.inline {
            out.push('\n');
        }
        match self.close {
            Close::Same => push_run(out, self.mark, self.len),
            Close::Longer(n) => push_run(out, self.mark, self.len + n),
            Close::Shorter => push_run(out, self.mark, self.len - 1),
            Close::OtherMark => push_run(out, if self.mark == '`' { '~' } else { '`' }, self.len),
            Close::Unclosed => {}
        }
    }
}

/// Appends `n` copies of `mark`.
fn push_run(out: &mut String, mark: char, n: usize) {
    out.extend(std::iter::repeat_n(mark, n));
}
