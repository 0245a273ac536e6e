//! The real `idemcheck-ledger` binary on real stores: records written through the runtime's
//! own SQLite and PostgreSQL stores, then listed, shown, decided, pruned and exported by the
//! binary, and read back through the store; every error case answers with exit status 2 and
//! a message that says what and where.
//!
//! PostgreSQL cases read `IDEMCHECK_PG_URL`. Without it they print SKIPPED on the real
//! stderr — unless `CI` or `IDEMCHECK_REQUIRE_PG=1` is set, where a missing URL fails.
//! `.ci/run` starts a throwaway server and sets both.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use idemcheck::ledger::{
    Begin, Claim, Decided, LedgerAdmin, PostgresLedger, PostgresOptions, RecordState, Resolution,
    SqliteLedger, StoredFailure,
};
use idemcheck::{Fingerprint, Key, Scope};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_idemcheck-ledger");

// ------------------------------------------------------------------------------ plumbing

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
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a run of the binary gave.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Exit 0; the output.
    fn ok(self) -> String {
        assert_eq!(self.code, Some(0), "{self:#?}");
        assert!(self.stderr.is_empty(), "{self:#?}");
        self.stdout
    }

    /// Exit 2 with one line on stderr that contains every one of `parts`; nothing on stdout.
    fn refused(self, parts: &[&str]) {
        assert_eq!(self.code, Some(2), "{self:#?}");
        assert!(self.stdout.is_empty(), "{self:#?}");
        // The tool's own messages, or clap's for a malformed command line.
        assert!(
            self.stderr.starts_with("idemcheck-ledger: ") || self.stderr.starts_with("error: "),
            "{self:#?}"
        );
        assert!(!self.stderr.contains("panicked"), "{self:#?}");
        for part in parts {
            assert!(self.stderr.contains(part), "missing {part:?} in {self:#?}");
        }
    }
}

/// Run the binary with `store` (the arguments naming the ledger) and `args`, with a state
/// directory of its own and no PostgreSQL URL from the environment.
fn run(state: &Path, store: &[String], args: &[&str]) -> Run {
    run_env(state, store, args, &[])
}

fn run_env(state: &Path, store: &[String], args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(store)
        .args(args)
        .env_remove("IDEMCHECK_LEDGER_POSTGRES")
        .env("IDEMCHECK_STATE_DIR", state);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run idemcheck-ledger");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn pg_required() -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
            .unwrap_or(false)
    };
    set("CI") || set("IDEMCHECK_REQUIRE_PG")
}

/// The PostgreSQL URL, or `None` (SKIPPED on the real stderr) when the cases are skipped.
fn pg_url(test: &str) -> Option<String> {
    match std::env::var("IDEMCHECK_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                !pg_required(),
                "{test}: IDEMCHECK_PG_URL is not set, but this run requires the PostgreSQL \
                 cases (CI or IDEMCHECK_REQUIRE_PG=1); .ci/run starts a throwaway server and sets it"
            );
            // Straight to the process's stderr: libtest captures `eprintln!`.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: the PostgreSQL cases did not run — set IDEMCHECK_PG_URL \
                 (e.g. postgres://postgres@127.0.0.1:5432/postgres; .ci/run shows how)"
            );
            None
        }
    }
}

// ------------------------------------------------------------------------------- records

/// The records the scenario writes, by what they are.
struct Keys {
    /// DECLARED, its owner's lease run out (a worker that died).
    stale: Key,
    /// DECLARED, its owner's lease live for an hour.
    live: Key,
    /// UNKNOWN: escalated.
    unknown: Key,
    /// COMMITTED.
    committed: Key,
    /// FAILED.
    failed: Key,
    /// COMMITTED with a 1 ms TTL: a tombstone at once.
    expired: Key,
}

fn key(name: &str) -> Key {
    Key::from_canonical(&Scope::run("ledger-cli-test"), "send_email", name)
}

async fn claim(l: &dyn LedgerAdmin, k: &Key, lease: Duration, ttl: Duration) -> u64 {
    let fp = Fingerprint::from_stored(format!("fp-{k}"));
    let c = Claim {
        key: k,
        fingerprint: &fp,
        tool: "send_email",
        owner: "worker-7",
        lease,
        ttl,
    };
    match l.begin(&c).await.expect("begin") {
        Begin::Claimed { token } => token,
        Begin::Existing(r) => panic!("{k} exists: {r:?}"),
    }
}

