//! `IDEM001 missing_key`: a write tool has no stable key derivation.

use super::RuleInfo;
#[cfg(feature = "grammar")]
use crate::check::{Cx, Violation};
#[cfg(feature = "grammar")]
use crate::model::ToolKind;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem001,
    code: "IDEM001",
    name: "missing_key",
    default_severity: Severity::Error,
    summary: "a write tool has no stable key derivation",
    what: "A tool that writes (charges, sends, creates, deletes) must name the inputs that identify \
its logical operation, with `key = [field, ...]` or `key_fn = path`. The runtime derives the \
idempotency key from the run scope, the tool name and the canonical JSON of those inputs.",
    why: "Without a key, a retry after a timeout cannot be recognised as the same operation: the \
ledger cannot replay the first result, and a downstream API that honours idempotency keys gets a \
new one each time. A timeout is not a failure; the first call may have landed.",
    example: r#"// fires: nothing identifies the operation
#[side_effect(verify = find_charge, max_retries = 1)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }

// passes
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }"#,
    compile_time: true,
};

#[cfg(feature = "grammar")]
pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    if cx.kind == ToolKind::Write && cx.attr.key.is_none() {
        out.push(cx.violation(
            RuleCode::Idem001,
            cx.fn_span(),
            format!("write tool `{}` has no stable key", cx.tool_name),
            "add `key = [<fields naming the operation>]` (e.g. the customer and order id) or `key_fn = path`",
        ));
    }
}
