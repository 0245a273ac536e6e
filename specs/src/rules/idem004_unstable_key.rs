//! `IDEM004 unstable_key`: the key comes from a per-attempt or random source, or from a key
//! field the model supplies.

use super::RuleInfo;
#[cfg(feature = "grammar")]
use crate::attr::KeyAttr;
#[cfg(feature = "grammar")]
use crate::check::{Cx, Violation};
#[cfg(feature = "grammar")]
use crate::model::{ContextPart, ToolKind};
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem004,
    code: "IDEM004",
    name: "unstable_key",
    default_severity: Severity::Error,
    summary: "a key comes from a per-attempt or random source, or from a key field the model supplies",
    what: concat!(
        "The key must be derived from the logical operation. It fires when the key is built from \
`Uuid::new_v4()`, `rand`, a clock, an attempt counter or a loop index, when it is taken from an \
argument the model fills in (an `idempotency_key`, `request_id` or `nonce` field of the tool's own \
arguments), or when a `key_fn` declares it reads the clock or the worker's identity \
(`key_context = [clock]`, `[worker]`; only the run scope, `[scope]`, is stable). ",
        crate::keys::caller_key_rule!()
    ),
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
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }"#,
    compile_time: true,
};

/// Argument names a model typically fills in as its own "key": never stable (the one rule:
/// [`crate::keys`]).
pub use crate::keys::MINTED_TOKEN_NAMES as MODEL_SUPPLIED_KEY_NAMES;
pub use crate::keys::is_caller_chosen;

/// Whether `name` is one of [`MODEL_SUPPLIED_KEY_NAMES`] (Rust identifiers, compared as
/// written).
pub fn is_model_key(name: &str) -> bool {
    crate::keys::is_minted_token(name)
}

/// [`is_model_key`] for an identifier of a syntax tree, without printing it (the lint asks
/// this of every field access and binding).
#[cfg(feature = "grammar")]
pub fn is_model_key_ident(ident: &proc_macro2::Ident) -> bool {
    // The text once, on the stack: cheaper than comparing the identifier with each name.
    crate::ident::with_ident_text(ident, |t| MODEL_SUPPLIED_KEY_NAMES.contains(&t))
}

/// Why a key field name is unstable, if it is: a key the model supplies, an attempt counter
/// ([`attempt_ident`]) or a clock or random value ([`crate::keys::key_field_kind`]).
pub fn unstable_field_reason(name: &str) -> Option<&'static str> {
    crate::keys::key_field_kind(name).unstable_reason()
}

/// A random, clock or id source, from a resolved call path.
pub fn unstable_source(segments: &[String]) -> Option<String> {
    let n = segments.len();
    let last = segments.last()?.as_str();
    let parent = if n >= 2 { segments[n - 2].as_str() } else { "" };
    let hit = match (parent, last) {
        ("Uuid", "new_v4" | "new_v7" | "now_v7" | "now_v1" | "now_v6" | "new_v1") => true,
        ("Ulid", "new") | ("ulid", "generate") => true,
        ("rand", _) => true,
        (_, "thread_rng" | "random" | "rng") => parent.is_empty() || parent == "rand",
        ("SystemTime" | "Instant" | "Utc" | "Local" | "Timestamp" | "Zoned", "now") => true,
        ("OffsetDateTime", "now_utc" | "now_local") => true,
        _ => false,
    };
    hit.then(|| {
        if parent.is_empty() {
            format!("`{last}()`")
        } else {
            format!("`{parent}::{last}()`")
        }
    })
}

/// Whether an identifier names a per-attempt value (an attempt counter).
pub fn attempt_ident(name: &str) -> bool {
    crate::keys::is_attempt_name(name)
}

use crate::keys::ascii_lower;

/// Names that make a `let` binding an idempotency key.
pub fn key_binding(name: &str) -> bool {
    let lower = ascii_lower(name);
    lower.contains("idempot")
        || lower.contains("dedup")
        || lower == "key"
        || lower == "idem_key"
        || lower == "op_key"
        || lower == "operation_key"
}

