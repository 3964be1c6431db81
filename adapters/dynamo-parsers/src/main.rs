//! The toolfix driver (docs/protocol.md) around NVIDIA Dynamo's tool-call parsers, the
//! crates.io crate `dynamo-parsers` 11.0.1, called through its public batch API:
//! `dynamo_parsers::tool_calling::tools::try_tool_call_parse_aggregate_finalize(content,
//! Some(parser), Some(&tools))`, the entry point Dynamo documents for a complete
//! (non-streaming) reply. The parser is the registry name given as the first argument
//! (default `hermes`); the dialects declared are the toolfix dialects that parser's format
//! is (see `PARSERS`).
//!
//! Built from templates/rust: a request line that is not JSON gets `errored`, a panic in
//! the crate becomes `errored` for that case, every answer is one flushed line.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

use dynamo_parsers::tool_calling::ToolDefinition;
use dynamo_parsers::tool_calling::tools::try_tool_call_parse_aggregate_finalize;
use serde_json::{Value, json};

/// Who we wrap.
const IMPLEMENTATION: (&str, &str) = ("dynamo-parsers", "11.0.1");

/// A registry name this driver accepts, the toolfix dialects its format is
/// (docs/protocol.md), and the policies it follows (docs/guarantees.md), measured
/// (README.md has the evidence).
struct Parser {
    name: &'static str,
    dialects: &'static [&'static str],
    /// The finalize path recovers a call whose closing marker is missing.
    unclosed_calls: bool,
}

/// The parsers of the basic JSON family also read a reply that has no marker at all as a
/// bare JSON call object or array (`try_tool_call_parse_basic_json`: "No start tokens
/// found, try to extract JSON directly"): `whole_json` is declared for `hermes` and
/// `llama3_json`, where that path is measured.
#[rustfmt::skip]
const PARSERS: &[Parser] = &[
    // `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen 2.5)
    Parser { name: "hermes", dialects: &["tool_call", "whole_json"], unclosed_calls: true },
    // `<|python_tag|>{"name": …, "parameters": …}`, or the bare object (Llama 3.x JSON)
    Parser {
        name: "llama3_json",
        dialects: &["python_tag", "llama_json", "whole_json"],
        unclosed_calls: false,
    },
    // `[get_weather(city="Paris")]` (Llama 3.2/4 pythonic)
    Parser { name: "pythonic", dialects: &["pythonic"], unclosed_calls: false },
    // `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}…` (DeepSeek V3.1)
    Parser { name: "deepseek_v3_1", dialects: &["deepseek"], unclosed_calls: false },
    // `…function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…` (DeepSeek V3, R1)
    Parser { name: "deepseek_v3", dialects: &["deepseek"], unclosed_calls: false },
    // `<｜DSML｜function_calls><｜DSML｜invoke name="NAME">…` (DeepSeek V3.2)
    Parser { name: "deepseek_v3_2", dialects: &["deepseek"], unclosed_calls: true },
    // `<tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>…` (Qwen3-Coder)
    Parser { name: "qwen3_coder", dialects: &["qwen_xml"], unclosed_calls: true },
    // `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…` (GLM-4.7)
    Parser { name: "glm47", dialects: &["glm"], unclosed_calls: false },
    // `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0…` (Kimi K2)
    Parser { name: "kimi_k2", dialects: &["kimi"], unclosed_calls: false },
    // `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="K">V</parameter>…`
    Parser { name: "minimax_m2", dialects: &["minimax"], unclosed_calls: true },
    // `functools[{"name": …, "arguments": …}]` (Phi-4-mini)
    Parser { name: "phi4", dialects: &["phi4"], unclosed_calls: false },
    // `[TOOL_CALLS][{"name": …, "arguments": …}]`, Mistral's array form (not v11's
    // `[TOOL_CALLS]NAME[ARGS]{…}`, which this parser does not read)
    Parser { name: "mistral", dialects: &["mistral"], unclosed_calls: false },
    // `<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>` (Gemma 4; not FunctionGemma's
    // `<start_function_call>` form, which this parser does not read)
    Parser { name: "gemma4", dialects: &["gemma"], unclosed_calls: true },
];

/// The parser chosen on the command line (default: the first, `hermes`).
static PARSER: OnceLock<&'static Parser> = OnceLock::new();

fn parser() -> &'static Parser {
    PARSER.get().copied().unwrap_or(&PARSERS[0])
}

/// What we declare: profile portable, salvage only, the chosen parser's dialects and
/// policies.
fn declarations() -> Value {
    json!({
        "profile": "portable",
        "ops": ["salvage"],
        "dialects": parser().dialects,
        "policies": {"adapters": false, "unclosed_calls": parser().unclosed_calls,
                     "lenient_json": false, "case_insensitive_names": false,
                     "masks_reasoning": false},
    })
}

/// One current-thread tokio runtime drives the crate's async API.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread tokio runtime")
    })
}

