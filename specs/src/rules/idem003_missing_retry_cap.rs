//! `IDEM003 missing_retry_cap`: a write tool has no retry cap, or retries without bound.

use super::RuleInfo;
#[cfg(feature = "grammar")]
use crate::check::{Cx, Violation};
#[cfg(feature = "grammar")]
use crate::model::ToolKind;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem003,
    code: "IDEM003",
    name: "missing_retry_cap",
    default_severity: Severity::Error,
    summary: "a write tool has no retry cap, or retries without bound",
    what: "A write tool must state how many times one logical operation may be retried, with \
`max_retries = N` (`0` = never retry). The lint also fires on hand-written retry loops and retry \
combinators around a write that have no bound.",
    why: "Each retry of a write is another chance to duplicate it and is spend you cannot \
recover. A cap makes the worst case explicit and reviewable; one retry, issued only when the \
postcondition says the first attempt did not happen, is a defensible default.",
    example: r#"// fires
#[side_effect(key = [customer, order_id], verify = find_charge)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }

// passes
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }"#,
    compile_time: true,
};

#[cfg(feature = "grammar")]
pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    if cx.kind == ToolKind::Write && cx.attr.max_retries.is_none() {
        out.push(cx.violation(
            RuleCode::Idem003,
            cx.fn_span(),
            format!("write tool `{}` has no retry cap", cx.tool_name),
            "add `max_retries = 1` (or `0` to never retry)",
        ));
    }
}

/// The body-based part: a retry around a write whose attempts are not bounded (`loop`
/// without an attempt limit, tokio-retry without `.take(n)`, backon `without_max_times`).
/// Message and help, or `None` when it is bounded.
pub fn unbounded_retry(
    r: &super::idem008_unguarded_retry::RetriedWrite<'_>,
) -> Option<(String, &'static str)> {
    (!r.bounded).then(|| {
        (
            format!("retry in `{}` around a write ({}) has no bound", r.function, r.write),
            "bound the attempts, or better, remove the retry and declare `max_retries = 1` on the tool's contract",
        )
    })
}
