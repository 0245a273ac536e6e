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
    begin: String,
    reclaim: String,
    take_over: String,
    resolve: String,
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
            begin: format!(
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
            resolve: format!(
                "UPDATE {s}.records SET state = $3, resolution = $4, updated_at = {NOW_MS}
                 WHERE key = $1 AND token = $2 AND state IN ('declared', 'unknown')"
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
        let build = |config: tokio_postgres::Config| {
            let manager = Manager::from_config(
                config,
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(options.pool_size)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(options.op_timeout))
                .create_timeout(Some(options.connect_timeout))
                .recycle_timeout(Some(options.connect_timeout))
                .build()
                .map_err(unavailable)
        };
        let pool = build(config.clone())?;
        let settle_pool = if options.async_resolutions {
            let mut lazy = config;
            let startup = match lazy.get_options() {
                Some(o) => format!("{o} -c synchronous_commit=off"),
                None => "-c synchronous_commit=off".to_string(),
            };
            lazy.options(startup);
            build(lazy)?
        } else {
            pool.clone()
        };
        let ledger = PostgresLedger {
            pool,
            settle_pool,
            sql: std::sync::Arc::new(Statements::new(&options.schema)),
            schema: options.schema.clone(),
            op_timeout: options.op_timeout,
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
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.begin)
                .await
                .map_err(pg_error)?;
            let (key, fp) = (claim.key.as_str(), claim.fingerprint.as_str());
            let (lease, ttl) = (millis(claim.lease), millis(claim.ttl));
            for _ in 0..BEGIN_ATTEMPTS {
                let rows = client
                    .query(&stmt, &[&key, &claim.tool, &fp, &claim.owner, &lease, &ttl])
                    .await
                    .map_err(pg_error)?;
                let Some(row) = rows.first() else {
                    // A concurrent claim committed after this statement's snapshot: the
                    // next statement sees it.
                    continue;
                };
                let claimed: bool = row
                    .try_get(0)
                    .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
                let record = record_from(row, 1)?;
                if claimed {
                    return Ok(Begin::Claimed {
                        token: record.token,
                    });
                }
                let now: i64 = row
                    .try_get(12)
                    .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
                if record.state.is_unresolved() || signed(record.expires_at.0) > now {
                    return Ok(Begin::Existing(record));
                }
                // A resolved record past its expiry counts as absent: take its place, in
                // one fenced statement (rare: only until `prune` deletes it).
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
            let client = self.settle_client().await?;
            let stmt = client
                .prepare_cached(&self.sql.resolve)
                .await
                .map_err(pg_error)?;
            let n = client
                .execute(&stmt, &[&key.as_str(), &signed(token), &state, &text])
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
