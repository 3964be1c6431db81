//! An agent turn: what runs, and what the model is told, when a model drives the loop.
//!
//! [`salvage()`](crate::salvage()) and [`execute()`](crate::execute()) are the pieces; a
//! [`Turn`] is the loop that assembles them, one model reply at a time: native calls
//! first, else the calls salvage recovers from the text; the repair budget
//! (`max_tool_repairs`), which answers invalid calls with a repair prompt instead of
//! running them; dispatch, with name self-repair, the deny-list, the corrective error and
//! the parameter hint; the retry layers; the result formatting; the nudges that ask a
//! model to use its tools; and the limits that end a turn.
//!
//! A `Turn` does not own the model client. The runtime calls the model, hands each reply
//! to [`Turn::on_reply`], and follows the [`Step`] it gets back: [`Step::CallModel`]
//! carries the messages to append to the conversation before the next call,
//! [`Step::Done`] how the turn ended.
//!
//! Under `strict` (and `portable`) the loop keeps every documented guarantee: a fenced
//! example never runs, the parameter hint and every error reach the model as a tool
//! result, the deny-list applies to the tool that would run, a drifted name is repaired
//! with no extra round trip, a body runs at most once per call, and the two loops behave
//! alike. Under `praisonai` it is praisonaiagents 1.7.17's sync loop (`chat`,
//! `LLM.get_response`) or async loop (`achat`, `LLM.get_response_async`), as
//! [`Loop`] says, quirks included (docs/deviations.md, "Loop-level deviations").
//!
//! ```
//! use toolfix::turn::{Ending, Options, Reply, Step, Turn};
//! use toolfix::{Adapter, Param, PyStr, Registry, Tool, Value};
//!
//! let get_weather = Tool::new("get_weather", vec![Param::required("city")], |args| {
//!     let mut text = args[0].1.as_py_str().cloned().unwrap_or_default();
//!     text.push_str(": 21°C");
//!     Ok(Value::Str(text))
//! })?;
//! let mut registry = Registry::new();
//! registry.add(get_weather);
//!
//! // The model's replies, as a runtime would receive them from its client.
//! let mut replies = vec![
//!     Reply::text("Example:\n```\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>\n```\n\
//!                  <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>"),
//!     Reply::text("It is 21°C in Paris."),
//! ]
//! .into_iter();
//!
//! let mut turn = Turn::new(&registry, Options::new(Adapter::Local));
//! let mut step = turn.on_reply(replies.next().unwrap());
//! let ending = loop {
//!     match step {
//!         // Append `call.append` to the conversation, call the model, hand back its reply.
//!         Step::CallModel(call) => {
//!             assert_eq!(call.append.len(), 2, "the model's reply, then the tool result");
//!             step = turn.on_reply(replies.next().unwrap());
//!         }
//!         Step::Done(ending) => break ending,
//!     }
//! };
//! assert_eq!(ending, Ending::Answered(Some(PyStr::from("It is 21°C in Paris."))));
//! assert_eq!(turn.executed().len(), 1, "the fenced example never ran");
//! assert_eq!(turn.executed()[0].kwargs[0].1, Value::str("Paris"));
//! # Ok::<(), toolfix::PyException>(())
//! ```

mod args;
mod async_loop;
mod calls;
mod message;
mod prompts;
mod reply;
mod schema;
mod strict_loop;
mod summary;
mod sync_loop;
mod tools;
mod validate;
mod xml;

pub use message::{EchoedCall, Message, Purpose, Role};
pub use reply::{NativeCall, Reply};

use crate::adapter::ForceToolUsage;
use crate::dispatch::Registry;
use crate::py::unicode::strip;
use crate::py::{PyException, PyStr, Value, str_of};
use crate::salvage::Allowlist;
use crate::{Adapter, Profile};
use calls::{Finder, FoundCall};
use schema::ToolSchema;

/// The loop's iteration limit (`Agent`'s default `max_steps`, `LLM.max_iter`).
const MAX_ITERATIONS: usize = 20;
/// The most tool calls one turn runs (`max_tool_calls_per_turn`).
const MAX_TOOL_CALLS: usize = 10;

/// Which of praisonaiagents' two agent loops a `praisonai` turn reproduces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Loop {
    /// `Agent.chat` / `start`: `LLM.get_response`.
    #[default]
    Sync,
    /// `Agent.achat` / `astart`: `LLM.get_response_async`.
    Async,
}

impl Loop {
    /// `"sync"` or `"async"`, as the protocol names it.
    pub fn name(self) -> &'static str {
        match self {
            Loop::Sync => "sync",
            Loop::Async => "async",
        }
    }
}

impl std::str::FromStr for Loop {
    type Err = String;

