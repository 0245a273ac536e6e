//! Fault classes, fault levels and schedules: the simulator's input besides the seed.

use serde::{Deserialize, Serialize};

use super::rng::SplitMix64;

/// The fault classes: DESIGN's six, six more faults, and two worlds with more than one
/// operation. Each is documented with the bug it catches (module docs, "Fault classes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultClass {
    /// The effect commits, the response is lost: the client sees a timeout.
    LostAck,
    /// The request is still in the pipe when the client gives up; it lands later.
    LateCommit,
    /// The same call is delivered twice: by the agent's transport to the wrapper (the ledger
    /// deduplicates), or by the wire to the system of record (only server-side dedup can).
    Redelivery,
    /// A retry overtakes the original: the original is held until the next request of the
    /// same operation has been delivered.
    Reorder,
    /// The process dies between the effect and its ledger write; a new process resumes from
    /// the ledger.
    Crash,
    /// The agent calls again with changed arguments.
    DivergentPayload,
    /// The request never takes effect: dropped on the way (a timeout), or refused before any
    /// effect with a 5xx the client cannot tell from one after it.
    LostRequest,
    /// The effect commits, then an error response arrives: a 500, or a gateway's 502, 503
    /// or 504 after its upstream committed.
    ErrorAfterEffect,
    /// The effect and its response arrive, but after the attempt's timeout: the client has
    /// already given up on the attempt.
    SlowSuccess,
    /// The postcondition reads a lagging replica: an effect that has landed is invisible to
    /// reads for a bounded time.
    StaleRead,
    /// Two workers run the same logical operation at once; sometimes the first one stalls
    /// past its lease while it holds the claim.
    ConcurrentCallers,
    /// A ledger read or write fails or times out at one protocol step (before or after the
    /// store applied it).
    LedgerFault,
    /// The world already holds look-alike records: another operation's effect with the same
    /// customer and amount, another business id.
    LookalikeRecords,
    /// The same caller runs a second, distinct operation before, after or interleaved with
    /// this one.
    SiblingOperations,
    /// The episode starts just before an hour or a day boundary (UTC), and the operation is
    /// called again after it: a redelivery, a restart after a crash, a second worker.
    ClockPhase,
    /// A postcondition read fails (a 503) or times out — before the settle point (a
    /// redelivered call checking an unresolved record), at it, or after it — once an effect
    /// may have happened (a lost ack, an error after the effect).
    ReadFault,
}

impl FaultClass {
    /// All sixteen, in the order they were added: DESIGN's six first.
    pub const ALL: [FaultClass; 16] = [
        FaultClass::LostAck,
        FaultClass::LateCommit,
        FaultClass::Redelivery,
        FaultClass::Reorder,
        FaultClass::Crash,
        FaultClass::DivergentPayload,
        FaultClass::LostRequest,
        FaultClass::ErrorAfterEffect,
        FaultClass::SlowSuccess,
        FaultClass::StaleRead,
        FaultClass::ConcurrentCallers,
        FaultClass::LedgerFault,
        FaultClass::LookalikeRecords,
        FaultClass::SiblingOperations,
        FaultClass::ClockPhase,
        FaultClass::ReadFault,
    ];

