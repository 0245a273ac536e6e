//! The PostgreSQL store (feature `postgres`): one ledger shared by a fleet of agent
//! workers on many machines.
//!
//! - **A schema of its own** (default `idemcheck`), created by an idempotent migration that
//!   every worker runs on connect: `CREATE … IF NOT EXISTS` under a transaction-scoped
//!   advisory lock, so many workers starting at once do not trip over each other.
//! - **The database's clock.** Every lease, expiry and `updated_at` is computed in SQL from
//!   the server's `now()`; a worker's clock never decides whether a lease has run out.
//! - **One round trip per write.** Claim (`begin`), take-over, commit and failure
//!   (`resolve`), release and decisions are each one prepared statement; all the fenced
//!   ones carry the owner's token in their `WHERE`, so a stale worker whose lease was taken
//!   over matches no row and gets [`LedgerError::Fenced`] — it can never overwrite the new
//!   owner. Tokens come from one sequence, so they are unique across the store.
//! - **The claim** is one statement: `INSERT … ON CONFLICT DO NOTHING`, returning either
//!   the new record or the existing one. A replay writes nothing (no transaction id, no WAL
//!   flush). Only a resolved record past its expiry that `prune` has not deleted yet costs
//!   a second, fenced statement to take its place.
//! - **Cheap commits.** The only secondary index is on `expires_at` (for `prune`), and the
//!   table keeps free space in its pages (`fillfactor = 70`), so settling a record is a
//!   heap-only (HOT) update that touches no index. `pending()` therefore scans the table:
//!   an operator's query, not a hot path.
//! - **Group commit.** A claim or a settle write that finds another of its kind in flight on
//!   the same handle is queued; a batcher (on a thread and tokio runtime of its own, with its
//!   own connections, so the ledger does not depend on the runtime it was connected on)
//!   sends everything queued as one statement over `unnest(..)` arrays — one transaction and
//!   one WAL flush for the batch, each row still fenced on its own token, at most one row per
//!   key per statement, rows in key order. A call that finds nothing in flight runs its
//!   single-row statement directly.
//! - **A connection pool** (deadpool) of `pool_size` connections; every call is bounded by
//!   `op_timeout` and fails with [`LedgerError::Unavailable`] past it.
//! - **TLS** (rustls, `ring` provider; always part of the `postgres` feature), chosen by
//!   `sslmode` in the connection string: `disable` (or no `sslmode`: plain, as before),
//!   `prefer` (TLS when the server offers it, certificate not checked), `require` (TLS or no
//!   connection; encrypts, but does not authenticate the server) and `verify-full` (the
//!   server's certificate must chain to the CA in `sslrootcert=PATH` — or
//!   [`PostgresOptions::tls_root_certificate`] — and name the host connected to).
//!   `verify-ca` is refused with a clear error. SCRAM channel binding is not offered.
//! - **No credentials in errors.** No error or `Debug` text of the store contains the
//!   connection string, and the password it holds is replaced by `<redacted>` in every
//!   error of `connect` (a refused password, an unreachable or untrusted server).
//! - **Durable by default.** Every write waits for the server's WAL flush. With
//!   [`PostgresOptions::async_resolutions`], the writes that *settle* a claim — commit,
//!   failure, unknown, release — are committed with `synchronous_commit = off` (on a second
//!   pool), so a first call waits for one flush instead of two. Claims, take-overs and
//!   decisions stay synchronous, so at-most-once holds even across a crash of the server:
//!   a settle write lost in such a crash (PostgreSQL bounds the window to about three
//!   `wal_writer_delay`, 600 ms by default) leaves the record DECLARED, and the next call
//!   asks the postcondition instead of executing — a stored result may have to be adopted
//!   again, a stored definite failure may be retried once, a postcondition that cannot tell
//!   turns into Unknown.
//! - **Tombstones.** A resolved record past its TTL is a tombstone (state `pruned`; `prune`
//!   drops its result) for [`PostgresOptions::tombstone_window`] (default 30 days), then
//!   forgotten (see [`super`]); every worker of a fleet should use the same window. Whether
//!   a record is a tombstone or forgotten is decided on the database's clock.
//! - **Decision log.** A person's decisions ([`LedgerAdmin::decide_with_note`]) are kept in
//!   the schema's `decisions` table, written in the same transaction as the decision.
//! - **Schema migration.** Version 1 schemas (before tombstones) are upgraded on connect,
//!   under the same advisory lock: the state's CHECK constraint is replaced to accept
//!   `pruned` (every record kept). A schema written by a newer version is refused.
//!
//! Layout: [`sql`] holds the schema, the migration and every statement; [`batch`] the group
//! commit (queues, the batcher thread, the batched statements); [`store`] the
//! [`PostgresLedger`] methods and its [`Ledger`] implementation.

use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::Row;

