//! The sync loop's older `<tool_call>` parser (`llm/llm.py:4196-4252`), kept only to be
//! reproduced under `praisonai`: it has no allowlist and no fence masking, so a fenced
//! example runs through it (docs/deviations.md §10).
//!
//! It wraps the reply in `<root>…</root>` and parses it with `xml.etree.ElementTree`
//! (expat); each `<tool_call>` element's text, stripped, is `json.loads`ed and becomes a
//! call when it is a dict with a `"name"`. When the text is not well-formed XML (a bare
//! `&` in prose, an unclosed `<br>`), a regular expression takes over:
//! `<tool_call>\s*(\{(?:[^{}]|{[^{}]*})*\})\s*</tool_call>` (case-sensitive, one level of
//! brace nesting). [`Parser`] checks the part of expat's well-formedness the parse
//! decides on: tags and their nesting, attributes, references, comments, CDATA,
//! processing instructions, characters XML forbids, namespace prefixes.

use crate::py::PyStr;
use crate::py::unicode::is_space;
use crate::salvage::tokens::tool_call;

/// Why the older parser cannot read the reply as XML.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XmlError {
    /// `ET.ParseError`: the regular expression takes over.
    NotWellFormed,
    /// A lone surrogate cannot be encoded for expat: `UnicodeEncodeError` escapes the loop.
    Unencodable,
}

/// The text of every `tool_call` element of `<root>{text}</root>`, in document order
/// (`root.findall('.//tool_call')`, then `element.text`): `None` when the element has no
/// character data before its first child.
pub fn tool_call_texts(text: &PyStr) -> Result<Vec<Option<PyStr>>, XmlError> {
    let mut doc: Vec<u32> = "<root>".chars().map(u32::from).collect();
    for cp in text.code_points() {
        if (0xD800..0xE000).contains(&cp) {
            return Err(XmlError::Unencodable);
        }
        doc.push(cp);
    }
    doc.extend("</root>".chars().map(u32::from));
    Parser::new(normalise_newlines(doc)).run()
}

/// Expat reports `\r\n` and a lone `\r` as `\n`.
fn normalise_newlines(doc: Vec<u32>) -> Vec<u32> {
    let mut out = Vec::with_capacity(doc.len());
    let mut i = 0;
    while i < doc.len() {
        if doc[i] == 0x0D {
            out.push(0x0A);
            if doc.get(i + 1) == Some(&0x0A) {
                i += 1;
            }
        } else {
            out.push(doc[i]);
        }
        i += 1;
    }
    out
}

/// An open element: its name, the namespace prefixes it binds, and (for a `tool_call`)
/// where its text is collected.
struct Open {
    name: Vec<u32>,
    prefixes: Vec<Vec<u32>>,
    default_ns: Option<bool>,
    text_slot: Option<usize>,
    has_child: bool,
}

struct Parser {
    doc: Vec<u32>,
    pos: usize,
    stack: Vec<Open>,
    texts: Vec<Option<PyStr>>,
    root_closed: bool,
}

type Step<T> = Result<T, XmlError>;

const BAD: XmlError = XmlError::NotWellFormed;

impl Parser {
    fn new(doc: Vec<u32>) -> Parser {
        Parser {
            doc,
            pos: 0,
            stack: Vec::new(),
            texts: Vec::new(),
            root_closed: false,
        }
    }

