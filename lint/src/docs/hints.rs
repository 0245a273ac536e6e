//! MCP annotations from the contract: per MCP tool, the hints the code declares, the hints
//! its contract and code justify, and the difference.
//!
//! What is justified is rule `IDEM007`'s policy (`idemcheck_spec::rules::
//! idem007_annotation_mismatch::{justified_read_only, justified_idempotent}`), the same the
//! contract check applies:
//!
//! - `read_only_hint`: justified `true` exactly when the tool is a read tool (the same
//!   judgement as `check`'s inventory); a write tool may not claim it. For a tool judged
//!   unknown nothing is justified: the MCP default (`false`, a tool may write) stands, and the
//!   row asks for a declaration instead.
//! - `idempotent_hint`: for a write tool, justified `true` only with a key, a postcondition and
//!   a retry cap, and no open `IDEM001`/`IDEM004` finding (a key that is missing or unstable
//!   makes nothing idempotent); otherwise `false`. Left alone for other tools.
//! - `destructive_hint`, `open_world_hint`: what a write destroys, and whether the tool talks
//!   to the outside world, are not decided by the contract; they are shown, not judged.
//!
//! A hint that is not declared counts with the MCP default (`read_only_hint = false`,
//! `destructive_hint = true`, `idempotent_hint = false`, `open_world_hint = true`).

use idemcheck_spec::rules::idem007_annotation_mismatch::{self as idem007, Idempotence};
use idemcheck_spec::{Judgement, RuleCode};
use serde::Serialize;

use super::{ContractStatus, ToolDoc};

/// One hint of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HintCell {
    /// The hint, e.g. `read_only_hint`.
    pub hint: &'static str,
    /// The value written in the code (`None`: not declared).
    pub declared: Option<bool>,
    /// The value that counts: the declared one, else the MCP default.
    pub effective: bool,
    /// What the contract and code justify (`None`: they do not decide this hint).
    pub justified: Option<bool>,
}

/// How a declared hint compares with the justified one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// The declared hint promises more than the code keeps (clients would retry or skip
    /// confirmation wrongly): an `IDEM007` error.
    Contradiction,
    /// The tool may claim more than it declares.
    MayClaim,
    /// The lint cannot tell whether the tool writes: the tool should declare which it is
    /// (no hint is recommended).
    Undeclared,
}

/// A difference between declared and justified hints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HintDiff {
    /// The hint.
    pub hint: &'static str,
    /// Contradiction or an allowed stronger claim.
    pub kind: DiffKind,
    /// The value that counts now (declared, or the MCP default).
    pub effective: bool,
    /// What to write instead, e.g. `read_only_hint = false`.
    pub suggestion: String,
    /// Why.
    pub reason: String,
}

/// The hints of one MCP tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HintRow {
    /// Public tool name.
    pub tool: String,
    /// Rust path.
    pub function: String,
    /// File.
    pub file: String,
    /// Line of the tool's name.
    pub line: u32,
    /// Write, read or unknown.
    pub kind: Judgement,
    /// The four hints.
    pub hints: Vec<HintCell>,
    /// Differences (empty: the hints tell the truth).
    pub differences: Vec<HintDiff>,
}

/// The hints row of a documented tool, when it is an MCP tool.
pub fn row(doc: &ToolDoc) -> Option<HintRow> {
    if !doc.mcp {
        return None;
    }
    let declared = doc.declared_hints.unwrap_or_default();
    let write = doc.kind == Judgement::Write;
    let unknown = doc.kind == Judgement::Unknown;
    let open = |code: RuleCode| doc.findings.iter().any(|f| f.code == code);
    let idempotence = Idempotence {
        key: doc.has_contract && doc.contract.key.is_some() && !open(RuleCode::Idem001),
        key_stable: !open(RuleCode::Idem004),
        verify: doc.has_contract
            && (doc.contract.verify.is_some() || doc.contract.no_postcondition),
        retry_cap: doc.has_contract && doc.contract.max_retries.is_some(),
    };
    let cells = vec![
        HintCell {
            hint: "read_only_hint",
            declared: declared.read_only,
            effective: declared.read_only.unwrap_or(false),
            // Unknown: neither `true` (never recommend claiming a read) nor `false`.
            justified: idem007::justified_read_only(doc.kind),
        },
        HintCell {
            hint: "destructive_hint",
            declared: declared.destructive,
            effective: declared.destructive.unwrap_or(true),
            justified: None,
        },
        HintCell {
            hint: "idempotent_hint",
            declared: declared.idempotent,
            effective: declared.idempotent.unwrap_or(false),
            justified: idem007::justified_idempotent(write, idempotence),
        },
        HintCell {
            hint: "open_world_hint",
            declared: declared.open_world,
            effective: declared.open_world.unwrap_or(true),
            justified: None,
        },
    ];
    let mut differences = Vec::new();
    if unknown {
        differences.push(HintDiff {
            hint: "read_only_hint",
            kind: DiffKind::Undeclared,
            effective: declared.read_only.unwrap_or(false),
            suggestion: "#[side_effect(kind = \"read\")] or kind = \"write\"".into(),
            reason: "unknown: the lint found no write and no read, so the MCP default stands (a tool may write); declare which it is (`#[side_effect(kind = \"read\")]`, a `#[side_effect]` write contract, or the MCP hints)".into(),
        });
    }
    let first_write = doc
        .writes
        .iter()
        .find(|w| w.strong)
        .or(doc.writes.first())
        .map(|w| format!("{} ({}:{})", w.text, w.file, w.line));
    for cell in &cells {
        let Some(justified) = cell.justified else {
            continue;
        };
        if cell.effective == justified {
            continue;
        }
        let (kind, reason) = match (cell.hint, justified) {
            ("read_only_hint", false) => (
                DiffKind::Contradiction,
                match &first_write {
                    Some(w) => format!("it writes: {w}"),
                    None => format!("it is a write tool: {}", doc.kind_reason),
                },
            ),
            ("read_only_hint", true) => (
                DiffKind::MayClaim,
                "it only reads (no write found); clients may then call it without asking".into(),
            ),
            ("idempotent_hint", false) => (
                DiffKind::Contradiction,
                match doc.status() {
                    ContractStatus::None => "it has no contract (no key, no postcondition, no retry cap); a retry can repeat the effect".to_string(),
                    ContractStatus::Complete => "its key is missing or unstable (open IDEM001/IDEM004); a retry can repeat the effect".to_string(),
                    status => format!("its contract is {status}; a retry can repeat the effect"),
                },
            ),
            (_, _) => (
                DiffKind::MayClaim,
                "its contract is complete (key, postcondition, retry cap): a retry with the same arguments in the same run has no additional effect".into(),
            ),
        };
        differences.push(HintDiff {
            hint: cell.hint,
            kind,
            effective: cell.effective,
            suggestion: format!("{} = {justified}", cell.hint),
            reason,
        });
    }
    Some(HintRow {
        tool: doc.name.clone(),
        function: doc.function.clone(),
        file: doc.file.clone(),
        line: doc.line,
        kind: doc.kind,
        hints: cells,
        differences,
    })
}

impl HintCell {
    /// `true`, `false`, or `(default false)`.
    pub fn declared_text(&self) -> String {
        match self.declared {
            Some(v) => v.to_string(),
            None => format!("(default {})", self.effective),
        }
    }

    /// `true`, `false`, or `—` (not decided by the contract).
    pub fn justified_text(&self) -> String {
        match self.justified {
            Some(v) => v.to_string(),
            None => "—".into(),
        }
    }
}
