//! `IDEM003 missing_retry_cap`, the body-based part: the retried writes the tool reaches
//! (gathered for `IDEM008`), judged by `idemcheck_spec::rules::idem003_missing_retry_cap::
//! unbounded_retry`. The contract part (no `max_retries`) comes from
//! `idemcheck_spec::check::check_contract`.

use idemcheck_spec::RuleCode;
use idemcheck_spec::rules::idem003_missing_retry_cap::unbounded_retry;

use super::{Hit, ToolCx};
use crate::index::Index;

/// Unbounded retries around writes reachable from the tool.
pub fn check(index: &Index<'_>, cx: &ToolCx<'_>) -> Vec<Hit> {
    super::idem008_unguarded_retry::retried_writes(index, cx)
        .into_iter()
        .filter_map(|(id, r, write)| {
            let fact = super::idem008_unguarded_retry::fact(index, id, r, &write);
            let (message, help) = unbounded_retry(&fact)?;
            cx.hit(index.fns[id].0, RuleCode::Idem003, r.loc, message, help)
        })
        .collect()
}
