//! The store benchmark: `cargo bench -p idemcheck-ledger-worker --bench ledger`.
//!
//! Per store (memory; SQLite with `synchronous = FULL`, the default, and `NORMAL`;
//! PostgreSQL when `IDEMCHECK_PG_URL` is set): the per-call overhead of the
//! `#[side_effect]` wrapper around a no-op tool (first call, replay), the ledger calls each
//! makes, and first-call throughput with 1, 4 and 16 concurrent workers. For PostgreSQL
//! also the raw single-row INSERT rate of the same server (a loop of prepared autocommit
//! INSERTs over the same number of connections, and pgbench when it is installed) as the
//! ceiling, and the WAL bytes a first call and a replay write.
//!
//! `IDEMCHECK_BENCH_SECS` sets the length of each throughput run (default 2);
//! `IDEMCHECK_BENCH_STORES` which stores to measure (default `memory,sqlite,postgres`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use idemcheck::ledger::{
    Begin, Claim, Ledger, LedgerError, PostgresLedger, PostgresOptions, Record, Resolution,
    SqliteLedger, SqliteOptions, Synchronous, Token,
};
use idemcheck::{Context, Key, MemoryLedger, Outcome, Scope, side_effect};
use idemcheck_ledger_worker::unique;
use serde::{Deserialize, Serialize};

/// The tool's (absent) service.
struct NoSys;

#[derive(Clone, Serialize, Deserialize)]
struct NoopArgs {
    id: u64,
}

#[side_effect(key = [id], verify = noop_done, max_retries = 0)]
async fn noop(_sys: &NoSys, args: NoopArgs) -> Result<u64, String> {
    Ok(args.id)
}

async fn noop_done(_sys: &NoSys, _args: &NoopArgs) -> Result<Option<u64>, String> {
    Ok(None)
}

/// The same no-op without the wrapper: the baseline.
async fn bare(_sys: &NoSys, args: NoopArgs) -> Result<u64, String> {
    Ok(args.id)
}

/// Counts the ledger calls the wrapper makes.
struct Counting {
    inner: Arc<dyn Ledger>,
    begins: AtomicU64,
    resolves: AtomicU64,
    others: AtomicU64,
}

#[async_trait]
impl Ledger for Counting {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        self.begins.fetch_add(1, Ordering::Relaxed);
        self.inner.begin(claim).await
    }
    async fn take_over(&self, c: &Claim<'_>, t: Token) -> Result<Option<Token>, LedgerError> {
        self.others.fetch_add(1, Ordering::Relaxed);
        self.inner.take_over(c, t).await
    }
    async fn resolve(&self, k: &Key, t: Token, r: &Resolution) -> Result<(), LedgerError> {
        self.resolves.fetch_add(1, Ordering::Relaxed);
        self.inner.resolve(k, t, r).await
    }
    async fn release(&self, k: &Key, t: Token) -> Result<(), LedgerError> {
        self.others.fetch_add(1, Ordering::Relaxed);
        self.inner.release(k, t).await
    }
    async fn load(&self, k: &Key) -> Result<Option<Record>, LedgerError> {
        self.others.fetch_add(1, Ordering::Relaxed);
        self.inner.load(k).await
    }
}

