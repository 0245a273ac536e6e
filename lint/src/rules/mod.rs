//! The lint's rules, one module per rule (clippy style). Each turns the facts of the
//! workspace ([`crate::index::Index`]) into located findings ([`Hit`]s). Rules decidable from
//! a `#[side_effect]` attribute are not re-implemented here: their findings were computed by
//! `idemcheck_spec::check::check_contract` in the per-file pass and are passed through by
//! [`contract`].

use std::collections::BTreeSet;

use idemcheck_spec::{RuleCode, Severity};

use crate::facts::{Loc, LocFinding};
use crate::index::Index;
use crate::judge::{ToolCx, WriteReason};
use crate::query::Query;

pub mod contract;
pub mod idem003_missing_retry_cap;
pub mod idem004_unstable_key;
pub mod idem006_verify_writes;
pub mod idem008_unguarded_retry;
pub mod idem010_unused_suppression;
pub mod idem012_unparsable_file;
pub mod idem013_tool_identity;

/// A finding at a place in a file, for a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Index of the file in [`Index::files`].
    pub file: usize,
    /// The finding.
    pub finding: LocFinding,
    /// Public name of the tool ("" outside any tool).
    pub tool: String,
    /// Rust path of the tool function (or of the function the finding is in).
    pub function: String,
}

impl ToolCx<'_> {
    /// A finding of a lint-side rule at `loc` in `file`, at the configured severity
    /// (`None` when the rule is off).
    pub fn hit(
        &self,
        file: usize,
        code: RuleCode,
        loc: Loc,
        message: String,
        help: impl Into<String>,
    ) -> Option<Hit> {
        let severity = self.config.severity(code)?;
        Some(Hit {
            file,
            finding: LocFinding {
                code,
                severity,
                loc,
                message,
                help: Some(help.into()),
                suppressed: None,
            },
            tool: self.tool.name.clone(),
            function: self.function.clone(),
        })
    }
}

/// The outcome of a run of the rules.
#[derive(Debug, Default)]
pub struct Outcome {
    /// All findings, suppressed ones included.
    pub hits: Vec<Hit>,
    /// Tools found.
    pub tools: u32,
    /// Of which write tools.
    pub write_tools: u32,
    /// Every tool with its judgement, with the index of its file.
    pub inventory: Vec<(usize, idemcheck_spec::ToolEntry)>,
}

/// Run every rule over the tools of the query.
pub fn run(query: &Query<'_>) -> Outcome {
    let index = query.index;
    let mut out = Outcome::default();
    let mut loop_seen: BTreeSet<(usize, Loc, RuleCode)> = BTreeSet::new();
    let mut claimed_comments: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut http_write_crates: BTreeSet<usize> = BTreeSet::new();
    let mut identities = idem013_tool_identity::Identities::default();
    for (fi, file) in index.files.iter().enumerate() {
        out.hits.extend(idem012_unparsable_file::check(fi, file));
        for view in query.tools_of(fi) {
            let cx = &view.cx;
            identities.note(index, cx);
            out.inventory.push((fi, view.entry.clone()));
            out.tools += 1;
            if cx.write.is_some() {
                out.write_tools += 1;
                if view
                    .strong_write
                    .as_ref()
                    .is_some_and(|w| w.evidence.kind == crate::facts::EvidenceKind::Http)
                {
                    http_write_crates.insert(file.krate);
                }
            }
            let mut hits = contract::check(index, cx);
            hits.extend(idem006_verify_writes::check(index, view));
            hits.extend(idem004_unstable_key::check(index, view));
            for h in idem008_unguarded_retry::check(index, cx)
                .into_iter()
                .chain(idem003_missing_retry_cap::check(index, cx))
            {
                if loop_seen.insert((h.file, h.finding.loc, h.finding.code)) {
                    hits.push(h);
                }
            }
            for c in &cx.tool.comment_allows {
                claimed_comments.insert((fi, *c));
            }
            idem010_unused_suppression::apply(index, cx, &mut hits);
            out.hits.extend(hits);
        }
    }
    out.hits.extend(idem008_unguarded_retry::middleware(
        index,
        query.configs,
        &http_write_crates,
    ));
    out.hits.extend(identities.findings(index));
    out.hits.extend(idem010_unused_suppression::unattached(
        index,
        query.configs,
        &claimed_comments,
    ));
    out
}

/// Sort hits by file, position, code, message and tool; drop exact duplicates.
pub fn sort_hits(index: &Index<'_>, hits: &mut Vec<Hit>) {
    let cmp = |a: &Hit, b: &Hit| {
        index.files[a.file]
            .rel
            .cmp(&index.files[b.file].rel)
            .then(a.finding.loc.cmp(&b.finding.loc))
            .then(a.finding.code.cmp(&b.finding.code))
            .then(a.finding.message.cmp(&b.finding.message))
            .then(a.tool.cmp(&b.tool))
    };
    hits.sort_by(cmp);
    hits.dedup_by(|a, b| cmp(a, b) == std::cmp::Ordering::Equal);
}

/// Severity counts helper.
pub fn counts(hits: &[Hit]) -> (u32, u32, u32, u32) {
    let (mut e, mut w, mut n, mut s) = (0, 0, 0, 0);
    for h in hits {
        if h.finding.suppressed.is_some() {
            s += 1;
            continue;
        }
        match h.finding.severity {
            Severity::Error => e += 1,
            Severity::Warning => w += 1,
            Severity::Note => n += 1,
        }
    }
    (e, w, n, s)
}

/// Count tools and write tools in the files `keep` accepts.
pub fn run_counts(query: &Query<'_>, keep: impl Fn(usize) -> bool) -> (u32, u32) {
    let views = query.tools.iter().filter(|v| keep(v.cx.file));
    views.fold((0, 0), |(tools, writes), v| {
        (tools + 1, writes + u32::from(v.cx.write.is_some()))
    })
}
