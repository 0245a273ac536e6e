//! `idemcheck-ledger`: an operator's tool for an idemcheck ledger (SQLite or PostgreSQL).
//!
//! ```text
//! idemcheck-ledger [--sqlite PATH | --postgres URL] list [--status unknown|pending|done] [--json]
//! idemcheck-ledger show KEY [--json]
//! idemcheck-ledger decide KEY done|not-done [--note TEXT] [--result JSON] [--force]
//! idemcheck-ledger prune
//! idemcheck-ledger export --json
//! ```
//!
//! Exit status: 0 done; 2 the command cannot be carried out as given (a bad argument, a
//! path or URL that names no ledger, a malformed key, a key with no record, a record that
//! is not undecided); 1 the store failed while working. Never a panic. See docs/ledger.md.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod render;
mod store;

use idemcheck::Key;
use idemcheck::ledger::{Decision, LedgerAdmin, LedgerError, RecordQuery, RecordState};
use store::Opened;

/// List, show, decide, prune and export the records of an idemcheck ledger.
#[derive(Debug, Parser)]
#[command(name = "idemcheck-ledger", version, about, long_about = None)]
struct Cli {
    /// The SQLite ledger file [default: ledger.sqlite3 in the state directory, as
    /// `SqliteLedger::open_default()` keeps it]
    #[arg(long, value_name = "PATH", global = true)]
    sqlite: Option<PathBuf>,

    /// A PostgreSQL ledger: its connection string (`postgres://user@host:5432/db`, or
    /// `host=… user=…`; `sslmode` and `sslrootcert` as the store takes them)
    #[arg(
        long,
        value_name = "URL",
        global = true,
        env = "IDEMCHECK_LEDGER_POSTGRES",
        hide_env_values = true
    )]
    postgres: Option<String>,

    /// The PostgreSQL schema holding the ledger
    #[arg(long, value_name = "NAME", global = true, default_value = "idemcheck")]
    schema: String,

    /// The tombstone window the agents' store is opened with, in hours (30 days by default):
    /// what is shown as a tombstone or forgotten, and what `prune` deletes, depend on it
    #[arg(long, value_name = "HOURS", global = true, default_value_t = 720)]
    tombstone_window_hours: u64,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List records, oldest first
    List {
        /// Only records in this state: unknown (escalated, waiting for a person), pending
        /// (claimed, not settled: in flight or its worker died), done (committed, failed or
        /// a tombstone), or one of the five record states
        #[arg(long, value_enum)]
        status: Option<Status>,
        /// Print a JSON array of records instead of a table
        #[arg(long)]
        json: bool,
        /// At most this many records
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
    },
    /// Show one record and the decisions taken on its key
    Show {
        /// The record's key (64 hexadecimal characters, as `list` prints it)
        key: String,
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
    },
    /// Record a person's decision on an unresolved (unknown or pending) record
    Decide {
        /// The record's key
        key: String,
        /// done: the effect happened (the record is committed; later calls replay the
        /// result); not-done: it did not (the record is deleted; the next call executes)
        decision: DecideAs,
        /// Why: kept with the decision in the store's decision log
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
        /// With done: the tool's result later calls replay, as JSON [default: null]
        #[arg(long, value_name = "JSON")]
        result: Option<String>,
        /// Decide a pending record whose owner still holds its lease (it may still be
        /// running)
        #[arg(long)]
        force: bool,
    },
    /// Drop the results of expired records (keeping tombstones) and delete forgotten ones
    Prune,
    /// Write every record and the decision log as one JSON document to stdout
    Export {
        /// JSON (the only format; accepted for clarity)
        #[arg(long)]
        json: bool,
    },
}

/// What `list --status` selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Status {
    /// Escalated to a person (UNKNOWN)
    Unknown,
    /// Claimed and not settled (DECLARED)
    Pending,
    /// Settled: committed, failed, or a tombstone
    Done,
    /// DECLARED
    Declared,
    /// COMMITTED
    Committed,
    /// FAILED
    Failed,
    /// A tombstone (past its TTL)
    Pruned,
}

impl Status {
    fn states(self) -> Vec<RecordState> {
        match self {
            Status::Unknown => vec![RecordState::Unknown],
            Status::Pending | Status::Declared => vec![RecordState::Declared],
            Status::Done => vec![
                RecordState::Committed,
                RecordState::Failed,
                RecordState::Pruned,
            ],
            Status::Committed => vec![RecordState::Committed],
            Status::Failed => vec![RecordState::Failed],
            Status::Pruned => vec![RecordState::Pruned],
        }
    }
}

