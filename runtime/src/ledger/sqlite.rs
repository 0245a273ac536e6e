//! The SQLite store (feature `sqlite`): the embedded default. One file, WAL mode; several
//! processes may share it.
//!
//! - **Atomic claim in one statement.** `begin` is a single upsert — insert a DECLARED
//!   record, or replace a resolved one whose expiry has passed — whose `RETURNING` says
//!   whether the caller got the claim; only when it did not is the existing record read.
//!   There is no read-then-write anywhere: every fenced write (`resolve`, `release`,
//!   `take_over`) is one `UPDATE`/`DELETE` whose `WHERE` checks the token and the state.
//! - **Tokens unique across the file.** The next token is read inside the claiming
//!   statement from `idemcheck_meta`, and triggers on the records table advance it in the
//!   same statement.
//! - **Durability.** `synchronous = FULL` by default: every commit is fsynced, so an
//!   acknowledged claim or commit survives a power cut. [`Synchronous::Normal`] survives a
//!   crash of the process (SIGKILL) but may lose the last commits on a power cut or kernel
//!   crash — a lost claim there can mean a repeated effect; use it knowingly.
//! - **Group commit.** Each handle owns one connection on a writer thread. Calls made
//!   while a transaction is being written queue up and are applied together in the next
//!   transaction (`BEGIN IMMEDIATE` … `COMMIT`, one fsync), each with the meaning it would
//!   have alone; nobody is answered before the commit that holds their write is durable.
//!   Other processes wait for the file's write lock up to the busy timeout.
//! - **A file that cannot be written** (a full disk, a read-only file, or
//!   [`SqliteOptions::max_size`] reached) fails closed: the call's write is not applied and
//!   it gets [`LedgerError::Unavailable`] naming the cause. A claim that cannot be written
//!   executes nothing; a result that cannot be written after the effect leaves the record
//!   DECLARED (the caller still gets the result), and the next call asks the postcondition.
//! - **Clock.** Leases and expiry use the handle's [`Clock`] (by default the system
//!   clock): processes sharing a file share the machine's clock.
//! - **Tombstones.** A resolved record past its TTL is a tombstone (state `pruned`; `prune`
//!   drops its result) for [`SqliteOptions::tombstone_window`] (default 30 days), then
//!   forgotten (see [`super`]). Handles sharing a file should use the same window.
//! - **Decision log.** A person's decisions ([`LedgerAdmin::decide_with_note`]) are kept in
//!   `idemcheck_decisions`, written in the same transaction as the decision itself.
//! - **Schema migration.** Opening a file migrates it in one transaction: version 1 files
//!   (before tombstones) have their records table rebuilt to accept the `pruned` state, every
//!   record kept. A file written by a newer version is refused.
//!
//! ```
//! use idemcheck::{side_effect, Context, Outcome, Scope, SqliteLedger};
//!
//! #[derive(Clone, serde::Serialize)]
//! pub struct SendArgs { to: String, template: String }
//!
//! #[side_effect(key = [to, template], verify = find_sent, max_retries = 0)]
//! async fn send_email(outbox: &std::sync::Mutex<Vec<String>>, args: SendArgs) -> Result<String, String> {
//!     let mut sent = outbox.lock().unwrap();
//!     sent.push(args.to.clone());
//!     Ok(format!("msg_{}", sent.len()))
//! }
//!
//! async fn find_sent(outbox: &std::sync::Mutex<Vec<String>>, args: &SendArgs) -> Result<Option<String>, String> {
//!     let sent = outbox.lock().unwrap();
//!     Ok(sent.iter().position(|t| *t == args.to).map(|i| format!("msg_{}", i + 1)))
//! }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), idemcheck::LedgerError> {
//! # let dir = std::env::temp_dir().join(format!("idemcheck-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! // A file, created on first use (`SqliteLedger::open_default()` keeps `ledger.sqlite3`
//! // in the platform's state directory: see `idemcheck::ledger::state_dir`).
//! let path = dir.join("idemcheck-ledger.sqlite3");
//! let ctx = Context::new(SqliteLedger::open(&path)?, Scope::run("task-42"));
//! let outbox = std::sync::Mutex::new(Vec::new());
//! let args = SendArgs { to: "ada@example.com".into(), template: "welcome".into() };
//! let first = send_email::call(&ctx, &outbox, args.clone()).await;
//! // The agent restarts: a new handle on the same file replays, never re-sends.
//! let ctx = Context::new(SqliteLedger::open(&path)?, Scope::run("task-42"));
//! let again = send_email::call(&ctx, &outbox, args).await;
//! assert_eq!(first, Outcome::Completed("msg_1".to_string()));
//! assert_eq!(again, first);
//! assert_eq!(outbox.lock().unwrap().len(), 1);
//! # std::fs::remove_dir_all(&dir).ok(); Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use tokio::sync::oneshot;

