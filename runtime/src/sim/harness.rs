//! The property harness: drive a guarded tool through fault episodes, check I1–I4 on every
//! one, report per fault class how often the dangerous window was really hit, shrink and
//! save counterexamples.

use std::fmt::{self, Display, Write as _};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use serde::{Deserialize, Serialize};

use super::event::{Event, EventKind};
use super::fault::{Fault, FaultClass, Schedule, secs};
use super::ledger::SimLedger;
use super::net::{Net, NetConfig};
use super::rng::SplitMix64;
use crate::clock::{Clock, Sleep, Timestamp, VirtualClock};
use crate::context::Context;
use crate::contract::Contract;
use crate::key::Scope;
use crate::ledger::MemoryLedger;
use crate::outcome::{Escalation, Outcome};

/// The invariants of DESIGN.md checked on every episode (I3 is checked across runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Invariant {
    /// Each logical operation produces at most one real effect.
    #[serde(rename = "I1")]
    I1AtMostOnce,
    /// What the agent was last told holds once everything in flight has landed:
    /// "completed" → the effect exists; "not completed" → it does not; and every call
    /// answers.
    #[serde(rename = "I2")]
    I2AtLeastOnce,
    /// Same seed → same event log → same verdict.
    #[serde(rename = "I3")]
    I3Determinism,
    /// Never "completed" for an effect that does not exist (with these arguments) when
    /// the answer is given.
    #[serde(rename = "I4")]
    I4NoOrphanIntent,
}

impl Invariant {
    /// `I1 at-most-once`, ...
    pub fn title(self) -> &'static str {
        match self {
            Invariant::I1AtMostOnce => "I1 at-most-once",
            Invariant::I2AtLeastOnce => "I2 at-least-once",
            Invariant::I3Determinism => "I3 determinism",
            Invariant::I4NoOrphanIntent => "I4 no orphan intent",
        }
    }
}

/// One broken invariant in one episode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// Which.
    pub invariant: Invariant,
    /// What the harness saw.
    pub detail: String,
}

impl Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.invariant.title(), self.detail)
    }
}

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
        }
    }

    fn net_config(&self) -> NetConfig {
        NetConfig {
            server_keys: self.server_keys,
            transport_timeout_ms: self.timeout_ms,
            validate: self.validate,
            ..NetConfig::default()
        }
    }

    /// Draw one episode's schedule for `class`.
    pub fn draw(&self, class: FaultClass, rng: &mut SplitMix64) -> Schedule {
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
        }
        Schedule { faults }
    }

    /// The alphabet of the exhaustive enumeration: discretised faults on the first two
    /// requests and at three instants.
    pub fn alphabet(&self) -> Vec<Fault> {
        let t = self.timeout_ms;
        let b = self.bound_ms;
        // A late commit halfway between the timeout and the bound, and a visibility delay
        // taking the rest: in-flight time plus visibility never exceed the bound.
        let late = if b > t { t + (b - t) / 2 } else { t + 1 };
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
                out.push(Fault::WireRedelivery { request, gap_ms: b });
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
        out
    }
}

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
        super::event::to_jsonl(&self.events)
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

/// A tool under proof: its contract, a factory for a fresh simulated world, the argument
/// maker, the guarded call, and the effect counter.
///
/// - `world(&net)` builds the tool's services on the episode's [`Net`];
/// - `intent(n, variant)` gives the arguments of episode `n`'s logical operation
///   (`variant` 0), and changed arguments for the same operation (`variant` 1, used by
///   the divergent-payload class: change a field that is not part of the key);
/// - `call(&ctx, &world, args)` is the guarded call, usually `my_tool::call`;
/// - `effects(&world, &args)` counts the real effects that carry out exactly `args`.
///
/// ```text
/// Proof { contract: create_charge::CONTRACT, world: SimBilling::new, intent: charge_args,
///         call: create_charge::call, effects: SimBilling::count }.prove();
/// ```
pub struct Proof<FW, FI, FC, FE> {
    /// The tool's contract (`my_tool::CONTRACT`).
    pub contract: Contract,
    /// Fresh simulated world per episode.
    pub world: FW,
    /// Arguments of episode `n`, variant 0 (intended) or 1 (changed).
    pub intent: FI,
    /// The guarded call.
    pub call: FC,
    /// Real effects carrying exactly these arguments.
    pub effects: FE,
}

