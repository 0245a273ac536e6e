//! The runtime protocol, branch by branch, on virtual time, through the code
//! `#[side_effect]` generates.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use idemcheck::ledger::{
    Begin, Claim, Decision, Ledger, LedgerAdmin, LedgerError, RecordState, Resolution,
};
use idemcheck::{
    AttemptError, Classify, Context, ErrorClass, Failure, MemoryLedger, NotCompleted, Outcome,
    Postcondition, Scope, Timestamp, Unknown, VirtualClock, side_effect,
};
use serde::{Deserialize, Serialize};

mod answers;
mod macro_surface;
mod properties;

// ------------------------------------------------------------------ a scripted billing service

/// What the service does with the next request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Next {
    /// Commit and answer.
    Ok,
    /// Commit, then never answer (the client times out).
    LostAck,
    /// Never answer; the request lands `after` ms later (a late commit).
    LateCommit(u64),
    /// Never answer and never land.
    Dropped,
    /// Answer with an error of this class; nothing committed.
    Fail(ErrorClass),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Charge {
    id: String,
    order_id: String,
    amount_cents: u64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("billing error ({0:?})")]
struct BillingError(ErrorClass);

impl Classify for BillingError {
    fn class(&self) -> ErrorClass {
        self.0
    }
}

struct Billing {
    clock: VirtualClock,
    script: Mutex<VecDeque<Next>>,
    charges: Mutex<Vec<Charge>>,
    in_flight: Mutex<Vec<(Timestamp, ChargeArgs)>>,
    verify_answers: Mutex<VecDeque<Result<(), String>>>,
    verify_calls: Mutex<Vec<Timestamp>>,
    keys_seen: Mutex<Vec<String>>,
}

impl Billing {
    fn new(clock: &VirtualClock, script: &[Next]) -> Self {
        Billing {
            clock: clock.clone(),
            script: Mutex::new(script.iter().copied().collect()),
            charges: Mutex::default(),
            in_flight: Mutex::default(),
            verify_answers: Mutex::default(),
            verify_calls: Mutex::default(),
            keys_seen: Mutex::default(),
        }
    }

    fn land_due(&self) {
        let now = self.clock.now();
        let mut in_flight = self.in_flight.lock().unwrap();
        let due: Vec<ChargeArgs> = in_flight
            .iter()
            .filter(|(t, _)| *t <= now)
            .map(|(_, a)| a.clone())
            .collect();
        in_flight.retain(|(t, _)| *t > now);
        drop(in_flight);
        for a in due {
            self.commit(&a);
        }
    }

    fn commit(&self, args: &ChargeArgs) -> Charge {
        let mut charges = self.charges.lock().unwrap();
        let charge = Charge {
            id: format!("ch_{}", charges.len() + 1),
            order_id: args.order_id.clone(),
            amount_cents: args.amount_cents,
        };
        charges.push(charge.clone());
        charge
    }

    fn effects(&self) -> usize {
        self.land_due();
        self.charges.lock().unwrap().len()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ChargeArgs {
    customer: String,
    order_id: String,
    amount_cents: u64,
}

fn args(order: &str, amount: u64) -> ChargeArgs {
    ChargeArgs {
        customer: "acme".into(),
        order_id: order.into(),
        amount_cents: amount,
    }
}

async fn attempt(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    billing.land_due();
    if let Some(key) = idemcheck::current_key() {
        billing.keys_seen.lock().unwrap().push(key.to_string());
    }
    let next = billing
        .script
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(Next::Ok);
    match next {
        Next::Ok => Ok(billing.commit(&args)),
        Next::LostAck => {
            billing.commit(&args);
            std::future::pending().await
        }
        Next::LateCommit(after) => {
            let at = billing.clock.now().after(Duration::from_millis(after));
            billing.in_flight.lock().unwrap().push((at, args));
            std::future::pending().await
        }
        Next::Dropped => std::future::pending().await,
        Next::Fail(class) => Err(BillingError(class)),
    }
}

/// The postcondition: a charge for this order exists.
async fn find_charge(billing: &Billing, args: &ChargeArgs) -> Result<Option<Charge>, String> {
    billing.land_due();
    billing
        .verify_calls
        .lock()
        .unwrap()
        .push(billing.clock.now());
    if let Some(Err(e)) = billing.verify_answers.lock().unwrap().pop_front() {
        return Err(e);
    }
    Ok(billing
        .charges
        .lock()
        .unwrap()
        .iter()
        .find(|c| c.order_id == args.order_id)
        .cloned())
}

// The same tool under several contracts.

#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 1_000, settle_ms = 5_000)]
async fn charge_settled(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    attempt(billing, args).await
}

#[side_effect(
    key = [customer, order_id],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 1_000,
    allow(unbounded_in_flight, reason = "control: verify-then-retry without a settle window")
)]
async fn charge_unsettled(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    attempt(billing, args).await
}