use super::codec::{decision_record, decode, encode, millis, signed, state_of, unsigned};
use super::{
    Begin, Claim, Decided, Decision, DecisionRecord, Ledger, LedgerAdmin, LedgerError, Record,
    RecordQuery, Resolution, Token,
};
use crate::clock::{Clock, Timestamp};
use crate::key::{Fingerprint, Key};

/// The file [`SqliteLedger::open_default`] keeps in the state directory
/// ([`super::state_dir`]); SQLite keeps `ledger.sqlite3-wal` and `ledger.sqlite3-shm` beside
/// it while the ledger is open.
pub const DEFAULT_SQLITE_FILE: &str = "ledger.sqlite3";

/// SQLite's `synchronous` setting for the ledger file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// `FULL` (the default): every commit is fsynced before the call is answered; durable
    /// across a power cut.
    #[default]
    Full,
    /// `NORMAL`: in WAL mode, durable across a crash of the process but not across a power
    /// cut or an operating-system crash (the last commits may be lost).
    Normal,
}

impl Synchronous {
    fn pragma(self) -> &'static str {
        match self {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        }
    }
}

/// How a [`SqliteLedger`] opens its file.
#[derive(Clone)]
pub struct SqliteOptions {
    synchronous: Synchronous,
    busy_timeout: Duration,
    max_batch: usize,
    max_size: Option<u64>,
    clock: Option<Arc<dyn Clock>>,
    tombstone_window: Duration,
}

impl std::fmt::Debug for SqliteOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteOptions")
            .field("synchronous", &self.synchronous)
            .field("busy_timeout", &self.busy_timeout)
            .field("max_batch", &self.max_batch)
            .field("max_size", &self.max_size)
            .field("clock", &self.clock.as_ref().map(|_| "custom"))
            .field("tombstone_window", &self.tombstone_window)
            .finish()
    }
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            synchronous: Synchronous::Full,
            busy_timeout: Duration::from_secs(10),
            max_batch: 128,
            max_size: None,
            clock: None,
            tombstone_window: super::DEFAULT_TOMBSTONE_WINDOW,
        }
    }
}

impl SqliteOptions {
    /// The `synchronous` setting (default [`Synchronous::Full`]).
    pub fn synchronous(mut self, synchronous: Synchronous) -> Self {
        self.synchronous = synchronous;
        self
    }

    /// How long a write waits for another process's lock before failing with
    /// [`LedgerError::Unavailable`] (default 10 s).
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }

    /// The most calls applied in one transaction (default 128; 1 disables group commit).
    pub fn max_batch(mut self, max_batch: usize) -> Self {
        self.max_batch = max_batch.max(1);
        self
    }

    /// The most bytes the ledger file may hold (SQLite's `max_page_count`, rounded down to
    /// whole pages; default: no limit but SQLite's own and the disk's). A write that would
    /// grow the file past it fails as a full disk does — with [`LedgerError::Unavailable`]
    /// saying the file is full — and the call fails closed: a claim that cannot be written
    /// executes nothing, a result that cannot be written leaves the record DECLARED (the
    /// caller still gets the result; the next call asks the postcondition instead of
    /// executing). SQLite never lowers the limit below the file's current size.
    pub fn max_size(mut self, bytes: u64) -> Self {
        self.max_size = Some(bytes);
        self
    }

    /// The clock for leases and expiry (default: the system clock).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// How long a resolved record past its TTL is kept as a tombstone before its key is
    /// forgotten (default [`super::DEFAULT_TOMBSTONE_WINDOW`], 30 days; zero keeps none).
    pub fn tombstone_window(mut self, window: Duration) -> Self {
        self.tombstone_window = window;
        self
    }
}

/// A [`Ledger`] in one SQLite file. Cheap to clone (clones share the writer thread); open
/// the same path again for another connection.
#[derive(Clone)]
pub struct SqliteLedger {
    inner: Arc<Inner>,
}

struct Inner {
    jobs: mpsc::Sender<Job>,
    path: PathBuf,
    synchronous: Synchronous,
    /// The tombstone window, in milliseconds.
    window: i64,
}

impl std::fmt::Debug for SqliteLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteLedger")
            .field("path", &self.inner.path)
            .field("synchronous", &self.inner.synchronous)
            .finish()
    }
}

/// One call, queued for the writer thread.
trait Work: Send {
    /// Run inside the open transaction; return how to answer once its fate is known.
    fn run(self: Box<Self>, conn: &Connection, now: i64) -> Finish;
    /// Answer without running (no transaction could be opened).
    fn fail(self: Box<Self>, error: LedgerError);
}

