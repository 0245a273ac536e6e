//! One episode: a pure function of (environment, episode number, schedule).

use super::*;

/// The argument variants of an episode: the intended operation, the same operation with
/// changed arguments, a sibling operation of the same caller, and a look-alike record's
/// operation.
pub mod variant {
    /// The intended arguments.
    pub const INTENDED: u32 = 0;
    /// The same operation with changed arguments (a divergent retry).
    pub const CHANGED: u32 = 1;
    /// A second, distinct operation of the same caller.
    pub const SIBLING: u32 = 2;
    /// Another operation's record, made before the episode.
    pub const LOOKALIKE: u32 = 3;
}

/// The `intent` hook's episode number for a sibling of episode `n`'s operation (and
/// [`LOOKALIKE_EPISODE`] for a look-alike): operations of other episodes are distinct
/// operations, so the hook needs no extra case. It must give each episode number its own
/// operation (its own business id); the rest of the arguments may stay the same, which is
/// what makes a look-alike.
pub const SIBLING_EPISODE: u64 = 1 << 40;
/// See [`SIBLING_EPISODE`].
pub const LOOKALIKE_EPISODE: u64 = 1 << 41;

/// What one call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallReport {
    /// Call number.
    pub call: u32,
    /// Argument variant (see [`variant`]).
    pub variant: u32,
    /// `completed`, `not_completed`, `unknown`, or `stuck` (never answered).
    pub status: &'static str,
    /// When, in milliseconds since the episode's clock started.
    pub at: u64,
    /// Effects with these arguments when the answer was given (with several kinds, the
    /// fewest of any kind: how many complete operations existed).
    pub effects_then: usize,
    /// What the answer said besides its status (empty for completed).
    pub detail: String,
    /// The call was refused because its key was stored with other arguments.
    pub divergent: bool,
}

/// The result of one episode.
#[derive(Debug, Clone)]
pub struct Episode {
    /// The event log.
    pub events: Vec<Event>,
    /// What each call answered, in answer order.
    pub reports: Vec<CallReport>,
    /// Real effects per argument variant (see [`variant`]) at the end, everything landed
    /// (for [`variant::LOOKALIKE`], the most of any operation made before the episode; for
    /// an operation with several kinds of effect, the most of any kind).
    pub effects: [usize; 4],
    /// The same per kind of effect ([`EffectCounts`]), in the order the counter names them.
    pub kinds: Vec<(&'static str, [usize; 4])>,
    /// Broken invariants.
    pub violations: Vec<Violation>,
    /// Which fault classes' dangerous windows were hit (bit per class).
    pub hits: u32,
}

impl Episode {
    /// Whether the window of `class` was hit.
    pub fn hit(&self, class: FaultClass) -> bool {
        self.hits & class.bit() != 0
    }

    /// The final answer for the intended arguments.
    pub fn final_status(&self) -> &'static str {
        self.reports
            .iter()
            .rev()
            .find(|r| r.variant == 0)
            .map_or("none", |r| r.status)
    }

    /// The log as JSON Lines.
    pub fn jsonl(&self) -> String {
        crate::sim::event::to_jsonl(&self.events)
    }
}

type BoxFut<'a, O> = Pin<Box<dyn Future<Output = O> + 'a>>;

enum SlotState<'a, O> {
    Waiting(Option<Sleep>),
    Running(BoxFut<'a, O>),
    Done,
}

struct Slot<'a, O> {
    at: u64,
    pid: u32,
    variant: u32,
    call: u32,
    state: SlotState<'a, O>,
}