    /// `lost_ack`, `late_commit`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            FaultClass::LostAck => "lost_ack",
            FaultClass::LateCommit => "late_commit",
            FaultClass::Redelivery => "redelivery",
            FaultClass::Reorder => "reorder",
            FaultClass::Crash => "crash",
            FaultClass::DivergentPayload => "divergent_payload",
            FaultClass::LostRequest => "lost_request",
            FaultClass::ErrorAfterEffect => "error_after_effect",
            FaultClass::SlowSuccess => "slow_success",
            FaultClass::StaleRead => "stale_read",
            FaultClass::ConcurrentCallers => "concurrent_callers",
            FaultClass::LedgerFault => "ledger_fault",
            FaultClass::LookalikeRecords => "lookalike_records",
            FaultClass::SiblingOperations => "sibling_operations",
            FaultClass::ClockPhase => "clock_phase",
            FaultClass::ReadFault => "read_fault",
        }
    }

    /// The dangerous window this class must open for its episodes to count as having
    /// "bitten".
    pub fn window(self) -> &'static str {
        match self {
            FaultClass::LostAck => "an effect committed while its response was lost",
            FaultClass::LateCommit => "a request landed after its client had given up on it",
            FaultClass::Redelivery => {
                "a duplicate delivery arrived while the first was unresolved, or the wire delivered a request twice"
            }
            FaultClass::Reorder => {
                "a request was still in the pipe when its client gave up, so any earlier retry overtakes it"
            }
            FaultClass::Crash => "the process died after the effect and before its ledger write",
            FaultClass::DivergentPayload => {
                "a call with changed arguments arrived after the operation had been dispatched"
            }
            FaultClass::LostRequest => {
                "a request failed before any effect, and its client could not tell it from a lost response"
            }
            FaultClass::ErrorAfterEffect => "an effect committed and its client got an error",
            FaultClass::SlowSuccess => {
                "an effect landed, with its response, after its client's attempt had timed out"
            }
            FaultClass::StaleRead => {
                "a postcondition read missed an effect that had already landed"
            }
            FaultClass::ConcurrentCallers => {
                "a second worker started the operation while the first was still running"
            }
            FaultClass::LedgerFault => "a ledger operation failed in the middle of the protocol",
            FaultClass::LookalikeRecords => {
                "a postcondition read ran while the system of record held a look-alike record"
            }
            FaultClass::SiblingOperations => {
                "a postcondition read ran while the system of record held a sibling operation's effect"
            }
            FaultClass::ClockPhase => {
                "the operation was called again in another hour (or day) of the clock than its first call"
            }
            FaultClass::ReadFault => "a postcondition read failed or timed out",
        }
    }

    /// Whether this class's window is a postcondition read: it cannot open for a contract
    /// without one (`verify = none`).
    pub fn needs_read(self) -> bool {
        matches!(
            self,
            FaultClass::StaleRead
                | FaultClass::LookalikeRecords
                | FaultClass::SiblingOperations
                | FaultClass::ReadFault
        )
    }

    /// What a tool must do for this class's window to open, said when it never did: the
    /// harness watches only what passes through the simulated world.
    pub fn never_bit_hint(self) -> &'static str {
        match self {
            FaultClass::LostAck
            | FaultClass::LateCommit
            | FaultClass::Reorder
            | FaultClass::LostRequest
            | FaultClass::ErrorAfterEffect
            | FaultClass::SlowSuccess
            | FaultClass::Crash => {
                "the tool's writes must go through `Net::write` (a write the simulator does not see cannot be faulted)"
            }
            FaultClass::Redelivery | FaultClass::ConcurrentCallers => {
                "the tool must take long enough, or dispatch through `Net::write`, for a second call to arrive while the first is unresolved"
            }
            FaultClass::DivergentPayload => {
                "the tool must dispatch through `Net::write` before the changed call arrives"
            }
            FaultClass::StaleRead
            | FaultClass::LookalikeRecords
            | FaultClass::SiblingOperations
            | FaultClass::ReadFault => {
                "the postcondition must read through `Net::read`, `Net::list` or `Net::read_all` (a read the simulator does not see cannot be shown a lagging replica or another operation's records)"
            }
            FaultClass::LedgerFault => {
                "the tool must run under idemcheck's protocol (`#[side_effect]` or `executor::run`), which uses the ledger the simulator faults"
            }
            FaultClass::ClockPhase => {
                "the operation must be called again after the boundary: a redelivery or a second worker (scheduled by the class), or a restart after a crash (which needs a write through `Net::write`)"
            }
        }
    }

    pub(crate) fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl std::fmt::Display for FaultClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One injected fault. Wire faults name a write request by its dispatch number in the
