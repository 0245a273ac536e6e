//! The ledger stores: the one conformance suite against memory, SQLite and PostgreSQL;
//! 16 racing worker threads over 1,000 keys on one SQLite file and on PostgreSQL; restarts,
//! secrets at rest, migrations, background pruning, and a store that fails mid-call.
//!
//! PostgreSQL cases read `IDEMCHECK_PG_URL`. Without it they are skipped with a message —
//! unless `CI` or `IDEMCHECK_REQUIRE_PG=1` is set, where a missing URL fails the test.
//! `.ci/run` starts a throwaway server and sets both.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use idemcheck::ledger::conformance::{self, Harness, Store};
use idemcheck::ledger::{
    Begin, Claim, Ledger, LedgerAdmin, PostgresLedger, PostgresOptions, RecordState, Resolution,
    Secret, SqliteLedger, SqliteOptions, Synchronous, prune_periodically,
};
use idemcheck::{
    Context, Failure, Fingerprint, Key, LedgerError, MemoryLedger, NotCompleted, Outcome, Scope,
    SystemClock, VirtualClock, side_effect,
};
use serde::{Deserialize, Serialize};

// ------------------------------------------------------------------------------ plumbing

/// Whether this run must exercise PostgreSQL (CI, or asked for).
fn pg_required() -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
            .unwrap_or(false)
    };
    set("CI") || set("IDEMCHECK_REQUIRE_PG")
}

/// The PostgreSQL URL, or `None` (with a clear message) when the cases are skipped.
fn pg_url(test: &str) -> Option<String> {
    pg_var(test, "IDEMCHECK_PG_URL")
}

/// The environment variable `name` that .ci/run exports for the PostgreSQL cases, or `None`
/// (with a message on the real stderr) when they are skipped; a failure when required.
fn pg_var(test: &str, name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => Some(value),
        _ => {
            assert!(
                !pg_required(),
                "{test}: {name} is not set, but this run requires the PostgreSQL cases \
                 (CI or IDEMCHECK_REQUIRE_PG=1); .ci/run starts a throwaway server and sets it"
            );
            // Straight to the process's stderr: libtest captures `eprintln!`, and a skip must show.
            {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr(), "{}", skip_line(test, name));
            }
            None
        }
    }
}

/// The SKIPPED line of `test` when the variable `name` is not set: it names that variable,
/// and its example is that variable's own (as .ci/run sets it).
fn skip_line(test: &str, name: &str) -> String {
    let hint = match name {
        "IDEMCHECK_PG_URL" => {
            "e.g. IDEMCHECK_PG_URL=postgres://postgres@127.0.0.1:5432/postgres".to_string()
        }
        "IDEMCHECK_PG_TLS_URL" => "e.g. IDEMCHECK_PG_TLS_URL=postgres://idemcheck_tls:PASSWORD@127.0.0.1:5432/postgres, a role that may connect over TLS only".to_string(),
        "IDEMCHECK_PG_TLS_CA" => {
            "the path of the CA certificate that signed the server's".to_string()
        }
        "IDEMCHECK_PG_TLS_OTHER_CA" => {
            "the path of a CA certificate that did not sign the server's".to_string()
        }
        other => format!("{other}: see .ci/run"),
    };
    format!(
        "SKIPPED {test}: the PostgreSQL cases did not run — set {name} ({hint}; .ci/run shows how) to run them"
    )
}

/// Issue 27: a skip named `IDEMCHECK_PG_TLS_URL` while showing `IDEMCHECK_PG_URL`. Each line
/// names its own variable, and no other, on one line.
#[test]
fn each_skip_line_names_its_own_variable_only() {
    const VARS: [&str; 4] = [
        "IDEMCHECK_PG_URL",
        "IDEMCHECK_PG_TLS_URL",
        "IDEMCHECK_PG_TLS_CA",
        "IDEMCHECK_PG_TLS_OTHER_CA",
    ];
    for name in VARS {
        let line = skip_line("t", name);
        assert!(line.starts_with("SKIPPED t: "), "{line}");
        assert!(line.contains(&format!("set {name} (")), "{line}");
        assert!(!line.contains('\n'), "{line}");
        for other in VARS.iter().filter(|v| **v != name) {
            assert!(!line.contains(other), "{name}: {line}");
        }
    }
}

/// What the TLS cases need from .ci/run: the URL of the role that may connect over TLS only
/// (with its password), the CA that signed the server's certificate, a CA that did not.
struct PgTls {
    url: String,
    password: String,
    ca: String,
    other_ca: String,
}

