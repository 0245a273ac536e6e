//! The ledger targets: a ledger (a SQLite file, or a schema of the PostgreSQL server named by
//! `IDEMCHECK_PG_URL`) holding one real record made by a guarded call, its row rewritten with
//! the input's fields, then read back by the store and more guarded calls. Any answer is
//! fine; a panic is a finding.
//!
//! An input counts as having reached the store only when the probe saw it there: the guarded
//! call made its record, and at least one of the input's fields was written into that record's
//! row (the store then read back a record carrying the input's data).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use idemcheck::ledger::{PostgresLedger, PostgresOptions};
use idemcheck::{Context, Scope, SqliteLedger, side_effect};
use serde::{Deserialize, Serialize};

/// The columns an input may set, and whether each is an integer.
const COLUMNS: &[(&str, bool)] = &[
    ("tool", false),
    ("fingerprint", false),
    ("state", false),
    ("owner", false),
    ("token", true),
    ("lease_until", true),
    ("created_at", true),
    ("updated_at", true),
    ("expires_at", true),
    ("resolution", false),
];

/// The system of record: how many times the effect happened.
#[derive(Default)]
struct Effects(Mutex<u32>);

#[derive(Clone, Serialize, Deserialize)]
struct Args {
    id: u32,
}

#[side_effect(key = [id], verify = find, max_retries = 0, timeout_ms = 1_000)]
async fn apply(effects: &Effects, args: Args) -> Result<String, String> {
    *effects.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
    Ok(format!("effect-{}", args.id))
}

async fn find(effects: &Effects, args: &Args) -> Result<Option<String>, String> {
    let n = *effects.0.lock().unwrap_or_else(|p| p.into_inner());
    Ok((n > 0).then(|| format!("effect-{}", args.id)))
}

static FILES: AtomicU64 = AtomicU64::new(0);

/// Rewrite a SQLite ledger's record with `text`'s fields and read it back; whether the input
/// reached the store (see the module's documentation).
pub(crate) fn record(text: &str) -> bool {
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return false;
    };
    let dir = std::env::temp_dir().join(format!(
        "idemcheck-fuzz-ledger-{}-{}",
        std::process::id(),
        FILES.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("ledger.sqlite3");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let reached = runtime.block_on(async {
        let Ok(ledger) = SqliteLedger::open(&path) else {
            return false;
        };
        let ctx = Context::new(ledger, Scope::run("fuzz")).with_max_wait(Duration::from_millis(5));
        let effects = Effects::default();
        if !apply::call(&ctx, &effects, Args { id: 1 })
            .await
            .is_completed()
        {
            return false;
        }
        let mut rewritten = false;
        if let Ok(conn) = rusqlite::Connection::open(&path) {
            let _ = conn.execute_batch("PRAGMA ignore_check_constraints = ON");
            for (column, integer) in COLUMNS {
                let Some(v) = fields.get(*column) else {
                    continue;
                };
                let sql = format!("UPDATE idemcheck_records SET {column} = ?1");
                let changed = match (v, integer) {
                    (serde_json::Value::Null, _) => conn.execute(&sql, [rusqlite::types::Null]),
                    (v, true) => conn.execute(&sql, [v.as_i64().unwrap_or(i64::MIN)]),
                    (serde_json::Value::String(s), false) => conn.execute(&sql, [s.as_str()]),
                    (v, false) => conn.execute(&sql, [v.to_string()]),
                };
                rewritten |= changed.is_ok_and(|n| n > 0);
            }
        }
        if fields.get("effect_exists") == Some(&serde_json::Value::Bool(false)) {
            *effects.0.lock().unwrap_or_else(|p| p.into_inner()) = 0;
        }
        let _ = apply::call(&ctx, &effects, Args { id: 1 }).await;
        let _ = apply::call(&ctx, &effects, Args { id: 2 }).await;
        rewritten
    });
    drop(runtime);
    let _ = std::fs::remove_dir_all(&dir);
    reached
}

/// The server and schema of the PostgreSQL target, opened once per process.
struct Pg {
    runtime: tokio::runtime::Runtime,
    ledger: PostgresLedger,
    client: tokio_postgres::Client,
    schema: String,
}

static PG: OnceLock<Result<Pg, String>> = OnceLock::new();

/// The PostgreSQL target's server and schema, or why there is none.
fn pg() -> Result<&'static Pg, &'static str> {
    PG.get_or_init(|| {
        let Some(url) = std::env::var("IDEMCHECK_PG_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            return Err("no PostgreSQL server (set IDEMCHECK_PG_URL)".to_string());
        };
        // The URL may hold a password: the reason names the variable, not its value.
        let unreachable =
            |e: &dyn std::fmt::Display| format!("no PostgreSQL server at IDEMCHECK_PG_URL ({e})");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| unreachable(&e))?;
        let schema = format!("idemcheck_fuzz_{}", std::process::id());
        let (ledger, client) = runtime.block_on(async {
            let ledger =
                PostgresLedger::connect_with(&url, PostgresOptions::default().schema(&schema))
                    .await
                    .map_err(|e| unreachable(&e))?;
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .map_err(|e| unreachable(&e))?;
            tokio::spawn(conn);
            Ok::<_, String>((ledger, client))
        })?;
        Ok(Pg {
            runtime,
            ledger,
            client,
            schema,
        })
    })
    .as_ref()
    .map_err(String::as_str)
}

