//! The implementation's answer to `hello`: who it is and what it declares.

use crate::protocol::PROTOCOL_VERSION;
use crate::protocol::fields::Fields;
use crate::protocol::ops;
use crate::suite::forms as suite_forms;
use crate::suite::load::POLICIES;
use toolfix::Profile;
use toolfix::py::{Dict, Value};
use toolfix::salvage::Dialect;

/// A read handshake answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Handshake {
    /// `implementation.name`.
    pub name: String,
    /// `implementation.version`.
    pub version: String,
    /// `implementation.language`.
    pub language: String,
    /// The whole `implementation` object, for reports.
    pub implementation: Value,
    /// The profile the implementation claims.
    pub profile: Profile,
    /// The ops it implements.
    pub ops: Vec<String>,
    /// The salvage dialects it recovers.
    pub dialects: Vec<String>,
    /// The policies it declares (`docs/guarantees.md`), in the order given; a policy
    /// it leaves out is `false`.
    pub policies: Vec<(String, bool)>,
    /// The forms (`suite::forms`) it reads of each dialect that lists some: a case
    /// written in another form of that dialect is not sent. A dialect left out is read
    /// in every form.
    pub forms: Vec<(String, Vec<String>)>,
    /// Whether its stream is fed as a server's tokenizer feeds it: then chunkings never
    /// cut inside a special token (`conform::streaming`).
    pub token_chunks: bool,
}

impl Handshake {
    /// Reads a decoded handshake answer; the message says what is wrong with it.
    pub fn parse(answer: &Value) -> Result<Handshake, String> {
        let fields = Fields::of(answer, "the handshake answer")?;
        if let Some(errored) = fields.get("errored") {
            return Err(format!(
                "the implementation answered errored: {}",
                text(errored)
            ));
        }
        let protocol = fields.value("protocol")?;
        if *protocol != Value::int(PROTOCOL_VERSION) {
            return Err(format!(
                "the implementation speaks protocol {}; this runner speaks {PROTOCOL_VERSION}",
                text(protocol)
            ));
        }
        let implementation = fields.value("implementation")?;
        let who = Fields::of(implementation, "implementation")?;
        Ok(Handshake {
            name: who.str("name")?.to_owned(),
            version: who.str("version")?.to_owned(),
            language: who.str("language")?.to_owned(),
            implementation: implementation.clone(),
            profile: fields.parse("profile")?,
            ops: names(&fields, "ops")?,
            dialects: names(&fields, "dialects")?,
            policies: policies(fields.get("policies"))?,
            forms: forms(fields.get("forms"))?,
            token_chunks: fields.opt_bool("token_chunks")?.unwrap_or(false),
        })
    }

    /// Whether a case written in `form` of `dialect` is one the implementation reads.
    pub fn reads_form(&self, dialect: &str, form: &str) -> bool {
        self.forms
            .iter()
            .find(|(d, _)| d == dialect)
            .is_none_or(|(_, forms)| forms.iter().any(|f| f == form))
    }

    /// The value the implementation declares for `policy` (`false` when it says nothing).
    pub fn policy(&self, policy: &str) -> bool {
        self.policies
            .iter()
            .any(|(name, value)| name == policy && *value)
    }

    /// The declared policies that this runner does not know, for a note in the report.
    pub fn unknown_policies(&self) -> Vec<&str> {
        self.policies
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| !POLICIES.contains(name))
            .collect()
    }

    /// The handshake answer as a protocol value (what `toolfix serve` writes).
    pub fn to_value(&self) -> Value {
        let strings = |items: &[String]| Value::List(items.iter().map(|s| Value::str(s)).collect());
        let policies = self
            .policies
            .iter()
            .map(|(name, value)| (name.as_str(), Value::Bool(*value)));
        let mut pairs = vec![
            ("protocol", Value::int(PROTOCOL_VERSION)),
            ("implementation", self.implementation.clone()),
            ("profile", Value::str(self.profile.name())),
            ("ops", strings(&self.ops)),
            ("dialects", strings(&self.dialects)),
            ("policies", Value::dict(policies)),
        ];
        if !self.forms.is_empty() {
            let forms = self.forms.iter().map(|(d, f)| (d.as_str(), strings(f)));
            pairs.push(("forms", Value::dict(forms)));
        }
        if self.token_chunks {
            pairs.push(("token_chunks", Value::Bool(true)));
        }
        Value::dict(pairs)
    }

    /// What `toolfix serve --profile PROFILE` declares, for the embedded reference.
    pub fn reference(profile: Profile) -> Handshake {
        Handshake {
            name: "toolfix".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: "rust".to_owned(),
            implementation: Value::dict([
                ("name", Value::str("toolfix")),
                ("version", Value::str(env!("CARGO_PKG_VERSION"))),
                ("language", Value::str("rust")),
                ("homepage", Value::str(env!("CARGO_PKG_REPOSITORY"))),
            ]),
            profile,
            ops: ops::OPS.iter().map(|op| (*op).to_owned()).collect(),
            dialects: Dialect::recovered_by(profile)
                .map(|d| d.name().to_owned())
                .collect(),
            policies: reference_policies(profile),
            forms: Vec::new(),
            token_chunks: false,
        }
    }
}

