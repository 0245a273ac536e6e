//! The honest answer of a guarded call: [`Outcome::Completed`], [`Outcome::NotCompleted`]
//! or [`Outcome::Unknown`] — never a guess.

use std::fmt;
use std::time::Duration;

use crate::key::{Fingerprint, Key, KeyError};
use crate::ledger::{LedgerError, StoredFailure};

/// How a failed attempt relates to the effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The request was rejected before it could take effect (bad arguments). Not stored,
    /// as Stripe: the same key may be used again with corrected arguments.
    Invalid,
    /// The request definitely did not take effect (declined, not found, forbidden). Stored
    /// and replayed to later calls with the same key.
    Definite,
    /// The request may or may not have taken effect (timeout, dropped connection, 5xx
    /// after dispatch): ask the postcondition. Every 5xx belongs here unless the API
    /// documents otherwise: a 500 can follow a commit; a gateway's 502 and 504 say nothing
    /// about its upstream (a 504's upstream may still commit); and a 503, usually sent
    /// before any work, is also what a gateway answers when its upstream committed and then
    /// went away — "503 means nothing happened" resends a committed write.
    Ambiguous,
}

/// Tells the executor whether a failed call may have taken effect.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say whether a failed call may have taken effect",
    label = "the tool's error type must implement `idemcheck::Classify`",
    note = "implement `idemcheck::Classify` for `{Self}`: `Invalid` (rejected, not stored), `Definite` (did not happen, stored) or `Ambiguous` (may have happened: verify)"
)]
pub trait Classify {
    /// The class of this error.
    fn class(&self) -> ErrorClass;
}

/// A bare message says nothing about the effect: treat it as ambiguous, so the
/// postcondition decides.
impl Classify for String {
    fn class(&self) -> ErrorClass {
        ErrorClass::Ambiguous
    }
}

impl Classify for &'static str {
    fn class(&self) -> ErrorClass {
        ErrorClass::Ambiguous
    }
}

impl Classify for std::io::Error {
    fn class(&self) -> ErrorClass {
        use std::io::ErrorKind::*;
        match self.kind() {
            InvalidInput | InvalidData => ErrorClass::Invalid,
            NotFound | PermissionDenied | AlreadyExists | Unsupported => ErrorClass::Definite,
            _ => ErrorClass::Ambiguous,
        }
    }
}

impl Classify for Box<dyn std::error::Error + Send + Sync> {
    fn class(&self) -> ErrorClass {
        ErrorClass::Ambiguous
    }
}

/// Why one attempt failed.
#[derive(Debug, Clone, PartialEq)]
pub enum AttemptError<E> {
    /// The tool returned an error.
    Tool(E),
    /// The attempt did not answer within `timeout_ms`.
    TimedOut {
        /// The timeout.
        after: Duration,
    },
}

impl<E: fmt::Display> fmt::Display for AttemptError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttemptError::Tool(e) => write!(f, "{e}"),
            AttemptError::TimedOut { after } => {
                write!(f, "timed out after {} ms", after.as_millis())
            }
        }
    }
}

/// Why a call did not complete. In every case but [`Failure::Tool`] and
/// [`Failure::NotDone`] nothing was executed by this call.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure<E> {
    /// The tool failed definitely (or rejected the arguments).
    Tool(E),
    /// A definite failure recorded earlier under this key, replayed.
    Replayed(StoredFailure),
    /// The postcondition said the effect did not happen, and the retry cap was reached.
    NotDone {
        /// The last attempt's error.
        last_error: AttemptError<E>,
    },
    /// The key was used before with other arguments: refused, nothing executed.
    Divergent {
        /// Fingerprint stored with the key.
        stored: Fingerprint,
        /// Fingerprint of this call.
        given: Fingerprint,
    },
    /// The ledger failed before the call was claimed: nothing executed (fail closed).
    Ledger(LedgerError),
    /// The arguments could not be serialised for the key or fingerprint.
    Key(KeyError),
}

impl<E: fmt::Display> fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Tool(e) => write!(f, "{e}"),
            Failure::Replayed(s) => write!(
                f,
                "{} (replayed from an earlier call with this key)",
                s.message
            ),
            Failure::NotDone { last_error } => {
                write!(f, "not done after the last allowed attempt: {last_error}")
            }
            Failure::Divergent { .. } => {
                f.write_str("idempotency key reused with different parameters")
            }
            Failure::Ledger(e) => write!(f, "{e}; nothing was executed"),
            Failure::Key(e) => write!(f, "{e}; nothing was executed"),
        }
    }
}

/// What the postcondition said when the outcome is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Postcondition {
    /// It was not consulted.
    NotChecked,
    /// It could not tell (its error).
    CannotTell(String),
    /// It said "not done" after the last allowed attempt, but no settle window bounds how
    /// late a dispatched request can land: it may still take effect.
    NotDoneUntrusted,
    /// It said "not done" while another owner still holds the record's lease.
    InFlightElsewhere {
        /// The other owner.
        owner: String,
    },
    /// A stored result could not be read back.
    Unreadable(String),
}

