//! `IDEM006 verify_writes`: the postcondition named by `verify = path` writes (in its body
//! or in a workspace function it calls, to a bounded depth), or no such function exists.

use idemcheck_spec::RuleCode;

use super::{Hit, ToolCx, describe_write};
use crate::index::{Index, MAX_DEPTH};

/// Check a tool's `verify` function.
pub fn check(index: &Index<'_>, cx: &ToolCx<'_>) -> Vec<Hit> {
    let tool = cx.tool;
    let (Some((call, text)), Some(body), true) = (&tool.verify, cx.body, cx.write.is_some()) else {
        return Vec::new();
    };
    // Inside an impl, a bare name is looked up as a method of the same type first.
    let mut found = Vec::new();
    if let (
        crate::facts::CallTarget::Path {
            absolute: false,
            segments,
        },
        Some(ty),
    ) = (&call.target, &index.func(body).self_ty)
        && segments.len() == 1
    {
        found = index.methods_of(ty, &segments[0], index.file_of(body).krate);
    }
    if found.is_empty() {
        found = index.resolve_from(body, call);
    }
    let Some(&verify) = found.first() else {
        return cx
            .hit(
                cx.file,
                RuleCode::Idem006,
                call.loc,
                format!(
                    "postcondition `{text}` of tool `{}` cannot be found in the workspace",
                    tool.name
                ),
                "name a workspace function that reads the system of record: `Ok(Some(_))` happened, `Ok(None)` did not, `Err(_)` cannot tell",
            )
            .into_iter()
            .collect();
    };
    match index.write_path(verify, false, MAX_DEPTH) {
        Some((ev, at, chain)) => cx
            .hit(
                cx.file,
                RuleCode::Idem006,
                call.loc,
                format!(
                    "postcondition `{text}` of tool `{}` writes: {}",
                    tool.name,
                    describe_write(index, ev, at, &chain)
                ),
                "a postcondition must only read; it runs on every ambiguous failure",
            )
            .into_iter()
            .collect(),
        None => Vec::new(),
    }
}