    fn peek(&self, at: usize) -> Option<u32> {
        self.doc.get(self.pos + at).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(i, c)| self.peek(i) == Some(u32::from(c)))
    }

    fn run(mut self) -> Step<Vec<Option<PyStr>>> {
        while self.pos < self.doc.len() {
            if self.peek(0) == Some(u32::from('<')) {
                self.markup()?;
            } else {
                self.char_data()?;
            }
        }
        if !self.stack.is_empty() || !self.root_closed {
            return Err(BAD);
        }
        Ok(self.texts)
    }

    fn markup(&mut self) -> Step<()> {
        if self.starts_with("<!--") {
            return self.comment();
        }
        if self.starts_with("<![CDATA[") {
            return self.cdata();
        }
        if self.starts_with("<?") {
            return self.processing_instruction();
        }
        if self.starts_with("</") {
            return self.end_tag();
        }
        self.start_tag()
    }

    /// Character data, with references resolved, up to the next `<`.
    fn char_data(&mut self) -> Step<()> {
        let mut data = PyStr::new();
        while let Some(cp) = self.peek(0) {
            match char::from_u32(cp) {
                Some('<') => break,
                Some('&') => {
                    let resolved = self.reference()?;
                    data.push(resolved);
                    continue;
                }
                Some(']') if self.starts_with("]]>") => return Err(BAD),
                _ => {}
            }
            check_char(cp)?;
            data.push(cp);
            self.pos += 1;
        }
        self.add_text(&data)
    }

    fn add_text(&mut self, data: &PyStr) -> Step<()> {
        if data.is_empty() {
            return Ok(());
        }
        match self.stack.last() {
            None => {
                if data.code_points().all(is_space) {
                    Ok(())
                } else {
                    Err(BAD)
                }
            }
            Some(open) => {
                if let (Some(slot), false) = (open.text_slot, open.has_child) {
                    let text = self.texts[slot].get_or_insert_with(PyStr::new);
                    text.push_py(data);
                }
                Ok(())
            }
        }
    }

    /// `&name;`, `&#N;` or `&#xN;`: only XML's five predefined entities exist (no DTD).
    fn reference(&mut self) -> Step<u32> {
        self.pos += 1;
        let start = self.pos;
        while let Some(cp) = self.peek(0) {
            if cp == u32::from(';') {
                break;
            }
            self.pos += 1;
            if self.pos - start > 64 {
                return Err(BAD);
            }
        }
        if self.peek(0) != Some(u32::from(';')) {
            return Err(BAD);
        }
        let body: String = self.doc[start..self.pos]
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect();
        self.pos += 1;
        let cp = match body.as_str() {
            "amp" => u32::from('&'),
            "lt" => u32::from('<'),
            "gt" => u32::from('>'),
            "quot" => u32::from('"'),
            "apos" => u32::from('\''),
            _ => {
                let number = if let Some(hex) = body.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16)
                        .ok()
                        .filter(|_| !hex.is_empty())
                } else if let Some(dec) = body.strip_prefix('#') {
                    dec.parse::<u32>()
                        .ok()
                        .filter(|_| dec.bytes().all(|b| b.is_ascii_digit()))
                } else {
                    None
                };
                number.ok_or(BAD)?
            }
        };
        check_char(cp)?;
        Ok(cp)
    }

    fn comment(&mut self) -> Step<()> {
        self.pos += 4;
        loop {
            let cp = self.peek(0).ok_or(BAD)?;
            if self.starts_with("--") {
                if self.starts_with("-->") {
                    self.pos += 3;
                    return Ok(());
                }
                return Err(BAD);
            }
            check_char(cp)?;
            self.pos += 1;
        }
    }

    fn cdata(&mut self) -> Step<()> {
        if self.stack.is_empty() {
            return Err(BAD);
        }
        self.pos += 9;
        let mut data = PyStr::new();
        loop {
            let cp = self.peek(0).ok_or(BAD)?;
            if self.starts_with("]]>") {
                self.pos += 3;
                return self.add_text(&data);
            }
            check_char(cp)?;
            data.push(cp);
            self.pos += 1;
        }
    }

    fn processing_instruction(&mut self) -> Step<()> {
        self.pos += 2;
        let target = self.name()?;
        let lowered: String = target
            .iter()
            .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}').to_ascii_lowercase())
            .collect();
        if lowered == "xml" || target.contains(&u32::from(':')) {
            return Err(BAD);
        }
        if self.starts_with("?>") {
            self.pos += 2;
            return Ok(());
        }
        if !self.peek(0).is_some_and(is_xml_space) {
            return Err(BAD);
        }
        loop {
            let cp = self.peek(0).ok_or(BAD)?;
            if self.starts_with("?>") {
                self.pos += 2;
                return Ok(());
            }
            check_char(cp)?;
            self.pos += 1;
        }
    }

    fn start_tag(&mut self) -> Step<()> {
        if self.root_closed {
            return Err(BAD);
        }
        self.pos += 1;
        let name = self.name()?;
        let mut attributes: Vec<(Vec<u32>, PyStr)> = Vec::new();
        let empty = loop {
            let had_space = self.skip_space();
            match self.peek(0).and_then(char::from_u32) {
                Some('>') => {
                    self.pos += 1;
                    break false;
                }
                Some('/') if self.peek(1) == Some(u32::from('>')) => {
                    self.pos += 2;
                    break true;
                }
                Some(_) if had_space => {
                    let attribute = self.name()?;
                    self.skip_space();
                    if self.peek(0) != Some(u32::from('=')) {
                        return Err(BAD);
                    }
                    self.pos += 1;
                    self.skip_space();
                    let value = self.attribute_value()?;
                    if attributes.iter().any(|(n, _)| *n == attribute) {
                        return Err(BAD);
                    }
                    attributes.push((attribute, value));
                }
                _ => return Err(BAD),
            }
        };
        self.open(name, attributes, empty)
    }

    /// Pushes an element (and pops it again when it is empty), checking its namespace
    /// prefixes: ElementTree parses with namespaces, so an undeclared prefix is an error.
    fn open(
        &mut self,
        name: Vec<u32>,
        attributes: Vec<(Vec<u32>, PyStr)>,
        empty: bool,
    ) -> Step<()> {
        let xmlns: Vec<u32> = "xmlns".chars().map(u32::from).collect();
        let mut prefixes = Vec::new();
        let mut default_ns = None;
        for (attribute, value) in &attributes {
            if *attribute == xmlns {
                default_ns = Some(!value.is_empty());
            } else if let Some(rest) = attribute.strip_prefix(&xmlns[..]) {
                if rest.first() == Some(&u32::from(':')) {
                    if value.is_empty() {
                        return Err(BAD);
                    }
                    prefixes.push(rest[1..].to_vec());
                }
            }
        }
        if let Some(parent) = self.stack.last_mut() {
            parent.has_child = true;
        }
        self.stack.push(Open {
            name: name.clone(),
            prefixes,
            default_ns,
            text_slot: None,
            has_child: false,
        });
        self.check_prefix(&name)?;
        for (attribute, _) in &attributes {
            if *attribute != xmlns && !attribute.starts_with(&xmlns[..]) {
                self.check_prefix(attribute)?;
            }
        }
        let is_tool_call = name == "tool_call".chars().map(u32::from).collect::<Vec<_>>()
            && !self.in_default_namespace();
        if is_tool_call {
            self.texts.push(None);
            if let Some(open) = self.stack.last_mut() {
                open.text_slot = Some(self.texts.len() - 1);
            }
        }
        if empty {
            self.close();
        }
        Ok(())
    }

    fn in_default_namespace(&self) -> bool {
        self.stack
            .iter()
            .rev()
            .find_map(|open| open.default_ns)
            .unwrap_or(false)
    }

    fn check_prefix(&self, name: &[u32]) -> Step<()> {
        let Some(colon) = name.iter().position(|&c| c == u32::from(':')) else {
            return Ok(());
        };
        let prefix = &name[..colon];
        if colon == 0 || colon + 1 == name.len() || name[colon + 1..].contains(&u32::from(':')) {
            return Err(BAD);
        }
        if prefix == "xml".chars().map(u32::from).collect::<Vec<_>>().as_slice() {
            return Ok(());
        }
        let bound = self
            .stack
            .iter()
            .any(|open| open.prefixes.iter().any(|p| p == prefix));
        if bound { Ok(()) } else { Err(BAD) }
    }

    fn close(&mut self) {
        self.stack.pop();
        if self.stack.is_empty() {
            self.root_closed = true;
        }
    }

    fn end_tag(&mut self) -> Step<()> {
        self.pos += 2;
        let name = self.name()?;
        self.skip_space();
        if self.peek(0) != Some(u32::from('>')) {
            return Err(BAD);
        }
        self.pos += 1;
        match self.stack.last() {
            Some(open) if open.name == name => {
                self.close();
                Ok(())
            }
            _ => Err(BAD),
        }
    }

    fn attribute_value(&mut self) -> Step<PyStr> {
        let quote = self.peek(0).ok_or(BAD)?;
        if quote != u32::from('"') && quote != u32::from('\'') {
            return Err(BAD);
        }
        self.pos += 1;
        let mut value = PyStr::new();
        loop {
            let cp = self.peek(0).ok_or(BAD)?;
            if cp == quote {
                self.pos += 1;
                return Ok(value);
            }
            match char::from_u32(cp) {
                Some('<') => return Err(BAD),
                Some('&') => {
                    let resolved = self.reference()?;
                    value.push(resolved);
                }
                _ => {
                    check_char(cp)?;
                    value.push(cp);
                    self.pos += 1;
                }
            }
        }
    }

    fn name(&mut self) -> Step<Vec<u32>> {
        let start = self.pos;
        match self.peek(0) {
            Some(cp) if is_name_start(cp) => self.pos += 1,
            _ => return Err(BAD),
        }
        while self.peek(0).is_some_and(is_name_char) {
            self.pos += 1;
        }
        Ok(self.doc[start..self.pos].to_vec())
    }

    fn skip_space(&mut self) -> bool {
        let start = self.pos;
        while self.peek(0).is_some_and(is_xml_space) {
            self.pos += 1;
        }
        self.pos > start
    }
}