impl fmt::Display for Postcondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Postcondition::NotChecked => f.write_str("postcondition not checked"),
            Postcondition::CannotTell(e) => write!(f, "postcondition cannot tell: {e}"),
            Postcondition::NotDoneUntrusted => f.write_str(
                "postcondition says not done, but without settle_ms a late commit may still land",
            ),
            Postcondition::InFlightElsewhere { owner } => {
                write!(
                    f,
                    "postcondition says not done while owner {owner} still holds the lease"
                )
            }
            Postcondition::Unreadable(e) => write!(f, "the stored result cannot be read back: {e}"),
        }
    }
}

/// The call may or may not have taken effect: escalate to a person.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown<E> {
    /// The operation's key (look it up with `Ledger::pending`).
    pub key: Key,
    /// Attempts made by this call.
    pub attempts: u32,
    /// The last attempt's error, if this call made one.
    pub last_error: Option<AttemptError<E>>,
    /// What the postcondition said.
    pub postcondition: Postcondition,
}

/// A call that did not complete.
#[derive(Debug, Clone, PartialEq)]
pub struct NotCompleted<E> {
    /// The operation's key, when it could be derived.
    pub key: Option<Key>,
    /// Attempts made by this call.
    pub attempts: u32,
    /// Why.
    pub reason: Failure<E>,
}

/// The result of a guarded call.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "an Unknown outcome must be escalated, not dropped"]
pub enum Outcome<T, E> {
    /// The effect happened (now, or earlier and replayed); here is its result.
    Completed(T),
    /// The effect did not happen.
    NotCompleted(NotCompleted<E>),
    /// It cannot be told whether the effect happened.
    Unknown(Unknown<E>),
}

impl<T, E> Outcome<T, E> {
    /// Whether the effect happened.
    pub fn is_completed(&self) -> bool {
        matches!(self, Outcome::Completed(_))
    }

    /// Whether the outcome is unknown.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Outcome::Unknown(_))
    }

    /// The result, if completed.
    pub fn completed(self) -> Option<T> {
        match self {
            Outcome::Completed(t) => Some(t),
            _ => None,
        }
    }

    /// `"completed"`, `"not_completed"` or `"unknown"`.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Completed(_) => "completed",
            Outcome::NotCompleted(_) => "not_completed",
            Outcome::Unknown(_) => "unknown",
        }
    }

    /// Map the result.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U, E> {
        match self {
            Outcome::Completed(t) => Outcome::Completed(f(t)),
            Outcome::NotCompleted(n) => Outcome::NotCompleted(n),
            Outcome::Unknown(u) => Outcome::Unknown(u),
        }
    }
}

impl<T, E: fmt::Display> Outcome<T, E> {
    /// Back to the tool's own `Result`, for frameworks that fix the signature (rmcp
    /// `#[tool]`, rig `Tool::call`): the tool's own errors pass through; everything else
    /// becomes an [`Escalation`] converted into `E`.
    pub fn into_tool_result(self, tool: &str) -> Result<T, E>
    where
        E: From<Escalation>,
    {
        match self {
            Outcome::Completed(t) => Ok(t),
            Outcome::NotCompleted(NotCompleted {
                reason: Failure::Tool(e),
                ..
            }) => Err(e),
            Outcome::NotCompleted(NotCompleted {
                reason:
                    Failure::NotDone {
                        last_error: AttemptError::Tool(e),
                    },
                ..
            }) => Err(e),
            other => Err(E::from(Escalation::of(tool, &other))),
        }
    }
}

/// A non-completed outcome as an error value, for tools whose signature a framework fixes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tool}: {status}: {detail} (idempotency key {key})")]
pub struct Escalation {
    /// Public tool name.
    pub tool: String,
    /// `not_completed` or `unknown`.
    pub status: &'static str,
    /// Why, as a word a program can match: `divergent`, `replayed_failure`, `not_done`,
    /// `ledger`, `key`, `tool_error` (not completed) or `unknown`.
    pub reason: &'static str,
    /// What happened, for a person.
    pub detail: String,
    /// The key, or `-` when none could be derived.
    pub key: String,
    /// Attempts made.
    pub attempts: u32,
}

impl<E> Failure<E> {
    /// This failure as a word a program can match (see [`Escalation::reason`]).
    pub fn reason(&self) -> &'static str {
        match self {
            Failure::Tool(_) => "tool_error",
            Failure::Replayed(_) => "replayed_failure",
            Failure::NotDone { .. } => "not_done",
            Failure::Divergent { .. } => "divergent",
            Failure::Ledger(_) => "ledger",
            Failure::Key(_) => "key",
        }
    }
}