type Job = Box<dyn Work>;
/// Answers the caller: `None` when the transaction committed, else the commit's error.
type Finish = Box<dyn FnOnce(Option<LedgerError>) + Send>;

struct Op<R, F> {
    op: F,
    reply: oneshot::Sender<Result<R, LedgerError>>,
}

impl<R, F> Work for Op<R, F>
where
    R: Send + 'static,
    F: FnOnce(&Connection, i64) -> Result<R, LedgerError> + Send + 'static,
{
    fn run(self: Box<Self>, conn: &Connection, now: i64) -> Finish {
        let Op { op, reply } = *self;
        let result = op(conn, now);
        Box::new(move |commit_error| {
            let _ = reply.send(match commit_error {
                Some(e) => Err(e),
                None => result,
            });
        })
    }

    fn fail(self: Box<Self>, error: LedgerError) {
        let _ = self.reply.send(Err(error));
    }
}

/// Create the ledger file readable and writable by its owner only (mode 0600 on Unix; SQLite
/// gives its `-wal` and `-shm` files the database file's permissions). An existing file is
/// left as it is.
fn create_private(path: &Path) -> Result<(), LedgerError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(unavailable(format!(
            "cannot create {}: {e}",
            path.display()
        ))),
    }
}

fn unavailable(e: impl std::fmt::Display) -> LedgerError {
    LedgerError::Unavailable(format!("sqlite: {e}"))
}

/// A SQLite error, with what it means for the ledger when the file cannot be written.
fn db_error(e: rusqlite::Error) -> LedgerError {
    let code = match &e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    };
    match code {
        Some(rusqlite::ErrorCode::DiskFull) => unavailable(format!(
            "the ledger file is full (the disk, or SqliteOptions::max_size): nothing was written ({e})"
        )),
        Some(rusqlite::ErrorCode::ReadOnly) => unavailable(format!(
            "the ledger file is read-only: nothing was written ({e})"
        )),
        _ => unavailable(e),
    }
}

/// The records table's columns and constraints (schema version 2: the `pruned` state).
const RECORDS_TABLE: &str = "(
    key         TEXT PRIMARY KEY NOT NULL,
    tool        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state       TEXT NOT NULL
                CHECK (state IN ('declared', 'committed', 'failed', 'unknown', 'pruned')),
    owner       TEXT NOT NULL,
    token       INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    resolution  TEXT
) WITHOUT ROWID";

/// Everything but the records table (created if missing; a new file starts at version 2).
const SCHEMA: &str = "
CREATE INDEX IF NOT EXISTS idemcheck_records_pending
    ON idemcheck_records (created_at, key) WHERE state IN ('declared', 'unknown');
CREATE INDEX IF NOT EXISTS idemcheck_records_expiry
    ON idemcheck_records (expires_at) WHERE state IN ('committed', 'failed', 'pruned');