/// What the reference declares under `profile`: salvage depends on the adapter; calls
/// are recovered only when closed, from JSON, by their exact name; reasoning is text like
/// any other under `praisonai`, as in the real package, and masked under the others.
fn reference_policies(profile: Profile) -> Vec<(String, bool)> {
    POLICIES
        .iter()
        .map(|&policy| {
            let declared = match policy {
                "adapters" => true,
                "masks_reasoning" => profile.masks_reasoning(),
                _ => false,
            };
            (policy.to_owned(), declared)
        })
        .collect()
}

/// An optional object of the handshake: `None` when it is absent or `null`, `wrong` when
/// it is something else.
fn object<'v>(value: Option<&'v Value>, wrong: &str) -> Result<Option<&'v Dict>, String> {
    match value {
        None | Some(Value::None) => Ok(None),
        Some(value) => value.as_dict().map(Some).ok_or_else(|| wrong.to_owned()),
    }
}

/// The `policies` object: names with boolean values (absent: none declared).
fn policies(value: Option<&Value>) -> Result<Vec<(String, bool)>, String> {
    let Some(dict) = object(
        value,
        "the handshake's policies must be an object of booleans",
    )?
    else {
        return Ok(Vec::new());
    };
    dict.iter()
        .map(|(name, value)| match value {
            Value::Bool(b) => Ok((name.to_string(), *b)),
            _ => Err(format!(
                "the handshake's policy {name} must be true or false"
            )),
        })
        .collect()
}

/// The `forms` object: dialect names with lists of their documented forms (absent: every
/// form of every dialect). A name that is not a form of its dialect is an error, so a
/// typo never silently leaves a dialect's cases unsent.
fn forms(value: Option<&Value>) -> Result<Vec<(String, Vec<String>)>, String> {
    let what = "the handshake's forms must be an object of lists of form names";
    let Some(dict) = object(value, what)? else {
        return Ok(Vec::new());
    };
    dict.iter()
        .map(|(dialect, forms)| {
            let dialect = dialect.to_string();
            let Value::List(items) = forms else {
                return Err(format!("the handshake's forms.{dialect} must be a list"));
            };
            let forms = items
                .iter()
                .map(|item| form_of(&dialect, item))
                .collect::<Result<_, _>>()?;
            Ok((dialect, forms))
        })
        .collect()
}

/// One listed form of `dialect`, checked against the documented ones.
fn form_of(dialect: &str, item: &Value) -> Result<String, String> {
    let form = item.as_py_str().map(|s| s.to_string()).unwrap_or_default();
    if suite_forms::is_form_of(dialect, &form) {
        return Ok(form);
    }
    Err(format!(
        "the handshake's forms.{dialect} lists {}, which is not a form of that dialect (its forms: {})",
        text(item),
        suite_forms::names_of(dialect).join(", ")
    ))
}

/// A list of strings; `dialects` may be left out by an implementation without salvage.
fn names(fields: &Fields<'_>, key: &str) -> Result<Vec<String>, String> {
    let items = if key == "dialects" {
        fields.opt_list(key)?
    } else {
        fields.list(key)?
    };
    items
        .iter()
        .map(|item| {
            item.as_py_str()
                .map(|s| s.to_string())
                .ok_or_else(|| format!("the handshake's {key} must list strings"))
        })
        .collect()
}

fn text(value: &Value) -> String {
    match value {
        Value::Str(s) => s.to_string(),
        other => crate::protocol::wire::encode_line(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode_line;

    fn parse(line: &str) -> Result<Handshake, String> {
        Handshake::parse(&decode_line(line.as_bytes()).map_err(|e| e.to_string())?)
    }

    #[test]
    fn reads_a_declaration() {
        let hs = parse(
            r#"{"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "py"}, "profile": "strict", "ops": ["salvage"], "dialects": ["react"]}"#,
        )
        .unwrap();
        assert_eq!(hs.profile, Profile::Strict);
        assert_eq!(hs.ops, ["salvage"]);
        assert_eq!(hs.dialects, ["react"]);
    }

    #[test]
    fn reads_forms_and_token_chunks() {
        let hs = parse(
            r#"{"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "py"}, "profile": "portable", "ops": ["salvage"], "dialects": ["deepseek", "mistral"], "forms": {"deepseek": ["v3-1"]}, "token_chunks": true}"#,
        )
        .unwrap();
        assert!(hs.token_chunks);
        assert!(hs.reads_form("deepseek", "v3-1"));
        assert!(!hs.reads_form("deepseek", "v3"));
        assert!(hs.reads_form("mistral", "array"));
        assert_eq!(Handshake::parse(&hs.to_value()), Ok(hs));
        let typo = parse(
            r#"{"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "py"}, "profile": "portable", "ops": ["salvage"], "forms": {"deepseek": ["v3.1"]}}"#,
        )
        .unwrap_err();
        assert!(typo.contains("v3-1"), "{typo}");
    }

    #[test]
    fn says_what_is_wrong() {
        let wrong_protocol = parse(r#"{"protocol": 2}"#).unwrap_err();
        assert!(wrong_protocol.contains("protocol 2"), "{wrong_protocol}");
        let no_name = parse(r#"{"protocol": 1, "implementation": {}}"#).unwrap_err();
        assert!(no_name.contains("implementation.name"), "{no_name}");
        let errored = parse(r#"{"errored": "boom"}"#).unwrap_err();
        assert!(errored.contains("boom"), "{errored}");
    }
}
