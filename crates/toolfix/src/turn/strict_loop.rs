//! The loop `strict` and `portable` run, for both loop kinds alike: the package's loop
//! with its documented promises kept (docs/profiles.md, "The agent loop").
//!
//! * calls come from the native field, else from salvage: never from the older
//!   `<tool_call>` parser, so a fenced example or an unoffered name never runs;
//! * native calls run even when the reply's text is empty;
//! * the repair budget re-prompts only for what dispatch cannot repair (a name that
//!   resolves to no tool, arguments that are not JSON): a drifted name runs at once;
//! * every call goes through strict dispatch once: the deny-list applies to the tool that
//!   would run, a bind failure's parameter hint and a tool's own error come back to the
//!   model as the call's result, and no body is run twice;
//! * the adapter formats the result as it is (`str()` for what JSON cannot hold, the
//!   empty-output text for `None`), under the name of the tool that ran;
//! * the turn ends when the model answers without a call, never on a heuristic or a
//!   summary the loop writes itself.

use super::args::{self, Parsed};
use super::tools::{self, Path, Ran};
use super::{
    Ctx, Failure, Flow, MAX_ITERATIONS, MAX_TOOL_CALLS, Reply, answered, prompts, strip_py,
    wrap_up_answer,
};
use crate::dispatch::resolved_name;
use crate::py::{PyStr, Value, str_of};

/// The strict loop: no state beyond the shared counters, except the wrap-up.
#[derive(Default)]
pub struct StrictLoop {
    wrapping_up: Option<PyStr>,
}

impl StrictLoop {
    /// One iteration.
    pub fn on_reply(&mut self, ctx: &mut Ctx<'_>, reply: Reply) -> Result<Flow, Failure> {
        if let Some(text) = self.wrapping_up.take() {
            return Ok(Flow::End(wrap_up_answer(&reply, &text)));
        }
        let text = reply.text_or_empty();
        let calls = ctx.calls(&reply, false)?;
        if calls.is_empty() {
            if let Some(nudge) = ctx.force_nudge(&calls) {
                ctx.push(nudge);
                return Ok(advance(ctx, &text));
            }
            return Ok(Flow::End(answered(strip_py(&text))));
        }
        if let Some(prompt) = ctx.repair_prompt(&calls)? {
            ctx.push(prompt);
            return Ok(advance(ctx, &text));
        }
        ctx.repair_count = 0;
        ctx.echo(&text, &calls);
        if ctx.tool_calls_run >= MAX_TOOL_CALLS {
            return Ok(Flow::End(answered(PyStr::from(prompts::tool_call_limit(
                MAX_TOOL_CALLS,
            )))));
        }
        let room = MAX_TOOL_CALLS - ctx.tool_calls_run;
        for call in calls.iter().take(room) {
            let dict = match args::parse(call, false, ctx.profile) {
                Parsed::Value(Value::Dict(dict)) => dict,
                _ => {
                    ctx.parse_error(call);
                    continue;
                }
            };
            let result = match tools::run(
                Path::Strict,
                ctx.registry,
                &call.name,
                &dict,
                &mut ctx.executed,
            )? {
                Ran::Result(result) => result,
                Ran::Raised(message) => Value::dict([("error", Value::Str(message))]),
            };
            ctx.tool_calls_run += 1;
            let shown = resolved_name(ctx.registry, &call.name)
                .cloned()
                .unwrap_or_else(|| str_of(&call.name));
            ctx.tool_result(call, &shown, &result)?;
        }
        if ctx.iteration + 1 >= MAX_ITERATIONS {
            self.wrapping_up = Some(text);
            return Ok(ctx.wrap_up());
        }
        Ok(advance(ctx, &PyStr::new()))
    }
}

/// The next iteration's call, or, past the limit, the end with the last text stripped.
fn advance(ctx: &mut Ctx<'_>, response_text: &PyStr) -> Flow {
    ctx.advance(|| answered(strip_py(response_text)))
}
