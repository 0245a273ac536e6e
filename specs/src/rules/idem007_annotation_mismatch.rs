//! `IDEM007 annotation_mismatch`: MCP tool hints contradict the code or the contract.

use super::RuleInfo;
use crate::check::{Cx, Violation};
use crate::model::{RuleCode, Severity, ToolKind};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem007,
    code: "IDEM007",
    name: "annotation_mismatch",
    default_severity: Severity::Error,
    summary: "rmcp hints contradict the code (`read_only_hint = true` on a writer; `idempotent_hint = true` with no key)",
    what: "MCP tool annotations are hints clients use to decide what to retry and what to ask a \
person about. It fires when a tool that writes (declared `kind = \"write\"`, or found writing by \
the lint) claims `read_only_hint = true`, and when a tool claims `idempotent_hint = true` without \
a key that makes it so.",
    why: "The MCP specification says annotations are hints and must not be trusted blindly, but \
clients do act on them: a client that believes a tool is read-only or idempotent will retry it \
freely. A false hint turns a careful client into a duplicating one.",
    example: r#"// fires: a writer that claims to be read-only
#[tool(description = "Charge a card", annotations(read_only_hint = true))]
async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<String, String> { .. }

// passes
#[side_effect(key = [customer, order_id], verify = Self::find_charge, max_retries = 1, settle_ms = 30_000)]
#[tool(description = "Charge a card", annotations(destructive_hint = false, idempotent_hint = true))]
async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<String, String> { .. }"#,
    compile_time: true,
};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    let Some(hints) = cx.hints else { return };
    if cx.kind == ToolKind::Write
        && let Some(ro) = &hints.read_only
        && ro.value
    {
        out.push(cx.violation(
            RuleCode::Idem007,
            ro.span.into(),
            format!(
                "write tool `{}` claims `read_only_hint = true`",
                cx.tool_name
            ),
            "remove the hint or set `read_only_hint = false`; clients retry read-only tools freely",
        ));
    }
    if let Some(idem) = &hints.idempotent
        && idem.value
        && cx.kind == ToolKind::Write
        && cx.attr.key.is_none()
    {
        out.push(cx.violation(
            RuleCode::Idem007,
            idem.span.into(),
            format!(
                "tool `{}` claims `idempotent_hint = true` but has no key that makes it idempotent",
                cx.tool_name
            ),
            "add `key = [...]` to the contract, or drop the hint",
        ));
    }
}
