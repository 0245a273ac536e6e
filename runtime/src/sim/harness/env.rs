//! The simulated environment of an episode and the fault schedules drawn from it.

use super::*;

/// The simulated environment an episode runs in, derived from the contract by
/// [`Env::for_contract`]: the harness takes the contract at its word (its timeout, its
/// settle window as the bound on in-flight time, its `server_dedup`) and proves the
/// protocol under those assumptions. Widen `bound_ms` beyond `settle_ms` to see what
/// happens when the assumption is wrong.
#[derive(Debug, Clone, Copy)]
pub struct Env {
    /// The client's timeout for one attempt (the contract's `timeout_ms`, else 30 s).
    pub timeout_ms: u64,
    /// Upper bound on in-flight time plus visibility delay (the contract's `settle_ms`,
    /// else 90 s, the reference's late commit).
    pub bound_ms: u64,
    /// The system of record honours idempotency keys (the contract's `server_dedup`).
    pub server_keys: bool,
    /// Inject duplicate deliveries on the wire (on by default only with `server_dedup`:
    /// nothing above the wire can deduplicate them — see the module docs).
    pub wire_redelivery: bool,
    /// Longest restart time after a crash.
    pub restart_max_ms: u64,
    /// How long a call waits for another process's lease (default: the whole lease).
    pub max_wait_ms: u64,
    /// Parameters the system of record rejects as invalid.
    pub validate: Option<fn(&serde_json::Value) -> bool>,
    /// When every episode's clock starts (ms since the Unix epoch, UTC). `None` (the
    /// default): each episode draws its own start from its seed — a day of 2024–2033 and a
    /// time of day before 22:00, so that only `clock_phase` crosses a day boundary, while
    /// minute and hour boundaries fall anywhere in every class. `clock_phase` always starts
    /// just before a boundary (after this instant when it is set); the exhaustive
    /// enumeration starts here, or at [`Env::ENUMERATION_START`].
    pub start_ms: Option<u64>,
}

impl Env {
    /// The environment a contract claims to be safe in.
    pub fn for_contract(contract: &Contract) -> Env {
        Env {
            timeout_ms: contract.timeout_ms.unwrap_or(30_000),
            bound_ms: contract.settle_ms.unwrap_or(90_000),
            server_keys: contract.server_dedup,
            wire_redelivery: contract.server_dedup,
            restart_max_ms: 10_000,
            max_wait_ms: u64::try_from(contract.lease().as_millis()).unwrap_or(u64::MAX),
            validate: None,
            start_ms: None,
        }
    }

    /// Where the exhaustive enumeration's clock starts by default: one minute before
    /// midnight, 2024-02-29T23:59:00Z, so its schedules cross a minute, an hour, a day and a
    /// month.
    pub const ENUMERATION_START: u64 = (FIRST_DAY + 59) * DAY_MS + DAY_MS - MINUTE_MS;

    /// The wall time an episode starts at (drawn after its faults, so that the faults do
    /// not depend on it).
    fn start(&self, rng: &mut SplitMix64) -> u64 {
        match self.start_ms {
            Some(start) => start,
            None => rng.between(FIRST_DAY, FIRST_DAY + 3_652) * DAY_MS + rng.below(22 * HOUR_MS),
        }
    }

    /// The next hour or day boundary for `clock_phase`: after [`Env::start_ms`] if set,
    /// else on a drawn day.
    fn boundary(&self, rng: &mut SplitMix64) -> u64 {
        let base = match self.start_ms {
            Some(start) => start,
            None => rng.between(FIRST_DAY, FIRST_DAY + 3_652) * DAY_MS + rng.below(DAY_MS),
        };
        let unit = if rng.chance(500) { DAY_MS } else { HOUR_MS };
        (base / unit + 1) * unit
    }

    pub(super) fn net_config(&self) -> NetConfig {
        NetConfig {
            server_keys: self.server_keys,
            transport_timeout_ms: self.timeout_ms,
            validate: self.validate,
            ..NetConfig::default()
        }
    }

    /// Draw one episode's schedule for `class`.
    pub fn draw(&self, class: FaultClass, rng: &mut SplitMix64) -> Schedule {
        let mut schedule = self.draw_faults(class, rng);
        if class != FaultClass::ClockPhase {
            schedule.start_ms = self.start(rng);
        }
        schedule
    }

