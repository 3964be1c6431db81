//! A region's value: its text parsed, shaped by the field's `transform`, and read as calls.

use super::anchor::Pattern;
use super::content::{self, Parser};
use super::load::Field;
use super::read::Captures;
use crate::profile::{JsonSite, Profile};
use crate::py::json::{Transcoded, loads};
use crate::py::unicode::is_word;
use crate::py::{Dict, PyStr, Value};
use crate::salvage::call::Args;
use crate::salvage::payload::read_back;

/// A region's text as its content parser read it.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed<'t> {
    /// Decoded into a value.
    Value(Value),
    /// Plain JSON, as `json.dumps` writes it.
    Written(Written<'t>),
    /// A list of plain JSON elements, each as `json.dumps` writes it.
    Elements(Vec<Written<'t>>),
    /// A dict written as `json.dumps` writes it (`xml-inline`'s arguments, written from
    /// their tags: `content::xml_inline_written`).
    Object(PyStr),
}

/// Plain JSON written as `json.dumps` writes it (`py::json::transcode`): a call is read
/// from its members without building the dicts a decoder builds (two per call, each a
/// hash table), which were most of what a template's JSON call cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Written<'t> {
    /// The value, and its members when it is an object.
    pub json: Transcoded<'t>,
    /// The text it was read from, which its members' keys index.
    pub source: &'t [u8],
}

impl<'t> Parsed<'t> {
    /// Whether it is a dict or a list.
    pub fn is_container(&self) -> bool {
        match self {
            Parsed::Value(value) => matches!(value, Value::Dict(_) | Value::List(_)),
            Parsed::Written(written) => matches!(written.json.text().first(), Some(b'{' | b'[')),
            Parsed::Elements(_) | Parsed::Object(_) => true,
        }
    }

    /// Where a placeholder `{content…}` is read from, when the content is one value
    /// written as JSON (not a list of them, and not decoded).
    fn members(&self) -> Option<Members<'_, 't>> {
        match self {
            Parsed::Written(written) => Some(Members::Content(written)),
            Parsed::Object(text) => Some(Members::Object(text)),
            Parsed::Value(_) | Parsed::Elements(_) => None,
        }
    }

    /// The value, decoded; `None` only if what `transcode` wrote did not read back.
    fn into_value(self) -> Option<Value> {
        match self {
            Parsed::Value(value) => Some(value),
            Parsed::Written(written) => read_back(written.json.text()),
            Parsed::Elements(elements) => elements
                .iter()
                .map(|e| read_back(e.json.text()))
                .collect::<Option<_>>()
                .map(Value::List),
            Parsed::Object(text) => read_back(text.as_bytes()),
        }
    }
}

/// Where a dict shape's placeholders are read from plain JSON's members, not the scope.
#[derive(Clone, Copy)]
enum Members<'w, 't> {
    /// The parsed content: `{content…}`.
    Content(&'w Written<'t>),
    /// The parsed content written as one dict: `{content…}`.
    Object(&'w PyStr),
    /// A list element whose keys are in scope (`transform_each`): `{key…}` for each of
    /// its keys.
    Item(&'w Written<'t>),
}

impl Members<'_, '_> {
    /// Whether the placeholder `path` is read from these members.
    fn names(self, path: &[PyStr]) -> bool {
        match self {
            Members::Content(_) | Members::Object(_) => names_content(path),
            Members::Item(item) => path.first().is_some_and(|key| item.member(key).is_some()),
        }
    }

    /// What the placeholder `path`, which these members name, is; `None` where `fill` is.
    fn entry(self, path: &[PyStr]) -> Option<Entry> {
        match self {
            Members::Content(content) => content.entry(&path[1..]),
            Members::Object(text) => match &path[1..] {
                [] => Some(Entry::Written(text.clone())),
                keys => Some(Entry::Value(
                    lookup(&read_back(text.as_bytes())?, keys)?.clone(),
                )),
            },
            Members::Item(item) => item.entry(path),
        }
    }
}

impl Written<'_> {
    /// What the placeholder `{content.path…}` names; `None` where `fill` is (a key the
    /// object lacks, a key into something that is not a dict).
    fn entry(&self, path: &[PyStr]) -> Option<Entry> {
        let text = self.json.text();
        let Some((key, rest)) = path.split_first() else {
            return Some(Entry::Written(PyStr::from_generalized_utf8(text)));
        };
        let member = self.member(key)?;
        if rest.is_empty() {
            return Some(Entry::Written(PyStr::from_generalized_utf8(member)));
        }
        let value = read_back(member)?;
        Some(Entry::Value(lookup(&value, rest)?.clone()))
    }