fn is_xml_space(cp: u32) -> bool {
    matches!(cp, 0x20 | 0x09 | 0x0A | 0x0D)
}

/// XML 1.0's `Char`.
fn check_char(cp: u32) -> Step<()> {
    let ok = matches!(cp, 0x09 | 0x0A | 0x0D)
        || (0x20..=0xD7FF).contains(&cp)
        || (0xE000..=0xFFFD).contains(&cp)
        || (0x10000..=0x10FFFF).contains(&cp);
    if ok { Ok(()) } else { Err(BAD) }
}

/// XML 1.0 (fifth edition) `NameStartChar`.
fn is_name_start(cp: u32) -> bool {
    matches!(cp, 0x3A | 0x5F)
        || (u32::from('A')..=u32::from('Z')).contains(&cp)
        || (u32::from('a')..=u32::from('z')).contains(&cp)
        || (0xC0..=0xD6).contains(&cp)
        || (0xD8..=0xF6).contains(&cp)
        || (0xF8..=0x2FF).contains(&cp)
        || (0x370..=0x37D).contains(&cp)
        || (0x37F..=0x1FFF).contains(&cp)
        || (0x200C..=0x200D).contains(&cp)
        || (0x2070..=0x218F).contains(&cp)
        || (0x2C00..=0x2FEF).contains(&cp)
        || (0x3001..=0xD7FF).contains(&cp)
        || (0xF900..=0xFDCF).contains(&cp)
        || (0xFDF0..=0xFFFD).contains(&cp)
        || (0x10000..=0xEFFFF).contains(&cp)
}

