//! `IDEM007 annotation_mismatch`, the body-based part: deciding whether a tool without a
//! `#[side_effect]` contract writes. Annotations are hints (the MCP specification says so):
//! `destructive_hint = true` or `read_only_hint = false` make a write tool; a tool claiming
//! `read_only_hint = true` is judged a writer only on strong evidence (an HTTP write, SQL,
//! a filesystem write, a state-changing process, a message send), and the claim is then
//! reported with the wording of `idemcheck_spec::rules::idem007_annotation_mismatch`
//! (the contract check on the empty contract produced it). Names never make a writer.

use super::{ToolCx, WriteReason, describe_write};
use crate::index::{Index, MAX_DEPTH};

/// Whether the tool writes, and why.
pub fn judge(index: &Index<'_>, cx: &ToolCx<'_>) -> Option<WriteReason> {
    match cx.tool.declared_write {
        Some(true) => return Some(WriteReason::Declared),
        Some(false) => return None,
        None => {}
    }
    let body = cx.body?;
    let strong_only = cx.tool.claims_read_only;
    let (ev, at, chain) = index.write_path(body, strong_only, MAX_DEPTH)?;
    Some(WriteReason::Evidence {
        description: describe_write(index, ev, at, &chain),
        strong: ev.strong,
    })
}