/// Why the PostgreSQL target cannot run here (`IDEMCHECK_PG_URL` unset, or naming no server
/// this process can reach), or `None` when it can.
pub fn postgres_unavailable() -> Option<&'static str> {
    pg().err()
}

/// Whether the PostgreSQL target can run here (`IDEMCHECK_PG_URL` names a reachable server).
pub fn postgres_available() -> bool {
    pg().is_ok()
}

/// Drop the PostgreSQL target's schema.
pub fn postgres_cleanup() {
    if let Ok(pg) = pg() {
        let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE", pg.schema);
        let _ = pg.runtime.block_on(pg.client.batch_execute(&sql));
    }
}

/// A probe of the PostgreSQL target's plumbing: make a record through a guarded call, and
/// return how many rows an update by its key changed (1 when the target really reaches the
/// record it rewrites).
pub fn postgres_probe() -> u64 {
    let Ok(pg) = pg() else {
        return 0;
    };
    pg.runtime.block_on(async {
        let ctx = Context::new(pg.ledger.clone(), Scope::run("fuzz-probe")).with_owner("probe");
        let _ = apply::call(&ctx, &Effects::default(), Args { id: 1 }).await;
        let sql = format!(
            "UPDATE {}.records SET owner = 'probed' WHERE owner = 'probe'",
            pg.schema
        );
        pg.client.execute(&sql, &[]).await.unwrap_or(0)
    })
}

/// The same as [`record`] on the PostgreSQL server; without one no input reaches anything.
pub(crate) fn record_postgres(text: &str) -> bool {
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return false;
    };
    let Ok(pg) = pg() else {
        return false;
    };
    let n = FILES.fetch_add(1, Ordering::Relaxed);
    // Each input's record is the one its own owner made.
    let owner = format!("fuzz-{n}");
    pg.runtime.block_on(async {
        let ctx = Context::new(pg.ledger.clone(), Scope::run(owner.clone()))
            .with_owner(owner.clone())
            .with_max_wait(Duration::from_millis(5));
        let effects = Effects::default();
        if !apply::call(&ctx, &effects, Args { id: 1 })
            .await
            .is_completed()
        {
            return false;
        }
        let mut rewritten = false;
        // The owner column last: the others find the row by it.
        let columns = COLUMNS
            .iter()
            .filter(|(c, _)| *c != "owner")
            .chain(COLUMNS.iter().filter(|(c, _)| *c == "owner"));
        let key = owner.as_str();
        for (column, integer) in columns {
            let Some(v) = fields.get(*column) else {
                continue;
            };
            let sql = format!(
                "UPDATE {}.records SET {column} = $1 WHERE owner = $2",
                pg.schema
            );
            // Type or constraint errors leave the row as it was: that is the store's defence.
            let changed = match (v, integer) {
                (serde_json::Value::Null, true) => {
                    pg.client.execute(&sql, &[&None::<i64>, &key]).await
                }
                (serde_json::Value::Null, false) => {
                    pg.client.execute(&sql, &[&None::<String>, &key]).await
                }
                (v, true) => {
                    let i = v.as_i64().unwrap_or(i64::MIN);
                    pg.client.execute(&sql, &[&i, &key]).await
                }
                (serde_json::Value::String(s), false) => {
                    pg.client.execute(&sql, &[&s.as_str(), &key]).await
                }
                (v, false) => {
                    let s = v.to_string();
                    pg.client.execute(&sql, &[&s.as_str(), &key]).await
                }
            };
            rewritten |= changed.is_ok_and(|n| n > 0);
        }
        if fields.get("effect_exists") == Some(&serde_json::Value::Bool(false)) {
            *effects.0.lock().unwrap_or_else(|p| p.into_inner()) = 0;
        }
        let _ = apply::call(&ctx, &effects, Args { id: 1 }).await;
        rewritten
    })
}
