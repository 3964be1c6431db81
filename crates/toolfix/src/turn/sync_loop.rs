//! praisonaiagents 1.7.17's sync loop, `LLM.get_response` (`llm/llm.py:3251-4880`), as
//! `Agent.chat` runs it: non-streaming, one model call per iteration.
//!
//! Per reply: native calls, else salvage, else the older `<tool_call>` parser (which
//! ignores fences and the allowlist); the force-tool-usage nudge; Ollama's empty-reply
//! prompt (which drops native calls sent with empty text); the repair budget; then each
//! call is dispatched through `Agent.execute_tool`, whose `ToolExecutionError` (a bind
//! failure, an error the tool raised) ends the turn. After the calls: an answer longer
//! than 50 characters that says "final answer" ends the turn, and on Ollama the loop's
//! own summary of the results does from the second iteration on.

use super::summary;
use super::tools::{self, Path, Ran};
use super::{
    Ctx, Ending, Failure, Flow, MAX_ITERATIONS, MAX_TOOL_CALLS, Raised, Reply, answered, prompts,
    strip_py, wrap_up_answer,
};
use crate::py::unicode::lower;
use crate::py::{PyStr, Value, str_of};

/// The sync loop's state between replies.
#[derive(Default)]
pub struct SyncLoop {
    /// Waiting for the step-limit wrap-up reply, with the last reply's text.
    wrapping_up: Option<PyStr>,
}

impl SyncLoop {
    /// One iteration, from the model's reply to the next model call or the end.
    pub fn on_reply(&mut self, ctx: &mut Ctx<'_>, reply: Reply) -> Result<Flow, Failure> {
        if let Some(text) = self.wrapping_up.take() {
            return Ok(Flow::End(wrap_up_answer(&reply, &text)));
        }
        let text = reply.text_or_empty();
        let calls = ctx.calls(&reply, true)?;
        if let Some(nudge) = ctx.force_nudge(&calls) {
            ctx.push(nudge);
            return Ok(advance(ctx, &text));
        }
        if let Some(nudge) = ctx.ollama_empty_nudge(&text) {
            ctx.push(nudge);
            return Ok(advance(ctx, &text));
        }
        if let Some(prompt) = ctx.repair_prompt(&calls)? {
            ctx.push(prompt);
            return Ok(advance(ctx, &text));
        }
        ctx.repair_count = 0;
        if calls.is_empty() {
            let empty = strip_py(&text).is_empty();
            if ctx.ollama() && ctx.iteration >= 1 && !ctx.accumulated.is_empty() && empty {
                if let Some(text) = summary::ollama(&ctx.accumulated).filter(|s| !s.is_empty()) {
                    return Ok(Flow::End(answered(text)));
                }
            }
            return Ok(Flow::End(answered(strip_py(&text))));
        }
        ctx.echo(&text, &calls);
        if ctx.tool_calls_run >= MAX_TOOL_CALLS {
            return Ok(Flow::End(answered(PyStr::from(prompts::tool_call_limit(
                MAX_TOOL_CALLS,
            )))));
        }
        let room = MAX_TOOL_CALLS - ctx.tool_calls_run;
        let mut should_continue = false;
        for call in calls.iter().take(room) {
            let Some((arguments, ran)) = ctx.dispatch_call(Path::Sync, call)? else {
                ctx.parse_error(call);
                continue;
            };
            let result = match ran {
                Ran::Raised(message) => {
                    return Ok(Flow::End(Ending::Raised(Raised {
                        class: "ToolExecutionError",
                        message,
                    })));
                }
                Ran::Result(result) => tools::json_guard(result),
            };
            ctx.tool_calls_run += 1;
            ctx.accumulated.push(result.clone());
            ctx.tool_result(call, &str_of(&call.name), &result)?;
            if call.name == Value::str("sequentialthinking")
                && arguments
                    .get("nextThoughtNeeded")
                    .is_some_and(Value::is_truthy)
            {
                should_continue = true;
            }
        }
        if should_continue && ctx.iteration + 1 < MAX_ITERATIONS {
            return Ok(advance(ctx, &text));
        }
        let stripped = strip_py(&text);
        if stripped.char_len() > 50 && lower(&text).to_string_lossy().contains("final answer") {
            return Ok(Flow::End(answered(stripped)));
        }
        if ctx.ollama() && ctx.iteration >= 1 && !ctx.accumulated.is_empty() {
            if let Some(text) = summary::ollama(&ctx.accumulated).filter(|s| !s.is_empty()) {
                return Ok(Flow::End(answered(text)));
            }
        }
        if ctx.iteration + 1 >= MAX_ITERATIONS {
            self.wrapping_up = Some(text);
            return Ok(ctx.wrap_up());
        }
        Ok(advance(ctx, &PyStr::new()))
    }
}

/// `iteration_count += 1; continue`: past the iteration limit the end is the last reply's
/// text stripped (`response_text`, which the loop clears after answering calls).
fn advance(ctx: &mut Ctx<'_>, response_text: &PyStr) -> Flow {
    ctx.advance(|| answered(strip_py(response_text)))
}