/// How much to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Seeds; each runs every class and is run twice for I3.
    pub seeds: Vec<u64>,
    /// Episodes per class per seed.
    pub episodes: u64,
    /// Fault classes.
    pub classes: Vec<FaultClass>,
    /// The environment (default: [`Env::for_contract`]).
    pub env: Option<Env>,
    /// Shrink the first failing episode of each class.
    pub shrink: bool,
    /// Where to save counterexamples (default: `$CARGO_MANIFEST_DIR/tests/counterexamples`
    /// when run by cargo; `None` not to save).
    pub save_to: Option<PathBuf>,
    /// Also enumerate every schedule of up to this many faults from [`Env::alphabet`].
    pub exhaustive: usize,
}

impl Default for Config {
    /// DESIGN's acceptance run: 200 episodes × 6 classes × 3 seeds, shrink and save on
    /// failure, plus every schedule of up to 4 faults.
    fn default() -> Self {
        Config {
            seeds: vec![1, 2, 3],
            episodes: 200,
            classes: FaultClass::ALL.to_vec(),
            env: None,
            shrink: true,
            save_to: std::env::var_os("CARGO_MANIFEST_DIR")
                .map(|d| PathBuf::from(d).join("tests").join("counterexamples")),
            exhaustive: 4,
        }
    }
}

impl Config {
    /// The acceptance run without exhaustive enumeration, shrinking, nor saving (fast;
    /// for benchmarks and control strategies).
    pub fn acceptance_only() -> Config {
        Config {
            shrink: false,
            save_to: None,
            exhaustive: 0,
            ..Config::default()
        }
    }
}

/// Per-class results of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassStats {
    /// Episodes run (first pass of every seed).
    pub episodes: u64,
    /// Episodes whose dangerous window was hit.
    pub hits: u64,
    /// Episodes with at least one violation.
    pub violating: u64,
    /// Violations per invariant: I1, I2, I4.
    pub by_invariant: [u64; 3],
    /// Final answers: completed, not completed, unknown.
    pub answers: [u64; 3],
}

/// The verdict of a run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The tool.
    pub tool: String,
    /// Seeds run.
    pub seeds: Vec<u64>,
    /// Per class, in the configured order.
    pub classes: Vec<(FaultClass, ClassStats)>,
    /// I3: each seed's second run produced byte-identical logs.
    pub replay_identical: bool,
    /// Bytes of JSON Lines compared for I3.
    pub log_bytes: u64,
    /// Exhaustive enumeration: schedules run, and how many violated.
    pub exhaustive: (u64, u64),
    /// Shrunk counterexamples (the first of each failing class, and of the enumeration).
    pub counterexamples: Vec<Counterexample>,
    /// Where counterexamples were saved.
    pub saved: Vec<PathBuf>,
    /// Whether wire redelivery was injected.
    pub wire_redelivery: bool,
}

impl Report {
    /// Episodes run (first passes).
    pub fn episodes(&self) -> u64 {
        self.classes.iter().map(|(_, s)| s.episodes).sum()
    }

    /// Violating episodes of `class`.
    pub fn violating(&self, class: FaultClass) -> u64 {
        self.classes
            .iter()
            .find(|(c, _)| *c == class)
            .map_or(0, |(_, s)| s.violating)
    }

    /// Stats of `class`.
    pub fn stats(&self, class: FaultClass) -> Option<&ClassStats> {
        self.classes
            .iter()
            .find(|(c, _)| *c == class)
            .map(|(_, s)| s)
    }

    /// Classes whose window was never hit.
    pub fn never_bit(&self) -> Vec<FaultClass> {
        self.classes
            .iter()
            .filter(|(_, s)| s.episodes > 0 && s.hits == 0)
            .map(|(c, _)| *c)
            .collect()
    }

    /// Zero violations, every class bit, I3 identical.
    pub fn is_proven(&self) -> bool {
        self.replay_identical
            && self.never_bit().is_empty()
            && self.classes.iter().all(|(_, s)| s.violating == 0)
            && self.exhaustive.1 == 0
    }

