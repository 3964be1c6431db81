//! Every marker a dialect, a reasoning block or the probe looks for, written once.
//!
//! Each constant is the text exactly as the model's chat template writes it (the
//! dialect's page in `docs/dialects/` cites the template). The scanners, the probe, the
//! stream and the fuzzing grammar all take their markers from here, through the
//! registry (`Dialect::spec`) or by name, so no two copies can drift apart.

/// `<tool_call>{…}</tool_call>` (Hermes, Qwen 2.5): the tags of the `tool_call` dialect,
/// which GLM and Qwen3 XML also write around their calls.
pub mod tool_call {
    /// Opens a call.
    pub const OPEN: &str = "<tool_call>";
    /// Closes a call.
    pub const CLOSE: &str = "</tool_call>";
}

/// `<function=NAME>{…}</function>` (Functionary, Llama 3.1 custom tools), also the call
/// tag of Qwen3 XML.
pub mod function {
    /// Opens a call; the name follows, then `>`.
    pub const OPEN: &str = "<function=";
    /// Closes a call.
    pub const CLOSE: &str = "</function>";
}

/// `[TOOL_CALL]{…}[/TOOL_CALL]`, and LM Studio's `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]`.
pub mod bracket {
    /// Opens a call.
    pub const TOOL_CALL: &str = "[TOOL_CALL]";
    /// Closes a `[TOOL_CALL]`.
    pub const TOOL_CALL_CLOSE: &str = "[/TOOL_CALL]";
    /// Opens an LM Studio call.
    pub const TOOL_REQUEST: &str = "[TOOL_REQUEST]";
    /// Closes a `[TOOL_REQUEST]`.
    pub const TOOL_REQUEST_CLOSE: &str = "[END_TOOL_REQUEST]";
}

/// Llama 3.x's `<|python_tag|>{…}`.
pub mod python_tag {
    /// Precedes the call's JSON.
    pub const TAG: &str = "<|python_tag|>";
    /// Ends a message that expects a tool's result (Llama 3.1 to 3.3).
    pub const EOM: &str = "<|eom_id|>";
    /// Ends a turn.
    pub const EOT: &str = "<|eot_id|>";
}

/// ReAct's `Action: NAME` / `Action Input: {…}`.
pub mod react {
    /// The word a step begins with, in any case.
    pub const ACTION: &str = "action";
    /// The word after `Action` that introduces the arguments, in any case.
    pub const INPUT: &str = "input";
}

/// Mistral's `[TOOL_CALLS]`.
pub mod mistral {
    /// Opens the calls: a JSON array (v3) or `NAME[ARGS]{…}` (v11 and later).
    pub const TOOL_CALLS: &str = "[TOOL_CALLS]";
    /// Separates a v11 call's name from its arguments.
    pub const ARGS: &str = "[ARGS]";
    /// Precedes a v11 call's id.
    pub const CALL_ID: &str = "[CALL_ID]";
}

/// Qwen3-Coder and Qwen3.5 XML:
/// `<tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>`.
pub mod qwen_xml {
    /// Opens a parameter; the key follows, then `>`.
    pub const PARAMETER: &str = "<parameter=";
    /// Closes a parameter.
    pub const PARAMETER_CLOSE: &str = "</parameter>";
}

