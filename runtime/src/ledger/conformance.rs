//! The conformance suite (feature `conformance`): one set of cases that every [`Ledger`]
//! must pass — the in-memory store, SQLite, PostgreSQL, and any store of your own.
//!
//! It covers every transition of the protocol (claim, commit, failure, unknown, release,
//! take-over, decisions), the fingerprint on every path that returns a stored result, lease
//! expiry and take-over, fencing of a stale owner, TTL expiry, tombstones and pruning (the
//! retention boundary: the postcondition asked after the TTL, the key forgotten after the
//! tombstone window), secrets, the round trip of stored values, and concurrent claims from
//! several handles at once — store-level and through the executor.
//!
//! A store plugs in with a [`Harness`]: it opens a new, empty store per case (so cases run
//! concurrently and never see each other's records), with the suite's [`TOMBSTONE_WINDOW`],
//! and says how time passes on it — a
//! virtual clock advanced at once, or real time for a store that reads its own clock (the
//! PostgreSQL store uses the database's). A store that cannot run a case must say which and
//! why ([`Harness::skip`]); the [`Report`] lists it.
//!
//! ```no_run
//! # async fn demo() {
//! use std::sync::Arc;
//! use idemcheck::ledger::conformance::{self, Harness, Store};
//! use idemcheck::{MemoryLedger, VirtualClock};
//!
//! struct Memory;
//! #[async_trait::async_trait]
//! impl Harness for Memory {
//!     fn name(&self) -> String { "memory".into() }
//!     async fn open(&self, handles: usize) -> Result<Store, String> {
//!         let clock = VirtualClock::new();
//!         let ledger = MemoryLedger::with_clock(Arc::new(clock.clone()))
//!             .with_tombstone_window(conformance::TOMBSTONE_WINDOW);
//!         Ok(Store::virtual_time((0..handles).map(|_| Arc::new(ledger.clone()) as _).collect(), clock))
//!     }
//! }
//! conformance::run(&Memory).await.assert_passed();
//! # }
//! ```

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{
    Begin, Claim, Decided, Decision, Ledger, LedgerAdmin, LedgerError, Record, RecordQuery,
    RecordState, Resolution, StoredFailure, Token, WITHHELD_MARK, digest_of,
};
use crate::clock::{Clock, VirtualClock};
use crate::context::Context;
use crate::contract::{Contract, KeySpec, ToolKind};
use crate::executor;
use crate::key::{Fingerprint, Key, Material, Scope};
use crate::outcome::{Classify, ErrorClass, Failure, NotCompleted, Outcome};

/// The lease every claim of the suite takes.
pub const LEASE: Duration = Duration::from_millis(1_000);
/// The TTL every claim of the suite asks for.
pub const TTL: Duration = Duration::from_millis(2_500);
/// The tombstone window a [`Harness`] must open its stores with (e.g.
/// `MemoryLedger::with_tombstone_window`): the retention cases wait for it to pass, and fail
/// when the store keeps its tombstones longer or shorter. On a store whose clock is real
/// time (PostgreSQL's `now()`), a case that checks a tombstone is still there has the window
/// less [`MARGIN`] to do so after its TTL ran out: 3.5 s proved too little on a loaded
/// 2-core machine (a tombstone forgotten before the prune that should have left it), so
/// the window leaves almost 6 s.
pub const TOMBSTONE_WINDOW: Duration = Duration::from_millis(6_000);
/// Slack added when the suite waits for a lease or a TTL to run out.
const MARGIN: Duration = Duration::from_millis(150);

type Advance = Arc<dyn Fn(Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// A new, empty store opened for one case.
pub struct Store {
    /// Handles on the store, each as a separate worker would hold it (its own connection
    /// where the store has connections). At least one.
    pub handles: Vec<Arc<dyn LedgerAdmin>>,
    /// The clock a [`Context`] must use with this store.
    pub clock: Arc<dyn Clock>,
    advance: Advance,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("handles", &self.handles.len())
            .finish_non_exhaustive()
    }
}

impl Store {
    /// A store whose time is `clock`: the suite advances it when it needs time to pass.
    pub fn virtual_time(handles: Vec<Arc<dyn LedgerAdmin>>, clock: VirtualClock) -> Store {
        let advance_clock = clock.clone();
        Store {
            handles,
            clock: Arc::new(clock),
            advance: Arc::new(move |d| {
                advance_clock.advance(d);
                Box::pin(async {})
            }),
        }
    }

    /// A store on real time (it reads its own clock, e.g. the database's): the suite
    /// sleeps when it needs time to pass.
    pub fn real_time(handles: Vec<Arc<dyn LedgerAdmin>>) -> Store {
        Store {
            handles,
            clock: Arc::new(crate::clock::SystemClock::new()),
            advance: Arc::new(|d| Box::pin(tokio::time::sleep(d))),
        }
    }

    fn ledger(&self) -> &dyn LedgerAdmin {
        &*self.handles[0]
    }

    async fn advance(&self, d: Duration) {
        (self.advance)(d).await;
    }
}

/// How the suite reaches a store.
#[async_trait]
pub trait Harness: Send + Sync {
    /// The store's name, for the report.
    fn name(&self) -> String;

    /// Open a new, empty store with `handles` handles on it, keeping tombstones for
    /// [`TOMBSTONE_WINDOW`].
    async fn open(&self, handles: usize) -> Result<Store, String>;

    /// Why this store skips `case` (see [`CASES`]), if it does.
    fn skip(&self, case: &str) -> Option<String> {
        let _ = case;
        None
    }
}

/// What the suite found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The store's name.
    pub store: String,
    /// Cases that passed.
    pub passed: Vec<&'static str>,
    /// Cases the store skipped, with its reason.
    pub skipped: Vec<(&'static str, String)>,
    /// Cases that failed, with what went wrong.
    pub failed: Vec<(&'static str, String)>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "ledger conformance, store `{}`: {} passed, {} failed, {} skipped",
            self.store,
            self.passed.len(),
            self.failed.len(),
            self.skipped.len()
        )?;
        for (case, why) in &self.skipped {
            writeln!(f, "  skipped {case}: {why}")?;
        }
        for (case, what) in &self.failed {
            writeln!(f, "  FAILED  {case}: {what}")?;
        }
        Ok(())
    }
}

impl Report {
    /// Print the report; panic if a case failed.
    pub fn assert_passed(&self) {
        eprint!("{self}");
        assert!(
            self.failed.is_empty(),
            "the `{}` store failed the ledger conformance suite:\n{self}",
            self.store
        );
    }
}

type CaseResult = Result<(), String>;
type CaseFn = for<'a> fn(&'a Store) -> Pin<Box<dyn Future<Output = CaseResult> + Send + 'a>>;

macro_rules! cases {
    ($($name:ident: $handles:expr),* $(,)?) => {
        /// Every case of the suite, by name, in the order they are reported.
        pub const CASES: &[&str] = &[$(stringify!($name)),*];
        const TABLE: &[(&str, usize, CaseFn)] = &[$((stringify!($name), $handles, |s| Box::pin($name(s)))),*];
    };
}

cases! {
    claim_on_an_empty_key: 1,
    a_claimed_key_is_returned_unchanged: 1,
    commit_is_replayed_with_its_fingerprint: 1,
    failure_is_replayed: 1,
    unknown_stays_unresolved_until_resolved: 1,
    resolve_is_fenced: 1,
    release_frees_the_key_and_is_fenced: 1,
    tokens_are_unique_across_the_store: 1,
    take_over_waits_for_the_lease: 1,
    a_stale_owner_is_fenced_after_take_over: 2,
    an_unknown_record_can_be_taken_over: 1,
    resolved_records_are_never_taken_over: 1,
    an_expired_record_is_a_tombstone_then_forgotten: 1,
    a_tombstone_is_taken_over_only_with_its_inputs: 1,
    concurrent_take_overs_of_a_tombstone_have_one_winner: 4,
    prune_leaves_tombstones_then_forgets: 1,
    pending_lists_unresolved_records_oldest_first: 1,
    decide_happened_commits_and_fences: 1,
    decide_did_not_happen_frees_the_key: 1,
    records_lists_states_as_seen_in_order_and_pages: 1,
    decisions_are_logged_with_their_note: 1,
    stored_values_round_trip: 1,
    secrets_are_not_stored_in_clear: 1,
    concurrent_claims_have_one_winner: 4,
    concurrent_take_overs_have_one_winner: 4,
    executor_executes_once_and_replays: 1,
    executor_refuses_a_divergent_payload_on_every_path: 1,
    executor_replays_a_stored_failure: 1,
    executor_adopts_or_takes_over_a_crashed_claim: 2,
    executor_replays_secrets_withheld: 1,
    concurrent_executor_calls_execute_once: 4,
    executor_asks_the_postcondition_after_the_ttl: 1,
    concurrent_redeliveries_after_the_ttl_execute_once: 4,
}