    /// Panic with the table and every counterexample's timeline unless proven.
    #[track_caller]
    pub fn assert_proven(&self) {
        if !self.is_proven() {
            let mut msg = format!("{self}");
            for c in &self.counterexamples {
                msg.push('\n');
                msg.push_str(&c.timeline());
            }
            panic!("{msg}");
        }
    }
}

impl Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "idemcheck simulator: {} — {} episodes ({} classes x {} seeds), each seed run twice",
            self.tool,
            self.episodes(),
            self.classes.len(),
            self.seeds.len()
        )?;
        writeln!(
            f,
            "  {:<18} {:>8} {:>12} {:>5} {:>5} {:>5} {:>10} {:>9} {:>8}",
            "class", "episodes", "window hit", "I1", "I2", "I4", "completed", "not done", "unknown"
        )?;
        for (class, s) in &self.classes {
            writeln!(
                f,
                "  {:<18} {:>8} {:>12} {:>5} {:>5} {:>5} {:>10} {:>9} {:>8}{}",
                class.as_str(),
                s.episodes,
                s.hits,
                s.by_invariant[0],
                s.by_invariant[1],
                s.by_invariant[2],
                s.answers[0],
                s.answers[1],
                s.answers[2],
                if s.episodes > 0 && s.hits == 0 {
                    "  <- NEVER BIT"
                } else {
                    ""
                }
            )?;
        }
        if !self.wire_redelivery {
            writeln!(
                f,
                "  (wire redelivery not injected: without server_dedup no client-side protocol can deduplicate a request the wire delivers twice)"
            )?;
        }
        writeln!(
            f,
            "  I3 determinism: {} ({} bytes of event log compared)",
            if self.replay_identical {
                "identical"
            } else {
                "LOGS DIFFER"
            },
            self.log_bytes
        )?;
        if self.exhaustive.0 > 0 {
            writeln!(
                f,
                "  exhaustive: {} small schedules, {} violating",
                self.exhaustive.0, self.exhaustive.1
            )?;
        }
        for p in &self.saved {
            writeln!(f, "  counterexample saved: {}", p.display())?;
        }
        write!(
            f,
            "  verdict: {}",
            if self.is_proven() {
                "PROVEN (zero I1/I2/I4 violations, every class bit, replay identical)"
            } else {
                "FAILED"
            }
        )
    }
}

/// A failing episode, shrunk, ready to paste into a bug report and to replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterexample {
    /// Tool name.
    pub tool: String,
    /// The class being run when it was found (`None`: exhaustive enumeration).
    pub class: Option<FaultClass>,
    /// Seed.
    pub seed: u64,
    /// Episode number (it selects the arguments).
    pub episode: u64,
    /// Faults before shrinking.
    pub original_faults: usize,
    /// The shrunk schedule.
    pub schedule: Schedule,
    /// What broke.
    pub violations: Vec<Violation>,
    /// The event log of the shrunk schedule, one object per event.
    pub events: Vec<serde_json::Value>,
}

impl Counterexample {
    /// Read a saved counterexample.
    pub fn load(path: impl AsRef<Path>) -> std::io::Result<Counterexample> {
        let text = std::fs::read_to_string(path)?;
        serde_json::from_str(&text).map_err(std::io::Error::other)
    }

    /// Save as pretty JSON in `dir`; returns the file.
    pub fn save(&self, dir: impl AsRef<Path>) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir.as_ref())?;
        let class = self.class.map_or("exhaustive", FaultClass::as_str);
        let path = dir.as_ref().join(format!(
            "{}-{}-seed{}-ep{}.json",
            self.tool, class, self.seed, self.episode
        ));
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&path, text + "\n")?;
        Ok(path)
    }

    /// The readable timeline.
    pub fn timeline(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "counterexample: {} under {} (seed {}, episode {}), shrunk from {} to {} fault(s)",
            self.tool,
            self.class
                .map_or("an enumerated schedule", FaultClass::as_str),
            self.seed,
            self.episode,
            self.original_faults,
            self.schedule.faults.len()
        );
        let _ = writeln!(out, "schedule: {}", self.schedule);
        for v in &self.events {
            let line = event_from_json(v).map_or_else(|| v.to_string(), |e| e.describe());
            let _ = writeln!(out, "  {line}");
        }
        for v in &self.violations {
            let _ = writeln!(out, "VIOLATION {v}");
        }
        out
    }
}

