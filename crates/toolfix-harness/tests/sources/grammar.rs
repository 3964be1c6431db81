//! The reference grammar of a case's `source` (documented in `docs/spec-cases.md`).
//!
//! ```text
//! source    = segment *( sep segment )
//! sep       = ";"                      ; outside parentheses
//!           / ","                      ; outside parentheses, right before a reference
//! segment   = reference [ note ] / note
//! note      = ( ":" / "(" ) *CHAR      ; free text, not checked
//! reference = "behaviour" SP section   ; docs/behaviour.md
//!           / section                  ; same document as the previous reference
//!           / item                     ; another item of the previous section
//!           / "seed:" SP title         ; a claim title of docs/behaviour.md §0
//!           / path [ "#" anchor ]      ; a file of the repository
//!           / "guarantees" SP "§" id   ; a rule of docs/guarantees.md (G1, G2, …)
//! section   = "§" label [ SP ( item / name ) ]       ; §2(e).4 T, §4 J5c, §3 #11, §4 Other
//! label     = 1*DIGIT [ "." 1*DIGIT ] [ "(" LOWER ")" [ "." 1*DIGIT ] ]
//! item      = "#" 1*DIGIT / 1*UPPER 1*DIGIT [ LOWER ] ; a row or probe id: #11, J5c, S8
//! name      = UPPER *ALPHA                            ; a row or subsection: T, S, Other
//! title     = the text up to the first "(" or ":"
//! path      = *pchar "/" *pchar ( ".md" / ".rs" / ".toml" / ".py" )
//! ```
//!
//! A segment that does not start with a reference is a note. A reference must be followed
//! by nothing, a `:` or a `(`; anything else is reported, so a typo cannot silently turn a
//! reference into a note.

/// One reference of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// `behaviour §label [sub]`: a heading of `docs/behaviour.md`, or `sub` (a heading
    /// `§label sub`, a row or a probe id) inside it.
    Behaviour { label: String, sub: Option<String> },
    /// `seed: title`: a claim of `docs/behaviour.md` §0.
    Seed { title: String },
    /// `dir/file.md[#anchor]`: a file of the repository.
    Path {
        path: String,
        anchor: Option<String>,
    },
    /// `guarantees §id`: an item of `docs/guarantees.md`.
    Guarantees { id: String },
}

impl std::fmt::Display for Reference {
    /// The reference as a source writes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reference::Behaviour { label, sub: None } => write!(f, "behaviour §{label}"),
            Reference::Behaviour {
                label,
                sub: Some(sub),
            } => write!(f, "behaviour §{label} {sub}"),
            Reference::Seed { title } => write!(f, "seed: {title}"),
            Reference::Path { path, anchor: None } => write!(f, "{path}"),
            Reference::Path {
                path,
                anchor: Some(anchor),
            } => write!(f, "{path}#{anchor}"),
            Reference::Guarantees { id } => write!(f, "guarantees §{id}"),
        }
    }
}

/// The references of `source`, in order; a malformed one is an `Err` with the reason.
pub fn parse(source: &str) -> Vec<Result<Reference, String>> {
    let mut previous: Option<Reference> = None;
    let mut out = Vec::new();
    for segment in segments(source) {
        let Some((reference, rest)) = parse_segment(segment, previous.as_ref()) else {
            continue;
        };
        out.push(reference.clone().and_then(|r| followed_by_note(r, rest)));
        // A reference followed by stray text still sets the context of the next ones.
        previous = reference.ok().or(previous);
    }
    out
}

/// `source` split at `;`, and at `,` where a reference follows; parentheses protect both.
fn segments(source: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in source.char_indices() {
        let split = match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth = depth.saturating_sub(1);
                false
            }
            ';' => depth == 0,
            ',' => depth == 0 && starts_reference(&source[i + 1..]),
            _ => false,
        };
        if split {
            out.push(source[start..i].trim());
            start = i + 1;
        }
    }
    out.push(source[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// Whether `text` (after spaces) starts with a reference of any kind.
fn starts_reference(text: &str) -> bool {
    let text = text.trim_start();
    ["behaviour §", "§", "seed:", "guarantees §"]
        .iter()
        .any(|p| text.starts_with(p))
        || item(text).is_some()
        || path(text).is_some()
}

/// The reference `segment` starts with and the text after it (`None` for a note), given the
/// previous reference.
fn parse_segment<'a>(segment: &'a str, previous: Option<&Reference>) -> Option<Parsed<'a>> {
    let (reference, rest) = if let Some(rest) = segment.strip_prefix("behaviour §") {
        section(rest)
    } else if let Some(rest) = segment.strip_prefix("guarantees §") {
        guarantees(rest)
    } else if let Some(rest) = segment.strip_prefix('§') {
        continued_section(rest, previous)
    } else if let Some(rest) = segment.strip_prefix("seed:") {
        seed(rest)
    } else if let Some((sub, rest)) = item(segment) {
        (continued_item(sub, previous), rest)
    } else if let Some((reference, rest)) = path(segment) {
        (Ok(reference), rest)
    } else if segment.starts_with("behaviour") || segment.starts_with("guarantees") {
        (
            Err(format!(
                "{segment:?}: a document name must be followed by ' §'"
            )),
            "",
        )
    } else {
        return None;
    };
    Some((reference, rest))
}