/// Run every case against `harness`, concurrently (each case on its own store).
pub async fn run(harness: &dyn Harness) -> Report {
    let mut report = Report {
        store: harness.name(),
        ..Report::default()
    };
    let mut runs = Vec::new();
    for &(name, handles, case) in TABLE {
        if let Some(why) = harness.skip(name) {
            report.skipped.push((name, why));
            continue;
        }
        runs.push(async move {
            let store = match harness.open(handles).await {
                Ok(store) => store,
                Err(e) => return (name, Err(format!("cannot open the store: {e}"))),
            };
            (name, case(&store).await)
        });
    }
    for (name, outcome) in join_all(runs).await {
        match outcome {
            Ok(()) => report.passed.push(name),
            Err(e) => report.failed.push((name, e)),
        }
    }
    report
}

/// Poll every future until all are done (on the current task).
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, fut) in out.iter_mut().zip(futures.iter_mut()) {
            if slot.is_none() {
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

// ------------------------------------------------------------------------------- helpers

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!("line {}: {}", line!(), format!($($msg)+)));
        }
    };
}

macro_rules! ensure_eq {
    ($left:expr, $right:expr $(,)?) => {{
        let (l, r) = (&$left, &$right);
        if l != r {
            return Err(format!(
                "line {}: `{}` is {:?}, expected {:?}",
                line!(),
                stringify!($left),
                l,
                r
            ));
        }
    }};
}

/// `?` for store calls, with where it happened.
trait At<T> {
    fn at(self, what: &str) -> Result<T, String>;
}

impl<T> At<T> for Result<T, LedgerError> {
    fn at(self, what: &str) -> Result<T, String> {
        self.map_err(|e| format!("{what}: {e}"))
    }
}

const TOOL: &str = "conformance_tool";

fn key(case: &str, i: usize) -> Key {
    Key::from_canonical(
        &Scope::run("ledger-conformance"),
        TOOL,
        &format!("[\"{case}\",{i}]"),
    )
}

fn fp(text: &str) -> Fingerprint {
    Fingerprint::from_stored(crate::key::sha256_hex(text.as_bytes()))
}

fn claim<'a>(key: &'a Key, fingerprint: &'a Fingerprint, owner: &'a str) -> Claim<'a> {
    Claim {
        key,
        fingerprint,
        tool: TOOL,
        owner,
        lease: LEASE,
        ttl: TTL,
    }
}

async fn claimed(ledger: &dyn Ledger, c: &Claim<'_>) -> Result<Token, String> {
    match ledger.begin(c).await.at("begin")? {
        Begin::Claimed { token } => Ok(token),
        Begin::Existing(r) => Err(format!(
            "begin on {} returned an existing {} record; expected a claim",
            c.key,
            r.state.as_str()
        )),
    }
}

async fn existing(ledger: &dyn Ledger, c: &Claim<'_>) -> Result<Record, String> {
    match ledger.begin(c).await.at("begin")? {
        Begin::Existing(r) => Ok(r),
        Begin::Claimed { token } => Err(format!(
            "begin on {} claimed it (token {token}); expected the existing record",
            c.key
        )),
    }
}

async fn loaded(ledger: &dyn Ledger, key: &Key) -> Result<Record, String> {
    ledger
        .load(key)
        .await
        .at("load")?
        .ok_or_else(|| format!("no record for {key}"))
}

fn committed(result: Value) -> Resolution {
    Resolution::Committed { result }
}

fn failed(message: &str) -> Resolution {
    Resolution::Failed {
        error: StoredFailure {
            message: message.into(),
            value: None,
        },
    }
}

/// Claim `key` as "a" and resolve it at once (with the suite's TTL): a tombstone once the
/// TTL has passed. Returns its token.
async fn tombstone(
    ledger: &dyn Ledger,
    key: &Key,
    fingerprint: &Fingerprint,
    resolution: Resolution,
) -> Result<Token, String> {
    let token = claimed(ledger, &claim(key, fingerprint, "a")).await?;
    ledger
        .resolve(key, token, &resolution)
        .await
        .at("resolve")?;
    Ok(token)
}

fn is_fenced<T: fmt::Debug>(r: Result<T, LedgerError>, key: &Key, token: Token) -> CaseResult {
    match r {
        Err(LedgerError::Fenced { key: k, token: t }) if &k == key && t == token => Ok(()),
        other => Err(format!(
            "expected Fenced {{ key: {key}, token: {token} }}, got {other:?}"
        )),
    }
}

fn is_not_found<T: fmt::Debug>(r: Result<T, LedgerError>, key: &Key) -> CaseResult {
    match r {
        Err(LedgerError::NotFound(k)) if &k == key => Ok(()),
        other => Err(format!("expected NotFound({key}), got {other:?}")),
    }
}

// --------------------------------------------------------------------- store-level cases

async fn claim_on_an_empty_key(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("claim", 0), fp("inputs"));
    ensure!(
        l.load(&k).await.at("load")?.is_none(),
        "a new store has a record"
    );
    let token = claimed(l, &claim(&k, &f, "worker-a")).await?;
    let r = loaded(l, &k).await?;
    ensure_eq!(r.key, k);
    ensure_eq!(r.tool, TOOL);
    ensure_eq!(r.fingerprint, f);
    ensure_eq!(r.state, RecordState::Declared);
    ensure_eq!(r.owner, "worker-a");
    ensure_eq!(r.token, token);
    ensure_eq!(r.resolution, None);
    ensure_eq!(r.updated_at, r.created_at);
    ensure_eq!(r.lease_until, r.created_at.after(LEASE));
    ensure_eq!(r.expires_at, r.created_at.after(TTL));
    Ok(())
}

async fn a_claimed_key_is_returned_unchanged(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("again", 0), fp("inputs"));
    let token = claimed(l, &claim(&k, &f, "worker-a")).await?;
    let before = loaded(l, &k).await?;
    let same = existing(l, &claim(&k, &f, "worker-b")).await?;
    ensure_eq!(same, before);
    ensure_eq!(same.token, token);
    ensure_eq!(same.owner, "worker-a");
    // Another fingerprint sees the stored one (the caller compares).
    let other = existing(l, &claim(&k, &fp("other inputs"), "worker-c")).await?;
    ensure_eq!(other.fingerprint, f);
    ensure_eq!(loaded(l, &k).await?, before);
    Ok(())
}

async fn commit_is_replayed_with_its_fingerprint(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("commit", 0), fp("inputs"));
    let token = claimed(l, &claim(&k, &f, "worker-a")).await?;
    let result = json!({"charge": "ch_1", "amount": 4900});
    l.resolve(&k, token, &committed(result.clone()))
        .await
        .at("resolve")?;
    let r = loaded(l, &k).await?;
    ensure_eq!(r.state, RecordState::Committed);
    ensure_eq!(r.token, token);
    ensure_eq!(r.resolution, Some(committed(result.clone())));
    let replay = existing(l, &claim(&k, &f, "worker-b")).await?;
    ensure_eq!(replay, r);
    let divergent = existing(l, &claim(&k, &fp("changed"), "worker-c")).await?;
    ensure_eq!(divergent.fingerprint, f);
    ensure_eq!(divergent.resolution, Some(committed(result)));
    Ok(())
}

async fn failure_is_replayed(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("failure", 0), fp("inputs"));
    let token = claimed(l, &claim(&k, &f, "worker-a")).await?;
    let failed = Resolution::Failed {
        error: StoredFailure {
            message: "card declined".into(),
            value: None,
        },
    };
    l.resolve(&k, token, &failed).await.at("resolve")?;
    let r = existing(l, &claim(&k, &f, "worker-b")).await?;
    ensure_eq!(r.state, RecordState::Failed);
    ensure_eq!(r.resolution, Some(failed));
    ensure_eq!(r.fingerprint, f);
    is_fenced(l.resolve(&k, token, &committed(json!(1))).await, &k, token)?;
    Ok(())
}

async fn unknown_stays_unresolved_until_resolved(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("unknown", 0), fp("inputs"));
    let token = claimed(l, &claim(&k, &f, "worker-a")).await?;
    let unknown = Resolution::Unknown {
        note: "timed out; postcondition cannot tell".into(),
    };
    l.resolve(&k, token, &unknown).await.at("resolve unknown")?;
    let r = existing(l, &claim(&k, &f, "worker-b")).await?;
    ensure_eq!(r.state, RecordState::Unknown);
    ensure_eq!(r.token, token);
    ensure_eq!(r.resolution, Some(unknown));
    ensure!(r.state.is_unresolved(), "unknown is unresolved");
    // The owner may still resolve it once it learns the answer.
    l.resolve(&k, token, &committed(json!("late answer")))
        .await
        .at("resolve after unknown")?;
    ensure_eq!(loaded(l, &k).await?.state, RecordState::Committed);
    is_fenced(
        l.resolve(&k, token, &committed(json!("again"))).await,
        &k,
        token,
    )?;
    Ok(())
}

async fn resolve_is_fenced(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("fenced", 0), fp("inputs"));
    let missing = key("fenced", 1);
    is_fenced(
        l.resolve(&missing, 7, &committed(json!(1))).await,
        &missing,
        7,
    )?;
    let token = claimed(l, &claim(&k, &f, "worker-a")).await?;
    let wrong = token + 1_000_000;
    is_fenced(l.resolve(&k, wrong, &committed(json!(1))).await, &k, wrong)?;
    ensure_eq!(loaded(l, &k).await?.state, RecordState::Declared);
    l.resolve(&k, token, &committed(json!(1)))
        .await
        .at("resolve")?;
    let failed = Resolution::Failed {
        error: StoredFailure {
            message: "no".into(),
            value: None,
        },
    };
    is_fenced(l.resolve(&k, token, &failed).await, &k, token)?;
    ensure_eq!(loaded(l, &k).await?.resolution, Some(committed(json!(1))));
    Ok(())
}