/// XML 1.0 (fifth edition) `NameChar`.
fn is_name_char(cp: u32) -> bool {
    is_name_start(cp)
        || matches!(cp, 0x2D | 0x2E | 0xB7)
        || (u32::from('0')..=u32::from('9')).contains(&cp)
        || (0x300..=0x36F).contains(&cp)
        || (0x203F..=0x2040).contains(&cp)
}

/// The regular expression's matches, in order: the group (the `{…}` payload) of each
/// `<tool_call>\s*(\{(?:[^{}]|{[^{}]*})*\})\s*</tool_call>` match, `re.DOTALL`.
///
/// The brace group can only end where its greedy scan stops (a `}` that closes no inner
/// pair), so one forward scan per `<tool_call>` occurrence decides each match, and a
/// failed attempt resumes at the next occurrence.
pub fn regex_payloads(text: &PyStr) -> Vec<PyStr> {
    let cps: Vec<u32> = text.code_points().collect();
    let open: Vec<u32> = tool_call::OPEN.chars().map(u32::from).collect();
    let close: Vec<u32> = tool_call::CLOSE.chars().map(u32::from).collect();
    let at = |i: usize, pat: &[u32]| cps.get(i..i + pat.len()) == Some(pat);
    let mut found = Vec::new();
    let mut i = 0;
    while i < cps.len() {
        if !at(i, &open) {
            i += 1;
            continue;
        }
        match payload_after(&cps, i + open.len()) {
            Some((start, end)) => {
                let mut k = end;
                while k < cps.len() && is_space(cps[k]) {
                    k += 1;
                }
                if at(k, &close) {
                    let mut payload = PyStr::new();
                    cps[start..end].iter().for_each(|&c| payload.push(c));
                    found.push(payload);
                    i = k + close.len();
                    continue;
                }
                i += 1;
            }
            None => i += 1,
        }
    }
    found
}

