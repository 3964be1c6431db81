//! The scan of `praisonai`: the real package's six dialects over the fence-masked text.
//!
//! `_recover_json_tool_calls` blanks every fenced block (`fence`), runs each embedded
//! dialect's pattern over what is left, and `span::select` orders the matches and drops
//! those that start inside an earlier one. `strict` and `portable` read the reply in one
//! pass instead (`pass`), where a call's own text is never masked.

use super::dialect;
use super::fence::{self, Masked};
use super::payload::Payloads;
use super::span;
use super::{Allowlist, SalvageError};
use crate::profile::Profile;

/// The calls of `content`, in text order, as praisonaiagents 1.7.17 finds them.
pub fn scan(
    content: &[u8],
    tools: &Allowlist,
    profile: Profile,
) -> Result<span::Selection, SalvageError> {
    let masked = Masked::with_ranges(content, fence::fenced_ranges(content));
    let payloads = Payloads::new(&masked, tools, profile);
    let mut candidates = dialect::scan_embedded(&payloads)?;
    for c in candidates.iter_mut() {
        c.span = masked.to_original(c.span.start)..masked.to_original(c.span.end);
    }
    Ok(span::select(candidates))
}