/// Write one record of every kind, a little apart (so `list` has an order to keep).
async fn populate(l: &dyn LedgerAdmin) -> Keys {
    let hour = Duration::from_secs(3600);
    let ms = Duration::from_millis(1);
    let keys = Keys {
        stale: key("\"stale\""),
        live: key("\"live\""),
        unknown: key("\"unknown\""),
        committed: key("\"committed\""),
        failed: key("\"failed\""),
        expired: key("\"expired\""),
    };
    let pause = || tokio::time::sleep(Duration::from_millis(15));
    claim(l, &keys.stale, ms, hour).await;
    pause().await;
    claim(l, &keys.live, hour, hour).await;
    pause().await;
    let t = claim(l, &keys.unknown, ms, hour).await;
    let note = "SMTP timed out after DATA; the sink cannot be read back".to_string();
    l.resolve(&keys.unknown, t, &Resolution::Unknown { note })
        .await
        .expect("unknown");
    pause().await;
    let t = claim(l, &keys.committed, hour, hour).await;
    l.resolve(
        &keys.committed,
        t,
        &Resolution::Committed {
            result: json!({"id": "msg_1"}),
        },
    )
    .await
    .expect("commit");
    pause().await;
    let t = claim(l, &keys.failed, hour, hour).await;
    let error = StoredFailure {
        message: "mailbox full".into(),
        value: None,
    };
    l.resolve(&keys.failed, t, &Resolution::Failed { error })
        .await
        .expect("fail");
    pause().await;
    let t = claim(l, &keys.expired, hour, ms).await;
    l.resolve(
        &keys.expired,
        t,
        &Resolution::Committed { result: json!(1) },
    )
    .await
    .expect("commit");
    // Past the stale lease and the 1 ms TTL on any clock (the database's for PostgreSQL).
    tokio::time::sleep(Duration::from_millis(50)).await;
    keys
}

fn listed(out: &str) -> Vec<String> {
    out.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.len() == 64)
        .map(str::to_string)
        .collect()
}

fn k(key: &Key) -> String {
    key.as_str().to_string()
}

// ------------------------------------------------------------------------------ scenario