impl Escalation {
    /// Describe a non-completed outcome.
    pub fn of<T, E: fmt::Display>(tool: &str, outcome: &Outcome<T, E>) -> Escalation {
        let (key, attempts, reason, detail) = match outcome {
            Outcome::Completed(_) => (None, 0, "completed", "completed".to_string()),
            Outcome::NotCompleted(n) => (
                n.key.as_ref(),
                n.attempts,
                n.reason.reason(),
                n.reason.to_string(),
            ),
            Outcome::Unknown(u) => {
                let detail = match &u.last_error {
                    Some(e) => format!(
                        "may or may not have happened; last error: {e}; {}",
                        u.postcondition
                    ),
                    None => format!("may or may not have happened; {}", u.postcondition),
                };
                (Some(&u.key), u.attempts, "unknown", detail)
            }
        };
        Escalation {
            tool: tool.to_string(),
            status: outcome.status(),
            reason,
            detail,
            key: key.map_or_else(|| "-".to_string(), |k| k.to_string()),
            attempts,
        }
    }

    /// What happened and what to do, in words a model can act on. `key_fields` are the
    /// inputs that name the operation (the contract's `key = [..]`), so the advice can say
    /// which to change.
    pub fn advice(&self, key_fields: &[&str]) -> String {
        let tool = &self.tool;
        let new_key = if key_fields.is_empty() {
            "new arguments that name a new operation".to_string()
        } else {
            let names: Vec<String> = key_fields.iter().map(|f| format!("`{f}`")).collect();
            format!("a new {}", names.join(" and "))
        };
        let same = match key_fields {
            [] => "this operation was".to_string(),
            [one] => format!("the same `{one}` was"),
            many => {
                let names: Vec<String> = many.iter().map(|f| format!("`{f}`")).collect();
                format!("the same {} were", names.join(" and "))
            }
        };
        match self.reason {
            "divergent" => format!(
                "`{tool}` refused: {same} already used with other arguments, so this is not a retry of that call; nothing was executed. To get the first call's result, repeat its arguments exactly; to do another operation, use {new_key}."
            ),
            "replayed_failure" => format!(
                "`{tool}` did not happen: {}. Nothing was executed now; the same arguments get the same answer. To try again after fixing the cause, use {new_key}.",
                self.detail
            ),
            "not_done" => format!(
                "`{tool}` did not happen after {} attempt(s): {}. Nothing took effect; it is safe to call again.",
                self.attempts, self.detail
            ),
            "ledger" => format!(
                "`{tool}` was not executed: {}. It is safe to call again later.",
                self.detail
            ),
            "key" => format!(
                "`{tool}` was not executed: {}. Check the arguments.",
                self.detail
            ),
            "unknown" => format!(
                "`{tool}` may or may not have happened ({}): escalated to a person (idempotency key {}). Do not assume it failed and do not call it with other arguments; calling again with the same arguments returns the verdict once it is known.",
                self.detail, self.key
            ),
            _ => self.detail.clone(),
        }
    }

    /// The machine-readable form: `{"idemcheck": {tool, status, reason, detail, advice, key,
    /// attempts}}`, carried by an rmcp error's `data` or a tool result's structured content.
    pub fn to_json(&self, key_fields: &[&str]) -> serde_json::Value {
        serde_json::json!({
            "idemcheck": {
                "tool": self.tool,
                "status": self.status,
                "reason": self.reason,
                "detail": self.detail,
                "advice": self.advice(key_fields),
                "key": self.key,
                "attempts": self.attempts,
            }
        })
    }
}

impl From<Escalation> for String {
    fn from(e: Escalation) -> String {
        e.to_string()
    }
}

impl From<Escalation> for std::io::Error {
    fn from(e: Escalation) -> std::io::Error {
        std::io::Error::other(e)
    }
}

#[cfg(feature = "rmcp")]
mod rmcp_support {
    use super::{Classify, ErrorClass, Escalation};
    use rmcp::model::ErrorCode;

    /// JSON-RPC "the request was wrong" codes are rejections; "not found" is a definite
    /// answer; everything else (internal errors, transport trouble) may have taken effect.
    impl Classify for rmcp::ErrorData {
        fn class(&self) -> ErrorClass {
            match self.code {
                ErrorCode::INVALID_PARAMS
                | ErrorCode::INVALID_REQUEST
                | ErrorCode::PARSE_ERROR
                | ErrorCode::METHOD_NOT_FOUND => ErrorClass::Invalid,
                ErrorCode::RESOURCE_NOT_FOUND => ErrorClass::Definite,
                _ => ErrorClass::Ambiguous,
            }
        }
    }

    /// With [`crate::Escalations::Errors`] (the opt-out) an escalation reaches the MCP client
    /// as an internal error whose `data` carries the status, reason, key and attempts, so an
    /// agent harness can route it to a person.
    impl From<Escalation> for rmcp::ErrorData {
        fn from(e: Escalation) -> Self {
            let data = e.to_json(&[]);
            rmcp::ErrorData::internal_error(e.to_string(), Some(data))
        }
    }
}