/// DeepSeek V3, V3.1, V3.2 (DSML), V4 and V4.1 (DSML) and R1.
pub mod deepseek {
    /// Opens the calls of V3 and V3.1.
    pub const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
    /// Closes the calls of V3 and V3.1.
    pub const CALLS_END: &str = "<｜tool▁calls▁end｜>";
    /// Opens one call.
    pub const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
    /// Closes one call.
    pub const CALL_END: &str = "<｜tool▁call▁end｜>";
    /// Separates `function` from the name (V3), or the name from the arguments (V3.1).
    pub const SEP: &str = "<｜tool▁sep｜>";
    /// Opens V3.2's calls.
    pub const DSML_CALLS: &str = "<｜DSML｜function_calls>";
    /// Closes V3.2's calls.
    pub const DSML_CALLS_CLOSE: &str = "</｜DSML｜function_calls>";
    /// Opens a V3.2 call; its attributes follow.
    pub const DSML_INVOKE: &str = "<｜DSML｜invoke";
    /// Closes a V3.2 call.
    pub const DSML_INVOKE_CLOSE: &str = "</｜DSML｜invoke>";
    /// Opens a V3.2 parameter; its attributes follow.
    pub const DSML_PARAMETER: &str = "<｜DSML｜parameter";
    /// Closes a V3.2 parameter.
    pub const DSML_PARAMETER_CLOSE: &str = "</｜DSML｜parameter>";
    /// What every DSML tag of every version begins with.
    pub const DSML_LEAD: &str = "<｜DSML｜";
    /// Opens V4's calls (V4's invokes and parameters are V3.2's).
    pub const DSML_V4_CALLS: &str = "<｜DSML｜tool_calls>";
    /// Closes V4's calls.
    pub const DSML_V4_CALLS_CLOSE: &str = "</｜DSML｜tool_calls>";
    /// Opens V4.1's calls: every V4.1 tag name starts with a space.
    pub const DSML_V41_CALLS: &str = "<｜DSML｜ calls>";
    /// Closes V4.1's calls.
    pub const DSML_V41_CALLS_CLOSE: &str = "</｜DSML｜ calls>";
    /// Opens a V4.1 call; its attributes follow.
    pub const DSML_V41_INVOKE: &str = "<｜DSML｜ invoke";
    /// Closes a V4.1 call.
    pub const DSML_V41_INVOKE_CLOSE: &str = "</｜DSML｜ invoke>";
    /// Opens a V4.1 parameter; its attributes follow.
    pub const DSML_V41_PARAMETER: &str = "<｜DSML｜ parameter";
    /// Closes a V4.1 parameter.
    pub const DSML_V41_PARAMETER_CLOSE: &str = "</｜DSML｜ parameter>";
    /// The tags of each DSML version, V3.2, V4 and V4.1: the section's, the invoke's and
    /// the parameter's, each an opener and its closer.
    pub const DSML_VERSIONS: [[(&str, &str); 3]; 3] = [
        [
            (DSML_CALLS, DSML_CALLS_CLOSE),
            (DSML_INVOKE, DSML_INVOKE_CLOSE),
            (DSML_PARAMETER, DSML_PARAMETER_CLOSE),
        ],
        [
            (DSML_V4_CALLS, DSML_V4_CALLS_CLOSE),
            (DSML_INVOKE, DSML_INVOKE_CLOSE),
            (DSML_PARAMETER, DSML_PARAMETER_CLOSE),
        ],
        [
            (DSML_V41_CALLS, DSML_V41_CALLS_CLOSE),
            (DSML_V41_INVOKE, DSML_V41_INVOKE_CLOSE),
            (DSML_V41_PARAMETER, DSML_V41_PARAMETER_CLOSE),
        ],
    ];
}

/// GLM-4.5 and later: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>`.
pub mod glm {
    /// Opens a key.
    pub const KEY: &str = "<arg_key>";
    /// Closes a key.
    pub const KEY_CLOSE: &str = "</arg_key>";
    /// Opens a value.
    pub const VALUE: &str = "<arg_value>";
    /// Closes a value.
    pub const VALUE_CLOSE: &str = "</arg_value>";
}

/// Kimi K2.
pub mod kimi {
    /// Opens the calls.
    pub const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
    /// Closes the calls.
    pub const SECTION_END: &str = "<|tool_calls_section_end|>";
    /// Opens one call; its id `functions.NAME:IDX` follows.
    pub const CALL_BEGIN: &str = "<|tool_call_begin|>";
    /// The namespace a call's id begins with, which a model may leave out.
    pub const FUNCTIONS: &str = "functions.";
    /// Separates the id from the arguments.
    pub const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
    /// Closes one call.
    pub const CALL_END: &str = "<|tool_call_end|>";
}

/// gpt-oss Harmony messages.
pub mod harmony {
    /// Starts a message.
    pub const START: &str = "<|start|>";
    /// Precedes the channel name.
    pub const CHANNEL: &str = "<|channel|>";
    /// Precedes the recipient of a message.
    pub const RECIPIENT: &str = "to=";
    /// The namespace of a function recipient, `to=functions.NAME`.
    pub const FUNCTIONS: &str = "functions.";
    /// Precedes the content type.
    pub const CONSTRAIN: &str = "<|constrain|>";
    /// Ends the header: the body follows.
    pub const MESSAGE: &str = "<|message|>";
    /// Ends a message that calls a tool.
    pub const CALL: &str = "<|call|>";
    /// Ends a message.
    pub const END: &str = "<|end|>";
    /// Ends the final message of a reply.
    pub const RETURN: &str = "<|return|>";
    /// The tokens that end a message.
    pub const ENDS: [&str; 3] = [CALL, END, RETURN];
}