    /// The value of its member `key`, as `json.dumps` writes it.
    fn member(&self, key: &PyStr) -> Option<&[u8]> {
        self.json.get(self.source, key.as_bytes())
    }

    /// Its members as entries, when it is an object.
    fn entries(&self) -> Option<Entries> {
        let text = self.json.text();
        self.json.is_object().then(|| {
            let members = self.json.members.iter().map(|m| {
                let key = PyStr::from_generalized_utf8(&self.source[m.key.clone()]);
                let value = PyStr::from_generalized_utf8(&text[m.value.clone()]);
                (key, Entry::Written(value))
            });
            Entries(members.collect())
        })
    }
}

/// A `transform`: a structure whose strings are either literals or whole placeholders
/// (`"{content}"`, `"{content.args}"`, `"{name}"`), each replaced by what it names.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A dict of shapes.
    Dict(Vec<(PyStr, Shape)>),
    /// A list of shapes.
    List(Vec<Shape>),
    /// `{root.key.key}`: a capture or the parsed content, and keys into it; `moved` when
    /// no other placeholder's path is this one's or leads into or out of it, so that its
    /// value is moved out of the scope, not copied (`{content.name}` and
    /// `{content.arguments}` each take their own key of one parsed object).
    Placeholder { path: Vec<PyStr>, moved: bool },
    /// Anything else, as written.
    Literal(Value),
}