#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 0, timeout_ms = 1_000)]
async fn charge_no_retry(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    attempt(billing, args).await
}

struct World {
    clock: VirtualClock,
    ledger: MemoryLedger,
    ctx: Context,
    billing: Billing,
}

fn world(script: &[Next]) -> World {
    let clock = VirtualClock::new();
    let ledger = MemoryLedger::with_clock(Arc::new(clock.clone()));
    let ctx = Context::with_clock(ledger.clone(), Arc::new(clock.clone()), Scope::run("run-1"))
        .with_owner("worker-a");
    let billing = Billing::new(&clock, script);
    World {
        clock,
        ledger,
        ctx,
        billing,
    }
}

impl World {
    fn run<F: std::future::Future>(&self, f: F) -> F::Output {
        self.clock
            .block_on(f)
            .expect("the call waits only on virtual timers")
    }

    fn states(&self) -> Vec<RecordState> {
        self.ledger.snapshot().iter().map(|r| r.state).collect()
    }
}

fn charge(id: &str, order: &str, amount: u64) -> Charge {
    Charge {
        id: id.into(),
        order_id: order.into(),
        amount_cents: amount,
    }
}

// ------------------------------------------------------------------ branches

#[test]
fn first_call_executes_once_and_commits() {
    let w = world(&[Next::Ok]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert_eq!(out, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
    assert_eq!(w.states(), [RecordState::Committed]);
    assert!(
        w.billing.verify_calls.lock().unwrap().is_empty(),
        "no postcondition on success"
    );
}

#[test]
fn replay_returns_the_stored_result_without_executing() {
    let w = world(&[Next::Ok, Next::Ok]);
    let first = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    let again = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert_eq!(first, again);
    assert_eq!(w.billing.effects(), 1);
}

#[test]
fn the_key_is_scoped_to_the_run() {
    let w = world(&[Next::Ok, Next::Ok]);
    let other_run = w.ctx.with_scope(Scope::run("run-2"));
    w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)))
        .completed()
        .unwrap();
    w.run(charge_settled::call(
        &other_run,
        &w.billing,
        args("o-1", 4900),
    ))
    .completed()
    .unwrap();
    assert_eq!(w.billing.effects(), 2, "two runs are two operations");
}

#[test]
fn divergent_payload_is_refused_without_executing() {
    let w = world(&[Next::Ok, Next::Ok]);
    w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)))
        .completed()
        .unwrap();
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 9900)));
    let Outcome::NotCompleted(NotCompleted {
        reason: Failure::Divergent { stored, given },
        attempts: 0,
        ..
    }) = out
    else {
        panic!("{out:?}")
    };
    assert_ne!(stored, given);
    assert_eq!(w.billing.effects(), 1);
    assert_eq!(
        Failure::<BillingError>::Divergent { stored, given }.to_string(),
        "idempotency key reused with different parameters"
    );
}

