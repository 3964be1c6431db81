//! What a reference can resolve to: the files of the repository and the labelled parts of
//! `docs/behaviour.md`.

use std::path::{Path, PathBuf};

use super::grammar::Reference;

/// The repository, as far as references are concerned.
pub struct Repo {
    root: PathBuf,
    behaviour: Behaviour,
}

impl Repo {
    /// The repository at `root`; fails if `docs/behaviour.md` cannot be read.
    pub fn load(root: &Path) -> Result<Repo, String> {
        let text = read(&root.join("docs/behaviour.md"))?;
        let root = root.to_owned();
        Ok(Repo {
            root,
            behaviour: Behaviour::parse(&text),
        })
    }

    /// `docs/behaviour.md`.
    pub fn behaviour(&self) -> &Behaviour {
        &self.behaviour
    }

    /// `Ok` if `reference` names something that exists, else the reason.
    pub fn resolve(&self, reference: &Reference) -> Result<(), String> {
        match reference {
            Reference::Behaviour { label, sub } => self.behaviour.resolve(label, sub.as_deref()),
            Reference::Seed { title } => self.behaviour.resolve_claim(title),
            Reference::Path { path, anchor } => self.resolve_path(path, anchor.as_deref()),
            Reference::Guarantees { id } => self.resolve_guarantees(id),
        }
    }

    /// The file exists, and has the anchor (a heading's slug or an `id`) if one is given.
    fn resolve_path(&self, path: &str, anchor: Option<&str>) -> Result<(), String> {
        let file = self.root.join(path);
        if !file.is_file() {
            return Err(format!("{path} is not a file of the repository"));
        }
        let Some(anchor) = anchor else { return Ok(()) };
        let text = read(&file)?;
        let found = text.lines().any(|line| {
            heading_slug(line).as_deref() == Some(anchor)
                || line.contains(&format!("id=\"{anchor}\""))
        });
        found
            .then_some(())
            .ok_or_else(|| format!("{path} has no anchor #{anchor}"))
    }

    /// A rule of `docs/guarantees.md`: `guarantees §G3` resolves to its heading
    /// `### G3. …`.
    fn resolve_guarantees(&self, id: &str) -> Result<(), String> {
        let path = self.root.join("docs/guarantees.md");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let heading = format!("### {id}. ");
        text.lines()
            .any(|line| line.starts_with(&heading))
            .then_some(())
            .ok_or_else(|| format!("docs/guarantees.md has no rule {id}"))
    }
}

/// `docs/behaviour.md`: its labelled headings and its §0 claim titles.
pub struct Behaviour {
    pub sections: Vec<Section>,
    pub claims: Vec<String>,
    /// Headings that do not have the form `<a id="s…"></a>§label — title`.
    pub malformed: Vec<String>,
}

/// A heading `<a id="ANCHOR"></a>§LABEL — title` and the text under it, down to the next
/// heading of the same or a higher level.
pub struct Section {
    pub label: String,
    pub body: String,
}

impl Behaviour {
    fn parse(text: &str) -> Behaviour {
        let lines: Vec<&str> = text.lines().collect();
        let (mut sections, mut malformed) = (Vec::new(), Vec::new());
        for (i, line) in lines.iter().enumerate() {
            let Some(level) = heading_level(line).filter(|&l| l >= 2) else {
                continue;
            };
            match labelled_heading(line) {
                Some(label) => {
                    let end = lines[i + 1..]
                        .iter()
                        .position(|l| heading_level(l).is_some_and(|m| m <= level))
                        .map_or(lines.len(), |n| i + 1 + n);
                    let body = lines[i + 1..end].join("\n");
                    sections.push(Section { label, body });
                }
                None => malformed.push((*line).to_owned()),
            }
        }
        let claims = sections
            .iter()
            .find(|s| s.label == "0")
            .map(|s| s.body.lines().filter_map(claim_title).collect())
            .unwrap_or_default();
        Behaviour {
            sections,
            claims,
            malformed,
        }
    }

    fn section(&self, label: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.label == label)
    }

    /// A heading `§label sub`, or a heading `§label` with `sub` (if any) inside it.
    fn resolve(&self, label: &str, sub: Option<&str>) -> Result<(), String> {
        if sub.is_some_and(|sub| self.section(&format!("{label} {sub}")).is_some()) {
            return Ok(());
        }
        let section = self
            .section(label)
            .ok_or_else(|| format!("docs/behaviour.md has no heading §{label}"))?;
        match sub {
            Some(sub) if !section.has_item(sub) => Err(format!(
                "docs/behaviour.md §{label} has no subsection, row or probe id {sub}"
            )),
            _ => Ok(()),
        }
    }

    fn resolve_claim(&self, title: &str) -> Result<(), String> {
        let found = self.claims.iter().any(|c| c == title);
        found
            .then_some(())
            .ok_or_else(|| format!("docs/behaviour.md §0 has no claim {title:?}"))
    }
}

