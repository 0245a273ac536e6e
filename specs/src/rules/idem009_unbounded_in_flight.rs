//! `IDEM009 unbounded_in_flight`: a write tool that may retry has neither `server_dedup`
//! nor `settle_ms`.

use super::RuleInfo;
#[cfg(feature = "grammar")]
use crate::check::{Cx, Violation};
#[cfg(feature = "grammar")]
use crate::model::ToolKind;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem009,
    code: "IDEM009",
    name: "unbounded_in_flight",
    default_severity: Severity::Warning,
    summary: "a write tool that may retry has neither `server_dedup` nor `settle_ms`, or a settle window shorter than its attempt timeout",
    what: "A write tool with `max_retries > 0` should either pass its key to a downstream API that \
deduplicates on it (`server_dedup = true`) or state how long a dispatched request can stay in \
flight (`settle_ms`), so the postcondition is trusted only once a late commit would have landed. \
The settle window must also cover the attempt: a `settle_ms` shorter than `timeout_ms` (or, \
without `timeout_ms`, shorter than the 30 s an attempt is taken to last) claims that requests \
land within a time the client itself does not wait for.",
    why: "Verify-then-retry wins against a lost acknowledgement and loses against a late commit: \
the check runs before the in-flight request lands, reports 'not done', and the retry duplicates \
the effect. Only a settle window or server-side deduplication closes that window. A request \
still in flight when a 30 s attempt gives up has already outlived a 2 s settle window: the \
postcondition is trusted at once, says 'not done', and the request lands afterwards (the \
simulator takes `settle_ms` at its word and holds no request longer; with a wider in-flight \
bound, `Env::bound_ms`, it finds this schedule). When the downstream system really commits \
within the window whatever the client waits, say so: `allow(unbounded_in_flight, reason = \"..\")`. \
A tool that never retries (`max_retries = 0`) is not checked, yet a call the agent repeats after \
an Unknown answer or a crash is a retry too: it asks the postcondition and, told 'not done', \
executes again (the simulator finds the duplicate), so state `settle_ms` there as well.",
    example: r#"// warns
#[side_effect(key = [to], verify = find_welcome, max_retries = 1)]
async fn send_welcome(mail: &Mailer, to: String) -> Result<MessageId, MailError> { .. }

// warns: the attempt may wait 60 s, the window claims 2 s
#[side_effect(key = [to], verify = find_welcome, max_retries = 1, timeout_ms = 60_000, settle_ms = 2_000)]
async fn send_welcome(mail: &Mailer, to: String) -> Result<MessageId, MailError> { .. }

// passes
#[side_effect(key = [to], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
async fn send_welcome(mail: &Mailer, to: String) -> Result<MessageId, MailError> { .. }"#,
    compile_time: true,
};

/// How long an attempt without `timeout_ms` is taken to last (the fault simulator's default
/// attempt timeout, and a common HTTP client default).
pub const ASSUMED_ATTEMPT_MS: u64 = 30_000;

#[cfg(feature = "grammar")]
pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    let Some(cap) = &cx.attr.max_retries else {
        return;
    };
    let dedup = cx.attr.server_dedup.as_ref().is_some_and(|d| d.value);
    if cx.kind != ToolKind::Write || cap.value == 0 || dedup {
        return;
    }
    if let Some(settle) = &cx.attr.settle_ms {
        let tool = &cx.tool_name;
        let settle_ms = settle.value;
        let message = match &cx.attr.timeout_ms {
            Some(t) if t.value > settle_ms => format!(
                "the settle window of write tool `{tool}` (`settle_ms = {settle_ms}`) is shorter than its attempt timeout (`timeout_ms = {}`): a request still in flight when the attempt gives up has outlived the window, so the postcondition's \"not done\" can be followed by a late commit and a duplicate",
                t.value
            ),
            None if ASSUMED_ATTEMPT_MS > settle_ms => format!(
                "the settle window of write tool `{tool}` (`settle_ms = {settle_ms}`) is shorter than an attempt without `timeout_ms` may last (taken as {} s, as the fault simulator does; the tool's own transport may wait longer): a request still in flight when the attempt gives up has outlived the window, so the postcondition's \"not done\" can be followed by a late commit and a duplicate",
                ASSUMED_ATTEMPT_MS / 1000
            ),
            _ => return,
        };
        out.push(cx.violation(
            RuleCode::Idem009,
            settle.span.into(),
            message,
            "add `timeout_ms` no longer than `settle_ms` (or widen `settle_ms` to cover the attempt); if the downstream system commits within the window whatever the client waits, say so with `allow(unbounded_in_flight, reason = \"..\")`",
        ));
        return;
    }
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
