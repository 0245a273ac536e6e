//! `IDEM006 verify_writes`: the postcondition named by `verify = path` writes (in its body
//! or in a workspace function it calls, to a bounded depth), or no such function exists.

use idemcheck_spec::RuleCode;

use super::{Hit, describe_write};
use crate::index::{Index, MAX_DEPTH};
use crate::query::ToolView;

/// Check a tool's `verify` function (resolved by [`ToolView`]).
pub fn check(index: &Index<'_>, view: &ToolView<'_>) -> Vec<Hit> {
    let cx = &view.cx;
    let tool = cx.tool;
    let (Some(verify), Some(_), true) = (&view.verify, cx.body, cx.write.is_some()) else {
        return Vec::new();
    };
    let (call, text) = (verify.call, verify.text);
    let Some(verify) = verify.found else {
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