    fn draw_faults(&self, class: FaultClass, rng: &mut SplitMix64) -> Schedule {
        let t = self.timeout_ms;
        let b = self.bound_ms;
        let late = |rng: &mut SplitMix64| {
            if b > t {
                rng.between(t + 1, b)
            } else {
                rng.between(1, b.max(1))
            }
        };
        let mut faults = Vec::with_capacity(3);
        match class {
            FaultClass::LostAck => {
                faults.push(Fault::LostAck { request: 0 });
                if rng.chance(333) {
                    faults.push(Fault::Invisible {
                        request: 0,
                        delay_ms: rng.between(1, b),
                    });
                }
                if rng.chance(250) {
                    faults.push(Fault::LostAck { request: 1 });
                }
            }
            FaultClass::LateCommit => {
                let d = late(rng);
                faults.push(Fault::LateCommit {
                    request: 0,
                    delay_ms: d,
                });
                if b > d && rng.chance(333) {
                    faults.push(Fault::Invisible {
                        request: 0,
                        delay_ms: rng.between(1, b - d),
                    });
                }
                if rng.chance(250) {
                    faults.push(Fault::Drop { request: 1 });
                }
            }
            FaultClass::Reorder => {
                faults.push(Fault::Reorder {
                    request: 0,
                    delay_ms: late(rng),
                });
                if rng.chance(250) {
                    faults.push(Fault::LostAck { request: 1 });
                }
            }
            FaultClass::Redelivery => {
                if self.wire_redelivery && rng.chance(500) {
                    faults.push(Fault::WireRedelivery {
                        request: rng.below(2) as u32,
                        gap_ms: rng.between(0, b),
                    });
                } else {
                    if rng.chance(600) {
                        faults.push(Fault::LostAck { request: 0 });
                    }
                    faults.push(Fault::Redeliver {
                        at_ms: rng.between(0, t + b),
                    });
                }
            }
            FaultClass::Crash => {
                faults.push(Fault::Crash {
                    request: 0,
                    restart_ms: rng.between(0, self.restart_max_ms),
                });
                if rng.chance(333) {
                    faults.push(Fault::Invisible {
                        request: 0,
                        delay_ms: rng.between(1, b),
                    });
                }
            }
            FaultClass::DivergentPayload => {
                if rng.chance(500) {
                    faults.push(Fault::LostAck { request: 0 });
                }
                faults.push(Fault::Diverge {
                    at_ms: rng.between(0, t + b),
                });
            }
            FaultClass::LostRequest => {
                faults.push(lost_request(rng, 0));
                if rng.chance(250) {
                    faults.push(lost_request(rng, 1));
                }
            }
            FaultClass::ErrorAfterEffect => {
                faults.push(error_after(rng, 0));
                if rng.chance(333) {
                    faults.push(Fault::Invisible {
                        request: 0,
                        delay_ms: rng.between(1, b),
                    });
                }
                if rng.chance(250) {
                    faults.push(error_after(rng, 1));
                }
            }
            FaultClass::SlowSuccess => {
                faults.push(Fault::Slow {
                    request: 0,
                    delay_ms: late(rng),
                });
                if rng.chance(250) {
                    faults.push(Fault::LostAck { request: 1 });
                }
            }
            FaultClass::StaleRead => {
                // Request 0 — or, for a tool that makes two effects in one attempt
                // (authorize, then charge) and so sends its second at once, request 1.
                let request = u32::from(rng.chance(250));
                faults.push(if rng.chance(500) {
                    Fault::LostAck { request }
                } else {
                    error_after(rng, request)
                });
                let lag = rng.between(2, b.max(2));
                faults.push(Fault::Invisible {
                    request,
                    delay_ms: lag,
                });
                // A second call reads the replica while it still lags.
                faults.push(Fault::Redeliver {
                    at_ms: rng.between(1, lag - 1),
                });
            }
            FaultClass::ConcurrentCallers => {
                faults.push(Fault::Concurrent {
                    at_ms: rng.between(0, t + b),
                });
                if rng.chance(500) {
                    // The first worker stalls while it holds the claim, past its lease.
                    faults.push(Fault::Stall {
                        at_ms: rng.between(0, t),
                        for_ms: self.max_wait_ms.saturating_add(rng.between(1, t)),
                    });
                }
                if rng.chance(333) {
                    faults.push(Fault::LostAck { request: 0 });
                }
            }
            FaultClass::LedgerFault => {
                const OPS: [LedgerOp; 6] = [
                    LedgerOp::Begin,
                    LedgerOp::Begin,
                    LedgerOp::Resolve,
                    LedgerOp::Resolve,
                    LedgerOp::TakeOver,
                    LedgerOp::Release,
                ];
                faults.push(Fault::LedgerFault {
                    op: OPS[rng.below(OPS.len() as u64) as usize],
                    nth: rng.below(2) as u32,
                    applied: rng.chance(500),
                });
                if rng.chance(333) {
                    faults.push(Fault::LostAck { request: 0 });
                }
                if rng.chance(500) {
                    faults.push(Fault::Redeliver {
                        at_ms: rng.between(0, 2 * self.max_wait_ms.min(t + b)),
                    });
                }
            }
            FaultClass::LookalikeRecords => {
                faults.push(Fault::Lookalike);
                faults.push(match rng.below(3) {
                    0 => Fault::LostAck { request: 0 },
                    1 => lost_request(rng, 0),
                    _ => error_after(rng, 0),
                });
                if rng.chance(667) {
                    faults.push(crowd(rng));
                }
            }
            FaultClass::SiblingOperations => {
                faults.push(Fault::Sibling {
                    at_ms: rng.between(0, t + b),
                    before: rng.chance(500),
                });
                let request = rng.below(2) as u32;
                faults.push(match rng.below(3) {
                    0 => Fault::LostAck { request },
                    1 => lost_request(rng, request),
                    _ => error_after(rng, request),
                });
                if rng.chance(500) {
                    faults.push(crowd(rng));
                }
            }
            FaultClass::ReadFault => {
                faults.push(if rng.chance(500) {
                    Fault::LostAck { request: 0 }
                } else {
                    error_after(rng, 0)
                });
                let timeout = rng.chance(500);
                match rng.below(3) {
                    // Before the settle point: a redelivered call checks the unresolved
                    // record while the first attempt is still out; its read is the first.
                    0 => {
                        faults.push(Fault::Redeliver {
                            at_ms: rng.between(1, t),
                        });
                        faults.push(Fault::ReadFault { nth: 0, timeout });
                    }
                    // At the settle point: the first call's own check.
                    1 => faults.push(Fault::ReadFault { nth: 0, timeout }),
                    // After it: a later call checks again (the first or the second read
                    // fails).
                    _ => {
                        faults.push(Fault::Redeliver {
                            at_ms: rng.between(t + b + 1, 2 * (t + b)),
                        });
                        faults.push(Fault::ReadFault {
                            nth: rng.below(2) as u32,
                            timeout,
                        });
                    }
                }
            }
            FaultClass::ClockPhase => {
                // The first call starts `lead` before the boundary, with its first request
                // (almost) at once; the operation is called again after the boundary.
                let boundary = self.boundary(rng);
                let lead = rng.between(1, t);
                let after = |rng: &mut SplitMix64| rng.between(lead, lead + t + b);
                match rng.below(4) {
                    0 => {
                        faults.push(Fault::LostAck { request: 0 });
                        faults.push(Fault::Redeliver { at_ms: after(rng) });
                    }
                    1 => {
                        faults.push(error_after(rng, 0));
                        faults.push(Fault::Redeliver { at_ms: after(rng) });
                    }
                    2 => faults.push(Fault::Crash {
                        request: 0,
                        restart_ms: rng.between(lead, lead + self.restart_max_ms),
                    }),
                    _ => {
                        faults.push(Fault::Concurrent { at_ms: after(rng) });
                        if rng.chance(500) {
                            faults.push(Fault::LostAck { request: 0 });
                        }
                    }
                }
                return Schedule {
                    faults,
                    start_ms: boundary - lead,
                };
            }
        }
        Schedule {
            faults,
            start_ms: 0,
        }
    }

