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
    /// `{root.key.key}`: a capture or the parsed content, and keys into it; `once` when it
    /// is the only placeholder of its root, whose value is then moved out, not copied.
    Placeholder { path: Vec<String>, once: bool },
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
                Some(path) => Shape::Placeholder { path, once: false },
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

    /// The shape with each placeholder marked `once` that is its root's only one.
    pub fn counted(mut self) -> Shape {
        let mut roots = Vec::new();
        self.each_placeholder(&mut |path, _| roots.push(path[0].clone()));
        self.each_placeholder(&mut |path, once| {
            *once = roots.iter().filter(|r| **r == path[0]).count() == 1;
        });
        self
    }

    /// Calls `visit` with each placeholder's path and its `once` mark.
    fn each_placeholder(&mut self, visit: &mut impl FnMut(&[String], &mut bool)) {
        match self {
            Shape::Dict(pairs) => pairs
                .iter_mut()
                .for_each(|(_, s)| s.each_placeholder(visit)),
            Shape::List(items) => items.iter_mut().for_each(|s| s.each_placeholder(visit)),
            Shape::Placeholder { path, once } => visit(path, once),
            Shape::Literal(_) => {}
        }
    }

    /// The shape filled from `scope`; `None` where transformers raises (a name not in
    /// scope, a key into something that is not a dict or lacks it). A value named once is
    /// moved out of the scope, not copied.
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
            Shape::Placeholder { path, once: true } => {
                let mut value = scope.swap_remove(&PyStr::from(path[0].as_str()))?;
                for key in &path[1..] {
                    let Value::Dict(mut dict) = value else {
                        return None;
                    };
                    value = dict.swap_remove(&PyStr::from(key.as_str()))?;
                }
                value
            }
            Shape::Placeholder { path, once: false } => {
                let mut value = scope.get(&PyStr::from(path[0].as_str()))?;
                for key in &path[1..] {
                    value = value.as_dict()?.get(&PyStr::from(key.as_str()))?;
                }
                value.clone()
            }
            Shape::Literal(value) => value.clone(),
        })
    }
}

/// The keys of `s` when the whole of it is a placeholder: `{` word runs joined by `.` `}`.
fn placeholder(s: &str) -> Option<Vec<String>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let parts: Vec<String> = inner.split('.').map(str::to_string).collect();
    let words = |p: &String| !p.is_empty() && p.chars().all(|c| is_word(c as u32));
    parts.iter().all(words).then_some(parts)
}

/// Whether a placeholder occurs anywhere in `s`.
fn holds_placeholder(s: &str) -> bool {
    s.match_indices('{').any(|(at, _)| {
        let rest = &s[at..];
        rest.find('}')
            .is_some_and(|end| placeholder(&rest[..=end]).is_some())
    })
}

/// The value of one region of `field` whose text is `body`: parsed, then shaped with the
/// open pattern's named `captures` in scope. `None` where transformers raises.
pub fn value(field: &Field, body: &[u8], mut captures: Dict) -> Option<Value> {
    let parsed = content::parse(field.parser, &field.args, body)?;
    let Some(shape) = &field.transform else {
        return Some(parsed);
    };
    if !field.transform_each {
        captures.insert(PyStr::from("content"), parsed);
        return shape.fill(&mut captures);
    }
    let Value::List(items) = parsed else {
        return None;
    };
    let each = items.into_iter().map(|item| {
        let mut scope = captures.clone();
        let Value::Dict(item) = item else {
            return None;
        };
        scope.extend(item);
        shape.fill(&mut scope)
    });
    each.collect::<Option<_>>().map(Value::List)
}

/// The calls a region's value holds: it, or each element of it when it is a list, read as
/// `{"type": "function", "function": {"name", "arguments"}}` or `{"name", "arguments"}`.
/// An element without a string name, or whose arguments are neither an object nor text,
/// is no call.
pub fn calls(value: Value) -> Vec<(PyStr, Value)> {
    let elements = match value {
        Value::List(items) => items,
        one => vec![one],
    };
    elements.into_iter().filter_map(call).collect()
}

/// One element as a call.
fn call(element: Value) -> Option<(PyStr, Value)> {
    let Value::Dict(mut element) = element else {
        return None;
    };
    let mut function = match element.swap_remove(&PyStr::from("function")) {
        Some(Value::Dict(function)) => function,
        _ => element,
    };
    let Some(Value::Str(name)) = function.swap_remove(&PyStr::from("name")) else {
        return None;
    };
    let args = match function.swap_remove(&PyStr::from("arguments")) {
        None => Value::Dict(Dict::default()),
        Some(Value::Str(text)) => decoded_object(&text).unwrap_or(Value::Str(text)),
        Some(args @ Value::Dict(_)) => args,
        Some(_) => return None,
    };
    Some((name, args))
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
            Some(vec!["content".into(), "args".into()])
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