CREATE TABLE IF NOT EXISTS idemcheck_meta (
    name  TEXT PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO idemcheck_meta (name, value) VALUES ('last_token', 0), ('schema_version', 2);
CREATE TABLE IF NOT EXISTS idemcheck_decisions (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    key         TEXT NOT NULL,
    tool        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    from_state  TEXT NOT NULL,
    decision    TEXT NOT NULL CHECK (decision IN ('happened', 'did_not_happen')),
    note        TEXT,
    decided_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idemcheck_decisions_key ON idemcheck_decisions (key, seq);
CREATE TRIGGER IF NOT EXISTS idemcheck_token_on_insert AFTER INSERT ON idemcheck_records
BEGIN
    UPDATE idemcheck_meta SET value = NEW.token WHERE name = 'last_token' AND value < NEW.token;
END;
CREATE TRIGGER IF NOT EXISTS idemcheck_token_on_update AFTER UPDATE OF token ON idemcheck_records
BEGIN
    UPDATE idemcheck_meta SET value = NEW.token WHERE name = 'last_token' AND value < NEW.token;
END;
";

/// The schema version this code writes: 1 had no tombstones (no `pruned` state).
const SCHEMA_VERSION: i64 = 2;

const COLUMNS: &str = "key, tool, fingerprint, state, owner, token, lease_until, created_at, updated_at, expires_at, resolution";

const NEXT_TOKEN: &str = "(SELECT value + 1 FROM idemcheck_meta WHERE name = 'last_token')";

/// A row that is unresolved (DECLARED or UNKNOWN).
const UNRESOLVED: &str = "state IN ('declared', 'unknown')";

/// A row that is a tombstone at `?5` (now): pruned, or resolved and past its expiry.
const TOMBSTONE: &str =
    "(state = 'pruned' OR (state IN ('committed', 'failed') AND expires_at <= ?5))";

fn at(now: i64) -> Timestamp {
    Timestamp(unsigned(now))
}

fn duration(millis: i64) -> Duration {
    Duration::from_millis(unsigned(millis))
}

fn record_from_row(row: &Row<'_>) -> rusqlite::Result<Result<Record, LedgerError>> {
    let key: String = row.get(0)?;
    let state: String = row.get(3)?;
    let resolution: Option<String> = row.get(10)?;
    let decoded = decode(&key, &state, resolution.as_deref());
    let tool: String = row.get(1)?;
    let fingerprint: String = row.get(2)?;
    let owner: String = row.get(4)?;
    let token: i64 = row.get(5)?;
    let lease_until: i64 = row.get(6)?;
    let created_at: i64 = row.get(7)?;
    let updated_at: i64 = row.get(8)?;
    let expires_at: i64 = row.get(9)?;
    Ok(decoded.map(|(state, resolution)| Record {
        key: Key::from_stored(key),
        tool,
        fingerprint: Fingerprint::from_stored(fingerprint),
        state,
        owner,
        token: unsigned(token),
        lease_until: Timestamp(unsigned(lease_until)),
        created_at: Timestamp(unsigned(created_at)),
        updated_at: Timestamp(unsigned(updated_at)),
        expires_at: Timestamp(unsigned(expires_at)),
        resolution,
    }))
}

fn load_record(conn: &Connection, key: &str) -> Result<Option<Record>, LedgerError> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM idemcheck_records WHERE key = ?1"
        ))
        .map_err(db_error)?;
    stmt.query_row(params![key], record_from_row)
        .optional()
        .map_err(db_error)?
        .transpose()
}

fn fenced(key: &str, token: Token) -> LedgerError {
    LedgerError::fenced(&Key::from_stored(key), token)
}

struct OwnedClaim {
    key: String,
    fingerprint: String,
    tool: String,
    owner: String,
    lease: i64,
    ttl: i64,
}

impl OwnedClaim {
    fn of(claim: &Claim<'_>) -> Self {
        OwnedClaim {
            key: claim.key.as_str().to_string(),
            fingerprint: claim.fingerprint.as_str().to_string(),
            tool: claim.tool.to_string(),
            owner: claim.owner.to_string(),
            lease: millis(claim.lease),
            ttl: millis(claim.ttl),
        }
    }
}

fn begin_in(
    conn: &Connection,
    now: i64,
    c: &OwnedClaim,
    window: i64,
) -> Result<Begin, LedgerError> {
    // One statement: insert, or take the place of a resolved record or tombstone forgotten
    // (past its expiry and the tombstone window).
    let mut stmt = conn
        .prepare_cached(&format!(
            "INSERT INTO idemcheck_records ({COLUMNS})
             VALUES (?1, ?2, ?3, 'declared', ?4, {NEXT_TOKEN}, ?5, ?6, ?6, ?7, NULL)
             ON CONFLICT (key) DO UPDATE SET
                tool = excluded.tool, fingerprint = excluded.fingerprint, state = 'declared',
                owner = excluded.owner, token = excluded.token,
                lease_until = excluded.lease_until, created_at = excluded.created_at,
                updated_at = excluded.updated_at, expires_at = excluded.expires_at,
                resolution = NULL
             WHERE idemcheck_records.state IN ('committed', 'failed', 'pruned')
               AND idemcheck_records.expires_at <= ?8
             RETURNING token"
        ))
        .map_err(db_error)?;
    let claimed: Option<i64> = stmt
        .query_row(
            params![
                c.key,
                c.tool,
                c.fingerprint,
                c.owner,
                now.saturating_add(c.lease),
                now,
                now.saturating_add(c.ttl),
                now.saturating_sub(window)
            ],
            |row| row.get(0),
        )
        .optional()
        .map_err(db_error)?;
    if let Some(token) = claimed {
        return Ok(Begin::Claimed {
            token: unsigned(token),
        });
    }
    match load_record(conn, &c.key)?.and_then(|r| r.as_of(at(now), duration(window))) {
        Some(record) => Ok(Begin::Existing(record)),
        None => Err(LedgerError::Corrupt(format!(
            "claim of {} neither inserted nor found a record",
            c.key
        ))),
    }
}