#[test]
fn timeout_then_verify_done_completes_without_retrying() {
    let w = world(&[Next::LostAck]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert_eq!(out, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
    assert_eq!(w.states(), [RecordState::Committed]);
    // The postcondition ran once the settle window had passed since the dispatch.
    assert_eq!(*w.billing.verify_calls.lock().unwrap(), [Timestamp(5_000)]);
}

#[test]
fn timeout_then_verify_not_done_retries_with_the_same_key() {
    let w = world(&[Next::Dropped, Next::Ok]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert_eq!(out, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
    let keys = w.billing.keys_seen.lock().unwrap().clone();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0], keys[1], "same key on every attempt");
    assert_eq!(keys[0], w.ledger.snapshot()[0].key.to_string());
}

#[test]
fn late_commit_within_the_settle_window_is_seen_by_the_postcondition() {
    let w = world(&[Next::LateCommit(4_000)]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert!(out.is_completed(), "{out:?}");
    assert_eq!(w.billing.effects(), 1);
}

#[test]
fn without_a_settle_window_a_late_commit_duplicates() {
    // The control strategy DESIGN warns about (IDEM009): verify-then-retry, no settle window.
    let w = world(&[Next::LateCommit(90_000), Next::Ok]);
    let out = w.run(charge_unsettled::call(
        &w.ctx,
        &w.billing,
        args("o-1", 4900),
    ));
    assert!(out.is_completed());
    w.clock.advance(Duration::from_secs(3600));
    assert_eq!(
        w.billing.effects(),
        2,
        "the late commit landed after the retry"
    );
}

#[test]
fn cap_reached_with_trusted_not_done_is_not_completed_and_frees_the_key() {
    let w = world(&[Next::Dropped, Next::Dropped, Next::Ok]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    let Outcome::NotCompleted(NotCompleted {
        attempts: 2,
        reason: Failure::NotDone { last_error },
        ..
    }) = out
    else {
        panic!("{out:?}")
    };
    assert_eq!(
        last_error,
        AttemptError::TimedOut {
            after: Duration::from_secs(1)
        }
    );
    assert!(
        w.states().is_empty(),
        "verified not done: the key is free again"
    );
    let again = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert!(again.is_completed());
    assert_eq!(w.billing.effects(), 1);
}

#[test]
fn cap_reached_without_a_settle_window_is_unknown() {
    let w = world(&[Next::Dropped]);
    let out = w.run(charge_no_retry::call(&w.ctx, &w.billing, args("o-1", 4900)));
    let Outcome::Unknown(Unknown {
        attempts: 1,
        postcondition: Postcondition::NotDoneUntrusted,
        last_error: Some(_),
        ..
    }) = out
    else {
        panic!("{out:?}")
    };
    assert_eq!(w.states(), [RecordState::Unknown]);
    let pending = w.run(w.ledger.pending()).unwrap();
    assert_eq!(pending.len(), 1);
}

#[test]
fn postcondition_cannot_tell_is_unknown_and_escalated() {
    let w = world(&[Next::LostAck]);
    w.billing
        .verify_answers
        .lock()
        .unwrap()
        .push_back(Err("search API down".into()));
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    let Outcome::Unknown(u) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(
        u.postcondition,
        Postcondition::CannotTell("search API down".into())
    );
    assert_eq!(u.attempts, 1);
    assert_eq!(w.states(), [RecordState::Unknown]);
    let esc = idemcheck::Escalation::of("create_charge", &out);
    assert_eq!(esc.status, "unknown");
    assert!(
        esc.to_string()
            .contains("postcondition cannot tell: search API down"),
        "{esc}"
    );
    // An operator decides it happened: later calls replay the decision.
    let key = u.key.clone();
    w.run(w.ledger.decide(
        &key,
        &Decision::Happened {
            result: serde_json::to_value(charge("ch_1", "o-1", 4900)).unwrap(),
        },
    ))
    .unwrap();
    let again = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert_eq!(again, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
}

#[test]
fn definite_failures_are_stored_and_replayed() {
    let w = world(&[Next::Fail(ErrorClass::Definite), Next::Ok]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert!(matches!(
        out,
        Outcome::NotCompleted(NotCompleted {
            reason: Failure::Tool(BillingError(ErrorClass::Definite)),
            attempts: 1,
            ..
        })
    ));
    let again = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    let Outcome::NotCompleted(NotCompleted {
        reason: Failure::Replayed(stored),
        attempts: 0,
        ..
    }) = again
    else {
        panic!("{again:?}")
    };
    assert_eq!(stored.message, "billing error (Definite)");
    assert_eq!(w.billing.effects(), 0);
}

#[test]
fn invalid_requests_are_not_stored() {
    let w = world(&[Next::Fail(ErrorClass::Invalid), Next::Ok]);
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert!(matches!(
        out,
        Outcome::NotCompleted(NotCompleted {
            reason: Failure::Tool(_),
            ..
        })
    ));
    assert!(w.states().is_empty());
    assert!(
        w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)))
            .is_completed()
    );
    assert_eq!(w.billing.effects(), 1);
}

/// A worker that died after claiming (and perhaps after the effect): its DECLARED record.
fn crashed_claim(w: &World, a: &ChargeArgs) -> u64 {
    let key = idemcheck::Key::derive(
        w.ctx.scope(),
        "charge_settled",
        &idemcheck::key::Material::new()
            .field("customer", &a.customer)
            .field("order_id", &a.order_id),
    )
    .unwrap();
    let fp = idemcheck::Fingerprint::of(&idemcheck::key::Material::new().field("args", a)).unwrap();
    let claim = Claim {
        key: &key,
        fingerprint: &fp,
        tool: "charge_settled",
        owner: "crashed-worker",
        lease: charge_settled::CONTRACT.lease(),
        ttl: charge_settled::CONTRACT.ttl(),
    };
    match w.run(w.ledger.begin(&claim)).unwrap() {
        Begin::Claimed { token } => token,
        other => panic!("{other:?}"),
    }
}

#[test]
fn declared_record_of_a_crashed_owner_that_did_the_effect_is_adopted() {
    let w = world(&[]);
    let a = args("o-1", 4900);
    crashed_claim(&w, &a);
    w.billing.commit(&a); // the effect happened before the crash
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, a));
    assert_eq!(out, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
    assert_eq!(w.states(), [RecordState::Committed]);
    assert_eq!(w.clock.now(), Timestamp(0), "no need to wait for the lease");
}

#[test]
fn declared_record_not_done_is_taken_over_only_after_its_lease() {
    let w = world(&[Next::Ok]);
    let a = args("o-1", 4900);
    let stale = crashed_claim(&w, &a);
    let lease = charge_settled::CONTRACT.lease();
    assert_eq!(lease, Duration::from_millis(2 * (1_000 + 5_000) + 5_000));
    let out = w.run(charge_settled::call(&w.ctx, &w.billing, a));
    assert!(out.is_completed(), "{out:?}");
    assert_eq!(w.billing.effects(), 1);
    assert_eq!(
        w.clock.now(),
        Timestamp(0).after(lease),
        "waited for the lease to run out"
    );
    let rec = &w.ledger.snapshot()[0];
    assert_eq!(rec.owner, "worker-a");
    assert!(rec.token > stale);
    // Fencing: the crashed owner comes back and tries to write. It cannot.
    let err = w
        .run(w.ledger.resolve(
            &rec.key,
            stale,
            &Resolution::Unknown {
                note: "late".into(),
            },
        ))
        .unwrap_err();
    assert!(matches!(err, LedgerError::Fenced { .. }));
    assert_eq!(w.states(), [RecordState::Committed]);
}

/// Poll two futures to completion on one thread (the virtual clock's driver).
async fn join2<A: std::future::Future, B: std::future::Future>(
    a: A,
    b: B,
) -> (A::Output, B::Output) {
    let (mut a, mut b) = (std::pin::pin!(a), std::pin::pin!(b));
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none()
            && let std::task::Poll::Ready(v) = a.as_mut().poll(cx)
        {
            ra = Some(v);
        }
        if rb.is_none()
            && let std::task::Poll::Ready(v) = b.as_mut().poll(cx)
        {
            rb = Some(v);
        }
        if ra.is_some() && rb.is_some() {
            std::task::Poll::Ready((ra.take().unwrap(), rb.take().unwrap()))
        } else {
            std::task::Poll::Pending
        }
    })
    .await
}

