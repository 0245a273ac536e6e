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
//!   `op_timeout` and fails with [`LedgerError::Unavailable`] past it. No TLS: reach the
//!   server over a trusted network or a local socket.
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

use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{NoTls, Row};

use super::codec::{decode, encode, millis, signed, state_of, unsigned};
use super::{Begin, Claim, Decision, Ledger, LedgerError, Record, Resolution, Token};
use crate::clock::Timestamp;
use crate::key::{Fingerprint, Key, sha256_hex};

/// The schema version this code writes.
const SCHEMA_VERSION: i32 = 1;

/// How a [`PostgresLedger`] connects.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    schema: String,
    pool_size: usize,
    op_timeout: Duration,
    connect_timeout: Duration,
    async_resolutions: bool,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            schema: "idemcheck".to_string(),
            pool_size: 16,
            op_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            async_resolutions: false,
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

const COLUMNS: &str = "key, tool, fingerprint, state, owner, token, lease_until, created_at, updated_at, expires_at, resolution";
const NOW_MS: &str = "(extract(epoch FROM now()) * 1000)::bigint";

/// The statements, with the schema spelled in.
struct Statements {
    begin_one: String,
    resolve_one: String,
    begin_batch: String,
    resolve_batch: String,
    reclaim: String,
    take_over: String,
    release: String,
    load: String,
    prune: String,
    pending: String,
    decide_happened: String,
    decide_not: String,
}

impl Statements {
    fn new(s: &str) -> Statements {
        let r_columns = COLUMNS
            .split(", ")
            .map(|c| format!("r.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        Statements {
            begin_one: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms),
                 ins AS (
                    INSERT INTO {s}.records ({COLUMNS})
                    SELECT $1, $2, $3, 'declared', $4, nextval('{s}.tokens'),
                           ms + $5, ms, ms, ms + $6, NULL FROM now
                    ON CONFLICT (key) DO NOTHING
                    RETURNING {COLUMNS}
                 )
                 SELECT true, ins.*, now.ms FROM ins, now
                 UNION ALL SELECT false, {r_columns}, now.ms FROM {s}.records AS r, now
                    WHERE r.key = $1 AND NOT EXISTS (SELECT 1 FROM ins)"
            ),
            resolve_one: format!(
                "UPDATE {s}.records SET state = $3, resolution = $4, updated_at = {NOW_MS}
                 WHERE key = $1 AND token = $2 AND state IN ('declared', 'unknown')"
            ),
            begin_batch: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms),
                 u AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
                                            $5::int8[], $6::int8[])
                       AS u(key, tool, fingerprint, owner, lease, ttl)),
                 ins AS (
                    INSERT INTO {s}.records ({COLUMNS})
                    SELECT u.key, u.tool, u.fingerprint, 'declared', u.owner,
                           nextval('{s}.tokens'), now.ms + u.lease, now.ms, now.ms,
                           now.ms + u.ttl, NULL
                    FROM u, now
                    ON CONFLICT (key) DO NOTHING
                    RETURNING {COLUMNS}
                 )
                 SELECT true, ins.*, now.ms FROM ins, now
                 UNION ALL SELECT false, {r_columns}, now.ms FROM {s}.records AS r, now, u
                    WHERE r.key = u.key AND NOT EXISTS (SELECT 1 FROM ins WHERE ins.key = u.key)"
            ),
            resolve_batch: format!(
                "UPDATE {s}.records AS r SET state = u.state, resolution = u.resolution,
                        updated_at = {NOW_MS}
                 FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[])
                      AS u(key, token, state, resolution)
                 WHERE r.key = u.key AND r.token = u.token AND r.state IN ('declared', 'unknown')
                 RETURNING r.key"
            ),
            reclaim: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms)
                 UPDATE {s}.records AS r SET
                    tool = $2, fingerprint = $3, state = 'declared', owner = $4,
                    token = nextval('{s}.tokens'), lease_until = now.ms + $5,
                    created_at = now.ms, updated_at = now.ms, expires_at = now.ms + $6,
                    resolution = NULL
                 FROM now
                 WHERE r.key = $1 AND r.token = $7 AND r.state IN ('committed', 'failed')
                   AND r.expires_at <= now.ms
                 RETURNING r.token"
            ),
            take_over: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms)
                 UPDATE {s}.records AS r SET
                    state = 'declared', owner = $3, token = nextval('{s}.tokens'),
                    lease_until = now.ms + $4, updated_at = now.ms, resolution = NULL
                 FROM now
                 WHERE r.key = $1 AND r.token = $2 AND r.state IN ('declared', 'unknown')
                   AND r.lease_until <= now.ms
                 RETURNING r.token"
            ),
            release: format!(
                "DELETE FROM {s}.records WHERE key = $1 AND token = $2 AND state = 'declared'"
            ),
            load: format!("SELECT {COLUMNS} FROM {s}.records WHERE key = $1"),
            prune: format!(
                "DELETE FROM {s}.records
                 WHERE state IN ('committed', 'failed') AND expires_at <= {NOW_MS}"
            ),
            pending: format!(
                "SELECT {COLUMNS} FROM {s}.records
                 WHERE state IN ('declared', 'unknown') ORDER BY created_at, key"
            ),
            decide_happened: format!(
                "UPDATE {s}.records SET state = 'committed', resolution = $2,
                    token = nextval('{s}.tokens'), updated_at = {NOW_MS}
                 WHERE key = $1 AND state IN ('declared', 'unknown')"
            ),
            decide_not: format!(
                "DELETE FROM {s}.records WHERE key = $1 AND state IN ('declared', 'unknown')"
            ),
        }
    }
}