/// `\s*(\{(?:[^{}]|{[^{}]*})*\})` from `from`: the payload's range, if it matches.
fn payload_after(cps: &[u32], from: usize) -> Option<(usize, usize)> {
    let (lb, rb) = (u32::from('{'), u32::from('}'));
    let mut i = from;
    while i < cps.len() && is_space(cps[i]) {
        i += 1;
    }
    if cps.get(i) != Some(&lb) {
        return None;
    }
    let start = i;
    i += 1;
    loop {
        match cps.get(i).copied() {
            None => return None,
            Some(c) if c == rb => return Some((start, i + 1)),
            Some(c) if c == lb => {
                let mut j = i + 1;
                while j < cps.len() && cps[j] != lb && cps[j] != rb {
                    j += 1;
                }
                if cps.get(j) != Some(&rb) {
                    return None;
                }
                i = j + 1;
            }
            Some(_) => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Result<Vec<Option<String>>, XmlError> {
        tool_call_texts(&PyStr::from(s)).map(|v| {
            v.into_iter()
                .map(|t| t.map(|t| t.to_string_lossy()))
                .collect()
        })
    }

    #[test]
    fn fenced_call_is_an_element() {
        let reply = "Example:\n```\n<tool_call>{\"name\": \"x\"}</tool_call>\n```";
        assert_eq!(texts(reply), Ok(vec![Some("{\"name\": \"x\"}".into())]));
    }

    #[test]
    fn bare_ampersand_is_not_well_formed() {
        assert_eq!(texts("Tom & Jerry <tool_call>{}</tool_call>"), Err(BAD));
        assert_eq!(
            texts("a &amp; b <tool_call>{}</tool_call>"),
            Ok(vec![Some("{}".into())])
        );
    }

    #[test]
    fn unclosed_and_mismatched_tags_are_not_well_formed() {
        assert_eq!(texts("<br> <tool_call>{}</tool_call>"), Err(BAD));
        assert_eq!(texts("<tool_call>{}</TOOL_CALL>"), Err(BAD));
        assert_eq!(texts("</root><tool_call>{}</tool_call>"), Err(BAD));
        assert_eq!(texts("a < b"), Err(BAD));
    }

    #[test]
    fn text_stops_at_the_first_child() {
        assert_eq!(
            texts("<tool_call>{\"a\"<b/>: 1}</tool_call>"),
            Ok(vec![Some("{\"a\"".into())])
        );
        assert_eq!(texts("<tool_call><b/>x</tool_call>"), Ok(vec![None]));
        assert_eq!(
            texts("<tool_call>{<!-- c -->}</tool_call>"),
            Ok(vec![Some("{}".into())])
        );
    }

    #[test]
    fn unbound_prefixes_fail() {
        assert_eq!(texts("<a:tool_call>{}</a:tool_call>"), Err(BAD));
        assert_eq!(
            texts("<x xmlns:a=\"u\"><a:tool_call>{}</a:tool_call></x>"),
            Ok(vec![])
        );
    }

    #[test]
    fn regex_takes_one_level_of_nesting() {
        let payloads = |s: &str| -> Vec<String> {
            regex_payloads(&PyStr::from(s))
                .iter()
                .map(PyStr::to_string_lossy)
                .collect()
        };
        assert_eq!(
            payloads("& <tool_call> {\"name\": \"f\", \"arguments\": {\"a\": 1}} </tool_call>"),
            vec!["{\"name\": \"f\", \"arguments\": {\"a\": 1}}"]
        );
        assert_eq!(
            payloads("<tool_call>{\"a\": {\"b\": {\"c\": 1}}}</tool_call>"),
            Vec::<String>::new()
        );
        assert_eq!(payloads("<tool_call><tool_call>{}</tool_call>"), vec!["{}"]);
    }
}