#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 10_000, settle_ms = 5_000,
              allow(unbounded_in_flight, reason = "the fake API commits within 3 s of dispatch, whatever the client waits"))]
async fn charge_slowly(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    // The API takes 3 s to answer.
    idemcheck::Clock::sleep_until(
        &billing.clock,
        billing.clock.now().after(Duration::from_secs(3)),
    )
    .await;
    attempt(billing, args).await
}

#[test]
fn a_concurrent_duplicate_call_waits_for_the_first_and_replays_it() {
    let w = world(&[Next::Ok]);
    let other_worker = w.ctx.clone().with_owner("worker-b");
    let (first, second) = w.run(join2(
        charge_slowly::call(&w.ctx, &w.billing, args("o-1", 4900)),
        charge_slowly::call(&other_worker, &w.billing, args("o-1", 4900)),
    ));
    assert_eq!(first, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(
        second, first,
        "the duplicate replays the first call's result"
    );
    assert_eq!(w.billing.effects(), 1);
    // It polled the record and returned soon after the commit, not at the end of the
    // first owner's lease (2 × (10 s + 5 s) + 5 s = 35 s).
    let poll = charge_slowly::CONTRACT.lease() / 10;
    assert!(
        w.clock.now() <= Timestamp(3_000).after(poll),
        "{:?}",
        w.clock.now()
    );
}

#[test]
fn a_live_lease_beyond_the_wait_limit_is_unknown() {
    let w = world(&[Next::Ok]);
    let ctx = w.ctx.clone().with_max_wait(Duration::from_secs(1));
    let a = args("o-1", 4900);
    crashed_claim(&w, &a);
    let out = w.run(charge_settled::call(&ctx, &w.billing, a));
    let Outcome::Unknown(Unknown {
        postcondition: Postcondition::InFlightElsewhere { owner, .. },
        ..
    }) = out
    else {
        panic!("{out:?}")
    };
    assert_eq!(owner, "crashed-worker");
    assert_eq!(w.billing.effects(), 0, "never executed blindly");
}

#[test]
fn unserialisable_arguments_are_not_completed_at_run_time() {
    #[derive(Clone)]
    struct Weird(std::collections::HashMap<(u8, u8), u8>);
    impl Serialize for Weird {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.serialize(s)
        }
    }
    #[side_effect(key = [w], verify = find_weird, max_retries = 0)]
    async fn weird_tool(w: Weird) -> Result<u8, String> {
        Ok(w.0.len() as u8)
    }
    async fn find_weird(_w: &Weird) -> Result<Option<u8>, String> {
        Ok(None)
    }
    let w = world(&[]);
    let mut map = std::collections::HashMap::new();
    map.insert((1, 2), 3);
    let out = w.run(weird_tool::call(&w.ctx, Weird(map)));
    let Outcome::NotCompleted(NotCompleted {
        reason: Failure::Key(e),
        attempts: 0,
        key: None,
    }) = out
    else {
        panic!("{out:?}")
    };
    assert_eq!(e.field, "w");
}

