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

/// What the lint found behind a write tool's `verify = path`: the plain fact this rule
/// judges.
#[derive(Debug, Clone, Copy)]
pub enum VerifyFound<'a> {
    /// No workspace function has that path.
    Missing,
    /// The function (or one it calls) writes; the write, described.
    Writes(&'a str),
    /// It only reads.
    Reads,
}

/// The finding for tool `tool`'s postcondition `path`: message and help, or `None`.
pub fn check_body(
    tool: &str,
    path: &str,
    found: VerifyFound<'_>,
) -> Option<(String, &'static str)> {
    match found {
        VerifyFound::Missing => Some((
            format!("postcondition `{path}` of tool `{tool}` cannot be found in the workspace"),
            "name a workspace function that reads the system of record: `Ok(Some(_))` happened, `Ok(None)` did not, `Err(_)` cannot tell",
        )),
        VerifyFound::Writes(write) => Some((
            format!("postcondition `{path}` of tool `{tool}` writes: {write}"),
            "a postcondition must only read; it runs on every ambiguous failure",
        )),
        VerifyFound::Reads => None,
    }
}
