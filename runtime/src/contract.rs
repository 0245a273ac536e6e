//! The contract as the macro emits it: a `const` every guarded tool exposes, readable by the
//! docs generator and the property harness.

use std::time::Duration;

pub use idemcheck_spec::model::{
    ContextPart, KeyDerivation, RuleCode, Suppression, ToolContract, ToolKind,
};

/// Attempt budget assumed for a tool without `timeout_ms` when sizing its lease.
pub const DEFAULT_ATTEMPT_BUDGET: Duration = Duration::from_secs(60);

/// Time added to every lease for the ledger writes and the postcondition read.
pub const LEASE_SLACK: Duration = Duration::from_secs(5);

/// How the key is derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySpec {
    /// No key declared (only possible with a suppressed `IDEM001`, or for reads).
    None,
    /// `key = [..]`: these input fields.
    Fields(&'static [&'static str]),
    /// `key_fn = path`.
    Function(&'static str),
}

/// An `allow(...)` as compiled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticSuppression {
    /// Rule codes.
    pub rules: &'static [&'static str],
    /// The reason given.
    pub reason: &'static str,
}

/// A tool's contract, as a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contract {
    /// Public tool name (part of every key).
    pub name: &'static str,
    /// Rust path of the tool function.
    pub function: &'static str,
    /// Read or write.
    pub kind: ToolKind,
    /// Key derivation.
    pub key: KeySpec,
    /// Of the key's fields, those the caller chooses per operation (a `reference`, a request
    /// id: a new value names a new operation), as `idemcheck_spec::keys::is_caller_chosen`
    /// decided at compile time. The advice to the model names only these as changeable.
    pub chosen_key_fields: &'static [&'static str],
    /// What of the calling context a `key_fn` reads besides the arguments
    /// (`key_context = [scope, clock, worker]`; see [`crate::KeyContext`]).
    pub key_context: &'static [&'static str],
    /// Postcondition path.
    pub verify: Option<&'static str>,
    /// `verify = none`: the contract says the system cannot be read back. The runtime then
    /// never asks a postcondition: an interrupted call is Unknown (settled by an operator in
    /// the ledger), never executed again — unless `server_dedup`, when a retry or take-over
    /// with the same key is safe.
    pub no_postcondition: bool,
    /// Retry cap.
    pub max_retries: Option<u32>,
    /// Per-attempt timeout.
    pub timeout_ms: Option<u64>,
    /// In-flight bound after a dispatch.
    pub settle_ms: Option<u64>,
    /// Ledger retention.
    pub ttl_hours: u32,
    /// Whether the downstream API deduplicates on the key.
    pub server_dedup: bool,
    /// Suppressions.
    pub suppressions: &'static [StaticSuppression],
}

impl Contract {
    /// Retries allowed after the first attempt.
    pub fn retries(&self) -> u32 {
        self.max_retries.unwrap_or(0)
    }

    /// The per-attempt timeout, if declared.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_ms.map(Duration::from_millis)
    }

    /// The settle window, if declared.
    pub fn settle(&self) -> Option<Duration> {
        self.settle_ms.map(Duration::from_millis)
    }

    /// How long the ledger keeps a resolved record.
    pub fn ttl(&self) -> Duration {
        Duration::from_secs(u64::from(self.ttl_hours) * 3600)
    }

    /// Whether a postcondition's final "not done" may be reported as not completed: only a
    /// settle window bounds how late a dispatched request can still land. (`server_dedup`
    /// makes a *retry* safe — the downstream API deduplicates it against a late commit — but
    /// not a "not completed" answer: the late commit may still land, so without `settle_ms`
    /// the answer at the cap is Unknown. Found by the simulator, see
    /// `tests/sim/tests/counterexamples/create_charge-lost_ack-seed1-ep7.json`.)
    pub fn trusts_not_done(&self) -> bool {
        self.settle_ms.is_some()
    }

    /// The lease an owner takes: every allowed attempt with its timeout and settle window,
    /// plus [`LEASE_SLACK`]. Another worker takes a DECLARED record over only after it.
    pub fn lease(&self) -> Duration {
        let per_attempt = self.timeout().unwrap_or(DEFAULT_ATTEMPT_BUDGET)
            + self.settle().unwrap_or(Duration::ZERO);
        per_attempt * (self.retries() + 1) + LEASE_SLACK
    }

    /// The contract as data, in the shape of `specs/tool-contract.schema.json`.
    pub fn to_spec(&self) -> ToolContract {
        ToolContract {
            name: self.name.to_string(),
            function: self.function.to_string(),
            kind: self.kind,
            key: match self.key {
                KeySpec::None => None,
                KeySpec::Fields(f) => Some(KeyDerivation::Fields {
                    fields: f.iter().map(|s| s.to_string()).collect(),
                }),
                KeySpec::Function(p) => Some(KeyDerivation::Function {
                    path: p.to_string(),
                }),
            },
            key_context: self
                .key_context
                .iter()
                .filter_map(|p| ContextPart::parse(p))
                .collect(),
            verify: self.verify.map(str::to_string),
            no_postcondition: self.no_postcondition,
            max_retries: self.max_retries,
            timeout_ms: self.timeout_ms,
            settle_ms: self.settle_ms,
            ttl_hours: self.ttl_hours,
            server_dedup: self.server_dedup,
            suppressions: self
                .suppressions
                .iter()
                .map(|s| Suppression {
                    rules: s.rules.iter().filter_map(|r| RuleCode::parse(r)).collect(),
                    reason: s.reason.to_string(),
                })
                .collect(),
        }
    }
}

/// Implemented by the type `#[side_effect]` generates for a free-function tool.
pub trait GuardedTool {
    /// The tool's contract.
    const CONTRACT: Contract;
}
