//! `ledger-worker`: the process the real-failure tests kill and race.
//!
//! ```text
//! ledger-worker crash --store SPEC --effects FILE --progress FILE (--pause BOUNDARY:N | --forever | --finish) [--seed N]
//! ledger-worker race  --store SPEC --effects FILE --keys N --start-at UNIX_MS --worker N
//! ```
//!
//! `crash` works through operations 0, 1, 2, … of the guarded tool, resuming what an
//! earlier (killed) process left unfinished: it appends `start OP` before each call and
//! `done OP RESULT` after it, to the progress file — the agent's own task list. With
//! `--pause`, it stops for good at the N-th passage of the boundary and prints
//! `PAUSED BOUNDARY OP`, waiting for the test's SIGKILL; with `--forever` it runs until
//! killed at a random moment; with `--finish` it completes every started operation
//! (waiting out the leases of dead owners) and prints `FINISHED N`.
//!
//! `race` waits for the start time, then calls operations 0..N in order, asking again
//! later for those another worker had in flight, and prints
//! `RACE worker=W executed=E checksum=C`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use idemcheck::{Context, Outcome, Scope};
use idemcheck_ledger_worker::{ApplyArgs, Boundary, Effects, Hook, Hooked, StoreSpec, apply};

struct Args(BTreeMap<String, String>);

impl Args {
    fn parse(list: &[String]) -> Result<Args, String> {
        let mut map = BTreeMap::new();
        let mut it = list.iter();
        while let Some(flag) = it.next() {
            let name = flag
                .strip_prefix("--")
                .ok_or_else(|| format!("unexpected argument `{flag}`"))?;
            match name {
                "forever" | "finish" => {
                    map.insert(name.to_string(), String::new());
                }
                _ => {
                    let value = it.next().ok_or_else(|| format!("`{flag}` needs a value"))?;
                    map.insert(name.to_string(), value.clone());
                }
            }
        }
        Ok(Args(map))
    }

    fn get(&self, name: &str) -> Result<&str, String> {
        self.0
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| format!("missing --{name}"))
    }

    fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    fn number(&self, name: &str) -> Result<u64, String> {
        self.get(name)?
            .parse()
            .map_err(|_| format!("--{name} must be a number"))
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The progress file: which operations were started and which are done (with results).
/// A line cut short by a kill is ignored.
fn read_progress(path: &PathBuf) -> (BTreeSet<u64>, BTreeMap<u64, String>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (mut started, mut done) = (BTreeSet::new(), BTreeMap::new());
    for line in text.lines() {
        let mut parts = line.split(' ');
        match (parts.next(), parts.next().and_then(|o| o.parse().ok())) {
            (Some("start"), Some(op)) => {
                started.insert(op);
            }
            (Some("done"), Some(op)) => {
                if let Some(result) = parts.next().filter(|r| r.starts_with("effect-")) {
                    done.insert(op, result.to_string());
                }
            }
            _ => {}
        }
    }
    (started, done)
}

async fn crash(args: &Args) -> Result<(), String> {
    let store = StoreSpec::parse(args.get("store")?)?;
    let progress_path = PathBuf::from(args.get("progress")?);
    let finish = args.has("finish");
    let pause = match args.0.get("pause") {
        None => None,
        Some(p) => {
            let (b, n) = p.split_once(':').ok_or("--pause BOUNDARY:N")?;
            let b = Boundary::parse(b).ok_or_else(|| format!("unknown boundary `{b}`"))?;
            Some((b, n.parse::<u32>().map_err(|_| "--pause BOUNDARY:N")?))
        }
    };
    if !finish && pause.is_none() && !args.has("forever") {
        return Err("one of --pause, --forever, --finish".into());
    }
    let seed = args.number("seed").unwrap_or(0);
    let hook = Arc::new(Hook::new(pause));
    let ledger = store.open(4).await.map_err(|e| e.to_string())?;
    let ledger = Hooked::new(ledger, hook.clone());
    let effects = Effects::open(&PathBuf::from(args.get("effects")?), Some(hook.clone()))
        .map_err(|e| e.to_string())?;
    let (started, done) = read_progress(&progress_path);
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&progress_path)
        .map_err(|e| e.to_string())?;
    let ctx = Context::new(ledger, Scope::run("crash-test"))
        .with_owner(format!("worker-pid{}", std::process::id()))
        .with_max_wait(if finish {
            Duration::from_secs(60)
        } else {
            Duration::ZERO
        });

    // A finished operation, called again after the restart: must replay, not re-run.
    if !done.is_empty() {
        let (&op, expected) = done
            .iter()
            .nth((seed as usize) % done.len())
            .expect("non-empty");
        hook.set_op(op);
        match apply::call(&ctx, &effects, ApplyArgs { op }).await {
            Outcome::Completed(r) if &r == expected => {}
            other => return Err(format!("replay of op {op}: {other:?}, expected {expected}")),
        }
    }
    let mut queue: VecDeque<u64> = started
        .iter()
        .filter(|op| !done.contains_key(op))
        .copied()
        .collect();
    let mut next_new = started.iter().next_back().map_or(0, |m| m + 1);
    let mut deferred: Vec<u64> = Vec::new();
    let mut completed = done.len();
    let mut since_retry = 0;
    loop {
        let op = match queue.pop_front() {
            Some(op) => op,
            None if finish => break,
            None => {
                since_retry += 1;
                if since_retry >= 8 && !deferred.is_empty() {
                    since_retry = 0;
                    queue.extend(deferred.drain(..));
                    continue;
                }
                next_new += 1;
                next_new - 1
            }
        };
        hook.set_op(op);
        writeln!(log, "start {op}").map_err(|e| e.to_string())?;
        match apply::call(&ctx, &effects, ApplyArgs { op }).await {
            Outcome::Completed(r) => {
                writeln!(log, "done {op} {r}").map_err(|e| e.to_string())?;
                completed += 1;
            }
            // A dead owner's lease is still running: come back to it later.
            Outcome::Unknown(_) if !finish => deferred.push(op),
            other => return Err(format!("op {op}: {other:?}")),
        }
    }
    say(&format!("FINISHED {completed}"));
    Ok(())
}

