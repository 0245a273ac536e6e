//! The two-phase ledger: a small trait ([`Ledger`]) and its stores.
//!
//! One record per logical operation (per [`Key`]):
//!
//! ```text
//!   begin ──► DECLARED ──commit──► COMMITTED   (result stored, replayed to later calls)
//!               │   ├──commit────► FAILED      (definite failure stored, replayed)
//!               │   ├──commit────► UNKNOWN     (escalated to a person; still unresolved)
//!               │   └──release───► (gone)      (validation failure, or verified not done)
//!               └──take_over──► DECLARED (new owner, new fencing token)
//!
//!   COMMITTED / FAILED ──TTL──► PRUNED (tombstone) ──tombstone window──► (forgotten)
//!                                  └──take_over──► DECLARED (the postcondition decides first)
//! ```
//!
//! **Retention.** A resolved record's result is replayed for the contract's `ttl_hours`
//! (counted from the claim: [`Record::expires_at`]). After that the record is a *tombstone*
//! ([`RecordState::Pruned`]): the result is gone, the key, fingerprint and token remain, for
//! the store's tombstone window ([`DEFAULT_TOMBSTONE_WINDOW`], 30 days, set on each store). A
//! call that finds a tombstone is not executed blindly: the executor takes the tombstone over
//! (fenced, so one caller wins) and asks the postcondition first — done → COMMITTED again, not
//! done → executed as a first attempt, cannot tell → UNKNOWN for a person; other inputs are a
//! divergent payload. Once the window has passed too, the key is forgotten: a call with it is
//! a new operation and executes without asking the postcondition. Stores show a resolved
//! record past its TTL as a tombstone whether or not [`LedgerAdmin::prune`] has rewritten it
//! yet, so what a call sees never depends on when pruning runs ([`Record::as_of`]).
//!
//! Every write after `begin` carries the owner's fencing token and fails with
//! [`LedgerError::Fenced`] when another owner has taken the record over. Tokens are unique
//! across the whole store, so a record that was released and declared again never accepts
//! a stale owner's write.
//!
//! **Stored in clear** by every store: the key and the fingerprint (SHA-256 hex digests, not
//! the inputs), the tool's public name, the owner name, the token, the state and its
//! timestamps, and the [`Resolution`]: a committed result as returned (parts marked
//! [`Secret`] as their digest, see [`seal`]), a definite failure's message and optional
//! error value ([`StoredFailure`]), an Unknown's note. The executor passes the error texts
//! (message, every string of the error value, note) through the context's redaction hook
//! (`Context::with_redaction`) before it calls `resolve`; a store writes what it is given.
//!
//! Stores: [`MemoryLedger`] here; SQLite and PostgreSQL behind features. They all pass one
//! conformance suite.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::key::{Fingerprint, Key};

mod memory;
pub use memory::MemoryLedger;

mod secret;
pub use secret::{SECRET_MARK, Secret, WITHHELD_MARK, digest_of, seal};

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod codec;

#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "sqlite")]
pub use sqlite::{DEFAULT_SQLITE_PATH, SqliteLedger, SqliteOptions, Synchronous};

#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresLedger, PostgresOptions};

mod prune;
pub use prune::prune_periodically;

#[cfg(feature = "conformance")]
pub mod conformance;

/// A fencing token: proves the holder still owns a record.
pub type Token = u64;

/// Where a record is in the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordState {
    /// Claimed by an owner; the effect may be in flight or may have happened.
    Declared,
    /// The effect happened; its result is stored.
    Committed,
    /// A definite failure is stored.
    Failed,
    /// The owner could not tell whether the effect happened; a person must decide.
    Unknown,
    /// A tombstone: a COMMITTED or FAILED record past its TTL. Its result is no longer kept
    /// or replayed; its key, fingerprint and token are, until the store's tombstone window
    /// has passed, so a call with the key asks the postcondition instead of executing
    /// blindly (see the module documentation).
    Pruned,
}

impl RecordState {
    /// `declared`, `committed`, `failed`, `unknown`, `pruned`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordState::Declared => "declared",
            RecordState::Committed => "committed",
            RecordState::Failed => "failed",
            RecordState::Unknown => "unknown",
            RecordState::Pruned => "pruned",
        }
    }

    /// Parse [`RecordState::as_str`].
    pub fn parse(text: &str) -> Option<RecordState> {
        match text {
            "declared" => Some(RecordState::Declared),
            "committed" => Some(RecordState::Committed),
            "failed" => Some(RecordState::Failed),
            "unknown" => Some(RecordState::Unknown),
            "pruned" => Some(RecordState::Pruned),
            _ => None,
        }
    }

    /// Declared and Unknown records are unresolved: they are never pruned silently and
    /// never executed blindly.
    pub fn is_unresolved(self) -> bool {
        matches!(self, RecordState::Declared | RecordState::Unknown)
    }
}

