//! Op `turn`: a scripted model drives one agent turn through [`toolfix::turn::Turn`].
//!
//! The replies are handed to the turn one per model call. When the turn asks for a reply
//! the script does not hold, the scripted model raises: the turn ends there with
//! `raised = "ScriptExhausted: reply N was requested but the script holds M"`, and the
//! request that found the script empty counts as a model call.

use crate::protocol::fields::Fields;
use toolfix::Profile;
use toolfix::dispatch::Registry;
use toolfix::py::{PyStr, Value};
use toolfix::turn::{Ending, Executed, NativeCall, Options, Reply, Step, Turn};
use toolfix::{Adapter, Loop};

/// Reads the input, runs the turn, and shapes
/// `{"executed", "tool_messages", "final", "raised"?, "model_calls"}`.
pub fn run(input: &Value, profile: Profile) -> Result<Value, String> {
    let fields = Fields::of(input, "input")?
        .only(&["tools", "adapter", "loop", "prompt", "deny", "replies"])?;
    let registry = registry(fields.list("tools")?, fields.opt_list("deny")?)?;
    let adapter: Adapter = fields.parse("adapter")?;
    let kind: Loop = fields.parse("loop")?;
    fields.opt_py_str("prompt")?;
    let replies = fields
        .list("replies")?
        .iter()
        .enumerate()
        .map(|(i, r)| reply(i, r))
        .collect::<Result<Vec<_>, _>>()?;
    let options = Options::new(adapter).with_loop(kind).with_profile(profile);
    let mut turn = Turn::new(&registry, options);
    let mut script = replies.into_iter();
    let held = script.len();
    let mut step = Step::CallModel(Default::default());
    let (ending, model_calls) = loop {
        match step {
            Step::Done(ending) => break (Some(ending), turn.replies()),
            Step::CallModel(_) => match script.next() {
                Some(reply) => step = turn.on_reply(reply),
                None => break (None, turn.replies() + 1),
            },
        }
    };
    Ok(output(&turn, ending, model_calls, held))
}

/// The output object.
fn output(turn: &Turn<'_>, ending: Option<Ending>, model_calls: usize, held: usize) -> Value {
    let executed = turn.executed().iter().map(executed).collect();
    let tool_messages = turn
        .messages()
        .iter()
        .filter(|m| m.purpose.answers_calls())
        .map(|m| Value::Str(m.content.clone()))
        .collect();
    let (answer, raised) = match ending {
        Some(Ending::Answered(text)) => (text.map_or(Value::None, Value::Str), None),
        Some(Ending::Raised(raised)) => {
            let mut text = PyStr::from(raised.class);
            text.push_str(": ");
            text.push_py(&raised.message);
            (Value::None, Some(text))
        }
        None => (
            Value::None,
            Some(PyStr::from(format!(
                "ScriptExhausted: reply {model_calls} was requested but the script holds {held}"
            ))),
        ),
    };
    let mut pairs = vec![
        ("executed", Value::List(executed)),
        ("tool_messages", Value::List(tool_messages)),
        ("final", answer),
    ];
    if let Some(raised) = raised {
        pairs.push(("raised", Value::Str(raised)));
    }
    pairs.push(("model_calls", Value::int(model_calls as i64)));
    Value::dict(pairs)
}

/// `{"name": S, "kwargs": {…}}`.
fn executed(run: &Executed) -> Value {
    Value::dict([
        ("name", Value::Str(run.name.clone())),
        ("kwargs", Value::Dict(run.kwargs.iter().cloned().collect())),
    ])
}

/// The registry of the input's TOOL specs and deny-list.
fn registry(tools: &[Value], deny: &[Value]) -> Result<Registry, String> {
    let mut registry = Registry::new();
    for spec in tools {
        if spec.get("mcp").is_some() {
            return Err("input.tools: a turn's tools are TOOL specs (no mcp groups)".to_owned());
        }
        registry.add(super::execute::tool(spec)?);
    }
    for name in deny {
        let name = name.as_py_str().ok_or("input.deny must list strings")?;
        registry.deny(name.clone());
    }
    Ok(registry)
}

/// One reply: `{"content": S | null, "tool_calls": [{"name": S, "arguments": S}]?}`.
fn reply(index: usize, value: &Value) -> Result<Reply, String> {
    let fields = Fields::of(value, "reply")?.only(&["content", "tool_calls"])?;
    let content = match fields.value("content") {
        Ok(Value::None) => None,
        Ok(Value::Str(text)) => Some(text.clone()),
        Ok(_) => return Err(format!("replies[{index}].content must be a string or null")),
        Err(_) => return Err(format!("replies[{index}].content is missing")),
    };
    let tool_calls = fields
        .opt_list("tool_calls")?
        .iter()
        .map(|call| {
            let call = Fields::of(call, "tool call")?.only(&["name", "arguments"])?;
            Ok(NativeCall {
                name: call.py_str("name")?.clone(),
                arguments: call.py_str("arguments")?.clone(),
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(Reply {
        content,
        tool_calls,
    })
}
