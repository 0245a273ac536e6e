//! `IDEM005 retry_cap_too_high`: the cap is above the configured maximum.

use super::RuleInfo;
#[cfg(feature = "grammar")]
use crate::check::{Cx, Violation};
#[cfg(feature = "grammar")]
use crate::model::ToolKind;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem005,
    code: "IDEM005",
    name: "retry_cap_too_high",
    default_severity: Severity::Error,
    summary: "retry cap above the configured maximum (default 1)",
    what: "`max_retries` on a write tool is above the workspace maximum, which is 1 unless \
`max_retries` is set in `[workspace.metadata.idemcheck]`, `[package.metadata.idemcheck]` or \
`idemcheck.toml`.",
    why: "Every retry of a write widens the window in which a late commit or a redelivery can \
duplicate it. A team-wide ceiling keeps the decision in one reviewed place instead of in every tool.",
    example: r#"// fires with the default maximum of 1
#[side_effect(key = [ticket_ref], verify = find_ticket, max_retries = 5)]
async fn open_ticket(desk: &Desk, args: TicketArgs) -> Result<Ticket, DeskError> { .. }

// passes
#[side_effect(key = [ticket_ref], verify = find_ticket, max_retries = 1, settle_ms = 30_000)]
async fn open_ticket(desk: &Desk, args: TicketArgs) -> Result<Ticket, DeskError> { .. }"#,
    compile_time: true,
};

#[cfg(feature = "grammar")]
pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    let Some(cap) = &cx.attr.max_retries else {
        return;
    };
    let max = cx.config.max_retries;
    if cx.kind == ToolKind::Write && cap.value > max {
        out.push(cx.violation(
            RuleCode::Idem005,
            cap.span.into(),
            format!(
                "`max_retries = {}` on write tool `{}` is above the configured maximum of {max}",
                cap.value, cx.tool_name
            ),
            format!("lower it to {max}, or raise `max_retries` in the idemcheck configuration"),
        ));
    }
}
