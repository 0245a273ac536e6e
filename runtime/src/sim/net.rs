//! The simulated world below the wrapper: a fake **system of record** that counts real
//! effects, optionally honours idempotency keys the way Stripe does, and answers reads with
//! an optional visibility delay; and the **transport** to it, which injects the wire faults
//! of the episode's [`Schedule`].
//!
//! A tool under test reaches the system of record only through a [`Net`] handle: its
//! simulated service calls [`Net::write`] for the effect and [`Net::read`] for the
//! postcondition. Everything runs on the episode's [`VirtualClock`]; a request "in the
//! pipe" lands lazily, stamped with its landing time, before any later event is recorded,
//! so the log is in time order without a background task.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use serde_json::Value;

use super::event::{Event, EventKind};
use super::fault::{Fault, FaultClass, LedgerOp, Schedule};
use crate::clock::{Clock, Timestamp, VirtualClock};
use crate::outcome::{Classify, ErrorClass};

/// Stripe's wording for a key reused with other parameters.
pub const KEY_REUSED: &str = "idempotency key reused with different parameters";

/// How the system of record and the transport behave (besides the faults).
#[derive(Debug, Clone, Copy)]
pub struct NetConfig {
    /// Honour idempotency keys like Stripe: same key and parameters replay the first
    /// result, same key and other parameters are refused, invalid requests are not stored,
    /// keys are forgotten after `key_ttl_ms`.
    pub server_keys: bool,
    /// The transport's own timeout: a request without a response fails with
    /// [`SimError::Timeout`] this long after it was sent.
    pub transport_timeout_ms: u64,
    /// How long the system of record keeps a key (Stripe: at least 24 h).
    pub key_ttl_ms: u64,
    /// Parameters the system of record rejects as invalid (not stored, as Stripe).
    pub validate: Option<fn(&Value) -> bool>,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            server_keys: false,
            transport_timeout_ms: 30_000,
            key_ttl_ms: 24 * 3600 * 1000,
            validate: None,
        }
    }
}

/// What the transport or the system of record answered instead of a result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// No response within the transport's timeout: the effect may or may not have happened.
    #[error("timed out waiting for the system of record")]
    Timeout,
    /// The key was used before with other parameters (nothing done).
    #[error("{KEY_REUSED}")]
    KeyReused,
    /// The parameters were rejected (nothing done, nothing stored).
    #[error("invalid parameters")]
    Invalid,
    /// A 503: the service was unavailable. The simulator sends it before any effect
    /// (`lost_request`) and, as a gateway in front of an upstream that committed, after it
    /// (`error_after_effect`): a client cannot tell which.
    #[error("503 service unavailable")]
    Unavailable,
    /// A 500 (the simulator sends it after the effect took place).
    #[error("500 internal server error")]
    ServerError,
    /// A 502 from a gateway: its upstream answered badly, possibly after committing.
    #[error("502 bad gateway")]
    BadGateway,
    /// A 504 from a gateway: it stopped waiting for its upstream, which may still commit.
    #[error("504 gateway timeout")]
    GatewayTimeout,
    /// The request was declined: nothing done. The simulated world never sends it; tools
    /// that classify errors wrongly (the harness's mutants) do.
    #[error("declined")]
    Declined,
}

impl SimError {
    /// The error a client gets when `status` comes back after its request took effect.
    pub fn after_effect(status: u16) -> SimError {
        match status {
            502 => SimError::BadGateway,
            503 => SimError::Unavailable,
            504 => SimError::GatewayTimeout,
            _ => SimError::ServerError,
        }
    }
}

/// Every 5xx and a timeout are ambiguous: what a client may conclude from each status.
///
/// | status | who sends it | what the client knows |
/// |---|---|---|
/// | 500 | the service, while or after handling the request | nothing: the write may have committed before the failure |
/// | 502 | a gateway, when its upstream's answer was broken | nothing: the upstream may have committed and then failed to answer |
/// | 503 | the service before handling it — or a gateway whose upstream already committed (a pool drained mid-request, a load balancer giving up) | nothing, unless the API documents that a 503 is never sent after processing *and* no gateway sits in front of it |
/// | 504 | a gateway that stopped waiting | the upstream is probably still working and may commit later: treat it as a lost response |
///
/// So a tool may resend after any of them only under the same idempotency key (with
/// `server_dedup`) or once its postcondition, asked after the settle window, says "not
/// done" — which is what the guard does. "503 means nothing happened" is the bug the
/// `error_after_effect` class catches.
impl Classify for SimError {
    fn class(&self) -> ErrorClass {
        match self {
            SimError::Timeout
            | SimError::Unavailable
            | SimError::ServerError
            | SimError::BadGateway
            | SimError::GatewayTimeout => ErrorClass::Ambiguous,
            SimError::KeyReused | SimError::Declined => ErrorClass::Definite,
            SimError::Invalid => ErrorClass::Invalid,
        }
    }
}

/// A real effect in the system of record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// Effect id, 1, 2, ... in the order effects happen.
    pub id: u64,
    /// Business id of the operation it belongs to (an order id, a customer id).
    pub intent: Arc<str>,
    /// The parameters it was made with.
    pub payload: Arc<Value>,
    /// When it landed.
    pub at: u64,
    /// When reads start to see it.
    pub visible_at: u64,
}

