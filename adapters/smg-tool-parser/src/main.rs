//! The toolfix driver (docs/protocol.md) around smg's tool-call parsers, the crates.io
//! crate `tool-parser` 1.10.0 (formerly SGLang's router tool parser), called through its
//! public API: `ParserFactory::new().registry().create_parser(name)` gives a
//! `Box<dyn ToolParser>`, and `ToolParser::parse_complete_with_tools(content, &tools)` (the
//! complete, non-streaming parse, with the request's tools as `openai_protocol::common::Tool`)
//! gives `(normal_text, Vec<ToolCall>)`. The parser is the registry name given as the
//! first argument (default `json`); the dialects declared are the toolfix dialects that
//! parser's format is (see `PARSERS`).
//!
//! Built from templates/rust: a request line that is not JSON gets `errored`, a panic in
//! the crate becomes `errored` for that case, every answer is one flushed line.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

use openai_protocol::common::Tool;
use serde_json::{Value, json};
use tool_parser::{ParserFactory, ToolParser};

/// Who we wrap.
const IMPLEMENTATION: (&str, &str) = ("tool-parser", "1.10.0");

/// A registry name this driver accepts, the toolfix dialects its format is
/// (docs/protocol.md), and the policies it follows (docs/guarantees.md), measured
/// (README.md has the evidence).
struct Parser {
    name: &'static str,
    dialects: &'static [&'static str],
    /// `parse_complete` recovers a call whose closing marker is missing.
    unclosed_calls: bool,
}

#[rustfmt::skip]
const PARSERS: &[Parser] = &[
    // `JsonParser`: the reply is a JSON call object or array of them, `arguments` or
    // `parameters` (the factory's parser for gpt-*, claude-*, gemini-*, llama-* other than
    // 3.2, glm-* and gemma-* models)
    Parser { name: "json", dialects: &["whole_json", "llama_json"], unclosed_calls: false },
    // `QwenParser`: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` (Qwen 2/2.5/3)
    Parser { name: "qwen", dialects: &["tool_call"], unclosed_calls: false },
    // `LlamaParser`: `<|python_tag|>{"name": …, "parameters": …}` or the bare object
    // (Llama 3.2). It reads Llama's `parameters` key only, not whole_json's `arguments`.
    Parser { name: "llama", dialects: &["python_tag", "llama_json"], unclosed_calls: false },
    // `PythonicParser`: `[get_weather(city="Paris")]` (Llama 4)
    Parser { name: "pythonic", dialects: &["pythonic"], unclosed_calls: false },
    // `DeepSeek31Parser`: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}…`
    Parser { name: "deepseek31", dialects: &["deepseek"], unclosed_calls: false },
    // `DeepSeekParser`: `…function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…` (V3)
    Parser { name: "deepseek", dialects: &["deepseek"], unclosed_calls: false },
    // `DeepSeekDsmlParser::v32()`: `<｜DSML｜function_calls><｜DSML｜invoke name="NAME">…`
    Parser { name: "deepseek32", dialects: &["deepseek"], unclosed_calls: false },
    // `QwenXmlParser`: `<tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>…`
    Parser { name: "qwen_xml", dialects: &["qwen_xml"], unclosed_calls: false },
    // `Glm4MoeParser::glm47()`: `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…`
    Parser { name: "glm47_moe", dialects: &["glm"], unclosed_calls: false },
    // `KimiK2Parser`: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0…`
    Parser { name: "kimik2", dialects: &["kimi"], unclosed_calls: false },
    // `MinimaxM2Parser`: `<minimax:tool_call>\n<invoke name="NAME">…`
    Parser { name: "minimax_m2", dialects: &["minimax"], unclosed_calls: false },
    // `MistralParser`: `[TOOL_CALLS] [{"name": …, "arguments": …}]`, Mistral's array form
    // (not v11's `[TOOL_CALLS]NAME[ARGS]{…}`, which this parser does not read)
    Parser { name: "mistral", dialects: &["mistral"], unclosed_calls: false },
    // `Gemma4Parser`: `<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>` (Gemma 4; not
    // FunctionGemma's `<start_function_call>` form, which this parser does not read)
    Parser { name: "gemma4", dialects: &["gemma"], unclosed_calls: true },
];

/// The parser chosen on the command line (default: the first, `json`).
static PARSER: OnceLock<&'static Parser> = OnceLock::new();

fn parser() -> &'static Parser {
    PARSER.get().copied().unwrap_or(&PARSERS[0])
}

/// What we declare: profile portable, salvage only, the chosen parser's dialects and
/// policies (README.md has the evidence).
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

/// The parser instance, made once by the crate's factory from its registry name.
fn tool_parser() -> &'static dyn ToolParser {
    static INSTANCE: OnceLock<Box<dyn ToolParser>> = OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            ParserFactory::new()
                .registry()
                .create_parser(parser().name)
                .expect("a parser the crate registers")
        })
        .as_ref()
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

/// The calls `tool-parser` recovers from `content`: `(name, arguments as JSON text)`, in
/// its order, the arguments exactly as the crate hands them out.
fn salvage(content: &str, tools: &[Tool]) -> Result<Vec<(String, String)>, String> {
    let parsed = runtime().block_on(tool_parser().parse_complete_with_tools(content, tools));
    match parsed {
        Ok((_normal_text, calls)) => Ok(calls
            .into_iter()
            .map(|call| (call.function.name, call.function.arguments))
            .collect()),
        // The crate returned an error on this reply: an error answer (docs/protocol.md),
        // which no portable expectation accepts.
        Err(error) => Err(format!("ParserError: {error}")),
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
                                   "homepage": "https://github.com/smg-project/smg"},
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

/// The protocol's `tools` as the crate's `Tool`s: a string `S` is the OpenAI entry
/// `{"type": "function", "function": {"name": S, "description": "", "parameters":
/// {"type": "object", "properties": {}}}}`; any other entry (`{"$raw": V}` read as `V`) is
/// deserialised as a `Tool` as given, and left out when it is not one (the crate's type
/// cannot hold it).
fn tool_definitions(tools: &Value) -> Vec<Tool> {
    let Some(tools) = tools.as_array() else {
        return Vec::new();
    };
    tools
        .iter()
        .map(|tool| tool.get("$raw").unwrap_or(tool))
        .filter_map(|tool| match tool {
            Value::String(name) => Some(json!({
                "type": "function",
                "function": {"name": name, "description": "",
                             "parameters": {"type": "object", "properties": {}}},
            })),
            entry => Some(entry.clone()),
        })
        .filter_map(|entry| serde_json::from_value::<Tool>(entry).ok())
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