fn secs() -> Duration {
    Duration::from_secs_f64(
        std::env::var("IDEMCHECK_BENCH_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2.0),
    )
}

fn wanted(store: &str) -> bool {
    std::env::var("IDEMCHECK_BENCH_STORES")
        .map(|list| list.split(',').any(|s| s.trim() == store))
        .unwrap_or(true)
}

fn micros(d: Duration, n: u64) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

async fn call(ctx: &Context, id: u64) {
    match noop::call(ctx, &NoSys, NoopArgs { id }).await {
        Outcome::Completed(v) => assert_eq!(v, id),
        other => panic!("bench call {id}: {other:?}"),
    }
}

/// First calls and replays, one at a time.
async fn latency(name: &str, ledger: Arc<dyn Ledger>, n: u64) {
    let counting = Arc::new(Counting {
        inner: ledger,
        begins: AtomicU64::new(0),
        resolves: AtomicU64::new(0),
        others: AtomicU64::new(0),
    });
    let ctx = Context::new(counting.clone(), Scope::run(unique("latency")));
    // Warm up (prepared statements, pages).
    for id in 0..n / 10 + 1 {
        call(&ctx, 1_000_000_000 + id).await;
    }
    let base = (
        counting.begins.load(Ordering::Relaxed),
        counting.resolves.load(Ordering::Relaxed),
        counting.others.load(Ordering::Relaxed),
    );
    let t = Instant::now();
    for id in 0..n {
        call(&ctx, id).await;
    }
    let first = t.elapsed();
    let after_first = (
        counting.begins.load(Ordering::Relaxed),
        counting.resolves.load(Ordering::Relaxed),
        counting.others.load(Ordering::Relaxed),
    );
    let t = Instant::now();
    for id in 0..n {
        call(&ctx, id).await;
    }
    let replay = t.elapsed();
    let after_replay = (
        counting.begins.load(Ordering::Relaxed),
        counting.resolves.load(Ordering::Relaxed),
        counting.others.load(Ordering::Relaxed),
    );
    let per = |a: u64, b: u64| (b - a) as f64 / n as f64;
    println!(
        "{name:<26} first call {:>8.1} us  (ledger: {:.0} begin + {:.0} resolve + {:.0} other)   replay {:>8.1} us  (ledger: {:.0} begin + {:.0} other)",
        micros(first, n),
        per(base.0, after_first.0),
        per(base.1, after_first.1),
        per(base.2, after_first.2),
        micros(replay, n),
        per(after_first.0, after_replay.0),
        per(
            after_first.1 + after_first.2,
            after_replay.1 + after_replay.2
        ),
    );
}

/// First calls per second with `workers` concurrent callers sharing one ledger handle.
async fn throughput(ledger: Arc<dyn Ledger>, workers: u64) -> f64 {
    let ctx = Context::new(ledger, Scope::run(unique("throughput")));
    let done = Arc::new(AtomicU64::new(0));
    let stop = Instant::now() + secs();
    let t = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let (ctx, done) = (ctx.clone(), done.clone());
            tokio::spawn(async move {
                let mut id = w << 40;
                while Instant::now() < stop {
                    call(&ctx, id).await;
                    id += 1;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / t.elapsed().as_secs_f64()
}

async fn store_figures(name: &str, open: &dyn Fn() -> Arc<dyn Ledger>, n: u64) -> f64 {
    latency(name, open(), n).await;
    let mut line = format!("{name:<26} first calls/s:");
    let mut at16 = 0.0;
    for workers in [1, 4, 16] {
        let rate = throughput(open(), workers).await;
        line.push_str(&format!("  {workers:>2} workers {rate:>9.0}"));
        at16 = rate;
    }
    println!("{line}");
    at16
}

/// Raw single-row autocommit INSERTs of the same server: the ceiling.
async fn raw_inserts(url: &str, schema: &str, workers: usize) -> f64 {
    let mut clients = Vec::new();
    for _ in 0..workers {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        clients.push(client);
    }
    let done = Arc::new(AtomicU64::new(0));
    let stop = Instant::now() + secs();
    let t = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(w, client)| {
            let done = done.clone();
            let sql = format!("INSERT INTO {schema}.raw (k, v) VALUES ($1, $2)");
            let run = unique("raw");
            tokio::spawn(async move {
                let stmt = client.prepare(&sql).await.unwrap();
                let mut i = 0u64;
                while Instant::now() < stop {
                    let k = format!("{run}-{w}-{i}");
                    client.execute(&stmt, &[&k, &"v"]).await.unwrap();
                    i += 1;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    done.load(Ordering::Relaxed) as f64 / t.elapsed().as_secs_f64()
}

fn pgbench(url: &str, schema: &str) -> Option<f64> {
    let bin = idemcheck_ledger_worker::PgCluster::bin_dir()?.join("pgbench");
    if !bin.exists() {
        return None;
    }
    let script = std::env::temp_dir().join(format!("{}.sql", unique("pgbench")));
    std::fs::write(
        &script,
        format!(
            "INSERT INTO {schema}.raw (k, v) VALUES (md5(random()::text || clock_timestamp()::text), 'v');\n"
        ),
    )
    .ok()?;
    let out = std::process::Command::new(bin)
        .args(["-n", "-c", "16", "-j", "2", "-M", "prepared", "-T"])
        .arg(secs().as_secs().max(1).to_string())
        .arg("-f")
        .arg(&script)
        .arg(url)
        .output()
        .ok()?;
    let _ = std::fs::remove_file(&script);
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| {
            l.trim_start_matches("tps = ")
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
}

async fn wal_per_call(url: &str, ledger: Arc<dyn Ledger>, n: u64) -> (f64, f64) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let lsn = || async {
        let row = client
            .query_one(
                "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint",
                &[],
            )
            .await
            .unwrap();
        row.get::<_, i64>(0)
    };
    let ctx = Context::new(ledger, Scope::run(unique("wal")));
    call(&ctx, u64::MAX).await; // warm up
    let a = lsn().await;
    for id in 0..n {
        call(&ctx, id).await;
    }
    let b = lsn().await;
    for id in 0..n {
        call(&ctx, id).await;
    }
    let c = lsn().await;
    ((b - a) as f64 / n as f64, (c - b) as f64 / n as f64)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for the list of benchmarks
    }
    let n = 2_000;
    println!(
        "idemcheck ledger benchmark: no-op guarded tool, {} s per throughput run, {} cores",
        secs().as_secs_f64(),
        std::thread::available_parallelism().map_or(0, |p| p.get())
    );
    // Baseline: the tool without the wrapper.
    let t = Instant::now();
    for id in 0..n * 100 {
        std::hint::black_box(bare(&NoSys, NoopArgs { id }).await.unwrap());
    }
    println!(
        "{:<26} {:>8.3} us per call",
        "no wrapper (baseline)",
        micros(t.elapsed(), n * 100)
    );

    if wanted("memory") {
        store_figures(
            "memory",
            &|| Arc::new(MemoryLedger::new()) as Arc<dyn Ledger>,
            n,
        )
        .await;
    }

    let dir = std::env::temp_dir().join(unique("idemcheck-bench"));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite_modes = if wanted("sqlite") {
        vec![Synchronous::Full, Synchronous::Normal]
    } else {
        Vec::new()
    };
    for synchronous in sqlite_modes {
        let name = format!("sqlite synchronous={synchronous:?}");
        let dir = dir.clone();
        let at16 = store_figures(
            &name,
            &move || {
                let path: PathBuf = dir.join(format!("{}.sqlite3", unique("bench")));
                Arc::new(
                    SqliteLedger::open_with(
                        &path,
                        SqliteOptions::default().synchronous(synchronous),
                    )
                    .unwrap(),
                ) as Arc<dyn Ledger>
            },
            n,
        )
        .await;
        println!(
            "{name:<26} => {at16:.0} first calls/s on one file at 16 workers (target >= 5,000)"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);

    if !wanted("postgres") {
        return;
    }
    let Ok(url) = std::env::var("IDEMCHECK_PG_URL") else {
        println!("postgres: SKIPPED (set IDEMCHECK_PG_URL to measure PostgreSQL)");
        return;
    };
    let schema = unique("bench");
    let mut at16 = [0.0; 2];
    for (i, lazy) in [false, true].into_iter().enumerate() {
        let mut ledgers: Vec<Arc<dyn Ledger>> = Vec::new();
        for _ in 0..4 {
            ledgers.push(Arc::new(
                PostgresLedger::connect_with(
                    &url,
                    PostgresOptions::default()
                        .schema(schema.clone())
                        .pool_size(16)
                        .async_resolutions(lazy),
                )
                .await
                .unwrap(),
            ));
        }
        let next = std::sync::Mutex::new(ledgers.into_iter());
        let name = if lazy {
            "postgres async_resolutions"
        } else {
            "postgres (default)"
        };
        at16[i] = store_figures(
            name,
            &|| next.lock().unwrap().next().expect("enough pools"),
            n,
        )
        .await;
    }
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&format!(
            "CREATE TABLE {schema}.raw (k text PRIMARY KEY, v text NOT NULL)"
        ))
        .await
        .unwrap();
    let mut line = format!("{:<26} raw INSERTs/s:  ", "postgres ceiling");
    let mut ceiling16 = 0.0;
    for workers in [1, 4, 16] {
        let rate = raw_inserts(&url, &schema, workers).await;
        line.push_str(&format!("  {workers:>2} conns {rate:>9.0}"));
        ceiling16 = rate;
    }
    println!("{line}");
    if let Some(tps) = pgbench(&url, &schema) {
        println!(
            "{:<26} pgbench -c 16 -j 2 -M prepared, one INSERT per transaction: {tps:.0} tps",
            "postgres ceiling"
        );
    }
    // The ratio, measured under the same conditions: rounds that interleave the ledger
    // (both modes) and the raw loop at 16 workers; medians.
    let mut samples: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut pools: Vec<Arc<dyn Ledger>> = Vec::new();
    for lazy in [false, true] {
        pools.push(Arc::new(
            PostgresLedger::connect_with(
                &url,
                PostgresOptions::default()
                    .schema(schema.clone())
                    .pool_size(16)
                    .async_resolutions(lazy),
            )
            .await
            .unwrap(),
        ));
    }
    for _ in 0..5 {
        samples[0].push(throughput(pools[0].clone(), 16).await);
        samples[1].push(throughput(pools[1].clone(), 16).await);
        samples[2].push(raw_inserts(&url, &schema, 16).await);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let raw = median(&mut samples[2]);
    for (i, name) in ["postgres (default)", "postgres async_resolutions"]
        .into_iter()
        .enumerate()
    {
        let rate = median(&mut samples[i]);
        println!(
            "{name:<26} => 16 workers, median of 5 interleaved rounds: {rate:.0} first calls/s = {:.0} % of the raw INSERT loop ({raw:.0}/s; target >= 50 %)",
            100.0 * rate / raw
        );
    }
    let _ = (at16, ceiling16);
    for lazy in [false, true] {
        let wal_ledger = Arc::new(
            PostgresLedger::connect_with(
                &url,
                PostgresOptions::default()
                    .schema(schema.clone())
                    .async_resolutions(lazy),
            )
            .await
            .unwrap(),
        );
        let (first, replay) = wal_per_call(&url, wal_ledger, 500).await;
        println!(
            "{:<26} WAL written per first call {first:.0} bytes, per replay {replay:.0} bytes",
            if lazy {
                "postgres async_resolutions"
            } else {
                "postgres (default)"
            }
        );
    }
    idemcheck_ledger_worker::drop_schemas(&url, &[schema]).await;
}
