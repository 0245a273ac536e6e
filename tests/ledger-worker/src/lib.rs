//! Real failures for the durable ledgers: the pieces shared by the `ledger-worker` binary
//! (the process that is killed, or that races), its tests, and the store benchmark.
//!
//! - [`Effects`]: the fake system of record — a SQLite file with one row per real effect,
//!   so a duplicate is a second row;
//! - [`apply()`]: the guarded tool (`#[side_effect]`), whose effect is that row and whose
//!   postcondition reads it back;
//! - [`Hook`] and [`Hooked`]: the protocol boundaries (before claim, after claim, after the
//!   effect, after commit) at which a worker stops so the test can SIGKILL it exactly there;
//! - [`StoreSpec`]: which ledger a worker opens;
//! - [`PgCluster`]: a throwaway PostgreSQL cluster that a test may stop mid-call.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use idemcheck::ledger::{
    Begin, Claim, Ledger, LedgerAdmin, LedgerError, PostgresLedger, PostgresOptions, Record,
    Resolution, SqliteLedger, SqliteOptions, Synchronous, Token,
};
use idemcheck::{Key, side_effect};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

// ------------------------------------------------------------------------ the boundaries

/// A protocol boundary at which a crash test kills a worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Boundary {
    /// About to claim (nothing recorded yet for this call).
    BeforeClaim,
    /// The claim (or a take-over) is recorded; the effect has not happened.
    AfterClaim,
    /// The effect happened; the ledger still says DECLARED.
    AfterEffect,
    /// The result is committed.
    AfterCommit,
}

impl Boundary {
    /// All four, in protocol order.
    pub const ALL: [Boundary; 4] = [
        Boundary::BeforeClaim,
        Boundary::AfterClaim,
        Boundary::AfterEffect,
        Boundary::AfterCommit,
    ];

    /// `before_claim`, `after_claim`, `after_effect`, `after_commit`.
    pub fn as_str(self) -> &'static str {
        match self {
            Boundary::BeforeClaim => "before_claim",
            Boundary::AfterClaim => "after_claim",
            Boundary::AfterEffect => "after_effect",
            Boundary::AfterCommit => "after_commit",
        }
    }

    /// Parse [`Boundary::as_str`].
    pub fn parse(text: &str) -> Option<Boundary> {
        Boundary::ALL.into_iter().find(|b| b.as_str() == text)
    }
}

/// Where a worker stops: the `nth` time it reaches `boundary`, it prints
/// `PAUSED <boundary> <op>` and blocks until it is killed.
#[derive(Debug)]
pub struct Hook {
    target: Option<(Boundary, u32)>,
    seen: Mutex<BTreeMap<Boundary, u32>>,
    op: AtomicU64,
}

impl Hook {
    /// A hook stopping at the `nth` (from 1) passage of `boundary`, or never.
    pub fn new(target: Option<(Boundary, u32)>) -> Hook {
        Hook {
            target,
            seen: Mutex::default(),
            op: AtomicU64::new(0),
        }
    }

    /// The operation being worked on (for the `PAUSED` line).
    pub fn set_op(&self, op: u64) {
        self.op.store(op, Ordering::SeqCst);
    }

    /// Pass `boundary`: stop here for good if it is the target.
    pub fn at(&self, boundary: Boundary) {
        let n = {
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            let n = seen.entry(boundary).or_default();
            *n += 1;
            *n
        };
        if self.target == Some((boundary, n)) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "PAUSED {} {}",
                boundary.as_str(),
                self.op.load(Ordering::SeqCst)
            );
            let _ = out.flush();
            drop(out);
            // Wait for the SIGKILL, holding everything exactly as it is.
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }
}

/// A ledger that reports the claim and commit boundaries to a [`Hook`].
pub struct Hooked {
    inner: Arc<dyn Ledger>,
    hook: Arc<Hook>,
}