/// episode (0 = the first request any process sends); agent faults name a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// The request is delivered and takes effect; its response is lost.
    LostAck {
        /// Request number.
        request: u32,
    },
    /// The request is lost before it reaches the system of record.
    Drop {
        /// Request number.
        request: u32,
    },
    /// The request is held in the pipe for `delay_ms`, then delivered; no response ever
    /// reaches the client.
    LateCommit {
        /// Request number.
        request: u32,
        /// Time in the pipe.
        delay_ms: u64,
    },
    /// The request is held until the next request of the same operation has been delivered
    /// (or `delay_ms` at most), then delivered; no response reaches the client.
    Reorder {
        /// Request number.
        request: u32,
        /// Longest time in the pipe.
        delay_ms: u64,
    },
    /// The wire delivers the request twice (`gap_ms` apart); the client sees one response.
    WireRedelivery {
        /// Request number.
        request: u32,
        /// Time between the deliveries.
        gap_ms: u64,
    },
    /// The request takes effect and is answered, but the process that sent it dies before
    /// it can write the ledger; the agent reruns the call in a new process `restart_ms`
    /// later, on the same ledger.
    Crash {
        /// Request number.
        request: u32,
        /// Time to restart.
        restart_ms: u64,
    },
    /// The effect of the request becomes visible to reads only `delay_ms` after it lands.
    Invisible {
        /// Request number.
        request: u32,
        /// Visibility delay.
        delay_ms: u64,
    },
    /// The agent's transport delivers the tool call to the wrapper again at `at_ms`.
    Redeliver {
        /// When.
        at_ms: u64,
    },
    /// The agent calls the tool again at `at_ms` with changed arguments.
    Diverge {
        /// When.
        at_ms: u64,
    },
    /// The system of record refuses the request before any effect with a 5xx
    /// ([`SimError::Unavailable`](super::net::SimError::Unavailable), ambiguous to the
    /// client).
    RefusedBefore {
        /// Request number.
        request: u32,
    },
    /// The request takes effect, then a 500 arrives
    /// ([`SimError::ServerError`](super::net::SimError::ServerError)).
    ErrorAfter {
        /// Request number.
        request: u32,
        /// The status that comes back: 500, or a gateway's 502, 503 or 504 (its upstream
        /// committed; see [`SimError`](super::net::SimError) for what a client may
        /// conclude from each).
        #[serde(default = "status_500", skip_serializing_if = "is_500")]
        status: u16,
    },
    /// The request is held for `delay_ms`, then takes effect and is answered; the transport
    /// itself does not time out, so only the attempt's timeout stops the client waiting.
    Slow {
        /// Request number.
        request: u32,
        /// Time until it lands and answers.
        delay_ms: u64,
    },
    /// A second worker (its own process and owner, the same ledger) runs the same call at
    /// `at_ms`.
    Concurrent {
        /// When.
        at_ms: u64,
    },
    /// The first process is not scheduled from `at_ms` for `for_ms` (a pause, a GC, a
    /// stalled host): its lease may run out while it holds the claim.
    Stall {
        /// When the pause starts.
        at_ms: u64,
        /// How long it lasts.
        for_ms: u64,
    },
    /// The `nth` ledger operation `op` of the episode (counting every process, from 0)
    /// fails as unavailable: before the store applied it, or (`applied`) after, with the
    /// reply lost.
    LedgerFault {
        /// Which protocol step.
        op: LedgerOp,
        /// Which occurrence.
        nth: u32,
        /// The store applied it before the error.
        applied: bool,
    },
    /// The `nth` postcondition read of the episode (counting every process and every read
    /// of [`Net`](super::Net), from 0) fails: with a 503 at once
    /// ([`SimError::Unavailable`](super::net::SimError::Unavailable)), or (`timeout`) with no
    /// answer until the transport's timeout ([`SimError::Timeout`](super::net::SimError::Timeout)).
    ReadFault {
        /// Which read.
        nth: u32,
        /// It times out instead of failing at once.
        timeout: bool,
    },
    /// Before the episode, the world gains a look-alike record: the tool's own effect for
    /// another operation (the `intent` hook's operation of another episode), made through
    /// the tool without faults.
    Lookalike,
    /// Before the episode, the caller has already made `records` other operations of this
    /// tool (the `intent` hook's operations of other episodes, made through the tool without
    /// faults; at most [`Fault::MAX_CROWD_RECORDS`]): a crowded world, beyond one page of
    /// any listing.
    Crowd {
        /// How many earlier operations.
        records: u32,
    },
    /// The same caller runs a sibling operation (the `intent` hook's operation of another
    /// episode): at `at_ms`, or, when `before`, first, with this operation starting at
    /// `at_ms`.
    Sibling {
        /// When the later of the two starts.
        at_ms: u64,
        /// The sibling goes first.
        before: bool,
    },
}

fn status_500() -> u16 {
    500
}

