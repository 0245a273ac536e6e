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
pub use sqlite::{DEFAULT_SQLITE_FILE, SqliteLedger, SqliteOptions, Synchronous};

mod state;
pub use state::{STATE_DIR_ENV, StateDir, create_state_dir, state_dir};

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

/// Which records [`LedgerAdmin::records`] lists: by state, a page at a time, in the order
/// `(created_at, key)`, as a call would see them ([`Record::as_of`]: a resolved record past
/// its TTL is a tombstone, a forgotten one is not listed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordQuery {
    /// Only records in these states, as seen (a COMMITTED record past its TTL counts as
    /// [`RecordState::Pruned`]); empty: every state.
    pub states: Vec<RecordState>,
    /// Only records after this `(created_at, key)` in the listing order: the last record of
    /// the previous page.
    pub after: Option<(Timestamp, Key)>,
    /// At most this many records; `None`: all.
    pub limit: Option<usize>,
}

impl RecordQuery {
    /// Every record, oldest first.
    pub fn all() -> RecordQuery {
        RecordQuery::default()
    }

    /// Only records in `states` (as seen).
    pub fn states(mut self, states: impl IntoIterator<Item = RecordState>) -> RecordQuery {
        self.states = states.into_iter().collect();
        self
    }

    /// Only records after `record` in the listing order (the next page after it).
    pub fn after(mut self, record: &Record) -> RecordQuery {
        self.after = Some((record.created_at, record.key.clone()));
        self
    }

    /// At most `limit` records.
    pub fn limit(mut self, limit: usize) -> RecordQuery {
        self.limit = Some(limit);
        self
    }

    /// Whether `record` (as seen) is in this query's states and after its cursor: what a
    /// store must select (before `limit`).
    pub fn matches(&self, record: &Record) -> bool {
        (self.states.is_empty() || self.states.contains(&record.state))
            && self
                .after
                .as_ref()
                .is_none_or(|(created, key)| (record.created_at, &record.key) > (*created, key))
    }

    /// The states as the SQL stores match them: `,declared,unknown,` (every state when
    /// empty).
    #[cfg(feature = "sqlite")]
    pub(crate) fn state_list(&self) -> String {
        let states: Vec<RecordState> = if self.states.is_empty() {
            ALL_STATES.to_vec()
        } else {
            self.states.clone()
        };
        let mut out = String::from(",");
        for s in states {
            out.push_str(s.as_str());
            out.push(',');
        }
        out
    }
}

/// Every record state, in protocol order.
pub const ALL_STATES: [RecordState; 5] = [
    RecordState::Declared,
    RecordState::Committed,
    RecordState::Failed,
    RecordState::Unknown,
    RecordState::Pruned,
];

/// What a person decided, as the store's decision log keeps it ([`DecisionRecord`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decided {
    /// [`Decision::Happened`]: the record became COMMITTED.
    Happened,
    /// [`Decision::DidNotHappen`]: the record was deleted, the key is free again.
    DidNotHappen,
}

impl Decided {
    /// `happened`, `did_not_happen`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decided::Happened => "happened",
            Decided::DidNotHappen => "did_not_happen",
        }
    }

    /// Parse [`Decided::as_str`].
    pub fn parse(text: &str) -> Option<Decided> {
        match text {
            "happened" => Some(Decided::Happened),
            "did_not_happen" => Some(Decided::DidNotHappen),
            _ => None,
        }
    }

    /// What `decision` is.
    pub fn of(decision: &Decision) -> Decided {
        match decision {
            Decision::Happened { .. } => Decided::Happened,
            Decision::DidNotHappen => Decided::DidNotHappen,
        }
    }
}

/// One entry of a store's decision log: a person's decision on an unresolved record, kept
/// after the record itself has changed or gone (a record decided "did not happen" is
/// deleted; its entry stays). The log is never pruned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The record's key.
    pub key: Key,
    /// Its tool.
    pub tool: String,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// The state it was in when decided (DECLARED or UNKNOWN).
    pub from_state: RecordState,
    /// What was decided.
    pub decision: Decided,
    /// The person's note, if any (stored in clear, as given).
    pub note: Option<String>,
    /// When (the store's clock).
    pub decided_at: Timestamp,
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

/// What an operator does with a store, beside the protocol: prune expired records, list
/// records (the unresolved ones, or any), record a person's decision and read the decision
/// log. The `idemcheck-ledger` command runs on it. The stores implement it; a wrapper of
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

    /// Record a person's decision on an unresolved record, whoever owns it, without a note:
    /// [`LedgerAdmin::decide_with_note`] with `None`.
    async fn decide(&self, key: &Key, decision: &Decision) -> Result<(), LedgerError> {
        self.decide_with_note(key, decision, None).await
    }

    /// Record a person's decision on an unresolved (DECLARED or UNKNOWN) record, whoever
    /// owns it, and in the same transaction append it with `note` to the store's decision
    /// log ([`LedgerAdmin::decisions`]). [`Decision::Happened`] makes the record COMMITTED
    /// with the given result (replayed to later calls) and a fresh token, so its former
    /// owner is fenced; [`Decision::DidNotHappen`] deletes it (the key is free again).
    /// [`LedgerError::NotFound`] when no unresolved record has `key`.
    async fn decide_with_note(
        &self,
        key: &Key,
        decision: &Decision,
        note: Option<&str>,
    ) -> Result<(), LedgerError>;

    /// Records in `query`'s states, as a call would see them, ordered by `(created_at,
    /// key)`: an operator's listing (a scan; not a hot path).
    async fn records(&self, query: &RecordQuery) -> Result<Vec<Record>, LedgerError>;

    /// The decision log, oldest first: every decision, or only those on `key`.
    async fn decisions(&self, key: Option<&Key>) -> Result<Vec<DecisionRecord>, LedgerError>;
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
    async fn decide_with_note(
        &self,
        key: &Key,
        decision: &Decision,
        note: Option<&str>,
    ) -> Result<(), LedgerError> {
        (**self).decide_with_note(key, decision, note).await
    }
    async fn records(&self, query: &RecordQuery) -> Result<Vec<Record>, LedgerError> {
        (**self).records(query).await
    }
    async fn decisions(&self, key: Option<&Key>) -> Result<Vec<DecisionRecord>, LedgerError> {
        (**self).decisions(key).await
    }
}