/// Rebuild an event from its JSON line (for timelines of saved counterexamples).
fn event_from_json(v: &serde_json::Value) -> Option<Event> {
    let t = v.get("t")?.as_u64()?;
    let n = |k: &str| v.get(k).and_then(|x| x.as_u64());
    let u = |k: &str| n(k).map(|x| x as u32);
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let leak = |k: &str| -> &'static str {
        // Only the fixed vocabularies of the simulator appear here; intern them.
        const WORDS: &[&str] = &[
            "begin",
            "take_over",
            "resolve",
            "release",
            "DECLARED (claimed)",
            "found a record with another fingerprint",
            "found DECLARED",
            "found COMMITTED",
            "found FAILED",
            "found UNKNOWN",
            "DECLARED (taken over)",
            "refused",
            "COMMITTED",
            "FAILED",
            "UNKNOWN",
            "released",
            "fenced",
            "unavailable",
            "corrupt",
            "not found",
            "completed",
            "not_completed",
            "unknown",
            "stuck",
            super::net::KEY_REUSED,
            "invalid parameters (not stored)",
        ];
        let text = v.get(k).and_then(|x| x.as_str()).unwrap_or("");
        WORDS.iter().find(|w| **w == text).copied().unwrap_or("?")
    };
    let kind = match v.get("ev")?.as_str()? {
        "call" => EventKind::Call {
            call: u("call")?,
            pid: u("pid")?,
            variant: u("variant")?,
        },
        "dispatch" => EventKind::Dispatch {
            req: u("req")?,
            pid: u("pid")?,
            intent: s("intent")?.into(),
            key: s("key").map(Into::into),
        },
        "effect" => EventKind::Effect {
            req: u("req")?,
            effect: n("effect")?,
            late: v.get("late")?.as_bool()?,
        },
        "replay" => EventKind::Replay {
            req: u("req")?,
            effect: n("effect")?,
        },
        "refused" => EventKind::Refused {
            req: u("req")?,
            reason: leak("reason"),
        },
        "ack" => EventKind::Ack { req: u("req")? },
        "ack_lost" => EventKind::AckLost { req: u("req")? },
        "dropped" => EventKind::Dropped { req: u("req")? },
        "timeout" => EventKind::Timeout { req: u("req")? },
        "abandoned" => EventKind::Abandoned { req: u("req")? },
        "held" => EventKind::Held {
            req: u("req")?,
            until: n("until")?,
        },
        "crash" => EventKind::Crash { pid: u("pid")? },
        "ledger" => EventKind::Ledger {
            pid: u("pid")?,
            op: leak("op"),
            result: leak("result"),
        },
        "read" => EventKind::Read {
            pid: u("pid")?,
            intent: s("intent")?.into(),
            found: n("found"),
        },
        "report" => EventKind::Report {
            call: u("call")?,
            status: leak("status"),
            detail: s("detail")?,
        },
        _ => return None,
    };
    Some(Event { t, kind })
}

/// The outcome of replaying a saved counterexample.
#[derive(Debug)]
pub struct Replayed {
    /// The counterexample as saved.
    pub saved: Counterexample,
    /// The episode as run now.
    pub now: Episode,
}

impl Replayed {
    /// The same violations and the byte-identical log as when it was saved (for
    /// counterexamples of control strategies, which must keep failing).
    #[track_caller]
    pub fn assert_reproduces(&self) {
        let events: Vec<serde_json::Value> = jsonl_values(&self.now.events);
        assert_eq!(
            self.now.violations,
            self.saved.violations,
            "replay of {} broke other invariants:\n{}",
            self.saved.tool,
            self.saved.timeline()
        );
        assert!(
            events == self.saved.events,
            "replay of {} gave another event log",
            self.saved.tool
        );
    }

    /// No violation any more (a fixed bug stays fixed).
    #[track_caller]
    pub fn assert_fixed(&self) {
        assert!(
            self.now.violations.is_empty(),
            "counterexample still fails:\n{}",
            self.saved.timeline()
        );
    }
}

fn jsonl_values(events: &[Event]) -> Vec<serde_json::Value> {
    let mut line = String::new();
    events
        .iter()
        .map(|e| {
            line.clear();
            e.write_jsonl(&mut line);
            serde_json::from_str(line.trim_end()).unwrap_or(serde_json::Value::Null)
        })
        .collect()
}

