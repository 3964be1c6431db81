//! The toolfix driver (docs/protocol.md) around NVIDIA Dynamo's tool-call parsers, the
//! crates.io crate `dynamo-parsers` 11.0.1, called through its public batch API:
//! `dynamo_parsers::tool_calling::tools::try_tool_call_parse_aggregate_finalize(content,
//! Some(parser), Some(&tools))`, the entry point Dynamo documents for a complete
//! (non-streaming) reply. The parser is the registry name given as the first argument
//! (default `hermes`); the dialects declared are the toolfix dialects that parser's format
//! is (see `PARSERS`).
//!
//! The protocol (a request line that is not JSON gets `errored`, a panic in the crate
//! becomes `errored` for that case, every answer is one flushed line) is the template's
//! library, `toolfix-driver` (templates/rust/src/lib.rs).

use std::io;
use std::sync::OnceLock;

use dynamo_parsers::tool_calling::ToolDefinition;
use dynamo_parsers::tool_calling::tools::try_tool_call_parse_aggregate_finalize;
use serde_json::{Value, json};
use toolfix_driver::{Calls, Driver, Parser, Refusal};

/// The registry names this driver accepts, the toolfix dialects each one's format is
/// (docs/protocol.md), and whether its finalize path recovers a call whose closing marker
/// is missing (docs/guarantees.md), measured (README.md has the evidence).
///
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

/// One current-thread tokio runtime drives the crate's async API.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread tokio runtime")
    })
}

/// The driver around the parser chosen on the command line.
struct Dynamo {
    parser: &'static Parser,
}

impl Driver for Dynamo {
    type Tools = Vec<ToolDefinition>;

    /// Who we wrap.
    fn implementation(&self) -> Value {
        json!({"name": "dynamo-parsers", "version": "11.0.1", "language": "rust",
               "parser": self.parser.name,
               "homepage": "https://github.com/ai-dynamo/frontend-crates"})
    }

    /// What we declare: profile portable, salvage only, the chosen parser's dialects and
    /// policies.
    fn declarations(&self) -> Value {
        self.parser.declarations()
    }

    /// The protocol's `tools` as the crate's `ToolDefinition`s: a string `S` is the OpenAI
    /// entry `{"name": S, "parameters": {"type": "object", "properties": {}}}`; an OpenAI
    /// entry gives `function.name`, `function.parameters` and `function.strict` (or the
    /// same keys at the top level); `{"$raw": V}` is read as `V`. An entry without a string
    /// name cannot be a `ToolDefinition` and is left out.
    fn tools(&self, tools: &Value) -> Vec<ToolDefinition> {
        toolfix_driver::tool_entries(tools)
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

    /// The calls `dynamo-parsers` recovers from `content`: `(name, arguments as JSON
    /// text)`, in its order, the arguments exactly as the crate hands them out.
    fn salvage(&self, content: &str, tools: &Vec<ToolDefinition>) -> Result<Calls, Refusal> {
        let parsed = runtime().block_on(try_tool_call_parse_aggregate_finalize(
            content,
            Some(self.parser.name),
            Some(tools),
        ));
        match parsed {
            Ok((calls, _normal_text)) => Ok(calls
                .into_iter()
                .map(|call| (call.function.name, call.function.arguments))
                .collect()),
            // The crate returned an error on this reply: an error answer
            // (docs/protocol.md), which no portable expectation accepts.
            Err(error) => Err(Refusal::Error(format!("Error: {error:#}"))),
        }
    }
}

fn main() -> io::Result<()> {
    toolfix_driver::serve(&Dynamo {
        parser: Parser::from_args(PARSERS),
    })
}