/// A definite failure as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFailure {
    /// The error's `Display` text.
    pub message: String,
    /// The error itself as JSON, when the guard knows how to store its type (a tool's error
    /// type that is `Serialize + Deserialize`, guarded by `#[side_effect]`): a replay then gives
    /// back a value of the tool's own error type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// How an owner resolves its record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Resolution {
    /// The effect happened; this is its result (JSON).
    Committed {
        /// The tool's result.
        result: Value,
    },
    /// A definite failure: replay it.
    Failed {
        /// The failure.
        error: StoredFailure,
    },
    /// Cannot tell; escalate. The record stays unresolved.
    Unknown {
        /// What is known: last error, what the postcondition said.
        note: String,
    },
}

/// One record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The operation's key.
    pub key: Key,
    /// Public tool name.
    pub tool: String,
    /// Digest of the inputs of the call that declared it.
    pub fingerprint: Fingerprint,
    /// Protocol state.
    pub state: RecordState,
    /// Current owner.
    pub owner: String,
    /// Current fencing token.
    pub token: Token,
    /// Until when the owner may still have requests in flight.
    pub lease_until: Timestamp,
    /// When the record was declared.
    pub created_at: Timestamp,
    /// When it was last written.
    pub updated_at: Timestamp,
    /// When its result stops being replayed (resolved records only): from then on the record
    /// is a tombstone, until `expires_at` + the store's tombstone window, when the key is
    /// forgotten.
    pub expires_at: Timestamp,
    /// Result, failure or note, once resolved (`None` on a tombstone).
    pub resolution: Option<Resolution>,
}

/// How long a store keeps a tombstone after a resolved record's TTL, by default: 30 days.
/// Each store takes its own (`MemoryLedger::with_tombstone_window`,
/// `SqliteOptions::tombstone_window`, `PostgresOptions::tombstone_window`); zero keeps no
/// tombstones (a key is forgotten as soon as its TTL has passed).
pub const DEFAULT_TOMBSTONE_WINDOW: Duration = Duration::from_secs(30 * 24 * 3600);

impl Record {
    /// Whether the record is a tombstone at `now`: [`RecordState::Pruned`], or COMMITTED or
    /// FAILED past its `expires_at`.
    pub fn is_tombstone_at(&self, now: Timestamp) -> bool {
        match self.state {
            RecordState::Pruned => true,
            RecordState::Committed | RecordState::Failed => self.expires_at <= now,
            RecordState::Declared | RecordState::Unknown => false,
        }
    }

    /// The record as a store keeping tombstones for `window` shows it at `now` (for stores:
    /// `begin` and `load` answer with this): `None` once a resolved record or tombstone is
    /// forgotten (`expires_at + window <= now`); a tombstone ([`RecordState::Pruned`],
    /// without its resolution) once a resolved record is past its `expires_at`; otherwise
    /// the record as stored. Unresolved records are never changed.
    pub fn as_of(mut self, now: Timestamp, window: Duration) -> Option<Record> {
        if self.state.is_unresolved() {
            return Some(self);
        }
        if self.expires_at.after(window) <= now {
            return None;
        }
        if self.is_tombstone_at(now) {
            self.state = RecordState::Pruned;
            self.resolution = None;
        }
        Some(self)
    }
}

/// What `begin` asks for.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    /// The operation's key.
    pub key: &'a Key,
    /// Digest of the inputs.
    pub fingerprint: &'a Fingerprint,
    /// Public tool name.
    pub tool: &'a str,
    /// Who claims.
    pub owner: &'a str,
    /// How long the owner may have requests in flight.
    pub lease: Duration,
    /// How long the resolved record's result is replayed (then it is a tombstone).
    pub ttl: Duration,
}

/// The answer of `begin`.
#[derive(Debug, Clone, PartialEq)]
pub enum Begin {
    /// No live record existed: a DECLARED record now belongs to the caller.
    Claimed {
        /// The caller's fencing token.
        token: Token,
    },
    /// A record exists (compare its fingerprint before anything else).
    Existing(Record),
}

/// A person's decision on an unresolved record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// It happened; later calls replay this result.
    Happened {
        /// The result to replay.
        result: Value,
    },
    /// It did not happen; the key is free again.
    DidNotHappen,
}

