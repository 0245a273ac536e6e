//! The deterministic fault simulator and property harness (feature `sim`).
//!
//! An episode is a pure function of (seed, fault schedule) → event log: one
//! [`VirtualClock`](crate::VirtualClock) (no sleeps, no threads, no wall clock), one
//! in-crate [`SplitMix64`] generator pinned by a golden test, ordered maps only.
//!
//! - [`Net`]: the world below the wrapper — a fake **system of record** counting real
//!   effects, optionally honouring idempotency keys like Stripe (same key and parameters →
//!   the first result replayed; same key, other parameters → refused; invalid parameters
//!   not stored; keys pruned after a TTL), answering postcondition reads with an optional
//!   visibility delay; and the **transport** to it, injecting the wire faults.
//! - [`Proof`]: the harness. Give it a `#[side_effect]` tool's contract, a factory for a
//!   fresh simulated world, the arguments, the guarded call and an effect counter; it runs
//!   the acceptance run (200 episodes × 16 classes × 3 seeds, every seed twice, on the
//!   machine's threads), checks I1, I2, I4 and I5 on every episode and I3 across the two
//!   runs, counts per class how often the dangerous window was hit (a class that never bit
//!   fails, and so does an invariant no class exercised), enumerates every small schedule,
//!   and shrinks and saves any counterexample as JSON that [`Proof::replay_file`] replays
//!   in one line.
//! - [`in_place`]: the `call` hook of a method guarded in place (an rmcp `#[tool]` method,
//!   rig's `Tool::call`): the harness builds the server from the world and the calling
//!   process's context, calls the method, and reads its return value as the agent reads it
//!   ([`CallAnswer`]).
//! - [`mutants`]: the harness's own mutation test — broken variants of the billing tool that
//!   a class must kill.
//! - [`billing`]: the simulator's own billing tool and the control strategies that must
//!   fail; [`experiments`]: reference 000's retry matrix and the paper's fault levels.
//!
//! ```text
//! #[test]
//! fn create_charge_survives_every_fault() {
//!     idemcheck::sim::Proof { contract: create_charge::CONTRACT, world: SimBilling::new,
//!         intent: ChargeArgs::episode, call: create_charge::call, effects: SimBilling::count }
//!         .prove();
//! }
//! ```
//!
//! # Fault classes
//!
//! | class | injected as | dangerous window ("sometimes" count) |
//! |---|---|---|
//! | `lost_ack` | request 0 takes effect, its response is lost (sometimes visible late; sometimes request 1 too) | an effect committed while its response was lost |
//! | `late_commit` | request 0 is held past the client's timeout, up to the environment bound, then lands | it landed after its client gave up |
//! | `reorder` | request 0 is held until the next request of the same operation lands (or the bound) | it was still in the pipe when its client gave up, so any retry overtakes it |
//! | `redelivery` | the agent's transport delivers the tool call again (at a random instant); with `server_dedup`, half the episodes instead have the wire deliver a request twice | a duplicate arrived while the first call was unresolved, or the wire delivered twice |
//! | `crash` | request 0 takes effect and is answered, and its process dies before the ledger write; the agent reruns the call in a new process on the same ledger | the process died between the effect and the ledger write |
//! | `divergent_payload` | the agent calls again with changed arguments (sometimes after a lost ack) | the changed call arrived after the operation had been dispatched |
//! | `lost_request` | request 0 is dropped, or refused with a 503, before any effect (sometimes request 1 too) | a request failed before any effect and its client could not tell |
//! | `error_after_effect` | request 0 takes effect, then a 500, 502, 503 or 504 comes back (a gateway in front of an upstream that committed; sometimes invisible for a while) | an effect committed and its client got an error |
//! | `slow_success` | request 0 lands and answers after the attempt's timeout, within the bound | the answer came after the client had given up on the attempt |
//! | `stale_read` | request 0's ack is lost (or a 500 comes back) and its effect stays invisible to reads; a second call reads during the lag | a postcondition read missed a landed effect |
//! | `concurrent_callers` | a second worker runs the same call; half the time the first stalls past its lease | a second worker started while the first was running |
//! | `ledger_fault` | one ledger step (begin, resolve, take over, release) fails, before or after the store applied it; sometimes the agent calls again | an injected ledger failure happened |
//! | `lookalike_records` | the world holds another operation's effect (same customer and amount, another order) before the episode — in two episodes of three, a crowd of up to 25 earlier operations of the caller, beyond two pages of a listing; request 0 is lost or its ack is | a postcondition read (or listing) ran beside a look-alike |
//! | `sibling_operations` | the caller runs a second, distinct operation before, after or during this one (in half the episodes after a crowd of up to 25 earlier ones); one request is lost or its ack is | a postcondition read (or listing) ran beside a sibling's effect |
//! | `clock_phase` | the episode starts just before an hour or a day boundary (UTC); the operation is called again after it (a redelivery after a lost ack or a 5xx, a restart after a crash, a second worker) | a call of the operation ran in another hour than its first call |
//! | `read_fault` | request 0's ack is lost (or a 5xx comes back after its effect), and a postcondition read fails with a 503 or times out: before the settle point (a redelivered call checks the unresolved record), at it, or after it (a later call) | a postcondition read failed |
//!
//! Reads: [`Net::read`] (one operation's effects), [`Net::list`] (a page of a listing,
//! oldest first, as paged APIs answer) and [`Net::read_all`] all count toward the windows of
//! `stale_read`, `lookalike_records`, `sibling_operations` and `read_fault`, so a tool whose
//! postcondition lists is judged like one that reads.
//!
//! Processes: each simulated process of an episode — the agent's, every concurrent worker,
//! every restart after a crash — has its own ledger owner (`p1`, `p2`, ...) and its own
//! identity in the simulated world ([`Net::process`]: a pid, a start-up random value, a hash
//! seed for `HashMap`s, process-wide values through [`Net::process_local`]), fresh on every
//! restart and deterministic per episode. That covers what a tool reads *through the world*:
//! a key built from a start-up nonce, a PID, a process-wide cache or a map's iteration order
//! changes when the process does, and `crash` and `concurrent_callers` catch it. It does not
//! cover what the tool's own code reads from the OS process the harness runs in — a real
//! `static`, `std::process::id()`, a `RandomState` made outside the simulated world — which
//! stay the same across simulated restarts (the harness does not fork real processes); read
//! such values through `Net::process` in the simulated world, or test them with real
//! processes.
//!
//! Every episode's clock starts at a wall time drawn from its seed ([`Schedule::start_ms`],
//! a day of 2024–2033, before 22:00 so that only `clock_phase` reaches midnight; minute and
//! hour boundaries fall anywhere) and can be fixed with [`Env::start_ms`]. The exhaustive
//! enumeration starts one minute before midnight ([`Env::ENUMERATION_START`]). Event times
//! count from the episode's start; a timeline names the start's wall time.
//!
//! # What each contract can and cannot defend
//!
//! Redelivery has two places. Between the agent and the wrapper, the **ledger**
//! deduplicates: the second delivery finds the record (replayed when COMMITTED, verified
//! when DECLARED, refused when the arguments differ). Between the wrapper and the system of
//! record, a request the wire delivers twice reaches the system of record twice, and only
//! the system of record can tell: a contract with `server_dedup = true` (the tool passes
//! [`current_key`](crate::current_key) on) is safe; a contract without it is not, whatever
//! the client does — the harness injects wire duplicates only with `server_dedup`, says so
//! in its report, and the test suite shows the duplicate happening without it.
//!
//! The settle window is taken at its word: the harness's environment never holds a request
//! (plus its visibility delay) longer than `settle_ms` — neither in the random draws nor in
//! the exhaustive enumeration ([`Schedule::longest_in_flight`], tested). A contract with
//! neither `settle_ms` nor `server_dedup` is tested against the reference's 90 s late commit
//! and fails: when it may retry (IDEM009), and also when it never retries, on a redelivered
//! call that finds its record UNKNOWN or DECLARED by a crashed process and is told "not done"
//! by a lagging replica (`tests/sim/tests/agent_tools/documented.rs`). Widen [`Env::bound_ms`] beyond the settle window to see the
//! duplicate a wrong settle window lets through.
//!
//! A `settle_ms` no longer than the attempt's timeout (the rig example's `timeout_ms = 2_000,
//! settle_ms = 2_000`; shorter than the timeout is IDEM009) is a strong claim: *every request this tool sends lands, and is visible to the
//! postcondition, within `settle_ms` of being sent — or never*. Then nothing is in flight
//! when an attempt times out, and the postcondition's "not done" is final. The harness
//! proves the tool under that claim: `late_commit`, `reorder` and `slow_success`, whose
//! windows are a request landing after its client gave up, cannot open, and the report lists
//! them as not applicable (with the reason) instead of failing the run for them
//! ([`Env::not_applicable`]). If the API can commit later (a queue, a gateway that keeps
//! forwarding), the claim is false: widen `settle_ms` to the real bound, or use
//! `server_dedup`.
//!
//! # Invariants
//!
//! - **I1 at-most-once**: at most one real effect per logical operation (intended and
//!   changed arguments together), once everything in flight has landed.
//! - **I2 at-least-once**: the last thing the agent was told about each argument variant
//!   holds once everything has landed — completed → the effect exists; not completed → it
//!   does not — and every call answers (an unknown is an honest escalation).
//! - **I3 determinism**: each seed is run twice; the JSON Lines logs must be identical.
//! - **I4 no orphan intent**: never "completed" unless an effect with the call's own
//!   arguments exists at that moment.
//! - **I5 claim before effect**: for a tool that uses the ledger, no request leaves a
//!   process that does not hold a live claim on the key it runs under (fail closed on
//!   ledger errors; fencing when a lease runs out under a stalled owner).
//!
//! I2 also holds a distinct operation (a sibling; the intended one when no changed call
//! exists) refused as a changed retry of another to be a violation: its key merges two
//! operations. Each class says which invariants it can break ([`FaultClass::exposes`]);
//! the report's coverage table counts their window hits.
//!
//! # Fault levels
//!
//! See [`FaultLevel`]: per write, a timeout with probability 5 / 20 / 35 % (lost ack 40 %,
//! late commit 30 %, dropped 30 % of them), a delayed visibility with 5 / 15 / 25 %, a wire
//! duplicate with 1 / 2 / 3 %.

pub mod billing;
mod event;
pub mod experiments;
mod fault;
mod harness;
mod ledger;
pub mod mutants;
mod net;
mod rng;

pub use event::{Event, EventKind, to_jsonl};
pub use fault::{Fault, FaultClass, FaultLevel, LedgerOp, Schedule, wall_time};
pub use harness::{
    CallAnswer, CallReport, ClassStats, Config, Counterexample, CoverageRow, EffectCounts, Env,
    Episode, Invariant, LOOKALIKE_EPISODE, Proof, Replayed, Report, SIBLING_EPISODE, Told,
    Violation, in_place, variant,
};
pub use net::{Effect, KEY_REUSED, Net, NetConfig, Page, Process, ProcessHasher, SimError};
pub use rng::SplitMix64;