impl Hooked {
    /// Wrap `inner`.
    pub fn new(inner: Arc<dyn Ledger>, hook: Arc<Hook>) -> Hooked {
        Hooked { inner, hook }
    }
}

#[async_trait]
impl Ledger for Hooked {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        self.hook.at(Boundary::BeforeClaim);
        let out = self.inner.begin(claim).await?;
        if matches!(out, Begin::Claimed { .. }) {
            self.hook.at(Boundary::AfterClaim);
        }
        Ok(out)
    }

    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        let out = self.inner.take_over(claim, token).await?;
        if out.is_some() {
            self.hook.at(Boundary::AfterClaim);
        }
        Ok(out)
    }

    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        self.inner.resolve(key, token, resolution).await?;
        if matches!(resolution, Resolution::Committed { .. }) {
            self.hook.at(Boundary::AfterCommit);
        }
        Ok(())
    }

    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        self.inner.release(key, token).await
    }

    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        self.inner.load(key).await
    }
}

// ----------------------------------------------------------------- the system of record

/// The fake system of record: a SQLite file (WAL, `synchronous = FULL`) with one row per
/// real effect. Shared by every process of a test; a duplicate effect is a second row.
pub struct Effects {
    conn: Mutex<Connection>,
    hook: Option<Arc<Hook>>,
    executed: AtomicU64,
}

impl Effects {
    /// Open (creating if needed) the effects file.
    pub fn open(path: &Path, hook: Option<Arc<Hook>>) -> rusqlite::Result<Effects> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(60))?;
        let _: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.execute_batch(
            "PRAGMA synchronous = FULL;
             CREATE TABLE IF NOT EXISTS effects (
                 seq INTEGER PRIMARY KEY AUTOINCREMENT,
                 op  INTEGER NOT NULL,
                 pid INTEGER NOT NULL
             );
             CREATE INDEX IF NOT EXISTS effects_op ON effects (op);",
        )?;
        Ok(Effects {
            conn: Mutex::new(conn),
            hook,
            executed: AtomicU64::new(0),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Perform the effect of `op` (unconditionally: a second call is a duplicate).
    pub fn perform(&self, op: u64) -> Result<String, String> {
        let seq: i64 = self
            .conn()
            .query_row(
                "INSERT INTO effects (op, pid) VALUES (?1, ?2) RETURNING seq",
                params![op as i64, std::process::id()],
                |r| r.get(0),
            )
            .map_err(|e| format!("effects: {e}"))?;
        self.executed.fetch_add(1, Ordering::SeqCst);
        if let Some(hook) = &self.hook {
            hook.at(Boundary::AfterEffect);
        }
        Ok(format!("effect-{op}-{seq}"))
    }

    /// The result of `op`'s first effect, if it happened.
    pub fn find(&self, op: u64) -> Result<Option<String>, String> {
        let seq: Option<i64> = self
            .conn()
            .query_row(
                "SELECT min(seq) FROM effects WHERE op = ?1",
                params![op as i64],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| format!("effects: {e}"))?
            .flatten();
        Ok(seq.map(|seq| format!("effect-{op}-{seq}")))
    }

    /// Effects per operation.
    pub fn counts(&self) -> BTreeMap<u64, u64> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT op, count(*) FROM effects GROUP BY op")
            .expect("effects query");
        stmt.query_map([], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64))
        })
        .expect("effects query")
        .collect::<rusqlite::Result<_>>()
        .expect("effects rows")
    }

    /// Effects this process performed.
    pub fn executed(&self) -> u64 {
        self.executed.load(Ordering::SeqCst)
    }
}

/// The arguments of [`apply()`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApplyArgs {
    /// The logical operation.
    pub op: u64,
}

/// The guarded tool of the real-failure tests: perform the effect of `op`.
#[side_effect(key = [op], verify = find_effect, max_retries = 0, timeout_ms = 1_000)]
pub async fn apply(effects: &Effects, args: ApplyArgs) -> Result<String, String> {
    effects.perform(args.op)
}