fn pg_tls(test: &str) -> Option<PgTls> {
    let url = pg_var(test, "IDEMCHECK_PG_TLS_URL")?;
    let ca = pg_var(test, "IDEMCHECK_PG_TLS_CA")?;
    let other_ca = pg_var(test, "IDEMCHECK_PG_TLS_OTHER_CA")?;
    let password = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('@'))
        .and_then(|(user, _)| user.split_once(':'))
        .map(|(_, password)| password.to_string())
        .expect("IDEMCHECK_PG_TLS_URL holds user:password@");
    Some(PgTls {
        url,
        password,
        ca,
        other_ca,
    })
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}_{}_{nanos:x}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(prefix: &str) -> TempDir {
        let dir = std::env::temp_dir().join(unique(prefix));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Drop the schemas a test created (a local server is left as it was found).
async fn drop_schemas(url: &str, schemas: &[String]) {
    let Ok((client, conn)) = tokio_postgres::connect(url, tokio_postgres::NoTls).await else {
        return;
    };
    let task = tokio::spawn(conn);
    for s in schemas {
        let _ = client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {s} CASCADE"))
            .await;
    }
    drop(client);
    let _ = task.await;
}

// --------------------------------------------------------------------- conformance suite

struct MemoryHarness;

#[async_trait]
impl Harness for MemoryHarness {
    fn name(&self) -> String {
        "memory".into()
    }

    async fn open(&self, handles: usize) -> Result<Store, String> {
        let clock = VirtualClock::starting_at(idemcheck::Timestamp(1_700_000_000_000));
        let ledger = MemoryLedger::with_clock(Arc::new(clock.clone()))
            .with_tombstone_window(conformance::TOMBSTONE_WINDOW);
        let handles = (0..handles)
            .map(|_| Arc::new(ledger.clone()) as Arc<dyn LedgerAdmin>)
            .collect();
        Ok(Store::virtual_time(handles, clock))
    }
}

struct SqliteHarness {
    dir: TempDir,
    synchronous: Synchronous,
}

#[async_trait]
impl Harness for SqliteHarness {
    fn name(&self) -> String {
        format!("sqlite (synchronous = {:?})", self.synchronous)
    }

    async fn open(&self, handles: usize) -> Result<Store, String> {
        let clock = VirtualClock::starting_at(idemcheck::Timestamp(1_700_000_000_000));
        let path = self.dir.file(&format!("{}.sqlite3", unique("case")));
        let options = SqliteOptions::default()
            .synchronous(self.synchronous)
            .clock(Arc::new(clock.clone()))
            .tombstone_window(conformance::TOMBSTONE_WINDOW);
        // Each handle is its own connection on its own writer thread, as a separate
        // process would have.
        let handles = (0..handles)
            .map(|_| {
                SqliteLedger::open_with(&path, options.clone())
                    .map(|l| Arc::new(l) as Arc<dyn LedgerAdmin>)
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Store::virtual_time(handles, clock))
    }
}

struct PostgresHarness {
    url: String,
    schemas: Mutex<Vec<String>>,
    async_resolutions: bool,
}

#[async_trait]
impl Harness for PostgresHarness {
    fn name(&self) -> String {
        format!("postgres (async_resolutions = {})", self.async_resolutions)
    }

    async fn open(&self, handles: usize) -> Result<Store, String> {
        let schema = unique("conformance");
        self.schemas.lock().unwrap().push(schema.clone());
        let mut ledgers: Vec<Arc<dyn LedgerAdmin>> = Vec::new();
        for _ in 0..handles {
            // Each handle is its own pool, as a separate worker would have.
            let l = PostgresLedger::connect_with(
                &self.url,
                PostgresOptions::default()
                    .schema(schema.clone())
                    .pool_size(4)
                    .async_resolutions(self.async_resolutions)
                    .tombstone_window(conformance::TOMBSTONE_WINDOW),
            )
            .await
            .map_err(|e| e.to_string())?;
            ledgers.push(Arc::new(l));
        }
        // The database's clock decides leases: time passes for real.
        Ok(Store::real_time(ledgers))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_passes_the_conformance_suite() {
    conformance::run(&MemoryHarness).await.assert_passed();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_passes_the_conformance_suite() {
    for synchronous in [Synchronous::Full, Synchronous::Normal] {
        let harness = SqliteHarness {
            dir: TempDir::new("idemcheck-conformance"),
            synchronous,
        };
        conformance::run(&harness).await.assert_passed();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_passes_the_conformance_suite() {
    let Some(url) = pg_url("postgres_passes_the_conformance_suite") else {
        return;
    };
    for async_resolutions in [false, true] {
        let harness = PostgresHarness {
            url: url.clone(),
            schemas: Mutex::default(),
            async_resolutions,
        };
        let report = conformance::run(&harness).await;
        let schemas = harness.schemas.lock().unwrap().clone();
        drop_schemas(&url, &schemas).await;
        report.assert_passed();
        assert_eq!(report.passed.len(), conformance::CASES.len());
    }
}

#[tokio::test]
async fn every_store_runs_every_case() {
    // Nobody skips anything: the three reports list every case as passed (checked above);
    // here the suite's own table is checked to be non-trivial.
    assert!(conformance::CASES.len() >= 25, "{:?}", conformance::CASES);
}

// -------------------------------------------------------------------- a guarded test tool

/// The system of record of the race tests: how many times each operation took effect.
#[derive(Default)]
struct Effects {
    counts: Mutex<HashMap<u32, u32>>,
}

#[derive(Clone, Serialize, Deserialize)]
struct ApplyArgs {
    id: u32,
}

#[side_effect(key = [id], verify = find_effect, max_retries = 0, timeout_ms = 30_000)]
async fn apply(effects: &Effects, args: ApplyArgs) -> Result<String, String> {
    let mut counts = effects.counts.lock().unwrap();
    *counts.entry(args.id).or_default() += 1;
    Ok(format!("effect-{}", args.id))
}

async fn find_effect(effects: &Effects, args: &ApplyArgs) -> Result<Option<String>, String> {
    let counts = effects.counts.lock().unwrap();
    Ok(counts
        .get(&args.id)
        .filter(|n| **n > 0)
        .map(|_| format!("effect-{}", args.id)))
}

const RACE_WORKERS: usize = 16;
const RACE_KEYS: u32 = 1_000;

/// 16 OS threads, each with its own runtime and its own ledger handle, wait on a barrier
/// and then call the same 1,000 operations in the same order. A worker that finds another
/// in flight gets Unknown (no waiting) and asks again after its pass.
fn race(open: Arc<dyn Fn() -> Arc<dyn Ledger> + Send + Sync>) -> (Arc<Effects>, Duration) {
    let effects = Arc::new(Effects::default());
    let barrier = Arc::new(Barrier::new(RACE_WORKERS));
    let started = Instant::now();
    let workers: Vec<_> = (0..RACE_WORKERS)
        .map(|w| {
            let (effects, barrier, open) = (effects.clone(), barrier.clone(), open.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    let ctx = Context::new(open(), Scope::run("race"))
                        .with_owner(format!("thread-{w}"))
                        .with_max_wait(Duration::ZERO);
                    barrier.wait();
                    let mut later = Vec::new();
                    for id in 0..RACE_KEYS {
                        match apply::call(&ctx, &effects, ApplyArgs { id }).await {
                            Outcome::Completed(r) => assert_eq!(r, format!("effect-{id}")),
                            Outcome::Unknown(_) => later.push(id),
                            other => panic!("worker {w}, op {id}: {other:?}"),
                        }
                    }
                    for id in later {
                        let mut tries = 0;
                        loop {
                            match apply::call(&ctx, &effects, ApplyArgs { id }).await {
                                Outcome::Completed(r) => {
                                    assert_eq!(r, format!("effect-{id}"));
                                    break;
                                }
                                Outcome::Unknown(_) if tries < 1_000 => {
                                    tries += 1;
                                    tokio::time::sleep(Duration::from_millis(5)).await;
                                }
                                other => panic!("worker {w}, op {id} after the race: {other:?}"),
                            }
                        }
                    }
                })
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a race worker panicked");
    }
    (effects, started.elapsed())
}

fn assert_exactly_once(effects: &Effects, store: &str, took: Duration) {
    let counts = effects.counts.lock().unwrap();
    let executed: u32 = counts.values().sum();
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "{store}: executed more than once: {twice:?}"
    );
    assert_eq!(counts.len() as u32, RACE_KEYS, "{store}: keys missing");
    assert_eq!(executed, RACE_KEYS);
    eprintln!(
        "{store}: {RACE_WORKERS} threads x {RACE_KEYS} keys -> {executed} executions, \
         each key exactly once ({} ms)",
        took.as_millis()
    );
}

#[test]
fn sqlite_race_16_threads_over_1000_keys_executes_each_once() {
    let dir = TempDir::new("idemcheck-race");
    let path = dir.file("ledger.sqlite3");
    let (effects, took) = race(Arc::new(move || {
        Arc::new(SqliteLedger::open(&path).expect("open")) as Arc<dyn Ledger>
    }));
    assert_exactly_once(&effects, "sqlite", took);
}

#[test]
fn postgres_race_16_threads_over_1000_keys_executes_each_once() {
    let Some(url) = pg_url("postgres_race_16_threads_over_1000_keys_executes_each_once") else {
        return;
    };
    let schema = unique("race");
    let open_url = url.clone();
    let open_schema = schema.clone();
    let (effects, took) = race(Arc::new(move || {
        let (url, schema) = (open_url.clone(), open_schema.clone());
        // Each worker its own pool; connected on a helper runtime so `open` stays sync.
        let ledger = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(PostgresLedger::connect_with(
                    &url,
                    PostgresOptions::default().schema(schema).pool_size(2),
                ))
        })
        .join()
        .unwrap()
        .expect("connect");
        Arc::new(ledger) as Arc<dyn Ledger>
    }));
    assert_exactly_once(&effects, "postgres", took);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(drop_schemas(&url, &[schema]));
}

// --------------------------------------------------------------------- store specifics

fn test_claim<'a>(key: &'a Key, fp: &'a Fingerprint, owner: &'a str) -> Claim<'a> {
    Claim {
        key,
        fingerprint: fp,
        tool: "t",
        owner,
        lease: Duration::from_secs(60),
        ttl: Duration::from_secs(3600),
    }
}

#[tokio::test]
async fn sqlite_records_survive_a_restart_and_quick_start_needs_no_setup() {
    let dir = TempDir::new("idemcheck-restart");
    let path = dir.file("nested-not-needed.sqlite3");
    let key = Key::from_stored("k".repeat(64));
    let fp = Fingerprint::from_stored("f".repeat(64));
    {
        let ledger = SqliteLedger::open(&path).expect("a new file needs no setup");
        assert_eq!(
            ledger.synchronous(),
            Synchronous::Full,
            "durable by default"
        );
        let Begin::Claimed { token } = ledger.begin(&test_claim(&key, &fp, "a")).await.unwrap()
        else {
            panic!("claim")
        };
        ledger
            .resolve(
                &key,
                token,
                &Resolution::Committed {
                    result: serde_json::json!({"ok": true}),
                },
            )
            .await
            .unwrap();
    }
    // Another "process" (a new handle, new connection) after the first is gone.
    let reopened = SqliteLedger::open(&path).unwrap();
    let Begin::Existing(r) = reopened.begin(&test_claim(&key, &fp, "b")).await.unwrap() else {
        panic!("the record did not survive")
    };
    assert_eq!(r.state, RecordState::Committed);
    // The quick start's guarded call, through the macro, on a file ledger.
    let effects = Effects::default();
    let ctx = Context::new(reopened, Scope::run("quick-start"));
    let first = apply::call(&ctx, &effects, ApplyArgs { id: 7 }).await;
    let again = apply::call(&ctx, &effects, ApplyArgs { id: 7 }).await;
    assert_eq!(first, Outcome::Completed("effect-7".to_string()));
    assert_eq!(again, first);
    assert_eq!(effects.counts.lock().unwrap()[&7], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_opens_concurrently_and_migrates_once() {
    let dir = TempDir::new("idemcheck-migrate");
    let path = dir.file("ledger.sqlite3");
    let opens: Vec<_> = (0..8)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || SqliteLedger::open(&path).map(|_| ()))
        })
        .collect();
    for o in opens {
        o.join().unwrap().expect("concurrent open");
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let version: i64 = conn
        .query_row(
            "SELECT value FROM idemcheck_meta WHERE name = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, 2);
}

/// A ledger file as idemcheck wrote it before tombstones (schema version 1), frozen here:
/// opening it migrates it (the state's CHECK constraint rebuilt to accept `pruned`), every
/// record kept, the token counter and its triggers intact.
const SQLITE_SCHEMA_V1: &str = "
CREATE TABLE idemcheck_records (
    key         TEXT PRIMARY KEY NOT NULL,
    tool        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('declared', 'committed', 'failed', 'unknown')),
    owner       TEXT NOT NULL,
    token       INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    resolution  TEXT
) WITHOUT ROWID;
CREATE INDEX idemcheck_records_pending
    ON idemcheck_records (created_at, key) WHERE state IN ('declared', 'unknown');
CREATE INDEX idemcheck_records_expiry
    ON idemcheck_records (expires_at) WHERE state IN ('committed', 'failed');
CREATE TABLE idemcheck_meta (
    name  TEXT PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO idemcheck_meta (name, value) VALUES ('last_token', 0), ('schema_version', 1);
CREATE TRIGGER idemcheck_token_on_insert AFTER INSERT ON idemcheck_records
BEGIN
    UPDATE idemcheck_meta SET value = NEW.token WHERE name = 'last_token' AND value < NEW.token;
END;
CREATE TRIGGER idemcheck_token_on_update AFTER UPDATE OF token ON idemcheck_records
BEGIN
    UPDATE idemcheck_meta SET value = NEW.token WHERE name = 'last_token' AND value < NEW.token;
END;
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_migrates_a_version_1_file_to_tombstones() {
    let dir = TempDir::new("idemcheck-migrate-v1");
    let path = dir.file("ledger.sqlite3");
    let (old, open) = (
        Key::from_stored("a".repeat(64)),
        Key::from_stored("b".repeat(64)),
    );
    let fp = Fingerprint::from_stored("f".repeat(64));
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
        conn.execute_batch(SQLITE_SCHEMA_V1).unwrap();
        // A result committed at t = 1,000 ms, replayed until t = 2,000; a claim left open.
        conn.execute_batch(&format!(
            "INSERT INTO idemcheck_records VALUES
                ('{old}', 't', '{fp}', 'committed', 'w', 7, 1500, 1000, 1100, 2000,
                 '{{\"state\":\"committed\",\"result\":\"ch_1\"}}'),
                ('{open}', 't', '{fp}', 'declared', 'w', 8, 60000, 1000, 1000, 4000, NULL);",
            old = old.as_str(),
            open = open.as_str(),
            fp = fp.as_str()
        ))
        .unwrap();
    }
    let clock = VirtualClock::starting_at(idemcheck::Timestamp(1_500));
    let options = SqliteOptions::default()
        .clock(Arc::new(clock.clone()))
        .tombstone_window(Duration::from_secs(60));
    let ledger = SqliteLedger::open_with(&path, options.clone()).expect("a version 1 file opens");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row(
            "SELECT value FROM idemcheck_meta WHERE name = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, 2);
    let mut objects: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND name LIKE 'idemcheck%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    objects.retain(|n| !n.starts_with("sqlite_autoindex"));
    assert_eq!(
        objects,
        [
            // The decision log's index: a version 1 file gains the log too.
            "idemcheck_decisions_key",
            "idemcheck_records_expiry",
            "idemcheck_records_pending",
            "idemcheck_token_on_insert",
            "idemcheck_token_on_update"
        ]
    );
    // Every record kept, as it was.
    let r = ledger
        .load(&old)
        .await
        .unwrap()
        .expect("the committed record");
    assert_eq!(r.state, RecordState::Committed);
    assert_eq!(r.token, 7);
    assert_eq!(
        r.resolution,
        Some(Resolution::Committed {
            result: serde_json::json!("ch_1")
        })
    );
    assert_eq!(ledger.pending().await.unwrap().len(), 1);
    // Past its TTL it is a tombstone, and prune can write one (version 1 refused `pruned`).
    clock.advance(Duration::from_millis(1_000));
    assert_eq!(ledger.prune().await.unwrap(), 1);
    let (state, result): (String, Option<String>) = conn
        .query_row(
            "SELECT state, resolution FROM idemcheck_records WHERE key = ?1",
            [old.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((state.as_str(), result), ("pruned", None));
    let Begin::Existing(seen) = ledger.begin(&test_claim(&old, &fp, "x")).await.unwrap() else {
        panic!("a tombstone was claimed as new")
    };
    assert_eq!(seen.state, RecordState::Pruned);
    // The token counter survived the rebuild: a new claim never reuses a token.
    let Begin::Claimed { token } = ledger
        .begin(&test_claim(&Key::from_stored("c".repeat(64)), &fp, "x"))
        .await
        .unwrap()
    else {
        panic!("claim")
    };
    assert_eq!(token, 9);
    // Opening the migrated file again changes nothing.
    drop(ledger);
    SqliteLedger::open_with(&path, options).expect("reopen");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM idemcheck_records", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 3);
}

#[derive(Clone, Serialize, Deserialize)]
struct IssueArgs {
    account: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ApiKey {
    id: String,
    secret: Secret<String>,
}

const CLEAR_SECRET: &str = "sk_live_51HnotStoredInClearText9f8e7d";

#[side_effect(key = [account], verify = find_key, max_retries = 0)]
async fn issue_key(issued: &Mutex<Vec<String>>, args: IssueArgs) -> Result<ApiKey, String> {
    issued.lock().unwrap().push(args.account.clone());
    Ok(ApiKey {
        id: format!("key_{}", args.account),
        secret: Secret::new(CLEAR_SECRET.to_string()),
    })
}

async fn find_key(
    _issued: &Mutex<Vec<String>>,
    _args: &IssueArgs,
) -> Result<Option<ApiKey>, String> {
    Err("the key service has no lookup".into())
}

async fn issue_twice(ledger: impl Ledger) -> (ApiKey, ApiKey) {
    let issued = Mutex::new(Vec::new());
    let ctx = Context::new(ledger, Scope::run("secrets"));
    let args = IssueArgs {
        account: "acme".into(),
    };
    let first = issue_key::call(&ctx, &issued, args.clone())
        .await
        .completed()
        .unwrap();
    let replay = issue_key::call(&ctx, &issued, args)
        .await
        .completed()
        .unwrap();
    assert_eq!(issued.lock().unwrap().len(), 1);
    assert_eq!(first.secret.revealed().unwrap(), CLEAR_SECRET);
    assert!(replay.secret.is_withheld(), "{replay:?}");
    assert!(replay.secret.matches(&CLEAR_SECRET.to_string()));
    assert_eq!(replay.id, first.id);
    (first, replay)
}

#[tokio::test]
async fn sqlite_keeps_no_secret_in_clear_on_disk() {
    let dir = TempDir::new("idemcheck-secret");
    let path = dir.file("ledger.sqlite3");
    let ledger = SqliteLedger::open(&path).unwrap();
    issue_twice(ledger.clone()).await;
    // Every byte SQLite wrote, the ledger still open: the database, its WAL (where every
    // commit lands first), anything beside it.
    let mut scanned = 0;
    for entry in std::fs::read_dir(&dir.0).unwrap() {
        let Ok(bytes) = std::fs::read(entry.unwrap().path()) else {
            continue;
        };
        scanned += bytes.len();
        let hay = String::from_utf8_lossy(&bytes);
        assert!(!hay.contains(CLEAR_SECRET), "secret on disk");
        assert!(!hay.contains("sk_live_51H"), "part of the secret on disk");
    }
    assert!(scanned > 0);
    drop(ledger);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keeps_no_secret_in_clear_and_migrates_idempotently() {
    let Some(url) = pg_url("postgres_keeps_no_secret_in_clear_and_migrates_idempotently") else {
        return;
    };
    let schema = unique("secrets");
    // 16 workers starting at once on a new schema: one migration, no error.
    let mut connects = Vec::new();
    for _ in 0..16 {
        let (url, schema) = (url.clone(), schema.clone());
        connects.push(tokio::spawn(async move {
            PostgresLedger::connect_with(&url, PostgresOptions::default().schema(schema)).await
        }));
    }
    let mut ledgers = Vec::new();
    for c in connects {
        ledgers.push(c.await.unwrap().expect("concurrent migration"));
    }
    issue_twice(ledgers.pop().unwrap()).await;
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let rows = client
        .query(&format!("SELECT resolution FROM {schema}.records"), &[])
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    let stored: String = rows[0].get(0);
    assert!(!stored.contains(CLEAR_SECRET), "secret stored: {stored}");
    assert!(stored.contains("$idemcheck_withheld"), "{stored}");
    let versions: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM {schema}.schema_version"),
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(versions, 1);
    // Migrating again (a restart) changes nothing.
    PostgresLedger::connect_with(&url, PostgresOptions::default().schema(schema.clone()))
        .await
        .expect("second migration");
    drop(client);
    drop_schemas(&url, &[schema]).await;
}

/// A schema as idemcheck created it before tombstones (version 1), frozen here.
fn postgres_schema_v1(s: &str) -> String {
    format!(
        "CREATE SCHEMA {s};
         CREATE SEQUENCE {s}.tokens AS bigint;
         CREATE TABLE {s}.records (
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
         CREATE INDEX records_expiry ON {s}.records (expires_at);
         CREATE TABLE {s}.schema_version (
             version    integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         );
         INSERT INTO {s}.schema_version (version) VALUES (1);"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_migrates_a_version_1_schema_to_tombstones() {
    let Some(url) = pg_url("postgres_migrates_a_version_1_schema_to_tombstones") else {
        return;
    };
    let schema = unique("migrate_v1");
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&postgres_schema_v1(&schema))
        .await
        .unwrap();
    let fp = Fingerprint::from_stored("f".repeat(64));
    let old = Key::from_stored("a".repeat(64));
    // A result whose TTL ended a minute ago (by the server's clock).
    client
        .execute(
            &format!(
                "INSERT INTO {schema}.records VALUES ($1, 't', $2, 'committed', 'w',
                    nextval('{schema}.tokens'), 0, 1000, 1000,
                    (extract(epoch FROM now()) * 1000)::bigint - 60000,
                    '{{\"state\":\"committed\",\"result\":\"ch_1\"}}')"
            ),
            &[&old.as_str(), &fp.as_str()],
        )
        .await
        .unwrap();
    // Several workers at once: one upgrade, under the migration lock.
    let mut connects = Vec::new();
    for _ in 0..4 {
        let (url, schema) = (url.clone(), schema.clone());
        connects.push(tokio::spawn(async move {
            PostgresLedger::connect_with(&url, PostgresOptions::default().schema(schema)).await
        }));
    }
    let mut ledgers = Vec::new();
    for c in connects {
        ledgers.push(c.await.unwrap().expect("a version 1 schema is upgraded"));
    }
    let ledger = ledgers.pop().unwrap();
    let versions: Vec<i32> = client
        .query(
            &format!("SELECT version FROM {schema}.schema_version ORDER BY version"),
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, [1, 2]);
    // The record is kept; past its TTL it is a tombstone, which prune can now write.
    let seen = ledger.load(&old).await.unwrap().expect("kept");
    assert_eq!(seen.state, RecordState::Pruned);
    assert_eq!(ledger.prune().await.unwrap(), 1);
    let state: String = client
        .query_one(
            &format!("SELECT state FROM {schema}.records WHERE key = $1"),
            &[&old.as_str()],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(state, "pruned");
    let Begin::Existing(r) = ledger.begin(&test_claim(&old, &fp, "x")).await.unwrap() else {
        panic!("a tombstone was claimed as new")
    };
    assert_eq!(r.state, RecordState::Pruned);
    // Connecting again changes nothing.
    PostgresLedger::connect_with(&url, PostgresOptions::default().schema(schema.clone()))
        .await
        .expect("second migration");
    let versions: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM {schema}.schema_version"),
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(versions, 2);
    drop((ledger, ledgers, client));
    drop_schemas(&url, &[schema]).await;
}

#[tokio::test]
async fn postgres_rejects_a_bad_schema_name_and_an_unreachable_server() {
    let bad = PostgresLedger::connect_with(
        "postgres://nobody@127.0.0.1:1/none",
        PostgresOptions::default().schema("Robert'); DROP TABLE students;--"),
    )
    .await;
    assert!(
        matches!(&bad, Err(LedgerError::Unavailable(m)) if m.contains("schema name")),
        "{bad:?}"
    );
    // Nothing listens on port 1: a clear error, quickly.
    let started = Instant::now();
    let down = PostgresLedger::connect_with(
        "postgres://nobody@127.0.0.1:1/none",
        PostgresOptions::default().connect_timeout(Duration::from_secs(2)),
    )
    .await;
    assert!(matches!(down, Err(LedgerError::Unavailable(_))), "{down:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_pruning_deletes_expired_records_only() {
    let dir = TempDir::new("idemcheck-prune");
    let path = dir.file("ledger.sqlite3");
    let ledger = SqliteLedger::open_with(
        &path,
        SqliteOptions::default().tombstone_window(Duration::from_millis(1_500)),
    )
    .unwrap();
    // What is on disk (`load` shows a tombstone or nothing whether or not it was pruned).
    let conn = rusqlite::Connection::open(&path).unwrap();
    let stored = |key: &Key| -> Option<(String, bool)> {
        conn.query_row(
            "SELECT state, resolution IS NULL FROM idemcheck_records WHERE key = ?1",
            [key.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok()
    };
    let fp = Fingerprint::from_stored("f".repeat(64));
    let (done, open) = (
        Key::from_stored("d".repeat(64)),
        Key::from_stored("o".repeat(64)),
    );
    let short = |key| Claim {
        ttl: Duration::from_millis(50),
        ..test_claim(key, &fp, "a")
    };
    let Begin::Claimed { token } = ledger.begin(&short(&done)).await.unwrap() else {
        panic!()
    };
    ledger
        .resolve(
            &done,
            token,
            &Resolution::Committed {
                result: serde_json::json!(1),
            },
        )
        .await
        .unwrap();
    ledger.begin(&short(&open)).await.unwrap();
    let pruner = tokio::spawn(prune_periodically(
        ledger.clone(),
        Arc::new(SystemClock::new()),
        Duration::from_millis(20),
    ));
    let deadline = Instant::now() + Duration::from_secs(10);
    // First the result is dropped and the key kept as a tombstone ...
    while stored(&done) != Some(("pruned".to_string(), true)) {
        assert!(Instant::now() < deadline, "the pruner never pruned");
        assert!(stored(&done).is_some(), "deleted without a tombstone");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // ... then, after the tombstone window, the row is deleted.
    while stored(&done).is_some() {
        assert!(
            Instant::now() < deadline,
            "the pruner never deleted the tombstone"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    pruner.abort();
    let kept = ledger.load(&open).await.unwrap().expect("unresolved kept");
    assert_eq!(kept.state, RecordState::Declared);
    assert_eq!(ledger.pending().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_locked_by_another_process_fails_closed() {
    let dir = TempDir::new("idemcheck-locked");
    let path = dir.file("ledger.sqlite3");
    let ledger = SqliteLedger::open_with(
        &path,
        SqliteOptions::default().busy_timeout(Duration::from_millis(300)),
    )
    .unwrap();
    // Another writer holds the file's write lock (as a wedged process would).
    let (hold, release) = std::sync::mpsc::channel::<()>();
    let (held, wait_held) = std::sync::mpsc::channel::<()>();
    let lock_path = path.clone();
    let holder = std::thread::spawn(move || {
        let other = SqliteLedger::open(&lock_path).unwrap();
        drop(other);
        let conn = sqlite_exclusive(&lock_path);
        held.send(()).unwrap();
        let _ = release.recv();
        drop(conn);
    });
    wait_held.recv().unwrap();
    let effects = Effects::default();
    let ctx = Context::new(ledger.clone(), Scope::run("locked"));
    let out = apply::call(&ctx, &effects, ApplyArgs { id: 1 }).await;
    assert!(
        matches!(
            &out,
            Outcome::NotCompleted(NotCompleted {
                reason: Failure::Ledger(LedgerError::Unavailable(_)),
                attempts: 0,
                ..
            })
        ),
        "{out:?}"
    );
    assert!(
        effects.counts.lock().unwrap().is_empty(),
        "executed without a claim"
    );
    eprintln!("locked ledger: {}", out.status());
    hold.send(()).unwrap();
    holder.join().unwrap();
    // The lock is gone: the same call goes through, once.
    let out = apply::call(&ctx, &effects, ApplyArgs { id: 1 }).await;
    assert_eq!(out, Outcome::Completed("effect-1".into()));
}

/// Hold SQLite's write lock on `path` from a raw connection, the way a second process
/// in the middle of a long transaction would.
fn sqlite_exclusive(path: &std::path::Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    conn
}

/// A record that reads back corrupted (an unreadable or missing result, an unknown state, a
/// changed fingerprint) is never a licence to execute again: the call fails closed with an
/// error that names the record, and answers completed only when the system of record says
/// the effect exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_corrupted_records_fail_closed() {
    let cases: [(&str, &str, Option<&str>); 5] = [
        (
            "truncated result",
            "UPDATE idemcheck_records SET resolution = substr(resolution, 1, 9)",
            Some("unreadable resolution"),
        ),
        (
            "unknown state",
            "PRAGMA ignore_check_constraints = ON; UPDATE idemcheck_records SET state = 'bogus'",
            Some("unknown record state `bogus`"),
        ),
        (
            "committed without its result",
            "UPDATE idemcheck_records SET resolution = NULL",
            None,
        ),
        (
            "changed fingerprint",
            "UPDATE idemcheck_records SET fingerprint = 'zz'",
            None,
        ),
        (
            "declared again, lease far in the future",
            "UPDATE idemcheck_records SET state = 'declared', resolution = NULL, lease_until = 9000000000000",
            None,
        ),
    ];
    for (what, corrupt, message) in cases {
        for effect_exists in [false, true] {
            let dir = TempDir::new("idemcheck-corrupt");
            let path = dir.file("ledger.sqlite3");
            let effects = Effects::default();
            let ledger = SqliteLedger::open(&path).unwrap();
            let ctx = Context::new(ledger, Scope::run("corrupt"))
                .with_max_wait(Duration::from_millis(300));
            let first = apply::call(&ctx, &effects, ApplyArgs { id: 1 }).await;
            assert_eq!(first, Outcome::Completed("effect-1".to_string()), "{what}");
            rusqlite::Connection::open(&path)
                .unwrap()
                .execute_batch(corrupt)
                .unwrap();
            if !effect_exists {
                // The system of record lost it too (or never had it): only the ledger's
                // word is left, and it is unreadable.
                effects.counts.lock().unwrap().clear();
            }
            let again = apply::call(&ctx, &effects, ApplyArgs { id: 1 }).await;
            let executed = effects.counts.lock().unwrap().get(&1).copied().unwrap_or(0);
            assert_eq!(
                executed,
                u32::from(effect_exists),
                "{what}: executed again ({again:?})"
            );
            if let Outcome::Completed(_) = &again {
                assert!(effect_exists, "{what}: completed without an effect");
            }
            if let Some(m) = message {
                let text = format!("{again:?}");
                if !effect_exists {
                    assert!(text.contains(m), "{what}: {text}");
                    assert!(text.contains("record "), "{what}: names the record: {text}");
                }
            }
        }
    }
}

/// The ledger file, and the WAL SQLite writes beside it, are readable by their owner only.
#[cfg(unix)]
#[tokio::test]
async fn sqlite_ledger_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("idemcheck-mode");
    let path = dir.file("ledger.sqlite3");
    let ledger = SqliteLedger::open(&path).unwrap();
    let effects = Effects::default();
    let ctx = Context::new(ledger, Scope::run("mode"));
    let out = apply::call(&ctx, &effects, ApplyArgs { id: 3 }).await;
    assert!(matches!(out, Outcome::Completed(_)), "{out:?}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600, "the ledger file");
    let wal = dir.file("ledger.sqlite3-wal");
    assert!(wal.exists(), "WAL mode writes a -wal file");
    assert_eq!(mode(&wal), 0o600, "its WAL");
    // A missing directory is a clear error, not a panic.
    let Err(e) = SqliteLedger::open(dir.file("no/such/dir/ledger.sqlite3")) else {
        panic!("opened a file in a missing directory")
    };
    assert!(e.to_string().contains("cannot create"), "{e}");
}

// ------------------------------------------------------------------------------------ TLS

/// `url` with query parameters added.
fn with_params(url: &str, params: &[(&str, &str)]) -> String {
    let query: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{k}={}", v.replace('%', "%25").replace(' ', "%20")))
        .collect();
    format!("{url}?{}", query.join("&"))
}

/// Whether a connection of `user` is open over TLS right now (asked as the superuser).
async fn tls_sessions_of(url: &str, user: &str) -> i64 {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    let n = client
        .query_one(
            "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)
             WHERE usename = $1 AND ssl",
            &[&user],
        )
        .await
        .unwrap()
        .get(0);
    drop(client);
    let _ = task.await;
    n
}

/// The store over TLS: `sslmode=require` (encrypted, certificate not checked) and
/// `verify-full` (CA from the URL's `sslrootcert` or from the options). The role of
/// IDEMCHECK_PG_TLS_URL may only connect over TLS, with its password (.ci/run's pg_hba.conf):
/// the same URL with `sslmode=disable` is refused, and the server lists the store's
/// connections as TLS ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_works_over_tls_require_and_verify_full() {
    let test = "postgres_works_over_tls_require_and_verify_full";
    // One skip line at most: the first variable missing, not one line per variable.
    let Some(tls) = pg_tls(test) else {
        return;
    };
    let Some(admin) = pg_url(test) else {
        return;
    };
    let plain = PostgresLedger::connect(&with_params(&tls.url, &[("sslmode", "disable")])).await;
    let Err(LedgerError::Unavailable(refused)) = &plain else {
        panic!("the TLS-only role connected without TLS: {plain:?}")
    };
    assert!(refused.contains("no encryption"), "{refused}");
    let mut schemas = Vec::new();
    let verify_full_url = with_params(
        &tls.url,
        &[("sslmode", "verify-full"), ("sslrootcert", &tls.ca)],
    );
    let verify_full_option = with_params(&tls.url, &[("sslmode", "verify-full")]);
    for (what, url, options) in [
        (
            "require",
            with_params(&tls.url, &[("sslmode", "require")]),
            PostgresOptions::default(),
        ),
        (
            "verify-full, sslrootcert",
            verify_full_url,
            PostgresOptions::default(),
        ),
        (
            "verify-full, tls_root_certificate",
            verify_full_option,
            PostgresOptions::default().tls_root_certificate(&tls.ca),
        ),
    ] {
        let schema = unique("tls");
        schemas.push(schema.clone());
        let ledger = PostgresLedger::connect_with(&url, options.schema(schema))
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            tls_sessions_of(&admin, "idemcheck_tls").await > 0,
            "{what}: no TLS session on the server"
        );
        let effects = Effects::default();
        let ctx = Context::new(ledger, Scope::run("tls"));
        let first = apply::call(&ctx, &effects, ApplyArgs { id: 7 }).await;
        let again = apply::call(&ctx, &effects, ApplyArgs { id: 7 }).await;
        assert_eq!(first, Outcome::Completed("effect-7".into()), "{what}");
        assert_eq!(again, first, "{what}");
        assert_eq!(effects.counts.lock().unwrap()[&7], 1, "{what}");
    }
    drop_schemas(&admin, &schemas).await;
}

/// `verify-full` refuses a server whose certificate another CA signed, or that is reached
/// under a name its certificate does not carry — with an error that says so, and without
/// the password.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_verify_full_refuses_a_wrong_ca_or_host_name() {
    let Some(tls) = pg_tls("postgres_verify_full_refuses_a_wrong_ca_or_host_name") else {
        return;
    };
    let options = || PostgresOptions::default().connect_timeout(Duration::from_secs(5));
    let wrong_ca = with_params(
        &tls.url,
        &[("sslmode", "verify-full"), ("sslrootcert", &tls.other_ca)],
    );
    // The certificate names 127.0.0.1 and localhost; connect to the same address as
    // `wrong.example` (hostaddr) so that only the name is wrong.
    let wrong_host = with_params(
        &tls.url.replace("@127.0.0.1:", "@wrong.example:"),
        &[
            ("hostaddr", "127.0.0.1"),
            ("sslmode", "verify-full"),
            ("sslrootcert", &tls.ca),
        ],
    );
    for (what, url, expected) in [
        ("wrong CA", wrong_ca, "UnknownIssuer"),
        ("wrong host name", wrong_host, "not valid for name"),
    ] {
        let out = PostgresLedger::connect_with(&url, options()).await;
        let Err(e) = &out else {
            panic!("{what}: connected: {out:?}")
        };
        let text = format!("{e} / {e:?}");
        assert!(matches!(e, LedgerError::Unavailable(_)), "{what}: {text}");
        assert!(text.contains("certificate"), "{what}: {text}");
        assert!(text.contains(expected), "{what}: {text}");
        assert!(
            !text.contains(&tls.password),
            "{what}: the password leaked: {text}"
        );
    }
    // A CA file that is not there, or holds no certificate: a clear error naming it.
    let missing = with_params(
        &tls.url,
        &[
            ("sslmode", "verify-full"),
            ("sslrootcert", "/no/such/ca.pem"),
        ],
    );
    let e = PostgresLedger::connect(&missing).await.unwrap_err();
    assert!(e.to_string().contains("/no/such/ca.pem"), "{e}");
    assert!(!e.to_string().contains(&tls.password), "{e}");
}

/// The password of the connection string appears in no error and no `Debug` of the store:
/// a refused password (over TLS), an unreachable server, a server that is not PostgreSQL,
/// a bad parameter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_errors_never_show_the_password() {
    const WRONG: &str = "Wr0ng-passw0rd-4c1d";
    let check = |what: &str, out: &Result<PostgresLedger, LedgerError>, secret: &str| {
        let Err(e) = out else {
            panic!("{what}: connected: {out:?}")
        };
        let text = format!("{e} / {e:?} / {out:?}");
        assert!(
            !text.contains(secret),
            "{what}: the password leaked: {text}"
        );
        assert!(matches!(e, LedgerError::Unavailable(_)), "{what}: {text}");
        text
    };
    let options = || PostgresOptions::default().connect_timeout(Duration::from_secs(2));
    // Nothing listens on port 1.
    let down = format!("postgres://idemcheck_tls:{WRONG}@127.0.0.1:1/postgres?sslmode=require");
    let out = PostgresLedger::connect_with(&down, options()).await;
    check("unreachable", &out, WRONG);
    let kv = format!("host=127.0.0.1 port=1 user=u password='{WRONG}' sslmode=verify-full");
    let out = PostgresLedger::connect_with(&kv, options()).await;
    let text = check("verify-full without a CA", &out, WRONG);
    assert!(text.contains("sslrootcert"), "{text}");
    let bad = format!("postgres://u:{WRONG}@127.0.0.1:1/postgres?sslmode=sometimes");
    let out = PostgresLedger::connect_with(&bad, options()).await;
    let text = check("bad sslmode", &out, WRONG);
    assert!(text.contains("unknown sslmode"), "{text}");
    // A listening socket that is not PostgreSQL: the TLS request gets no answer it knows.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let silent = std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            use std::io::Write as _;
            let _ = stream.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n");
        }
    });
    let not_pg = format!("postgres://u:{WRONG}@127.0.0.1:{port}/postgres?sslmode=require");
    let out = PostgresLedger::connect_with(&not_pg, options()).await;
    check("not PostgreSQL", &out, WRONG);
    silent.join().unwrap();
    // A refused password, over TLS, on the real server.
    let Some(tls) = pg_tls("postgres_errors_never_show_the_password") else {
        return;
    };
    let wrong = with_params(
        &tls.url
            .replace(&format!(":{}@", tls.password), &format!(":{WRONG}@")),
        &[("sslmode", "verify-full"), ("sslrootcert", &tls.ca)],
    );
    let out = PostgresLedger::connect_with(&wrong, options()).await;
    let text = check("wrong password", &out, WRONG);
    assert!(text.contains("password authentication failed"), "{text}");
    assert!(!text.contains(&tls.password), "{text}");
    // And the store that did connect says nothing of it either.
    let ledger = PostgresLedger::connect(&with_params(&tls.url, &[("sslmode", "require")]))
        .await
        .unwrap();
    let debug = format!("{ledger:?}");
    assert!(!debug.contains(&tls.password), "{debug}");
}

// ------------------------------------------------------------------ a store that cannot write

#[derive(Clone, Serialize, Deserialize)]
struct BigArgs {
    id: u32,
}

/// A tool whose result (256 KiB) needs many new pages of the ledger file.
#[side_effect(key = [id], verify = find_big, max_retries = 0)]
async fn write_big(effects: &Effects, args: BigArgs) -> Result<String, String> {
    *effects.counts.lock().unwrap().entry(args.id).or_default() += 1;
    Ok("x".repeat(256 * 1024))
}

async fn find_big(effects: &Effects, args: &BigArgs) -> Result<Option<String>, String> {
    let done = effects
        .counts
        .lock()
        .unwrap()
        .get(&args.id)
        .is_some_and(|n| *n > 0);
    Ok(done.then(|| "x".repeat(256 * 1024)))
}

/// A ledger file that cannot grow (`SqliteOptions::max_size`: SQLite's `max_page_count`, the
/// same SQLITE_FULL a full disk gives) fails closed at the claim: a clear error, nothing
/// executed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_full_at_claim_fails_closed() {
    let dir = TempDir::new("idemcheck-full-claim");
    let path = dir.file("ledger.sqlite3");
    let ledger = SqliteLedger::open_with(
        &path,
        SqliteOptions::default()
            .synchronous(Synchronous::Normal)
            .max_size(64 * 1024),
    )
    .unwrap();
    // Fill it with claims until SQLite refuses one.
    let fp = Fingerprint::from_stored("f".repeat(64));
    let mut claimed = 0u32;
    let full = loop {
        let key = Key::from_stored(format!("{claimed:064}"));
        match ledger.begin(&test_claim(&key, &fp, "filler")).await {
            Ok(Begin::Claimed { .. }) => claimed += 1,
            Ok(other) => panic!("claim {claimed}: {other:?}"),
            Err(e) => break e,
        }
        assert!(claimed < 100_000, "the file never filled up");
    };
    assert!(claimed > 10, "filled after {claimed} claims only");
    assert!(
        matches!(&full, LedgerError::Unavailable(m) if m.contains("the ledger file is full")),
        "{full:?}"
    );
    // The refused claim left nothing behind, and what was written before is intact.
    let refused = Key::from_stored(format!("{claimed:064}"));
    assert!(ledger.load(&refused).await.unwrap().is_none());
    assert_eq!(ledger.pending().await.unwrap().len(), claimed as usize);
    // A guarded call on the full file: not executed, and the answer says why.
    let effects = Effects::default();
    let ctx = Context::new(ledger, Scope::run("full"));
    let out = apply::call(&ctx, &effects, ApplyArgs { id: 1 }).await;
    let Outcome::NotCompleted(NotCompleted {
        reason: Failure::Ledger(LedgerError::Unavailable(m)),
        attempts: 0,
        ..
    }) = &out
    else {
        panic!("{out:?}")
    };
    assert!(m.contains("the ledger file is full"), "{m}");
    assert!(
        effects.counts.lock().unwrap().is_empty(),
        "executed without a claim"
    );
}

/// The file fills up between the claim and the commit: the effect happened, so the caller is
/// told so (the result), the record stays DECLARED (not a false COMMITTED), and no later call
/// executes again — on the full file, nor after a restart with room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_full_at_commit_answers_honestly_and_never_executes_again() {
    let dir = TempDir::new("idemcheck-full-commit");
    let path = dir.file("ledger.sqlite3");
    let small = || {
        SqliteOptions::default()
            .synchronous(Synchronous::Normal)
            .max_size(64 * 1024)
    };
    let ledger = SqliteLedger::open_with(&path, small()).unwrap();
    let effects = Effects::default();
    let ctx =
        Context::new(ledger.clone(), Scope::run("full")).with_max_wait(Duration::from_millis(300));
    let first = write_big::call(&ctx, &effects, BigArgs { id: 5 }).await;
    assert_eq!(
        first,
        Outcome::Completed("x".repeat(256 * 1024)),
        "the effect happened"
    );
    assert_eq!(effects.counts.lock().unwrap()[&5], 1);
    let pending = ledger.pending().await.unwrap();
    assert_eq!(pending.len(), 1, "the claim stays, unresolved");
    assert_eq!(pending[0].state, RecordState::Declared);
    // Again, the file still full: never a second execution.
    let again = write_big::call(&ctx, &effects, BigArgs { id: 5 }).await;
    assert_eq!(
        effects.counts.lock().unwrap()[&5],
        1,
        "executed again: {again:?}"
    );
    // The postcondition finds the effect: completed, still without a second execution.
    assert!(
        matches!(&again, Outcome::Completed(r) if r.len() == 256 * 1024),
        "{again:?}"
    );
    assert_eq!(
        ledger.pending().await.unwrap().len(),
        1,
        "still full: still DECLARED"
    );
    drop((ctx, ledger));
    // A restart with room: the postcondition finds the effect; still one execution.
    let ledger = SqliteLedger::open(&path).unwrap();
    let ctx =
        Context::new(ledger.clone(), Scope::run("full")).with_max_wait(Duration::from_millis(300));
    let later = write_big::call(&ctx, &effects, BigArgs { id: 5 }).await;
    assert_eq!(
        effects.counts.lock().unwrap()[&5],
        1,
        "executed again: {later:?}"
    );
    assert!(
        matches!(&later, Outcome::Completed(r) if r.len() == 256 * 1024),
        "{later:?}"
    );
    // With room, the adopted result is recorded at last.
    assert!(ledger.pending().await.unwrap().is_empty(), "settled");
}

// ------------------------------------------------------------------------------ redaction

const ERROR_SECRET: &str = "tok_4242_s3cr3t_card_token";

/// A definite failure whose error carries a secret, of a type the ledger stores as a value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
enum ChargeError {
    #[error("card {0} declined")]
    Declined(String),
}

impl idemcheck::Classify for ChargeError {
    fn class(&self) -> idemcheck::ErrorClass {
        idemcheck::ErrorClass::Definite
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct ChargeArgs {
    id: u32,
}

#[side_effect(key = [id], verify = find_charge, max_retries = 0)]
async fn charge(effects: &Effects, args: ChargeArgs) -> Result<String, ChargeError> {
    *effects.counts.lock().unwrap().entry(args.id).or_default() += 1;
    Err(ChargeError::Declined(ERROR_SECRET.to_string()))
}

async fn find_charge(
    _effects: &Effects,
    _args: &ChargeArgs,
) -> Result<Option<String>, ChargeError> {
    Ok(None)
}

/// A transient failure, then a postcondition that cannot tell: an Unknown whose note holds
/// both error texts, each with the secret.
#[side_effect(key = [id], verify = cannot_tell, max_retries = 0)]
async fn charge_lost(effects: &Effects, args: ChargeArgs) -> Result<String, String> {
    *effects.counts.lock().unwrap().entry(args.id).or_default() += 1;
    Err(format!("gateway timeout for {ERROR_SECRET}"))
}

async fn cannot_tell(_effects: &Effects, _args: &ChargeArgs) -> Result<Option<String>, String> {
    Err(format!("search failed for {ERROR_SECRET}"))
}

/// Every byte of the files in `dir`, as text.
fn files_text(dir: &std::path::Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        if let Ok(bytes) = std::fs::read(entry.unwrap().path()) {
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    text
}

/// Error texts pass through `Context::with_redaction` before they reach the ledger: the
/// message and the stored value of a definite failure, and the note of an Unknown. Without
/// the hook the secret is on disk (so the check below can fail); with it, it is not, and the
/// replay still gives back the tool's error type, redacted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_keeps_no_redacted_error_text_on_disk() {
    for redacting in [false, true] {
        let dir = TempDir::new("idemcheck-redact");
        let ledger = SqliteLedger::open(dir.file("ledger.sqlite3")).unwrap();
        let mut ctx = Context::new(ledger.clone(), Scope::run("redact"))
            .with_max_wait(Duration::from_millis(200));
        if redacting {
            ctx = ctx.with_redaction(|text| text.replace(ERROR_SECRET, "[redacted]"));
        }
        let effects = Effects::default();
        let first = charge::call(&ctx, &effects, ChargeArgs { id: 1 }).await;
        // The caller that saw the failure gets it whole.
        assert!(format!("{first:?}").contains(ERROR_SECRET), "{first:?}");
        let replay = charge::call(&ctx, &effects, ChargeArgs { id: 1 }).await;
        assert_eq!(
            effects.counts.lock().unwrap()[&1],
            1,
            "replayed, not executed"
        );
        let Outcome::NotCompleted(NotCompleted {
            reason: Failure::Tool(ChargeError::Declined(card)),
            ..
        }) = &replay
        else {
            panic!("{replay:?}")
        };
        let lost = charge_lost::call(&ctx, &effects, ChargeArgs { id: 2 }).await;
        assert!(matches!(lost, Outcome::Unknown(_)), "{lost:?}");
        let on_disk = files_text(&dir.0);
        if redacting {
            assert_eq!(card, "[redacted]", "the stored value is redacted");
            assert!(
                !on_disk.contains(ERROR_SECRET),
                "an error text reached the file in clear"
            );
            assert!(
                on_disk.contains("card [redacted] declined"),
                "the message is stored, redacted"
            );
            assert!(
                on_disk.contains("gateway timeout for [redacted]"),
                "the note is stored, redacted"
            );
        } else {
            assert_eq!(card, ERROR_SECRET);
            assert!(
                on_disk.contains(ERROR_SECRET),
                "without a hook the text is stored as is"
            );
        }
        drop(ledger);
    }
}

// ------------------------------------------------------------------ the default location

/// Set in a child run of this binary: `open_default_child` then opens the default ledger
/// (with the child's environment) and prints what happened.
const OPEN_DEFAULT_CHILD: &str = "IDEMCHECK_TEST_OPEN_DEFAULT_CHILD";

#[test]
fn open_default_child() {
    if std::env::var_os(OPEN_DEFAULT_CHILD).is_none() {
        return; // only as a child of the test below
    }
    match SqliteLedger::open_default() {
        Ok(l) => println!("OPEN_DEFAULT ok {}", l.path().display()),
        Err(e) => println!("OPEN_DEFAULT err {e}"),
    }
}

/// `SqliteLedger::open_default()` with `env` (in a child process: the environment is the
/// process's): `Ok(path)` or `Err(message)`.
fn open_default_with(env: &[(&str, &std::path::Path)]) -> Result<PathBuf, String> {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "open_default_child",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(OPEN_DEFAULT_CHILD, "1")
    .env_remove("IDEMCHECK_STATE_DIR")
    .env_remove("XDG_STATE_HOME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("OPEN_DEFAULT ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("the child said nothing: {stdout}"))
        .to_string();
    match line.split_once(' ') {
        Some(("ok", path)) => Ok(PathBuf::from(path)),
        Some(("err", message)) => Err(message.to_string()),
        _ => panic!("{line}"),
    }
}

#[cfg(unix)]
#[test]
fn open_default_keeps_the_ledger_in_the_state_directory_created_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = TempDir::new("idemcheck-state");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // The override, created with its parents, 0700; the file 0600.
    let state = dir.file("srv/agent/state");
    let path = open_default_with(&[("IDEMCHECK_STATE_DIR", &state)]).unwrap();
    assert_eq!(path, state.join("ledger.sqlite3"));
    assert!(path.is_file());
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&path), 0o600);
    // The XDG state home (Linux) and HOME's .local/state, below `idemcheck`.
    let xdg = dir.file("xdg");
    let home = dir.file("home");
    #[cfg(not(target_os = "macos"))]
    {
        let path = open_default_with(&[("XDG_STATE_HOME", &xdg), ("HOME", &home)]).unwrap();
        assert_eq!(path, xdg.join("idemcheck/ledger.sqlite3"));
        assert_eq!(mode(&xdg.join("idemcheck")), 0o700);
        let path = open_default_with(&[("HOME", &home)]).unwrap();
        assert_eq!(path, home.join(".local/state/idemcheck/ledger.sqlite3"));
        assert_eq!(mode(&home.join(".local/state/idemcheck")), 0o700);
    }
    // A directory that cannot be made: the error says which, and where it came from.
    let file = dir.file("a-file");
    std::fs::write(&file, b"x").unwrap();
    let below = file.join("state");
    let err = open_default_with(&[("IDEMCHECK_STATE_DIR", &below)]).unwrap_err();
    assert!(err.contains(&below.display().to_string()), "{err}");
    assert!(err.contains("$IDEMCHECK_STATE_DIR"), "{err}");
    assert!(err.contains("cannot create the state directory"), "{err}");
    // An existing directory is left as it is.
    let open = dir.file("shared");
    std::fs::create_dir_all(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
    open_default_with(&[("IDEMCHECK_STATE_DIR", &open)]).unwrap();
    assert_eq!(mode(&open), 0o755);
}