fn migration(s: &str) -> String {
    format!(
        "CREATE SCHEMA IF NOT EXISTS {s};
         CREATE SEQUENCE IF NOT EXISTS {s}.tokens AS bigint;
         CREATE TABLE IF NOT EXISTS {s}.records (
             key         text PRIMARY KEY,
             tool        text NOT NULL,
             fingerprint text NOT NULL,
             state       text NOT NULL CHECK (state IN ('declared', 'committed', 'failed', 'unknown')),
             owner       text NOT NULL,
             token       bigint NOT NULL,
             lease_until bigint NOT NULL,
             created_at  bigint NOT NULL,
             updated_at  bigint NOT NULL,
             expires_at  bigint NOT NULL,
             resolution  text
         ) WITH (fillfactor = 70);
         CREATE INDEX IF NOT EXISTS records_expiry ON {s}.records (expires_at);
         CREATE TABLE IF NOT EXISTS {s}.schema_version (
             version    integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         );
         INSERT INTO {s}.schema_version (version) VALUES ({SCHEMA_VERSION}) ON CONFLICT DO NOTHING;"
    )
}

fn valid_schema(schema: &str) -> bool {
    let mut chars = schema.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && schema.len() <= 63
}

/// The advisory lock that serialises migrations of one schema.
fn migration_lock(schema: &str) -> i64 {
    let hex = sha256_hex(format!("idemcheck migration {schema}").as_bytes());
    i64::from_str_radix(&hex[..15], 16).unwrap_or(0x1de3_c4ec)
}

fn record_from(row: &Row, at: usize) -> Result<Record, LedgerError> {
    let get_text = |i: usize| -> Result<String, LedgerError> {
        row.try_get::<_, String>(at + i)
            .map_err(|e| LedgerError::Corrupt(e.to_string()))
    };
    let get_i64 = |i: usize| -> Result<i64, LedgerError> {
        row.try_get::<_, i64>(at + i)
            .map_err(|e| LedgerError::Corrupt(e.to_string()))
    };
    let resolution: Option<String> = row
        .try_get(at + 10)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    let (state, resolution) = decode(&get_text(3)?, resolution.as_deref())?;
    Ok(Record {
        key: Key::from_stored(get_text(0)?),
        tool: get_text(1)?,
        fingerprint: Fingerprint::from_stored(get_text(2)?),
        state,
        owner: get_text(4)?,
        token: unsigned(get_i64(5)?),
        lease_until: Timestamp(unsigned(get_i64(6)?)),
        created_at: Timestamp(unsigned(get_i64(7)?)),
        updated_at: Timestamp(unsigned(get_i64(8)?)),
        expires_at: Timestamp(unsigned(get_i64(9)?)),
        resolution,
    })
}

