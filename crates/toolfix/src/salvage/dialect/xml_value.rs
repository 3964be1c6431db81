//! Where a value ends in the formats that write arguments between tags with no escaping:
//! Qwen3 XML (`<parameter=K>V</parameter>`), GLM (`<arg_value>V</arg_value>`), MiniMax and
//! DeepSeek V3.2's DSML (`<parameter name="K">V</parameter>`).
//!
//! Nothing in those formats escapes a closing tag inside a value, and the values are where
//! models write code, XML and documentation about tool calls. Ending a value at the first
//! closing tag, as the engines do, cuts such a value short and runs the tool with
//! arguments the model did not write (`docs/guarantees.md` G4). So a value ends at the
//! first closing tag that
//!
//! * closes no tag opened inside the value: a value holding a whole example call
//!   (`<function=f><parameter=x>1</parameter></function>`) keeps it, because each of its
//!   closers pairs with its opener;
//! * and is followed, after whitespace, by what the format writes after a value (the next
//!   parameter, or the end of the call): a closing tag inside code (`"</parameter>"`) or
//!   prose is text.
//!
//! The call's own closing tag (`</function>`) reached before that, and not paired with an
//! opener inside the value, means the value has no closing tag of its own, or that text
//! follows it: the call ends there, so one broken call does not swallow the calls after
//! it. When the value holds no closing tag of the format that is text (one that could
//! have been its own closer, followed by stray text), the model only left the closer out
//! (`<parameter=city>Oslo</function>`, as small models do and every engine reads): the
//! format may read the value up to the call's closer (`End::Unclosed`). Otherwise the
//! call is malformed. A value that reaches the end of the reply is unclosed (cut off).
//!
//! Qwen3 XML goes further, because its template puts every tag on a line of its own and
//! the call's closer is followed only by `</tool_call>`, another call or the end
//! (`ValueSyntax::outer_follows`, `ValueSyntax::line_tags`): a `</function>` followed by
//! anything else is text (`const end = "</function>";`), a `<parameter=KEY>` inside a
//! line is text (`x = "<parameter=name>"`), and one that begins a line opens the next
//! parameter, so the value before it left its closer out (`End::Next`).
//!
//! Every search moves forward through the text (a value's end by its tags' `<`, a
//! block's closer with a `Finder`), so scanning a reply costs one pass whatever it holds.

use memchr::memchr;
use memchr::memmem::{self, FindIter};

use super::super::span::Found;
use super::super::text::skip_space;
use super::MAX_NAME;

/// The occurrences of one token, found in one forward pass.
pub struct Finder<'t> {
    iter: FindIter<'t, 't>,
    next: Option<usize>,
    done: bool,
}

impl<'t> Finder<'t> {
    /// The occurrences of `token` in `text`.
    pub fn new(text: &'t [u8], token: &'t [u8]) -> Finder<'t> {
        Finder {
            iter: memmem::find_iter(text, token),
            next: None,
            done: false,
        }
    }

    /// The first occurrence at or after `from`. Calls must not go back: `from` never
    /// decreases from one call to the next.
    pub fn at_or_after(&mut self, from: usize) -> Option<usize> {
        while self.next.is_none_or(|n| n < from) {
            if self.done {
                return None;
            }
            self.next = self.iter.next();
            self.done = self.next.is_none();
        }
        self.next
    }
}