fn take_over_in(
    conn: &Connection,
    now: i64,
    c: &OwnedClaim,
    token: Token,
) -> Result<Option<Token>, LedgerError> {
    // An unresolved record whose lease ran out keeps its creation and expiry; a tombstone
    // (with the same inputs) counts as claimed now.
    let mut stmt = conn
        .prepare_cached(&format!(
            "UPDATE idemcheck_records SET
                state = 'declared', owner = ?3, token = {NEXT_TOKEN},
                lease_until = ?4, updated_at = ?5, resolution = NULL,
                tool = CASE WHEN {UNRESOLVED} THEN tool ELSE ?6 END,
                created_at = CASE WHEN {UNRESOLVED} THEN created_at ELSE ?5 END,
                expires_at = CASE WHEN {UNRESOLVED} THEN expires_at ELSE ?7 END
             WHERE key = ?1 AND token = ?2
               AND (({UNRESOLVED} AND lease_until <= ?5)
                    OR ({TOMBSTONE} AND fingerprint = ?8))
             RETURNING token"
        ))
        .map_err(db_error)?;
    let token: Option<i64> = stmt
        .query_row(
            params![
                c.key,
                signed(token),
                c.owner,
                now.saturating_add(c.lease),
                now,
                c.tool,
                now.saturating_add(c.ttl),
                c.fingerprint
            ],
            |row| row.get(0),
        )
        .optional()
        .map_err(db_error)?;
    Ok(token.map(unsigned))
}

fn resolve_in(
    conn: &Connection,
    now: i64,
    key: &str,
    token: Token,
    state: &str,
    text: &str,
) -> Result<(), LedgerError> {
    let mut stmt = conn
        .prepare_cached(
            "UPDATE idemcheck_records SET state = ?3, resolution = ?4, updated_at = ?5
             WHERE key = ?1 AND token = ?2 AND state IN ('declared', 'unknown')",
        )
        .map_err(db_error)?;
    match stmt
        .execute(params![key, signed(token), state, text, now])
        .map_err(db_error)?
    {
        1 => Ok(()),
        _ => Err(fenced(key, token)),
    }
}

fn release_in(conn: &Connection, key: &str, token: Token) -> Result<(), LedgerError> {
    let mut stmt = conn
        .prepare_cached(
            "DELETE FROM idemcheck_records WHERE key = ?1 AND token = ?2 AND state = 'declared'",
        )
        .map_err(db_error)?;
    match stmt
        .execute(params![key, signed(token)])
        .map_err(db_error)?
    {
        1 => Ok(()),
        _ => Err(fenced(key, token)),
    }
}

fn prune_in(conn: &Connection, now: i64, window: i64) -> Result<u64, LedgerError> {
    // Forgotten: past the expiry and the tombstone window.
    let forgotten = conn
        .prepare_cached(
            "DELETE FROM idemcheck_records
             WHERE state IN ('committed', 'failed', 'pruned') AND expires_at <= ?1",
        )
        .and_then(|mut s| s.execute(params![now.saturating_sub(window)]))
        .map_err(db_error)?;
    // Past the expiry: a tombstone, without the result.
    let tombstoned = conn
        .prepare_cached(
            "UPDATE idemcheck_records SET state = 'pruned', resolution = NULL, updated_at = ?1
             WHERE state IN ('committed', 'failed') AND expires_at <= ?1",
        )
        .and_then(|mut s| s.execute(params![now]))
        .map_err(db_error)?;
    Ok((forgotten + tombstoned) as u64)
}

fn pending_in(conn: &Connection) -> Result<Vec<Record>, LedgerError> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM idemcheck_records
             WHERE state IN ('declared', 'unknown') ORDER BY created_at, key"
        ))
        .map_err(db_error)?;
    let rows = stmt
        .query_map([], record_from_row)
        .map_err(db_error)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_error)?;
    rows.into_iter().collect()
}