/// The most claims (or settles) one batched statement carries.
const MAX_BATCH: usize = 64;

/// Counts a handle's claims (or settles) in flight; the first of a quiet moment runs alone.
struct InFlight<'a> {
    count: &'a std::sync::atomic::AtomicUsize,
    alone: bool,
}

impl<'a> InFlight<'a> {
    fn enter(count: &'a std::sync::atomic::AtomicUsize) -> InFlight<'a> {
        let before = count.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        InFlight {
            count,
            alone: before == 0,
        }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// One claim's parameters.
struct ClaimRow {
    key: String,
    tool: String,
    fingerprint: String,
    owner: String,
    lease: i64,
    ttl: i64,
}

/// What a claim statement found for one key: (claimed?, the record, the server's now), or
/// `None` when the statement neither inserted the key nor saw its row (a concurrent claim
/// committed after its snapshot).
type ClaimAnswer = Result<Option<(bool, Record, i64)>, LedgerError>;

/// One settle write's parameters.
struct SettleRow {
    key: String,
    token: i64,
    state: &'static str,
    resolution: String,
}

/// A kind of write the batcher groups: how one statement runs a batch of rows, and what
/// each row's caller is answered.
trait Batched: Sized + Send + Sync + 'static {
    /// What the batch statement returns.
    type Found: Send;
    /// What one caller is answered.
    type Answer: Send + 'static;
    /// The row's key (at most one row per key per statement).
    fn key(&self) -> &str;
    /// Run `rows` as one statement on `client`.
    fn run<'a>(
        client: &'a deadpool_postgres::Object,
        sql: &'a Statements,
        rows: &'a [&'a Self],
    ) -> impl std::future::Future<Output = Result<Self::Found, LedgerError>> + Send + 'a;
    /// This row's answer out of the statement's result.
    fn answer(found: &mut Self::Found, row: &Self) -> Self::Answer;
}

impl Batched for ClaimRow {
    type Found = std::collections::HashMap<String, (bool, Record, i64)>;
    type Answer = Option<(bool, Record, i64)>;
    fn key(&self) -> &str {
        &self.key
    }
    fn run<'a>(
        client: &'a deadpool_postgres::Object,
        sql: &'a Statements,
        rows: &'a [&'a Self],
    ) -> impl std::future::Future<Output = Result<Self::Found, LedgerError>> + Send + 'a {
        run_claims(client, sql, rows)
    }
    fn answer(found: &mut Self::Found, row: &Self) -> Self::Answer {
        found.remove(&row.key)
    }
}

impl Batched for SettleRow {
    type Found = std::collections::HashSet<String>;
    type Answer = bool;
    fn key(&self) -> &str {
        &self.key
    }
    fn run<'a>(
        client: &'a deadpool_postgres::Object,
        sql: &'a Statements,
        rows: &'a [&'a Self],
    ) -> impl std::future::Future<Output = Result<Self::Found, LedgerError>> + Send + 'a {
        run_settles(client, sql, rows)
    }
    fn answer(found: &mut Self::Found, row: &Self) -> Self::Answer {
        found.contains(&row.key)
    }
}

/// A row waiting for its batcher, with where to send the answer.
struct Job<R: Batched> {
    row: R,
    reply: oneshot::Sender<Result<R::Answer, LedgerError>>,
}