/// `reference` if what follows it is empty or a note.
fn followed_by_note(reference: Reference, rest: &str) -> Result<Reference, String> {
    let rest = rest.trim_start();
    if rest.is_empty() || rest.starts_with([':', '(']) {
        Ok(reference)
    } else {
        Err(format!(
            "unexpected {rest:?} after `{reference}`: free text goes after ':' or in parentheses"
        ))
    }
}

type Parsed<'a> = (Result<Reference, String>, &'a str);

/// `label [sub]` after `behaviour §`.
fn section(text: &str) -> Parsed<'_> {
    let Some((label, rest)) = label(text) else {
        return (Err(format!("no section label in §{text:?}")), "");
    };
    let (sub, rest) = match rest
        .strip_prefix(' ')
        .and_then(|r| item(r).or_else(|| name(r)))
    {
        Some((sub, rest)) => (Some(sub.to_owned()), rest),
        None => (None, rest),
    };
    let label = label.to_owned();
    (Ok(Reference::Behaviour { label, sub }), rest)
}

/// A bare `§…`: a section of the previous reference's document.
fn continued_section<'a>(text: &'a str, previous: Option<&Reference>) -> Parsed<'a> {
    match previous {
        Some(Reference::Behaviour { .. }) => section(text),
        Some(Reference::Guarantees { .. }) => guarantees(text),
        _ => (
            Err(format!(
                "bare §{text:?} follows no behaviour or guarantees reference"
            )),
            "",
        ),
    }
}

/// A bare item (`#4`, `J12`): another item of the previous behaviour section.
fn continued_item(sub: &str, previous: Option<&Reference>) -> Result<Reference, String> {
    match previous {
        Some(Reference::Behaviour { label, .. }) => Ok(Reference::Behaviour {
            label: label.clone(),
            sub: Some(sub.to_owned()),
        }),
        _ => Err(format!("item {sub:?} follows no behaviour reference")),
    }
}

/// `title` after `seed:`, up to the first `(` or `:`.
fn seed(text: &str) -> Parsed<'_> {
    let end = text.find(['(', ':']).unwrap_or(text.len());
    let title = text[..end].trim();
    if title.is_empty() {
        return (Err("no title after 'seed:'".to_owned()), "");
    }
    let title = title.to_owned();
    (Ok(Reference::Seed { title }), &text[end..])
}

/// `id` after `guarantees §`, up to a space, `:` or `(`.
fn guarantees(text: &str) -> Parsed<'_> {
    let end = text.find([' ', ':', '(']).unwrap_or(text.len());
    if end == 0 {
        return (Err("no id after 'guarantees §'".to_owned()), "");
    }
    let id = text[..end].to_owned();
    (Ok(Reference::Guarantees { id }), &text[end..])
}

/// A section label at the start of `text`: `2`, `2.0`, `2(e)`, `2(e).4`.
fn label(text: &str) -> Option<(&str, &str)> {
    let mut end = digits(text, 0)?;
    if text[end..].starts_with('.') {
        end = digits(text, end + 1)?;
    }
    let bytes = text.as_bytes();
    if bytes.get(end) == Some(&b'(')
        && bytes.get(end + 1).is_some_and(u8::is_ascii_lowercase)
        && bytes.get(end + 2) == Some(&b')')
    {
        end += 3;
        if text[end..].starts_with('.') {
            end = digits(text, end + 1)?;
        }
    }
    Some(text.split_at(end))
}