fn is_500(status: &u16) -> bool {
    *status == 500
}

/// A step of the ledger protocol, for [`Fault::LedgerFault`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LedgerOp {
    /// Claim or find the record.
    Begin,
    /// Take over an expired record.
    TakeOver,
    /// Record the resolution (COMMITTED, FAILED, UNKNOWN).
    Resolve,
    /// Give the key up.
    Release,
    /// Read the record.
    Load,
}

impl LedgerOp {
    /// `begin`, `take_over`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            LedgerOp::Begin => "begin",
            LedgerOp::TakeOver => "take_over",
            LedgerOp::Resolve => "resolve",
            LedgerOp::Release => "release",
            LedgerOp::Load => "load",
        }
    }
}

impl Fault {
    /// The most earlier operations an episode makes for [`Fault::Crowd`] faults, however
    /// many they ask for.
    pub const MAX_CROWD_RECORDS: u32 = 256;

    /// The request a wire fault applies to.
    pub fn request(&self) -> Option<u32> {
        match *self {
            Fault::LostAck { request }
            | Fault::Drop { request }
            | Fault::LateCommit { request, .. }
            | Fault::Reorder { request, .. }
            | Fault::WireRedelivery { request, .. }
            | Fault::Crash { request, .. }
            | Fault::RefusedBefore { request }
            | Fault::ErrorAfter { request, .. }
            | Fault::Slow { request, .. } => Some(request),
            Fault::Invisible { .. }
            | Fault::Redeliver { .. }
            | Fault::Diverge { .. }
            | Fault::Concurrent { .. }
            | Fault::Stall { .. }
            | Fault::LedgerFault { .. }
            | Fault::ReadFault { .. }
            | Fault::Lookalike
            | Fault::Crowd { .. }
            | Fault::Sibling { .. } => None,
        }
    }