    /// Why `class` cannot hit its window in this environment, if it cannot: the classes
    /// whose window is a request landing (or answering) after its client gave up on it need
    /// an in-flight bound beyond the attempt's timeout. A contract whose `settle_ms` is not
    /// longer than its timeout claims that every request lands within `settle_ms` of being
    /// sent, so before its client gives up; under that claim the three classes still run
    /// (their requests are held up to the bound), but a run is not failed for their windows
    /// staying shut.
    pub fn not_applicable(&self, class: FaultClass) -> Option<String> {
        let late_window = matches!(
            class,
            FaultClass::LateCommit | FaultClass::Reorder | FaultClass::SlowSuccess
        );
        (late_window && self.bound_ms <= self.timeout_ms).then(|| {
            format!(
                "not applicable under the contract's claim: the in-flight bound ({}) is not beyond the attempt's timeout ({}), so no request can land after its client gave up; if the API can commit later than that, the claim is false (widen settle_ms, or use server_dedup)",
                secs(self.bound_ms),
                secs(self.timeout_ms)
            )
        })
    }

    /// The alphabet of the exhaustive enumeration: discretised faults on the first two
    /// requests and at three instants.
    pub fn alphabet(&self) -> Vec<Fault> {
        let t = self.timeout_ms;
        let b = self.bound_ms;
        // A late commit halfway between the timeout and the bound, and a visibility delay
        // taking the rest: in-flight time plus visibility never exceed the bound. When the
        // bound is not beyond the timeout (the contract claims every request lands within
        // `settle_ms`, before its client gives up), the request is held for half the bound.
        let late = if b > t {
            t + (b - t) / 2
        } else {
            (b / 2).max(1)
        };
        let invisible = b.saturating_sub(late).max(1);
        let mut out = Vec::new();
        for request in 0..2 {
            out.push(Fault::LostAck { request });
            out.push(Fault::Drop { request });
            out.push(Fault::LateCommit {
                request,
                delay_ms: late,
            });
            out.push(Fault::Reorder {
                request,
                delay_ms: late,
            });
            out.push(Fault::Crash {
                request,
                restart_ms: 1_000,
            });
            if self.wire_redelivery {
                out.push(Fault::WireRedelivery { request, gap_ms: 0 });
                out.push(Fault::WireRedelivery {
                    request,
                    gap_ms: late,
                });
            }
        }
        out.push(Fault::Invisible {
            request: 0,
            delay_ms: invisible,
        });
        for at_ms in [0, t / 2, t + b] {
            out.push(Fault::Redeliver { at_ms });
        }
        for at_ms in [0, t + b] {
            out.push(Fault::Diverge { at_ms });
        }
        out.push(Fault::RefusedBefore { request: 0 });
        out.push(Fault::ErrorAfter {
            request: 0,
            status: 500,
        });
        out.push(Fault::ErrorAfter {
            request: 0,
            status: 503,
        });
        out.push(Fault::Slow {
            request: 0,
            delay_ms: late,
        });
        out.push(Fault::Concurrent { at_ms: 0 });
        out.push(Fault::Stall {
            at_ms: 0,
            for_ms: self.max_wait_ms.saturating_add(1),
        });
        for (op, applied) in [
            (LedgerOp::Begin, true),
            (LedgerOp::Resolve, false),
            (LedgerOp::Resolve, true),
        ] {
            out.push(Fault::LedgerFault {
                op,
                nth: 0,
                applied,
            });
        }
        out.push(Fault::ReadFault {
            nth: 0,
            timeout: false,
        });
        out.push(Fault::ReadFault {
            nth: 0,
            timeout: true,
        });
        out.push(Fault::Lookalike);
        out.push(Fault::Sibling {
            at_ms: 0,
            before: false,
        });
        out.push(Fault::Sibling {
            at_ms: t + b,
            before: true,
        });
        out
    }
}

/// 2024-01-01, in days since the Unix epoch: the first day an episode's clock is drawn on.
const FIRST_DAY: u64 = 19_723;

/// The most earlier operations a crowded world holds: beyond two pages of a listing of ten
/// (Stripe's default page), and beyond one of twenty.
pub(crate) const MAX_CROWD: u64 = 25;

/// A crowded world: 1 to [`MAX_CROWD`] earlier operations of the caller.
fn crowd(rng: &mut SplitMix64) -> Fault {
    Fault::Crowd {
        records: rng.between(1, MAX_CROWD) as u32,
    }
}

/// A request that takes effect, then an error comes back: a 500, or a gateway's 502, 503
/// or 504.
fn error_after(rng: &mut SplitMix64, request: u32) -> Fault {
    const STATUS: [u16; 4] = [500, 502, 503, 504];
    Fault::ErrorAfter {
        request,
        status: STATUS[rng.below(4) as usize],
    }
}

/// A request that never takes effect: dropped on the way (the client times out), or
/// refused with a 503 before any effect.
fn lost_request(rng: &mut SplitMix64, request: u32) -> Fault {
    if rng.chance(500) {
        Fault::Drop { request }
    } else {
        Fault::RefusedBefore { request }
    }
}
