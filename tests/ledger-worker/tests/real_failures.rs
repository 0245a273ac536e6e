//! Real failures, not simulated ones:
//!
//! - **SIGKILL at every protocol boundary**: a worker process runs guarded calls against a
//!   SQLite file or a PostgreSQL schema and stops at a chosen boundary (before claim, after
//!   claim, after the effect, after commit); the test kills it there with SIGKILL, and a
//!   new process resumes. At least 200 kills per boundary per store, plus kills at random
//!   moments; the system of record must show every operation exactly once.
//! - **Races between processes**: 16 worker processes call the same 1,000 operations at
//!   once against one SQLite file and against PostgreSQL: exactly one execution per key.
//! - **The database goes away mid-call**: a PostgreSQL server of the test's own is stopped
//!   while calls are in flight; every call ends completed (its effect real and claimed),
//!   not completed with a clear ledger error (nothing executed), or unknown — never an
//!   execution without a claim, never a duplicate.
//!
//! `IDEMCHECK_CRASH_KILLS` sets the kills per boundary (default 200).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use idemcheck::ledger::{PostgresLedger, PostgresOptions, RecordState};
use idemcheck::{Context, Failure, LedgerError, NotCompleted, Outcome, Scope, side_effect};
use idemcheck_ledger_worker::{
    Boundary, Effects, PgCluster, StoreSpec, drop_schemas, pg_required, pg_url, unique,
};
use serde::{Deserialize, Serialize};

const WORKER: &str = env!("CARGO_BIN_EXE_ledger-worker");

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(prefix: &str) -> TempDir {
        let dir = std::env::temp_dir().join(unique(prefix));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A small deterministic generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn kills_per_boundary() -> usize {
    std::env::var("IDEMCHECK_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

fn crash_worker(store: &StoreSpec, dir: &Path, mode: &[&str], seed: u64) -> Child {
    Command::new(WORKER)
        .arg("crash")
        .args(["--store", &store.to_arg()])
        .args(["--effects", dir.join("effects.sqlite3").to_str().unwrap()])
        .args(["--progress", dir.join("progress.log").to_str().unwrap()])
        .args(["--seed", &seed.to_string()])
        .args(mode)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the worker")
}

fn sigkill(mut child: Child) {
    child.kill().expect("SIGKILL"); // std sends SIGKILL on Unix
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "the worker died of SIGKILL");
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut text);
    }
    text
}

/// Kill workers at every boundary, then at random moments, then let one finish; check
/// the system of record.
fn crash_test(store: StoreSpec, dir: &Path) {
    let per_boundary = kills_per_boundary();
    let clock = Instant::now();
    let mut rng = Rng(0x1de3_c4ec ^ store.kind().len() as u64);
    let mut kills: BTreeMap<&str, usize> = BTreeMap::new();
    let mut max_op = 0u64;
    for i in 0..per_boundary * Boundary::ALL.len() {
        let boundary = Boundary::ALL[i % Boundary::ALL.len()];
        let nth = 1 + rng.below(3);
        let pause = format!("{}:{nth}", boundary.as_str());
        let mut child = crash_worker(&store, dir, &["--pause", &pause], rng.next());
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let Some(rest) = line.trim().strip_prefix("PAUSED ") else {
            let _ = child.kill();
            let err = stderr_of(&mut child);
            panic!(
                "{}: worker did not pause at {pause} (said {line:?}): {err}",
                store.kind()
            );
        };
        let (at, op) = rest.split_once(' ').unwrap();
        assert_eq!(at, boundary.as_str());
        max_op = max_op.max(op.parse().unwrap());
        sigkill(child);
        *kills.entry(boundary.as_str()).or_default() += 1;
    }
    // Kills at random moments: mid-statement, mid-fsync, mid-write of the progress file.
    let random_kills = per_boundary / 2;
    for _ in 0..random_kills {
        let mut child = crash_worker(&store, dir, &["--forever"], rng.next());
        std::thread::sleep(Duration::from_millis(20 + rng.below(60)));
        if let Ok(Some(status)) = child.try_wait() {
            let err = stderr_of(&mut child);
            panic!(
                "{}: worker exited on its own: {status}: {err}",
                store.kind()
            );
        }
        sigkill(child);
        *kills.entry("random moment").or_default() += 1;
    }
    // A last worker finishes everything that was started.
    let mut child = crash_worker(&store, dir, &["--finish"], 0);
    let status = child.wait().unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert!(
        status.success(),
        "{}: the finishing worker failed: {out}{}",
        store.kind(),
        stderr_of(&mut child)
    );
    // The system of record: every started operation exactly once.
    let effects = Effects::open(&dir.join("effects.sqlite3"), None).unwrap();
    let counts = effects.counts();
    let progress = std::fs::read_to_string(dir.join("progress.log")).unwrap();
    let started: std::collections::BTreeSet<u64> = progress
        .lines()
        .filter_map(|l| l.strip_prefix("start "))
        .filter_map(|op| op.parse().ok())
        .collect();
    let duplicates: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        duplicates.is_empty(),
        "{}: duplicate effects: {duplicates:?}",
        store.kind()
    );
    for op in &started {
        assert_eq!(counts.get(op), Some(&1), "{}: op {op}", store.kind());
    }
    assert!(
        counts.keys().all(|op| started.contains(op)),
        "an effect nobody started"
    );
    assert!(max_op < started.len() as u64 + 1);
    let total: usize = kills.values().sum();
    for b in Boundary::ALL {
        assert!(kills[b.as_str()] >= per_boundary);
    }
    eprintln!(
        "{}: {total} SIGKILLs ({kills:?}) over {} operations, {} effects, 0 duplicates ({:.1} s)",
        store.kind(),
        started.len(),
        counts.values().sum::<u64>(),
        clock.elapsed().as_secs_f64()
    );
}

