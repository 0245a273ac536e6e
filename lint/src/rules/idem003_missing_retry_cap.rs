//! `IDEM003 missing_retry_cap`, the body-based part: a hand-written retry loop or retry
//! combinator around a write with no bound (`loop` without an attempt limit, tokio-retry
//! without `.take(n)`, backon `without_max_times`). The contract part (no `max_retries`)
//! comes from `idemcheck_spec::check::check_contract`.

use idemcheck_spec::RuleCode;

use super::{Hit, ToolCx};
use crate::index::Index;

/// Unbounded retries around writes reachable from the tool.
pub fn check(index: &Index<'_>, cx: &ToolCx<'_>) -> Vec<Hit> {
    super::idem008_unguarded_retry::retried_writes(index, cx)
        .into_iter()
        .filter(|(_, r, _)| !r.bounded)
        .filter_map(|(id, r, what)| {
            cx.hit(
                index.fns[id].0,
                RuleCode::Idem003,
                r.loc,
                format!(
                    "retry in `{}` around a write ({what}) has no bound",
                    index.func(id).display
                ),
                "bound the attempts, or better, remove the retry and declare `max_retries = 1` on the tool's contract",
            )
        })
        .collect()
}
