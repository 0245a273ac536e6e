//! The `ledger_record` target: a SQLite ledger file holding one real record (made by a guarded
//! call), its row rewritten with the input's fields, then read back by the store and a second
//! guarded call. Any answer is fine; a panic is a finding.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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

pub(crate) fn record(text: &str) {
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return;
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
    runtime.block_on(async {
        let Ok(ledger) = SqliteLedger::open(&path) else {
            return;
        };
        let ctx = Context::new(ledger, Scope::run("fuzz")).with_max_wait(Duration::from_millis(5));
        let effects = Effects::default();
        let _ = apply::call(&ctx, &effects, Args { id: 1 }).await;
        if let Ok(conn) = rusqlite::Connection::open(&path) {
            let _ = conn.execute_batch("PRAGMA ignore_check_constraints = ON");
            for (column, integer) in COLUMNS {
                let Some(v) = fields.get(*column) else {
                    continue;
                };
                let sql = format!("UPDATE idemcheck_records SET {column} = ?1");
                let _ = match (v, integer) {
                    (serde_json::Value::Null, _) => conn.execute(&sql, [rusqlite::types::Null]),
                    (v, true) => conn.execute(&sql, [v.as_i64().unwrap_or(i64::MIN)]),
                    (serde_json::Value::String(s), false) => conn.execute(&sql, [s.as_str()]),
                    (v, false) => conn.execute(&sql, [v.to_string()]),
                };
            }
        }
        if fields.get("effect_exists") == Some(&serde_json::Value::Bool(false)) {
            *effects.0.lock().unwrap_or_else(|p| p.into_inner()) = 0;
        }
        let _ = apply::call(&ctx, &effects, Args { id: 1 }).await;
        let _ = apply::call(&ctx, &effects, Args { id: 2 }).await;
    });
    drop(runtime);
    let _ = std::fs::remove_dir_all(&dir);
}