/// FunctionGemma and Gemma 4: `call:NAME{key:value,…}` between their call tokens.
pub mod gemma {
    /// Opens a FunctionGemma call.
    pub const FUNCTION_GEMMA_OPEN: &str = "<start_function_call>";
    /// Closes a FunctionGemma call.
    pub const FUNCTION_GEMMA_CLOSE: &str = "<end_function_call>";
    /// Delimits a FunctionGemma string.
    pub const FUNCTION_GEMMA_QUOTE: &str = "<escape>";
    /// Opens a Gemma 4 call.
    pub const GEMMA_4_OPEN: &str = "<|tool_call>";
    /// Closes a Gemma 4 call.
    pub const GEMMA_4_CLOSE: &str = "<tool_call|>";
    /// Delimits a Gemma 4 string.
    pub const GEMMA_4_QUOTE: &str = "<|\"|>";
}

/// MiniMax M2: `<minimax:tool_call><invoke name=NAME><parameter name=K>V</parameter>`.
pub mod minimax {
    /// Opens the calls.
    pub const SECTION: &str = "<minimax:tool_call>";
    /// Closes the calls.
    pub const SECTION_CLOSE: &str = "</minimax:tool_call>";
    /// Opens a call; its attributes follow.
    pub const INVOKE: &str = "<invoke";
    /// Closes a call.
    pub const INVOKE_CLOSE: &str = "</invoke>";
    /// Opens a parameter; its attributes follow.
    pub const PARAMETER: &str = "<parameter";
    /// Closes a parameter.
    pub const PARAMETER_CLOSE: &str = "</parameter>";
}

/// IBM Granite's `<|tool_call|>[…]`, which Phi-4-mini also writes.
pub mod granite {
    /// Precedes the array (or, for Phi-4, the objects) of calls.
    pub const TOOL_CALL: &str = "<|tool_call|>";
}

/// Phi-4-mini's `functools[…]`.
pub mod phi4 {
    /// Precedes the calls; its last byte opens their array.
    pub const FUNCTOOLS: &str = "functools[";
    /// Closes calls opened with `<|tool_call|>`.
    pub const CLOSE: &str = "<|/tool_call|>";
}

/// The wrappers templates put around pythonic calls.
pub mod pythonic {
    /// Llama 4's opener, a list of calls follows.
    pub const PYTHON_START: &str = "<|python_start|>";
    /// Llama 4's closer.
    pub const PYTHON_END: &str = "<|python_end|>";
    /// LFM2's opener: a list of calls, or JSON, follows.
    pub const TOOL_CALL_START: &str = "<|tool_call_start|>";
    /// LFM2's closer.
    pub const TOOL_CALL_END: &str = "<|tool_call_end|>";
    /// Olmo 3's opener: one call a line follows.
    pub const FUNCTION_CALLS: &str = "<function_calls>";
    /// Olmo 3's closer.
    pub const FUNCTION_CALLS_CLOSE: &str = "</function_calls>";
}

/// Reasoning blocks, masked under `strict` and `portable` (`docs/dialects/reasoning.md`).
pub mod reasoning {
    /// Opens reasoning (DeepSeek R1, Qwen3 and most others).
    pub const THINK: &str = "<think>";
    /// Closes reasoning; unopened at the start of a reply, it closes reasoning the
    /// template opened.
    pub const THINK_CLOSE: &str = "</think>";
    /// Opens Gemma 4's thought channel.
    pub const GEMMA_THOUGHT: &str = "<|channel>thought";
    /// Closes Gemma 4's thought channel.
    pub const GEMMA_THOUGHT_CLOSE: &str = "<channel|>";
    /// Opens Magistral's reasoning.
    pub const MISTRAL_THINK: &str = "[THINK]";
    /// Closes Magistral's reasoning.
    pub const MISTRAL_THINK_CLOSE: &str = "[/THINK]";
    /// Opens a Harmony analysis message, closed by one of `harmony::ENDS`.
    pub const HARMONY_ANALYSIS: &str = "<|channel|>analysis<|message|>";
    /// Opens Seed-OSS's reasoning.
    pub const SEED_THINK: &str = "<seed:think>";
    /// Closes Seed-OSS's reasoning.
    pub const SEED_THINK_CLOSE: &str = "</seed:think>";
    /// The reasoning markers that are special tokens of their tokenizers (the others
    /// are made of a dialect's tokens, or of text).
    pub const TOKENS: [&str; 4] = [THINK, THINK_CLOSE, SEED_THINK, SEED_THINK_CLOSE];
}
