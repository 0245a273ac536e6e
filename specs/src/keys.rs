//! The one rule for key fields, shared by the macro (which fields the advice to a model may
//! name as changeable: `Contract::chosen_key_fields`), `IDEM004` (which fields are refused as
//! unstable), the lint's `suggest` (which inputs it keys on, and what it asks for when none
//! names the operation) and the docs ([`RULE`]).
//!
//! A key field is one of four kinds, decided by its name ([`key_field_kind`]):
//!
//! - the thing acted on, or a business id the task already has (`customer`, `order_id`,
//!   `ticket_id`): [`KeyFieldKind::Subject`];
//! - a reference the caller picks once per operation and repeats on every retry of it
//!   (`reference`, `payment_ref`, `correlation_id`, `client_reference_id`):
//!   [`KeyFieldKind::CallerReference`] — a new value names a new operation, so it is the one
//!   kind the advice may tell a model to change;
//! - a token minted only to deduplicate (`idempotency_key`, `request_id`, `nonce`,
//!   `client_token`): [`KeyFieldKind::MintedToken`] — refused (`IDEM004`): a model asked for
//!   one mints a fresh value per call, and a retry then runs again;
//! - a value of the attempt (a counter, a clock, a random value):
//!   [`KeyFieldKind::PerAttempt`] — refused.

/// The rule's text, one literal for [`RULE`] and the `IDEM004` catalogue entry.
macro_rules! caller_key_rule {
    () => {
        "A key field the caller chooses per operation is fine when its value comes from the \
task and is repeated on every retry: a `reference` (or `*_ref`, `correlation_id`, \
`client_reference_id`) the user, the harness or an upstream system gave the operation, which the \
model copies. A field named as a deduplication token (`idempotency_key`, `request_id`, `nonce`, \
`client_token`, `dedup_key`) is refused: it asks the model to make a value up, and a model makes \
a fresh one per call (agents were seen appending `-retry1`). `suggest` proposes only the first \
kind, and the advice to a model names only caller-chosen fields as the ones to change for a new \
operation."
    };
}
pub(crate) use caller_key_rule;

/// The rule as the docs state it (the rule catalogue's `IDEM004` text includes it).
pub const RULE: &str = caller_key_rule!();

/// The input `suggest` asks for when no input names the operation (a [`KeyFieldKind::CallerReference`]).
pub const SUGGESTED_REFERENCE: &str = "reference";

/// Field names that ask the model for a deduplication token: never stable.
pub const MINTED_TOKEN_NAMES: &[&str] = &[
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

/// Names of clock and random values: never part of a logical operation's identity.
const VOLATILE_NAMES: &[&str] = &["timestamp", "now", "uuid", "random"];

/// What a key field is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFieldKind {
    /// The thing acted on, or a business id the task has (`customer`, `order_id`).
    Subject,
    /// A reference the caller picks once per operation and repeats on its retries.
    CallerReference,
    /// A token minted only to deduplicate (`idempotency_key`, `request_id`): refused.
    MintedToken,
    /// A value of the attempt (counter, clock, random): refused.
    PerAttempt,
}

impl KeyFieldKind {
    /// Why a field of this kind cannot be part of a key, if it cannot.
    pub fn unstable_reason(self) -> Option<&'static str> {
        match self {
            KeyFieldKind::MintedToken => Some(
                "is a key the model supplies in the tool's arguments; it can change between retries",
            ),
            KeyFieldKind::PerAttempt => Some("changes from one attempt to the next"),
            KeyFieldKind::Subject | KeyFieldKind::CallerReference => None,
        }
    }

    /// Whether the caller chooses the value per operation (a new value names a new
    /// operation): what the advice to a model may tell it to change.
    pub fn is_caller_chosen(self) -> bool {
        matches!(
            self,
            KeyFieldKind::CallerReference | KeyFieldKind::MintedToken
        )
    }
}

/// The kind of a key field: a parameter name or a field path (`args.reference`; the last
/// segment decides), compared in ASCII lower case. This is the one rule.
pub fn key_field_kind(field: &str) -> KeyFieldKind {
    let last = field.rsplit('.').next().unwrap_or(field);
    let lower = ascii_lower(last);
    let word = lower.rsplit('_').next().unwrap_or(&lower);
    if MINTED_TOKEN_NAMES.contains(&lower.as_ref()) {
        KeyFieldKind::MintedToken
    } else if is_attempt_name(&lower) || VOLATILE_NAMES.contains(&lower.as_ref()) {
        KeyFieldKind::PerAttempt
    } else if matches!(word, "reference" | "ref")
        || lower == "correlation_id"
        || lower == "client_reference_id"
    {
        KeyFieldKind::CallerReference
    } else {
        KeyFieldKind::Subject
    }
}

/// Whether a key field is chosen by the caller per operation ([`key_field_kind`]).
pub fn is_caller_chosen(field: &str) -> bool {
    key_field_kind(field).is_caller_chosen()
}

/// Whether `name` asks for a deduplication token ([`MINTED_TOKEN_NAMES`], compared as
/// written).
pub fn is_minted_token(name: &str) -> bool {
    MINTED_TOKEN_NAMES.contains(&name)
}

/// Whether an identifier names a per-attempt value (an attempt counter).
pub fn is_attempt_name(name: &str) -> bool {
    let lower = ascii_lower(name);
    lower.contains("attempt")
        || lower.contains("retry")
        || lower.contains("retries")
        || lower == "tries"
        || lower == "try_count"
        || lower == "n_tries"
        || lower.contains("backoff")
}

/// `name` in ASCII lower case, borrowed when it has no upper-case letter (most identifiers).
pub(crate) fn ascii_lower(name: &str) -> std::borrow::Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(name.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_caller_chosen_and_stable() {
        for f in [
            "reference",
            "client_reference",
            "args.payment_ref",
            "correlation_id",
            "client_reference_id",
            "Reference",
        ] {
            assert_eq!(key_field_kind(f), KeyFieldKind::CallerReference, "{f}");
            assert!(is_caller_chosen(f), "{f}");
            assert_eq!(key_field_kind(f).unstable_reason(), None, "{f}");
        }
    }

    #[test]
    fn minted_tokens_are_caller_chosen_but_refused() {
        for f in [
            "idempotency_key",
            "request_id",
            "args.nonce",
            "client_token",
            "Request_Id",
        ] {
            assert_eq!(key_field_kind(f), KeyFieldKind::MintedToken, "{f}");
            assert!(is_caller_chosen(f), "{f}");
            assert!(key_field_kind(f).unstable_reason().is_some(), "{f}");
        }
    }

    #[test]
    fn subjects_are_neither_chosen_nor_refused() {
        for f in [
            "ticket_id",
            "order_id",
            "customer",
            "args.to",
            "referee",
            "preference",
            "send_message_id",
        ] {
            assert_eq!(key_field_kind(f), KeyFieldKind::Subject, "{f}");
            assert!(!is_caller_chosen(f), "{f}");
        }
    }

    #[test]
    fn per_attempt_values_are_refused() {
        for f in ["attempt", "retry_count", "timestamp", "args.now", "uuid"] {
            assert_eq!(key_field_kind(f), KeyFieldKind::PerAttempt, "{f}");
            assert!(!is_caller_chosen(f), "{f}");
            assert_eq!(
                key_field_kind(f).unstable_reason(),
                Some("changes from one attempt to the next")
            );
        }
    }

    #[test]
    fn what_suggest_asks_for_is_a_reference_idem004_accepts() {
        assert_eq!(
            key_field_kind(SUGGESTED_REFERENCE),
            KeyFieldKind::CallerReference
        );
    }
}
