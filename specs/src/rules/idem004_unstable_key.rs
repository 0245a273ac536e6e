//! `IDEM004 unstable_key`: the key comes from a per-attempt or random source, or from a key
//! field the model supplies.

use super::RuleInfo;
use crate::attr::KeyAttr;
use crate::check::{Cx, Violation};
use crate::model::{RuleCode, Severity, ToolKind};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem004,
    code: "IDEM004",
    name: "unstable_key",
    default_severity: Severity::Error,
    summary: "a key comes from a per-attempt or random source, or from a key field the model supplies",
    what: "The key must be derived from the logical operation. It fires when the key is built from \
`Uuid::new_v4()`, `rand`, a clock, an attempt counter or a loop index, or when it is taken from an \
argument the model fills in (an `idempotency_key`, `request_id` or `nonce` field of the tool's own \
arguments).",
    why: "A key regenerated on every attempt deduplicates nothing: it is a receipt printer. A key \
the model writes can change between retries (the paper saw agents append `-retry1`). Derive it in \
code from the run scope and the business identifiers.",
    example: r#"// fires: the model supplies the key
#[side_effect(key = [idempotency_key], verify = find_charge, max_retries = 1)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }

// fires (lint): a fresh key per attempt
let key = Uuid::new_v4().to_string();
client.post(url).header("Idempotency-Key", key).send().await?;

// passes
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }"#,
    compile_time: true,
};

/// Argument names a model typically fills in as its own "key": never stable.
pub const MODEL_SUPPLIED_KEY_NAMES: &[&str] = &[
    "idempotency_key",
    "idempotencykey",
    "idem_key",
    "idempotency_token",
    "dedup_key",
    "dedupe_key",
    "request_id",
    "nonce",
    "client_token",
];

/// Names of per-attempt values: never part of a logical operation's identity.
pub const PER_ATTEMPT_NAMES: &[&str] = &[
    "attempt",
    "attempts",
    "attempt_no",
    "attempt_number",
    "retry",
    "retries",
    "retry_count",
    "try_count",
    "timestamp",
    "now",
    "uuid",
    "random",
];

/// Path segments of random or clock sources: a key function named so is unstable.
pub const UNSTABLE_SOURCES: &[&str] = &[
    "new_v4",
    "new_v7",
    "now_v7",
    "now_v1",
    "random",
    "rand",
    "thread_rng",
    "rng",
    "now",
    "SystemTime",
    "Instant",
    "Utc",
    "Local",
];

/// Why a key field name is unstable, if it is.
pub fn unstable_field_reason(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if MODEL_SUPPLIED_KEY_NAMES.contains(&lower.as_str()) {
        Some("is a key the model supplies in the tool's arguments; it can change between retries")
    } else if PER_ATTEMPT_NAMES.contains(&lower.as_str()) {
        Some("changes from one attempt to the next")
    } else {
        None
    }
}

pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    if cx.kind != ToolKind::Write {
        return;
    }
    match &cx.attr.key {
        Some(KeyAttr::Fields { fields, .. }) => {
            for field in fields {
                let last = field.last_name();
                if let Some(reason) = unstable_field_reason(&last) {
                    out.push(cx.violation(
                        RuleCode::Idem004,
                        field.span,
                        format!("key field `{}` {reason}", field.text),
                        "derive the key from the business identifiers of the operation (customer, order, ticket reference); the runtime adds the run scope",
                    ));
                }
            }
        }
        Some(KeyAttr::Function(path)) => {
            if let Some(seg) = path
                .segments
                .iter()
                .find(|s| UNSTABLE_SOURCES.contains(&s.ident.to_string().as_str()))
            {
                out.push(cx.violation(
                    RuleCode::Idem004,
                    crate::check::SpanRange::of(path),
                    format!("`key_fn` names `{}`, a random or clock source", seg.ident),
                    "a key function must be deterministic: build the key from the arguments, not from randomness or time",
                ));
            }
        }
        None => {}
    }
}