/// How one format writes its values, and the element (the call) that holds them.
pub struct ValueSyntax {
    /// The start of an opening tag that a nested example would write (`<parameter=`).
    pub open: &'static [u8],
    /// The closing tag (`</parameter>`).
    pub close: &'static [u8],
    /// Whether the `open` found at an offset is a tag (and not, say, `"<parameter="` in
    /// code). Each check is given the syntax, so one function serves every format whose
    /// checks are its tags (`invoke`).
    pub is_open_tag: fn(&ValueSyntax, &[u8], usize) -> bool,
    /// Whether what the format writes after a value starts at an offset: the next
    /// parameter's tag, or the end of the call.
    pub follows: fn(&ValueSyntax, &[u8], usize) -> bool,
    /// The start of the opening tag of the element holding the values (`<function=`).
    pub outer_open: &'static [u8],
    /// Whether the `outer_open` found at an offset is a tag.
    pub is_outer_open_tag: fn(&ValueSyntax, &[u8], usize) -> bool,
    /// The element's closing tag (`</function>`).
    pub outer_close: &'static [u8],
    /// What the format writes after the element's closing tag (after whitespace) besides
    /// the end of the reply: where one outside every example closes the element, and
    /// elsewhere it is text. Empty: every one closes it.
    pub outer_follows: &'static [&'static [u8]],
    /// Whether value tags are laid out one per line, as Qwen's template writes them: one
    /// that begins a line, outside every example, opens the next value, and one inside a
    /// line is text. Otherwise value tags opened inside a value pair with its closers.
    pub line_tags: bool,
}

/// How a value ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// At the closing tag that starts at the offset.
    Value(usize),
    /// Never: the element holding it closed first, with the closing tag at the offset,
    /// after a closing tag of the format that is text (a value closer followed by stray
    /// text, or text between a value and the next tag).
    Outer(usize),
    /// Never, and the element closed with the closing tag at the offset, with no closing
    /// tag of the format that is text inside the value (tags it pairs are fine): its own
    /// closing tag was left out, and the value is the text up to the offset.
    Unclosed(usize),
    /// Never: a value tag that begins a line starts at the offset (`line_tags`), with no
    /// closing tag of the format that is text before it: the value's closing tag was
    /// left out, and the value is the text up to the offset.
    Next(usize),
    /// Never, with a closing tag of the format that is text before a place where the
    /// value would end without its own closer (at the offset): it may have been the
    /// value's closer with stray text after it, so the call is malformed.
    Stray(usize),
    /// Never, and no element closed either: the reply was cut off.
    Never,
}

/// The values of one reply, read in text order.
pub struct Values<'t> {
    text: &'t [u8],
    syntax: &'t ValueSyntax,
}

impl<'t> Values<'t> {
    /// The values of `text`, written with `syntax`.
    pub fn new(text: &'t [u8], syntax: &'t ValueSyntax) -> Values<'t> {
        Values { text, syntax }
    }

    /// How the value that starts at `from` ends. Tags opened inside the value (a value
    /// tag, or an element tag of an example call) nest: their closers close them, not the
    /// value. Calls must go forward: each `from` lies after where the previous value (or
    /// element) ended, so each byte is read once.
    ///
    /// Every tag of every format begins with `<` (a unit test holds them to it): one
    /// search for `<` finds the next tag of any of the four kinds, where a search for
    /// each tag would run four searches past each value.
    pub fn end(&mut self, from: usize) -> End {
        let (text, syntax) = (self.text, self.syntax);
        let mut inside = Inside::default();
        let mut at = from;
        while let Some(found) = memchr(b'<', &text[at..]) {
            let pos = at + found;
            let tag = &text[pos..];
            at = pos + 1;
            let ended = if tag.starts_with(syntax.open) {
                inside.value_tag(syntax, text, pos)
            } else if tag.starts_with(syntax.close) {
                at = pos + syntax.close.len();
                inside.value_closer(syntax, text, pos)
            } else if tag.starts_with(syntax.outer_open) {
                inside.outer += usize::from((syntax.is_outer_open_tag)(syntax, text, pos));
                None
            } else if tag.starts_with(syntax.outer_close) {
                at = pos + syntax.outer_close.len();
                inside.outer_closer(syntax, text, pos)
            } else {
                None
            };
            if let Some(end) = ended {
                return end;
            }
        }
        End::Never
    }

    /// Where the value that starts at `from` ends, for a format that reads a last value
    /// whose closer was left out up to the call's closer, when the closer is followed
    /// (after whitespace) by one of `after` or by the end of the reply: what the format
    /// writes after a call. Any other value with no closer of its own rejects its block,
    /// whose span ends after the call's closer or at the end of the text.
    pub fn value_end(&mut self, from: usize, after: &[&[u8]]) -> Result<ValueEnd, Rejected> {
        let closer_len = self.syntax.outer_close.len();
        match self.end(from) {
            End::Value(close) => Ok(ValueEnd::Closed(close)),
            End::Unclosed(close) if ends_or_goes_on_with(self.text, close + closer_len, after) => {
                Ok(ValueEnd::LastUnclosed(close))
            }
            End::Next(next) => Ok(ValueEnd::BeforeNext(next)),
            End::Outer(close) | End::Unclosed(close) => Err(Rejected::Ending(close + closer_len)),
            End::Stray(at) => Err(Rejected::At(at)),
            End::Never => Err(Rejected::Ending(self.text.len())),
        }
    }
}

