//! The write judgement of a tool: the classifier's verdict that `check`, `docs`, `suggest`
//! and the inventory all use (through [`crate::query`]). A `#[side_effect]` contract declares
//! it; otherwise the code decides, read through the tool's hints as rule `IDEM007` reads them
//! (`idemcheck_spec::rules::idem007_annotation_mismatch::hints_say`). Annotations are hints
//! (the MCP specification says so): `destructive_hint = true` or `read_only_hint = false`
//! make a write tool; a tool claiming `read_only_hint = true` is judged a writer only on
//! strong evidence (an HTTP write, SQL, a filesystem write, a state-changing process, a
//! message send), and the claim is then reported with the wording of
//! `idemcheck_spec::rules::idem007_annotation_mismatch` (the contract check on the empty
//! contract produced it). Names decide only when the code
//! shows nothing either way (no write and no read reached): then the tool's own name or
//! description breaks the tie, and its findings are warnings.

use crate::index::{Index, MAX_DEPTH};
use crate::rules::{ToolCx, WriteReason, describe_write};

/// Whether the tool writes, and why.
pub fn judge(index: &Index<'_>, cx: &ToolCx<'_>) -> Option<WriteReason> {
    match cx.tool.declared_write {
        Some(true) => return Some(WriteReason::Declared),
        Some(false) => return None,
        None => {}
    }
    let strong_only = cx.tool.claims_read_only;
    if let Some(body) = cx.body
        && let Some((ev, at, chain)) = index.write_path(body, strong_only, MAX_DEPTH)
    {
        // The raw body of a guarded tool, called around its guard.
        let bypasses = chain
            .iter()
            .chain([&at])
            .find_map(|id| index.guarded_name(*id).map(|name| (*id, name)))
            .map(|(id, name)| (name.to_string(), raw_path(index, id)));
        return Some(WriteReason::Evidence {
            description: describe_write(index, ev, at, &chain),
            strong: ev.strong,
            by_name: false,
            bypasses,
        });
    }
    // It enters a guarded function through its guarded entry point: a write, under that
    // function's contract.
    if let Some(body) = cx.body
        && let Some((guarded, _)) = index.guard_path(body, MAX_DEPTH)
    {
        return Some(WriteReason::Guarded {
            tool: index.guarded_name(guarded).unwrap_or_default().to_string(),
            function: raw_path(index, guarded),
        });
    }
    // The code shows nothing either way: the tool's own words break the tie.
    if strong_only || cx.body.is_some_and(|b| index.reads_from(b)) {
        return None;
    }
    let words = cx
        .tool
        .description
        .clone()
        .unwrap_or_else(|| cx.tool.doc.clone());
    let why = crate::effects::verbs::name_says_write(&cx.tool.name, &words)?;
    Some(WriteReason::Evidence {
        description: format!(
            "no write or read was found in the code it reaches (its effects are behind calls the lint cannot see into), and {why}"
        ),
        strong: false,
        by_name: true,
        bypasses: None,
    })
}

/// A free function's path as its callers write it (`billing::send_invoice`).
fn raw_path(index: &Index<'_>, id: crate::index::FnId) -> String {
    let f = index.func(id);
    if f.module.is_empty() {
        f.name.clone()
    } else {
        format!("{}::{}", f.module, f.name)
    }
}
