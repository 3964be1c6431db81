//! A region's value: its text parsed, shaped by the field's `transform`, and read as calls.

use super::content;
use super::load::Field;
use crate::profile::{JsonSite, Profile};
use crate::py::json::loads;
use crate::py::unicode::is_word;
use crate::py::{Dict, PyStr, Value};

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

/// Whether a placeholder occurs anywhere in `s`.
fn holds_placeholder(s: &str) -> bool {
    s.match_indices('{').any(|(at, _)| {
        let rest = &s[at..];
        rest.find('}')
            .is_some_and(|end| placeholder(&rest[..=end]).is_some())
    })
}

/// The calls of one region of `field` whose text is `body`: its text parsed (unless the
/// reading already has its value, `parsed`), shaped with the open pattern's named
/// `captures` in scope, and read as calls (`value_calls`); none where transformers raises.
pub fn calls(
    field: &Field,
    body: &[u8],
    parsed: Option<Value>,
    mut captures: Dict,
) -> Vec<(PyStr, Value)> {
    let Some(parsed) = parsed.or_else(|| content::parse(field.parser, &field.args, body)) else {
        return Vec::new();
    };
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

impl Shape {
    /// The calls the shape filled from `scope` holds (`value_calls`), `None` where
    /// `fill` is. A dict shape is filled into a list of entries, not into a dict: a call
    /// reads two of them, and a hash table of every entry would be built only to be
    /// taken apart.
    fn fill_calls(&self, scope: &mut Dict) -> Option<Vec<(PyStr, Value)>> {
        match self {
            Shape::Dict(_) => Some(self.fill_call(scope)?.into_iter().collect()),
            other => Some(value_calls(other.fill(scope)?)),
        }
    }

    /// The one call the shape filled from `scope` is, if it is one (`call`); `None` where
    /// `fill` is.
    fn fill_call(&self, scope: &mut Dict) -> Option<Option<(PyStr, Value)>> {
        match self {
            Shape::Dict(pairs) => Some(Entries::fill(pairs, scope)?.call()),
            other => Some(call(other.fill(scope)?)),
        }
    }
}

/// A dict, filled or parsed, as a list of its entries: what a call is read from.
struct Entries(Vec<(PyStr, Entry)>);

/// One entry's value: a dict shape's entries, or any value.
enum Entry {
    Dict(Entries),
    Value(Value),
}

impl Entries {
    /// A dict shape's entries filled from `scope`, in order; `None` where `fill` is.
    fn fill(pairs: &[(PyStr, Shape)], scope: &mut Dict) -> Option<Entries> {
        let filled = pairs.iter().map(|(key, shape)| {
            let entry = match shape {
                Shape::Dict(inner) => Entry::Dict(Entries::fill(inner, scope)?),
                other => Entry::Value(other.fill(scope)?),
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
    /// "arguments"}}` or `{"name", "arguments"}`: none without a string name, or with
    /// arguments that are neither an object nor text.
    fn call(mut self) -> Option<(PyStr, Value)> {
        let mut function = match self.take("function") {
            Some(Entry::Dict(function)) => function,
            Some(Entry::Value(Value::Dict(function))) => Entries::of(function),
            _ => self,
        };
        let Some(Value::Str(name)) = function.take("name").map(Entry::value) else {
            return None;
        };
        let args = match function.take("arguments").map(Entry::value) {
            None => Value::Dict(Dict::default()),
            Some(Value::Str(text)) => decoded_object(&text).unwrap_or(Value::Str(text)),
            Some(args @ Value::Dict(_)) => args,
            Some(_) => return None,
        };
        Some((name, args))
    }
}

impl Entry {
    /// The entry as a value: a dict shape's entries become the dict they describe.
    fn value(self) -> Value {
        match self {
            Entry::Value(value) => value,
            Entry::Dict(entries) => Value::Dict(
                entries
                    .0
                    .into_iter()
                    .map(|(key, entry)| (key, entry.value()))
                    .collect(),
            ),
        }
    }
}

/// The calls a region's value holds: it, or each element of it when it is a list.
fn value_calls(value: Value) -> Vec<(PyStr, Value)> {
    let elements = match value {
        Value::List(items) => items,
        one => vec![one],
    };
    elements.into_iter().filter_map(call).collect()
}

/// One element as a call (`Entries::call`); none unless it is a dict.
fn call(element: Value) -> Option<(PyStr, Value)> {
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
        assert!(matches!(args, Value::Dict(_)));
        assert!(call(Value::dict([("name", Value::int(3))])).is_none());
    }
}