fn decide_in(
    conn: &Connection,
    now: i64,
    key: &str,
    decision: Option<&str>,
    note: Option<&str>,
) -> Result<(), LedgerError> {
    // Inside the writer's transaction: the read, the change and the log entry are one.
    let found: Option<(String, String, String)> = conn
        .prepare_cached(
            "SELECT tool, fingerprint, state FROM idemcheck_records
             WHERE key = ?1 AND state IN ('declared', 'unknown')",
        )
        .and_then(|mut s| {
            s.query_row(params![key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .optional()
        })
        .map_err(db_error)?;
    let Some((tool, fingerprint, from_state)) = found else {
        return Err(LedgerError::NotFound(Key::from_stored(key)));
    };
    let n = match decision {
        Some(text) => conn
            .prepare_cached(&format!(
                "UPDATE idemcheck_records SET state = 'committed', resolution = ?2,
                    token = {NEXT_TOKEN}, updated_at = ?3
                 WHERE key = ?1 AND state IN ('declared', 'unknown')"
            ))
            .and_then(|mut s| s.execute(params![key, text, now])),
        None => conn
            .prepare_cached(
                "DELETE FROM idemcheck_records WHERE key = ?1 AND state IN ('declared', 'unknown')",
            )
            .and_then(|mut s| s.execute(params![key])),
    }
    .map_err(db_error)?;
    if n != 1 {
        return Err(LedgerError::NotFound(Key::from_stored(key)));
    }
    let decided = match decision {
        Some(_) => Decided::Happened,
        None => Decided::DidNotHappen,
    };
    conn.prepare_cached(
        "INSERT INTO idemcheck_decisions
            (key, tool, fingerprint, from_state, decision, note, decided_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .and_then(|mut s| {
        s.execute(params![
            key,
            tool,
            fingerprint,
            from_state,
            decided.as_str(),
            note,
            now
        ])
    })
    .map_err(db_error)?;
    Ok(())
}

fn records_in(
    conn: &Connection,
    now: i64,
    window: i64,
    query: &RecordQuery,
) -> Result<Vec<Record>, LedgerError> {
    // The state as seen (a resolved record past its expiry is a tombstone), forgotten
    // records left out; `?3` lists the states as `,a,b,`.
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM idemcheck_records
             WHERE NOT (state IN ('committed', 'failed', 'pruned') AND expires_at <= ?2)
               AND instr(?3, ',' || (CASE WHEN state IN ('committed', 'failed')
                                          AND expires_at <= ?1 THEN 'pruned'
                                          ELSE state END) || ',') > 0
               AND (?4 IS NULL OR (created_at, key) > (?4, ?5))
             ORDER BY created_at, key
             LIMIT ?6"
        ))
        .map_err(db_error)?;
    let (after_at, after_key) = match &query.after {
        Some((at, key)) => (Some(signed(at.0)), Some(key.as_str().to_string())),
        None => (None, None),
    };
    let limit = query
        .limit
        .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
    let rows = stmt
        .query_map(
            params![
                now,
                now.saturating_sub(window),
                query.state_list(),
                after_at,
                after_key,
                limit
            ],
            record_from_row,
        )
        .map_err(db_error)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_error)?;
    let window = duration(window);
    rows.into_iter()
        .filter_map(|r| r.map(|r| r.as_of(at(now), window)).transpose())
        .collect()
}

fn decisions_in(conn: &Connection, key: Option<&str>) -> Result<Vec<DecisionRecord>, LedgerError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT key, tool, fingerprint, from_state, decision, note, decided_at
             FROM idemcheck_decisions WHERE ?1 IS NULL OR key = ?1 ORDER BY seq",
        )
        .map_err(db_error)?;
    let rows = stmt
        .query_map(params![key], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, i64>(6)?,
            ))
        })
        .map_err(db_error)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(db_error)?;
    rows.into_iter()
        .map(|(key, tool, fingerprint, from, decision, note, at_ms)| {
            decision_record(key, tool, fingerprint, &from, &decision, note, at_ms)
        })
        .collect()
}

fn configure(conn: &Connection, options: &SqliteOptions) -> Result<(), LedgerError> {
    conn.busy_timeout(options.busy_timeout).map_err(db_error)?;
    // Switching to WAL takes an exclusive lock, and SQLite answers "database is locked"
    // at once (without its busy handler) while another process opening the same new file
    // holds it: retry within the busy timeout.
    let started = std::time::Instant::now();
    let mut pause = Duration::from_millis(2);
    let mode: String = loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Ok(mode) => break mode,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && started.elapsed() < options.busy_timeout =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(e) => return Err(unavailable(e)),
        }
    };
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(unavailable(format!(
            "the file cannot be put in WAL mode (journal_mode = {mode})"
        )));
    }
    conn.execute_batch(&format!(
        "PRAGMA synchronous = {};",
        options.synchronous.pragma()
    ))
    .map_err(db_error)?;
    if let Some(bytes) = options.max_size {
        let page_size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(db_error)?;
        let pages = (bytes / page_size.max(1) as u64).max(1);
        conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |r| {
            r.get::<_, i64>(0)
        })
        .map_err(db_error)?;
    }
    Ok(())
}