/// A ledger that is down.
struct DownLedger;

#[async_trait::async_trait]
impl Ledger for DownLedger {
    async fn begin(&self, _: &Claim<'_>) -> Result<Begin, LedgerError> {
        Err(LedgerError::Unavailable("connection refused".into()))
    }
    async fn take_over(&self, _: &Claim<'_>, _: u64) -> Result<Option<u64>, LedgerError> {
        unreachable!()
    }
    async fn resolve(&self, _: &idemcheck::Key, _: u64, _: &Resolution) -> Result<(), LedgerError> {
        unreachable!()
    }
    async fn release(&self, _: &idemcheck::Key, _: u64) -> Result<(), LedgerError> {
        unreachable!()
    }
    async fn load(
        &self,
        _: &idemcheck::Key,
    ) -> Result<Option<idemcheck::ledger::Record>, LedgerError> {
        unreachable!()
    }
}

#[test]
fn an_unreachable_ledger_fails_closed() {
    let clock = VirtualClock::new();
    let ctx = Context::with_clock(DownLedger, Arc::new(clock.clone()), Scope::run("r"));
    let billing = Billing::new(&clock, &[Next::Ok]);
    let out = clock
        .block_on(charge_settled::call(&ctx, &billing, args("o-1", 4900)))
        .unwrap();
    let Outcome::NotCompleted(NotCompleted {
        reason: Failure::Ledger(_),
        attempts: 0,
        ..
    }) = &out
    else {
        panic!("{out:?}")
    };
    assert_eq!(billing.effects(), 0);
    assert!(
        idemcheck::Escalation::of("charge", &out)
            .to_string()
            .contains("nothing was executed")
    );
}