/// A store failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// Another owner holds the record now (or it was resolved or released).
    #[error("fenced: the record of {key} is no longer owned by token {token}")]
    Fenced {
        /// The key.
        key: Key,
        /// The stale token.
        token: Token,
    },
    /// The store could not be reached or failed.
    #[error("ledger unavailable: {0}")]
    Unavailable(String),
    /// A stored value could not be read back.
    #[error("ledger record corrupt: {0}")]
    Corrupt(String),
    /// No record has that key (for operator decisions).
    #[error("no record for key {0}")]
    NotFound(Key),
}

impl LedgerError {
    /// [`LedgerError::Fenced`] for `key` and the stale `token`.
    pub fn fenced(key: &Key, token: Token) -> LedgerError {
        LedgerError::Fenced {
            key: key.clone(),
            token,
        }
    }

    /// `Ok(())` when a write fenced on `token` matched the record, else
    /// [`LedgerError::Fenced`]: the answer of every fenced operation of a store.
    pub fn fenced_unless(matched: bool, key: &Key, token: Token) -> Result<(), LedgerError> {
        if matched {
            Ok(())
        } else {
            Err(LedgerError::fenced(key, token))
        }
    }
}

/// The two-phase ledger protocol the executor runs: claim (`begin`), `take_over`, `resolve`
/// (settle as COMMITTED, FAILED or UNKNOWN), `release`, `load`. Small on purpose: a new store
/// is an afternoon's work, and one conformance suite proves it; the operator's side is
/// [`LedgerAdmin`].
#[async_trait]
pub trait Ledger: Send + Sync + 'static {
    /// Atomically: when no record has `claim.key` (none, or a resolved one or tombstone
    /// forgotten: past its expiry plus the store's tombstone window), insert a DECLARED
    /// record owned by `claim.owner` with a fresh token and return [`Begin::Claimed`];
    /// otherwise return the existing record unchanged — a resolved record past its expiry
    /// as the tombstone it is ([`Record::as_of`]), whatever its fingerprint.
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError>;

    /// Give a record that still carries `token` to a new owner with a fresh token and a new
    /// lease, as DECLARED: an unresolved (DECLARED or UNKNOWN) record whose lease has run
    /// out (by the store's clock), or a tombstone whose fingerprint is `claim.fingerprint`
    /// (it then counts as claimed now: `created_at` now, `expires_at` now + `claim.ttl`).
    /// `None` when the lease is still live, the tombstone has other inputs, or someone
    /// changed the record first.
    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError>;

    /// Resolve an unresolved (DECLARED or UNKNOWN) record that still carries `token`:
    /// the owner's own record, or — when the postcondition proved the effect happened —
    /// a record seen with that token. Fenced: any other state or token is
    /// [`LedgerError::Fenced`].
    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError>;

    /// Delete the caller's DECLARED record (the effect did not happen). Fenced on `token`.
    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError>;

    /// Read a record, as `begin` would see it ([`Record::as_of`]: a resolved record past its
    /// expiry is a tombstone, a forgotten one is `None`).
    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError>;
}

/// What an operator does with a store, beside the protocol: prune expired records, list the
/// unresolved ones, and record a person's decision. The stores implement it; a wrapper of
/// the protocol (a hook, a counter) need not.
#[async_trait]
pub trait LedgerAdmin: Ledger {
    /// Rewrite resolved (COMMITTED, FAILED) records whose expiry has passed as tombstones
    /// (the result dropped, the key and fingerprint kept, `updated_at` = when pruned), and
    /// delete the ones (and the tombstones) past their expiry plus the tombstone window;
    /// return how many records were rewritten or deleted. Unresolved records are never
    /// pruned.
    async fn prune(&self) -> Result<u64, LedgerError>;

    /// Unresolved records (DECLARED and UNKNOWN), oldest first, for an operator.
    async fn pending(&self) -> Result<Vec<Record>, LedgerError>;

    /// Record a person's decision on an unresolved record, whoever owns it.
    async fn decide(&self, key: &Key, decision: &Decision) -> Result<(), LedgerError>;
}

#[async_trait]
impl<L: Ledger + ?Sized> Ledger for std::sync::Arc<L> {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        (**self).begin(claim).await
    }
    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        (**self).take_over(claim, token).await
    }
    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        (**self).resolve(key, token, resolution).await
    }
    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        (**self).release(key, token).await
    }
    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        (**self).load(key).await
    }
}

#[async_trait]
impl<L: LedgerAdmin + ?Sized> LedgerAdmin for std::sync::Arc<L> {
    async fn prune(&self) -> Result<u64, LedgerError> {
        (**self).prune().await
    }
    async fn pending(&self) -> Result<Vec<Record>, LedgerError> {
        (**self).pending().await
    }
    async fn decide(&self, key: &Key, decision: &Decision) -> Result<(), LedgerError> {
        (**self).decide(key, decision).await
    }
}