async fn release_frees_the_key_and_is_fenced(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("release", 0), fp("inputs"));
    let first = claimed(l, &claim(&k, &f, "worker-a")).await?;
    is_fenced(
        l.release(&k, first + 1_000_000).await,
        &k,
        first + 1_000_000,
    )?;
    l.release(&k, first).await.at("release")?;
    ensure!(
        l.load(&k).await.at("load")?.is_none(),
        "released record remains"
    );
    is_fenced(l.release(&k, first).await, &k, first)?;
    let second = claimed(l, &claim(&k, &f, "worker-b")).await?;
    ensure!(second != first, "a re-claim reused token {first}");
    // The first owner's late writes hit the new claim's token: fenced.
    is_fenced(l.release(&k, first).await, &k, first)?;
    is_fenced(l.resolve(&k, first, &committed(json!(1))).await, &k, first)?;
    // Only a DECLARED record can be released.
    l.resolve(&k, second, &Resolution::Unknown { note: "?".into() })
        .await
        .at("resolve unknown")?;
    is_fenced(l.release(&k, second).await, &k, second)?;
    l.resolve(&k, second, &committed(json!(2)))
        .await
        .at("resolve")?;
    is_fenced(l.release(&k, second).await, &k, second)?;
    ensure_eq!(loaded(l, &k).await?.state, RecordState::Committed);
    Ok(())
}

async fn tokens_are_unique_across_the_store(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let mut seen = BTreeSet::new();
    let mut note = |t: Token| -> CaseResult {
        ensure!(seen.insert(t), "token {t} handed out twice");
        Ok(())
    };
    for i in 0..5 {
        let k = key("tokens", i);
        let t = claimed(l, &claim(&k, &f, "w")).await?;
        note(t)?;
        l.release(&k, t).await.at("release")?;
        let t = claimed(l, &claim(&k, &f, "w")).await?;
        note(t)?;
        l.resolve(&k, t, &Resolution::Unknown { note: "?".into() })
            .await
            .at("unknown")?;
        l.decide(&k, &Decision::Happened { result: json!(i) })
            .await
            .at("decide")?;
        note(loaded(l, &k).await?.token)?;
    }
    let k = key("tokens", 99);
    let t = claimed(l, &claim(&k, &f, "w")).await?;
    note(t)?;
    s.advance(LEASE + MARGIN).await;
    let t2 = l
        .take_over(&claim(&k, &f, "w2"), t)
        .await
        .at("take_over")?
        .ok_or("take_over after the lease was refused")?;
    note(t2)?;
    Ok(())
}

async fn take_over_waits_for_the_lease(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("take-over", 0), fp("inputs"));
    let t1 = claimed(l, &claim(&k, &f, "crashed")).await?;
    let before = loaded(l, &k).await?;
    ensure_eq!(
        l.take_over(&claim(&k, &f, "rescuer"), t1)
            .await
            .at("take_over")?,
        None
    );
    ensure_eq!(loaded(l, &k).await?, before);
    s.advance(LEASE + MARGIN).await;
    ensure_eq!(
        l.take_over(&claim(&k, &f, "rescuer"), t1 + 1_000_000)
            .await
            .at("take_over with a wrong token")?,
        None
    );
    let missing = key("take-over", 1);
    ensure_eq!(
        l.take_over(&claim(&missing, &f, "rescuer"), t1)
            .await
            .at("take_over missing")?,
        None
    );
    let t2 = l
        .take_over(&claim(&k, &f, "rescuer"), t1)
        .await
        .at("take_over")?
        .ok_or("take_over after the lease was refused")?;
    ensure!(t2 != t1, "take_over kept the token");
    let after = loaded(l, &k).await?;
    ensure_eq!(after.state, RecordState::Declared);
    ensure_eq!(after.owner, "rescuer");
    ensure_eq!(after.token, t2);
    ensure_eq!(after.resolution, None);
    ensure_eq!(after.fingerprint, f);
    ensure_eq!(after.created_at, before.created_at);
    ensure_eq!(after.expires_at, before.expires_at);
    ensure_eq!(after.lease_until, after.updated_at.after(LEASE));
    ensure!(
        after.updated_at >= before.created_at.after(LEASE),
        "the take-over happened before the lease ran out"
    );
    // The new lease is live: nobody takes it over again now, not even with the new token.
    ensure_eq!(
        l.take_over(&claim(&k, &f, "third"), t2)
            .await
            .at("take_over again")?,
        None
    );
    ensure_eq!(
        l.take_over(&claim(&k, &f, "third"), t1)
            .await
            .at("take_over stale")?,
        None
    );
    Ok(())
}

async fn a_stale_owner_is_fenced_after_take_over(s: &Store) -> CaseResult {
    let (old, new) = (&*s.handles[0], &*s.handles[1]);
    let (k, f) = (key("stale", 0), fp("inputs"));
    let t1 = claimed(old, &claim(&k, &f, "stale-worker")).await?;
    s.advance(LEASE + MARGIN).await;
    let t2 = new
        .take_over(&claim(&k, &f, "new-owner"), t1)
        .await
        .at("take_over")?
        .ok_or("take_over refused")?;
    is_fenced(
        old.resolve(&k, t1, &committed(json!("stale"))).await,
        &k,
        t1,
    )?;
    is_fenced(old.release(&k, t1).await, &k, t1)?;
    is_fenced(
        old.resolve(
            &k,
            t1,
            &Resolution::Failed {
                error: StoredFailure {
                    message: "stale".into(),
                    value: None,
                },
            },
        )
        .await,
        &k,
        t1,
    )?;
    ensure_eq!(loaded(new, &k).await?.token, t2);
    new.resolve(&k, t2, &committed(json!("fresh")))
        .await
        .at("resolve by the new owner")?;
    is_fenced(
        old.resolve(&k, t1, &committed(json!("stale"))).await,
        &k,
        t1,
    )?;
    let r = loaded(old, &k).await?;
    ensure_eq!(r.resolution, Some(committed(json!("fresh"))));
    ensure_eq!(r.owner, "new-owner");
    Ok(())
}

async fn an_unknown_record_can_be_taken_over(s: &Store) -> CaseResult {
    let l = s.ledger();
    let (k, f) = (key("unknown-take-over", 0), fp("inputs"));
    let t1 = claimed(l, &claim(&k, &f, "a")).await?;
    l.resolve(&k, t1, &Resolution::Unknown { note: "?".into() })
        .await
        .at("unknown")?;
    ensure_eq!(
        l.take_over(&claim(&k, &f, "b"), t1).await.at("take_over")?,
        None
    );
    s.advance(LEASE + MARGIN).await;
    let t2 = l
        .take_over(&claim(&k, &f, "b"), t1)
        .await
        .at("take_over")?
        .ok_or("take_over of an expired unknown record refused")?;
    let r = loaded(l, &k).await?;
    ensure_eq!(r.state, RecordState::Declared);
    ensure_eq!(r.resolution, None);
    ensure_eq!(r.token, t2);
    Ok(())
}

async fn resolved_records_are_never_taken_over(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let (kc, kf) = (key("resolved", 0), key("resolved", 1));
    let tc = claimed(l, &claim(&kc, &f, "a")).await?;
    let tf = claimed(l, &claim(&kf, &f, "a")).await?;
    l.resolve(&kc, tc, &committed(json!(1)))
        .await
        .at("commit")?;
    l.resolve(
        &kf,
        tf,
        &Resolution::Failed {
            error: StoredFailure {
                message: "x".into(),
                value: None,
            },
        },
    )
    .await
    .at("fail")?;
    s.advance(LEASE + MARGIN).await;
    ensure_eq!(
        l.take_over(&claim(&kc, &f, "b"), tc)
            .await
            .at("take_over")?,
        None
    );
    ensure_eq!(
        l.take_over(&claim(&kf, &f, "b"), tf)
            .await
            .at("take_over")?,
        None
    );
    ensure_eq!(loaded(l, &kc).await?.state, RecordState::Committed);
    ensure_eq!(loaded(l, &kf).await?.state, RecordState::Failed);
    Ok(())
}

