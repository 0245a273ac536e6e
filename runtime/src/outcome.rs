//! The honest answer of a guarded call: [`Outcome::Completed`], [`Outcome::NotCompleted`]
//! or [`Outcome::Unknown`] — never a guess.

use std::fmt;
use std::time::Duration;

use crate::clock::Timestamp;
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

/// What a postcondition read answered, as the detail text of an outcome reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It said "done" (`Ok(Some(_))`).
    Done,
    /// It said "not done" (`Ok(None)`).
    NotDone,
    /// It could not tell (`Err(_)`, with the error's text).
    CannotTell(String),
    /// It was not asked.
    NotAsked,
    /// The contract declares none (`verify = none`): nothing can be read back.
    NoPostcondition,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Done => f.write_str("done"),
            Answer::NotDone => f.write_str("not done"),
            Answer::CannotTell(e) => write!(f, "could not tell ({e})"),
            Answer::NotAsked => f.write_str("not asked"),
            Answer::NoPostcondition => f.write_str("none: no postcondition (verify = none)"),
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
    /// Another call holds the record's lease (it may still be in flight), and this call
    /// stopped waiting for it: after [`crate::Context::max_wait`] (default
    /// [`crate::context::DEFAULT_MAX_WAIT`], set with [`crate::Context::with_max_wait`]), or
    /// after losing the record to other callers repeatedly.
    InFlightElsewhere {
        /// The other owner.
        owner: String,
        /// When the record was declared.
        since: Timestamp,
        /// Until when its owner's lease runs.
        lease_until: Timestamp,
        /// How long this call waited for it.
        waited: Duration,
        /// What the postcondition answered while the lease was live.
        answer: Answer,
    },
    /// The ledger failed before the call was claimed (nothing was executed by this call),
    /// and the postcondition could not say that the operation did not happen: an earlier
    /// call with this key may have taken effect.
    LedgerUnavailable {
        /// The ledger's error.
        error: String,
        /// What the postcondition answered.
        answer: Answer,
    },
    /// The contract declares no postcondition (`verify = none`): whether an interrupted
    /// call took effect cannot be read back, so it is never executed again (unless
    /// `server_dedup`); an operator settles it in the ledger.
    NoPostcondition,
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
            Postcondition::InFlightElsewhere {
                owner,
                since,
                lease_until,
                waited,
                answer,
            } => write!(
                f,
                "another call (owner {owner}, declared at {} ms) holds the lease until {} ms and may still be in flight; waited {} ms for it (Context::with_max_wait); postcondition answered: {answer}",
                since.0,
                lease_until.0,
                waited.as_millis()
            ),
            Postcondition::LedgerUnavailable { error, answer } => write!(
                f,
                "ledger unavailable ({error}), nothing was executed by this call, but an earlier call with this key may have taken effect; postcondition answered: {answer}"
            ),
            Postcondition::NoPostcondition => f.write_str(
                "no postcondition (verify = none): the system cannot be read back, so the call is not executed again; an operator settles it in the ledger (idemcheck-ledger decide KEY done|not-done, or LedgerAdmin::decide)",
            ),
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
        self.into_result_with(|o| Escalation::of(tool, o))
    }

    /// [`Outcome::into_tool_result`] for the tool of `contract`: the escalation's advice names
    /// the key's fields (what the generated code of a guarded method calls).
    pub fn into_contract_result(self, contract: &crate::contract::Contract) -> Result<T, E>
    where
        E: From<Escalation>,
    {
        self.into_result_with(|o| Escalation::for_contract(contract, o))
    }

    fn into_result_with(self, escalate: impl FnOnce(&Self) -> Escalation) -> Result<T, E>
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
            other => Err(E::from(escalate(&other))),
        }
    }
}

/// A non-completed outcome as an error value, for tools whose signature a framework fixes.
///
/// Its [`source`](std::error::Error::source) is the [`Feedback`] for the model, so a
/// framework adapter (or your own error mapping) finds the advice through any error type
/// that wraps an `Escalation` with `#[from]` or `#[error(transparent)]`:
/// [`Feedback::find_in`].
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
    /// What the model is told, and whether calling again with the same arguments can help
    /// (boxed: an `Escalation` is embedded in tools' error types, which should stay small).
    #[source]
    pub feedback: Box<Feedback>,
}

/// The part of an [`Escalation`] meant for the model: what happened and what it can do, in
/// the tool's own words (the fields of its key it can change, and only those).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{advice}")]
pub struct Feedback {
    /// What happened and what to do.
    pub advice: String,
    /// Whether calling again with the same arguments can change the answer (`not_done`,
    /// `ledger`, `unknown`: yes; `divergent`, `replayed_failure`, `key`: no).
    pub retryable: bool,
}