impl Shape {
    /// The shape of a transform as written; a string that mixes a placeholder with other
    /// text is refused, as transformers refuses it.
    pub fn new(written: &serde_json::Value) -> Result<Shape, String> {
        Ok(match written {
            serde_json::Value::Object(map) => Shape::Dict(
                map.iter()
                    .map(|(k, v)| Ok((PyStr::from(k.as_str()), Shape::new(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            serde_json::Value::Array(items) => {
                Shape::List(items.iter().map(Shape::new).collect::<Result<_, _>>()?)
            }
            serde_json::Value::String(s) => match placeholder(s) {
                Some(path) => Shape::Placeholder { path, moved: false },
                None if holds_placeholder(s) => {
                    return Err(format!(
                        "transform string {s:?} mixes a {{placeholder}} with literal text: \
                         use a whole-string placeholder or a plain literal"
                    ));
                }
                None => Shape::Literal(Value::str(s)),
            },
            other => {
                let limits = Profile::Strict.json_limits(JsonSite::Tag);
                Shape::Literal(
                    loads(other.to_string().as_bytes(), limits)
                        .map_err(|e| format!("transform value {other} cannot be read: {e:?}"))?,
                )
            }
        })
    }

    /// The shape with each placeholder marked `moved` whose path no other placeholder's
    /// path begins or is begun by.
    pub fn counted(mut self) -> Shape {
        let mut paths = Vec::new();
        self.each_placeholder(&mut |path, _| paths.push(path.to_vec()));
        self.each_placeholder(&mut |path, moved| {
            let related = |other: &&Vec<PyStr>| other.starts_with(path) || path.starts_with(other);
            *moved = paths.iter().filter(related).count() == 1;
        });
        self
    }

    /// Whether a dict shape of `pairs` can be filled from plain JSON's members: every
    /// placeholder is an entry of a dict shape (in a list shape, it would need the value
    /// decoded).
    fn fills_from_members(pairs: &[(PyStr, Shape)]) -> bool {
        pairs.iter().all(|(_, shape)| match shape {
            Shape::Dict(inner) => Shape::fills_from_members(inner),
            Shape::List(_) => !shape.holds_placeholder(),
            Shape::Placeholder { .. } | Shape::Literal(_) => true,
        })
    }

    /// Whether a placeholder occurs in the shape.
    fn holds_placeholder(&self) -> bool {
        match self {
            Shape::Dict(pairs) => pairs.iter().any(|(_, s)| s.holds_placeholder()),
            Shape::List(items) => items.iter().any(Shape::holds_placeholder),
            Shape::Placeholder { .. } => true,
            Shape::Literal(_) => false,
        }
    }

    /// Calls `visit` with each placeholder's path and its `moved` mark.
    fn each_placeholder(&mut self, visit: &mut impl FnMut(&[PyStr], &mut bool)) {
        match self {
            Shape::Dict(pairs) => pairs
                .iter_mut()
                .for_each(|(_, s)| s.each_placeholder(visit)),
            Shape::List(items) => items.iter_mut().for_each(|s| s.each_placeholder(visit)),
            Shape::Placeholder { path, moved } => visit(path, moved),
            Shape::Literal(_) => {}
        }
    }

    /// The shape filled from `scope`; `None` where transformers raises (a name not in
    /// scope, a key into something that is not a dict or lacks it). A `moved` value is
    /// taken out of the scope, not copied.
    fn fill(&self, scope: &mut Dict) -> Option<Value> {
        Some(match self {
            Shape::Dict(pairs) => Value::Dict(
                pairs
                    .iter()
                    .map(|(k, shape)| Some((k.clone(), shape.fill(scope)?)))
                    .collect::<Option<_>>()?,
            ),
            Shape::List(items) => {
                Value::List(items.iter().map(|s| s.fill(scope)).collect::<Option<_>>()?)
            }
            Shape::Placeholder { path, moved: true } => {
                let (last, parents) = path.split_last()?;
                let mut dict = scope;
                for key in parents {
                    dict = dict.get_mut(key)?.as_dict_mut()?;
                }
                dict.swap_remove(last)?
            }
            Shape::Placeholder { path, moved: false } => {
                let mut value = scope.get(&path[0])?;
                for key in &path[1..] {
                    value = value.as_dict()?.get(key)?;
                }
                value.clone()
            }
            Shape::Literal(value) => value.clone(),
        })
    }
}

/// The keys of `s` when the whole of it is a placeholder: `{` word runs joined by `.` `}`.
fn placeholder(s: &str) -> Option<Vec<PyStr>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let words = |p: &&str| !p.is_empty() && p.chars().all(|c| is_word(c as u32));
    let parts: Vec<&str> = inner.split('.').collect();
    parts
        .iter()
        .all(words)
        .then(|| parts.into_iter().map(PyStr::from).collect())
}

/// What `keys`, one into each dict in turn, name in `value`; `None` where one is missing
/// or leads into something that is not a dict.
fn lookup<'v>(value: &'v Value, keys: &[PyStr]) -> Option<&'v Value> {
    keys.iter()
        .try_fold(value, |at, key| at.as_dict()?.get(key))
}

/// Whether a placeholder's path starts at the parsed content, `{content…}`.
fn names_content(path: &[PyStr]) -> bool {
    path.first()
        .is_some_and(|root| root.as_bytes() == b"content")
}

/// Whether a placeholder occurs anywhere in `s`.
fn holds_placeholder(s: &str) -> bool {
    s.match_indices('{').any(|(at, _)| {
        let rest = &s[at..];
        rest.find('}')
            .is_some_and(|end| placeholder(&rest[..=end]).is_some())
    })
}

/// The calls of one region of `field` whose text is `body`, each given to `emit`: its
/// text parsed (unless the reading already has its value, `parsed`), shaped with the open
/// pattern's named `captures` in scope, and read as calls (`value_calls`); none where
/// transformers raises.
pub fn calls(
    field: &Field,
    body: &[u8],
    parsed: Option<Parsed<'_>>,
    captures: &Captures<'_>,
    emit: &mut dyn FnMut(PyStr, Args),
) {
    let parsed = parsed.or_else(|| match field.parser {
        Parser::XmlInline => content::xml_inline_written(&field.args, body),
        other => content::parse(other, &field.args, body).map(Parsed::Value),
    });
    let Some(parsed) = parsed else {
        return;
    };
    let scope = || captures.dict(field.open.as_ref());
    let mut emit_all = |calls: Vec<(PyStr, Args)>| calls.into_iter().for_each(|(n, a)| emit(n, a));
    let members = parsed.members();
    if let (Some(plan), Some(members)) = (&field.plan, members) {
        let call = plan.call(captures, members);
        return call.into_iter().for_each(|(n, a)| emit(n, a));
    }
    let value = match (&parsed, &field.transform, members) {
        (Parsed::Written(written), None, _) => return written_calls(written, emit),
        (Parsed::Elements(elements), None, _) => {
            return elements.iter().for_each(|e| written_calls(e, emit));
        }
        (_, Some(Shape::Dict(pairs)), Some(members))
            if !field.transform_each && Shape::fills_from_members(pairs) =>
        {
            let call = Entries::fill(pairs, &mut scope(), Some(members)).and_then(Entries::call);
            return call.into_iter().for_each(|(n, a)| emit(n, a));
        }
        (Parsed::Elements(elements), Some(Shape::Dict(pairs)), _)
            if field.transform_each && Shape::fills_from_members(pairs) =>
        {
            return emit_all(each_item_calls(pairs, elements, &scope()).unwrap_or_default());
        }
        _ => parsed.into_value(),
    };
    if let Some(value) = value {
        emit_all(value_shaped_calls(field, value, scope()));
    }
}

/// The calls of a region's decoded value, shaped as `calls` says.
fn value_shaped_calls(field: &Field, parsed: Value, mut captures: Dict) -> Vec<(PyStr, Args)> {
    let Some(shape) = &field.transform else {
        return value_calls(parsed);
    };
    if !field.transform_each {
        captures.insert(PyStr::from("content"), parsed);
        return shape.fill_calls(&mut captures).unwrap_or_default();
    }
    let Value::List(items) = parsed else {
        return Vec::new();
    };
    let each = items.into_iter().map(|item| {
        let mut scope = captures.clone();
        let Value::Dict(item) = item else {
            return None;
        };
        scope.extend(item);
        shape.fill_call(&mut scope)
    });
    let calls: Option<Vec<_>> = each.collect();
    calls.into_iter().flatten().flatten().collect()
}

/// The calls plain JSON with no transform holds: the object's, read from its members, or
/// each element's of a list (decoded).
fn written_calls(written: &Written<'_>, emit: &mut dyn FnMut(PyStr, Args)) {
    let calls = match written.entries() {
        Some(entries) => return entries.call().into_iter().for_each(|(n, a)| emit(n, a)),
        None => read_back(written.json.text()).map_or_else(Vec::new, value_calls),
    };
    calls.into_iter().for_each(|(n, a)| emit(n, a));
}

/// The calls of a `transform_each` dict shape filled from each element of a list, its
/// keys in scope beside the `captures`; `None` where transformers raises (an element that
/// is not a dict, a placeholder nothing names).
fn each_item_calls(
    pairs: &[(PyStr, Shape)],
    elements: &[Written<'_>],
    captures: &Dict,
) -> Option<Vec<(PyStr, Args)>> {
    let mut calls = Vec::new();
    for item in elements {
        if !item.json.is_object() {
            return None;
        }
        let mut scope = captures.clone();
        calls.extend(Entries::fill(pairs, &mut scope, Some(Members::Item(item)))?.call());
    }
    Some(calls)
}

impl Shape {
    /// The calls the shape filled from `scope` holds (`value_calls`), `None` where
    /// `fill` is. A dict shape is filled into a list of entries, not into a dict: a call
    /// reads two of them, and a hash table of every entry would be built only to be
    /// taken apart.
    fn fill_calls(&self, scope: &mut Dict) -> Option<Vec<(PyStr, Args)>> {
        match self {
            Shape::Dict(_) => Some(self.fill_call(scope)?.into_iter().collect()),
            other => Some(value_calls(other.fill(scope)?)),
        }
    }

    /// The one call the shape filled from `scope` is, if it is one (`call`); `None` where
    /// `fill` is.
    fn fill_call(&self, scope: &mut Dict) -> Option<Option<(PyStr, Args)>> {
        match self {
            Shape::Dict(pairs) => Some(Entries::fill(pairs, scope, None)?.call()),
            other => Some(call(other.fill(scope)?)),
        }
    }
}

/// A transform that is one call, `{"name": …, "arguments": …}` (perhaps inside
/// `"function"`), every other entry a literal: where its name and arguments come from,
/// found when the template loads. A call read from plain JSON or from written tags takes
/// them straight from the content and the open's groups, with no scope and no entries
/// built for it (`Entries::fill` gives the same call).
#[derive(Clone, Debug)]
pub struct CallPlan {
    name: Source,
    arguments: Option<Source>,
}

/// Where a planned call's name or arguments come from.
#[derive(Clone, Debug)]
enum Source {
    /// `{content…}`, read from the content's members: the whole path.
    Content(Vec<PyStr>),
    /// `{group}`: the text of a named group of the open.
    Group(usize),
    /// A placeholder nothing in scope names: no call is read.
    Missing,
    /// A literal.
    Literal(Value),
}

impl CallPlan {
    /// The plan of `transform`, whose placeholders other than `{content…}` name groups
    /// of `open`; `None` where the transform is not one call of placeholders and
    /// literals.
    pub fn new(transform: &Shape, open: Option<&Pattern>) -> Option<CallPlan> {
        let Shape::Dict(pairs) = transform else {
            return None;
        };
        let (function, outer) = match entry(pairs, "function") {
            Some(Shape::Dict(inner)) => (inner.as_slice(), &["function"][..]),
            Some(_) => return None,
            None => (pairs.as_slice(), &["name", "arguments"][..]),
        };
        let literal_but = |pairs: &[(PyStr, Shape)], keys: &[&str]| {
            let named = |k: &PyStr| keys.iter().any(|key| k.as_bytes() == key.as_bytes());
            pairs
                .iter()
                .all(|(k, shape)| named(k) || matches!(shape, Shape::Literal(_)))
        };
        if !literal_but(pairs, outer) || !literal_but(function, &["name", "arguments"]) {
            return None;
        }
        let arguments = match entry(function, "arguments") {
            Some(shape) => Some(Source::new(shape, open)?),
            None => None,
        };
        let name = Source::new(entry(function, "name")?, open)?;
        Some(CallPlan { name, arguments })
    }

    /// The call, from the open's `captures` and the content's `members`.
    fn call(&self, captures: &Captures<'_>, members: Members) -> Option<(PyStr, Args)> {
        let name = self.name.entry(captures, members)?;
        let arguments = match &self.arguments {
            Some(source) => Some(source.entry(captures, members)?),
            None => None,
        };
        call_of(Some(name), arguments)
    }
}

impl Source {
    /// Where `shape` comes from; `None` for a dict or a list shape.
    fn new(shape: &Shape, open: Option<&Pattern>) -> Option<Source> {
        match shape {
            Shape::Literal(value) => Some(Source::Literal(value.clone())),
            Shape::Placeholder { path, .. } if names_content(path) => {
                Some(Source::Content(path.clone()))
            }
            Shape::Placeholder { path, .. } => {
                let group = path[0].as_str().and_then(|name| open?.group_index(name));
                // A group's text is a string, with no key into it.
                Some(match (group, path.len()) {
                    (Some(index), 1) => Source::Group(index),
                    _ => Source::Missing,
                })
            }
            Shape::Dict(_) | Shape::List(_) => None,
        }
    }

    /// What it gives, as `Entries::fill` fills it; `None` where that fails.
    fn entry(&self, captures: &Captures<'_>, members: Members) -> Option<Entry> {
        match self {
            Source::Content(path) => members.entry(path),
            Source::Group(index) => captures.group(*index).map(|s| Entry::Value(Value::Str(s))),
            Source::Missing => None,
            Source::Literal(value) => Some(Entry::Value(value.clone())),
        }
    }
}

/// The shape under `key` in a dict shape's `pairs`.
fn entry<'s>(pairs: &'s [(PyStr, Shape)], key: &str) -> Option<&'s Shape> {
    pairs
        .iter()
        .find(|(k, _)| k.as_bytes() == key.as_bytes())
        .map(|(_, shape)| shape)
}

/// A dict, filled or parsed, as a list of its entries: what a call is read from.
struct Entries(Vec<(PyStr, Entry)>);

/// One entry's value: a dict shape's entries, any value, or plain JSON as `json.dumps`
/// writes it.
enum Entry {
    Dict(Entries),
    Value(Value),
    Written(PyStr),
}

impl Entries {
    /// A dict shape's entries filled from `scope`, in order, with the placeholders that
    /// `members` names read from them (`Shape::fills_from_members`); `None` where `fill`
    /// is.
    fn fill(
        pairs: &[(PyStr, Shape)],
        scope: &mut Dict,
        members: Option<Members>,
    ) -> Option<Entries> {
        let filled = pairs.iter().map(|(key, shape)| {
            let entry = match (shape, members) {
                (Shape::Dict(inner), _) => Entry::Dict(Entries::fill(inner, scope, members)?),
                (Shape::Placeholder { path, .. }, Some(from)) if from.names(path) => {
                    from.entry(path)?
                }
                (other, _) => Entry::Value(other.fill(scope)?),
            };
            Some((key.clone(), entry))
        });
        filled.collect::<Option<_>>().map(Entries)
    }