async fn an_expired_record_is_a_tombstone_then_forgotten(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let (kc, kf) = (key("expired", 0), key("expired", 1));
    let tc = tombstone(l, &kc, &f, committed(json!("old"))).await?;
    let tf = tombstone(l, &kf, &f, failed("old")).await?;
    ensure_eq!(
        existing(l, &claim(&kc, &f, "b")).await?.state,
        RecordState::Committed
    );
    s.advance(TTL + MARGIN).await;
    // Past its TTL (pruned or not: nothing was pruned here) a resolved record is a
    // tombstone: the result is gone, the key, fingerprint and token remain.
    let r = existing(l, &claim(&kc, &f, "b")).await?;
    ensure_eq!(r.state, RecordState::Pruned);
    ensure_eq!(r.resolution, None);
    ensure_eq!(r.fingerprint, f);
    ensure_eq!(r.token, tc);
    ensure_eq!(r.owner, "a");
    ensure_eq!(loaded(l, &kc).await?, r);
    // Other inputs see the stored fingerprint (a divergent payload for the caller).
    let other = existing(l, &claim(&kc, &fp("new inputs"), "c")).await?;
    ensure_eq!(other, r);
    let r = existing(l, &claim(&kf, &f, "b")).await?;
    ensure_eq!(r.state, RecordState::Pruned);
    ensure_eq!(r.resolution, None);
    ensure_eq!(r.token, tf);
    // Nobody writes to a tombstone but a take-over.
    is_fenced(l.resolve(&kc, tc, &committed(json!(0))).await, &kc, tc)?;
    is_fenced(l.release(&kc, tc).await, &kc, tc)?;
    ensure_eq!(loaded(l, &kc).await?.state, RecordState::Pruned);
    // Past the tombstone window too the key is forgotten: a new operation, even for other
    // inputs.
    s.advance(TOMBSTONE_WINDOW).await;
    ensure!(
        l.load(&kc).await.at("load")?.is_none(),
        "a forgotten key still loads"
    );
    let tc2 = claimed(l, &claim(&kc, &fp("new inputs"), "b")).await?;
    ensure!(tc2 != tc, "token reused");
    let r = loaded(l, &kc).await?;
    ensure_eq!(r.state, RecordState::Declared);
    ensure_eq!(r.owner, "b");
    ensure_eq!(r.fingerprint, fp("new inputs"));
    ensure_eq!(r.resolution, None);
    ensure_eq!(r.expires_at, r.created_at.after(TTL));
    let tf2 = claimed(l, &claim(&kf, &f, "b")).await?;
    ensure!(tf2 != tf, "token reused");
    // The old owner's token is dead.
    is_fenced(l.resolve(&kc, tc, &committed(json!(0))).await, &kc, tc)?;
    Ok(())
}

async fn a_tombstone_is_taken_over_only_with_its_inputs(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let (k, kp) = (key("tombstone", 0), key("tombstone", 1));
    let t1 = tombstone(l, &k, &f, committed(json!("old"))).await?;
    let tp = tombstone(l, &kp, &f, failed("old")).await?;
    // Before the TTL a resolved record is never taken over (see
    // resolved_records_are_never_taken_over); after it, with its own inputs only.
    s.advance(TTL + MARGIN).await;
    ensure_eq!(l.prune().await.at("prune")?, 2);
    ensure_eq!(
        l.take_over(&claim(&k, &fp("other inputs"), "rescuer"), t1)
            .await
            .at("take_over with other inputs")?,
        None
    );
    ensure_eq!(
        l.take_over(&claim(&k, &f, "rescuer"), t1 + 1_000_000)
            .await
            .at("take_over with a wrong token")?,
        None
    );
    is_not_found(
        l.decide(&k, &Decision::Happened { result: json!(1) }).await,
        &k,
    )?;
    ensure!(
        l.pending().await.at("pending")?.is_empty(),
        "a tombstone is listed as pending"
    );
    let before = loaded(l, &k).await?;
    ensure_eq!(before.state, RecordState::Pruned);
    let t2 = l
        .take_over(&claim(&k, &f, "rescuer"), t1)
        .await
        .at("take_over")?
        .ok_or("take_over of a tombstone with its own inputs was refused")?;
    ensure!(t2 != t1, "take_over kept the token");
    // Taken over, a tombstone counts as claimed now.
    let r = loaded(l, &k).await?;
    ensure_eq!(r.state, RecordState::Declared);
    ensure_eq!(r.owner, "rescuer");
    ensure_eq!(r.token, t2);
    ensure_eq!(r.fingerprint, f);
    ensure_eq!(r.resolution, None);
    ensure_eq!(r.created_at, r.updated_at);
    ensure!(
        r.created_at >= before.expires_at,
        "created_at {:?} is not the take-over's time",
        r.created_at
    );
    ensure_eq!(r.expires_at, r.created_at.after(TTL));
    ensure_eq!(r.lease_until, r.created_at.after(LEASE));
    // Once: the stale token and the new one (its lease is live) take nothing.
    ensure_eq!(
        l.take_over(&claim(&k, &f, "third"), t1)
            .await
            .at("take_over stale")?,
        None
    );
    ensure_eq!(
        l.take_over(&claim(&k, &f, "third"), t2)
            .await
            .at("take_over live")?,
        None
    );
    is_fenced(l.resolve(&k, t1, &committed(json!(0))).await, &k, t1)?;
    l.resolve(&k, t2, &committed(json!("again")))
        .await
        .at("resolve after take-over")?;
    let r = existing(l, &claim(&k, &f, "b")).await?;
    ensure_eq!(r.state, RecordState::Committed);
    ensure_eq!(r.resolution, Some(committed(json!("again"))));
    // A tombstone that prune has not rewritten yet is taken over the same way.
    let ku = key("tombstone", 2);
    let tu = tombstone(l, &ku, &f, failed("old")).await?;
    s.advance(TTL + MARGIN).await;
    let tu2 = l
        .take_over(&claim(&ku, &f, "rescuer"), tu)
        .await
        .at("take_over unpruned")?
        .ok_or("take_over of an unpruned tombstone was refused")?;
    ensure_eq!(loaded(l, &ku).await?.token, tu2);
    ensure_eq!(loaded(l, &ku).await?.state, RecordState::Declared);
    ensure_eq!(loaded(l, &kp).await?.token, tp);
    Ok(())
}

async fn concurrent_take_overs_of_a_tombstone_have_one_winner(s: &Store) -> CaseResult {
    let (k, f) = (key("race-tombstone", 0), fp("inputs"));
    let t1 = tombstone(s.ledger(), &k, &f, committed(json!("old"))).await?;
    s.advance(TTL + MARGIN).await;
    let mut tasks = Vec::new();
    for (h, ledger) in s.handles.iter().enumerate() {
        for j in 0..4 {
            let (ledger, k, f) = (ledger.clone(), k.clone(), f.clone());
            tasks.push(tokio::spawn(async move {
                let owner = format!("rescuer-{h}-{j}");
                let got = ledger.take_over(&claim(&k, &f, &owner), t1).await;
                (owner, got)
            }));
        }
    }
    let mut winners = Vec::new();
    for task in tasks {
        let (owner, got) = task.await.map_err(|e| format!("task: {e}"))?;
        if let Some(t) = got.at("take_over")? {
            winners.push((owner, t));
        }
    }
    ensure_eq!(winners.len(), 1);
    let r = loaded(s.ledger(), &k).await?;
    ensure_eq!(r.state, RecordState::Declared);
    ensure_eq!(r.owner, winners[0].0);
    ensure_eq!(r.token, winners[0].1);
    Ok(())
}

async fn prune_leaves_tombstones_then_forgets(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let k: Vec<Key> = (0..5).map(|i| key("prune", i)).collect();
    let mut t = Vec::new();
    for kk in &k[..4] {
        t.push(claimed(l, &claim(kk, &f, "a")).await?);
    }
    l.resolve(&k[0], t[0], &committed(json!(0)))
        .await
        .at("commit")?;
    l.resolve(&k[1], t[1], &failed("f")).await.at("fail")?;
    l.resolve(&k[3], t[3], &Resolution::Unknown { note: "?".into() })
        .await
        .at("unknown")?;
    ensure_eq!(l.prune().await.at("prune before expiry")?, 0);
    s.advance(TTL + MARGIN).await;
    let t4 = claimed(l, &claim(&k[4], &f, "a")).await?;
    l.resolve(&k[4], t4, &committed(json!(4)))
        .await
        .at("commit fresh")?;
    let seen_before = existing(l, &claim(&k[0], &f, "b")).await?;
    // The two expired results are dropped; their keys stay as tombstones.
    ensure_eq!(l.prune().await.at("prune")?, 2);
    for (kk, tt) in [(&k[0], t[0]), (&k[1], t[1])] {
        let r = loaded(l, kk).await?;
        ensure_eq!(r.state, RecordState::Pruned);
        ensure_eq!(r.resolution, None);
        ensure_eq!(r.fingerprint, f);
        ensure_eq!(r.token, tt);
        ensure!(
            r.updated_at >= r.expires_at,
            "updated_at {:?} is not when it was pruned",
            r.updated_at
        );
    }
    ensure_eq!(loaded(l, &k[2]).await?.state, RecordState::Declared);
    ensure_eq!(loaded(l, &k[3]).await?.state, RecordState::Unknown);
    ensure_eq!(loaded(l, &k[4]).await?.state, RecordState::Committed);
    ensure_eq!(l.prune().await.at("prune again")?, 0);
    // A call sees the same tombstone, pruned or not (only when it was pruned differs).
    let seen_after = existing(l, &claim(&k[0], &f, "b")).await?;
    ensure_eq!(
        Record {
            updated_at: seen_before.updated_at,
            ..seen_after.clone()
        },
        seen_before
    );
    ensure_eq!(
        existing(l, &claim(&k[0], &fp("other inputs"), "b"))
            .await?
            .fingerprint,
        f
    );
    ensure_eq!(l.pending().await.at("pending")?.len(), 2);
    // Past the tombstone window: the tombstones are deleted; the fresh result is a
    // tombstone now; unresolved records are never pruned.
    s.advance(TOMBSTONE_WINDOW).await;
    ensure_eq!(l.prune().await.at("prune after the window")?, 3);
    ensure!(
        l.load(&k[0]).await.at("load")?.is_none(),
        "expired commit kept"
    );
    ensure!(
        l.load(&k[1]).await.at("load")?.is_none(),
        "expired failure kept"
    );
    ensure_eq!(loaded(l, &k[2]).await?.state, RecordState::Declared);
    ensure_eq!(loaded(l, &k[3]).await?.state, RecordState::Unknown);
    ensure_eq!(loaded(l, &k[4]).await?.state, RecordState::Pruned);
    ensure_eq!(l.prune().await.at("prune again")?, 0);
    // A forgotten key is new again.
    claimed(l, &claim(&k[0], &fp("other inputs"), "b")).await?;
    Ok(())
}

