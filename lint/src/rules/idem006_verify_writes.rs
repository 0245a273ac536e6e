//! `IDEM006 verify_writes`, the gathering: the workspace function a write tool's
//! `verify = path` names, and the first write it reaches (to a bounded depth). The rule's
//! judgement and words are in `idemcheck_spec::rules::idem006_verify_writes::check_body`.

use idemcheck_spec::RuleCode;
use idemcheck_spec::rules::idem006_verify_writes::{VerifyFound, check_body};

use super::Hit;
use crate::index::{Index, MAX_DEPTH};
use crate::judge::describe_write;
use crate::query::ToolView;

/// Check a tool's `verify` function (resolved by [`ToolView`]).
pub fn check(index: &Index<'_>, view: &ToolView<'_>) -> Vec<Hit> {
    let cx = &view.cx;
    let (Some(verify), Some(_), true) = (&view.verify, cx.body, cx.write.is_some()) else {
        return Vec::new();
    };
    let write = verify.found.and_then(|f| {
        index
            .write_path(f, false, MAX_DEPTH)
            .map(|(ev, at, chain)| describe_write(index, ev, at, &chain))
    });
    let found = match (verify.found, &write) {
        (None, _) => VerifyFound::Missing,
        (Some(_), Some(w)) => VerifyFound::Writes(w),
        (Some(_), None) => VerifyFound::Reads,
    };
    check_body(&cx.tool.name, verify.text, found)
        .and_then(|(message, help)| {
            cx.hit(cx.file, RuleCode::Idem006, verify.call.loc, message, help)
        })
        .into_iter()
        .collect()
}