/// A person's decision, as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DecideAs {
    /// The effect happened
    Done,
    /// The effect did not happen
    NotDone,
}

/// Why a command failed, and its exit status.
#[derive(Debug)]
enum Failure {
    /// The command cannot be carried out as given: exit 2.
    Given(String),
    /// The store failed: exit 1.
    Store(String),
}

impl Failure {
    fn store(what: &str, e: LedgerError) -> Failure {
        Failure::Store(format!("{what}: {e}"))
    }
}

type Result<T, E = Failure> = std::result::Result<T, E>;

/// How many records `export` and `list` read per query.
const PAGE: usize = 1000;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("idemcheck-ledger: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Given(text)) => {
            eprintln!("idemcheck-ledger: {text}");
            ExitCode::from(2)
        }
        Err(Failure::Store(text)) => {
            eprintln!("idemcheck-ledger: {text}");
            ExitCode::from(1)
        }
    }
}

async fn run(cli: Cli) -> Result<()> {
    // Arguments first: a malformed key is reported before any store is opened.
    if let Command::Show { key, .. } | Command::Decide { key, .. } = &cli.command {
        parse_key(key)?;
    }
    let result = match &cli.command {
        Command::Decide {
            decision: DecideAs::Done,
            result: Some(text),
            ..
        } => Some(
            serde_json::from_str::<serde_json::Value>(text)
                .map_err(|e| Failure::Given(format!("--result is not JSON ({e}): {text}")))?,
        ),
        Command::Decide {
            decision: DecideAs::NotDone,
            result: Some(_),
            ..
        } => {
            return Err(Failure::Given(
                "--result goes with `done` only: a record decided not-done is deleted".into(),
            ));
        }
        _ => None,
    };
    let opened = store::open(&cli).await?;
    let ledger = &*opened.ledger;
    let mut out = std::io::stdout().lock();
    let written = match cli.command {
        Command::List {
            status,
            json,
            limit,
        } => list(ledger, status, json, limit, &mut out).await?,
        Command::Show { key, json } => show(&opened, &parse_key(&key)?, json, &mut out).await?,
        Command::Decide {
            key,
            decision,
            note,
            force,
            ..
        } => {
            let key = parse_key(&key)?;
            decide(
                &opened,
                &key,
                decision,
                result,
                note.as_deref(),
                force,
                &mut out,
            )
            .await?
        }
        Command::Prune => {
            let n = ledger
                .prune()
                .await
                .map_err(|e| Failure::store("prune", e))?;
            writeln!(
                out,
                "pruned {n} record{} in {}",
                if n == 1 { "" } else { "s" },
                opened.name
            )
        }
        Command::Export { json: _ } => export(&opened, &mut out).await?,
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Store(format!("cannot write the output: {e}")))
}

/// A key as typed: 64 hexadecimal characters (upper case accepted).
fn parse_key(text: &str) -> Result<Key> {
    let trimmed = text.trim();
    if trimmed.len() == 64 && trimmed.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(Key::from_stored(trimmed.to_ascii_lowercase()));
    }
    Err(Failure::Given(format!(
        "`{text}` is not a key: a key is 64 hexadecimal characters, as `idemcheck-ledger list` prints them"
    )))
}

async fn list(
    ledger: &dyn LedgerAdmin,
    status: Option<Status>,
    json: bool,
    limit: Option<usize>,
    out: &mut impl std::io::Write,
) -> Result<std::io::Result<()>> {
    let states = status.map(Status::states).unwrap_or_default();
    let mut records = Vec::new();
    let mut query = RecordQuery::all().states(states);
    loop {
        let want = limit.map_or(PAGE, |l| PAGE.min(l - records.len()));
        if want == 0 {
            break;
        }
        let page = ledger
            .records(&query.clone().limit(want))
            .await
            .map_err(|e| Failure::store("list", e))?;
        let full = page.len() == want;
        if let Some(last) = page.last() {
            query = query.after(last);
        }
        records.extend(page);
        if !full {
            break;
        }
    }
    Ok(if json {
        serde_json::to_writer_pretty(&mut *out, &records)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        render::table(&records, out)
    })
}