/// Where a value a block may read ends ([`Values::value_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueEnd {
    /// At its own closing tag, which starts at the offset.
    Closed(usize),
    /// At the call's closer, which starts at the offset: the block's last value, whose
    /// closing tag the model left out.
    LastUnclosed(usize),
    /// At the next value's tag, which starts at the offset: a value whose closing tag the
    /// model left out before the next one (`ValueSyntax::line_tags`).
    BeforeNext(usize),
}

/// What a value's reading has met so far.
#[derive(Default)]
struct Inside {
    /// Value tags opened inside the value and not closed yet.
    depth: usize,
    /// Example calls (element tags) opened inside the value and not closed yet.
    outer: usize,
    /// Whether a closing tag of the format that is text came outside every example: the
    /// value cannot end without its own closer after it.
    stray: bool,
}

impl Inside {
    /// A value tag at `pos`: with `line_tags`, outside every example, one that begins a
    /// line opens the next value and one inside a line is text; otherwise it nests.
    fn value_tag(&mut self, syntax: &ValueSyntax, text: &[u8], pos: usize) -> Option<End> {
        if !(syntax.is_open_tag)(syntax, text, pos) {
            return None;
        }
        if syntax.line_tags && self.outer == 0 {
            return begins_line(text, pos).then(|| self.without_closer(pos, End::Next(pos)));
        }
        self.depth += 1;
        None
    }

    /// A value's closing tag at `pos`: it closes the value when it closes no tag opened
    /// inside and the format goes on after it; one the format does not go on after, and
    /// that closes nothing, is text.
    fn value_closer(&mut self, syntax: &ValueSyntax, text: &[u8], pos: usize) -> Option<End> {
        let continues = (syntax.follows)(syntax, text, skip_space(text, pos + syntax.close.len()));
        if self.depth > 0 {
            self.depth -= 1;
        } else if continues {
            return Some(End::Value(pos));
        } else if self.outer == 0 {
            self.stray = true;
        }
        None
    }

    /// The element's closing tag at `pos`: it closes an example opened inside, or (where
    /// the format goes on after it, `outer_follows`) the call, the value's closer missing.
    fn outer_closer(&mut self, syntax: &ValueSyntax, text: &[u8], pos: usize) -> Option<End> {
        if self.outer > 0 {
            self.outer -= 1;
            return None;
        }
        let after = pos + syntax.outer_close.len();
        if syntax.outer_follows.is_empty()
            || ends_or_goes_on_with(text, after, syntax.outer_follows)
        {
            return Some(match self.stray {
                true => End::Outer(pos),
                false => End::Unclosed(pos),
            });
        }
        self.stray = true;
        None
    }

    /// `end`, where the value ends at `pos` without its own closer, unless a closing tag
    /// that is text came before (`End::Stray`).
    fn without_closer(&self, pos: usize, end: End) -> End {
        match self.stray {
            true => End::Stray(pos),
            false => end,
        }
    }
}

/// Whether the tag at `pos` begins a line: only spaces or tabs since the newline before.
fn begins_line(text: &[u8], pos: usize) -> bool {
    let indent = text[..pos]
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    pos > indent && text[pos - indent - 1] == b'\n'
}

