//! The property harness: drive a guarded tool through fault episodes, check I1–I4 on every
//! one, report per fault class how often the dangerous window was really hit, shrink and
//! save counterexamples.

//!
//! - [`proof`]: [`Proof`] and how much to run ([`Config`]); the run over seeds and classes,
//!   and the exhaustive enumeration;
//! - [`answer`]: what a call told the agent ([`CallAnswer`]), and the `call` hook of a
//!   method guarded in place ([`in_place`]);
//! - [`env`]: the simulated environment ([`Env`]) and the fault schedules drawn from it;
//! - [`episode`]: one episode, a pure function of environment, episode number and schedule;
//! - [`shrink`]: shrinking a failing schedule;
//! - [`report`]: per-class statistics and the proof table;
//! - [`counterexample`]: saved counterexamples, their timelines and replays.

use std::fmt::{self, Display, Write as _};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use serde::{Deserialize, Serialize};

use super::fault::{DAY_MS, Fault, FaultClass, HOUR_MS, LedgerOp, MINUTE_MS, Schedule, secs};
use super::ledger::SimLedger;
use super::rng::SplitMix64;
use crate::clock::{Clock, Sleep, Timestamp, VirtualClock};
use crate::context::Context;
use crate::contract::Contract;
use crate::key::Scope;
use crate::ledger::MemoryLedger;
use crate::outcome::{Escalation, Outcome};
use crate::sim::event::{Event, EventKind};
use crate::sim::net::{Net, NetConfig};

mod answer;
mod counterexample;
mod env;
mod episode;
mod proof;
mod report;
mod shrink;

pub use answer::{CallAnswer, Told, in_place};
pub use counterexample::{Counterexample, Replayed};
pub use env::Env;
pub use episode::{CallReport, Episode, LOOKALIKE_EPISODE, SIBLING_EPISODE, variant};
pub use proof::{Config, Proof};
pub use report::{ClassStats, CoverageRow, Report};

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
    /// No request reaches the system of record unless the process sending it holds a live
    /// claim on the operation's key (fail closed on ledger errors; fencing holds when a
    /// lease runs out under a stalled owner).
    #[serde(rename = "I5")]
    I5ClaimBeforeEffect,
}

impl Invariant {
    /// `I1 at-most-once`, ...
    pub fn title(self) -> &'static str {
        match self {
            Invariant::I1AtMostOnce => "I1 at-most-once",
            Invariant::I2AtLeastOnce => "I2 at-least-once",
            Invariant::I3Determinism => "I3 determinism",
            Invariant::I4NoOrphanIntent => "I4 no orphan intent",
            Invariant::I5ClaimBeforeEffect => "I5 claim before effect",
        }
    }

    /// `I1`, `I2`, ...
    pub fn code(self) -> &'static str {
        match self {
            Invariant::I1AtMostOnce => "I1",
            Invariant::I2AtLeastOnce => "I2",
            Invariant::I3Determinism => "I3",
            Invariant::I4NoOrphanIntent => "I4",
            Invariant::I5ClaimBeforeEffect => "I5",
        }
    }

    /// The invariants checked on every episode (I3 is checked across the two runs of
    /// every seed), in table order.
    pub const PER_EPISODE: [Invariant; 4] = [
        Invariant::I1AtMostOnce,
        Invariant::I2AtLeastOnce,
        Invariant::I4NoOrphanIntent,
        Invariant::I5ClaimBeforeEffect,
    ];

    /// Column of this invariant in per-episode counts (`None` for I3).
    pub(crate) fn column(self) -> Option<usize> {
        Invariant::PER_EPISODE.iter().position(|i| *i == self)
    }
}

impl FaultClass {
    /// The invariants a tool can break when this class's window is hit: what the coverage
    /// table counts. (I3, determinism, is exercised by every class: each seed runs twice.)
    pub fn exposes(self) -> &'static [Invariant] {
        use Invariant::*;
        match self {
            FaultClass::LostAck
            | FaultClass::LateCommit
            | FaultClass::Reorder
            | FaultClass::Crash
            | FaultClass::StaleRead => &[I1AtMostOnce, I2AtLeastOnce],
            FaultClass::Redelivery | FaultClass::DivergentPayload => {
                &[I1AtMostOnce, I2AtLeastOnce, I4NoOrphanIntent]
            }
            FaultClass::LostRequest | FaultClass::LookalikeRecords => {
                &[I2AtLeastOnce, I4NoOrphanIntent]
            }
            FaultClass::ErrorAfterEffect => &[I1AtMostOnce, I2AtLeastOnce],
            FaultClass::SlowSuccess => &[I1AtMostOnce, I2AtLeastOnce, I4NoOrphanIntent],
            FaultClass::ConcurrentCallers => &[I1AtMostOnce, I5ClaimBeforeEffect],
            FaultClass::LedgerFault => &[
                I1AtMostOnce,
                I2AtLeastOnce,
                I4NoOrphanIntent,
                I5ClaimBeforeEffect,
            ],
            FaultClass::SiblingOperations => &[I1AtMostOnce, I2AtLeastOnce, I4NoOrphanIntent],
            FaultClass::ClockPhase => &[I1AtMostOnce, I2AtLeastOnce],
            FaultClass::ReadFault => &[I1AtMostOnce, I2AtLeastOnce, I4NoOrphanIntent],
        }
    }
}

/// What a proof's `effects` hook answers: how many real effects carrying an operation's
/// arguments exist — of one kind (a `usize`), or per kind for an operation that makes
/// several, in the order it makes them (authorize, then charge):
/// `[("authorize", n), ("charge", m)]` or a `Vec` of such pairs. At most one effect of each
/// kind per operation (I1, per kind); "completed" only when every kind exists (I4, I2);
/// "not completed" only when the last kind — the one that completes the operation — does
/// not exist (I2). Earlier kinds may remain after "not completed": a later call under the
/// same key resumes the operation, and I1 holds per kind across every call.
pub trait EffectCounts {
    /// How many kinds.
    fn kinds(&self) -> usize;
    /// Kind `i` (`0..kinds()`): its name and count.
    fn kind(&self, i: usize) -> (&'static str, usize);
}

impl EffectCounts for usize {
    fn kinds(&self) -> usize {
        1
    }

    fn kind(&self, _: usize) -> (&'static str, usize) {
        ("effect", *self)
    }
}

impl<const N: usize> EffectCounts for [(&'static str, usize); N] {
    fn kinds(&self) -> usize {
        N
    }

    fn kind(&self, i: usize) -> (&'static str, usize) {
        self[i]
    }
}

impl EffectCounts for Vec<(&'static str, usize)> {
    fn kinds(&self) -> usize {
        self.len()
    }

    fn kind(&self, i: usize) -> (&'static str, usize) {
        self[i]
    }
}

/// The fewest effects of any kind: how many complete operations exist.
pub(crate) fn complete<C: EffectCounts>(c: &C) -> usize {
    (0..c.kinds()).map(|i| c.kind(i).1).min().unwrap_or(0)
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