async fn pending_lists_unresolved_records_oldest_first(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    ensure!(l.pending().await.at("pending")?.is_empty(), "empty store");
    // Created in this order, a little apart; key order is the reverse.
    let k: Vec<Key> = (0..4).map(|i| key("pending", i)).collect();
    let mut order: Vec<&Key> = k.iter().collect();
    order.sort();
    order.reverse();
    let mut tokens = HashMap::new();
    for kk in &order {
        tokens.insert((*kk).clone(), claimed(l, &claim(kk, &f, "a")).await?);
        s.advance(Duration::from_millis(20)).await;
    }
    // order[0] stays declared, order[1] unknown, order[2] committed, order[3] failed.
    l.resolve(
        order[1],
        tokens[order[1]],
        &Resolution::Unknown { note: "?".into() },
    )
    .await
    .at("unknown")?;
    l.resolve(order[2], tokens[order[2]], &committed(json!(2)))
        .await
        .at("commit")?;
    l.resolve(
        order[3],
        tokens[order[3]],
        &Resolution::Failed {
            error: StoredFailure {
                message: "f".into(),
                value: None,
            },
        },
    )
    .await
    .at("fail")?;
    let pending = l.pending().await.at("pending")?;
    let keys: Vec<&Key> = pending.iter().map(|r| &r.key).collect();
    ensure_eq!(keys, vec![order[0], order[1]]);
    ensure_eq!(pending[0].state, RecordState::Declared);
    ensure_eq!(pending[1].state, RecordState::Unknown);
    Ok(())
}

async fn decide_happened_commits_and_fences(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let (kd, ku, kc) = (key("decide", 0), key("decide", 1), key("decide", 2));
    let td = claimed(l, &claim(&kd, &f, "a")).await?;
    let tu = claimed(l, &claim(&ku, &f, "a")).await?;
    let tc = claimed(l, &claim(&kc, &f, "a")).await?;
    l.resolve(&ku, tu, &Resolution::Unknown { note: "?".into() })
        .await
        .at("unknown")?;
    l.resolve(&kc, tc, &committed(json!("done")))
        .await
        .at("commit")?;
    for (k, t) in [(&kd, td), (&ku, tu)] {
        let result = json!({"decided": "by a person"});
        l.decide(
            k,
            &Decision::Happened {
                result: result.clone(),
            },
        )
        .await
        .at("decide")?;
        let r = existing(l, &claim(k, &f, "b")).await?;
        ensure_eq!(r.state, RecordState::Committed);
        ensure_eq!(r.resolution, Some(committed(result)));
        ensure!(r.token != t, "a decision keeps the owner's token");
        // The owner, still running, cannot overwrite the decision.
        is_fenced(l.resolve(k, t, &committed(json!("owner"))).await, k, t)?;
    }
    is_not_found(
        l.decide(&kc, &Decision::Happened { result: json!(0) })
            .await,
        &kc,
    )?;
    is_not_found(l.decide(&kc, &Decision::DidNotHappen).await, &kc)?;
    ensure_eq!(
        loaded(l, &kc).await?.resolution,
        Some(committed(json!("done")))
    );
    let missing = key("decide", 3);
    is_not_found(l.decide(&missing, &Decision::DidNotHappen).await, &missing)?;
    Ok(())
}

async fn decide_did_not_happen_frees_the_key(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let (kd, ku) = (key("decide-not", 0), key("decide-not", 1));
    let td = claimed(l, &claim(&kd, &f, "a")).await?;
    let tu = claimed(l, &claim(&ku, &f, "a")).await?;
    l.resolve(&ku, tu, &Resolution::Unknown { note: "?".into() })
        .await
        .at("unknown")?;
    for (k, t) in [(&kd, td), (&ku, tu)] {
        l.decide(k, &Decision::DidNotHappen).await.at("decide")?;
        ensure!(l.load(k).await.at("load")?.is_none(), "record kept");
        ensure!(
            !l.pending().await.at("pending")?.iter().any(|r| &r.key == k),
            "still pending"
        );
        let t2 = claimed(l, &claim(k, &f, "b")).await?;
        ensure!(t2 != t, "token reused");
        is_fenced(l.resolve(k, t, &committed(json!(0))).await, k, t)?;
    }
    Ok(())
}

async fn records_lists_states_as_seen_in_order_and_pages(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    ensure!(
        l.records(&RecordQuery::all())
            .await
            .at("records")?
            .is_empty(),
        "empty store"
    );
    // Created in this order, a little apart; key order is the reverse.
    let k: Vec<Key> = (0..5).map(|i| key("records", i)).collect();
    let mut order: Vec<&Key> = k.iter().collect();
    order.sort();
    order.reverse();
    let mut tokens = HashMap::new();
    for kk in &order {
        tokens.insert((*kk).clone(), claimed(l, &claim(kk, &f, "a")).await?);
        s.advance(Duration::from_millis(20)).await;
    }
    // order[0] stays declared, [1] unknown, [2] committed, [3] failed, [4] committed.
    let t = |i: usize| tokens[order[i]];
    l.resolve(order[1], t(1), &Resolution::Unknown { note: "?".into() })
        .await
        .at("unknown")?;
    l.resolve(order[2], t(2), &committed(json!(2)))
        .await
        .at("commit")?;
    l.resolve(order[3], t(3), &failed("f")).await.at("fail")?;
    l.resolve(order[4], t(4), &committed(json!(4)))
        .await
        .at("commit")?;
    let keys = |records: &[Record]| records.iter().map(|r| r.key.clone()).collect::<Vec<_>>();
    let owned = |idx: &[usize]| idx.iter().map(|&i| order[i].clone()).collect::<Vec<_>>();
    let all = l.records(&RecordQuery::all()).await.at("records")?;
    ensure_eq!(keys(&all), owned(&[0, 1, 2, 3, 4]));
    for r in &all {
        let seen = loaded(l, &r.key).await?;
        ensure_eq!(r, &seen);
    }
    let by = |states: &[RecordState]| RecordQuery::all().states(states.iter().copied());
    let unknown = l
        .records(&by(&[RecordState::Unknown]))
        .await
        .at("records")?;
    ensure_eq!(keys(&unknown), owned(&[1]));
    let done = by(&[RecordState::Committed, RecordState::Failed]);
    ensure_eq!(
        keys(&l.records(&done).await.at("records")?),
        owned(&[2, 3, 4])
    );
    // Pages: the listing cut after any record continues where it stopped.
    let first = l
        .records(&RecordQuery::all().limit(2))
        .await
        .at("records")?;
    ensure_eq!(keys(&first), owned(&[0, 1]));
    let next = RecordQuery::all().after(&first[1]).limit(2);
    let second = l.records(&next).await.at("records")?;
    ensure_eq!(keys(&second), owned(&[2, 3]));
    let rest = l
        .records(&RecordQuery::all().after(&second[1]).limit(2))
        .await
        .at("records")?;
    ensure_eq!(keys(&rest), owned(&[4]));
    let paged = done.clone().after(&all[2]).limit(1);
    ensure_eq!(keys(&l.records(&paged).await.at("records")?), owned(&[3]));
    // Past the TTL the resolved records are tombstones, pruned or not, and listed as such.
    s.advance(TTL + MARGIN).await;
    ensure!(
        l.records(&done).await.at("records")?.is_empty(),
        "resolved records past their TTL are listed as resolved"
    );
    let tombstones = l.records(&by(&[RecordState::Pruned])).await.at("records")?;
    ensure_eq!(keys(&tombstones), owned(&[2, 3, 4]));
    ensure!(
        tombstones.iter().all(|r| r.resolution.is_none()),
        "a tombstone is listed with its result"
    );
    let unresolved = by(&[RecordState::Declared, RecordState::Unknown]);
    ensure_eq!(
        keys(&l.records(&unresolved).await.at("records")?),
        owned(&[0, 1])
    );
    // Past the window they are forgotten and not listed; unresolved records stay.
    s.advance(TOMBSTONE_WINDOW).await;
    let all = l.records(&RecordQuery::all()).await.at("records")?;
    ensure_eq!(keys(&all), owned(&[0, 1]));
    Ok(())
}

