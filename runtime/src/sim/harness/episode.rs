//! One episode: a pure function of (environment, episode number, schedule).

use super::*;

/// What one call answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallReport {
    /// Call number.
    pub call: u32,
    /// Argument variant (0 intended, 1 changed).
    pub variant: u32,
    /// `completed`, `not_completed`, `unknown`, or `stuck` (never answered).
    pub status: &'static str,
    /// When.
    pub at: u64,
    /// Effects with these arguments when the answer was given.
    pub effects_then: usize,
    /// What the answer said besides its status (empty for completed).
    pub detail: String,
}

/// The result of one episode.
#[derive(Debug, Clone)]
pub struct Episode {
    /// The event log.
    pub events: Vec<Event>,
    /// What each call answered, in answer order.
    pub reports: Vec<CallReport>,
    /// Real effects per argument variant at the end, everything landed.
    pub effects: [usize; 2],
    /// Broken invariants.
    pub violations: Vec<Violation>,
    /// Which fault classes' dangerous windows were hit (bit per class).
    pub hits: u8,
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

type BoxFut<'a, T, E> = Pin<Box<dyn Future<Output = Outcome<T, E>> + 'a>>;

enum SlotState<'a, T, E> {
    Waiting(Option<Sleep>),
    Running(BoxFut<'a, T, E>),
    Done,
}

struct Slot<'a, T, E> {
    at: u64,
    pid: u32,
    variant: u32,
    call: u32,
    state: SlotState<'a, T, E>,
}

impl<W, A, T, E, FW, FI, FC, FE> Proof<FW, FI, FC, FE>
where
    FW: Fn(&Net) -> W,
    FI: Fn(u64, u32) -> A,
    FC: AsyncFn(&Context, &W, A) -> Outcome<T, E>,
    FE: Fn(&W, &A) -> usize,
    A: Clone,
    E: Display,
{
    /// Run one episode: a pure function of (environment, episode number, schedule).
    pub fn episode(&self, env: &Env, episode: u64, schedule: &Schedule) -> Episode {
        let clock = VirtualClock::new();
        let net = Net::new(clock.clone(), env.net_config(), schedule);
        let world = (self.world)(&net);
        let store = MemoryLedger::with_clock(Arc::new(clock.clone()));
        let mut restarts: Vec<(u32, u64)> = schedule
            .faults
            .iter()
            .filter_map(|f| match *f {
                Fault::Crash {
                    request,
                    restart_ms,
                } => Some((request, restart_ms)),
                _ => None,
            })
            .collect();
        restarts.sort_unstable();
        let max_wait = std::time::Duration::from_millis(env.max_wait_ms);
        let scope = Scope::run(format!("episode-{episode}"));
        let contexts: Vec<Context> = (1..=restarts.len() as u32 + 1)
            .map(|pid| {
                Context::with_clock(
                    SimLedger {
                        store: store.clone(),
                        net: net.clone(),
                        pid,
                    },
                    Arc::new(clock.clone()),
                    scope.clone(),
                )
                .with_owner(format!("p{pid}"))
                .with_max_wait(max_wait)
            })
            .collect();
        let diverges = schedule
            .faults
            .iter()
            .any(|f| matches!(f, Fault::Diverge { .. }));
        let first = (self.intent)(episode, 0);
        // The changed arguments only when a divergent call will use them.
        let second = if diverges {
            (self.intent)(episode, 1)
        } else {
            first.clone()
        };
        let args = [first, second];
        let mut slots: Vec<Slot<'_, T, E>> = vec![Slot {
            at: 0,
            pid: 1,
            variant: 0,
            call: 0,
            state: SlotState::Waiting(None),
        }];
        for f in &schedule.faults {
            let (at, variant) = match *f {
                Fault::Redeliver { at_ms } => (at_ms, 0),
                Fault::Diverge { at_ms } => (at_ms, 1),
                _ => continue,
            };
            let call = slots.len() as u32;
            slots.push(Slot {
                at,
                pid: 1,
                variant,
                call,
                state: SlotState::Waiting(None),
            });
        }
        slots.sort_by_key(|s| (s.at, s.call));
        let mut reports: Vec<CallReport> = Vec::new();
        let mut next_pid = 2u32;
        let mut crash_no = 0usize;
        let call = &self.call;
        let world_ref = &world;
        let counter = &self.effects;
        let finished = clock.block_on(std::future::poll_fn(|cx| {
            let mut i = 0;
            while i < slots.len() {
                let now = clock.now().0;
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
                            if slot.variant == 1 && net.requests_sent() > 0 {
                                net.hit(FaultClass::DivergentPayload);
                            }
                            let (variant, call_no) = (slot.variant, slot.call);
                            let concurrent = slots.iter().any(|s| {
                                s.call != call_no
                                    && s.variant == 0
                                    && matches!(s.state, SlotState::Running(_))
                            });
                            if variant == 0 && call_no > 0 && concurrent {
                                net.hit(FaultClass::Redelivery);
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
                                let (status, detail) = match &out {
                                    Outcome::Completed(_) => ("completed", String::new()),
                                    other => {
                                        let esc = Escalation::of(self.contract.name, other);
                                        (other.status(), esc.detail)
                                    }
                                };
                                let effects_then = counter(world_ref, &args[slot.variant as usize]);
                                net.log_event(EventKind::Report {
                                    call: slot.call,
                                    status: status.into(),
                                    detail: detail.clone(),
                                });
                                reports.push(CallReport {
                                    call: slot.call,
                                    variant: slot.variant,
                                    status,
                                    at: now,
                                    effects_then,
                                    detail,
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
                                    if (next_pid as usize) <= contexts.len() {
                                        slots.push(Slot {
                                            at: now + restart,
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
                        at: clock.now().0,
                        effects_then: 0,
                        detail: "the call never answered".into(),
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
        let effects = [
            (self.effects)(&world, &args[0]),
            if diverges {
                (self.effects)(&world, &args[1])
            } else {
                0
            },
        ];
        let total = effects[0] + effects[1];
        if total > 1 {
            violations.push(Violation {
                invariant: Invariant::I1AtMostOnce,
                detail: format!(
                    "{total} real effects for one logical operation ({} with the intended arguments, {} with changed ones)",
                    effects[0], effects[1]
                ),
            });
        }
        for r in &reports {
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
        for variant in 0..2u32 {
            if let Some(last) = reports
                .iter()
                .rev()
                .find(|r| r.variant == variant && r.status != "stuck")
            {
                let n = effects[variant as usize];
                if last.status == "completed" && n == 0 {
                    violations.push(Violation {
                        invariant: Invariant::I2AtLeastOnce,
                        detail: format!(
                            "call #{} was told completed; the effect never happened",
                            last.call
                        ),
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
            }
        }
        let hits = net.hits();
        let events = net.take_log();
        Episode {
            events,
            reports,
            effects,
            violations,
            hits,
        }
    }
}