/// The end of a run of name bytes at `i` closed by `>`: no whitespace, quote, `<` or `>`
/// inside, one to `MAX_NAME` bytes. The tag `<parameter=NAME>` is one when this holds
/// after its `=`.
pub fn name_then_gt(text: &[u8], i: usize) -> Option<usize> {
    let len = text
        .get(i..)?
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|&&b| !b.is_ascii_whitespace() && !b"<>\"'".contains(&b))
        .count();
    ((1..=MAX_NAME).contains(&len) && text.get(i + len) == Some(&b'>')).then_some(i + len)
}

/// Whether `prefix` starts at `i`, followed by whitespace or `>` (a tag such as
/// `<parameter name="…">`, not `<parameters>`).
pub fn tag_at(text: &[u8], i: usize, prefix: &[u8]) -> bool {
    text.get(i..).is_some_and(|t| t.starts_with(prefix))
        && text
            .get(i + prefix.len())
            .is_some_and(|&b| b == b'>' || b.is_ascii_whitespace())
}

/// Whether, after whitespace from `i`, the text ends or one of `next` begins: what a
/// format writes after a call, so a call closed at `i` whose last value left its closer
/// out (`End::Unclosed`) is read up to there, and one followed by anything else (prose
/// that quotes the closer) is malformed.
fn ends_or_goes_on_with(text: &[u8], i: usize, next: &[&[u8]]) -> bool {
    let i = skip_space(text, i);
    i == text.len() || next.iter().any(|tag| text[i..].starts_with(tag))
}

/// `value` without the one `\n` (or `\r\n`) a template writes after it, before the
/// next tag.
pub fn one_trailing_newline_off(value: &[u8]) -> &[u8] {
    value
        .strip_suffix(b"\r\n")
        .or_else(|| value.strip_suffix(b"\n"))
        .unwrap_or(value)
}

/// Why a block of an XML-valued dialect (Qwen3 XML, GLM) makes no call.
pub enum Rejected {
    /// Something other than a parameter or the call's closer at the offset.
    At(usize),
    /// A malformed block whose span ends at the offset (after its closer, or at the end
    /// of a reply cut off inside a value).
    Ending(usize),
}