async fn decisions_are_logged_with_their_note(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    ensure!(
        l.decisions(None).await.at("decisions")?.is_empty(),
        "empty store"
    );
    let (kd, ku, kc) = (key("log", 0), key("log", 1), key("log", 2));
    claimed(l, &claim(&kd, &f, "a")).await?;
    let tu = claimed(l, &claim(&ku, &f, "a")).await?;
    let tc = claimed(l, &claim(&kc, &f, "a")).await?;
    l.resolve(&ku, tu, &Resolution::Unknown { note: "?".into() })
        .await
        .at("unknown")?;
    l.resolve(&kc, tc, &committed(json!(0)))
        .await
        .at("commit")?;
    let note = "seen in the SMTP log, message 42 — ops/ada";
    l.decide_with_note(&kd, &Decision::Happened { result: json!(1) }, Some(note))
        .await
        .at("decide")?;
    s.advance(Duration::from_millis(20)).await;
    l.decide_with_note(&ku, &Decision::DidNotHappen, None)
        .await
        .at("decide")?;
    // A refused decision logs nothing.
    is_not_found(
        l.decide_with_note(&kc, &Decision::DidNotHappen, Some("no"))
            .await,
        &kc,
    )?;
    is_not_found(
        l.decide_with_note(&kd, &Decision::DidNotHappen, Some("twice"))
            .await,
        &kd,
    )?;
    let log = l.decisions(None).await.at("decisions")?;
    ensure_eq!(log.len(), 2);
    ensure_eq!(log[0].key, kd);
    ensure_eq!(log[0].tool, TOOL);
    ensure_eq!(log[0].fingerprint, f);
    ensure_eq!(log[0].from_state, RecordState::Declared);
    ensure_eq!(log[0].decision, Decided::Happened);
    ensure_eq!(log[0].note.as_deref(), Some(note));
    ensure_eq!(log[1].key, ku);
    ensure_eq!(log[1].from_state, RecordState::Unknown);
    ensure_eq!(log[1].decision, Decided::DidNotHappen);
    ensure_eq!(log[1].note, None);
    ensure!(
        log[0].decided_at <= log[1].decided_at && log[0].decided_at.0 > 0,
        "decision times {:?}, {:?}",
        log[0].decided_at,
        log[1].decided_at
    );
    // The decided record carries the decision's time; the deleted one's entry stays.
    ensure_eq!(loaded(l, &kd).await?.updated_at, log[0].decided_at);
    ensure!(l.load(&ku).await.at("load")?.is_none(), "record kept");
    let only = l.decisions(Some(&ku)).await.at("decisions")?;
    ensure_eq!(only, vec![log[1].clone()]);
    ensure!(
        l.decisions(Some(&kc)).await.at("decisions")?.is_empty(),
        "an undecided key has decisions"
    );
    // `decide` is `decide_with_note` without a note.
    let kn = key("log", 3);
    claimed(l, &claim(&kn, &f, "a")).await?;
    l.decide(&kn, &Decision::DidNotHappen).await.at("decide")?;
    let log = l.decisions(Some(&kn)).await.at("decisions")?;
    ensure_eq!(log.len(), 1);
    ensure_eq!(log[0].note, None);
    Ok(())
}

async fn stored_values_round_trip(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let result = json!({
        "text": "héllo wörld — ✓ 😀 \"quoted\" \\ back\nslash\ttab \u{0000} nul",
        "big": u64::MAX,
        "small": i64::MIN,
        "floats": [0.1, 1e300, -2.5e-300, 1.5, 0.0],
        "nested": {"a": [[], {}, [null, true, false]], "z": {"y": {"x": "deep"}}},
        "empty": "",
        "unicode key ✓": 1,
    });
    let values = [
        result,
        json!(null),
        json!("just a string"),
        json!(42),
        json!([1, "two", 3.0]),
    ];
    for (i, v) in values.iter().enumerate() {
        let k = key("round-trip", i);
        let t = claimed(l, &claim(&k, &f, "a")).await?;
        l.resolve(&k, t, &committed(v.clone())).await.at("commit")?;
        ensure_eq!(loaded(l, &k).await?.resolution, Some(committed(v.clone())));
    }
    let failure = Resolution::Failed {
        error: StoredFailure {
            message: "déclinée: «insufficient funds» 💳\nline two".into(),
            value: None,
        },
    };
    let unknown = Resolution::Unknown {
        note: "timed out after 30000 ms; postcondition cannot tell: 503 ✗".into(),
    };
    for (i, res) in [failure, unknown].into_iter().enumerate() {
        let k = key("round-trip-resolution", i);
        let t = claimed(l, &claim(&k, &f, "a")).await?;
        l.resolve(&k, t, &res).await.at("resolve")?;
        ensure_eq!(loaded(l, &k).await?.resolution, Some(res));
    }
    let k = key("round-trip-decision", 0);
    claimed(l, &claim(&k, &f, "a")).await?;
    let decided = json!({"refund": "re_1", "n": [1, 2.5, -3]});
    l.decide(
        &k,
        &Decision::Happened {
            result: decided.clone(),
        },
    )
    .await
    .at("decide")?;
    ensure_eq!(loaded(l, &k).await?.resolution, Some(committed(decided)));
    Ok(())
}

const SECRET_TEXT: &str = "sk_live_conformance_5ec2e7a91f";

async fn secrets_are_not_stored_in_clear(s: &Store) -> CaseResult {
    let l = s.ledger();
    let f = fp("inputs");
    let result = json!({
        "id": "key_1",
        "secret": {"$idemcheck_secret": SECRET_TEXT},
        "list": [{"$idemcheck_secret": {"nested": SECRET_TEXT}}],
    });
    let k = key("secret", 0);
    let t = claimed(l, &claim(&k, &f, "a")).await?;
    l.resolve(&k, t, &committed(result)).await.at("commit")?;
    let k2 = key("secret", 1);
    claimed(l, &claim(&k2, &f, "a")).await?;
    l.decide(
        &k2,
        &Decision::Happened {
            result: json!({"$idemcheck_secret": SECRET_TEXT}),
        },
    )
    .await
    .at("decide")?;
    for k in [&k, &k2] {
        let r = loaded(l, k).await?;
        let text = serde_json::to_string(&r).map_err(|e| e.to_string())?;
        ensure!(
            !text.contains(SECRET_TEXT),
            "the secret is stored in clear: {text}"
        );
        ensure!(
            text.contains(&digest_of(&json!(SECRET_TEXT))),
            "the secret's digest is not stored: {text}"
        );
    }
    let r = loaded(l, &k).await?;
    let Some(Resolution::Committed { result }) = r.resolution else {
        return Err("not committed".into());
    };
    ensure_eq!(result["id"], json!("key_1"));
    ensure_eq!(
        result["secret"][WITHHELD_MARK],
        json!(digest_of(&json!(SECRET_TEXT)))
    );
    ensure_eq!(
        result["list"][0][WITHHELD_MARK],
        json!(digest_of(&json!({"nested": SECRET_TEXT})))
    );
    Ok(())
}

async fn concurrent_claims_have_one_winner(s: &Store) -> CaseResult {
    const KEYS: usize = 8;
    const PER_HANDLE: usize = 4;
    let mut tasks = Vec::new();
    for i in 0..KEYS {
        for (h, ledger) in s.handles.iter().enumerate() {
            for j in 0..PER_HANDLE {
                let ledger = ledger.clone();
                tasks.push(tokio::spawn(async move {
                    let (k, f) = (key("race", i), fp("inputs"));
                    let owner = format!("worker-{h}-{j}");
                    let got = ledger.begin(&claim(&k, &f, &owner)).await;
                    (i, owner, got)
                }));
            }
        }
    }
    let mut winners: HashMap<usize, (String, Token)> = HashMap::new();
    let mut seen: Vec<(usize, Record)> = Vec::new();
    for task in tasks {
        let (i, owner, got) = task.await.map_err(|e| format!("task: {e}"))?;
        match got.at("begin")? {
            Begin::Claimed { token } => {
                if let Some(prev) = winners.insert(i, (owner, token)) {
                    return Err(format!("key {i} claimed twice: {prev:?} and another"));
                }
            }
            Begin::Existing(r) => seen.push((i, r)),
        }
    }
    ensure_eq!(winners.len(), KEYS);
    for (i, r) in seen {
        let (owner, token) = &winners[&i];
        ensure_eq!(&r.owner, owner);
        ensure_eq!(&r.token, token);
    }
    Ok(())
}

async fn concurrent_take_overs_have_one_winner(s: &Store) -> CaseResult {
    let (k, f) = (key("race-take-over", 0), fp("inputs"));
    let t1 = claimed(s.ledger(), &claim(&k, &f, "crashed")).await?;
    s.advance(LEASE + MARGIN).await;
    let mut tasks = Vec::new();
    for (h, ledger) in s.handles.iter().enumerate() {
        for j in 0..4 {
            let (ledger, k, f) = (ledger.clone(), k.clone(), f.clone());
            tasks.push(tokio::spawn(async move {
                let owner = format!("rescuer-{h}-{j}");
                let got = ledger.take_over(&claim(&k, &f, &owner), t1).await;
                (owner, got)
            }));
        }
    }
    let mut winners = Vec::new();
    for task in tasks {
        let (owner, got) = task.await.map_err(|e| format!("task: {e}"))?;
        if let Some(t) = got.at("take_over")? {
            winners.push((owner, t));
        }
    }
    ensure_eq!(winners.len(), 1);
    let r = loaded(s.ledger(), &k).await?;
    ensure_eq!(r.owner, winners[0].0);
    ensure_eq!(r.token, winners[0].1);
    Ok(())
}

