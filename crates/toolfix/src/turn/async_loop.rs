//! praisonaiagents 1.7.17's async loop, `LLM.get_response_async`
//! (`llm/llm.py:5675-6760`), as `Agent.achat` runs it: non-streaming.
//!
//! It differs from the sync loop in shape as much as in detail. Per iteration: one
//! model call; salvage (no older parser); the force-tool-usage nudge, the repair budget,
//! then Ollama's empty-reply prompt (in that order); each call dispatched through
//! `Agent.execute_tool_async`, whose errors, hint-less, come back as results; then a
//! second model call inside the same iteration, whose text is discarded while calls were
//! answered and whose own native calls are never run; on Ollama past the first
//! iteration, an extra prompt for the final answer before that call, and the loop's own
//! summary after it.

use super::calls::FoundCall;
use super::summary;
use super::tools::{Path, Ran};
use super::{
    Ctx, Failure, Flow, MAX_ITERATIONS, MAX_TOOL_CALLS, Message, Purpose, Reply, answered, prompts,
    strip_py, wrap_up_answer,
};
use crate::py::{PyStr, Value, str_of};

/// Where the async loop is within an iteration.
#[derive(Default)]
pub struct AsyncLoop {
    phase: Phase,
}

#[derive(Default)]
enum Phase {
    /// Waiting for the iteration's first reply.
    #[default]
    Main,
    /// Waiting for the reply that follows the tool results.
    FollowUp,
    /// Waiting for the step-limit wrap-up reply, with the last reply's text.
    WrapUp(PyStr),
}

/// A call of the reply, in order: answered with a parse error, or run.
enum Planned<'c> {
    ParseError(&'c FoundCall),
    Ran(&'c FoundCall, Value),
}

impl AsyncLoop {
    /// The next reply, at whatever point of the iteration the loop is.
    pub fn on_reply(&mut self, ctx: &mut Ctx<'_>, reply: Reply) -> Result<Flow, Failure> {
        match std::mem::take(&mut self.phase) {
            Phase::WrapUp(text) => Ok(Flow::End(wrap_up_answer(&reply, &text))),
            Phase::FollowUp => Ok(self.follow_up(ctx, &reply)),
            Phase::Main => self.main(ctx, &reply),
        }
    }

    /// The iteration's first reply.
    fn main(&mut self, ctx: &mut Ctx<'_>, reply: &Reply) -> Result<Flow, Failure> {
        let text = reply.text_or_empty();
        let calls = ctx.calls(reply, false)?;
        if let Some(nudge) = ctx.force_nudge(&calls) {
            ctx.push(nudge);
            return Ok(advance(ctx, &text));
        }
        if let Some(prompt) = ctx.repair_prompt(&calls)? {
            ctx.push(prompt);
            return Ok(advance(ctx, &text));
        }
        ctx.repair_count = 0;
        if let Some(nudge) = ctx.ollama_empty_nudge(&text) {
            ctx.push(nudge);
            return Ok(advance(ctx, &text));
        }
        if calls.is_empty() {
            let stripped = strip_py(&text);
            if ctx.ollama()
                && ctx.iteration >= 1
                && !ctx.accumulated.is_empty()
                && stripped.is_empty()
            {
                if let Some(text) = summary::ollama(&ctx.accumulated).filter(|s| !s.is_empty()) {
                    return Ok(Flow::End(answered(text)));
                }
            }
            let answer = match ctx.iteration > 0 && !stripped.is_empty() {
                true => stripped,
                false => text,
            };
            return Ok(Flow::End(answered(answer)));
        }
        ctx.echo(&text, &calls);
        if ctx.tool_calls_run >= MAX_TOOL_CALLS {
            return Ok(Flow::End(answered(PyStr::from(prompts::tool_call_limit(
                MAX_TOOL_CALLS,
            )))));
        }
        let room = MAX_TOOL_CALLS - ctx.tool_calls_run;
        let mut plan = Vec::new();
        for call in calls.iter().take(room) {
            let Some((_, ran)) = ctx.dispatch_call(Path::Async, call)? else {
                plan.push(Planned::ParseError(call));
                continue;
            };
            let result = match ran {
                Ran::Result(result) => result,
                Ran::Raised(message) => Value::dict([("error", Value::Str(message))]),
            };
            plan.push(Planned::Ran(call, result));
        }
        for planned in plan {
            match planned {
                Planned::ParseError(call) => ctx.parse_error(call),
                Planned::Ran(call, result) => {
                    ctx.tool_calls_run += 1;
                    ctx.accumulated.push(result.clone());
                    ctx.tool_result(call, &str_of(&call.name), &result)?;
                }
            }
        }
        if ctx.ollama() && ctx.iteration > 0 {
            ctx.push(Message::user(
                prompts::OLLAMA_FINAL_ANSWER,
                Purpose::FinalAnswerPrompt,
            ));
        }
        self.phase = Phase::FollowUp;
        Ok(Flow::Call { offer_tools: true })
    }

    /// The reply after the tool results: its text cannot end the turn (the calls just
    /// answered still count as the reply's calls) and its own calls are dropped when the
    /// next iteration calls the model again.
    fn follow_up(&mut self, ctx: &mut Ctx<'_>, reply: &Reply) -> Flow {
        let text = strip_py(&reply.text_or_empty());
        if ctx.ollama() && ctx.iteration >= 1 && !ctx.accumulated.is_empty() {
            if let Some(summary) = summary::ollama(&ctx.accumulated).filter(|s| !s.is_empty()) {
                return Flow::End(answered(summary));
            }
        }
        if ctx.iteration + 1 >= MAX_ITERATIONS {
            self.phase = Phase::WrapUp(text);
            return ctx.wrap_up();
        }
        advance(ctx, &text)
    }
}

/// `iteration_count += 1; continue`: past the limit the end is the last reply's text as
/// it stands.
fn advance(ctx: &mut Ctx<'_>, response_text: &PyStr) -> Flow {
    ctx.advance(|| answered(response_text.clone()))
}