    /// Simpler variants of this fault, simplest first (for the shrinker).
    pub(crate) fn simpler(&self) -> Vec<Fault> {
        let mut out = Vec::new();
        let halve = |v: u64| if v > 1 { Some(v / 2) } else { None };
        let req = |r: u32| r.checked_sub(1);
        match *self {
            Fault::LostAck { request } => {
                out.extend(req(request).map(|request| Fault::LostAck { request }))
            }
            Fault::Drop { request } => {
                out.extend(req(request).map(|request| Fault::Drop { request }))
            }
            Fault::LateCommit { request, delay_ms } => {
                out.extend(req(request).map(|request| Fault::LateCommit { request, delay_ms }));
                out.extend(halve(delay_ms).map(|delay_ms| Fault::LateCommit { request, delay_ms }));
            }
            Fault::Reorder { request, delay_ms } => {
                out.extend(req(request).map(|request| Fault::Reorder { request, delay_ms }));
                out.extend(halve(delay_ms).map(|delay_ms| Fault::Reorder { request, delay_ms }));
            }
            Fault::WireRedelivery { request, gap_ms } => {
                out.extend(req(request).map(|request| Fault::WireRedelivery { request, gap_ms }));
                out.extend(halve(gap_ms).map(|gap_ms| Fault::WireRedelivery { request, gap_ms }));
                if gap_ms == 1 {
                    out.push(Fault::WireRedelivery { request, gap_ms: 0 });
                }
            }
            Fault::Crash {
                request,
                restart_ms,
            } => {
                out.extend(req(request).map(|request| Fault::Crash {
                    request,
                    restart_ms,
                }));
                out.extend(halve(restart_ms).map(|restart_ms| Fault::Crash {
                    request,
                    restart_ms,
                }));
            }
            Fault::Invisible { request, delay_ms } => {
                out.extend(req(request).map(|request| Fault::Invisible { request, delay_ms }));
                out.extend(halve(delay_ms).map(|delay_ms| Fault::Invisible { request, delay_ms }));
            }
            Fault::Redeliver { at_ms } => {
                if at_ms > 0 {
                    out.push(Fault::Redeliver { at_ms: 0 });
                }
                out.extend(halve(at_ms).map(|at_ms| Fault::Redeliver { at_ms }));
            }
            Fault::Diverge { at_ms } => {
                if at_ms > 0 {
                    out.push(Fault::Diverge { at_ms: 0 });
                }
                out.extend(halve(at_ms).map(|at_ms| Fault::Diverge { at_ms }));
            }
            Fault::RefusedBefore { request } => {
                out.push(Fault::Drop { request });
                out.extend(req(request).map(|request| Fault::RefusedBefore { request }));
            }
            Fault::ErrorAfter { request, status } => {
                out.push(Fault::LostAck { request });
                out.extend(req(request).map(|request| Fault::ErrorAfter { request, status }));
                if status != 500 {
                    out.push(Fault::ErrorAfter {
                        request,
                        status: 500,
                    });
                }
            }
            Fault::Slow { request, delay_ms } => {
                out.extend(req(request).map(|request| Fault::Slow { request, delay_ms }));
                out.extend(halve(delay_ms).map(|delay_ms| Fault::Slow { request, delay_ms }));
            }
            Fault::Concurrent { at_ms } => {
                if at_ms > 0 {
                    out.push(Fault::Concurrent { at_ms: 0 });
                }
                out.extend(halve(at_ms).map(|at_ms| Fault::Concurrent { at_ms }));
            }
            Fault::Stall { at_ms, for_ms } => {
                if at_ms > 0 {
                    out.push(Fault::Stall { at_ms: 0, for_ms });
                }
                out.extend(halve(at_ms).map(|at_ms| Fault::Stall { at_ms, for_ms }));
                out.extend(halve(for_ms).map(|for_ms| Fault::Stall { at_ms, for_ms }));
            }
            Fault::LedgerFault { op, nth, applied } => {
                if applied {
                    out.push(Fault::LedgerFault {
                        op,
                        nth,
                        applied: false,
                    });
                }
                out.extend(
                    nth.checked_sub(1)
                        .map(|nth| Fault::LedgerFault { op, nth, applied }),
                );
            }
            Fault::ReadFault { nth, timeout } => {
                if timeout {
                    out.push(Fault::ReadFault {
                        nth,
                        timeout: false,
                    });
                }
                out.extend(
                    nth.checked_sub(1)
                        .map(|nth| Fault::ReadFault { nth, timeout }),
                );
            }
            Fault::Lookalike => {}
            Fault::Crowd { records } => {
                out.extend(halve(u64::from(records)).map(|r| Fault::Crowd { records: r as u32 }));
            }
            Fault::Sibling { at_ms, before } => {
                if before {
                    out.push(Fault::Sibling {
                        at_ms,
                        before: false,
                    });
                }
                if at_ms > 0 {
                    out.push(Fault::Sibling { at_ms: 0, before });
                }
                out.extend(halve(at_ms).map(|at_ms| Fault::Sibling { at_ms, before }));
            }
        }
        out.dedup();
        out.retain(|f| f != self);
        out
    }

    /// One line for a person.
    pub fn describe(&self) -> String {
        match *self {
            Fault::LostAck { request } => format!("lost_ack on request {request}"),
            Fault::Drop { request } => format!("request {request} dropped"),
            Fault::LateCommit { request, delay_ms } => {
                format!(
                    "late_commit: request {request} lands {} later",
                    secs(delay_ms)
                )
            }
            Fault::Reorder { request, delay_ms } => format!(
                "reorder: request {request} held until the next one lands (at most {})",
                secs(delay_ms)
            ),
            Fault::WireRedelivery { request, gap_ms } => format!(
                "redelivery on the wire: request {request} delivered twice, {} apart",
                secs(gap_ms)
            ),
            Fault::Crash {
                request,
                restart_ms,
            } => format!(
                "crash after request {request} took effect, before the ledger write; restart {} later",
                secs(restart_ms)
            ),
            Fault::Invisible { request, delay_ms } => format!(
                "effect of request {request} visible to reads only {} after it lands",
                secs(delay_ms)
            ),
            Fault::Redeliver { at_ms } => {
                format!(
                    "redelivery by the agent: the call arrives again at t={}",
                    secs(at_ms)
                )
            }
            Fault::Diverge { at_ms } => format!(
                "divergent_payload: the agent calls again at t={} with changed arguments",
                secs(at_ms)
            ),
            Fault::RefusedBefore { request } => {
                format!("request {request} refused with a 503 before any effect")
            }
            Fault::ErrorAfter { request, status } => {
                format!("request {request} takes effect, then a {status} comes back")
            }
            Fault::Slow { request, delay_ms } => format!(
                "slow_success: request {request} lands and answers {} later",
                secs(delay_ms)
            ),
            Fault::Concurrent { at_ms } => format!(
                "a second worker runs the same call at t={}",
                secs(at_ms)
            ),
            Fault::Stall { at_ms, for_ms } => format!(
                "the first process stalls at t={} for {}",
                secs(at_ms),
                secs(for_ms)
            ),
            Fault::LedgerFault { op, nth, applied } => format!(
                "ledger {} #{nth} fails{}",
                op.as_str(),
                if applied {
                    " after the store applied it (reply lost)"
                } else {
                    " before the store applied it"
                }
            ),
            Fault::ReadFault { nth, timeout } => format!(
                "postcondition read #{nth} {}",
                if timeout {
                    "times out"
                } else {
                    "fails with a 503"
                }
            ),
            Fault::Lookalike => {
                "the world already holds a look-alike record (another operation, same customer and amount)".to_string()
            }
            Fault::Crowd { records } => format!(
                "the caller already made {records} other operation(s) of this tool before the episode"
            ),
            Fault::Sibling { at_ms, before } => {
                if before {
                    format!(
                        "the caller runs a sibling operation first; this one starts at t={}",
                        secs(at_ms)
                    )
                } else {
                    format!("the caller runs a sibling operation at t={}", secs(at_ms))
                }
            }
        }
    }
}