// ------------------------------------------------------------------- through the executor

/// A tool error with a chosen class.
#[derive(Debug, Clone, PartialEq)]
struct ToolError(ErrorClass, &'static str);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }
}

impl Classify for ToolError {
    fn class(&self) -> ErrorClass {
        self.0
    }
}

const CONTRACT: Contract = Contract {
    name: TOOL,
    function: "idemcheck::ledger::conformance::tool",
    kind: ToolKind::Write,
    key: KeySpec::Fields(&["id"]),
    chosen_key_fields: &[],
    key_context: &[],
    verify: Some("idemcheck::ledger::conformance::verify"),
    no_postcondition: false,
    max_retries: Some(1),
    timeout_ms: None,
    settle_ms: None,
    ttl_hours: 24,
    server_dedup: false,
    suppressions: &[],
};

/// A fake system of record: effects by operation id.
#[derive(Default, Clone)]
struct System {
    effects: Arc<Mutex<HashMap<String, Vec<Value>>>>,
    executions: Arc<AtomicU32>,
    verifications: Arc<AtomicU32>,
    /// The postcondition cannot tell (its read fails).
    verify_fails: Arc<std::sync::atomic::AtomicBool>,
}

impl System {
    fn count(&self, id: &str) -> usize {
        self.effects
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .map_or(0, Vec::len)
    }

    /// One guarded call: key = the operation id, fingerprint = id and payload.
    async fn call(
        &self,
        ctx: &Context,
        id: &str,
        payload: Value,
        outcome: Result<Value, ToolError>,
    ) -> Outcome<Value, ToolError> {
        let key_fields = Material::new().field("id", id);
        let inputs = Material::new().field("id", id).field("payload", &payload);
        executor::run(
            ctx,
            &CONTRACT,
            key_fields,
            inputs,
            || {
                let outcome = outcome.clone();
                let id = id.to_string();
                async move {
                    self.executions.fetch_add(1, Ordering::SeqCst);
                    if let Ok(v) = &outcome {
                        self.effects
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .entry(id)
                            .or_default()
                            .push(v.clone());
                    }
                    outcome
                }
            },
            || {
                let id = id.to_string();
                async move {
                    self.verifications.fetch_add(1, Ordering::SeqCst);
                    if self.verify_fails.load(Ordering::SeqCst) {
                        return Err("the system of record cannot be read".to_string());
                    }
                    let effects = self.effects.lock().unwrap_or_else(|p| p.into_inner());
                    Ok::<_, String>(effects.get(&id).and_then(|e| e.first().cloned()))
                }
            },
        )
        .await
    }
}

fn ctx(s: &Store, handle: usize, owner: &str) -> Context {
    Context::with_clock(
        s.handles[handle].clone(),
        s.clock.clone(),
        Scope::run("ledger-conformance"),
    )
    .with_owner(owner)
    .with_max_wait(Duration::ZERO)
}

fn op_key(id: &str) -> Key {
    Key::derive(
        &Scope::run("ledger-conformance"),
        TOOL,
        &Material::new().field("id", id),
    )
    .expect("a string key")
}

fn op_fingerprint(id: &str, payload: &Value) -> Fingerprint {
    Fingerprint::of(&Material::new().field("id", id).field("payload", payload))
        .expect("JSON inputs")
}

fn is_divergent<T: fmt::Debug>(o: &Outcome<T, ToolError>) -> CaseResult {
    match o {
        Outcome::NotCompleted(NotCompleted {
            reason: Failure::Divergent { .. },
            attempts: 0,
            ..
        }) => Ok(()),
        other => Err(format!(
            "expected a refused divergent payload, got {other:?}"
        )),
    }
}

async fn executor_executes_once_and_replays(s: &Store) -> CaseResult {
    let sys = System::default();
    let c = ctx(s, 0, "agent");
    let first = sys
        .call(&c, "op-1", json!({"amount": 1}), Ok(json!("ch_1")))
        .await;
    ensure_eq!(first, Outcome::Completed(json!("ch_1")));
    let again = sys
        .call(&c, "op-1", json!({"amount": 1}), Ok(json!("ch_2")))
        .await;
    ensure_eq!(again, Outcome::Completed(json!("ch_1")));
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 1);
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), 0);
    is_divergent(
        &sys.call(&c, "op-1", json!({"amount": 2}), Ok(json!("ch_3")))
            .await,
    )?;
    ensure_eq!(sys.count("op-1"), 1);
    let r = loaded(s.ledger(), &op_key("op-1")).await?;
    ensure_eq!(r.state, RecordState::Committed);
    ensure_eq!(r.fingerprint, op_fingerprint("op-1", &json!({"amount": 1})));
    ensure_eq!(r.owner, "agent");
    Ok(())
}

async fn executor_refuses_a_divergent_payload_on_every_path(s: &Store) -> CaseResult {
    let l = s.ledger();
    let sys = System::default();
    let c = ctx(s, 0, "agent");
    let stored = json!({"amount": 1});
    let states = ["declared", "unknown", "committed", "failed"];
    for state in states {
        let id = format!("divergent-{state}");
        let (k, f) = (op_key(&id), op_fingerprint(&id, &stored));
        let t = claimed(l, &claim(&k, &f, "other")).await?;
        let res = match state {
            "unknown" => Some(Resolution::Unknown { note: "?".into() }),
            "committed" => Some(committed(json!("ch_0"))),
            "failed" => Some(Resolution::Failed {
                error: StoredFailure {
                    message: "declined".into(),
                    value: None,
                },
            }),
            _ => None,
        };
        if let Some(res) = res {
            l.resolve(&k, t, &res).await.at("resolve")?;
        }
        let before = loaded(l, &k).await?;
        is_divergent(
            &sys.call(&c, &id, json!({"amount": 2}), Ok(json!("x")))
                .await,
        )
        .map_err(|e| format!("{state}: {e}"))?;
        ensure_eq!(loaded(l, &k).await?, before);
    }
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 0);
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), 0);
    Ok(())
}

async fn executor_replays_a_stored_failure(s: &Store) -> CaseResult {
    let sys = System::default();
    let c = ctx(s, 0, "agent");
    let declined = ToolError(ErrorClass::Definite, "card declined");
    let first = sys
        .call(&c, "op-fail", json!(1), Err(declined.clone()))
        .await;
    ensure_eq!(
        first,
        Outcome::NotCompleted(NotCompleted {
            key: Some(op_key("op-fail")),
            attempts: 1,
            reason: Failure::Tool(declined),
        })
    );
    let again = sys.call(&c, "op-fail", json!(1), Ok(json!("ok"))).await;
    ensure_eq!(
        again,
        Outcome::NotCompleted(NotCompleted {
            key: Some(op_key("op-fail")),
            attempts: 0,
            reason: Failure::Replayed(StoredFailure {
                message: "card declined".into(),
                value: None,
            }),
        })
    );
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 1);
    // An invalid request is not stored: the key is free for corrected arguments.
    let invalid = ToolError(ErrorClass::Invalid, "bad amount");
    let rejected = sys
        .call(&c, "op-invalid", json!(-1), Err(invalid.clone()))
        .await;
    ensure!(
        matches!(rejected, Outcome::NotCompleted(NotCompleted { reason: Failure::Tool(ref e), .. }) if *e == invalid),
        "invalid: {rejected:?}"
    );
    ensure!(
        s.ledger()
            .load(&op_key("op-invalid"))
            .await
            .at("load")?
            .is_none(),
        "an invalid request was stored"
    );
    let fixed = sys.call(&c, "op-invalid", json!(1), Ok(json!("ok"))).await;
    ensure_eq!(fixed, Outcome::Completed(json!("ok")));
    Ok(())
}

async fn executor_adopts_or_takes_over_a_crashed_claim(s: &Store) -> CaseResult {
    let l = s.ledger();
    let sys = System::default();
    let payload = json!({"amount": 1});
    // A worker claimed "done", performed the effect, and died before committing.
    let (kd, fd) = (op_key("done"), op_fingerprint("done", &payload));
    claimed(l, &claim(&kd, &fd, "crashed")).await?;
    sys.effects
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert("done".into(), vec![json!("ch_done")]);
    // A worker claimed "not-done" and died before the effect.
    let (kn, fnd) = (op_key("not-done"), op_fingerprint("not-done", &payload));
    let tn = claimed(l, &claim(&kn, &fnd, "crashed")).await?;
    let c = ctx(s, 1, "rescuer");
    // The effect happened: adopt it, whatever the lease, without executing.
    let adopted = sys
        .call(&c, "done", payload.clone(), Ok(json!("ch_again")))
        .await;
    ensure_eq!(adopted, Outcome::Completed(json!("ch_done")));
    let r = loaded(l, &kd).await?;
    ensure_eq!(r.state, RecordState::Committed);
    ensure_eq!(r.resolution, Some(committed(json!("ch_done"))));
    // Not done, lease live: never execute blindly; answer unknown (max_wait is zero).
    let live = sys
        .call(&c, "not-done", payload.clone(), Ok(json!("ch_nd")))
        .await;
    ensure!(live.is_unknown(), "lease live: {live:?}");
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 0);
    // Not done, lease over: take over and execute once.
    s.advance(LEASE + MARGIN).await;
    let taken = sys
        .call(&c, "not-done", payload.clone(), Ok(json!("ch_nd")))
        .await;
    ensure_eq!(taken, Outcome::Completed(json!("ch_nd")));
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 1);
    let r = loaded(l, &kn).await?;
    ensure_eq!(r.state, RecordState::Committed);
    ensure_eq!(r.owner, "rescuer");
    ensure!(r.token != tn, "the rescuer kept the crashed owner's token");
    is_fenced(l.resolve(&kn, tn, &committed(json!(0))).await, &kn, tn)?;
    Ok(())
}