/// Where a block's span ends, and its call, from what reading it gave (`read`): a
/// well-formed block ends after its closer; one rejected at an offset reserves up to the
/// next closer after it (`closes`, `closer_len` long), or to the end of the text.
pub fn settle(
    read: Result<(usize, Option<Found>), Rejected>,
    closes: &mut Finder<'_>,
    closer_len: usize,
    text_len: usize,
) -> (usize, Option<Found>) {
    match read {
        Ok(block) => block,
        Err(Rejected::At(from)) => (
            closes
                .at_or_after(from)
                .map_or(text_len, |c| c + closer_len),
            None,
        ),
        Err(Rejected::Ending(end)) => (end, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNTAX: ValueSyntax = ValueSyntax {
        open: b"<p=",
        close: b"</p>",
        is_open_tag: |_, text, i| name_then_gt(text, i + 3).is_some(),
        follows: |_, text, i| text[i..].starts_with(b"<p=") || text[i..].starts_with(b"</f>"),
        outer_open: b"<f=",
        is_outer_open_tag: |_, text, i| name_then_gt(text, i + 3).is_some(),
        outer_close: b"</f>",
        outer_follows: &[],
        line_tags: false,
    };

    fn value(text: &str) -> Result<&str, End> {
        let start = text.find('>').unwrap() + 1;
        match Values::new(text.as_bytes(), &SYNTAX).end(start) {
            End::Value(end) => Ok(&text[start..end]),
            other => Err(other),
        }
    }

    #[test]
    fn a_value_ends_at_the_closer_the_format_continues_after() {
        assert_eq!(value("<p=a>1</p></f>"), Ok("1"));
        assert_eq!(value("<p=a>1</p>\n <p=b>2</p></f>"), Ok("1"));
        assert_eq!(value("<p=a>x = \"</p>\";\n</p></f>"), Ok("x = \"</p>\";\n"));
        assert_eq!(value("<p=a>code \"<p=\" </p></f>"), Ok("code \"<p=\" "));
    }

    #[test]
    fn an_example_call_inside_a_value_stays_in_it() {
        assert_eq!(
            value("<p=a>see <f=x><p=y>1</p></f> here</p></f>"),
            Ok("see <f=x><p=y>1</p></f> here")
        );
    }

    #[test]
    fn a_value_without_a_tag_before_the_element_closes_left_its_closer_out() {
        assert_eq!(
            value("<p=a>1\n</f> <f=b><p=c>2</p></f>"),
            Err(End::Unclosed(7))
        );
        assert_eq!(value("<p=a>x < y</f>"), Err(End::Unclosed(10)));
    }

    #[test]
    fn the_element_closing_after_a_closer_that_is_text_ends_nothing() {
        assert_eq!(value("<p=a>1</p> junk </f>"), Err(End::Outer(16)));
        assert_eq!(
            value("<p=a>an <p=open> tag</p></f>"),
            Err(End::Unclosed(24))
        );
        assert_eq!(value("<p=a>never closed"), Err(End::Never));
    }

    /// Qwen's layout: tags one per line, and the call's closer before what follows a call.
    const LINES: ValueSyntax = ValueSyntax {
        outer_follows: &[b"<f="],
        line_tags: true,
        ..SYNTAX
    };

    fn laid_out(text: &str) -> End {
        let start = text.find('>').unwrap() + 1;
        Values::new(text.as_bytes(), &LINES).end(start)
    }

    #[test]
    fn with_line_tags_a_tag_counts_only_where_the_layout_puts_it() {
        assert_eq!(laid_out("<p=a>x \"<p=b>\"</p></f>"), End::Value(14));
        assert_eq!(laid_out("<p=a>1\n<p=b>2</p></f>"), End::Next(7));
        assert_eq!(laid_out("<p=a>1\n  <p=b>2</p></f>"), End::Next(9));
        assert_eq!(laid_out("<p=a>\"</f>\"</p></f>"), End::Value(11));
        assert_eq!(laid_out("<p=a>1</f>"), End::Unclosed(6));
        assert_eq!(laid_out("<p=a>1</f> <f=b>"), End::Unclosed(6));
        assert_eq!(laid_out("<p=a>1</f> text"), End::Never);
        assert_eq!(laid_out("<p=a>1</p> or\n<p=b>2</p></f>"), End::Stray(14));
    }

    #[test]
    fn finders_only_go_forward() {
        let mut f = Finder::new(b"ab ab ab", b"ab");
        assert_eq!(f.at_or_after(0), Some(0));
        assert_eq!(f.at_or_after(1), Some(3));
        assert_eq!(f.at_or_after(3), Some(3));
        assert_eq!(f.at_or_after(7), None);
        assert_eq!(f.at_or_after(9), None);
    }

    /// `Values::end` finds tags by their `<`.
    #[test]
    fn every_tag_of_every_format_begins_with_a_lt() {
        let dsml = &super::super::deepseek::DSML;
        let formats = [
            &super::super::qwen_xml::VALUES,
            &super::super::glm::VALUES,
            &super::super::minimax::SYNTAX.values,
            &dsml[0].values,
            &dsml[1].values,
            &dsml[2].values,
            &SYNTAX,
        ];
        for syntax in formats {
            for tag in [
                syntax.open,
                syntax.close,
                syntax.outer_open,
                syntax.outer_close,
            ] {
                assert_eq!(tag.first(), Some(&b'<'), "{}", String::from_utf8_lossy(tag));
            }
        }
    }

    #[test]
    fn many_unclosed_values_take_one_pass() {
        let text = "<p=a><f=b>".repeat(50_000);
        assert_eq!(Values::new(text.as_bytes(), &SYNTAX).end(5), End::Never);
    }
}