impl<W, A, O, C, FW, FI, FC, FE> Proof<FW, FI, FC, FE>
where
    FW: Fn(&Net) -> W,
    FI: Fn(u64, u32) -> A,
    FC: AsyncFn(&Context, &W, A) -> O,
    O: CallAnswer,
    FE: Fn(&W, &A) -> C,
    C: EffectCounts,
    A: Clone,
{
    /// Run one episode: a pure function of (environment, episode number, schedule).
    pub fn episode(&self, env: &Env, episode: u64, schedule: &Schedule) -> Episode {
        let start = schedule.start_ms;
        let clock = VirtualClock::starting_at(Timestamp(start));
        let net = Net::new(clock.clone(), env.net_config(), schedule);
        // Every simulated process gets its own identity, drawn from the episode.
        net.set_identity_seed(episode);
        let world = (self.world)(&net);
        let store = MemoryLedger::with_clock(Arc::new(clock.clone()));
        let mut restarts: Vec<(u32, u64)> = Vec::new();
        let (mut lookalike, mut sibling, mut concurrent) = (false, None, 0u32);
        let mut crowd = 0u32;
        let mut stall: Option<(u64, u64)> = None;
        let mut main_at = start;
        for f in &schedule.faults {
            match *f {
                Fault::Crash {
                    request,
                    restart_ms,
                } => restarts.push((request, restart_ms)),
                Fault::Lookalike => lookalike = true,
                // A replayed schedule may ask for any number: at most the cap.
                Fault::Crowd { records } => {
                    crowd = crowd.saturating_add(records).min(Fault::MAX_CROWD_RECORDS);
                }
                Fault::Sibling { at_ms, before } if sibling.is_none() => {
                    sibling = Some(if before {
                        start
                    } else {
                        start.saturating_add(at_ms)
                    });
                    if before {
                        main_at = start.saturating_add(at_ms);
                    }
                }
                Fault::Concurrent { .. } => concurrent += 1,
                Fault::Stall { at_ms, for_ms } => {
                    let from = start.saturating_add(at_ms);
                    stall.get_or_insert((from, from.saturating_add(for_ms)));
                }
                _ => {}
            }
        }
        restarts.sort_unstable();
        let max_wait = std::time::Duration::from_millis(env.max_wait_ms);
        let scope = Scope::run(format!("episode-{episode}"));
        // Process 0 sets up the world (only when it has to); 1 is the agent's; then one per
        // concurrent worker and one per restart after a crash.
        let processes = 1 + concurrent + restarts.len() as u32;
        let process = |pid: u32| {
            Context::with_clock(
                SimLedger {
                    store: store.clone(),
                    net: net.clone(),
                    pid,
                },
                Arc::new(clock.clone()),
                scope.clone(),
            )
            .with_owner(if pid == 0 {
                "setup".to_string()
            } else {
                format!("p{pid}")
            })
            .with_max_wait(max_wait)
        };
        let contexts: Vec<Context> = (1..=processes).map(process).collect();
        let diverges = schedule
            .faults
            .iter()
            .any(|f| matches!(f, Fault::Diverge { .. }));
        let first = (self.intent)(episode, 0);
        // Other arguments only when a call will use them.
        let changed = if diverges {
            (self.intent)(episode, 1)
        } else {
            first.clone()
        };
        let sibling_args = if sibling.is_some() {
            (self.intent)(episode + SIBLING_EPISODE, 0)
        } else {
            first.clone()
        };
        let lookalike_args = if lookalike {
            (self.intent)(episode + LOOKALIKE_EPISODE, 0)
        } else {
            first.clone()
        };
        let args = [first, changed, sibling_args, lookalike_args];
        let call = &self.call;
        let world_ref = &world;
        let counter = &self.effects;
        if lookalike || sibling.is_some() || crowd > 0 {
            net.set_others();
        }
        // The caller's earlier operations, oldest first: made through the tool without
        // faults before the episode, and logged as one event.
        let crowd_args: Vec<A> = (0..u64::from(crowd))
            .map(|k| (self.intent)(episode + LOOKALIKE_EPISODE + 1 + k, 0))
            .collect();
        if crowd > 0 {
            net.set_setup(true);
            net.log_event(EventKind::Crowd { records: crowd });
            net.set_quiet(true);
            net.set_active(0);
            for a in &crowd_args {
                let _ = clock.block_on(call(&process(0), world_ref, a.clone()));
            }
            net.set_quiet(false);
            net.set_setup(false);
        }
        if lookalike {
            // The world's history: another operation's record, made through the tool
            // without faults, before the episode starts.
            net.set_setup(true);
            net.log_event(EventKind::Call {
                call: u32::MAX,
                pid: 0,
                variant: variant::LOOKALIKE,
            });
            net.set_active(0);
            let _ = clock.block_on(call(&process(0), world_ref, args[3].clone()));
            net.set_setup(false);
        }
        let mut slots: Vec<Slot<'_, O>> = vec![Slot {
            at: main_at,
            pid: 1,
            variant: variant::INTENDED,
            call: 0,
            state: SlotState::Waiting(None),
        }];
        let mut next_pid = 2u32;
        for f in &schedule.faults {
            let (at_ms, variant, pid) = match *f {
                Fault::Redeliver { at_ms } => (at_ms, variant::INTENDED, 1),
                Fault::Diverge { at_ms } => (at_ms, variant::CHANGED, 1),
                Fault::Concurrent { at_ms } => {
                    next_pid += 1;
                    (at_ms, variant::INTENDED, next_pid - 1)
                }
                _ => continue,
            };
            let at = start.saturating_add(at_ms);
            let call = slots.len() as u32;
            slots.push(Slot {
                at,
                pid,
                variant,
                call,
                state: SlotState::Waiting(None),
            });
        }
        if let Some(at) = sibling {
            let call = slots.len() as u32;
            slots.push(Slot {
                at,
                pid: 1,
                variant: variant::SIBLING,
                call,
                state: SlotState::Waiting(None),
            });
        }
        slots.sort_by_key(|s| (s.at, s.call));
        let mut reports: Vec<CallReport> = Vec::new();
        let mut crash_no = 0usize;
        let mut stall_sleep: Option<Sleep> = None;
        let mut stall_logged = false;
        // When the operation (intended or changed arguments) was first called.
        let mut first_call: Option<u64> = None;
        let finished = clock.block_on(std::future::poll_fn(|cx| {
            let mut i = 0;
            while i < slots.len() {
                let now = clock.now().0;
                // The first process is not scheduled while it stalls.
                if let Some((from, until)) = stall
                    && slots[i].pid == 1
                    && (from..until).contains(&now)
                {
                    if !stall_logged {
                        stall_logged = true;
                        net.log_event(EventKind::Stalled {
                            pid: 1,
                            until: until - start,
                        });
                    }
                    let s = stall_sleep.get_or_insert_with(|| clock.sleep_until(Timestamp(until)));
                    let _ = s.as_mut().poll(cx);
                    i += 1;
                    continue;
                }
                let slot = &mut slots[i];
                match &mut slot.state {
                    SlotState::Done => {}
                    SlotState::Waiting(sleep) => {
                        if now >= slot.at {
                            // Start the call now.
                            net.log_event(EventKind::Call {
                                call: slot.call,
                                pid: slot.pid,
                                variant: slot.variant,
                            });
                            if slot.variant == variant::CHANGED && net.requests_sent() > 0 {
                                net.hit(FaultClass::DivergentPayload);
                            }
                            if slot.variant <= variant::CHANGED {
                                match first_call {
                                    Some(first) if first / HOUR_MS != now / HOUR_MS => {
                                        net.hit(FaultClass::ClockPhase);
                                    }
                                    Some(_) => {}
                                    None => first_call = Some(now),
                                }
                            }
                            let (variant, call_no, pid) = (slot.variant, slot.call, slot.pid);
                            let running = |s: &Slot<'_, O>| {
                                s.call != call_no
                                    && s.variant == variant::INTENDED
                                    && matches!(s.state, SlotState::Running(_))
                            };
                            if variant == variant::INTENDED && call_no > 0 {
                                if slots.iter().any(|s| running(s) && s.pid == pid) {
                                    net.hit(FaultClass::Redelivery);
                                }
                                if slots.iter().any(|s| running(s) && s.pid != pid) {
                                    net.hit(FaultClass::ConcurrentCallers);
                                }
                            }
                            let slot = &mut slots[i];
                            let ctx = &contexts[slot.pid as usize - 1];
                            let a = args[slot.variant as usize].clone();
                            slot.state = SlotState::Running(Box::pin(call(ctx, world_ref, a)));
                            continue;
                        }
                        let s = sleep.get_or_insert_with(|| clock.sleep_until(Timestamp(slot.at)));
                        let _ = s.as_mut().poll(cx);
                    }
                    SlotState::Running(fut) => {
                        net.set_active(slot.pid);
                        match fut.as_mut().poll(cx) {
                            Poll::Ready(out) => {
                                let told = out.told(&self.contract);
                                let divergent = told.is_divergent();
                                let Told { status, detail, .. } = told;
                                let effects_then =
                                    complete(&counter(world_ref, &args[slot.variant as usize]));
                                net.log_event(EventKind::Report {
                                    call: slot.call,
                                    status: status.into(),
                                    detail: detail.clone(),
                                });
                                reports.push(CallReport {
                                    call: slot.call,
                                    variant: slot.variant,
                                    status,
                                    at: now - start,
                                    effects_then,
                                    detail,
                                    divergent,
                                });
                                slot.state = SlotState::Done;
                            }
                            Poll::Pending => {
                                if net.is_dead(slot.pid) {
                                    // The process died: its call is gone with it. The
                                    // agent reruns the call in a new process on the
                                    // same ledger.
                                    slot.state = SlotState::Done;
                                    let restart = restarts.get(crash_no).map_or(1_000, |r| r.1);
                                    crash_no += 1;
                                    let variant = slot.variant;
                                    let call = slots.len() as u32;
                                    if next_pid <= processes {
                                        slots.push(Slot {
                                            at: now.saturating_add(restart),
                                            pid: next_pid,
                                            variant,
                                            call,
                                            state: SlotState::Waiting(None),
                                        });
                                        next_pid += 1;
                                    }
                                }
                            }
                        }
                    }
                }
                i += 1;
            }
            if slots.iter().all(|s| matches!(s.state, SlotState::Done)) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        let mut violations = Vec::new();
        if finished.is_none() {
            for s in &slots {
                if !matches!(s.state, SlotState::Done) {
                    net.log_event(EventKind::Report {
                        call: s.call,
                        status: "stuck".into(),
                        detail: "the call never answered".into(),
                    });
                    reports.push(CallReport {
                        call: s.call,
                        variant: s.variant,
                        status: "stuck",
                        at: clock.now().0 - start,
                        effects_then: 0,
                        detail: "the call never answered".into(),
                        divergent: false,
                    });
                    violations.push(Violation {
                        invariant: Invariant::I2AtLeastOnce,
                        detail: format!("call #{} never answered", s.call),
                    });
                }
            }
        }
        drop(slots);
        net.drain();
        // Per kind of effect and argument variant (for look-alikes, the most of any
        // operation made before the episode).
        let mut kinds: Vec<(&'static str, [usize; 4])> = Vec::with_capacity(2);
        let mut add = |v: usize, c: C| {
            for i in 0..c.kinds() {
                let (name, n) = c.kind(i);
                match kinds.iter_mut().find(|k| k.0 == name) {
                    Some(k) => k.1[v] = k.1[v].max(n),
                    None => {
                        let mut per = [0; 4];
                        per[v] = n;
                        kinds.push((name, per));
                    }
                }
            }
        };
        add(0, (self.effects)(&world, &args[0]));
        if diverges {
            add(1, (self.effects)(&world, &args[1]));
        }
        if sibling.is_some() {
            add(2, (self.effects)(&world, &args[2]));
        }
        if lookalike {
            add(3, (self.effects)(&world, &args[3]));
        }
        for a in &crowd_args {
            add(3, (self.effects)(&world, a));
        }
        let mut effects = [0usize; 4];
        let mut fewest = [usize::MAX; 4];
        for (_, per) in &kinds {
            for v in 0..4 {
                effects[v] = effects[v].max(per[v]);
                fewest[v] = fewest[v].min(per[v]);
            }
        }
        // The last kind the counter names is the one that completes the operation.
        let completing = kinds.last().map_or([0; 4], |k| k.1);
        check_effects(&kinds, &mut violations);
        check_reports(&reports, &completing, &fewest, diverges, &mut violations);
        for (req, pid) in net.unclaimed() {
            violations.push(Violation {
                invariant: Invariant::I5ClaimBeforeEffect,
                detail: format!("request {req} was sent by p{pid} without a live claim on its key"),
            });
        }
        let hits = net.hits();
        let events = net.take_log();
        Episode {
            events,
            reports,
            effects,
            kinds,
            violations,
            hits,
        }
    }
}

/// I1: at most one real effect per logical operation (the intended and changed arguments
/// are one operation; a sibling and a look-alike are others).
fn check_effects(kinds: &[(&'static str, [usize; 4])], violations: &mut Vec<Violation>) {
    let several = kinds.len() > 1;
    for (name, effects) in kinds {
        let of = if several {
            format!(" of kind `{name}`")
        } else {
            String::new()
        };
        let total = effects[0] + effects[1];
        if total > 1 {
            violations.push(Violation {
                invariant: Invariant::I1AtMostOnce,
                detail: format!(
                    "{total} real effects{of} for one logical operation ({} with the intended arguments, {} with changed ones)",
                    effects[0], effects[1]
                ),
            });
        }
        for (v, what) in [
            (2, "the sibling operation"),
            (3, "an operation made before the episode (a look-alike)"),
        ] {
            if effects[v] > 1 {
                violations.push(Violation {
                    invariant: Invariant::I1AtMostOnce,
                    detail: format!("{} real effects{of} for {what}", effects[v]),
                });
            }
        }
    }
}

/// I4 on every answer, and I2 on the last answer for each variant: what the agent was
/// told holds once everything has landed, and a distinct operation is never refused as a
/// changed retry of another (a key that merges two operations).
fn check_reports(
    reports: &[CallReport],
    completing: &[usize; 4],
    fewest: &[usize; 4],
    diverges: bool,
    violations: &mut Vec<Violation>,
) {
    for r in reports {
        if r.status == "completed" && r.effects_then == 0 {
            violations.push(Violation {
                invariant: Invariant::I4NoOrphanIntent,
                detail: format!(
                    "call #{} was told completed at t={}, but no effect with its arguments existed",
                    r.call,
                    secs(r.at)
                ),
            });
        }
    }
    for v in [variant::INTENDED, variant::CHANGED, variant::SIBLING] {
        let Some(last) = reports
            .iter()
            .rev()
            .find(|r| r.variant == v && r.status != "stuck")
        else {
            continue;
        };
        let n = completing[v as usize];
        if last.status == "completed" && fewest[v as usize] == 0 {
            violations.push(Violation {
                invariant: Invariant::I2AtLeastOnce,
                detail: if n == 0 {
                    format!(
                        "call #{} was told completed; the effect never happened",
                        last.call
                    )
                } else {
                    format!(
                        "call #{} was told completed; one of its kinds of effect never happened",
                        last.call
                    )
                },
            });
        }
        if last.status == "not_completed" && n > 0 {
            violations.push(Violation {
                invariant: Invariant::I2AtLeastOnce,
                detail: format!(
                    "call #{} was told not completed, but {n} effect(s) with its arguments happened",
                    last.call
                ),
            });
        }
        // Changed arguments are rightly refused; a distinct operation never is.
        let merged =
            last.divergent && (v == variant::SIBLING || (v == variant::INTENDED && !diverges));
        if merged && n == 0 {
            violations.push(Violation {
                invariant: Invariant::I2AtLeastOnce,
                detail: format!(
                    "call #{} ({}) was refused as a changed retry of another operation: its key merges two distinct operations, so this one never happens",
                    last.call,
                    if v == variant::SIBLING {
                        "a sibling operation"
                    } else {
                        "the intended operation"
                    }
                ),
            });
        }
    }
}