#[test]
fn after_the_ttl_a_redelivery_whose_effect_exists_completes_without_executing() {
    let w = world(&[Next::Ok, Next::Dropped, Next::Ok]);
    let first = w
        .run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)))
        .completed()
        .unwrap();
    let unknown = w.run(charge_no_retry::call(&w.ctx, &w.billing, args("o-2", 100)));
    assert!(unknown.is_unknown());
    w.clock.advance(Duration::from_secs(24 * 3600));
    // The result is pruned; the key stays as a tombstone. Unresolved records are kept.
    assert_eq!(w.run(w.ledger.prune()).unwrap(), 1);
    let mut states = w.states();
    states.sort();
    assert_eq!(states, [RecordState::Unknown, RecordState::Pruned]);
    // The call is redelivered after pruning: the charge exists, so the postcondition answers
    // and nothing is executed; the result is recorded again.
    let verified = w.billing.verify_calls.lock().unwrap().len();
    let again = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)));
    assert_eq!(again, Outcome::Completed(first));
    assert_eq!(w.billing.effects(), 1, "executed again after pruning");
    assert_eq!(w.billing.verify_calls.lock().unwrap().len(), verified + 1);
    let mut states = w.states();
    states.sort();
    assert_eq!(states, [RecordState::Committed, RecordState::Unknown]);
    // A different amount for the same order is still a divergent payload.
    w.clock.advance(Duration::from_secs(24 * 3600));
    let divergent = w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 5000)));
    assert!(
        matches!(
            divergent,
            Outcome::NotCompleted(NotCompleted {
                reason: Failure::Divergent { .. },
                ..
            })
        ),
        "{divergent:?}"
    );
    assert_eq!(w.billing.effects(), 1);
}

#[test]
fn past_the_tombstone_window_the_key_is_forgotten_but_unresolved_records_are_kept() {
    let w = world(&[Next::Ok, Next::Dropped, Next::Ok]);
    w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)))
        .completed()
        .unwrap();
    let unknown = w.run(charge_no_retry::call(&w.ctx, &w.billing, args("o-2", 100)));
    assert!(unknown.is_unknown());
    assert_eq!(
        w.ledger.tombstone_window(),
        idemcheck::ledger::DEFAULT_TOMBSTONE_WINDOW
    );
    assert_eq!(
        idemcheck::ledger::DEFAULT_TOMBSTONE_WINDOW,
        Duration::from_secs(30 * 24 * 3600)
    );
    w.clock
        .advance(Duration::from_secs(24 * 3600) + idemcheck::ledger::DEFAULT_TOMBSTONE_WINDOW);
    assert_eq!(w.run(w.ledger.prune()).unwrap(), 1);
    assert_eq!(w.states(), [RecordState::Unknown]);
    // The documented boundary: a forgotten key is a new operation, executed without asking
    // the postcondition.
    let verified = w.billing.verify_calls.lock().unwrap().len();
    w.run(charge_settled::call(&w.ctx, &w.billing, args("o-1", 4900)))
        .completed()
        .unwrap();
    assert_eq!(w.billing.effects(), 2);
    assert_eq!(w.billing.verify_calls.lock().unwrap().len(), verified);
}