    /// A dict's entries.
    fn of(dict: Dict) -> Entries {
        Entries(
            dict.into_iter()
                .map(|(k, v)| (k, Entry::Value(v)))
                .collect(),
        )
    }

    /// The entry under `key`, taken out.
    fn take(&mut self, key: &str) -> Option<Entry> {
        let at = self
            .0
            .iter()
            .position(|(k, _)| k.as_bytes() == key.as_bytes())?;
        Some(self.0.swap_remove(at).1)
    }

    /// The call these entries are, read as `{"type": "function", "function": {"name",
    /// "arguments"}}` or `{"name", "arguments"}` (`call_of`).
    fn call(mut self) -> Option<(PyStr, Args)> {
        let mut function = match self.take("function").map(Entry::value) {
            Some(Entry::Dict(function)) => function,
            Some(Entry::Value(Value::Dict(function))) => Entries::of(function),
            _ => self,
        };
        call_of(function.take("name"), function.take("arguments"))
    }
}

/// The call of a `name` and `arguments` entry: none without a string name, or with
/// arguments that are neither an object nor text.
fn call_of(name: Option<Entry>, arguments: Option<Entry>) -> Option<(PyStr, Args)> {
    let Some(Entry::Value(Value::Str(name))) = name.map(Entry::value) else {
        return None;
    };
    let args = match arguments {
        None => Value::Dict(Dict::default()),
        Some(Entry::Written(text)) if text.as_bytes().first() == Some(&b'{') => {
            return Some((name, Args::Written(text)));
        }
        Some(entry) => match entry.value() {
            Entry::Value(Value::Str(text)) => decoded_object(&text).unwrap_or(Value::Str(text)),
            Entry::Value(args @ Value::Dict(_)) => args,
            Entry::Dict(entries) => entries.into_dict(),
            _ => return None,
        },
    };
    Some((name, Args::Decoded(args)))
}

impl Entry {
    /// A written entry decoded, the other kinds as they are.
    fn value(self) -> Entry {
        match self {
            Entry::Written(_) => Entry::Value(self.into_value()),
            other => other,
        }
    }