/// Take the next batch: everything queued (up to [`MAX_BATCH`]), at most one job per key —
/// a second job for a key waits for the next batch, so one statement never touches a row
/// twice — in key order, so any two writers lock rows in the same order.
async fn next_batch<R: Batched>(
    rx: &mut mpsc::UnboundedReceiver<Job<R>>,
    held: &mut Vec<Job<R>>,
) -> Option<Vec<Job<R>>> {
    if held.is_empty() {
        held.push(rx.recv().await?);
    }
    while held.len() < MAX_BATCH {
        match rx.try_recv() {
            Ok(job) => held.push(job),
            Err(_) => break,
        }
    }
    let mut seen = std::collections::HashSet::new();
    let (mut batch, later): (Vec<Job<R>>, Vec<Job<R>>) = std::mem::take(held)
        .into_iter()
        .partition(|j| seen.insert(j.row.key().to_string()));
    *held = later;
    batch.sort_by(|a, b| a.row.key().cmp(b.row.key()));
    Some(batch)
}

/// Group commit: every row queued while the previous statement ran goes into the next one —
/// one statement, one transaction, one WAL flush for all of them.
async fn batcher<R: Batched>(
    pool: Pool,
    sql: std::sync::Arc<Statements>,
    mut rx: mpsc::UnboundedReceiver<Job<R>>,
) {
    let mut held = Vec::new();
    while let Some(batch) = next_batch(&mut rx, &mut held).await {
        let rows: Vec<&R> = batch.iter().map(|j| &j.row).collect();
        let result = match pool.get().await.map_err(pg_error) {
            Ok(client) => R::run(&client, &sql, &rows).await,
            Err(e) => Err(e),
        };
        drop(rows);
        match result {
            Ok(mut found) => {
                for job in batch {
                    let answer = R::answer(&mut found, &job.row);
                    let _ = job.reply.send(Ok(answer));
                }
            }
            Err(e) => {
                for job in batch {
                    let _ = job.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

async fn run_claims(
    client: &deadpool_postgres::Object,
    sql: &Statements,
    batch: &[&ClaimRow],
) -> Result<std::collections::HashMap<String, (bool, Record, i64)>, LedgerError> {
    let stmt = client
        .prepare_cached(&sql.begin_batch)
        .await
        .map_err(pg_error)?;
    let keys: Vec<&str> = batch.iter().map(|j| j.key.as_str()).collect();
    let tools: Vec<&str> = batch.iter().map(|j| j.tool.as_str()).collect();
    let fps: Vec<&str> = batch.iter().map(|j| j.fingerprint.as_str()).collect();
    let owners: Vec<&str> = batch.iter().map(|j| j.owner.as_str()).collect();
    let leases: Vec<i64> = batch.iter().map(|j| j.lease).collect();
    let ttls: Vec<i64> = batch.iter().map(|j| j.ttl).collect();
    let rows = client
        .query(&stmt, &[&keys, &tools, &fps, &owners, &leases, &ttls])
        .await
        .map_err(pg_error)?;
    let mut found = std::collections::HashMap::with_capacity(rows.len());
    for row in &rows {
        let (claimed, record, now) = claim_row_from(row)?;
        found.insert(record.key.as_str().to_string(), (claimed, record, now));
    }
    Ok(found)
}

/// (claimed?, record, server now) out of a row of a claim statement.
fn claim_row_from(row: &Row) -> Result<(bool, Record, i64), LedgerError> {
    let claimed: bool = row
        .try_get(0)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    let record = record_from(row, 1)?;
    let now: i64 = row
        .try_get(12)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    Ok((claimed, record, now))
}

async fn run_settles(
    client: &deadpool_postgres::Object,
    sql: &Statements,
    batch: &[&SettleRow],
) -> Result<std::collections::HashSet<String>, LedgerError> {
    let stmt = client
        .prepare_cached(&sql.resolve_batch)
        .await
        .map_err(pg_error)?;
    let keys: Vec<&str> = batch.iter().map(|j| j.key.as_str()).collect();
    let tokens: Vec<i64> = batch.iter().map(|j| j.token).collect();
    let states: Vec<&str> = batch.iter().map(|j| j.state).collect();
    let resolutions: Vec<&str> = batch.iter().map(|j| j.resolution.as_str()).collect();
    let rows = client
        .query(&stmt, &[&keys, &tokens, &states, &resolutions])
        .await
        .map_err(pg_error)?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
}

/// How many times `begin` re-runs its statement when a concurrent claim committed after
/// the statement's snapshot (it then neither inserts nor sees the row).
const BEGIN_ATTEMPTS: usize = 16;

impl PostgresLedger {
    /// Connect to `url` (`postgres://user@host:port/db` or `host=… user=…`) with the
    /// default options, and create or check the `idemcheck` schema.
    pub async fn connect(url: &str) -> Result<PostgresLedger, LedgerError> {
        PostgresLedger::connect_with(url, PostgresOptions::default()).await
    }

    /// Connect to `url` and create or check the schema of `options`.
    pub async fn connect_with(
        url: &str,
        options: PostgresOptions,
    ) -> Result<PostgresLedger, LedgerError> {
        if !valid_schema(&options.schema) {
            return Err(unavailable(format!(
                "`{}` is not a valid schema name (lowercase letters, digits, `_`)",
                options.schema
            )));
        }
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| unavailable(format!("bad connection string: {e}")))?;
        config.connect_timeout(options.connect_timeout);
        if config.get_application_name().is_none() {
            config.application_name("idemcheck");
        }
        let build_sized = |config: tokio_postgres::Config, size: usize| {
            let manager = Manager::from_config(
                config,
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(options.op_timeout))
                .create_timeout(Some(options.connect_timeout))
                .recycle_timeout(Some(options.connect_timeout))
                .build()
                .map_err(unavailable)
        };
        let build = |config: tokio_postgres::Config| build_sized(config, options.pool_size);
        let pool = build(config.clone())?;
        let mut lazy_config = config.clone();
        let startup = match lazy_config.get_options() {
            Some(o) => format!("{o} -c synchronous_commit=off"),
            None => "-c synchronous_commit=off".to_string(),
        };
        lazy_config.options(startup);
        let settle_pool = if options.async_resolutions {
            build(lazy_config.clone())?
        } else {
            pool.clone()
        };
        let sql = std::sync::Arc::new(Statements::new(&options.schema));
        let (claims, claim_rx) = mpsc::unbounded_channel();
        let (settles, settle_rx) = mpsc::unbounded_channel();
        // The batchers run on a thread and runtime of their own, with connections of their
        // own, so a ledger outlives the runtime it was connected on (and its connections do
        // not depend on a caller's runtime). They stop when the last clone is dropped.
        let claim_pool = build_sized(config.clone(), 1)?;
        let settle_batch_pool = if options.async_resolutions {
            build_sized(lazy_config.clone(), 1)?
        } else {
            build_sized(config.clone(), 1)?
        };
        {
            let sql = sql.clone();
            std::thread::Builder::new()
                .name("idemcheck-pg-batch".into())
                .spawn(move || {
                    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    else {
                        return;
                    };
                    rt.block_on(async move {
                        let claims = tokio::spawn(batcher(claim_pool, sql.clone(), claim_rx));
                        let settles = tokio::spawn(batcher(settle_batch_pool, sql, settle_rx));
                        let _ = claims.await;
                        let _ = settles.await;
                    });
                })
                .map_err(|e| unavailable(format!("cannot start the batch thread: {e}")))?;
        }
        let ledger = PostgresLedger {
            pool,
            settle_pool,
            sql,
            schema: options.schema.clone(),
            op_timeout: options.op_timeout,
            claims,
            settles,
            claims_in_flight: Default::default(),
            settles_in_flight: Default::default(),
        };
        ledger.migrate().await?;
        Ok(ledger)
    }

    /// The schema holding the ledger.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    async fn migrate(&self) -> Result<(), LedgerError> {
        let schema = self.schema.clone();
        self.bounded(async {
            let mut client = self.pool.get().await.map_err(pg_error)?;
            let tx = client.transaction().await.map_err(pg_error)?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1)",
                &[&migration_lock(&schema)],
            )
            .await
            .map_err(pg_error)?;
            tx.batch_execute(&migration(&schema))
                .await
                .map_err(pg_error)?;
            let version: Option<i32> = tx
                .query_one(
                    &format!("SELECT max(version) FROM {schema}.schema_version"),
                    &[],
                )
                .await
                .map_err(pg_error)?
                .get(0);
            if version.unwrap_or(0) > SCHEMA_VERSION {
                return Err(LedgerError::Corrupt(format!(
                    "schema {schema} is at version {}; this idemcheck writes version {SCHEMA_VERSION}",
                    version.unwrap_or(0)
                )));
            }
            tx.commit().await.map_err(pg_error)
        })
        .await
    }

    /// Run one claim: directly when no other claim of this handle is in flight (no hop, no
    /// wait), else through the claim batcher, which puts every claim queued meanwhile into
    /// one statement (group commit).
    async fn claim_row(&self, row: ClaimRow) -> ClaimAnswer {
        let _in_flight = InFlight::enter(&self.claims_in_flight);
        if _in_flight.alone {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.begin_one)
                .await
                .map_err(pg_error)?;
            let rows = client
                .query(
                    &stmt,
                    &[
                        &row.key,
                        &row.tool,
                        &row.fingerprint,
                        &row.owner,
                        &row.lease,
                        &row.ttl,
                    ],
                )
                .await
                .map_err(pg_error)?;
            return rows.first().map(claim_row_from).transpose();
        }
        let (reply, answer) = oneshot::channel();
        self.claims
            .send(Job { row, reply })
            .map_err(|_| unavailable("the claim batcher has stopped"))?;
        answer
            .await
            .map_err(|_| unavailable("the claim batcher has stopped"))?
    }

    /// Run one settle write, directly or batched like [`Self::claim_row`].
    async fn settle_row(&self, row: SettleRow) -> Result<bool, LedgerError> {
        let _in_flight = InFlight::enter(&self.settles_in_flight);
        if _in_flight.alone {
            let client = self.settle_client().await?;
            let stmt = client
                .prepare_cached(&self.sql.resolve_one)
                .await
                .map_err(pg_error)?;
            let n = client
                .execute(&stmt, &[&row.key, &row.token, &row.state, &row.resolution])
                .await
                .map_err(pg_error)?;
            return Ok(n == 1);
        }
        let (reply, answer) = oneshot::channel();
        self.settles
            .send(Job { row, reply })
            .map_err(|_| unavailable("the settle batcher has stopped"))?;
        answer
            .await
            .map_err(|_| unavailable("the settle batcher has stopped"))?
    }

    async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, LedgerError>>,
    ) -> Result<T, LedgerError> {
        match tokio::time::timeout(self.op_timeout, fut).await {
            Ok(r) => r,
            Err(_) => Err(unavailable(format!(
                "no answer within {} ms",
                self.op_timeout.as_millis()
            ))),
        }
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, LedgerError> {
        self.pool.get().await.map_err(pg_error)
    }

    /// A connection for the writes that settle a claim.
    async fn settle_client(&self) -> Result<deadpool_postgres::Object, LedgerError> {
        self.settle_pool.get().await.map_err(pg_error)
    }
}

