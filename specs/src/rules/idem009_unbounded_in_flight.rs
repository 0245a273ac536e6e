//! `IDEM009 unbounded_in_flight`: a write tool that may retry has neither `server_dedup`
//! nor `settle_ms`.

use super::RuleInfo;
use crate::check::{Cx, Violation};
use crate::model::{RuleCode, Severity, ToolKind};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem009,
    code: "IDEM009",
    name: "unbounded_in_flight",
    default_severity: Severity::Warning,
    summary: "a write tool that may retry has neither `server_dedup` nor `settle_ms`",
    what: "A write tool with `max_retries > 0` should either pass its key to a downstream API that \
deduplicates on it (`server_dedup = true`) or state how long a dispatched request can stay in \
flight (`settle_ms`), so the postcondition is trusted only once a late commit would have landed.",
    why: "Verify-then-retry wins against a lost acknowledgement and loses against a late commit: \
the check runs before the in-flight request lands, reports 'not done', and the retry duplicates \
the effect. Only a settle window or server-side deduplication closes that window.",
    example: r#"// warns
#[side_effect(key = [to], verify = find_welcome, max_retries = 1)]
async fn send_welcome(mail: &Mailer, to: String) -> Result<MessageId, MailError> { .. }

// passes
#[side_effect(key = [to], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
async fn send_welcome(mail: &Mailer, to: String) -> Result<MessageId, MailError> { .. }"#,
    compile_time: true,
};

pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    let Some(cap) = &cx.attr.max_retries else {
        return;
    };
    let dedup = cx.attr.server_dedup.as_ref().is_some_and(|d| d.value);
    if cx.kind == ToolKind::Write && cap.value > 0 && !dedup && cx.attr.settle_ms.is_none() {
        out.push(cx.violation(
            RuleCode::Idem009,
            cap.span.into(),
            format!(
                "write tool `{}` may retry but has neither `server_dedup` nor `settle_ms`: a late commit can slip past the postcondition",
                cx.tool_name
            ),
            "add `settle_ms = <longest in-flight time>` or, when the downstream API deduplicates on the key, `server_dedup = true`",
        ));
    }
}