#[derive(Debug, Clone)]
struct Held {
    until: u64,
    seq: u64,
    req: u32,
    intent: Arc<str>,
    payload: Arc<Value>,
    key: Option<Arc<str>>,
    /// A reorder: land right after the next fresh request for this operation.
    overtake: bool,
    /// A wire duplicate (the original was already delivered).
    duplicate: bool,
}

#[derive(Debug, Clone)]
struct KeyEntry {
    payload: Arc<Value>,
    effect: u64,
    at: u64,
}

#[derive(Debug, Default)]
struct ReqState {
    gave_up: bool,
    landed: bool,
    reorder: bool,
    /// A slow success: the client waits for the answer when it lands.
    slow: bool,
    /// What the system of record answered when a held request landed.
    answer: Option<Result<Effect, SimError>>,
}

/// One page of a listing ([`Net::list`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The effects on the page, oldest first.
    pub effects: Vec<Effect>,
    /// More pages follow (ask again with `starting_after` the last effect's id).
    pub has_more: bool,
}

/// Per-request wire fault, looked up by request number.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wire {
    Clean,
    LostAck,
    Drop,
    Late(u64),
    Reorder(u64),
    Twice(u64),
    Crash,
    RefusedBefore,
    ErrorAfter(u16),
    Slow(u64),
}

/// A claim a process holds on a key, as the ledger granted it.
#[derive(Debug, Clone)]
struct HeldClaim {
    pid: u32,
    key: Arc<str>,
    lease_until: u64,
}

#[derive(Debug)]
struct State {
    cfg: NetConfig,
    wire: Vec<Wire>,
    invisible: Vec<u64>,
    next_req: u32,
    reqs: Vec<ReqState>,
    active: u32,
    dead: u64,
    log: Vec<Event>,
    effects: Vec<Effect>,
    keys: BTreeMap<Arc<str>, KeyEntry>,
    held: Vec<Held>,
    seq: u64,
    hits: u32,
    /// The clock's start: events are logged in milliseconds since it.
    epoch: u64,
    strings: Vec<Arc<str>>,
    /// Setting up the world (look-alike records): no faults, no windows.
    setup: bool,
    /// Requests sent while setting up: fault request numbers count from here.
    fault_base: u32,
    /// Injected ledger faults: (step, occurrence, applied), and how often each step ran.
    ledger_faults: Vec<(LedgerOp, u32, bool)>,
    /// Injected read faults: (read number, times out), and how many reads ran.
    read_faults: Vec<(u32, bool)>,
    reads: u32,
    ledger_counts: [u32; 5],
    /// Live claims, as the ledger granted them.
    claims: Vec<HeldClaim>,
    /// Requests sent without a live claim: (request, process).
    unclaimed: Vec<(u32, u32)>,
    /// The world holds records of other operations (look-alikes, siblings).
    others: bool,
    /// Log nothing (setting up a crowded world).
    quiet: bool,
    /// Each simulated process's own identity and process-wide state, created on first use.
    processes: BTreeMap<u32, ProcessState>,
    /// Where process identities are derived from (set per episode by the harness).
    identity_seed: u64,
}

/// What one simulated process holds besides the shared ledger and world.
#[derive(Default)]
struct ProcessState {
    boot_nonce: u64,
    locals: BTreeMap<&'static str, Arc<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for ProcessState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessState")
            .field("boot_nonce", &self.boot_nonce)
            .field("locals", &self.locals.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The identity of the simulated process a tool runs in ([`Net::process`]): what a real
/// process has of its own and loses when it restarts. Every simulated process of an episode
/// — the agent's, each concurrent worker, each restart after a crash — gets a fresh one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    /// The process id (1 the agent's first process; each worker and each restart gets the
    /// next).
    pub pid: u32,
    /// A random value drawn when the process started (a start-up nonce, a per-process
    /// salt): deterministic per episode and process, different between processes.
    pub boot_nonce: u64,
}

impl Process {
    /// The process's hash seed, as `std::collections::hash_map::RandomState` draws one per
    /// process: a `HashMap` built with it iterates in an order that changes from process
    /// to process.
    pub fn random_state(&self) -> ProcessHasher {
        ProcessHasher(self.boot_nonce)
    }
}

/// A [`std::hash::BuildHasher`] seeded by a simulated process ([`Process::random_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessHasher(u64);

impl std::hash::BuildHasher for ProcessHasher {
    type Hasher = std::hash::DefaultHasher;

    fn build_hasher(&self) -> Self::Hasher {
        use std::hash::Hasher;
        let mut h = std::hash::DefaultHasher::new();
        h.write_u64(self.0);
        h
    }
}

/// The simulated world below the wrapper (cheap to clone; one per episode).
#[derive(Clone)]
pub struct Net {
    state: Arc<Mutex<State>>,
    clock: VirtualClock,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Net").finish_non_exhaustive()
    }
}