#[async_trait]
impl Ledger for PostgresLedger {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        self.bounded(async {
            let (key, fp) = (claim.key.as_str(), claim.fingerprint.as_str());
            let (lease, ttl) = (millis(claim.lease), millis(claim.ttl));
            for _ in 0..BEGIN_ATTEMPTS {
                let row = ClaimRow {
                    key: key.to_string(),
                    tool: claim.tool.to_string(),
                    fingerprint: fp.to_string(),
                    owner: claim.owner.to_string(),
                    lease,
                    ttl,
                };
                let (claimed, record, now) = match self.claim_row(row).await? {
                    Some(found) => found,
                    // A concurrent claim committed after the statement's snapshot: the
                    // next statement sees it.
                    None => continue,
                };
                if claimed {
                    return Ok(Begin::Claimed {
                        token: record.token,
                    });
                }
                if record.state.is_unresolved() || signed(record.expires_at.0) > now {
                    return Ok(Begin::Existing(record));
                }
                // A resolved record past its expiry counts as absent: take its place, in
                // one fenced statement (rare: only until `prune` deletes it).
                let client = self.client().await?;
                let reclaim = client
                    .prepare_cached(&self.sql.reclaim)
                    .await
                    .map_err(pg_error)?;
                let row = client
                    .query_opt(
                        &reclaim,
                        &[
                            &key,
                            &claim.tool,
                            &fp,
                            &claim.owner,
                            &lease,
                            &ttl,
                            &signed(record.token),
                        ],
                    )
                    .await
                    .map_err(pg_error)?;
                if let Some(row) = row {
                    return Ok(Begin::Claimed {
                        token: unsigned(row.get::<_, i64>(0)),
                    });
                }
                // Someone else changed it first: look again.
            }
            Err(unavailable(format!(
                "the claim of {key} kept racing with other claims"
            )))
        })
        .await
    }

    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.take_over)
                .await
                .map_err(pg_error)?;
            let row = client
                .query_opt(
                    &stmt,
                    &[
                        &claim.key.as_str(),
                        &signed(token),
                        &claim.owner,
                        &millis(claim.lease),
                    ],
                )
                .await
                .map_err(pg_error)?;
            Ok(row.map(|r| unsigned(r.get::<_, i64>(0))))
        })
        .await
    }

    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        let text = encode(resolution)?;
        let state = state_of(resolution).as_str();
        self.bounded(async {
            let row = SettleRow {
                key: key.as_str().to_string(),
                token: signed(token),
                state,
                resolution: text,
            };
            let settled = self.settle_row(row).await?;
            if settled {
                Ok(())
            } else {
                Err(LedgerError::Fenced {
                    key: key.clone(),
                    token,
                })
            }
        })
        .await
    }

    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        self.bounded(async {
            let client = self.settle_client().await?;
            let stmt = client
                .prepare_cached(&self.sql.release)
                .await
                .map_err(pg_error)?;
            let n = client
                .execute(&stmt, &[&key.as_str(), &signed(token)])
                .await
                .map_err(pg_error)?;
            if n == 1 {
                Ok(())
            } else {
                Err(LedgerError::Fenced {
                    key: key.clone(),
                    token,
                })
            }
        })
        .await
    }

    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.load)
                .await
                .map_err(pg_error)?;
            let row = client
                .query_opt(&stmt, &[&key.as_str()])
                .await
                .map_err(pg_error)?;
            row.map(|r| record_from(&r, 0)).transpose()
        })
        .await
    }

    async fn prune(&self) -> Result<u64, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.prune)
                .await
                .map_err(pg_error)?;
            client.execute(&stmt, &[]).await.map_err(pg_error)
        })
        .await
    }

    async fn pending(&self) -> Result<Vec<Record>, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.pending)
                .await
                .map_err(pg_error)?;
            let rows = client.query(&stmt, &[]).await.map_err(pg_error)?;
            rows.iter().map(|r| record_from(r, 0)).collect()
        })
        .await
    }

    async fn decide(&self, key: &Key, decision: &Decision) -> Result<(), LedgerError> {
        let text = match decision {
            Decision::Happened { result } => Some(encode(&Resolution::Committed {
                result: result.clone(),
            })?),
            Decision::DidNotHappen => None,
        };
        self.bounded(async {
            let client = self.client().await?;
            let n = match &text {
                Some(text) => {
                    let stmt = client
                        .prepare_cached(&self.sql.decide_happened)
                        .await
                        .map_err(pg_error)?;
                    client.execute(&stmt, &[&key.as_str(), text]).await
                }
                None => {
                    let stmt = client
                        .prepare_cached(&self.sql.decide_not)
                        .await
                        .map_err(pg_error)?;
                    client.execute(&stmt, &[&key.as_str()]).await
                }
            }
            .map_err(pg_error)?;
            if n == 1 {
                Ok(())
            } else {
                Err(LedgerError::NotFound(key.clone()))
            }
        })
        .await
    }
}
