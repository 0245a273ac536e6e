//! Adopting idemcheck in an existing codebase: the `check` options that let a team turn the
//! lint on today and block only new problems — `--write-baseline`, `--baseline`,
//! `--new-from-rev` — and the handling of the file list a pre-commit hook passes.

use std::io::Write;
use std::path::PathBuf;

use idemcheck_spec::Severity;

use crate::analysis::Analysis;
use crate::baseline::Baseline;
use crate::discover::Plan;
use crate::query::Query;
use crate::report::Format;

/// The adoption options of `cargo idemcheck [check]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AdoptArgs {
    /// Record every current finding in FILE (keyed by rule, file and tool, not by line) and
    /// exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Report only findings that FILE (written by --write-baseline) does not know; list its
    /// entries that no longer occur.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Report only findings in code (tools, helpers) that changed since the git revision REV.
    #[arg(long, value_name = "REV")]
    pub new_from_rev: Option<String>,
}

/// The paths worth checking among those given (a pre-commit hook passes the staged `.rs`
/// and `.toml` files): Rust files and directories as they are; a `Cargo.toml` or
/// `idemcheck.toml` stands for its directory, since configuration applies to every tool
/// there — and, at the root of a virtual workspace (no package there), for the whole
/// selection, as if no path were given (`Some(vec![])`); any other file (`rustfmt.toml`, ...)
/// is dropped. `None` when paths were given and none is left: there is nothing to check.
pub fn source_paths(paths: &[PathBuf]) -> Option<Vec<PathBuf>> {
    if paths.is_empty() {
        return Some(Vec::new());
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let kept = if name == "Cargo.toml" || name == "idemcheck.toml" {
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
            if manifest.contains("[workspace") && !manifest.contains("[package]") {
                return Some(Vec::new());
            }
            dir
        } else if name.ends_with(".toml") {
            continue;
        } else {
            p.clone()
        };
        if !out.contains(&kept) {
            out.push(kept);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// An analysis of nothing (every given path was dropped by [`source_paths`]).
pub fn empty_analysis() -> Analysis {
    Analysis {
        report: idemcheck_spec::Report {
            version: 1,
            findings: Vec::new(),
            summary: Default::default(),
            tools: Vec::new(),
        },
        root: std::env::current_dir().unwrap_or_default(),
        paths: Default::default(),
        sources: Default::default(),
        root_causes: Vec::new(),
    }
}

/// What [`apply`] decided.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Exit now with this code (`--write-baseline` done).
    pub exit: Option<i32>,
    /// Lines to print after the report (to stdout in the human and short formats, to stderr
    /// otherwise, so machine formats stay parseable).
    pub notes: String,
}

fn recount(report: &mut idemcheck_spec::Report) {
    let s = &mut report.summary;
    (s.errors, s.warnings, s.notes, s.suppressed) = (0, 0, 0, 0);
    for f in &report.findings {
        if f.suppressed.is_some() {
            s.suppressed += 1;
            continue;
        }
        match f.severity {
            Severity::Error => s.errors += 1,
            Severity::Warning => s.warnings += 1,
            Severity::Note => s.notes += 1,
        }
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Apply the adoption options to a finished analysis: write the baseline, or drop the
/// findings the baseline knows and those in unchanged code. `query` is over the collected
/// files of `plan`. An `Err` is a failure of the tool (exit code 2).
pub fn apply(
    args: &AdoptArgs,
    plan: &Plan,
    query: &Query<'_>,
    analysis: &mut Analysis,
) -> Result<Outcome, String> {
    let files = query.files();
    let mut out = Outcome::default();
    if let Some(path) = &args.write_baseline {
        if plan.only.is_some() {
            return Err(
                "--write-baseline records the whole selection: run it without file paths".into(),
            );
        }
        let b = Baseline::from_findings(&analysis.report.findings);
        b.write(path)?;
        let n: u32 = b.entries.iter().map(|e| e.count).sum();
        out.notes = format!(
            "idemcheck: wrote {} ({}) to {}\n",
            plural(n, "finding", "findings"),
            plural(b.entries.len() as u32, "entry", "entries"),
            path.display()
        );
        out.exit = Some(crate::cli::EXIT_OK);
        return Ok(out);
    }
    let root = plan.root.clone();
    if let Some(path) = &args.baseline {
        let b = Baseline::read(path)?;
        let scope = crate::discover::Scope::new(plan);
        let analyzed: std::collections::BTreeSet<&str> = files
            .iter()
            .filter(|f| scope.contains(&f.path))
            .map(|f| f.rel.as_str())
            .collect();
        let in_scope = |rel: &str| match &plan.only {
            Some(_) => scope.contains(&root.join(rel)),
            // A whole run: every analyzed file, and files that are gone.
            None => analyzed.contains(rel) || !root.join(rel).exists(),
        };
        let applied = crate::baseline::apply(&b, &mut analysis.report.findings, in_scope);
        out.notes.push_str(&format!(
            "idemcheck: baseline {}: {} known, not shown\n",
            path.display(),
            plural(applied.known, "finding", "findings")
        ));
        if !applied.stale.is_empty() {
            let n: u32 = applied.stale.iter().map(|e| e.count).sum();
            out.notes.push_str(&format!(
                "idemcheck: {} of the baseline no longer {} (rerun with --write-baseline {} to shrink it):\n",
                plural(n, "finding", "findings"),
                if n == 1 { "occurs" } else { "occur" },
                path.display()
            ));
            for e in &applied.stale {
                out.notes.push_str(&format!("  fixed: {e}\n"));
            }
        }
    }
    if let Some(rev) = &args.new_from_rev {
        let changes = crate::changed::since(&root, rev)?;
        let mut findings = std::mem::take(&mut analysis.report.findings);
        // Where each tool is, by its Rust path: a finding in a helper belongs to it too.
        let mut tools: std::collections::BTreeMap<&str, (String, u32)> = Default::default();
        for view in &query.tools {
            let t = view.cx.tool;
            tools
                .entry(t.function.as_str())
                .or_insert_with(|| (files[view.cx.file].rel.clone(), t.loc.line));
        }
        // The item ranges the one parse recorded (a file that did not parse keeps all).
        let items: std::collections::BTreeMap<&str, Option<&[(u32, u32)]>> = files
            .iter()
            .map(|f| {
                (
                    f.rel.as_str(),
                    f.parsed.then_some(f.items.ranges.as_slice()),
                )
            })
            .collect();
        let filtered = crate::changed::filter(
            &changes,
            &mut findings,
            |rel| items.get(rel).copied().flatten(),
            |f| tools.get(f.function.as_str()).cloned(),
        );
        analysis.report.findings = findings;
        out.notes.push_str(&format!(
            "idemcheck: --new-from-rev {rev}: {} in unchanged code not shown\n",
            plural(filtered.unchanged, "finding", "findings")
        ));
    }
    if args.baseline.is_some() || args.new_from_rev.is_some() {
        recount(&mut analysis.report);
        let kept: std::collections::BTreeSet<&str> = analysis
            .report
            .findings
            .iter()
            .map(|f| f.file.as_str())
            .collect();
        analysis.paths.retain(|rel, _| kept.contains(rel.as_str()));
    }
    Ok(out)
}

/// Print the notes of [`apply`] where the format allows.
pub fn print_notes(notes: &str, format: Format, out: &mut dyn Write, err: &mut dyn Write) {
    if notes.is_empty() {
        return;
    }
    let _ = match format {
        Format::Human | Format::Short => out.write_all(notes.as_bytes()),
        _ => err.write_all(notes.as_bytes()),
    };
}