/// Everything the tool does, on the ledger `store` names (also open as `l`).
async fn scenario(state: &Path, store: &[String], l: &dyn LedgerAdmin) {
    let keys = populate(l).await;
    let all = [
        &keys.stale,
        &keys.live,
        &keys.unknown,
        &keys.committed,
        &keys.failed,
        &keys.expired,
    ];

    // list: everything, oldest first, then by status.
    let out = run(state, store, &["list"]).ok();
    assert_eq!(listed(&out), all.map(k).to_vec(), "{out}");
    assert!(out.starts_with("KEY "), "{out}");
    assert!(
        out.contains("send_email") && out.contains("worker-7"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("6 records"), "{out}");
    let status = |s: &str| listed(&run(state, store, &["list", "--status", s]).ok());
    assert_eq!(status("unknown"), vec![k(&keys.unknown)]);
    assert_eq!(status("pending"), vec![k(&keys.stale), k(&keys.live)]);
    assert_eq!(
        status("done"),
        vec![k(&keys.committed), k(&keys.failed), k(&keys.expired)]
    );
    assert_eq!(status("pruned"), vec![k(&keys.expired)]);
    let limited = run(state, store, &["list", "--limit", "2"]).ok();
    assert_eq!(listed(&limited), vec![k(&keys.stale), k(&keys.live)]);
    let json: Value = serde_json::from_str(&run(state, store, &["list", "--json"]).ok()).unwrap();
    let rows = json.as_array().expect("an array");
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[2]["key"], json!(k(&keys.unknown)));
    assert_eq!(rows[2]["state"], json!("unknown"));
    assert_eq!(rows[3]["resolution"]["result"], json!({"id": "msg_1"}));

    // show
    let out = run(state, store, &["show", keys.unknown.as_str()]).ok();
    assert!(out.contains("state        unknown"), "{out}");
    assert!(out.contains("the sink cannot be read back"), "{out}");
    assert!(out.contains("owner        worker-7"), "{out}");
    let out = run(state, store, &["show", keys.failed.as_str()]).ok();
    assert!(out.contains("failure      mailbox full"), "{out}");
    // Upper case is the same key.
    let upper = keys.committed.as_str().to_ascii_uppercase();
    let shown: Value = serde_json::from_str(&run(state, store, &["show", &upper, "--json"]).ok())
        .expect("show --json");
    assert_eq!(shown["record"]["state"], json!("committed"));
    assert_eq!(shown["decisions"], json!([]));

    // decide: an escalated Unknown that did happen, with the result later calls replay.
    let out = run(
        state,
        store,
        &[
            "decide",
            keys.unknown.as_str(),
            "done",
            "--note",
            "found in the sink's log, message 4411",
            "--result",
            r#"{"id": "msg_4411"}"#,
        ],
    )
    .ok();
    assert!(out.contains("done") && out.contains("msg_4411"), "{out}");
    let r = l.load(&keys.unknown).await.unwrap().expect("kept");
    assert_eq!(r.state, RecordState::Committed);
    assert_eq!(
        r.resolution,
        Some(Resolution::Committed {
            result: json!({"id": "msg_4411"})
        })
    );
    let out = run(state, store, &["show", keys.unknown.as_str()]).ok();
    assert!(out.contains("state        committed"), "{out}");
    assert!(
        out.contains("done (was unknown): found in the sink's log, message 4411"),
        "{out}"
    );
    // A dead worker's claim that did not happen: the key is free again.
    let out = run(
        state,
        store,
        &[
            "decide",
            keys.stale.as_str(),
            "not-done",
            "--note",
            "no trace",
        ],
    )
    .ok();
    assert!(
        out.contains("not done") && out.contains("record deleted"),
        "{out}"
    );
    assert_eq!(l.load(&keys.stale).await.unwrap(), None);
    let out = run(state, store, &["show", keys.stale.as_str()]).ok();
    assert!(out.contains("(no record"), "{out}");
    assert!(out.contains("not done (was declared): no trace"), "{out}");
    // A live claim is refused unless forced; `done` without a result replays null.
    run(state, store, &["decide", keys.live.as_str(), "done"]).refused(&[
        keys.live.as_str(),
        "worker-7",
        "lease",
        "--force",
    ]);
    assert_eq!(
        l.load(&keys.live).await.unwrap().unwrap().state,
        RecordState::Declared
    );
    run(
        state,
        store,
        &["decide", keys.live.as_str(), "done", "--force"],
    )
    .ok();
    let r = l.load(&keys.live).await.unwrap().unwrap();
    assert_eq!(
        r.resolution,
        Some(Resolution::Committed {
            result: Value::Null
        })
    );

    // Errors: what is wrong, and where; nothing changes.
    let missing = key("\"never claimed\"");
    run(state, store, &["show", missing.as_str()]).refused(&["no record", missing.as_str()]);
    run(state, store, &["decide", missing.as_str(), "done"]).refused(&[
        "no record",
        missing.as_str(),
        "nothing to decide",
    ]);
    run(
        state,
        store,
        &["decide", keys.committed.as_str(), "not-done"],
    )
    .refused(&[keys.committed.as_str(), "committed already"]);
    run(state, store, &["decide", keys.expired.as_str(), "done"]).refused(&["pruned already"]);
    run(state, store, &["show", "3f2a"]).refused(&["`3f2a` is not a key", "64 hexadecimal"]);
    let not_hex = format!("{}zz", &keys.failed.as_str()[..62]);
    run(state, store, &["decide", &not_hex, "done"]).refused(&["is not a key"]);
    run(
        state,
        store,
        &["decide", keys.failed.as_str(), "done", "--result", "{id:"],
    )
    .refused(&["--result is not JSON", "{id:"]);
    run(
        state,
        store,
        &["decide", keys.failed.as_str(), "not-done", "--result", "1"],
    )
    .refused(&["--result goes with `done` only"]);
    run(state, store, &["list", "--status", "finished"]).refused(&["finished", "--status"]);
    assert_eq!(
        l.load(&keys.committed).await.unwrap().unwrap().state,
        RecordState::Committed
    );

    // export: every record and the decision log, as one JSON document.
    let out = run(state, store, &["export", "--json"]).ok();
    let doc: Value = serde_json::from_str(&out).expect("export is JSON");
    assert_eq!(doc["format"], json!("idemcheck-ledger-export"));
    let records = doc["records"].as_array().unwrap();
    let exported: Vec<&str> = records.iter().map(|r| r["key"].as_str().unwrap()).collect();
    let expected: Vec<&str> = [
        &keys.live,
        &keys.unknown,
        &keys.committed,
        &keys.failed,
        &keys.expired,
    ]
    .iter()
    .map(|k| k.as_str())
    .collect();
    assert_eq!(exported, expected);
    let decisions = doc["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 3);
    assert_eq!(decisions[0]["decision"], json!("happened"));
    assert_eq!(
        decisions[0]["note"],
        json!("found in the sink's log, message 4411")
    );
    assert_eq!(decisions[1]["decision"], json!("did_not_happen"));
    assert_eq!(decisions[1]["key"], json!(k(&keys.stale)));
    assert_eq!(decisions[2]["note"], Value::Null);
    let log = l.decisions(None).await.unwrap();
    assert_eq!(log.len(), 3);
    assert_eq!(log[1].decision, Decided::DidNotHappen);

    // prune: the expired result dropped (it stays a tombstone), the rest untouched.
    let out = run(state, store, &["prune"]).ok();
    assert!(out.starts_with("pruned 1 record in "), "{out}");
    let r = l.load(&keys.expired).await.unwrap().unwrap();
    assert_eq!((r.state, r.resolution), (RecordState::Pruned, None));
    assert!(
        run(state, store, &["prune"])
            .ok()
            .starts_with("pruned 0 records")
    );
    // A zero tombstone window forgets it: deleted by prune, no longer listed.
    let zero = run(
        state,
        store,
        &[
            "--tombstone-window-hours",
            "0",
            "list",
            "--status",
            "pruned",
        ],
    )
    .ok();
    assert_eq!(zero.trim(), "no records");
    let out = run(state, store, &["--tombstone-window-hours", "0", "prune"]).ok();
    assert!(out.starts_with("pruned 1 record in "), "{out}");
    assert_eq!(status("pruned"), Vec::<String>::new());
}

// ----------------------------------------------------------------------------- the tests

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_ledger_listed_shown_decided_pruned_exported() {
    let dir = TempDir::new("idemcheck-ledger-cli");
    let path = dir.0.join("agent.sqlite3");
    let ledger = SqliteLedger::open(&path).expect("open");
    let store = vec!["--sqlite".to_string(), path.display().to_string()];
    scenario(&dir.0, &store, &ledger).await;
}

#[test]
fn sqlite_paths_that_name_no_ledger_are_refused_with_the_path() {
    let dir = TempDir::new("idemcheck-ledger-paths");
    let state = dir.0.join("state");
    let arg = |p: &Path| vec!["--sqlite".to_string(), p.display().to_string()];
    // Missing: nothing is created.
    let missing = dir.0.join("no-such.sqlite3");
    run(&state, &arg(&missing), &["list"]).refused(&["no-such.sqlite3", "no ledger file"]);
    assert!(!missing.exists(), "the tool created a ledger");
    run(&state, &arg(&dir.0), &["list"]).refused(&["not a file"]);
    let text = dir.0.join("notes.txt");
    std::fs::write(
        &text,
        "not a database, but long enough to look like one to SQLite? no",
    )
    .unwrap();
    run(&state, &arg(&text), &["list"]).refused(&["notes.txt", "not a SQLite database"]);
    let other = dir.0.join("other.sqlite3");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    run(&state, &arg(&other), &["list"]).refused(&["other.sqlite3", "not an idemcheck ledger"]);
    // The default ledger: the state directory's ledger.sqlite3, which is not there yet.
    run(&state, &[], &["list"]).refused(&[
        &state.join("ledger.sqlite3").display().to_string(),
        "no ledger file",
        "default ledger",
    ]);
    assert!(!state.exists(), "the tool created the state directory");
    // Once it is (as SqliteLedger::open_default keeps it), it is found without arguments.
    std::fs::create_dir_all(&state).unwrap();
    drop(SqliteLedger::open(state.join("ledger.sqlite3")).unwrap());
    assert_eq!(run(&state, &[], &["list"]).ok().trim(), "no records");
    // No state directory at all.
    let out = Command::new(BIN)
        .args(["list"])
        .env_remove("IDEMCHECK_STATE_DIR")
        .env_remove("XDG_STATE_HOME")
        .env_remove("HOME")
        .env_remove("IDEMCHECK_LEDGER_POSTGRES")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("IDEMCHECK_STATE_DIR") && err.contains("--sqlite"),
        "{err}"
    );
    // Two ledgers named.
    let both = [
        "--sqlite".to_string(),
        other.display().to_string(),
        "--postgres".to_string(),
        "postgres://x@127.0.0.1/db".to_string(),
    ];
    run(&state, &both, &["list"]).refused(&["--sqlite and --postgres"]);
    // Usage errors are exit 2 too; help is not an error.
    assert_eq!(run(&state, &[], &[]).code, Some(2));
    assert_eq!(run(&state, &[], &["frobnicate"]).code, Some(2));
    let help = run(&state, &[], &["--help"]).ok();
    assert!(help.contains("decide") && help.contains("export"), "{help}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_ledger_listed_shown_decided_pruned_exported() {
    let Some(url) = pg_url("postgres_ledger_listed_shown_decided_pruned_exported") else {
        return;
    };
    let dir = TempDir::new("idemcheck-ledger-cli-pg");
    let schema = unique("ledger_cli");
    let ledger = PostgresLedger::connect_with(
        &url,
        PostgresOptions::default()
            .schema(schema.clone())
            .pool_size(2),
    )
    .await
    .expect("connect");
    let store = vec![
        "--postgres".to_string(),
        url.clone(),
        "--schema".to_string(),
        schema.clone(),
    ];
    scenario(&dir.0, &store, &ledger).await;
    // The URL from the environment instead of the command line.
    let via_env = run_env(
        &dir.0,
        &["--schema".to_string(), schema.clone()],
        &["list"],
        &[("IDEMCHECK_LEDGER_POSTGRES", &url)],
    )
    .ok();
    assert_eq!(listed(&via_env).len(), 4, "{via_env}");
    drop_schema(&url, &schema).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_urls_and_schemas_that_name_no_ledger_are_refused() {
    let Some(url) = pg_url("postgres_urls_and_schemas_that_name_no_ledger_are_refused") else {
        return;
    };
    let dir = TempDir::new("idemcheck-ledger-cli-pgerr");
    let pg = |url: &str, schema: &str| {
        vec![
            "--postgres".to_string(),
            url.to_string(),
            "--schema".to_string(),
            schema.to_string(),
        ]
    };
    // A schema with no ledger: refused, and not created.
    let schema = unique("no_ledger");
    run(&dir.0, &pg(&url, &schema), &["list"]).refused(&[
        "PostgreSQL",
        &schema,
        "holds no idemcheck ledger",
    ]);
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    let found = client
        .query_one(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1",
            &[&schema],
        )
        .await
        .unwrap();
    assert_eq!(
        found.get::<_, i64>(0),
        0,
        "the tool created schema {schema}"
    );
    drop(client);
    let _ = task.await;
    run(&dir.0, &pg(&url, "Bad-Name"), &["list"]).refused(&["Bad-Name", "schema name"]);
    run(&dir.0, &pg("postgres://u@[::1", "idemcheck"), &["list"])
        .refused(&["PostgreSQL", "bad connection string"]);
    run(&dir.0, &pg(" ", "idemcheck"), &["list"]).refused(&["--postgres is empty"]);
    // A server that is not there; the password never shows.
    let down = "postgres://ops:hunter2secret@127.0.0.1:1/postgres";
    let r = run(&dir.0, &pg(down, "idemcheck"), &["list"]);
    assert!(!r.stderr.contains("hunter2secret"), "{r:#?}");
    r.refused(&["PostgreSQL", "connect"]);
}

async fn drop_schema(url: &str, schema: &str) {
    let Ok((client, conn)) = tokio_postgres::connect(url, tokio_postgres::NoTls).await else {
        return;
    };
    let task = tokio::spawn(conn);
    let _ = client
        .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
        .await;
    drop(client);
    let _ = task.await;
}

#[test]
fn keys_are_checked_before_any_store_is_opened() {
    // A malformed key is the error even when the ledger named does not exist.
    let dir = TempDir::new("idemcheck-ledger-keys");
    let store = vec![
        "--sqlite".to_string(),
        "/nonexistent/ledger.sqlite3".to_string(),
    ];
    run(&dir.0, &store, &["show", "not-a-key"]).refused(&["`not-a-key` is not a key"]);
    run(&dir.0, &store, &["decide", "", "done"]).refused(&["is not a key"]);
    run(&dir.0, &store, &["decide", &"a".repeat(64), "maybe"]).refused(&["maybe"]);
}