impl Feedback {
    /// The feedback carried by `error` or by any error in its
    /// [`source`](std::error::Error::source) chain: an [`Escalation`] wrapped in a tool's own
    /// error type (`#[error(transparent)] Escalated(#[from] Escalation)` or
    /// `#[error("..")] Escalated(#[from] Escalation)`).
    pub fn find_in<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Feedback> {
        let mut next = Some(error);
        while let Some(e) = next {
            if let Some(f) = e.downcast_ref::<Feedback>() {
                return Some(f);
            }
            // The escalation's own source: its boxed feedback.
            if let Some(f) = e.downcast_ref::<Box<Feedback>>() {
                return Some(f);
            }
            if let Some(esc) = e.downcast_ref::<Escalation>() {
                return Some(&esc.feedback);
            }
            next = e.source();
        }
        None
    }
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

/// The fields of a tool's key, as the advice speaks of them.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyWords<'a> {
    /// Every field of the key (`key = [..]`), in order.
    pub fields: &'a [&'a str],
    /// Of those, the ones the caller chooses per operation (a `reference`, a request id): a
    /// new value names a new operation. Fields that name the thing acted on (`ticket_id`)
    /// are not among them: the model cannot make up a new ticket.
    pub chosen: &'a [&'a str],
}

fn quoted(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|f| format!("`{f}`")).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl Escalation {
    /// Describe a non-completed outcome of `tool`, knowing nothing of its key.
    pub fn of<T, E: fmt::Display>(tool: &str, outcome: &Outcome<T, E>) -> Escalation {
        Escalation::with_key_words(tool, outcome, KeyWords::default())
    }

    /// Describe a non-completed outcome of the tool of `contract`, whose advice names the
    /// key's fields.
    pub fn for_contract<T, E: fmt::Display>(
        contract: &crate::contract::Contract,
        outcome: &Outcome<T, E>,
    ) -> Escalation {
        let fields = match contract.key {
            crate::contract::KeySpec::Fields(f) => f,
            _ => &[],
        };
        Escalation::with_key_words(
            contract.name,
            outcome,
            KeyWords {
                fields,
                chosen: contract.chosen_key_fields,
            },
        )
    }

    /// Describe a non-completed outcome, with the words of its key.
    pub fn with_key_words<T, E: fmt::Display>(
        tool: &str,
        outcome: &Outcome<T, E>,
        words: KeyWords<'_>,
    ) -> Escalation {
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
                    Some(e) => format!("last error: {e}; {}", u.postcondition),
                    None => u.postcondition.to_string(),
                };
                (Some(&u.key), u.attempts, "unknown", detail)
            }
        };
        let key = key.map_or_else(|| "-".to_string(), |k| k.to_string());
        let feedback = Box::new(advise(tool, reason, &detail, &key, attempts, words));
        Escalation {
            tool: tool.to_string(),
            status: outcome.status(),
            reason,
            detail,
            key,
            attempts,
            feedback,
        }
    }

    /// What happened and what to do, in words a model can act on.
    pub fn advice(&self) -> &str {
        &self.feedback.advice
    }

    /// The machine-readable form: `{"idemcheck": {tool, status, reason, detail, advice, key,
    /// attempts, retryable}}`, carried by an rmcp error's `data` or a tool result's `_meta`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "idemcheck": {
                "tool": self.tool,
                "status": self.status,
                "reason": self.reason,
                "detail": self.detail,
                "advice": self.feedback.advice,
                "key": self.key,
                "attempts": self.attempts,
                "retryable": self.feedback.retryable,
            }
        })
    }
}

/// The advice for a non-completed outcome. It names only key fields the caller can change
/// ([`KeyWords::chosen`]); for the others it says the operation is one per value.
fn advise(
    tool: &str,
    reason: &str,
    detail: &str,
    key: &str,
    attempts: u32,
    words: KeyWords<'_>,
) -> Feedback {
    let same = match words.fields {
        [] => "the same operation".to_string(),
        fields => format!("the same {}", quoted(fields)),
    };
    let one_per = match words.fields {
        [] => "one operation per set of arguments".to_string(),
        fields => format!("one operation per {}", quoted(fields)),
    };
    let another = match words.chosen {
        [] => String::new(),
        chosen => format!(
            " To make a separate operation, choose a new {}.",
            quoted(chosen)
        ),
    };
    let (advice, retryable) = match reason {
        "divergent" => (
            format!(
                "`{tool}` refused: it was already called for {same} with other arguments, and it makes {one_per}; nothing was executed now. To get the first call's result, repeat its arguments exactly. A second, different operation for {same} cannot be made through this tool; if the first call was wrong, ask a person.{another}"
            ),
            false,
        ),
        "replayed_failure" => (
            format!(
                "`{tool}` did not happen: {detail}. Nothing was executed now: {same} gets the same answer until its record expires or an operator clears it.{another}"
            ),
            false,
        ),
        "not_done" => (
            format!(
                "`{tool}` did not happen after {attempts} attempt(s): {detail}. Nothing took effect; it is safe to call again with the same arguments."
            ),
            true,
        ),
        "ledger" => (
            format!(
                "`{tool}` was not executed: {detail}. It is safe to call again later with the same arguments."
            ),
            true,
        ),
        "key" => (
            format!("`{tool}` was not executed: {detail}. Check the arguments."),
            false,
        ),
        "unknown" => (
            format!(
                "`{tool}` may or may not have happened ({detail}): escalated to a person (idempotency key {key}). Do not assume it failed and do not call it with other arguments; calling again with the same arguments returns the verdict once it is known."
            ),
            true,
        ),
        _ => (detail.to_string(), false),
    };
    Feedback { advice, retryable }
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
