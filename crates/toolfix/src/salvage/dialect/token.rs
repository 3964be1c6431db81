//! What the token dialects (the ones only `strict` and `portable` recover) share: exact
//! special tokens, found with `memchr::memmem`, and blocks delimited by an opening and a
//! closing token, found in one pass.
//!
//! A special token is matched exactly as the model's template writes it. Finding the
//! closer of every opener with a search over the rest of the reply would be quadratic
//! on a reply full of openers and no closer; `Blocks` searches forward only, from where
//! the last block ended.

use std::ops::Range;

use memchr::memmem;

use super::super::text::skip_space;

/// The end of `token` when it starts at `i`.
#[inline]
pub fn at(text: &[u8], i: usize, token: &[u8]) -> Option<usize> {
    text.get(i..)?.starts_with(token).then_some(i + token.len())
}

/// The occurrences of a marker that a scanner reads from, each searched for from where
/// reading the last one ended (`next(from)`).
///
/// A flood of markers written one after another (`functools[functools[…`, a chain of
/// calls, blocks one after another) is looked at where reading ended before the search
/// runs, which costs a few hundred instructions a match; and a search never walks
/// through text already read, where a prefilter may stop at every call (`[` … `]` for
/// `[TOOL_CALLS]`).
pub struct Markers<'t> {
    text: &'t [u8],
    marker: &'t [u8],
    finder: memmem::Finder<'t>,
}

impl<'t> Markers<'t> {
    /// The occurrences of `marker` in `text`.
    pub fn new(text: &'t [u8], marker: &'t [u8]) -> Markers<'t> {
        Markers {
            text,
            marker,
            finder: memmem::Finder::new(marker),
        }
    }

    /// The first occurrence at or after `from`.
    pub fn next(&self, from: usize) -> Option<usize> {
        let rest = self.text.get(from..)?;
        match rest.starts_with(self.marker) {
            true => Some(from),
            false => self.finder.find(rest).map(|i| from + i),
        }
    }
}

/// The first `token` in `text`, found by its first byte: for a token that is usually
/// near (the end of a short string), cheaper than setting up a `memmem` search each
/// time, and still linear, since a token is a few bytes long.
pub fn find_near(text: &[u8], token: &[u8]) -> Option<usize> {
    let (&first, _) = token.split_first()?;
    memchr::memchr_iter(first, text).find(|&i| text[i..].starts_with(token))
}

/// Whether the text from `i` (after whitespace) to its end could still become `token`:
/// it is whitespace only, or a proper beginning of `token`. A read that stopped there
/// waits for more of a streamed reply.
pub fn token_may_follow(text: &[u8], i: usize, token: &[u8]) -> bool {
    let rest = &text[skip_space(text, i).min(text.len())..];
    rest.len() < token.len() && token.starts_with(rest)
}

/// The end of `token` when it starts after the whitespace at `i`.
pub fn after_space(text: &[u8], i: usize, token: &[u8]) -> Option<usize> {
    at(text, skip_space(text, i), token)
}

/// `range` of `text` without the ASCII whitespace at either end.
pub fn trimmed(text: &[u8], range: Range<usize>) -> Range<usize> {
    let body = &text[range.clone()];
    let lead = body.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let trail = body[lead..]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    range.start + lead..range.end - trail
}

/// Every block `OPEN … CLOSE` of `text` whose opener `accept` takes, in order, blocks not
/// overlapping: an opener inside a block is part of that block. A block whose closer never
/// comes runs to the end of the text (`closed` is false then).
pub struct Blocks<'t> {
    text: &'t [u8],
    opens: Markers<'t>,
    closes: Markers<'t>,
    open_len: usize,
    close_len: usize,
    /// Where the next opener is looked for: after the last block, or after an opener
    /// `accept` refused.
    from: usize,
    accept: fn(&[u8], usize) -> bool,
}

/// One block: its whole span, where its body starts and ends, and whether it was closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub span: Range<usize>,
    pub body: Range<usize>,
    pub closed: bool,
}

impl<'t> Blocks<'t> {
    /// The blocks of `text` that open with `open` (where `accept(text, body_start)`
    /// holds) and close with `close`.
    pub fn new(
        text: &'t [u8],
        open: &'t [u8],
        close: &'t [u8],
        accept: fn(&[u8], usize) -> bool,
    ) -> Blocks<'t> {
        Blocks {
            text,
            opens: Markers::new(text, open),
            closes: Markers::new(text, close),
            open_len: open.len(),
            close_len: close.len(),
            from: 0,
            accept,
        }
    }
}

impl Iterator for Blocks<'_> {
    type Item = Block;

    fn next(&mut self) -> Option<Block> {
        loop {
            let open = self.opens.next(self.from)?;
            let body = open + self.open_len;
            if !(self.accept)(self.text, body) {
                self.from = open + 1;
                continue;
            }
            // The closer is searched for from the body on, and the next opener after
            // it: every byte is searched through once, whatever the reply holds.
            let block = match self.closes.next(body) {
                Some(close) => Block {
                    span: open..close + self.close_len,
                    body: body..close,
                    closed: true,
                },
                None => Block {
                    span: open..self.text.len(),
                    body: body..self.text.len(),
                    closed: false,
                },
            };
            self.from = block.span.end;
            return Some(block);
        }
    }
}

/// Accepts every opener.
pub fn any(_: &[u8], _: usize) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_pair_openers_with_the_next_closer() {
        let text = b"a<x>1</x> <x>2<x>3</x> <x>4";
        let spans: Vec<_> = Blocks::new(text, b"<x>", b"</x>", any)
            .map(|b| {
                (
                    String::from_utf8_lossy(&text[b.body]).into_owned(),
                    b.closed,
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                ("1".to_owned(), true),
                ("2<x>3".to_owned(), true),
                ("4".to_owned(), false)
            ]
        );
    }

    #[test]
    fn many_openers_without_a_closer_take_one_pass() {
        let text = "<x>".repeat(100_000);
        assert_eq!(
            Blocks::new(text.as_bytes(), b"<x>", b"</x>", any).count(),
            1
        );
    }
}