/// The postcondition of [`apply()`]: read the effect back.
pub async fn find_effect(effects: &Effects, args: &ApplyArgs) -> Result<Option<String>, String> {
    effects.find(args.op)
}

// ------------------------------------------------------------------------- the stores

/// Which ledger a worker opens: `sqlite:<path>` or `postgres:<schema>:<url>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// A SQLite file (default options: WAL, `synchronous = FULL`).
    Sqlite(PathBuf),
    /// A PostgreSQL schema.
    Postgres {
        /// The schema.
        schema: String,
        /// The connection URL.
        url: String,
    },
}

impl StoreSpec {
    /// Parse the command-line form.
    pub fn parse(text: &str) -> Result<StoreSpec, String> {
        if let Some(path) = text.strip_prefix("sqlite:") {
            return Ok(StoreSpec::Sqlite(PathBuf::from(path)));
        }
        if let Some(rest) = text.strip_prefix("postgres:")
            && let Some((schema, url)) = rest.split_once(':')
        {
            return Ok(StoreSpec::Postgres {
                schema: schema.to_string(),
                url: url.to_string(),
            });
        }
        Err(format!(
            "store `{text}`: expected sqlite:<path> or postgres:<schema>:<url>"
        ))
    }

    /// The command-line form.
    pub fn to_arg(&self) -> String {
        match self {
            StoreSpec::Sqlite(path) => format!("sqlite:{}", path.display()),
            StoreSpec::Postgres { schema, url } => format!("postgres:{schema}:{url}"),
        }
    }

    /// `sqlite` or `postgres`.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreSpec::Sqlite(_) => "sqlite",
            StoreSpec::Postgres { .. } => "postgres",
        }
    }

    /// Open the ledger (`pool_size` connections for PostgreSQL).
    pub async fn open(&self, pool_size: usize) -> Result<Arc<dyn LedgerAdmin>, LedgerError> {
        self.open_with(pool_size, Synchronous::Full).await
    }

    /// Open the ledger with SQLite's `synchronous` setting.
    pub async fn open_with(
        &self,
        pool_size: usize,
        synchronous: Synchronous,
    ) -> Result<Arc<dyn LedgerAdmin>, LedgerError> {
        Ok(match self {
            StoreSpec::Sqlite(path) => Arc::new(SqliteLedger::open_with(
                path,
                SqliteOptions::default().synchronous(synchronous),
            )?),
            StoreSpec::Postgres { schema, url } => Arc::new(
                PostgresLedger::connect_with(
                    url,
                    PostgresOptions::default()
                        .schema(schema.clone())
                        .pool_size(pool_size),
                )
                .await?,
            ),
        })
    }
}

// --------------------------------------------------------------------------- PostgreSQL

/// Whether this run must exercise PostgreSQL (`CI`, or `IDEMCHECK_REQUIRE_PG=1`).
pub fn pg_required() -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
            .unwrap_or(false)
    };
    set("CI") || set("IDEMCHECK_REQUIRE_PG")
}

/// `IDEMCHECK_PG_URL`, or `None` after saying clearly that `test` skipped its PostgreSQL
/// cases; panics instead when PostgreSQL is required.
pub fn pg_url(test: &str) -> Option<String> {
    match std::env::var("IDEMCHECK_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                !pg_required(),
                "{test}: IDEMCHECK_PG_URL is not set, but this run requires the PostgreSQL cases \
                 (CI or IDEMCHECK_REQUIRE_PG=1); .ci/run starts a throwaway server and sets it"
            );
            // Straight to the process's stderr: libtest captures `eprintln!`, and a skip must
            // show.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: the PostgreSQL cases did not run — set IDEMCHECK_PG_URL to run them"
            );
            None
        }
    }
}

