//! `IDEM006 verify_writes`: the postcondition function writes, or cannot be found.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem006,
    code: "IDEM006",
    name: "verify_writes",
    default_severity: Severity::Error,
    summary: "the postcondition function writes, or cannot be found",
    what: "The function named by `verify = path` is followed into its body (and the workspace \
functions it calls). It fires when that body performs a write (HTTP POST/PUT/PATCH/DELETE, SQL \
INSERT/UPDATE/DELETE, filesystem writes, process spawns, message sends), or when no function of \
that name exists in the workspace. (At compile time, rustc reports a path that does not resolve.)",
    why: "The postcondition runs on every ambiguous failure and every crashed record. A 'check' \
that writes is a second side effect with no contract of its own, run at the worst possible moment.",
    example: r#"// fires: the check creates what it looks for
async fn find_charge(billing: &Billing, args: &ChargeArgs) -> Result<Option<Charge>, BillingError> {
    billing.http.post(format!("{}/charges", billing.url)).json(args).send().await?; ..
}

// passes: a read
async fn find_charge(billing: &Billing, args: &ChargeArgs) -> Result<Option<Charge>, BillingError> {
    billing.http.get(format!("{}/charges?order={}", billing.url, args.order_id)).send().await?; ..
}"#,
    compile_time: false,
};