#[test]
fn ambiguous_string_errors_go_to_the_postcondition() {
    #[side_effect(key = [order], verify = find_order, max_retries = 1, timeout_ms = 10, settle_ms = 10)]
    async fn place(log: &Mutex<Vec<String>>, order: String) -> Result<String, String> {
        log.lock().unwrap().push(order.clone());
        Err("connection reset".to_string())
    }
    async fn find_order(
        log: &Mutex<Vec<String>>,
        order: &String,
    ) -> Result<Option<String>, String> {
        Ok(log.lock().unwrap().contains(order).then(|| order.clone()))
    }
    let w = world(&[]);
    let log = Mutex::new(Vec::new());
    let out = w.run(place::call(&w.ctx, &log, "o-9".to_string()));
    assert_eq!(out, Outcome::Completed("o-9".to_string()));
    assert_eq!(log.lock().unwrap().len(), 1);
}

/// The advice names only key fields the caller chooses (a `reference`), never the thing
/// acted on; it is the escalation's `source()`, found through any wrapping error type.
#[test]
fn the_advice_speaks_in_the_tools_words_and_is_found_through_wrappers() {
    use idemcheck::{Escalation, Feedback, KeyWords};
    let divergent: Outcome<(), String> = Outcome::NotCompleted(NotCompleted {
        key: None,
        attempts: 0,
        reason: Failure::Divergent {
            stored: idemcheck::Fingerprint::of(&idemcheck::__private::Material::new()).unwrap(),
            given: idemcheck::Fingerprint::of(&idemcheck::__private::Material::new()).unwrap(),
        },
    });
    let subject = Escalation::with_key_words(
        "escalate_ticket",
        &divergent,
        KeyWords {
            fields: &["ticket_id"],
            chosen: &[],
        },
    );
    let advice = subject.advice();
    assert!(advice.starts_with("`escalate_ticket` refused: it was already called for the same `ticket_id` with other arguments, and it makes one operation per `ticket_id`"), "{advice}");
    assert!(!advice.contains("choose a new"), "{advice}");
    assert!(!subject.feedback.retryable);
    let chosen = Escalation::with_key_words(
        "open_ticket",
        &divergent,
        KeyWords {
            fields: &["desk", "reference"],
            chosen: &["reference"],
        },
    );
    assert!(
        chosen
            .advice()
            .ends_with("To make a separate operation, choose a new `reference`."),
        "{}",
        chosen.advice()
    );
    // Unknown says "may or may not have happened" once.
    let unknown: Outcome<(), String> = Outcome::Unknown(idemcheck::Unknown {
        key: idemcheck::Key::derive(
            &idemcheck::Scope::run("r"),
            "t",
            &idemcheck::__private::Material::new(),
        )
        .unwrap(),
        attempts: 1,
        last_error: Some(idemcheck::AttemptError::Tool("timeout".to_string())),
        postcondition: Postcondition::CannotTell("index down".into()),
    });
    let u = Escalation::of("t", &unknown);
    assert_eq!(
        u.advice().matches("may or may not have happened").count(),
        1,
        "{}",
        u.advice()
    );
    assert!(u.feedback.retryable);

    /// A tool's own error type wrapping the escalation, in both ways thiserror writes it.
    #[derive(Debug, thiserror::Error)]
    enum ToolError {
        #[error(transparent)]
        Transparent(Escalation),
        #[error("the guard refused")]
        Wrapped(#[source] Escalation),
        #[error("disk full")]
        Own,
    }
    for e in [
        ToolError::Transparent(subject.clone()),
        ToolError::Wrapped(subject.clone()),
    ] {
        let found = Feedback::find_in(&e).expect("the advice is in the chain");
        assert_eq!(found, &*subject.feedback);
    }
    assert!(Feedback::find_in(&ToolError::Own).is_none());
}