impl Section {
    /// Whether `item` is in the section: `#N` as a list item `N.` or a table row `| N |`;
    /// an id as a table row `| ID |` or in a probe list `[ID]`, `[ID, …]`, `[A1–A9]`.
    fn has_item(&self, item: &str) -> bool {
        let number = item.strip_prefix('#');
        self.body.lines().any(|line| match number {
            Some(n) => {
                line.strip_prefix(n).is_some_and(|r| r.starts_with(". "))
                    || first_cell(line) == Some(n)
            }
            None => first_cell(line) == Some(item) || probe_ids(line).any(|id| id == item),
        })
    }
}

/// `#`s of a Markdown heading line.
fn heading_level(line: &str) -> Option<usize> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    (level > 0 && line[level..].starts_with(' ')).then_some(level)
}

/// The label of `## <a id="ANCHOR"></a>§LABEL — title`, if ANCHOR is the label's
/// (`anchor_for`).
fn labelled_heading(line: &str) -> Option<String> {
    let rest = line
        .trim_start_matches('#')
        .trim_start()
        .strip_prefix("<a id=\"")?;
    let (anchor, rest) = rest.split_once("\"></a>§")?;
    let (label, _title) = rest.split_once(" — ")?;
    (anchor == anchor_for(label)).then(|| label.to_owned())
}

/// The anchor of a label: `s` and its letters and digits, lower-cased (`§2(e).4` is `s2e4`).
pub fn anchor_for(label: &str) -> String {
    let kept = label.chars().filter(char::is_ascii_alphanumeric);
    std::iter::once('s')
        .chain(kept.map(|c| c.to_ascii_lowercase()))
        .collect()
}

/// A claim title: the first cell of a table row of §0, backticks removed.
fn claim_title(line: &str) -> Option<String> {
    let cell = first_cell(line)?;
    let is_rule = cell.chars().all(|c| c == '-' || c == ':');
    (!is_rule && cell != "Claim").then(|| cell.replace('`', ""))
}

/// The first cell of a Markdown table row, trimmed.
fn first_cell(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('|')?;
    Some(rest.split('|').next()?.trim())
}

/// The ids of the probe lists (`[J5, J5b]`, `[F1–F9]`) of a line, ranges expanded.
fn probe_ids(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split('[')
        .skip(1)
        .filter_map(|s| s.split_once(']').map(|(inside, _)| inside))
        .flat_map(|inside| inside.split(',').map(str::trim))
        .flat_map(expand_range)
}

/// `A1–A3` as `A1`, `A2`, `A3`; anything else as itself.
fn expand_range(id: &str) -> Vec<String> {
    let split = |s: &str| {
        let at = s.find(|c: char| c.is_ascii_digit())?;
        Some((s[..at].to_owned(), s[at..].parse::<u32>().ok()?))
    };
    let range = id
        .split_once('–')
        .and_then(|(a, b)| Some((split(a)?, split(b)?)));
    match range {
        Some(((p, first), (q, last))) if p == q => {
            (first..=last).map(|n| format!("{p}{n}")).collect()
        }
        _ => vec![id.to_owned()],
    }
}

/// GitHub's anchor for a heading line: lower-cased, punctuation dropped, spaces as `-`.
fn heading_slug(line: &str) -> Option<String> {
    let level = heading_level(line)?;
    let text = line[level..].trim().to_lowercase();
    let kept = text
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == ' ' || c == '-' || c == '_');
    Some(kept.map(|c| if c == ' ' { '-' } else { c }).collect())
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_and_ranges() {
        assert_eq!(anchor_for("2(e).4"), "s2e4");
        assert_eq!(anchor_for("4 Other"), "s4other");
        assert_eq!(expand_range("O1–O3"), ["O1", "O2", "O3"]);
        assert_eq!(
            probe_ids("x [J5, J5b] y [I2–I3]").collect::<Vec<_>>(),
            ["J5", "J5b", "I2", "I3"]
        );
        assert_eq!(heading_slug("## A `b`, c").as_deref(), Some("a-b-c"));
    }

    #[test]
    fn items_inside_a_section() {
        let doc = Behaviour::parse(
            "## <a id=\"s3\"></a>§3 — Rows\n| 11 | x |\n## <a id=\"s4\"></a>§4 — Edges\n\
             ### <a id=\"s4s\"></a>§4 S — Whitespace\n* x [S1, S2]\n10. item\n",
        );
        assert!(doc.malformed.is_empty());
        assert!(doc.resolve("3", Some("#11")).is_ok());
        assert!(doc.resolve("3", Some("#12")).is_err());
        assert!(doc.resolve("4", Some("S2")).is_ok());
        assert!(doc.resolve("4", Some("S")).is_ok());
        assert!(doc.resolve("4 S", Some("#10")).is_ok());
        assert!(doc.resolve("5", None).is_err());
    }

    #[test]
    fn guarantees_resolve_to_the_rules_of_the_page() {
        let repo = Repo {
            root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."),
            behaviour: Behaviour::parse(""),
        };
        assert!(repo.resolve_guarantees("G1").is_ok());
        assert!(repo.resolve_guarantees("G13").is_ok());
        assert!(repo.resolve_guarantees("G99").is_err());
    }
}
