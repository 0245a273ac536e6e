//! The tool contract as data: what `#[side_effect(...)]` declares, what the lint
//! infers, what `cargo idemcheck docs --format json` emits and what the runtime obeys.
//!
//! Everything here derives `serde`, and `schemars::JsonSchema` with the `schema` feature;
//! `specs/tool-contract.schema.json` is generated from [`ToolContract`].

use serde::{Deserialize, Serialize};

/// Default time, in hours, a ledger keeps the record of a logical operation (as Stripe).
pub const DEFAULT_TTL_HOURS: u32 = 24;

/// The retry cap the lint and the macro accept without complaint (`IDEM005`), unless
/// configuration raises it. One retry per logical operation is the study's setting.
pub const DEFAULT_MAX_RETRY_CAP: u32 = 1;

/// Whether a tool only reads or also changes the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// Only reads; needs no contract and may be retried freely.
    Read,
    /// Charges, sends, creates, deletes, deploys: needs a key, a postcondition and a cap.
    Write,
}

impl ToolKind {
    /// `"read"` or `"write"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Write => "write",
        }
    }
}

/// How the stable key of a logical operation is derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyDerivation {
    /// `key = [a, b.c]`: scope + tool name + canonical JSON of these input fields.
    Fields {
        /// Field paths as written, e.g. `customer` or `args.order.id`.
        fields: Vec<String>,
    },
    /// `key_fn = path`: scope + tool name + canonical JSON of what the function returns.
    Function {
        /// The function's path as written.
        path: String,
    },
}

/// A part of the calling context a `key_fn` may read besides the arguments, declared with
/// `key_context = [..]`. Only the run scope is the same for every retry, restart and worker
/// of an operation: a key that reads the clock or the worker is unstable (`IDEM004`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContextPart {
    /// The run scope (run and step ids, set by the agent harness): stable.
    Scope,
    /// The clock's current time: changes between a call and its retry.
    Clock,
    /// The worker's (process's) identity: changes with a restart or another worker.
    Worker,
}

impl ContextPart {
    /// Every part.
    pub const ALL: [ContextPart; 3] = [ContextPart::Scope, ContextPart::Clock, ContextPart::Worker];

    /// `scope`, `clock`, `worker`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextPart::Scope => "scope",
            ContextPart::Clock => "clock",
            ContextPart::Worker => "worker",
        }
    }

    /// The part named `name`.
    pub fn parse(name: &str) -> Option<ContextPart> {
        ContextPart::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// A suppression written as `allow(rule, ..., reason = "...")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Suppression {
    /// The rule codes it silences.
    pub rules: Vec<RuleCode>,
    /// Why: required, so reviewers can judge it.
    pub reason: String,
}

/// The contract of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolContract {
    /// Public tool name, the one the agent sees.
    pub name: String,
    /// Rust path of the function, e.g. `billing::create_charge` or `BillingServer::create_charge`.
    pub function: String,
    /// Read or write.
    pub kind: ToolKind,
    /// Key derivation; `None` means the tool has no stable key.
    pub key: Option<KeyDerivation>,
    /// What of the calling context the `key_fn` reads (`key_context = [..]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_context: Vec<ContextPart>,
    /// Path of the postcondition read; `None` means none is declared.
    pub verify: Option<String>,
    /// `verify = none`: the contract says the system cannot be read back (no postcondition,
    /// a documented choice rather than a missing one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_postcondition: bool,
    /// Retry cap per logical operation; `None` means no cap is declared.
    pub max_retries: Option<u32>,
    /// Per-attempt timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Longest time a dispatched request can stay in flight, in milliseconds.
    pub settle_ms: Option<u64>,
    /// How long the ledger keeps the record, in hours.
    pub ttl_hours: u32,
    /// Whether the downstream API deduplicates on the key (it is passed through).
    pub server_dedup: bool,
    /// Suppressions written on the contract.
    pub suppressions: Vec<Suppression>,
}

impl ToolContract {
    /// A write tool with nothing declared: the starting point for inference.
    pub fn bare(name: impl Into<String>, function: impl Into<String>, kind: ToolKind) -> Self {
        ToolContract {
            name: name.into(),
            function: function.into(),
            kind,
            key: None,
            key_context: Vec::new(),
            verify: None,
            no_postcondition: false,
            max_retries: None,
            timeout_ms: None,
            settle_ms: None,
            ttl_hours: DEFAULT_TTL_HOURS,
            server_dedup: false,
            suppressions: Vec::new(),
        }
    }

    /// A write tool whose key, postcondition (or `verify = none`) and cap are all declared.
    pub fn is_complete(&self) -> bool {
        self.kind == ToolKind::Read
            || (self.key.is_some()
                && (self.verify.is_some() || self.no_postcondition)
                && self.max_retries.is_some())
    }
}