    fn from_str(s: &str) -> Result<Loop, String> {
        match s {
            "sync" => Ok(Loop::Sync),
            "async" => Ok(Loop::Async),
            other => Err(format!("unknown loop {other:?} (expected sync or async)")),
        }
    }
}

/// How a turn runs: the adapter the replies come through, the loop and the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    adapter: Adapter,
    kind: Loop,
    profile: Profile,
}

impl Options {
    /// A sync turn through `adapter` under the default profile (`strict`).
    pub fn new(adapter: Adapter) -> Options {
        Options {
            adapter,
            kind: Loop::Sync,
            profile: Profile::default(),
        }
    }

    /// The same options with another loop (it matters under `praisonai` only: the
    /// documented loops behave alike).
    pub fn with_loop(self, kind: Loop) -> Options {
        Options { kind, ..self }
    }

    /// The same options under another profile.
    pub fn with_profile(self, profile: Profile) -> Options {
        Options { profile, ..self }
    }
}

/// A tool body that ran: the tool's name and the arguments it was called with (every
/// parameter in definition order, defaults applied).
#[derive(Clone, Debug, PartialEq)]
pub struct Executed {
    /// The tool's registered name.
    pub name: PyStr,
    /// The bound arguments.
    pub kwargs: Vec<(PyStr, Value)>,
}

/// What the runtime does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Append `append` to the conversation and ask the model for its next reply.
    CallModel(ModelCall),
    /// The turn is over.
    Done(Ending),
}

/// One request for a model reply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelCall {
    /// The messages the turn added since the last call, in order: the model's own reply
    /// when its calls were answered, tool results, parse errors, repair prompts, nudges.
    pub append: Vec<Message>,
    /// Whether the tools are offered on this call (the step-limit wrap-up offers none).
    pub offer_tools: bool,
}

/// How a turn ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// The turn returned this text; `None` when the loop failed inside and the agent
    /// returned nothing (praisonaiagents' `chat` returns `None`).
    Answered(Option<PyStr>),
    /// The turn raised (the `praisonai` sync loop lets `ToolExecutionError` escape).
    Raised(Raised),
}

/// An exception that ended a turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Raised {
    /// The exception's class name.
    pub class: &'static str,
    /// Its message (`ToolExecutionError.message`, without the run id `str()` adds).
    pub message: PyStr,
}

/// An exception that escaped the loop's own code (not a tool's): under `praisonai` the
/// agent catches it and returns `None`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Failure {
    Escaped(PyException),
}

/// One agent turn, driven by the model's replies. See the [module documentation](self).
pub struct Turn<'r> {
    ctx: Ctx<'r>,
    machine: Machine,
    ended: Option<Ending>,
}

/// The loop a turn runs.
enum Machine {
    Sync(sync_loop::SyncLoop),
    Async(async_loop::AsyncLoop),
    Strict(strict_loop::StrictLoop),
}

/// What a loop does after a reply: call the model again, or end.
pub(crate) enum Flow {
    Call { offer_tools: bool },
    End(Ending),
}

impl<'r> Turn<'r> {
    /// A turn over the tools of `registry` (its tools added one by one are the ones
    /// offered to the model; its deny-set applies).
    pub fn new(registry: &'r Registry, options: Options) -> Turn<'r> {
        let machine = match (options.profile.runs_package_loops(), options.kind) {
            (true, Loop::Sync) => Machine::Sync(sync_loop::SyncLoop::default()),
            (true, Loop::Async) => Machine::Async(async_loop::AsyncLoop::default()),
            (false, _) => Machine::Strict(strict_loop::StrictLoop::default()),
        };
        Turn {
            ctx: Ctx::new(registry, options),
            machine,
            ended: None,
        }
    }

    /// Hands the turn the model's next reply; says what to do next. Once the turn has
    /// ended, every further reply is ignored and the same ending is returned.
    pub fn on_reply(&mut self, reply: Reply) -> Step {
        if let Some(ending) = &self.ended {
            return Step::Done(ending.clone());
        }
        self.ctx.replies += 1;
        let flow = match &mut self.machine {
            Machine::Sync(m) => m.on_reply(&mut self.ctx, reply),
            Machine::Async(m) => m.on_reply(&mut self.ctx, reply),
            Machine::Strict(m) => m.on_reply(&mut self.ctx, reply),
        };
        match flow {
            Ok(Flow::Call { offer_tools }) => Step::CallModel(ModelCall {
                append: self.ctx.take_new(),
                offer_tools,
            }),
            Ok(Flow::End(ending)) => self.end(ending),
            Err(Failure::Escaped(_)) => self.end(Ending::Answered(None)),
        }
    }

    fn end(&mut self, ending: Ending) -> Step {
        self.ended = Some(ending.clone());
        Step::Done(ending)
    }

    /// Every tool body that ran, in order (a retried body once per run).
    pub fn executed(&self) -> &[Executed] {
        &self.ctx.executed
    }

    /// Every message the turn appended to the conversation, in order.
    pub fn messages(&self) -> &[Message] {
        &self.ctx.messages
    }

    /// How many replies the turn has been handed.
    pub fn replies(&self) -> usize {
        self.ctx.replies
    }

    /// How the turn ended, once it has.
    pub fn ending(&self) -> Option<&Ending> {
        self.ended.as_ref()
    }
}

/// What every loop shares: the tools, the conversation so far, the counters.
pub(crate) struct Ctx<'r> {
    registry: &'r Registry,
    schemas: Vec<ToolSchema>,
    allowlist: Option<Allowlist>,
    adapter: Adapter,
    profile: Profile,
    messages: Vec<Message>,
    handed: usize,
    executed: Vec<Executed>,
    replies: usize,
    next_id: usize,
    repair_count: u32,
    iteration: usize,
    tool_calls_run: usize,
    accumulated: Vec<Value>,
}

