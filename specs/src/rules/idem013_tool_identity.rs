//! `IDEM013 tool_identity`: two guarded tools of a workspace share one identity, or a contract's
//! `name` contradicts the name the framework publishes.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem013,
    code: "IDEM013",
    name: "tool_identity",
    default_severity: Severity::Error,
    summary: "two guarded tools keyed on the same fields share one identity, or `name` contradicts the framework's tool name",
    what: "A guarded tool's identity is part of every key it derives, the ledger's `tool` column \
and every escalation. It is the contract's `name = \"..\"`, else the name the framework publishes \
(rmcp's `#[tool(name = ..)]`, rig's `Tool::NAME`), else the function's name. Two guarded tools \
of one workspace keyed on the same fields (or through a `key_fn`) must not share it — unless \
one guards the other's raw body (two guards of one operation) — and a `name` given on rig's \
`Tool::call` must be the impl's `NAME`.",
    why: "Two tools with one identity keyed on the same field (`escalate_ticket` and \
`deprioritise_ticket`, both `key = [ticket_id]`, both named `call`) derive the same key for \
different operations: the second is never run and silently returns the first one's stored \
result. A `name` that differs from rig's `NAME` keys and reports the tool under a name the \
model never calls.",
    example: r#"// fails: two tools named `create`, keyed alike, in one ledger and scope
impl Tickets { #[side_effect(key = [id], verify = find, max_retries = 0)] async fn create(..) }
impl Users   { #[side_effect(key = [id], verify = find, max_retries = 0)] async fn create(..) }

// passes: each has its own identity
impl Tickets { #[side_effect(name = "tickets.create", key = [id], verify = find, max_retries = 0, settle_ms = 30_000)] async fn create(..) }
impl Users   { #[side_effect(name = "users.create", key = [id], verify = find, max_retries = 0, settle_ms = 30_000)] async fn create(..) }"#,
    compile_time: false,
};