async fn executor_replays_secrets_withheld(s: &Store) -> CaseResult {
    let sys = System::default();
    let c = ctx(s, 0, "agent");
    let issued = json!({"id": "key_1", "secret": {"$idemcheck_secret": SECRET_TEXT}});
    let first = sys.call(&c, "issue", json!({}), Ok(issued.clone())).await;
    ensure_eq!(first, Outcome::Completed(issued));
    let replay = sys.call(&c, "issue", json!({}), Ok(json!("x"))).await;
    let Outcome::Completed(v) = replay else {
        return Err(format!("replay: {replay:?}"));
    };
    ensure_eq!(v["id"], json!("key_1"));
    ensure_eq!(
        v["secret"][WITHHELD_MARK],
        json!(digest_of(&json!(SECRET_TEXT)))
    );
    ensure!(!v.to_string().contains(SECRET_TEXT), "replayed in clear");
    Ok(())
}

async fn concurrent_executor_calls_execute_once(s: &Store) -> CaseResult {
    const OPS: usize = 10;
    let sys = System::default();
    let mut tasks = Vec::new();
    for (h, _) in s.handles.iter().enumerate() {
        for j in 0..4 {
            let c = ctx(s, h, &format!("agent-{h}-{j}"));
            let sys = sys.clone();
            tasks.push(tokio::spawn(async move {
                let mut unknown = Vec::new();
                for i in 0..OPS {
                    let id = format!("race-{i}");
                    let out = sys
                        .call(&c, &id, json!(i), Ok(json!(format!("effect-{i}"))))
                        .await;
                    match out {
                        Outcome::Completed(v) if v == json!(format!("effect-{i}")) => {}
                        Outcome::Unknown(_) => unknown.push(i),
                        other => return Err(format!("{id}: {other:?}")),
                    }
                }
                // Calls that found another worker in flight ask again until it is done.
                for i in unknown {
                    let id = format!("race-{i}");
                    let mut tries = 0;
                    loop {
                        let out = sys.call(&c, &id, json!(i), Ok(json!("late"))).await;
                        match out {
                            Outcome::Completed(v) if v == json!(format!("effect-{i}")) => break,
                            Outcome::Unknown(_) if tries < 500 => {
                                tries += 1;
                                tokio::time::sleep(Duration::from_millis(10)).await;
                            }
                            other => return Err(format!("{id} after the race: {other:?}")),
                        }
                    }
                }
                Ok(())
            }));
        }
    }
    for task in tasks {
        task.await.map_err(|e| format!("task: {e}"))??;
    }
    for i in 0..OPS {
        ensure_eq!(sys.count(&format!("race-{i}")), 1);
    }
    ensure_eq!(sys.executions.load(Ordering::SeqCst) as usize, OPS);
    Ok(())
}

async fn executor_asks_the_postcondition_after_the_ttl(s: &Store) -> CaseResult {
    let l = s.ledger();
    let sys = System::default();
    let c = ctx(s, 0, "agent");
    let payload = json!({"amount": 1});
    let record = |id: &str| (op_key(id), op_fingerprint(id, &payload));
    // Four operations resolved with the suite's short TTL, then past it: tombstones.
    let (kd, fd) = record("done");
    let (kn, fnd) = record("not-done");
    let (kc, fc) = record("cannot-tell");
    let (kv, fv) = record("divergent");
    tombstone(l, &kd, &fd, committed(json!("ch_done"))).await?;
    tombstone(l, &kn, &fnd, failed("declined")).await?;
    tombstone(l, &kc, &fc, committed(json!("ch_c"))).await?;
    tombstone(l, &kv, &fv, committed(json!("ch_v"))).await?;
    sys.effects
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert("done".into(), vec![json!("ch_done")]);
    s.advance(TTL + MARGIN).await;
    // Done: answered from the postcondition, nothing executed, COMMITTED again.
    let done = sys
        .call(&c, "done", payload.clone(), Ok(json!("ch_again")))
        .await;
    ensure_eq!(done, Outcome::Completed(json!("ch_done")));
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 0);
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), 1);
    let r = loaded(l, &kd).await?;
    ensure_eq!(r.state, RecordState::Committed);
    ensure_eq!(r.resolution, Some(committed(json!("ch_done"))));
    ensure_eq!(r.owner, "agent");
    ensure_eq!(r.expires_at, r.created_at.after(CONTRACT.ttl()));
    // ... and replayed from the ledger from then on.
    let again = sys
        .call(&c, "done", payload.clone(), Ok(json!("ch_again")))
        .await;
    ensure_eq!(again, Outcome::Completed(json!("ch_done")));
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), 1);
    // Not done (a stored failure, its result gone): executed as a first attempt.
    let executed = sys
        .call(&c, "not-done", payload.clone(), Ok(json!("ch_nd")))
        .await;
    ensure_eq!(executed, Outcome::Completed(json!("ch_nd")));
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 1);
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), 2);
    ensure_eq!(sys.count("not-done"), 1);
    ensure_eq!(
        loaded(l, &kn).await?.resolution,
        Some(committed(json!("ch_nd")))
    );
    // Cannot tell: Unknown, recorded for a person, nothing executed.
    sys.verify_fails.store(true, Ordering::SeqCst);
    let unknown = sys
        .call(&c, "cannot-tell", payload.clone(), Ok(json!("ch_x")))
        .await;
    sys.verify_fails.store(false, Ordering::SeqCst);
    ensure!(unknown.is_unknown(), "cannot tell: {unknown:?}");
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 1);
    let pending = l.pending().await.at("pending")?;
    ensure_eq!(pending.len(), 1);
    ensure_eq!(pending[0].key, kc);
    ensure_eq!(pending[0].state, RecordState::Unknown);
    // Other inputs on a tombstone: a divergent payload, refused before anything is asked.
    let verifications = sys.verifications.load(Ordering::SeqCst);
    let before = loaded(l, &kv).await?;
    is_divergent(
        &sys.call(&c, "divergent", json!({"amount": 2}), Ok(json!("x")))
            .await,
    )?;
    ensure_eq!(loaded(l, &kv).await?, before);
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), verifications);
    // Past the tombstone window the key is forgotten: a new operation, executed without
    // asking the postcondition (the documented retention boundary).
    let (kf, ff) = record("forgotten");
    tombstone(l, &kf, &ff, committed(json!("ch_f"))).await?;
    s.advance(TTL + TOMBSTONE_WINDOW + MARGIN).await;
    let fresh = sys
        .call(&c, "forgotten", payload.clone(), Ok(json!("ch_f2")))
        .await;
    ensure_eq!(fresh, Outcome::Completed(json!("ch_f2")));
    ensure_eq!(sys.executions.load(Ordering::SeqCst), 2);
    ensure_eq!(sys.verifications.load(Ordering::SeqCst), verifications);
    Ok(())
}

async fn concurrent_redeliveries_after_the_ttl_execute_once(s: &Store) -> CaseResult {
    const OPS: usize = 4;
    let sys = System::default();
    // Each operation failed definitely long ago; its record is a tombstone now.
    for i in 0..OPS {
        let id = format!("redelivered-{i}");
        let (k, f) = (op_key(&id), op_fingerprint(&id, &json!(i)));
        tombstone(s.ledger(), &k, &f, failed("declined")).await?;
    }
    s.advance(TTL + MARGIN).await;
    let mut tasks = Vec::new();
    for (h, _) in s.handles.iter().enumerate() {
        for j in 0..4 {
            let c = ctx(s, h, &format!("agent-{h}-{j}"));
            let sys = sys.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0..OPS {
                    let id = format!("redelivered-{i}");
                    let mut tries = 0;
                    // A call that finds another in flight answers Unknown: ask again.
                    loop {
                        let out = sys
                            .call(&c, &id, json!(i), Ok(json!(format!("effect-{i}"))))
                            .await;
                        match out {
                            Outcome::Completed(v) if v == json!(format!("effect-{i}")) => break,
                            Outcome::Unknown(_) if tries < 500 => {
                                tries += 1;
                                tokio::time::sleep(Duration::from_millis(10)).await;
                            }
                            other => return Err(format!("{id}: {other:?}")),
                        }
                    }
                }
                Ok(())
            }));
        }
    }
    for task in tasks {
        task.await.map_err(|e| format!("task: {e}"))??;
    }
    for i in 0..OPS {
        ensure_eq!(sys.count(&format!("redelivered-{i}")), 1);
    }
    ensure_eq!(sys.executions.load(Ordering::SeqCst) as usize, OPS);
    Ok(())
}