async fn show(
    opened: &Opened,
    key: &Key,
    json: bool,
    out: &mut impl std::io::Write,
) -> Result<std::io::Result<()>> {
    let ledger = &*opened.ledger;
    let record = ledger
        .load(key)
        .await
        .map_err(|e| Failure::store("show", e))?;
    let decisions = ledger
        .decisions(Some(key))
        .await
        .map_err(|e| Failure::store("show", e))?;
    if record.is_none() && decisions.is_empty() {
        return Err(Failure::Given(format!(
            "no record for key {key} in {} (never claimed, decided not-done earlier, or forgotten after its tombstone window)",
            opened.name
        )));
    }
    Ok(if json {
        let doc = serde_json::json!({ "record": record, "decisions": decisions });
        serde_json::to_writer_pretty(&mut *out, &doc)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        render::record(key, record.as_ref(), &decisions, out)
    })
}

async fn decide(
    opened: &Opened,
    key: &Key,
    decision: DecideAs,
    result: Option<serde_json::Value>,
    note: Option<&str>,
    force: bool,
    out: &mut impl std::io::Write,
) -> Result<std::io::Result<()>> {
    let ledger = &*opened.ledger;
    let Some(record) = ledger
        .load(key)
        .await
        .map_err(|e| Failure::store("decide", e))?
    else {
        return Err(Failure::Given(format!(
            "no record for key {key} in {}: nothing to decide",
            opened.name
        )));
    };
    if !record.state.is_unresolved() {
        return Err(Failure::Given(format!(
            "the record of {key} is {} already: only unknown and pending records are decided",
            record.state.as_str()
        )));
    }
    let now = render::now();
    if record.state == RecordState::Declared && record.lease_until.0 > now && !force {
        return Err(Failure::Given(format!(
            "the record of {key} is pending and its owner `{}` holds the lease until {}: it may \
             still be running. Wait for the lease to run out, or pass --force",
            record.owner,
            render::time(record.lease_until.0)
        )));
    }
    let replayed = result.unwrap_or(serde_json::Value::Null);
    let decided = match decision {
        DecideAs::Done => Decision::Happened {
            result: replayed.clone(),
        },
        DecideAs::NotDone => Decision::DidNotHappen,
    };
    ledger
        .decide_with_note(key, &decided, note)
        .await
        .map_err(|e| match e {
            LedgerError::NotFound(_) => Failure::Given(format!(
                "the record of {key} was settled or deleted meanwhile: nothing decided"
            )),
            other => Failure::store("decide", other),
        })?;
    Ok(match decision {
        DecideAs::Done => writeln!(
            out,
            "decided {key} ({}, was {}): done — committed; later calls replay {replayed}",
            record.tool,
            record.state.as_str()
        ),
        DecideAs::NotDone => writeln!(
            out,
            "decided {key} ({}, was {}): not done — record deleted; the next call with this key executes",
            record.tool,
            record.state.as_str()
        ),
    })
}

async fn export(opened: &Opened, out: &mut impl std::io::Write) -> Result<std::io::Result<()>> {
    let ledger = &*opened.ledger;
    // Streamed a page at a time: the document is never held whole.
    let mut w = || -> std::io::Result<()> {
        write!(
            out,
            "{{\"format\":\"idemcheck-ledger-export\",\"version\":1,\"store\":{},\"exported_at\":{},\"records\":[",
            serde_json::Value::from(opened.name.clone()),
            render::now()
        )
    };
    if let Err(e) = w() {
        return Ok(Err(e));
    }
    let mut query = RecordQuery::all().limit(PAGE);
    let mut first = true;
    loop {
        let page = ledger
            .records(&query)
            .await
            .map_err(|e| Failure::store("export", e))?;
        for r in &page {
            let sep = if first { "\n" } else { ",\n" };
            first = false;
            if let Err(e) = out
                .write_all(sep.as_bytes())
                .and_then(|()| serde_json::to_writer(&mut *out, r).map_err(Into::into))
            {
                return Ok(Err(e));
            }
        }
        match page.last() {
            Some(last) if page.len() == PAGE => query = query.after(last),
            _ => break,
        }
    }
    let decisions = ledger
        .decisions(None)
        .await
        .map_err(|e| Failure::store("export", e))?;
    Ok((|| {
        out.write_all(b"\n],\"decisions\":")?;
        serde_json::to_writer(&mut *out, &decisions)?;
        out.write_all(b"}\n")
    })())
}