/// The answer of one delivery to the system of record.
enum Delivered {
    Done(Effect),
    Refused(SimError),
    /// Only from the crash path of [`Net::write`].
    Crashed,
    /// Only from the slow path of [`Net::write`]: it lands and answers at this time.
    Slow(u64),
}

thread_local! {
    /// Event vectors of finished episodes, reused: one large allocation less per episode.
    static LOG_POOL: std::cell::RefCell<Vec<Vec<Event>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Give an episode's event vector back for reuse by the next episode on this thread.
pub(crate) fn recycle_log(mut log: Vec<Event>) {
    log.clear();
    LOG_POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < 4 {
            p.push(log);
        }
    });
}

fn pooled_log() -> Vec<Event> {
    LOG_POOL
        .with(|p| p.borrow_mut().pop())
        .unwrap_or_else(|| Vec::with_capacity(32))
}

impl State {
    /// One shared string per distinct intent or key in the episode.
    fn intern(&mut self, text: &str) -> Arc<str> {
        if let Some(a) = self.strings.iter().find(|a| &***a == text) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(text);
        self.strings.push(a.clone());
        a
    }

    fn push(&mut self, t: u64, kind: EventKind) {
        self.land_due(t);
        self.record(t, kind);
    }

    /// Log an event at clock time `t` (as time since the episode started), landing nothing.
    fn record(&mut self, t: u64, kind: EventKind) {
        if self.quiet {
            return;
        }
        let t = t - self.epoch;
        self.log.push(Event { t, kind });
    }

    fn land_due(&mut self, now: u64) {
        loop {
            let Some(i) = self
                .held
                .iter()
                .enumerate()
                .filter(|(_, h)| h.until <= now)
                .min_by_key(|(_, h)| (h.until, h.seq))
                .map(|(i, _)| i)
            else {
                return;
            };
            let h = self.held.remove(i);
            self.land(h);
        }
    }

    fn land(&mut self, h: Held) {
        let r = &self.reqs[h.req as usize];
        let (late_after_give_up, reorder, slow) = (r.gave_up, r.reorder, r.slow);
        if h.duplicate {
            self.hits |= FaultClass::Redelivery.bit();
        } else if late_after_give_up {
            self.hits |= if reorder {
                FaultClass::Reorder.bit()
            } else if slow {
                FaultClass::SlowSuccess.bit()
            } else {
                FaultClass::LateCommit.bit()
            };
        }
        let delivered = self.deliver(h.until, h.req, &h.intent, &h.payload, h.key.as_ref(), true);
        if slow && !h.duplicate {
            self.req(h.req).answer = match delivered {
                Delivered::Done(e) => Some(Ok(e)),
                Delivered::Refused(e) => Some(Err(e)),
                Delivered::Crashed | Delivered::Slow(_) => None,
            };
        }
    }

    fn req(&mut self, req: u32) -> &mut ReqState {
        &mut self.reqs[req as usize]
    }

    /// The request's number in the schedule's terms (`None` while setting up the world).
    fn fault_index(&self, req: u32) -> Option<usize> {
        req.checked_sub(self.fault_base)
            .filter(|_| !self.setup)
            .map(|i| i as usize)
    }

    /// Process `pid`'s state, created on first use with its start-up nonce.
    fn process_state(&mut self, pid: u32) -> &mut ProcessState {
        let seed = self.identity_seed;
        self.processes.entry(pid).or_insert_with(|| ProcessState {
            boot_nonce: super::rng::SplitMix64::derive(seed, u64::from(pid)).next_u64(),
            locals: BTreeMap::new(),
        })
    }

    /// The windows a listing of the effects matching `query` opens (none while setting up
    /// the world): a matching effect landed but not visible yet is a stale read; matching
    /// effects of more than one operation, in a world that holds others, put the read
    /// beside a look-alike or a sibling.
    fn observe(&mut self, now: u64, query: &dyn Fn(&Effect) -> bool) {
        if self.setup {
            return;
        }
        let mut stale = false;
        let mut beside = false;
        let mut first: Option<&Arc<str>> = None;
        for e in self.effects.iter().filter(|e| query(e)) {
            stale |= e.visible_at > now;
            match first {
                None => first = Some(&e.intent),
                Some(i) => beside |= *i != e.intent,
            }
        }
        if stale {
            self.hits |= FaultClass::StaleRead.bit();
        }
        if beside && self.others {
            self.hits |= FaultClass::LookalikeRecords.bit() | FaultClass::SiblingOperations.bit();
        }
    }

    /// I5: the process sending a request must hold a live claim on the key it runs under.
    fn check_claim(&mut self, t: u64, req: u32, pid: u32) {
        let key = crate::context::current_key();
        let ok = key.is_some_and(|k| {
            self.claims
                .iter()
                .any(|c| c.pid == pid && &*c.key == k.as_str() && t < c.lease_until)
        });
        if !ok {
            self.unclaimed.push((req, pid));
        }
    }