pub(crate) fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}.{:03}s", ms / 1000, ms % 1000)
    }
}

/// The faults of one episode, and the wall time its clock starts at.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// The faults, in the order they were drawn (order matters only between two wire
    /// faults on the same request: the first wins).
    pub faults: Vec<Fault>,
    /// When the episode's clock starts, in milliseconds since the Unix epoch (UTC); the
    /// schedule's instants (`at_ms`) count from it. 0 (the default, and what saved
    /// counterexamples without it mean) is 1970-01-01T00:00:00Z, the start of a minute, an
    /// hour and a day.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A minute, an hour and a day of the clock, in milliseconds.
pub(crate) const MINUTE_MS: u64 = 60_000;
/// See [`MINUTE_MS`].
pub(crate) const HOUR_MS: u64 = 3_600_000;
/// See [`MINUTE_MS`].
pub(crate) const DAY_MS: u64 = 86_400_000;

/// `ms` since the Unix epoch as an ISO 8601 UTC time, `2024-02-29T23:59:00.000Z`.
pub fn wall_time(ms: u64) -> String {
    let days = (ms / DAY_MS) as i64;
    let in_day = ms % DAY_MS;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / HOUR_MS,
        in_day % HOUR_MS / MINUTE_MS,
        in_day % MINUTE_MS / 1000,
        in_day % 1000
    )
}

impl Schedule {
    /// No faults.
    pub fn none() -> Schedule {
        Schedule::default()
    }

    /// These faults, on a clock starting at 0.
    pub fn of(faults: impl IntoIterator<Item = Fault>) -> Schedule {
        Schedule {
            faults: faults.into_iter().collect(),
            start_ms: 0,
        }
    }

    /// The same schedule on a clock starting at `start_ms`.
    pub fn starting_at(self, start_ms: u64) -> Schedule {
        Schedule { start_ms, ..self }
    }
}

impl Schedule {
    /// The longest time a request of this schedule is in flight plus invisible to reads:
    /// per request, its hold in the pipe (late commit, reorder, slow success, the gap of a
    /// wire duplicate) plus its visibility delay. The harness keeps it within
    /// [`Env::bound_ms`](super::Env::bound_ms).
    pub fn longest_in_flight(&self) -> u64 {
        let mut hold: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
        let mut invisible: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
        for f in &self.faults {
            match *f {
                Fault::LateCommit { request, delay_ms }
                | Fault::Reorder { request, delay_ms }
                | Fault::Slow { request, delay_ms } => {
                    hold.entry(request).or_insert(delay_ms);
                }
                Fault::WireRedelivery { request, gap_ms } => {
                    hold.entry(request).or_insert(gap_ms);
                }
                Fault::Invisible { request, delay_ms } => {
                    let e = invisible.entry(request).or_insert(0);
                    *e = (*e).max(delay_ms);
                }
                _ => {}
            }
        }
        let requests: std::collections::BTreeSet<u32> =
            hold.keys().chain(invisible.keys()).copied().collect();
        requests
            .into_iter()
            .map(|r| hold.get(&r).copied().unwrap_or(0) + invisible.get(&r).copied().unwrap_or(0))
            .max()
            .unwrap_or(0)
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start_ms != 0 {
            write!(f, "clock starts at {}; ", wall_time(self.start_ms))?;
        }
        if self.faults.is_empty() {
            return f.write_str("no faults");
        }
        for (i, fault) in self.faults.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(&fault.describe())?;
        }
        Ok(())
    }
}