use super::codec::{decision_record, decode, encode, millis, signed, state_of, unsigned};
use super::{
    ALL_STATES, Begin, Claim, Decided, Decision, DecisionRecord, Ledger, LedgerAdmin, LedgerError,
    Record, RecordQuery, Resolution, Token,
};
use crate::clock::Timestamp;
use crate::key::{Fingerprint, Key, sha256_hex};

mod batch;
mod sql;
mod store;
mod tls;

use batch::*;
use sql::*;

/// The schema version this code writes: 1 had no tombstones (no `pruned` state).
const SCHEMA_VERSION: i32 = 2;

/// How a [`PostgresLedger`] connects.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    schema: String,
    pool_size: usize,
    op_timeout: Duration,
    connect_timeout: Duration,
    async_resolutions: bool,
    tls_root_certificate: Option<std::path::PathBuf>,
    tombstone_window: Duration,
    create_schema: bool,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            schema: "idemcheck".to_string(),
            pool_size: 16,
            op_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            async_resolutions: false,
            tls_root_certificate: None,
            tombstone_window: super::DEFAULT_TOMBSTONE_WINDOW,
            create_schema: true,
        }
    }
}

impl PostgresOptions {
    /// The schema holding the ledger (default `idemcheck`): lowercase letters, digits and
    /// `_`, not starting with a digit.
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = schema.into();
        self
    }

    /// Connections in the pool (default 16).
    pub fn pool_size(mut self, size: usize) -> Self {
        self.pool_size = size.max(1);
        self
    }

    /// The longest a ledger call may take, waiting for a connection included (default
    /// 10 s).
    pub fn op_timeout(mut self, timeout: Duration) -> Self {
        self.op_timeout = timeout;
        self
    }

    /// Commit the writes that settle a claim (commit, failure, unknown, release) without
    /// waiting for the WAL flush (`synchronous_commit = off`); claims, take-overs and
    /// decisions stay synchronous. Default off. See the module documentation for what a
    /// crash of the server can then lose, and why it never causes a second execution.
    pub fn async_resolutions(mut self, on: bool) -> Self {
        self.async_resolutions = on;
        self
    }

    /// The CA certificates (a PEM file) that verify the server under `sslmode=verify-full`,
    /// when the connection string has no `sslrootcert` (which wins when both are given).
    /// Ignored by the other modes.
    pub fn tls_root_certificate(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.tls_root_certificate = Some(path.into());
        self
    }

    /// How long a resolved record past its TTL is kept as a tombstone before its key is
    /// forgotten (default [`super::DEFAULT_TOMBSTONE_WINDOW`], 30 days; zero keeps none).
    pub fn tombstone_window(mut self, window: Duration) -> Self {
        self.tombstone_window = window;
        self
    }

    /// Whether connecting may create the schema (default `true`). With `false` — for an
    /// operator's tool — connecting fails, naming the schema, unless it already holds a
    /// ledger, so a mistyped database or schema is an error rather than a new, empty ledger.
    pub fn create_schema(mut self, create: bool) -> Self {
        self.create_schema = create;
        self
    }

    /// The longest opening one connection may take (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// A [`Ledger`] in a PostgreSQL database. Cheap to clone (clones share the pool).
#[derive(Clone)]
pub struct PostgresLedger {
    pool: Pool,
    /// Where settle writes go: `pool`, or a pool with `synchronous_commit = off`.
    settle_pool: Pool,
    sql: std::sync::Arc<Statements>,
    schema: String,
    op_timeout: Duration,
    /// The tombstone window.
    tombstone_window: Duration,
    /// Whether connecting may create the schema ([`PostgresOptions::create_schema`]).
    create_schema: bool,
    /// Claims waiting for the next batched claim statement (group commit).
    claims: mpsc::UnboundedSender<Job<ClaimRow>>,
    /// Commits and failures waiting for the next batched settle statement.
    settles: mpsc::UnboundedSender<Job<SettleRow>>,
    /// Claims of this handle (and its clones) in flight.
    claims_in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// Settle writes of this handle (and its clones) in flight.
    settles_in_flight: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl std::fmt::Debug for PostgresLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresLedger")
            .field("schema", &self.schema)
            .field("pool", &self.pool.status())
            .finish()
    }
}

fn unavailable(e: impl std::fmt::Display) -> LedgerError {
    LedgerError::Unavailable(format!("postgres: {e}"))
}

/// Error text with its source chain (tokio-postgres puts the server's message there, and
/// the pool the connection error).
fn pg_error<E: std::error::Error>(e: E) -> LedgerError {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    unavailable(text)
}

/// `error` with every occurrence of `password` replaced by `<redacted>`: the last guard that
/// keeps the connection string's password out of an error, whatever a driver put in it.
fn redact_password(error: LedgerError, password: Option<&str>) -> LedgerError {
    let Some(password) = password.filter(|p| !p.is_empty()) else {
        return error;
    };
    let clean = |text: String| text.replace(password, "<redacted>");
    match error {
        LedgerError::Unavailable(text) => LedgerError::Unavailable(clean(text)),
        LedgerError::Corrupt(text) => LedgerError::Corrupt(clean(text)),
        other => other,
    }
}