    /// One delivery to the system of record at time `t`.
    fn deliver(
        &mut self,
        t: u64,
        req: u32,
        intent: &Arc<str>,
        payload: &Arc<Value>,
        key: Option<&Arc<str>>,
        late: bool,
    ) -> Delivered {
        self.req(req).landed = true;
        let ttl = self.cfg.key_ttl_ms;
        if let (true, Some(key)) = (self.cfg.server_keys, key) {
            self.keys.retain(|_, e| e.at.saturating_add(ttl) > t);
            if let Some(entry) = self.keys.get(key) {
                if entry.payload != *payload {
                    self.record(
                        t,
                        EventKind::Refused {
                            req,
                            reason: KEY_REUSED.into(),
                        },
                    );
                    return Delivered::Refused(SimError::KeyReused);
                }
                let effect = entry.effect;
                self.record(t, EventKind::Replay { req, effect });
                return Delivered::Done(self.effects[effect as usize - 1].clone());
            }
        }
        if let Some(valid) = self.cfg.validate
            && !valid(payload)
        {
            self.record(
                t,
                EventKind::Refused {
                    req,
                    reason: "invalid parameters (not stored)".into(),
                },
            );
            return Delivered::Refused(SimError::Invalid);
        }
        let id = self.effects.len() as u64 + 1;
        let effect = Effect {
            id,
            intent: intent.clone(),
            payload: payload.clone(),
            at: t,
            visible_at: t + self
                .fault_index(req)
                .and_then(|i| self.invisible.get(i))
                .copied()
                .unwrap_or(0),
        };
        self.effects.push(effect.clone());
        if let (true, Some(key)) = (self.cfg.server_keys, key) {
            self.keys.insert(
                key.clone(),
                KeyEntry {
                    payload: payload.clone(),
                    effect: id,
                    at: t,
                },
            );
        }
        self.record(
            t,
            EventKind::Effect {
                req,
                effect: id,
                late,
            },
        );
        if !late {
            // A reorder: requests held for this operation land right behind this one.
            let mut behind: Vec<Held> = Vec::new();
            self.held.retain(|h| {
                if h.overtake && &h.intent == intent {
                    behind.push(h.clone());
                    false
                } else {
                    true
                }
            });
            behind.sort_by_key(|h| h.seq);
            for mut h in behind {
                h.until = t;
                self.land(h);
            }
        }
        Delivered::Done(effect)
    }
}