fn migrate(conn: &mut Connection) -> Result<(), LedgerError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_error)?;
    tx.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS idemcheck_records {RECORDS_TABLE};"
    ))
    .map_err(db_error)?;
    tx.execute_batch(SCHEMA).map_err(db_error)?;
    let version: i64 = tx
        .query_row(
            "SELECT value FROM idemcheck_meta WHERE name = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .map_err(db_error)?;
    if version > SCHEMA_VERSION {
        return Err(LedgerError::Corrupt(format!(
            "the ledger file has schema version {version}; this idemcheck writes version {SCHEMA_VERSION}"
        )));
    }
    if version < 2 {
        // Version 1 had no `pruned` state, and SQLite cannot change a CHECK constraint:
        // rebuild the table (every record copied), then its indexes and triggers (dropped
        // with the old table) from SCHEMA.
        tx.execute_batch(&format!(
            "CREATE TABLE idemcheck_records_v2 {RECORDS_TABLE};
             INSERT INTO idemcheck_records_v2 ({COLUMNS})
                 SELECT {COLUMNS} FROM idemcheck_records;
             DROP TABLE idemcheck_records;
             ALTER TABLE idemcheck_records_v2 RENAME TO idemcheck_records;
             {SCHEMA}
             UPDATE idemcheck_meta SET value = 2 WHERE name = 'schema_version';"
        ))
        .map_err(db_error)?;
    }
    tx.commit().map_err(db_error)
}

/// The writer thread: take every queued job, apply them in one transaction, commit, answer.
fn writer(conn: Connection, jobs: mpsc::Receiver<Job>, clock: Arc<dyn Clock>, max_batch: usize) {
    let mut batch: Vec<Job> = Vec::with_capacity(max_batch);
    while let Ok(first) = jobs.recv() {
        batch.push(first);
        while batch.len() < max_batch {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
            let e = db_error(e);
            // Nothing runs outside a transaction: answer without running.
            for job in batch.drain(..) {
                job.fail(e.clone());
            }
            continue;
        }
        let mut finishes: Vec<Finish> = Vec::with_capacity(batch.len());
        let mut aborted: Option<LedgerError> = None;
        for job in batch.drain(..) {
            if let Some(e) = &aborted {
                job.fail(e.clone());
                continue;
            }
            let now = signed(clock.now().0);
            finishes.push(job.run(&conn, now));
            if conn.is_autocommit() {
                // SQLite rolled the whole transaction back (I/O error, disk full, ...):
                // nothing of this batch is written, and nothing more may run.
                aborted = Some(unavailable("the transaction was rolled back by SQLite"));
            }
        }
        let outcome = match aborted {
            Some(e) => Some(e),
            None => match conn.execute_batch("COMMIT") {
                Ok(()) => None,
                Err(e) => {
                    let _ = conn.execute_batch("ROLLBACK");
                    Some(match db_error(e) {
                        LedgerError::Unavailable(text) => {
                            LedgerError::Unavailable(format!("commit failed: {text}"))
                        }
                        other => other,
                    })
                }
            },
        };
        for finish in finishes {
            finish(outcome.clone());
        }
    }
}