/// A new name, unique to this process and moment (schemas, files).
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{prefix}_{}_{nanos:x}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Drop schemas a test created.
pub async fn drop_schemas(url: &str, schemas: &[String]) {
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

/// A throwaway PostgreSQL cluster of this test's own (initdb in a temp dir, a free port
/// on 127.0.0.1), which the test may stop and start again. Removed when dropped.
#[derive(Debug)]
pub struct PgCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

impl PgCluster {
    /// The PostgreSQL programs: `IDEMCHECK_PG_BIN`, else the newest
    /// `/usr/lib/postgresql/*/bin`, else `initdb` on the `PATH`.
    pub fn bin_dir() -> Option<PathBuf> {
        if let Ok(dir) = std::env::var("IDEMCHECK_PG_BIN")
            && Path::new(&dir).join("initdb").exists()
        {
            return Some(PathBuf::from(dir));
        }
        let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let version = e.file_name().to_str()?.parse::<u32>().ok()?;
                let bin = e.path().join("bin");
                bin.join("initdb").exists().then_some((version, bin))
            })
            .collect();
        found.sort();
        if let Some((_, bin)) = found.pop() {
            return Some(bin);
        }
        std::env::var_os("PATH")
            .and_then(|paths| std::env::split_paths(&paths).find(|p| p.join("initdb").exists()))
    }

    fn command(&self, program: &str) -> std::process::Command {
        let path = self.bin.join(program);
        if self.as_postgres {
            let mut c = std::process::Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            std::process::Command::new(path)
        }
    }

    fn run(&self, program: &str, args: &[&str]) -> Result<(), String> {
        let out = self
            .command(program)
            .args(args)
            .output()
            .map_err(|e| format!("{program}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{program} {args:?}: {}\n{}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// Create and start a cluster, or say why not.
    pub fn start() -> Result<PgCluster, String> {
        use std::os::unix::fs::MetadataExt;
        let bin = PgCluster::bin_dir().ok_or("no PostgreSQL programs (initdb) found")?;
        // PostgreSQL refuses to run as root: use its system user then.
        let root = std::fs::metadata("/proc/self")
            .map(|m| m.uid() == 0)
            .map_err(|e| e.to_string())?;
        let dir = std::env::temp_dir().join(unique("idemcheck-pg"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        if root {
            let id = |flag: &str| -> Result<u32, String> {
                let out = std::process::Command::new("id")
                    .args([flag, "postgres"])
                    .output()
                    .map_err(|e| e.to_string())?;
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .map_err(|_| "no `postgres` system user".to_string())
            };
            std::os::unix::fs::chown(&dir, Some(id("-u")?), Some(id("-g")?))
                .map_err(|e| e.to_string())?;
        }
        let mut cluster = PgCluster {
            bin,
            dir,
            port: 0,
            as_postgres: root,
        };
        let data = cluster.dir.join("data");
        cluster.run(
            "initdb",
            &[
                "-D",
                data.to_str().ok_or("path")?,
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        let mut last = String::new();
        for _ in 0..5 {
            cluster.port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map_err(|e| e.to_string())?
                .port();
            match cluster.start_again() {
                Ok(()) => return Ok(cluster),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Start the (stopped) cluster again on its port.
    pub fn start_again(&self) -> Result<(), String> {
        let data = self.dir.join("data");
        let log = self.dir.join("server.log");
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={} -c unix_socket_directories={} -c max_connections=100",
            self.port,
            self.dir.display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().ok_or("path")?,
                "-l",
                log.to_str().ok_or("path")?,
                "-w",
                "-t",
                "60",
                "-o",
                &options,
                "start",
            ],
        )
    }

    /// Stop the server at once (`pg_ctl stop -m immediate`: every backend dies, every
    /// client connection breaks).
    pub fn stop_immediate(&self) -> Result<(), String> {
        let data = self.dir.join("data");
        self.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().ok_or("path")?,
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        )
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        if let Some(data) = data.to_str() {
            let _ = self.run("pg_ctl", &["-D", data, "-m", "immediate", "-w", "stop"]);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