impl Net {
    /// A world for one episode: the system of record empty, the faults of `schedule`
    /// armed. Agent-level faults in the schedule are the harness's business and ignored
    /// here.
    pub fn new(clock: VirtualClock, cfg: NetConfig, schedule: &Schedule) -> Net {
        let mut wire: Vec<Wire> = Vec::new();
        let mut invisible: Vec<u64> = Vec::new();
        let mut ledger_faults = Vec::new();
        let mut read_faults = Vec::new();
        for fault in &schedule.faults {
            let set = |wire: &mut Vec<Wire>, r: u32, w: Wire| {
                let r = r as usize;
                if wire.len() <= r {
                    wire.resize(r + 1, Wire::Clean);
                }
                if wire[r] == Wire::Clean {
                    wire[r] = w;
                }
            };
            match *fault {
                Fault::LostAck { request } => set(&mut wire, request, Wire::LostAck),
                Fault::Drop { request } => set(&mut wire, request, Wire::Drop),
                Fault::LateCommit { request, delay_ms } => {
                    set(&mut wire, request, Wire::Late(delay_ms))
                }
                Fault::Reorder { request, delay_ms } => {
                    set(&mut wire, request, Wire::Reorder(delay_ms))
                }
                Fault::WireRedelivery { request, gap_ms } => {
                    set(&mut wire, request, Wire::Twice(gap_ms))
                }
                Fault::Crash { request, .. } => set(&mut wire, request, Wire::Crash),
                Fault::RefusedBefore { request } => set(&mut wire, request, Wire::RefusedBefore),
                Fault::ErrorAfter { request, status } => {
                    set(&mut wire, request, Wire::ErrorAfter(status))
                }
                Fault::Slow { request, delay_ms } => set(&mut wire, request, Wire::Slow(delay_ms)),
                Fault::LedgerFault { op, nth, applied } => ledger_faults.push((op, nth, applied)),
                Fault::ReadFault { nth, timeout } => read_faults.push((nth, timeout)),
                Fault::Invisible { request, delay_ms } => {
                    let r = request as usize;
                    if invisible.len() <= r {
                        invisible.resize(r + 1, 0);
                    }
                    invisible[r] = invisible[r].max(delay_ms);
                }
                Fault::Redeliver { .. }
                | Fault::Diverge { .. }
                | Fault::Concurrent { .. }
                | Fault::Stall { .. }
                | Fault::Lookalike
                | Fault::Crowd { .. }
                | Fault::Sibling { .. } => {}
            }
        }
        Net {
            state: Arc::new(Mutex::new(State {
                cfg,
                wire,
                invisible,
                next_req: 0,
                reqs: Vec::new(),
                active: 1,
                dead: 0,
                log: pooled_log(),
                effects: Vec::new(),
                keys: BTreeMap::new(),
                held: Vec::new(),
                seq: 0,
                hits: 0,
                epoch: clock.now().0,
                strings: Vec::with_capacity(4),
                setup: false,
                fault_base: 0,
                ledger_faults,
                read_faults,
                reads: 0,
                ledger_counts: [0; 5],
                claims: Vec::new(),
                unclaimed: Vec::new(),
                others: false,
                quiet: false,
                processes: BTreeMap::new(),
                identity_seed: 0,
            })),
            clock,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn now(&self) -> u64 {
        self.clock.now().0
    }

    /// The episode's clock.
    pub fn clock(&self) -> &VirtualClock {
        &self.clock
    }

    /// Whether the system of record honours idempotency keys.
    pub fn server_keys(&self) -> bool {
        self.lock().cfg.server_keys
    }

    /// Send a write for the operation `intent` (its business id) with these parameters and,
    /// if the caller has one, an idempotency key (pass [`crate::current_key`] from a tool
    /// with `server_dedup = true`). Returns the effect — new, or replayed for a known key —
    /// or the error the transport or the system of record answered.
    pub async fn write<P: Serialize + ?Sized>(
        &self,
        intent: &str,
        params: &P,
        key: Option<&str>,
    ) -> Result<Effect, SimError> {
        let payload = Arc::new(serde_json::to_value(params).map_err(|_| SimError::Invalid)?);
        let now = self.now();
        let (req, wire, timeout, intent, key) = {
            let mut s = self.lock();
            let intent = s.intern(intent);
            let key = key.map(|k| s.intern(k));
            let req = s.next_req;
            s.next_req += 1;
            s.reqs.push(ReqState::default());
            let pid = s.active;
            s.push(
                now,
                EventKind::Dispatch {
                    req,
                    pid,
                    intent: intent.clone(),
                    key: key.clone(),
                },
            );
            if !s.setup {
                s.check_claim(now, req, pid);
            }
            let wire = s
                .fault_index(req)
                .and_then(|i| s.wire.get(i))
                .copied()
                .unwrap_or(Wire::Clean);
            (req, wire, s.cfg.transport_timeout_ms, intent, key)
        };
        let answered = {
            let mut s = self.lock();
            match wire {
                Wire::Clean => Some(s.deliver(now, req, &intent, &payload, key.as_ref(), false)),
                Wire::LostAck => {
                    if let Delivered::Done(_) =
                        s.deliver(now, req, &intent, &payload, key.as_ref(), false)
                    {
                        s.hits |= FaultClass::LostAck.bit();
                    }
                    s.push(now, EventKind::AckLost { req });
                    None
                }
                Wire::Drop => {
                    s.hits |= FaultClass::LostRequest.bit();
                    s.push(now, EventKind::Dropped { req });
                    None
                }
                Wire::RefusedBefore => {
                    s.hits |= FaultClass::LostRequest.bit();
                    s.push(
                        now,
                        EventKind::Refused {
                            req,
                            reason: "503 before any effect".into(),
                        },
                    );
                    Some(Delivered::Refused(SimError::Unavailable))
                }
                Wire::ErrorAfter(status) => {
                    match s.deliver(now, req, &intent, &payload, key.as_ref(), false) {
                        Delivered::Done(_) => {
                            s.hits |= FaultClass::ErrorAfterEffect.bit();
                            s.push(now, EventKind::ErrorResponse { req, status });
                            Some(Delivered::Refused(SimError::after_effect(status)))
                        }
                        other => Some(other),
                    }
                }
                Wire::Slow(delay) => {
                    let until = now.saturating_add(delay);
                    let seq = s.seq;
                    s.seq += 1;
                    s.req(req).slow = true;
                    s.held.push(Held {
                        until,
                        seq,
                        req,
                        intent: intent.clone(),
                        payload: payload.clone(),
                        key: key.clone(),
                        overtake: false,
                        duplicate: false,
                    });
                    let shown = until - s.epoch;
                    s.push(now, EventKind::Held { req, until: shown });
                    Some(Delivered::Slow(until))
                }
                Wire::Late(delay) | Wire::Reorder(delay) => {
                    let until = now.saturating_add(delay);
                    let seq = s.seq;
                    s.seq += 1;
                    let overtake = matches!(wire, Wire::Reorder(_));
                    s.req(req).reorder = overtake;
                    s.held.push(Held {
                        until,
                        seq,
                        req,
                        intent: intent.clone(),
                        payload: payload.clone(),
                        key: key.clone(),
                        overtake,
                        duplicate: false,
                    });
                    let shown = until - s.epoch;
                    s.push(now, EventKind::Held { req, until: shown });
                    None
                }
                Wire::Twice(gap) => {
                    let first = s.deliver(now, req, &intent, &payload, key.as_ref(), false);
                    let seq = s.seq;
                    s.seq += 1;
                    s.held.push(Held {
                        until: now.saturating_add(gap),
                        seq,
                        req,
                        intent: intent.clone(),
                        payload: payload.clone(),
                        key: key.clone(),
                        overtake: false,
                        duplicate: true,
                    });
                    // A zero gap lands the duplicate before the response travels back.
                    s.land_due(now);
                    Some(first)
                }
                Wire::Crash => {
                    let delivered = s.deliver(now, req, &intent, &payload, key.as_ref(), false);
                    let pid = s.active;
                    if matches!(delivered, Delivered::Done(_)) {
                        s.hits |= FaultClass::Crash.bit();
                    }
                    s.push(now, EventKind::Crash { pid });
                    if pid < 64 {
                        s.dead |= 1 << pid;
                    }
                    Some(Delivered::Crashed)
                }
            }
        };
        match answered {
            Some(Delivered::Slow(until)) => {
                // The transport waits for the answer; only the attempt's timeout (dropping
                // this future) stops it.
                let mut guard = GiveUp {
                    net: self,
                    req,
                    armed: true,
                };
                self.clock.sleep_until(Timestamp(until)).await;
                guard.armed = false;
                let mut s = self.lock();
                s.land_due(until);
                let answer = s.req(req).answer.take().unwrap_or(Err(SimError::Timeout));
                s.push(until, EventKind::Ack { req });
                answer
            }
            Some(Delivered::Crashed) => {
                // The process is gone: this future never completes; the harness drops it.
                std::future::pending().await
            }
            Some(Delivered::Done(effect)) => {
                self.lock().push(now, EventKind::Ack { req });
                Ok(effect)
            }
            Some(Delivered::Refused(e)) => {
                self.lock().push(now, EventKind::Ack { req });
                Err(e)
            }
            None => {
                let mut guard = GiveUp {
                    net: self,
                    req,
                    armed: true,
                };
                self.clock
                    .sleep_until(Timestamp(now).after(std::time::Duration::from_millis(timeout)))
                    .await;
                guard.armed = false;
                let t = self.now();
                let mut s = self.lock();
                s.land_due(t);
                s.req(req).gave_up = true;
                if s.reqs[req as usize].reorder && !s.reqs[req as usize].landed {
                    s.hits |= FaultClass::Reorder.bit();
                }
                s.push(t, EventKind::Timeout { req });
                Err(SimError::Timeout)
            }
        }
    }

    /// An injected fault on this read, if the schedule has one: the read fails with a 503
    /// at once, or answers nothing until the transport's timeout.
    async fn read_fault(&self, what: &str) -> Result<(), SimError> {
        let now = self.now();
        let (timeout, wait) = {
            let mut s = self.lock();
            if s.setup {
                return Ok(());
            }
            let n = s.reads;
            s.reads += 1;
            let Some(timeout) = s.read_faults.iter().find(|f| f.0 == n).map(|f| f.1) else {
                return Ok(());
            };
            s.hits |= FaultClass::ReadFault.bit();
            let pid = s.active;
            let intent = s.intern(what);
            s.push(
                now,
                EventKind::ReadFailed {
                    pid,
                    intent,
                    error: if timeout {
                        "no answer (injected)".into()
                    } else {
                        "503 (injected)".into()
                    },
                },
            );
            (timeout, s.cfg.transport_timeout_ms)
        };
        if !timeout {
            return Err(SimError::Unavailable);
        }
        self.clock
            .sleep_until(Timestamp(now).after(std::time::Duration::from_millis(wait)))
            .await;
        Err(SimError::Timeout)
    }

    /// The postcondition read: the effects of the operation `intent` that reads can see
    /// now, oldest first, or the error the read met (a [`Fault::ReadFault`]: a 503, or a
    /// timeout).
    pub async fn read(&self, intent: &str) -> Result<Vec<Effect>, SimError> {
        self.read_fault(intent).await?;
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        let found: Vec<Effect> = s
            .effects
            .iter()
            .filter(|e| &*e.intent == intent && e.visible_at <= now)
            .cloned()
            .collect();
        if !s.setup {
            if s.effects
                .iter()
                .any(|e| &*e.intent == intent && e.visible_at > now)
            {
                s.hits |= FaultClass::StaleRead.bit();
            }
            if s.others && s.effects.iter().any(|e| &*e.intent != intent) {
                s.hits |= FaultClass::LookalikeRecords.bit() | FaultClass::SiblingOperations.bit();
            }
        }
        let pid = s.active;
        let intent = s.intern(intent);
        s.push(
            now,
            EventKind::Read {
                pid,
                intent,
                found: found.first().map(|e| e.id),
            },
        );
        Ok(found)
    }

    /// A listing read, as paged APIs answer it (`GET /v1/charges?customer=..&starting_after=..&limit=..`):
    /// the effects matching `query` that reads can see now, oldest first, starting after
    /// effect `starting_after`, at most `limit` of them, and whether more follow; or the
    /// error the read met. It opens every window a read does: `stale_read` when a matching
    /// effect has landed but is not visible yet, `lookalike_records` and
    /// `sibling_operations` when the matching effects belong to more than one operation.
    pub async fn list(
        &self,
        query: impl Fn(&Effect) -> bool,
        starting_after: Option<u64>,
        limit: usize,
    ) -> Result<Page, SimError> {
        self.read_fault("list").await?;
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        let (effects, has_more) = {
            let mut matching = s.effects.iter().filter(|e| {
                e.visible_at <= now && starting_after.is_none_or(|a| e.id > a) && query(e)
            });
            let page: Vec<Effect> = matching.by_ref().take(limit).cloned().collect();
            (page, matching.next().is_some())
        };
        s.observe(now, &query);
        let pid = s.active;
        s.push(
            now,
            EventKind::Listed {
                pid,
                after: starting_after,
                found: effects.iter().map(|e| e.id).collect(),
                more: has_more,
            },
        );
        Ok(Page { effects, has_more })
    }

    /// A careless postcondition read: every effect reads can see now, of any operation,
    /// oldest first (what a query on a customer or an amount returns), or the error the read
    /// met. It opens the same windows as [`Net::list`].
    pub async fn read_all(&self) -> Result<Vec<Effect>, SimError> {
        self.read_fault("*").await?;
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        let found: Vec<Effect> = s
            .effects
            .iter()
            .filter(|e| e.visible_at <= now)
            .cloned()
            .collect();
        s.observe(now, &|_: &Effect| true);
        let pid = s.active;
        let intent = s.intern("*");
        s.push(
            now,
            EventKind::Read {
                pid,
                intent,
                found: found.first().map(|e| e.id),
            },
        );
        Ok(found)
    }

    /// Record an effect that exists before the episode (a world's own history): delivered
    /// at once and visible, as set-up ([`Net::set_setup`]): no fault, no window, no claim.
    /// Parameters the world's validation refuses are refused here too.
    pub fn seed<P: Serialize + ?Sized>(
        &self,
        intent: &str,
        params: &P,
    ) -> Result<Effect, SimError> {
        let payload = Arc::new(serde_json::to_value(params).map_err(|_| SimError::Invalid)?);
        let now = self.now();
        let mut s = self.lock();
        let was = s.setup;
        s.setup = true;
        let intent = s.intern(intent);
        let req = s.next_req;
        s.next_req += 1;
        s.reqs.push(ReqState::default());
        let delivered = s.deliver(now, req, &intent, &payload, None, false);
        s.setup = was;
        if !was {
            s.fault_base = s.next_req;
        }
        match delivered {
            Delivered::Done(e) => Ok(e),
            Delivered::Refused(e) => Err(e),
            Delivered::Crashed | Delivered::Slow(_) => Err(SimError::Timeout),
        }
    }

    /// A lookup by idempotency key (`GET ..?idempotency_key=..`, for an API that keeps
    /// keys: [`NetConfig::server_keys`]): the effect the key's first request made, if reads
    /// can see it now; or the error the read met. A postcondition asks it with
    /// [`crate::current_key`], which answers inside the postcondition as inside the body.
    pub async fn find_by_key(&self, key: &str) -> Result<Option<Effect>, SimError> {
        self.read_fault(key).await?;
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        let id = s.keys.get(key).map(|k| k.effect);
        let effect = id.map(|id| s.effects[id as usize - 1].clone());
        if !s.setup {
            // The windows of a read: its effect lags; the world holds others beside it.
            if effect.as_ref().is_some_and(|e| e.visible_at > now) {
                s.hits |= FaultClass::StaleRead.bit();
            }
            let own = effect.as_ref().map(|e| e.intent.clone());
            if s.others && s.effects.iter().any(|e| Some(&e.intent) != own.as_ref()) {
                s.hits |= FaultClass::LookalikeRecords.bit() | FaultClass::SiblingOperations.bit();
            }
        }
        let found = effect.filter(|e| e.visible_at <= now);
        let pid = s.active;
        let intent = s.intern(key);
        s.push(
            now,
            EventKind::Read {
                pid,
                intent,
                found: found.as_ref().map(|e| e.id),
            },
        );
        Ok(found)
    }

    /// Ground truth: every real effect of `intent` that has landed by now, visible or not.
    pub fn effects(&self, intent: &str) -> Vec<Effect> {
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        s.effects
            .iter()
            .filter(|e| &*e.intent == intent)
            .cloned()
            .collect()
    }

    /// How many real effects of `intent` carry exactly these parameters.
    pub fn count<P: Serialize + ?Sized>(&self, intent: &str, params: &P) -> usize {
        let Ok(payload) = serde_json::to_value(params) else {
            return 0;
        };
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        s.effects
            .iter()
            .filter(|e| &*e.intent == intent && *e.payload == payload)
            .count()
    }

    /// Every real effect so far.
    pub fn all_effects(&self) -> Vec<Effect> {
        let now = self.now();
        let mut s = self.lock();
        s.land_due(now);
        s.effects.clone()
    }

    /// Land everything still in the pipe (advancing the clock past the last landing).
    pub fn drain(&self) {
        let last = self.lock().held.iter().map(|h| h.until).max();
        if let Some(last) = last {
            self.clock.advance_to(Timestamp(last));
            let mut s = self.lock();
            s.land_due(last);
        }
    }

    // ---- for the harness ----

    pub(crate) fn set_active(&self, pid: u32) {
        self.lock().active = pid;
    }

    /// Setting up the world: while on, requests meet no fault, open no window and need no
    /// claim (I5), and reads count toward no fault; when it is switched off, the schedule's
    /// request numbers start from the next request. A world that writes its own history
    /// before the episode (earlier records its postcondition must page past) brackets those
    /// writes with it — or uses [`Net::seed`].
    pub fn set_setup(&self, on: bool) {
        let mut s = self.lock();
        s.setup = on;
        if !on {
            s.fault_base = s.next_req;
        }
    }

    /// The simulated process the tool runs in now: its pid and start-up random value, fresh
    /// for every process of the episode (a restart after a crash, a concurrent worker). A
    /// tool of a simulated world reads what a real process would hold of its own — a
    /// process id, a start-up nonce, a `HashMap`'s hash seed ([`Process::random_state`]),
    /// a process-wide cache ([`Net::process_local`]) — through here, so that a key built
    /// from any of them changes when the process does, as it would in production.
    pub fn process(&self) -> Process {
        let mut s = self.lock();
        let pid = s.active;
        let boot_nonce = s.process_state(pid).boot_nonce;
        Process { pid, boot_nonce }
    }

    /// A process-wide value of the current simulated process (what a `static` or a
    /// `OnceLock` holds in a real one): `init` runs the first time the process asks for
    /// `name`; a restarted process starts without it.
    pub fn process_local<T: Clone + Send + Sync + 'static>(
        &self,
        name: &'static str,
        init: impl FnOnce() -> T,
    ) -> T {
        let pid = {
            let mut s = self.lock();
            let pid = s.active;
            if let Some(v) = s
                .process_state(pid)
                .locals
                .get(name)
                .and_then(|v| v.downcast_ref::<T>())
            {
                return v.clone();
            }
            pid
        };
        // Not under the lock: `init` may use the world.
        let v = init();
        self.lock()
            .process_state(pid)
            .locals
            .insert(name, Arc::new(v.clone()));
        v
    }

    /// Where this episode's process identities come from (the harness sets it per episode).
    pub(crate) fn set_identity_seed(&self, seed: u64) {
        self.lock().identity_seed = seed;
    }

    /// Log nothing until switched back (while setting up a crowded world).
    pub(crate) fn set_quiet(&self, on: bool) {
        self.lock().quiet = on;
    }

    /// The world holds (or will hold) other operations' records.
    pub(crate) fn set_others(&self) {
        self.lock().others = true;
    }

    /// Count a ledger step; `Some(applied)` if it is to fail.
    pub(crate) fn ledger_fault(&self, op: LedgerOp) -> Option<bool> {
        let mut s = self.lock();
        if s.setup {
            return None;
        }
        let n = s.ledger_counts[op as usize];
        s.ledger_counts[op as usize] += 1;
        let hit = s
            .ledger_faults
            .iter()
            .find(|f| f.0 == op && f.1 == n)
            .map(|f| f.2);
        if hit.is_some() {
            s.hits |= FaultClass::LedgerFault.bit();
        }
        hit
    }

    /// The ledger granted `pid` a claim on `key` until `lease_until`.
    pub(crate) fn claimed(&self, pid: u32, key: &str, lease_until: u64) {
        let mut s = self.lock();
        let key = s.intern(key);
        s.claims.retain(|c| !(c.pid == pid && c.key == key));
        s.claims.push(HeldClaim {
            pid,
            key,
            lease_until,
        });
    }

    /// `pid` resolved or released its claim on `key`.
    pub(crate) fn unclaimed_key(&self, pid: u32, key: &str) {
        self.lock()
            .claims
            .retain(|c| !(c.pid == pid && &*c.key == key));
    }

    /// Requests sent without a live claim, (request, process), if the tool uses the
    /// ledger at all (a tool that never claims has no claim to check).
    pub(crate) fn unclaimed(&self) -> Vec<(u32, u32)> {
        let s = self.lock();
        if s.ledger_counts[LedgerOp::Begin as usize] == 0 {
            return Vec::new();
        }
        s.unclaimed.clone()
    }

    pub(crate) fn is_dead(&self, pid: u32) -> bool {
        pid < 64 && self.lock().dead & (1 << pid) != 0
    }

    pub(crate) fn requests_sent(&self) -> u32 {
        self.lock().next_req
    }

    pub(crate) fn hit(&self, class: FaultClass) {
        self.lock().hits |= class.bit();
    }

    pub(crate) fn hits(&self) -> u32 {
        self.lock().hits
    }

    pub(crate) fn log_event(&self, kind: EventKind) {
        let now = self.now();
        self.lock().push(now, kind);
    }

    pub(crate) fn take_log(&self) -> Vec<Event> {
        std::mem::take(&mut self.lock().log)
    }
}

/// Logs that the client stopped waiting when the write future is dropped early.
struct GiveUp<'a> {
    net: &'a Net,
    req: u32,
    armed: bool,
}

impl Drop for GiveUp<'_> {
    fn drop(&mut self) {
        if self.armed {
            let t = self.net.now();
            let mut s = self.net.lock();
            let req = self.req;
            s.land_due(t);
            s.req(req).gave_up = true;
            if s.reqs[req as usize].reorder && !s.reqs[req as usize].landed {
                s.hits |= FaultClass::Reorder.bit();
            }
            let pid = s.active;
            if pid < 64 && s.dead & (1 << pid) != 0 {
                return;
            }
            s.push(t, EventKind::Abandoned { req });
        }
    }
}