/// The end of the run of ASCII digits starting at `start`, if the run is not empty.
fn digits(text: &str, start: usize) -> Option<usize> {
    let len = text[start..].bytes().take_while(u8::is_ascii_digit).count();
    (len > 0).then_some(start + len)
}

/// An item at the start of `text` (`#11`, `J5c`, `S8`), ending at a word boundary.
fn item(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let end = if let Some(rest) = text.strip_prefix('#') {
        digits(rest, 0)? + 1
    } else {
        let upper = bytes.iter().take_while(|b| b.is_ascii_uppercase()).count();
        let mut end = digits(text, upper).filter(|_| upper > 0)?;
        if bytes.get(end).is_some_and(u8::is_ascii_lowercase) {
            end += 1;
        }
        end
    };
    word_end(text, end)
}

/// A row or subsection name at the start of `text` (`T`, `S`, `Other`).
fn name(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    if !bytes.first()?.is_ascii_uppercase() {
        return None;
    }
    word_end(
        text,
        bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count(),
    )
}

/// `text` split at `end`, if no letter, digit or `_` follows.
fn word_end(text: &str, end: usize) -> Option<(&str, &str)> {
    let next = text[end..].chars().next();
    (!next.is_some_and(|c| c.is_alphanumeric() || c == '_')).then(|| text.split_at(end))
}

/// A repository path at the start of `text`, with its optional `#anchor`.
fn path(text: &str) -> Option<(Reference, &str)> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
    let end = text.find(|c| !is_path_char(c)).unwrap_or(text.len());
    let path = &text[..end];
    let known = [".md", ".rs", ".toml", ".py"]
        .iter()
        .any(|e| path.ends_with(e));
    if !path.contains('/') || !known || path.starts_with('/') {
        return None;
    }
    let rest = &text[end..];
    let (anchor, rest) = match rest.strip_prefix('#') {
        Some(after) => {
            let len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(after.len());
            (Some(after[..len].to_owned()), &after[len..])
        }
        None => (None, rest),
    };
    let path = path.to_owned();
    Some((Reference::Path { path, anchor }, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn behaviour(label: &str, sub: Option<&str>) -> Result<Reference, String> {
        let (label, sub) = (label.to_owned(), sub.map(str::to_owned));
        Ok(Reference::Behaviour { label, sub })
    }

    #[test]
    fn sections_items_and_continuations() {
        assert_eq!(
            parse("behaviour §2(e).4 T: json.loads runs first, §3 #17, #9; §4 S, J17"),
            vec![
                behaviour("2(e).4", Some("T")),
                behaviour("3", Some("#17")),
                behaviour("3", Some("#9")),
                behaviour("4", Some("S")),
                behaviour("4", Some("J17")),
            ]
        );
        assert_eq!(
            parse("behaviour §2(a) (!r), §2.0"),
            vec![behaviour("2(a)", None), behaviour("2.0", None)]
        );
    }

    #[test]
    fn seed_titles_keep_their_commas() {
        assert_eq!(
            parse("seed: Three dialects, one code path (whole JSON); behaviour §6"),
            vec![
                Ok(Reference::Seed {
                    title: "Three dialects, one code path".to_owned()
                }),
                behaviour("6", None),
            ]
        );
    }

    #[test]
    fn paths_notes_and_guarantees() {
        let path = |p: &str, a: Option<&str>| {
            Ok(Reference::Path {
                path: p.to_owned(),
                anchor: a.map(str::to_owned),
            })
        };
        assert_eq!(
            parse("docs/profiles.md#dispatch (lists), docs/protocol.md: x; Python truthiness"),
            vec![
                path("docs/profiles.md", Some("dispatch")),
                path("docs/protocol.md", None)
            ]
        );
        assert_eq!(
            parse("guarantees §G3, §G4: both"),
            vec![
                Ok(Reference::Guarantees {
                    id: "G3".to_owned()
                }),
                Ok(Reference::Guarantees {
                    id: "G4".to_owned()
                }),
            ]
        );
        assert!(parse("str.format: a lone '}' raises; read_file/ReadFile collide").is_empty());
    }

    #[test]
    fn malformed_references_are_reported() {
        for source in [
            "behaviour §2(e).4 _name_and_args: the name must be a str",
            "behaviour §2(c) gate: the kwargs bound",
            "§3 #11: no document before it",
            "docs/profiles.md, py::json",
            "behaviour doc §2",
        ] {
            let parsed = parse(source);
            assert!(parsed.iter().any(Result::is_err), "{source}: {parsed:?}");
        }
    }
}