fn stream(class: FaultClass, i: u64) -> u64 {
    ((class as u64) << 32) | i
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
    /// DESIGN's acceptance run ([`Config::default`]); panics with the table and shrunk
    /// counterexamples unless every invariant held and every class bit.
    #[track_caller]
    pub fn prove(&self) -> Report {
        let report = self.check(&Config::default());
        report.assert_proven();
        report
    }

    /// Run `config` and report (never panics).
    pub fn check(&self, config: &Config) -> Report {
        let env = config
            .env
            .unwrap_or_else(|| Env::for_contract(&self.contract));
        let mut classes: Vec<(FaultClass, ClassStats)> = config
            .classes
            .iter()
            .map(|c| (*c, ClassStats::default()))
            .collect();
        let mut first_failure: Vec<Option<(u64, u64, Schedule)>> = vec![None; classes.len()];
        let mut identical = true;
        let mut log_bytes = 0u64;
        let mut first = String::new();
        let mut second = String::new();
        for &seed in &config.seeds {
            for pass in 0..2 {
                let buf = if pass == 0 { &mut first } else { &mut second };
                buf.clear();
                for (ci, (class, stats)) in classes.iter_mut().enumerate() {
                    for i in 0..config.episodes {
                        let mut rng = SplitMix64::derive(seed, stream(*class, i));
                        let schedule = env.draw(*class, &mut rng);
                        let mut ep = self.episode(&env, i, &schedule);
                        for e in &ep.events {
                            e.write_jsonl(buf);
                        }
                        super::net::recycle_log(std::mem::take(&mut ep.events));
                        let _ = writeln!(
                            buf,
                            "{{\"verdict\":{},\"effects\":[{},{}]}}",
                            ep.violations.len(),
                            ep.effects[0],
                            ep.effects[1]
                        );
                        if pass == 1 {
                            continue;
                        }
                        stats.episodes += 1;
                        if ep.hit(*class) {
                            stats.hits += 1;
                        }
                        match ep.final_status() {
                            "completed" => stats.answers[0] += 1,
                            "not_completed" => stats.answers[1] += 1,
                            _ => stats.answers[2] += 1,
                        }
                        if !ep.violations.is_empty() {
                            stats.violating += 1;
                            for v in &ep.violations {
                                match v.invariant {
                                    Invariant::I1AtMostOnce => stats.by_invariant[0] += 1,
                                    Invariant::I2AtLeastOnce => stats.by_invariant[1] += 1,
                                    _ => stats.by_invariant[2] += 1,
                                }
                            }
                            if first_failure[ci].is_none() {
                                first_failure[ci] = Some((seed, i, schedule));
                            }
                        }
                    }
                }
            }
            log_bytes += first.len() as u64;
            if first != second {
                identical = false;
            }
        }
        let mut counterexamples = Vec::new();
        for ((class, _), failure) in classes.iter().zip(first_failure) {
            if let Some((seed, i, schedule)) = failure {
                counterexamples.push(self.counterexample(
                    &env,
                    Some(*class),
                    seed,
                    i,
                    schedule,
                    config.shrink,
                ));
            }
        }
        let mut exhaustive = (0, 0);
        if config.exhaustive > 0 {
            let (n, bad, first_bad) = self.enumerate(&env, config.exhaustive);
            exhaustive = (n, bad);
            if let Some(s) = first_bad {
                counterexamples.push(self.counterexample(&env, None, 0, 0, s, config.shrink));
            }
        }
        let mut saved = Vec::new();
        if let Some(dir) = &config.save_to {
            for c in &counterexamples {
                if let Ok(p) = c.save(dir) {
                    saved.push(p);
                }
            }
        }
        Report {
            tool: self.contract.name.to_string(),
            seeds: config.seeds.clone(),
            classes,
            replay_identical: identical,
            log_bytes,
            exhaustive,
            counterexamples,
            saved,
            wire_redelivery: env.wire_redelivery,
        }
    }

    /// Run every schedule of up to `max_faults` faults from the environment's alphabet
    /// (at most one wire fault per request). Returns (schedules, violating, first one).
    pub fn enumerate(&self, env: &Env, max_faults: usize) -> (u64, u64, Option<Schedule>) {
        let alphabet = env.alphabet();
        let mut n = 0u64;
        let mut bad = 0u64;
        let mut first = None;
        let mut pick: Vec<usize> = Vec::new();
        // Combinations in lexicographic order, sizes 0..=max_faults.
        fn rec(
            start: usize,
            left: usize,
            alphabet: &[Fault],
            pick: &mut Vec<usize>,
            visit: &mut dyn FnMut(&[usize]),
        ) {
            visit(pick);
            if left == 0 {
                return;
            }
            for i in start..alphabet.len() {
                let req = alphabet[i].request();
                if req.is_some() && pick.iter().any(|&j| alphabet[j].request() == req) {
                    continue;
                }
                pick.push(i);
                rec(i + 1, left - 1, alphabet, pick, visit);
                pick.pop();
            }
        }
        rec(0, max_faults, &alphabet, &mut pick, &mut |p: &[usize]| {
            let schedule = Schedule {
                faults: p.iter().map(|&i| alphabet[i]).collect(),
            };
            let ep = self.episode(env, 0, &schedule);
            n += 1;
            if !ep.violations.is_empty() {
                bad += 1;
                if first.is_none() {
                    first = Some(schedule);
                }
            }
        });
        (n, bad, first)
    }

    fn counterexample(
        &self,
        env: &Env,
        class: Option<FaultClass>,
        seed: u64,
        episode: u64,
        schedule: Schedule,
        shrink: bool,
    ) -> Counterexample {
        let original_faults = schedule.faults.len();
        let schedule = if shrink {
            self.shrink(env, episode, schedule)
        } else {
            schedule
        };
        let ep = self.episode(env, episode, &schedule);
        Counterexample {
            tool: self.contract.name.to_string(),
            class,
            seed,
            episode,
            original_faults,
            schedule,
            violations: ep.violations,
            events: jsonl_values(&ep.events),
        }
    }

    /// Shrink a failing schedule: drop faults, then simplify the rest (earlier requests,
    /// shorter delays, earlier instants), while it still breaks one of the same
    /// invariants; then prefer the shortest event log.
    pub fn shrink(&self, env: &Env, episode: u64, schedule: Schedule) -> Schedule {
        let first = self.episode(env, episode, &schedule);
        let wanted: Vec<Invariant> = first.violations.iter().map(|v| v.invariant).collect();
        if wanted.is_empty() {
            return schedule;
        }
        let fails = |s: &Schedule| -> Option<usize> {
            let ep = self.episode(env, episode, s);
            ep.violations
                .iter()
                .any(|v| wanted.contains(&v.invariant))
                .then_some(ep.events.len())
        };
        let mut best = schedule;
        let mut best_len = first.events.len();
        for _ in 0..256 {
            let mut improved = false;
            for i in 0..best.faults.len() {
                let mut c = best.clone();
                c.faults.remove(i);
                if let Some(len) = fails(&c) {
                    best = c;
                    best_len = len;
                    improved = true;
                    break;
                }
            }
            if !improved {
                'outer: for i in 0..best.faults.len() {
                    for simpler in best.faults[i].simpler() {
                        let mut c = best.clone();
                        c.faults[i] = simpler;
                        if let Some(len) = fails(&c)
                            && len <= best_len
                        {
                            best = c;
                            best_len = len;
                            improved = true;
                            break 'outer;
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
        best
    }

    /// Replay a saved counterexample.
    pub fn replay(&self, saved: &Counterexample) -> Replayed {
        let env = Env::for_contract(&self.contract);
        let now = self.episode(&env, saved.episode, &saved.schedule);
        Replayed {
            saved: saved.clone(),
            now,
        }
    }

    /// Replay the counterexample saved at `path` (panics if it cannot be read).
    #[track_caller]
    pub fn replay_file(&self, path: impl AsRef<Path>) -> Replayed {
        let path = path.as_ref();
        let saved = Counterexample::load(path)
            .unwrap_or_else(|e| panic!("cannot read counterexample {}: {e}", path.display()));
        self.replay(&saved)
    }

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
                                    status,
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
                        status: "stuck",
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

impl<FW, FI, FC, FE> fmt::Debug for Proof<FW, FI, FC, FE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proof")
            .field("tool", &self.contract.name)
            .finish_non_exhaustive()
    }
}