async fn race(args: &Args) -> Result<(), String> {
    let store = StoreSpec::parse(args.get("store")?)?;
    let keys = args.number("keys")?;
    let worker = args.number("worker")?;
    let start_at = args.number("start-at")?;
    let ledger = store.open(2).await.map_err(|e| e.to_string())?;
    let effects =
        Effects::open(&PathBuf::from(args.get("effects")?), None).map_err(|e| e.to_string())?;
    let ctx = Context::new(ledger, Scope::run("race-test"))
        .with_owner(format!("race-{worker}-pid{}", std::process::id()))
        .with_max_wait(Duration::ZERO);
    say("READY");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    tokio::time::sleep(Duration::from_millis(start_at.saturating_sub(now))).await;
    let mut results = BTreeMap::new();
    let mut later = Vec::new();
    for op in 0..keys {
        match apply::call(&ctx, &effects, ApplyArgs { op }).await {
            Outcome::Completed(r) => {
                results.insert(op, r);
            }
            Outcome::Unknown(_) => later.push(op),
            other => return Err(format!("op {op}: {other:?}")),
        }
    }
    for op in later {
        let mut tries = 0;
        loop {
            match apply::call(&ctx, &effects, ApplyArgs { op }).await {
                Outcome::Completed(r) => {
                    results.insert(op, r);
                    break;
                }
                Outcome::Unknown(_) if tries < 2_000 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                other => return Err(format!("op {op} after the race: {other:?}")),
            }
        }
    }
    let all: String = results.iter().map(|(op, r)| format!("{op}={r};")).collect();
    let checksum = idemcheck::key::sha256_hex(all.as_bytes());
    say(&format!(
        "RACE worker={worker} executed={} completed={} checksum={checksum}",
        effects.executed(),
        results.len()
    ));
    Ok(())
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = argv.split_first() else {
        eprintln!("usage: ledger-worker crash|race --store SPEC ...");
        return ExitCode::from(2);
    };
    let args = match Args::parse(rest) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ledger-worker: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result = rt.block_on(async {
        match command.as_str() {
            "crash" => crash(&args).await,
            "race" => race(&args).await,
            other => Err(format!("unknown command `{other}`")),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ledger-worker {command}: {e}");
            ExitCode::from(1)
        }
    }
}