/// Whether an HTTP header name (literal or constant name) is an idempotency key header.
pub fn key_header(name: &str) -> bool {
    let lower = ascii_lower(name);
    lower.contains("idempotency") || lower.contains("idempotent") || lower.contains("dedup")
}

/// Builder and request methods whose one argument is an idempotency key
/// (`.idempotency_key(k)`, `.with_idempotency_key(k)`).
pub const KEY_SETTERS: &[&str] = &[
    "idempotency_key",
    "with_idempotency_key",
    "idempotent",
    "set_idempotency_key",
];

#[cfg(feature = "grammar")]
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
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(what) = unstable_source(&segments) {
                out.push(cx.violation(
                    RuleCode::Idem004,
                    crate::check::SpanRange::of(path),
                    format!("`key_fn` names {what}, a random or clock source"),
                    "a key function must be deterministic: build the key from the arguments, not from randomness or time",
                ));
            }
        }
        None => {}
    }
    // What the `key_fn` declares it reads besides the arguments.
    for part in cx.attr.key_context.iter().flat_map(|k| &k.parts) {
        let (what, help) = match part.value {
            ContextPart::Scope => continue,
            ContextPart::Clock => (
                "reads the clock (`key_context = [clock]`): a call repeated after a minute, hour or day boundary — a redelivery, a restart, a retry after midnight — gets another key and runs the operation again",
                "derive the key from the operation: put the date or period it is for in its arguments (decided once, by the caller), or take it from the run scope (`key_context = [scope]`)",
            ),
            ContextPart::Worker => (
                "reads the worker's identity (`key_context = [worker]`): a restarted process or a second worker gets another key and runs the operation again",
                "leave the worker out of the key: the ledger already tells workers apart, and the operation is the same whichever worker runs it",
            ),
        };
        out.push(cx.violation(
            RuleCode::Idem004,
            part.span.into(),
            format!("the `key_fn` of tool `{}` {what}", cx.tool_name),
            help,
        ));
    }
}

/// What the lint found in a write tool's code that decides its key: the plain facts of the
/// body-based part of this rule.
#[derive(Debug, Clone, Copy)]
pub enum KeyFact<'a> {
    /// The contract's `key_fn` reaches a random or clock source (`source`, at `at`:
    /// `file:line`).
    KeyFnUnstable {
        /// The `key_fn` path as written.
        key_fn: &'a str,
        /// The source, e.g. "`Uuid::new_v4()`".
        source: &'a str,
        /// Where, `file:line`.
        at: &'a str,
    },
    /// A tool without a contract builds its idempotency key from `source`.
    FromUnstable {
        /// The source, e.g. "attempt counter `attempt`".
        source: &'a str,
    },
    /// A tool without a contract takes its key from an input the model fills in (`shown`:
    /// `args.idempotency_key`; `field`: `idempotency_key`).
    FromModel {
        /// As written.
        shown: &'a str,
        /// The field's name.
        field: &'a str,
    },
}

/// The finding for `tool`'s key fact: message and help.
pub fn check_body(tool: &str, fact: KeyFact<'_>) -> (String, &'static str) {
    const HELP: &str = "derive the key from the business identifiers of the operation (customer, order, ticket reference) and the run scope, e.g. with `#[side_effect(key = [...])]`";
    match fact {
        KeyFact::KeyFnUnstable { key_fn, source, at } => (
            format!(
                "`key_fn = {key_fn}` of tool `{tool}` uses {source}, a random or clock source (at {at}), so every attempt gets a new key"
            ),
            "a key function must be deterministic: build the key from the arguments, not from randomness or time",
        ),
        KeyFact::FromUnstable { source } => (
            format!(
                "the idempotency key of write tool `{tool}` comes from {source}, which changes on every attempt"
            ),
            HELP,
        ),
        KeyFact::FromModel { shown, field } => {
            let reason = unstable_field_reason(field)
                .unwrap_or("is supplied by the model; it can change between retries");
            (
                format!("write tool `{tool}` takes its key from `{shown}`, which {reason}"),
                HELP,
            )
        }
    }
}
