//! The whole run, without any printing: collect every file in parallel, index, run the
//! rules, build the [`Report`] (`idemcheck_spec::Report`, the JSON output format).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use idemcheck_spec::config::Config;
use idemcheck_spec::model::{Finding, Report, Summary};

use crate::collect::{FileJob, collect_file};
use crate::discover::Plan;
use crate::facts::FileFacts;
use crate::index::Index;
use crate::rules::{self, Hit};

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The report (sorted, deterministic).
    pub report: Report,
    /// Workspace root; finding paths are relative to it.
    pub root: PathBuf,
    /// Text of every file that has a finding, by relative path (for snippets).
    pub sources: BTreeMap<String, String>,
}

impl Analysis {
    /// Whether any unsuppressed error finding exists (exit code 1).
    pub fn has_errors(&self) -> bool {
        self.report.summary.errors > 0
    }
}

/// Parse and collect every file of the plan, following `mod` declarations, in parallel.
/// Each file is read and parsed exactly once. The result is sorted by path.
pub fn collect_all(plan: &Plan) -> Vec<FileFacts> {
    let seen: Mutex<HashSet<PathBuf>> = Mutex::new(HashSet::new());
    let out: Mutex<Vec<FileFacts>> = Mutex::new(Vec::new());
    fn run<'s>(
        scope: &rayon::Scope<'s>,
        job: FileJob,
        plan: &'s Plan,
        seen: &'s Mutex<HashSet<PathBuf>>,
        out: &'s Mutex<Vec<FileFacts>>,
    ) {
        let krate = &plan.crates[job.krate];
        let config: &Config = &krate.config;
        if config
            .exclude
            .iter()
            .any(|g| crate::glob::matches(g, &job.rel))
        {
            return;
        }
        if !seen
            .lock()
            .expect("no panics while locked")
            .insert(job.path.clone())
        {
            return;
        }
        let (facts, children) = collect_file(&job, config);
        out.lock().expect("no panics while locked").push(facts);
        if krate.follow_mods {
            for child in children {
                scope.spawn(move |s| run(s, child, plan, seen, out));
            }
        }
    }
    rayon::scope(|s| {
        for krate in &plan.crates {
            for root in &krate.roots {
                let job = root.clone();
                let (plan, seen, out) = (plan, &seen, &out);
                s.spawn(move |s| run(s, job, plan, seen, out));
            }
        }
    });
    let mut files = out.into_inner().expect("no panics while locked");
    files.sort_by(|a, b| a.rel.cmp(&b.rel).then(a.path.cmp(&b.path)));
    files
}

/// Run the rules on collected files.
pub fn analyze_files(plan: &Plan, files: &[FileFacts]) -> Analysis {
    let names: Vec<String> = plan.crates.iter().map(|c| c.name.clone()).collect();
    let configs: Vec<Arc<Config>> = plan.crates.iter().map(|c| c.config.clone()).collect();
    let index = Index::new(files, &names);
    let outcome = rules::run(&index, &configs);
    let mut hits = outcome.hits;
    let in_scope = |p: &Path| match &plan.only {
        Some(only) => only.iter().any(|o| p.starts_with(o)),
        None => true,
    };
    hits.retain(|h| in_scope(&files[h.file].path));
    rules::sort_hits(&index, &mut hits);
    let (errors, warnings, notes, suppressed) = rules::counts(&hits);
    let (mut tools, mut write_tools) = (outcome.tools, outcome.write_tools);
    let mut nfiles = files.len() as u32;
    if plan.only.is_some() {
        // Count only what is in scope.
        nfiles = files.iter().filter(|f| in_scope(&f.path)).count() as u32;
        let scoped = rules::run_counts(&index, &configs, |fi| in_scope(&files[fi].path));
        tools = scoped.0;
        write_tools = scoped.1;
    }
    let findings: Vec<Finding> = hits.iter().map(|h| to_finding(files, h)).collect();
    let mut sources = BTreeMap::new();
    for h in &hits {
        let f = &files[h.file];
        if !sources.contains_key(&f.rel)
            && let Ok(text) = std::fs::read_to_string(&f.path)
        {
            sources.insert(f.rel.clone(), text);
        }
    }
    Analysis {
        report: Report {
            version: 1,
            findings,
            summary: Summary {
                files: nfiles,
                tools,
                write_tools,
                errors,
                warnings,
                notes,
                suppressed,
            },
        },
        root: plan.root.clone(),
        sources,
    }
}

/// Collect and analyze.
pub fn analyze(plan: &Plan) -> Analysis {
    let files = collect_all(plan);
    analyze_files(plan, &files)
}

fn to_finding(files: &[FileFacts], h: &Hit) -> Finding {
    let f = &h.finding;
    Finding {
        code: f.code,
        rule: f.code.name().to_string(),
        severity: f.severity,
        tool: h.tool.clone(),
        function: h.function.clone(),
        file: files[h.file].rel.clone(),
        line: f.loc.line,
        column: f.loc.column,
        end_line: f.loc.end_line,
        end_column: f.loc.end_column,
        message: f.message.clone(),
        help: f.help.clone(),
        suppressed: f.suppressed.clone(),
    }
}