impl SqliteLedger {
    /// Open (creating if needed) the ledger in `path` with the default options: WAL,
    /// `synchronous = FULL`, the system clock.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteLedger, LedgerError> {
        SqliteLedger::open_with(path, SqliteOptions::default())
    }

    /// Open (creating if needed) [`DEFAULT_SQLITE_FILE`] in the platform's state directory
    /// ([`super::state_dir`]: `$IDEMCHECK_STATE_DIR`, else `$XDG_STATE_HOME/idemcheck` or
    /// `~/.local/state/idemcheck` on Linux, the platform's equivalent elsewhere), creating
    /// the directory with mode 0700. Errors name the directory and where it came from.
    pub fn open_default() -> Result<SqliteLedger, LedgerError> {
        let dir = super::create_state_dir()?;
        let path = dir.path.join(DEFAULT_SQLITE_FILE);
        SqliteLedger::open(&path).map_err(|e| match e {
            LedgerError::Unavailable(text) => LedgerError::Unavailable(format!(
                "{text} (the default ledger in the state directory {dir})"
            )),
            other => other,
        })
    }

    /// Where [`SqliteLedger::open_default`] keeps its file (nothing is created).
    pub fn default_path() -> Result<PathBuf, LedgerError> {
        Ok(super::state_dir()?.path.join(DEFAULT_SQLITE_FILE))
    }

    /// Open a ledger file that already exists, for an operator's tool: a missing file, a
    /// file that is not a SQLite database and a database without an idemcheck ledger are
    /// errors naming the path (nothing is created). The file is migrated to this version's
    /// schema like [`SqliteLedger::open_with`] does.
    pub fn open_existing(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<SqliteLedger, LedgerError> {
        let path = path.as_ref();
        let at =
            |what: String| LedgerError::Unavailable(format!("sqlite: {}: {what}", path.display()));
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(at("not a file".into())),
            Err(e) => return Err(at(format!("no ledger file here ({e})"))),
        }
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| at(e.to_string()))?;
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'
                 AND name IN ('idemcheck_records', 'idemcheck_meta')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| at(format!("not a SQLite database ({e})")))?;
        if tables != 2 {
            return Err(at(
                "a SQLite database, but not an idemcheck ledger (no idemcheck_records table)"
                    .into(),
            ));
        }
        drop(conn);
        SqliteLedger::open_with(path, options).map_err(|e| match e {
            LedgerError::Unavailable(text) => at(text),
            other => other,
        })
    }

    /// Open (creating if needed) the ledger in `path`.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: SqliteOptions,
    ) -> Result<SqliteLedger, LedgerError> {
        let path = path.as_ref().to_path_buf();
        create_private(&path)?;
        let mut conn = Connection::open(&path).map_err(db_error)?;
        configure(&conn, &options)?;
        migrate(&mut conn)?;
        let clock: Arc<dyn Clock> = match options.clock.clone() {
            Some(c) => c,
            None => Arc::new(crate::clock::SystemClock::new()),
        };
        let window = millis(options.tombstone_window);
        let (tx, rx) = mpsc::channel::<Job>();
        let max_batch = options.max_batch;
        std::thread::Builder::new()
            .name("idemcheck-sqlite".into())
            .spawn(move || writer(conn, rx, clock, max_batch))
            .map_err(unavailable)?;
        Ok(SqliteLedger {
            inner: Arc::new(Inner {
                jobs: tx,
                path,
                synchronous: options.synchronous,
                window,
            }),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The `synchronous` setting in force.
    pub fn synchronous(&self) -> Synchronous {
        self.inner.synchronous
    }

    /// The tombstone window in force ([`SqliteOptions::tombstone_window`]).
    pub fn tombstone_window(&self) -> Duration {
        duration(self.inner.window)
    }

    async fn call<R, F>(&self, op: F) -> Result<R, LedgerError>
    where
        R: Send + 'static,
        F: FnOnce(&Connection, i64) -> Result<R, LedgerError> + Send + 'static,
    {
        let (reply, rx) = oneshot::channel::<Result<R, LedgerError>>();
        let job: Job = Box::new(Op { op, reply });
        self.inner
            .jobs
            .send(job)
            .map_err(|_| unavailable("the writer thread has stopped"))?;
        rx.await
            .unwrap_or_else(|_| Err(unavailable("the writer thread stopped")))
    }
}

#[async_trait]
impl Ledger for SqliteLedger {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        let c = OwnedClaim::of(claim);
        let window = self.inner.window;
        self.call(move |conn, now| begin_in(conn, now, &c, window))
            .await
    }

    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        let c = OwnedClaim::of(claim);
        self.call(move |conn, now| take_over_in(conn, now, &c, token))
            .await
    }

    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        let key = key.as_str().to_string();
        let state = state_of(resolution).as_str();
        let text = encode(resolution)?;
        self.call(move |conn, now| resolve_in(conn, now, &key, token, state, &text))
            .await
    }

    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        let key = key.as_str().to_string();
        self.call(move |conn, _| release_in(conn, &key, token))
            .await
    }

    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        let key = key.as_str().to_string();
        let window = duration(self.inner.window);
        self.call(move |conn, now| {
            Ok(load_record(conn, &key)?.and_then(|r| r.as_of(at(now), window)))
        })
        .await
    }
}

#[async_trait]
impl LedgerAdmin for SqliteLedger {
    async fn prune(&self) -> Result<u64, LedgerError> {
        let window = self.inner.window;
        self.call(move |conn, now| prune_in(conn, now, window))
            .await
    }

    async fn pending(&self) -> Result<Vec<Record>, LedgerError> {
        self.call(|conn, _| pending_in(conn)).await
    }

    async fn decide_with_note(
        &self,
        key: &Key,
        decision: &Decision,
        note: Option<&str>,
    ) -> Result<(), LedgerError> {
        let key = key.as_str().to_string();
        let text = match decision {
            Decision::Happened { result } => Some(encode(&Resolution::Committed {
                result: result.clone(),
            })?),
            Decision::DidNotHappen => None,
        };
        let note = note.map(str::to_string);
        self.call(move |conn, now| decide_in(conn, now, &key, text.as_deref(), note.as_deref()))
            .await
    }

    async fn records(&self, query: &RecordQuery) -> Result<Vec<Record>, LedgerError> {
        let window = self.inner.window;
        let query = query.clone();
        self.call(move |conn, now| records_in(conn, now, window, &query))
            .await
    }

    async fn decisions(&self, key: Option<&Key>) -> Result<Vec<DecisionRecord>, LedgerError> {
        let key = key.map(|k| k.as_str().to_string());
        self.call(move |conn, _| decisions_in(conn, key.as_deref()))
            .await
    }
}