impl<'r> Ctx<'r> {
    fn new(registry: &'r Registry, options: Options) -> Ctx<'r> {
        let schemas = schema::schemas(registry);
        let allowlist = match schemas.is_empty() {
            true => None,
            false => Some(schema::allowlist(&schemas)),
        };
        Ctx {
            registry,
            schemas,
            allowlist,
            adapter: options.adapter,
            profile: options.profile,
            messages: Vec::new(),
            handed: 0,
            executed: Vec::new(),
            replies: 0,
            next_id: 0,
            repair_count: 0,
            iteration: 0,
            tool_calls_run: 0,
            accumulated: Vec::new(),
        }
    }

    /// The messages appended since the last model call.
    fn take_new(&mut self) -> Vec<Message> {
        let new = self.messages[self.handed..].to_vec();
        self.handed = self.messages.len();
        new
    }

    fn push(&mut self, message: Message) {
        self.messages.push(message);
    }

    fn ollama(&self) -> bool {
        self.adapter == Adapter::Ollama
    }

    fn tools_offered(&self) -> bool {
        !self.schemas.is_empty()
    }

    /// The calls of `reply` (the older parser only in the `praisonai` sync loop).
    fn calls(&mut self, reply: &Reply, older_parser: bool) -> Result<Vec<FoundCall>, Failure> {
        let finder = Finder {
            allowlist: self.allowlist.as_ref(),
            adapter: self.adapter,
            profile: self.profile,
            older_parser,
        };
        finder.calls(reply, self.iteration, &mut self.next_id)
    }

    /// `_force_tool_usage_message`: the nudge for a reply without calls, when the
    /// adapter's `force_tool_usage` asks for one (`auto`: Ollama, first iteration).
    fn force_nudge(&self, calls: &[FoundCall]) -> Option<Message> {
        if !self.tools_offered() || !calls.is_empty() {
            return None;
        }
        let due = match self.adapter.policy().force_tool_usage {
            ForceToolUsage::Auto => self.ollama() && self.iteration == 0,
            ForceToolUsage::Never => false,
        };
        let names = schema::names_for_prompt(&self.schemas).to_string_lossy();
        due.then(|| Message::user(prompts::force_tool_usage(&names), Purpose::Nudge))
    }

    /// Ollama's prompt for an empty first reply (`OLLAMA_TOOL_USAGE_PROMPT`).
    fn ollama_empty_nudge(&self, text: &PyStr) -> Option<Message> {
        let empty = strip(text.as_bytes()).is_empty();
        (self.ollama() && empty && self.tools_offered() && self.iteration == 0)
            .then(|| Message::user(prompts::OLLAMA_TOOL_USAGE, Purpose::Nudge))
    }

    /// `_tool_repair_message`: while the budget lasts, a prompt answering calls that fail
    /// validation (and the budget charged for it).
    fn repair_prompt(&mut self, calls: &[FoundCall]) -> Result<Option<Message>, Failure> {
        let budget = self.adapter.policy().max_tool_repairs;
        if calls.is_empty() || budget == 0 || self.repair_count >= budget {
            return Ok(None);
        }
        let mut errors = Vec::new();
        for call in calls {
            if let Some(error) =
                validate::validate(call, &self.schemas, self.registry, self.profile)?
            {
                errors.push(error);
            }
        }
        if errors.is_empty() {
            return Ok(None);
        }
        self.repair_count += 1;
        let error = schema::join(errors, "; ");
        let tools = schema::schemas_for_prompt(&self.schemas);
        Ok(Some(Message::user(
            prompts::tool_call_repair(&error, &tools),
            Purpose::RepairPrompt,
        )))
    }

    /// The model's reply, echoed before its calls are answered (Ollama: the text only).
    fn echo(&mut self, text: &PyStr, calls: &[FoundCall]) {
        let tool_calls = match self.ollama() {
            true => Vec::new(),
            false => calls
                .iter()
                .map(|call| EchoedCall {
                    id: call.id.clone(),
                    name: str_of(&call.name),
                    arguments: call.arguments.clone(),
                })
                .collect(),
        };
        self.push(Message {
            tool_calls,
            ..Message::new(Role::Assistant, text.clone(), Purpose::Echo)
        });
    }

    /// A parse-error message answering `call`.
    fn parse_error(&mut self, call: &FoundCall) {
        let content = prompts::parse_error(&str_of(&call.name));
        self.push(Message {
            tool_call_id: Some(call.id.clone()),
            ..Message::new(Role::Tool, content, Purpose::ParseError)
        });
    }

    /// The message carrying `result` for `call`, formatted by the adapter under the name
    /// `shown`.
    fn tool_result(
        &mut self,
        call: &FoundCall,
        shown: &PyStr,
        result: &Value,
    ) -> Result<(), Failure> {
        let (content, id) =
            tools::result_content(self.adapter, shown, result, &call.id, self.profile)?;
        let role = if id.is_some() { Role::Tool } else { Role::User };
        self.push(Message {
            tool_call_id: id,
            ..Message::new(role, content, Purpose::ToolResult)
        });
        Ok(())
    }

    /// `_validate_and_filter_ollama_arguments`: on Ollama, the arguments of a call whose
    /// name is exactly a tool's keep only the keys that are the tool's parameter names.
    fn ollama_filter(&self, name: &Value, arguments: Value) -> Value {
        let (true, Some(name), Value::Dict(dict)) = (self.ollama(), name.as_py_str(), &arguments)
        else {
            return arguments;
        };
        let Some(tool) = self.registry.offered().find(|t| t.name() == name) else {
            return arguments;
        };
        let params = tool.signature().params();
        Value::Dict(
            dict.iter()
                .filter(|(key, _)| params.iter().any(|p| &p.name == *key))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// Reads one call's arguments (filtered on Ollama) and runs its body, as both loops of
    /// praisonaiagents do: `None` when the arguments do not parse, else the arguments and
    /// what the body did.
    fn dispatch_call(
        &mut self,
        path: tools::Path,
        call: &FoundCall,
    ) -> Result<Option<(Value, tools::Ran)>, Failure> {
        let arguments = match args::parse(call, self.ollama(), self.profile) {
            args::Parsed::Value(value) => value,
            args::Parsed::Failed => return Ok(None),
            args::Parsed::Escaped => return Err(escaped("ValueError", "arguments")),
        };
        let arguments = self.ollama_filter(&call.name, arguments);
        let Value::Dict(dict) = &arguments else {
            return Err(escaped("AttributeError", "arguments are not a dict"));
        };
        let ran = tools::run(path, self.registry, &call.name, dict, &mut self.executed)?;
        Ok(Some((arguments, ran)))
    }

    /// `iteration_count += 1; continue`: the next model call, or, past the iteration
    /// limit, the end the loop gives (`last`).
    fn advance(&mut self, last: impl FnOnce() -> Ending) -> Flow {
        self.iteration += 1;
        match self.iteration < MAX_ITERATIONS {
            true => Flow::Call { offer_tools: true },
            false => Flow::End(last()),
        }
    }

    /// The step-limit wrap-up: one more call, with no tools offered.
    fn wrap_up(&mut self) -> Flow {
        self.push(Message::user(prompts::STEP_LIMIT_WRAP_UP, Purpose::WrapUp));
        Flow::Call { offer_tools: false }
    }
}

/// `_finalise_on_limit`'s answer from the wrap-up reply: its text stripped, else the
/// last reply's text stripped, else the fallback message.
fn wrap_up_answer(reply: &Reply, response_text: &PyStr) -> Ending {
    let summary = strip_py(&reply.text_or_empty());
    if !summary.is_empty() {
        return answered(summary);
    }
    let fallback = strip_py(response_text);
    if !fallback.is_empty() {
        return answered(fallback);
    }
    answered(PyStr::from(prompts::STEP_LIMIT_FALLBACK))
}

/// An exception the loop's own code lets escape.
fn escaped(class: &str, message: &str) -> Failure {
    Failure::Escaped(
        PyException::named(class, message).unwrap_or(PyException::Exception {
            message: PyStr::from(message),
        }),
    )
}

/// `text.strip()`.
fn strip_py(text: &PyStr) -> PyStr {
    PyStr::from_generalized_utf8(strip(text.as_bytes()))
}

/// `Ending::Answered(Some(text))`.
fn answered(text: PyStr) -> Ending {
    Ending::Answered(Some(text))
}