/// Fault levels: probabilities per call, after the re-implementations of
/// arXiv:2608.02645 (timeouts .05 / .20 / .35, delayed visibility .05 / .15 / .25).
///
/// | level | timeout per write | of which: lost ack / late commit / dropped | delayed visibility | wire redelivery |
/// |---|---|---|---|---|
/// | low | 5 % | 40 / 30 / 30 % | 5 % | 1 % |
/// | medium | 20 % | 40 / 30 / 30 % | 15 % | 2 % |
/// | high | 35 % | 40 / 30 / 30 % | 25 % | 3 % |
///
/// A late commit lands between the client's timeout and the environment's in-flight bound;
/// a delayed effect becomes visible within what is left of that bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultLevel {
    /// 5 % timeouts, 5 % delayed visibility.
    Low,
    /// 20 % timeouts, 15 % delayed visibility.
    Medium,
    /// 35 % timeouts, 25 % delayed visibility.
    High,
}

impl FaultLevel {
    /// Low, medium, high.
    pub const ALL: [FaultLevel; 3] = [FaultLevel::Low, FaultLevel::Medium, FaultLevel::High];

    /// `low`, `medium`, `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultLevel::Low => "low",
            FaultLevel::Medium => "medium",
            FaultLevel::High => "high",
        }
    }

    /// Probability (per mille) that a write times out.
    pub fn timeout_permille(self) -> u32 {
        match self {
            FaultLevel::Low => 50,
            FaultLevel::Medium => 200,
            FaultLevel::High => 350,
        }
    }

    /// Probability (per mille) that an effect becomes visible late.
    pub fn invisible_permille(self) -> u32 {
        match self {
            FaultLevel::Low => 50,
            FaultLevel::Medium => 150,
            FaultLevel::High => 250,
        }
    }

    /// Probability (per mille) that the wire delivers a write twice.
    pub fn redelivery_permille(self) -> u32 {
        match self {
            FaultLevel::Low => 10,
            FaultLevel::Medium => 20,
            FaultLevel::High => 30,
        }
    }

    /// Draw the wire faults of the first `requests` writes of an episode at this level.
    /// `timeout_ms` is the client's timeout, `bound_ms` the environment's in-flight bound
    /// (in-flight time plus visibility delay never exceed it); `wire_redelivery` says
    /// whether duplicate deliveries on the wire are drawn.
    pub fn draw(
        self,
        rng: &mut SplitMix64,
        requests: u32,
        timeout_ms: u64,
        bound_ms: u64,
        wire_redelivery: bool,
    ) -> Schedule {
        let mut faults = Vec::new();
        for request in 0..requests {
            let mut in_flight = 0;
            if rng.chance(self.timeout_permille()) {
                let kind = rng.below(10);
                if kind < 4 {
                    faults.push(Fault::LostAck { request });
                } else if kind < 7 && bound_ms > timeout_ms {
                    in_flight = rng.between(timeout_ms + 1, bound_ms);
                    faults.push(Fault::LateCommit {
                        request,
                        delay_ms: in_flight,
                    });
                } else {
                    faults.push(Fault::Drop { request });
                }
            } else if wire_redelivery && rng.chance(self.redelivery_permille()) {
                faults.push(Fault::WireRedelivery {
                    request,
                    gap_ms: rng.between(0, bound_ms),
                });
            }
            if rng.chance(self.invisible_permille()) && bound_ms > in_flight {
                faults.push(Fault::Invisible {
                    request,
                    delay_ms: rng.between(1, bound_ms - in_flight),
                });
            }
        }
        Schedule::of(faults)
    }
}

impl std::fmt::Display for FaultLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
