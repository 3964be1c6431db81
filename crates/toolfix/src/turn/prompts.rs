//! The texts praisonaiagents 1.7.17's loops send the model (`llm/llm.py:494-533`,
//! `8477-8492`), kept verbatim: a runtime reproducing the loop sends the same words.

use crate::py::PyStr;

/// `FORCE_TOOL_USAGE_PROMPT`: the model answered without a call when it should have used
/// a tool.
pub fn force_tool_usage(tool_names: &str) -> String {
    format!(
        "You MUST use one of the available tools to answer this question.\n\
         Do NOT provide a direct answer. Respond ONLY with a tool call.\n\n\
         Available tools: {tool_names}\n\n\
         Respond with a JSON object in this format:\n\
         {{\"name\": \"tool_name\", \"arguments\": {{\"arg1\": value1, \"arg2\": value2}}}}"
    )
}

/// `TOOL_CALL_REPAIR_PROMPT`: the calls failed validation and were dropped.
pub fn tool_call_repair(error: &PyStr, tool_schemas: &PyStr) -> PyStr {
    let mut text = PyStr::from("Your previous tool call was malformed: ");
    text.push_py(error);
    text.push_str("\n\nPlease try again. Available tools:\n");
    text.push_py(tool_schemas);
    text.push_str(
        "\n\nRespond with ONLY a valid JSON tool call in this format:\n\
         {\"name\": \"tool_name\", \"arguments\": {\"arg1\": value1, \"arg2\": value2}}",
    );
    text
}

/// `OLLAMA_TOOL_USAGE_PROMPT`: Ollama answered with empty text on the first iteration.
pub const OLLAMA_TOOL_USAGE: &str = "Please analyze the request and use the available tools to help answer the question. Start by identifying what information you need.";

/// `OLLAMA_FINAL_ANSWER_PROMPT`: the async loop on Ollama, after tool results past the
/// first iteration.
pub const OLLAMA_FINAL_ANSWER: &str =
    "Based on the tool results above, please provide the final answer to the original question.";

/// `STEP_LIMIT_WRAP_UP_PROMPT`: the loop reached `max_iter`.
pub const STEP_LIMIT_WRAP_UP: &str = "You have reached the step limit for this task. Do not call any tools. Provide a final answer that summarises what you accomplished, what remains unfinished, and any suggested next steps, using the tool results already gathered.";

/// `STEP_LIMIT_FALLBACK_MESSAGE`: the wrap-up call gave no text.
pub const STEP_LIMIT_FALLBACK: &str = "Reached the step limit before finishing this task.";

/// The answer when the turn had already run `limit` tools and the model called more.
pub fn tool_call_limit(limit: usize) -> String {
    format!(
        "Tool call limit reached ({limit} calls). Task may be too complex or there may be a broken tool causing repeated calls."
    )
}

/// `_tool_parse_error_message`: a call whose argument string did not parse.
pub fn parse_error(function_name: &PyStr) -> PyStr {
    let mut text = PyStr::from("Error: arguments for tool '");
    text.push_py(function_name);
    text.push_str(
        "' could not be parsed (the argument string was invalid or truncated). \
         The tool was NOT executed. Please re-emit the tool call with complete, valid JSON arguments.",
    );
    text
}

/// The generic Ollama summary when every tool result was an error.
pub const OLLAMA_ERRORS_SUMMARY: &str = "I'm sorry, but I wasn't able to complete the search. The service encountered some issues. Please try again later or try a different search query.";