/// The calls `dynamo-parsers` recovers from `content`: `(name, arguments as JSON text)`,
/// in its order, the arguments exactly as the crate hands them out.
fn salvage(content: &str, tools: &[ToolDefinition]) -> Result<Vec<(String, String)>, String> {
    let parsed = runtime().block_on(try_tool_call_parse_aggregate_finalize(
        content,
        Some(parser().name),
        Some(tools),
    ));
    match parsed {
        Ok((calls, _normal_text)) => Ok(calls
            .into_iter()
            .map(|call| (call.function.name, call.function.arguments))
            .collect()),
        // The crate returned an error on this reply: an error answer (docs/protocol.md),
        // which no portable expectation accepts.
        Err(error) => Err(format!("Error: {error:#}")),
    }
}

// ---------------------------------------------------------------------------------------
// The protocol. Nothing below needs changing for a salvage-only implementation.
// ---------------------------------------------------------------------------------------

/// The answer to one request, or `None` for `stop`.
fn respond(line: &str) -> Option<Value> {
    let request: Value = match serde_json::from_str(line) {
        Ok(Value::Object(request)) => Value::Object(request),
        Ok(_) => return Some(json!({"errored": "the request is not a JSON object"})),
        Err(error) => return Some(json!({"errored": format!("the request is not JSON: {error}")})),
    };
    match request["cmd"].as_str() {
        Some("hello") => {
            let mut hello = json!({
                "protocol": 1,
                "implementation": {"name": IMPLEMENTATION.0, "version": IMPLEMENTATION.1,
                                   "language": "rust", "parser": parser().name,
                                   "homepage": "https://github.com/ai-dynamo/frontend-crates"},
            });
            if let (Value::Object(hello), Value::Object(declared)) = (&mut hello, declarations()) {
                hello.extend(declared);
            }
            Some(hello)
        }
        Some("run") => Some(run(&request)),
        Some("stop") => None,
        other => Some(json!({"seq": request["seq"], "errored": format!("unknown cmd {other:?}")})),
    }
}

/// One case: the op's output, `skipped` with a reason, or `errored` (a panic included).
fn run(request: &Value) -> Value {
    let seq = request["seq"].clone();
    let input = &request["input"];
    if request["op"] != "salvage" || !input.is_object() {
        return json!({"seq": seq, "errored": format!("unknown op or malformed input: {}", request["op"])});
    }
    let content = input["content"].as_str().unwrap_or_default();
    let tools = tool_definitions(&input["tools"]);
    match panic::catch_unwind(AssertUnwindSafe(|| salvage(content, &tools))) {
        Ok(Ok(calls)) if calls.is_empty() => json!({"seq": seq, "output": {"calls": null}}),
        Ok(Ok(calls)) => {
            let calls: Vec<Value> = calls
                .into_iter()
                .map(|(name, arguments)| json!({"name": name, "arguments": arguments}))
                .collect();
            json!({"seq": seq, "output": {"calls": calls}})
        }
        Ok(Err(error)) => json!({"seq": seq, "output": {"error": error}}),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            json!({"seq": seq, "errored": format!("panicked: {message}")})
        }
    }
}

/// The protocol's `tools` as the crate's `ToolDefinition`s: a string `S` is the OpenAI
/// entry `{"name": S, "parameters": {"type": "object", "properties": {}}}`; an OpenAI
/// entry gives `function.name`, `function.parameters` and `function.strict` (or the same
/// keys at the top level); `{"$raw": V}` is read as `V`. An entry without a string name
/// cannot be a `ToolDefinition` and is left out.
fn tool_definitions(tools: &Value) -> Vec<ToolDefinition> {
    let Some(tools) = tools.as_array() else {
        return Vec::new();
    };
    tools
        .iter()
        .map(|tool| tool.get("$raw").unwrap_or(tool))
        .filter_map(|tool| match tool {
            Value::String(name) => Some(ToolDefinition {
                name: name.clone(),
                parameters: Some(json!({"type": "object", "properties": {}})),
                strict: None,
            }),
            Value::Object(entry) => {
                let function = entry
                    .get("function")
                    .filter(|f| f.is_object())
                    .unwrap_or(tool);
                Some(ToolDefinition {
                    name: function["name"].as_str()?.to_owned(),
                    parameters: function.get("parameters").cloned(),
                    strict: function["strict"].as_bool(),
                })
            }
            _ => None,
        })
        .collect()
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    if let Some(name) = args.next() {
        let Some(known) = PARSERS.iter().find(|known| known.name == name) else {
            let names: Vec<&str> = PARSERS.iter().map(|known| known.name).collect();
            eprintln!("unknown parser {name:?}; this driver knows {names:?}");
            std::process::exit(2);
        };
        PARSER.set(known).ok();
    }
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Some(answer) = respond(&line?) else {
            return Ok(());
        };
        writeln!(stdout, "{answer}")?;
        stdout.flush()?;
    }
    Ok(())
}