    /// The entry as a value: a dict shape's entries become the dict they describe. What
    /// `transcode` wrote always reads back; were it not to, it would be `None`, which no
    /// call takes as a name or arguments.
    fn into_value(self) -> Value {
        match self {
            Entry::Value(value) => value,
            Entry::Dict(entries) => entries.into_dict(),
            Entry::Written(text) => read_back(text.as_bytes()).unwrap_or(Value::None),
        }
    }
}

impl Entries {
    /// The dict these entries describe.
    fn into_dict(self) -> Value {
        Value::Dict(
            self.0
                .into_iter()
                .map(|(key, entry)| (key, entry.into_value()))
                .collect(),
        )
    }
}

/// The calls a region's value holds: it, or each element of it when it is a list.
fn value_calls(value: Value) -> Vec<(PyStr, Args)> {
    let elements = match value {
        Value::List(items) => items,
        one => vec![one],
    };
    elements.into_iter().filter_map(call).collect()
}

/// One element as a call (`Entries::call`); none unless it is a dict.
fn call(element: Value) -> Option<(PyStr, Args)> {
    match element {
        Value::Dict(dict) => Entries::of(dict).call(),
        _ => None,
    }
}

/// Arguments written as JSON text, decoded when they are an object.
fn decoded_object(text: &PyStr) -> Option<Value> {
    let limits = Profile::Strict.json_limits(JsonSite::Tag);
    loads(text.as_bytes(), limits)
        .ok()
        .filter(|v| matches!(v, Value::Dict(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_whole_strings_of_dotted_words() {
        assert_eq!(
            placeholder("{content.args}"),
            Some(vec![PyStr::from("content"), PyStr::from("args")])
        );
        assert_eq!(placeholder("{a..b}"), None);
        assert!(holds_placeholder("call {name} now") && !holds_placeholder("{ not one }"));
        assert!(Shape::new(&serde_json::json!({"f": "x {name}"})).is_err());
    }

    #[test]
    fn a_function_wrapper_or_a_bare_call_names_the_call() {
        let wrapped = Value::dict([(
            "function",
            Value::dict([
                ("name", Value::str("f")),
                ("arguments", Value::str("{\"a\": 1}")),
            ]),
        )]);
        let (name, args) = call(wrapped).unwrap();
        assert_eq!(name.as_str(), Some("f"));
        assert!(matches!(args, Args::Decoded(Value::Dict(_))));
        assert!(call(Value::dict([("name", Value::int(3))])).is_none());
    }

    /// The calls `calls` gives, checked to be the calls it gives without the field's
    /// plan, and from the content decoded (`content`) rather than `parsed`.
    fn collected(
        field: &Field,
        body: &str,
        parsed: Option<Parsed>,
        content: Value,
        captures: &Captures,
    ) -> Vec<(PyStr, Args)> {
        let run = |field: &Field, parsed| {
            let mut out = Vec::new();
            calls(field, body.as_bytes(), parsed, captures, &mut |n, a| {
                out.push((n, a))
            });
            out
        };
        let planned = run(field, parsed.clone());
        let unplanned = run(
            &Field {
                plan: None,
                ..field.clone()
            },
            parsed,
        );
        let from_value = run(field, Some(Parsed::Value(content)));
        let context = format!("{:?} {body}", field.transform);
        assert_eq!(decoded(&planned), decoded(&unplanned), "{context}");
        assert_eq!(decoded(&planned), decoded(&from_value), "{context}");
        planned
    }

    /// A call's name and arguments, decoded.
    fn decoded(calls: &[(PyStr, Args)]) -> Vec<(PyStr, Value)> {
        let value = |args: &Args| match args {
            Args::Decoded(value) => value.clone(),
            Args::Written(text) => read_back(text.as_bytes()).unwrap(),
        };
        calls.iter().map(|(n, a)| (n.clone(), value(a))).collect()
    }

    #[test]
    fn plain_json_read_from_its_members_gives_the_decoded_calls() {
        let transforms = [
            "",
            r#", "transform": {"name": "{content.name}", "arguments": "{content.arguments}"}"#,
            r#", "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content}"}}"#,
            r#", "transform": {"name": "{content.function.name}", "arguments": {"x": "{content.x}"}}"#,
            r#", "transform": {"name": "{content.name}", "arguments": {"k": [1, "{content.x}"]}}"#,
            r#", "transform": {"name": "{content.name}", "arguments": "{content.missing}"}"#,
            r#", "transform": {"name": "{content.name}", "arguments": "{content.name.deeper}"}"#,
            r#", "transform": {"name": "{name}", "arguments": "{arguments}"}, "transform_each": true"#,
            r#", "transform": {"name": "{name}", "arguments": {"x": "{x}", "t": "{tag}"}}, "transform_each": true"#,
        ];
        let bodies = [
            r#"{"name": "f", "arguments": {"city": "Paris", "n": 3}}"#,
            r#"{"name": "f", "arguments": {"a": {"b": [1, 2]}}, "x": "café"}"#,
            r#"{"name": "f", "arguments": "{\"a\": 1}", "x": null}"#,
            r#"{"function": {"name": "f", "arguments": {"a": 1}}, "name": "g", "x": 2}"#,
            r#"{"name": "", "tool": "f", "parameters": {}}"#,
            r#"{"name": 3, "arguments": {}}"#,
            r#"{"name": "f", "arguments": [1]}"#,
            r#"[{"name": "f", "arguments": {}}, {"name": "g", "x": "y"}]"#,
            r#"[ {"name": "f", "arguments": {"a": "é"}, "x": 1} , {"name": "g", "arguments": {}} ]"#,
            r#"[{"name": "f", "arguments": {}}, 3]"#,
            r#"[]"#,
        ];
        let limits = Profile::Strict.json_limits(JsonSite::Tag);
        for transform in transforms {
            // A named group reaches the calls only through a transform.
            let tag = if transform.is_empty() { "" } else { "?P<tag>" };
            let template = super::super::Template::from_json(&format!(
                r#"{{"fields": {{"tool_calls": {{"open_pattern": "<c(?: tag=({tag}\\w+))?>", "close": "</c>", "content": "json"{transform}}}}}}}"#
            ))
            .unwrap();
            for body in bodies {
                let text = format!("<c tag=t>{body}</c>");
                let region = super::super::read::regions(text.as_bytes(), &template).remove(0);
                let field = &template.fields[region.field];
                assert!(matches!(
                    region.value,
                    Some(Parsed::Written(_) | Parsed::Elements(_))
                ));
                let value = loads(body.as_bytes(), limits).unwrap();
                collected(field, body, region.value, value, &region.captures);
            }
        }
    }

    /// The calls of tagged arguments written as JSON are the calls of the dict they
    /// are read as, through every shape of transform.
    #[test]
    fn xml_inline_arguments_written_give_the_decoded_calls() {
        let transforms = [
            r#"{"name": "{name}", "arguments": "{content}"}"#,
            r#"{"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}"#,
            r#"{"name": "{name}", "arguments": {"x": "{content.a}", "all": "{content}"}}"#,
            r#"{"name": "{content.a}", "arguments": "{content}"}"#,
            r#"{"name": "{name}", "arguments": ["{content}"]}"#,
            r#"{"name": "{name}", "type": "x", "arguments": "{content}"}"#,
            r#"{"name": "{name}"}"#,
            r#"{"name": "lit", "arguments": "{content}"}"#,
            r#"{"name": "{name}", "arguments": "{content.a}"}"#,
            r#"{"name": "{missing}", "arguments": "{content}"}"#,
            r#"{"name": "{name.x}", "arguments": "{content}"}"#,
            r#"{"name": "{name}", "arguments": "{name}"}"#,
            r#"{"name": "{opt}", "arguments": "{content}"}"#,
            r#"{"function": "x", "name": "{name}", "arguments": "{content}"}"#,
            r#"{"function": {"name": "{name}", "arguments": "{content}"}, "id": "{name}"}"#,
        ];
        let bodies = [
            "<a>1</a><b>é\"</b>",
            "<a>f</a>",
            "<a>1</a><a>2</a>",
            "",
            "<b>x</b>",
        ];
        let (mut written, mut planned) = (0, 0);
        for transform in transforms {
            let template = super::super::Template::from_json(&format!(
                r#"{{"fields": {{"tool_calls": {{"open_pattern": "<c (?P<name>\\w+)(?P<opt>!)?>", "close": "</c>",
                   "content": "xml-inline", "transform": {transform},
                   "content_args": {{"tag_pattern": "<(?P<key>\\w+)>(?P<value>[^<]*)</\\w+>"}}}}}}}}"#
            ))
            .unwrap();
            planned += usize::from(template.fields[template.calls].plan.is_some());
            for body in bodies {
                let text = format!("<c f>{body}</c>");
                let region = super::super::read::regions(text.as_bytes(), &template).remove(0);
                let field = &template.fields[region.field];
                let parsed = content::parse(field.parser, &field.args, body.as_bytes());
                let value = parsed.expect("every body reads");
                let read = collected(field, body, None, value, &region.captures);
                written += read
                    .iter()
                    .filter(|(_, a)| matches!(a, Args::Written(_)))
                    .count();
            }
        }
        assert!(written >= 12 && planned == 11, "{written} {planned}");
    }
}