/// A stable rule code. Codes are never renumbered; new rules get new codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum RuleCode {
    /// `missing_key`
    #[serde(rename = "IDEM001")]
    Idem001,
    /// `missing_verify`
    #[serde(rename = "IDEM002")]
    Idem002,
    /// `missing_retry_cap`
    #[serde(rename = "IDEM003")]
    Idem003,
    /// `unstable_key`
    #[serde(rename = "IDEM004")]
    Idem004,
    /// `retry_cap_too_high`
    #[serde(rename = "IDEM005")]
    Idem005,
    /// `verify_writes`
    #[serde(rename = "IDEM006")]
    Idem006,
    /// `annotation_mismatch`
    #[serde(rename = "IDEM007")]
    Idem007,
    /// `unguarded_retry`
    #[serde(rename = "IDEM008")]
    Idem008,
    /// `unbounded_in_flight`
    #[serde(rename = "IDEM009")]
    Idem009,
    /// `unused_suppression`
    #[serde(rename = "IDEM010")]
    Idem010,
    /// `malformed_contract`
    #[serde(rename = "IDEM011")]
    Idem011,
    /// `unparsable_file`
    #[serde(rename = "IDEM012")]
    Idem012,
    /// `tool_identity`
    #[serde(rename = "IDEM013")]
    Idem013,
}

impl RuleCode {
    /// Every code, in order.
    pub const ALL: [RuleCode; 13] = [
        RuleCode::Idem001,
        RuleCode::Idem002,
        RuleCode::Idem003,
        RuleCode::Idem004,
        RuleCode::Idem005,
        RuleCode::Idem006,
        RuleCode::Idem007,
        RuleCode::Idem008,
        RuleCode::Idem009,
        RuleCode::Idem010,
        RuleCode::Idem011,
        RuleCode::Idem012,
        RuleCode::Idem013,
    ];

    /// The code as written in diagnostics, e.g. `"IDEM001"`.
    pub fn as_str(self) -> &'static str {
        crate::rules::info(self).code
    }

    /// The rule's name, e.g. `"missing_key"`.
    pub fn name(self) -> &'static str {
        crate::rules::info(self).name
    }

    /// Look a rule up by code (`IDEM001`, case-insensitive) or by name (`missing_key`).
    pub fn parse(text: &str) -> Option<RuleCode> {
        RuleCode::ALL
            .into_iter()
            .find(|code| code.as_str().eq_ignore_ascii_case(text) || code.name() == text)
    }
}

impl std::fmt::Display for RuleCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How loud a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Reported, never fails the run.
    Note,
    /// Reported, fails the run only when configured so.
    Warning,
    /// Fails the run (exit code 1) and the build (the macro).
    Error,
}

impl Severity {
    /// `"error"`, `"warning"` or `"note"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding of `cargo idemcheck`, as it appears in `--message-format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// Stable rule code, e.g. `IDEM001`.
    pub code: RuleCode,
    /// Rule name, e.g. `missing_key`.
    pub rule: String,
    /// Severity after configuration.
    pub severity: Severity,
    /// Public tool name the agent sees; empty for findings outside any tool.
    pub tool: String,
    /// Rust path of the tool function, e.g. `BillingServer::create_charge`.
    pub function: String,
    /// File, relative to the workspace root, with `/` separators.
    pub file: String,
    /// 1-based line of the primary span.
    pub line: u32,
    /// 1-based column (in characters) of the primary span.
    pub column: u32,
    /// 1-based line where the primary span ends.
    pub end_line: u32,
    /// 1-based column where the primary span ends (exclusive).
    pub end_column: u32,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// Present when an `allow(...)` silenced the finding: the reason given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<String>,
}

/// Totals of a report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Summary {
    /// Files parsed.
    pub files: u32,
    /// Files read but not parsed: no file of their package holds a tool marker, and no
    /// package with one depends on it (`cargo idemcheck --all-files` parses them too).
    #[serde(default)]
    pub skipped_files: u32,
    /// Tool definitions found.
    pub tools: u32,
    /// Of which write tools.
    pub write_tools: u32,
    /// Unsuppressed error findings.
    pub errors: u32,
    /// Unsuppressed warning findings.
    pub warnings: u32,
    /// Unsuppressed notes.
    pub notes: u32,
    /// Suppressed findings.
    pub suppressed: u32,
}

/// The document printed by `cargo idemcheck --message-format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// Format version; bumped only on incompatible change.
    pub version: u32,
    /// Findings, sorted by file, line, column, code.
    pub findings: Vec<Finding>,
    /// Totals.
    pub summary: Summary,
    /// Every tool found, with how it was judged, sorted by file, line and name.
    #[serde(default)]
    pub tools: Vec<ToolEntry>,
}

/// How the lint judged what a tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Judgement {
    /// It writes: declared so, or a path from its body reaches a write.
    Write,
    /// Every effect found only reads, or it is declared read-only and nothing contradicts it.
    Read,
    /// The code shows nothing either way (no write, no read evidence): MCP's default
    /// assumption is that such a tool may write.
    Unknown,
}

/// One tool in the report's inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolEntry {
    /// Public tool name the agent sees.
    pub name: String,
    /// Rust path of the tool function.
    pub function: String,
    /// File of the definition, relative to the workspace root.
    pub file: String,
    /// 1-based line of the definition.
    pub line: u32,
    /// How the tool is defined (`side_effect`, `rmcp`, `rig`, ...).
    pub style: String,
    /// The judgement.
    pub kind: Judgement,
    /// Why: the write found (with its call chain), or the read evidence, or what was missing.
    pub evidence: String,
}