#[test]
fn sqlite_survives_sigkill_at_every_protocol_boundary() {
    let dir = TempDir::new("idemcheck-crash-sqlite");
    crash_test(StoreSpec::Sqlite(dir.0.join("ledger.sqlite3")), &dir.0);
    // Nothing is left unresolved in the ledger.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let pending = rt.block_on(async {
        let l = StoreSpec::Sqlite(dir.0.join("ledger.sqlite3"))
            .open(1)
            .await
            .unwrap();
        l.pending().await.unwrap()
    });
    assert!(pending.is_empty(), "{pending:?}");
}

#[test]
fn postgres_survives_sigkill_at_every_protocol_boundary() {
    let Some(url) = pg_url("postgres_survives_sigkill_at_every_protocol_boundary") else {
        return;
    };
    let dir = TempDir::new("idemcheck-crash-pg");
    let schema = unique("crash");
    let store = StoreSpec::Postgres {
        schema: schema.clone(),
        url: url.clone(),
    };
    crash_test(store.clone(), &dir.0);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let l = store.open(1).await.unwrap();
        assert!(l.pending().await.unwrap().is_empty());
        drop(l);
        drop_schemas(&url, &[schema]).await;
    });
}

// ------------------------------------------------------------------- process races

fn race_processes(store: StoreSpec, dir: &Path) {
    const WORKERS: usize = 16;
    const KEYS: u64 = 1_000;
    let effects_path = dir.join("effects.sqlite3");
    // Create the files once, so the racers only race on claims.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(store.open(1)).unwrap();
    Effects::open(&effects_path, None).unwrap();
    let start_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 3_000;
    let started = Instant::now();
    let mut children: Vec<Child> = (0..WORKERS)
        .map(|w| {
            Command::new(WORKER)
                .arg("race")
                .args(["--store", &store.to_arg()])
                .args(["--effects", effects_path.to_str().unwrap()])
                .args(["--keys", &KEYS.to_string()])
                .args(["--start-at", &start_at.to_string()])
                .args(["--worker", &w.to_string()])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut executed = 0;
    let mut checksums = std::collections::BTreeSet::new();
    let mut ready_late = 0;
    for child in &mut children {
        let status = child.wait().unwrap();
        let mut out = String::new();
        std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
        assert!(
            status.success(),
            "{}: racer failed: {out}{}",
            store.kind(),
            stderr_of(child)
        );
        if !out.contains("READY") {
            ready_late += 1;
        }
        let line = out.lines().find(|l| l.starts_with("RACE ")).unwrap();
        for field in line.split(' ') {
            if let Some(n) = field.strip_prefix("executed=") {
                executed += n.parse::<u64>().unwrap();
            }
            if let Some(c) = field.strip_prefix("checksum=") {
                checksums.insert(c.to_string());
            }
            if let Some(n) = field.strip_prefix("completed=") {
                assert_eq!(n.parse::<u64>().unwrap(), KEYS);
            }
        }
    }
    assert_eq!(ready_late, 0);
    let counts = Effects::open(&effects_path, None).unwrap().counts();
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n != 1).collect();
    assert!(twice.is_empty(), "{}: {twice:?}", store.kind());
    assert_eq!(counts.len() as u64, KEYS);
    assert_eq!(executed, KEYS, "{}: executions", store.kind());
    assert_eq!(
        checksums.len(),
        1,
        "{}: the workers saw different results",
        store.kind()
    );
    eprintln!(
        "{}: {WORKERS} processes x {KEYS} keys -> {executed} executions, each key exactly once, \
         identical results everywhere ({:.1} s with start-up)",
        store.kind(),
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn sqlite_race_16_processes_over_1000_keys_executes_each_once() {
    let dir = TempDir::new("idemcheck-race-sqlite");
    race_processes(StoreSpec::Sqlite(dir.0.join("ledger.sqlite3")), &dir.0);
}

#[test]
fn postgres_race_16_processes_over_1000_keys_executes_each_once() {
    let Some(url) = pg_url("postgres_race_16_processes_over_1000_keys_executes_each_once") else {
        return;
    };
    let dir = TempDir::new("idemcheck-race-pg");
    let schema = unique("race");
    race_processes(
        StoreSpec::Postgres {
            schema: schema.clone(),
            url: url.clone(),
        },
        &dir.0,
    );
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(drop_schemas(&url, &[schema]));
}

// ---------------------------------------------------------- the database goes away

/// The system of record of the failure test (in this process), which stops the server
/// from inside the tool when told to.
#[derive(Default)]
struct Ledgerless {
    effects: Mutex<BTreeMap<u64, u64>>,
    /// The idempotency key each execution ran under.
    keys: Mutex<BTreeMap<u64, idemcheck::Key>>,
    calls: AtomicUsize,
    stop_at_call: AtomicUsize,
    cluster: Mutex<Option<Arc<PgCluster>>>,
    mode: Mutex<ToolMode>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum ToolMode {
    #[default]
    Succeed,
    /// Time out after the effect (the answer is lost), and the postcondition cannot tell.
    LoseTheAnswer,
}

#[derive(Clone, Serialize, Deserialize)]
struct OpArgs {
    op: u64,
}

#[side_effect(key = [op], verify = effect_of, max_retries = 1, timeout_ms = 2_000, settle_ms = 0,
              allow(unbounded_in_flight, reason = "an in-process effect: it commits before the attempt returns, or never"))]
async fn effect(sys: &Ledgerless, args: OpArgs) -> Result<String, String> {
    let n = sys.calls.fetch_add(1, Ordering::SeqCst) + 1;
    if n == sys.stop_at_call.load(Ordering::SeqCst) {
        let cluster = sys.cluster.lock().unwrap().clone();
        if let Some(c) = cluster {
            // The database goes away while this call is in flight (others are too).
            tokio::task::spawn_blocking(move || c.stop_immediate())
                .await
                .unwrap()
                .unwrap();
        }
    }
    *sys.effects.lock().unwrap().entry(args.op).or_default() += 1;
    let key = idemcheck::current_key().expect("inside a guarded call");
    sys.keys.lock().unwrap().insert(args.op, key);
    match *sys.mode.lock().unwrap() {
        ToolMode::Succeed => Ok(format!("effect-{}", args.op)),
        ToolMode::LoseTheAnswer => Err("connection reset after the request was sent".into()),
    }
}

async fn effect_of(sys: &Ledgerless, args: &OpArgs) -> Result<Option<String>, String> {
    if *sys.mode.lock().unwrap() == ToolMode::LoseTheAnswer {
        return Err("the system of record does not answer either".into());
    }
    Ok(sys
        .effects
        .lock()
        .unwrap()
        .get(&args.op)
        .map(|_| format!("effect-{}", args.op)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_mid_call_never_executes_without_a_claim() {
    let cluster = match PgCluster::start() {
        Ok(c) => Arc::new(c),
        Err(e) => {
            assert!(
                !pg_required(),
                "this run requires PostgreSQL, but no throwaway cluster could start: {e}"
            );
            // Straight to the process's stderr: libtest captures `eprintln!`, and a skip must show.
            {
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED postgres_stopped_mid_call_never_executes_without_a_claim: {e}"
                );
            }
            return;
        }
    };
    let url = cluster.url();
    let options = || {
        PostgresOptions::default()
            .pool_size(8)
            .op_timeout(Duration::from_secs(5))
            .connect_timeout(Duration::from_secs(2))
    };
    let ledger = PostgresLedger::connect_with(&url, options()).await.unwrap();
    let sys = Arc::new(Ledgerless::default());
    *sys.cluster.lock().unwrap() = Some(cluster.clone());
    let ctx =
        Context::new(ledger.clone(), Scope::run("db-goes-away")).with_max_wait(Duration::ZERO);

    // 1. 64 calls: the first 20 run concurrently and the server stops while the 20th tool
    //    call runs (others of that wave are in flight); the other 44, started once the
    //    first wave has ended, meet a server that is gone. (Two waves, so the outcome does
    //    not depend on how fast claims race ahead of tool calls on a loaded machine.)
    const OPS: u64 = 64;
    const FIRST_WAVE: u64 = 20;
    sys.stop_at_call
        .store(FIRST_WAVE as usize, Ordering::SeqCst);
    let mut outcomes = BTreeMap::new();
    for wave in [0..FIRST_WAVE, FIRST_WAVE..OPS] {
        let mut tasks = Vec::new();
        for op in wave {
            let (ctx, sys) = (ctx.clone(), sys.clone());
            tasks.push(tokio::spawn(async move {
                (op, effect::call(&ctx, &sys, OpArgs { op }).await)
            }));
        }
        for t in tasks {
            let (op, out) = t.await.unwrap();
            outcomes.insert(op, out);
        }
    }
    assert_eq!(
        sys.calls.load(Ordering::SeqCst),
        FIRST_WAVE as usize,
        "no call of the second wave executed: the server was down"
    );
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for (op, out) in &outcomes {
        let executed = sys.effects.lock().unwrap().get(op).copied().unwrap_or(0);
        assert!(executed <= 1, "op {op} executed {executed} times");
        match out {
            Outcome::Completed(r) => {
                assert_eq!(r, &format!("effect-{op}"));
                assert_eq!(executed, 1);
            }
            Outcome::NotCompleted(NotCompleted {
                reason: Failure::Ledger(LedgerError::Unavailable(msg)),
                attempts: 0,
                ..
            }) => {
                assert_eq!(executed, 0, "op {op}: failed closed, yet executed");
                assert!(msg.contains("postgres"), "a clear error: {msg}");
            }
            Outcome::Unknown(_) => {}
            other => panic!("op {op}: {other:?}"),
        }
        *tally.entry(out.status()).or_default() += 1;
    }
    assert!(
        tally.get("not_completed").copied().unwrap_or(0) > 0,
        "the server never went away mid-batch: {tally:?}"
    );
    // 2. A call made while the server is down fails closed, executing nothing.
    let before = sys.calls.load(Ordering::SeqCst);
    let down = effect::call(&ctx, &sys, OpArgs { op: 1_000 }).await;
    assert!(
        matches!(
            &down,
            Outcome::NotCompleted(NotCompleted {
                reason: Failure::Ledger(LedgerError::Unavailable(_)),
                ..
            })
        ),
        "{down:?}"
    );
    assert_eq!(
        sys.calls.load(Ordering::SeqCst),
        before,
        "executed without a claim"
    );
    eprintln!("server stopped mid-batch: {tally:?}; a call while it is down: {down:?}");

    // 3. The server comes back: every executed operation had its claim recorded before it
    //    ran (DECLARED or COMMITTED); re-running everything completes each exactly once.
    cluster.start_again().unwrap();
    let ledger = PostgresLedger::connect_with(&url, options()).await.unwrap();
    let executed: Vec<(u64, idemcheck::Key)> = sys
        .keys
        .lock()
        .unwrap()
        .iter()
        .map(|(op, k)| (*op, k.clone()))
        .collect();
    assert!(!executed.is_empty());
    for (op, key) in &executed {
        let record = idemcheck::Ledger::load(&ledger, key).await.unwrap();
        let state = record.map(|r| r.state);
        assert!(
            matches!(state, Some(RecordState::Declared | RecordState::Committed)),
            "op {op} executed without a recorded claim: {state:?}"
        );
    }
    let ctx = Context::new(ledger.clone(), Scope::run("db-goes-away"))
        .with_max_wait(Duration::from_secs(30));
    for op in 0..OPS {
        let out = effect::call(&ctx, &sys, OpArgs { op }).await;
        assert_eq!(out, Outcome::Completed(format!("effect-{op}")), "op {op}");
    }
    for op in 0..OPS {
        assert_eq!(sys.effects.lock().unwrap().get(&op), Some(&1), "op {op}");
    }

    // 4. The server goes away during a call whose answer is lost and whose postcondition
    //    cannot tell: Unknown, escalated — not a blind retry.
    *sys.mode.lock().unwrap() = ToolMode::LoseTheAnswer;
    sys.stop_at_call
        .store(sys.calls.load(Ordering::SeqCst) + 1, Ordering::SeqCst);
    let lost = effect::call(&ctx, &sys, OpArgs { op: 2_000 }).await;
    assert!(lost.is_unknown(), "{lost:?}");
    assert_eq!(sys.effects.lock().unwrap().get(&2_000), Some(&1));
    eprintln!("answer lost while the server is down: {}", lost.status());
}
