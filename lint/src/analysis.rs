//! The whole run, without any printing: collect every file in parallel, index, run the
//! rules, build the [`Report`] (`idemcheck_spec::Report`, the JSON output format).

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use idemcheck_spec::config::Config;
use idemcheck_spec::model::{Finding, Report, Summary};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::collect::FileJob;
use crate::discover::Plan;
use crate::facts::FileFacts;
use crate::query::Query;
use crate::rules::{self, Hit};

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The report (sorted, deterministic).
    pub report: Report,
    /// Workspace root; finding paths are relative to it.
    pub root: PathBuf,
    /// Files that have findings, by relative path (their text is read only by the human
    /// reporter, for snippets).
    pub paths: BTreeMap<String, PathBuf>,
    /// Texts supplied in memory ([`analyze_sources`]), by relative path.
    pub sources: BTreeMap<String, String>,
    /// Writes several tools make only through one function: one model line there would
    /// change all their verdicts (see [`RootCause`]).
    pub root_causes: Vec<RootCause>,
}

/// A function through which several tools write, and only through it: where a user corrects
/// the judgement of all of them at once, if the lint took bookkeeping or a read for a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootCause {
    /// The function holding the write (`GoogleMcp::resolve_session`).
    pub function: String,
    /// The write, with where it is (`state kept between calls ... at src/mcp/server.rs:91`).
    pub write: String,
    /// The tools that write only through it, by name.
    pub tools: Vec<String>,
    /// The `[[effects]]` lines that would say it is no write.
    pub model: String,
}

/// At least this many tools share one write for it to be called a root cause.
const ROOT_CAUSE_MIN_TOOLS: usize = 3;

/// The root causes of a query's write verdicts: for each function whose write the write path
/// of [`ROOT_CAUSE_MIN_TOOLS`] tools or more reaches first, the tools that write only through
/// it. Sorted by the number of tools, most first.
fn root_causes(query: &Query<'_>, in_scope: impl Fn(usize) -> bool) -> Vec<RootCause> {
    use crate::judge::WriteReason;
    let index = query.index;
    let mut by_site: BTreeMap<
        (crate::index::FnId, crate::facts::Loc),
        Vec<&crate::query::ToolView<'_>>,
    > = BTreeMap::new();
    for v in &query.tools {
        if !in_scope(v.cx.file) || !matches!(v.cx.write, Some(WriteReason::Evidence { .. })) {
            continue;
        }
        if let Some(w) = &v.write_path {
            by_site.entry((w.at, w.evidence.loc)).or_default().push(v);
        }
    }
    let mut out = Vec::new();
    for ((site, _), views) in by_site {
        if views.len() < ROOT_CAUSE_MIN_TOOLS {
            continue;
        }
        // The choke point: the function nearest the tools, on the way to the write, that
        // they cannot write without (the helper every tool calls, rather than what it calls).
        let first = views[0].write_path.as_ref().expect("grouped by it");
        let only_through = |f: crate::index::FnId| -> Vec<String> {
            let mut tools: Vec<String> = views
                .iter()
                .filter(|v| {
                    v.cx.body
                        .is_some_and(|b| b != f && !index.writes_avoiding(b, f))
                })
                .map(|v| v.cx.tool.name.clone())
                .collect();
            tools.sort();
            tools.dedup();
            tools
        };
        let Some((at, tools)) = first
            .chain
            .iter()
            .copied()
            .chain([site])
            .map(|f| (f, only_through(f)))
            .find(|(_, tools)| tools.len() >= ROOT_CAUSE_MIN_TOOLS)
        else {
            continue;
        };
        let f = index.func(at);
        let ev = views[0]
            .write_path
            .as_ref()
            .expect("grouped by it")
            .evidence;
        let function = if f.self_ty.is_some() || f.module.is_empty() {
            f.display.clone()
        } else {
            format!("{}::{}", f.module, f.name)
        };
        // A request that only reads (a POST that queries) is a read; a change the tool's
        // operation does not consist of (a refresh time, a session) is bookkeeping.
        let effect = match ev.kind {
            crate::facts::EvidenceKind::Http
            | crate::facts::EvidenceKind::Sdk
            | crate::facts::EvidenceKind::Message => idemcheck_spec::config::ModelEffect::Read,
            _ => idemcheck_spec::config::ModelEffect::Bookkeeping,
        };
        let to_site: Vec<crate::index::FnId> = first
            .chain
            .iter()
            .copied()
            .skip_while(|f| *f != at)
            .skip(1)
            .collect();
        out.push(RootCause {
            write: crate::judge::describe_write(index, ev, site, &to_site),
            model: idemcheck_spec::config::EffectModel::toml(&function, effect),
            function,
            tools,
        });
    }
    out.sort_by(|a, b| {
        b.tools
            .len()
            .cmp(&a.tools.len())
            .then(a.function.cmp(&b.function))
    });
    out
}

impl Analysis {
    /// Whether any unsuppressed error finding exists (exit code 1).
    pub fn has_errors(&self) -> bool {
        self.report.summary.errors > 0
    }

    /// The text of a file with findings (empty when it cannot be read any more).
    pub fn source(&self, rel: &str) -> String {
        if let Some(text) = self.sources.get(rel) {
            return text.clone();
        }
        self.paths
            .get(rel)
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    }
}

/// Parse and collect every file of the plan, following `mod` declarations, in parallel.
/// Each file is read and parsed exactly once. The result is sorted by path.
pub fn collect_all(plan: &Plan) -> Vec<FileFacts> {
    collect_all_with(plan, true)
}

/// [`collect_all`], recording item facts only when `item_facts` is set: `suggest` and
/// `--new-from-rev` need them, `check` and `docs` do not.
pub fn collect_all_with(plan: &Plan, item_facts: bool) -> Vec<FileFacts> {
    collect_prefiltered(plan, item_facts).0
}

/// [`collect_all_with`] after the lexical prefilter ([`crate::prefilter`]): only the
/// crates it keeps are parsed. Returns what it decided too.
pub fn collect_prefiltered(
    plan: &Plan,
    item_facts: bool,
) -> (Vec<FileFacts>, crate::prefilter::Prefiltered) {
    let pre = crate::prefilter::select(plan);
    let started: Mutex<FxHashSet<FileJob>> = Mutex::new(FxHashSet::default());
    let done: Mutex<FxHashMap<FileJob, Collected>> = Mutex::new(FxHashMap::default());
    let excludes: Vec<crate::glob::Excludes> = plan
        .crates
        .iter()
        .map(|c| crate::glob::Excludes::lossy(&c.config.exclude))
        .collect();
    // Each crate's configuration fingerprint, under which the cache keeps its files' facts.
    let config_fps: Vec<crate::cache::Hash> = match &plan.cache {
        Some(_) => plan
            .crates
            .iter()
            .map(|c| crate::cache::fingerprint(&[&*c.config]))
            .collect(),
        None => Vec::new(),
    };
    type Collected = (FileFacts, Vec<FileJob>);
    type Shared<'s> = (
        &'s Mutex<FxHashSet<FileJob>>,
        &'s Mutex<FxHashMap<FileJob, Collected>>,
        &'s [crate::glob::Excludes],
        &'s [crate::cache::Hash],
        bool,
    );
    // A file is collected once per job; its children are collected as soon as they are
    // known: those its text declares at once, before it is parsed (a lexical guess), the
    // others when its walk has found them. Which files belong to the crates is decided
    // afterwards, from the walks' children alone (a guess the walk does not confirm is
    // dropped).
    fn run<'s>(scope: &rayon::Scope<'s>, job: FileJob, plan: &'s Plan, shared: Shared<'s>) {
        let (started, done, excludes, config_fps, item_facts) = shared;
        let krate = &plan.crates[job.krate];
        let config: &Config = &krate.config;
        if excludes[job.krate].is_match(&job.rel)
            || (job.optional && !job.path.is_file())
            || !started
                .lock()
                .expect("no panics while locked")
                .insert(job.clone())
        {
            return;
        }
        let spawn = |child: FileJob| scope.spawn(move |s| run(s, child, plan, shared));
        let before_parse = |text: &str| {
            if krate.follow_mods {
                crate::collect::declared_children(&job, text)
                    .into_iter()
                    .for_each(spawn);
            }
        };
        let uncached =
            || crate::collect::collect_file_with(&job, config, item_facts, &before_parse);
        let (facts, children) = match (&plan.cache, config_fps.get(job.krate)) {
            (Some(cache), Some(fp)) => {
                let key = crate::cache::collect_key(&job, fp, item_facts);
                cache
                    .collect(&job, &key, |text| {
                        before_parse(text);
                        crate::collect::collect_source_with(&job, text, config, item_facts)
                    })
                    .unwrap_or_else(uncached)
            }
            _ => uncached(),
        };
        if krate.follow_mods {
            children.iter().cloned().for_each(spawn);
        }
        done.lock()
            .expect("no panics while locked")
            .insert(job, (facts, children));
    }
    let roots = || {
        plan.crates
            .iter()
            .zip(&pre.parse)
            .filter(|(_, p)| **p)
            .flat_map(|(krate, _)| krate.roots.iter().cloned())
    };
    rayon::scope(|s| {
        for job in roots() {
            let shared = (&started, &done, &excludes[..], &config_fps[..], item_facts);
            s.spawn(move |s| run(s, job, plan, shared));
        }
    });
    // The crates' files: from the roots, through the children the walks found; a file
    // declared twice (`#[path]`) is taken the first time.
    let mut done = done.into_inner().expect("no panics while locked");
    let mut files = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut queue: VecDeque<FileJob> = roots().collect();
    while let Some(job) = queue.pop_front() {
        if excludes[job.krate].is_match(&job.rel) || !seen.insert(job.path.clone()) {
            continue;
        }
        let Some((facts, children)) = done.remove(&job) else {
            continue;
        };
        files.push(facts);
        if plan.crates[job.krate].follow_mods {
            queue.extend(children);
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel).then(a.path.cmp(&b.path)));
    crate::frameworks::drop_repeated(&mut files);
    crate::frameworks::data_file::link(
        &mut files,
        &plan.root,
        &|k| plan.crates[k].config.clone(),
        &read_data_file,
    );
    (files, pre)
}

/// The text of a data file that may hold a tool list (not above 4 MiB).
fn read_data_file(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 4 << 20 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Run the rules on collected files.
pub fn analyze_files(plan: &Plan, files: &[FileFacts]) -> Analysis {
    crate::query::over(plan, files, |query| analyze_query(plan, query))
}

/// Run the rules on the tools of a query over the collected files of `plan`.
pub fn analyze_query(plan: &Plan, query: &Query<'_>) -> Analysis {
    let index = query.index;
    let files = query.files();
    let outcome = rules::run(query);
    let mut hits = outcome.hits;
    // Whether each file is in the run's scope, asked once per file.
    let scope = crate::discover::Scope::new(plan);
    let scoped: Vec<bool> = files.iter().map(|f| scope.contains(&f.path)).collect();
    let in_scope = |fi: usize| scoped[fi];
    hits.retain(|h| in_scope(h.file));
    rules::sort_hits(index, &mut hits);
    let (errors, warnings, notes, suppressed) = rules::counts(&hits);
    let (mut tools, mut write_tools) = (outcome.tools, outcome.write_tools);
    let mut nfiles = files.len() as u32;
    if plan.only.is_some() {
        // Count only what is in scope.
        nfiles = scoped.iter().filter(|s| **s).count() as u32;
        let scoped = rules::run_counts(query, in_scope);
        tools = scoped.0;
        write_tools = scoped.1;
    }
    let paths: BTreeMap<String, PathBuf> = hits
        .iter()
        .map(|h| (files[h.file].rel.clone(), files[h.file].path.clone()))
        .collect();
    let findings: Vec<Finding> = hits.into_iter().map(|h| to_finding(files, h)).collect();
    let mut inventory: Vec<idemcheck_spec::ToolEntry> = outcome
        .inventory
        .into_iter()
        .filter(|(fi, _)| in_scope(*fi))
        .map(|(_, t)| t)
        .collect();
    inventory.sort_by(|a, b| {
        (&a.file, a.line, &a.name, &a.function).cmp(&(&b.file, b.line, &b.name, &b.function))
    });
    let root_causes = root_causes(query, in_scope);
    Analysis {
        report: Report {
            version: 1,
            findings,
            summary: Summary {
                files: nfiles,
                skipped_files: 0,
                tools,
                write_tools,
                errors,
                warnings,
                notes,
                suppressed,
            },
            tools: inventory,
        },
        root: plan.root.clone(),
        paths,
        sources: BTreeMap::new(),
        root_causes,
    }
}

/// Collect and analyze.
pub fn analyze(plan: &Plan) -> Analysis {
    let (files, pre) = collect_prefiltered(plan, false);
    let mut analysis = analyze_files(plan, &files);
    analysis.report.summary.skipped_files = pre.skipped_files;
    analysis
}

fn to_finding(files: &[FileFacts], h: Hit) -> Finding {
    let f = h.finding;
    Finding {
        code: f.code,
        rule: f.code.name().to_string(),
        severity: f.severity,
        tool: h.tool,
        function: h.function,
        file: files[h.file].rel.clone(),
        line: f.loc.line,
        column: f.loc.column,
        end_line: f.loc.end_line,
        end_column: f.loc.end_column,
        message: f.message,
        help: f.help,
        suppressed: f.suppressed,
    }
}

/// The inventory's `(name, kind)` pairs of source texts, sorted (see [`inventory_rows`]).
#[cfg(test)]
pub(crate) fn inventory_kinds(sources: &[(&str, &str)]) -> Vec<(String, String)> {
    inventory_rows(sources)
        .into_iter()
        .map(|(name, _, _, kind)| (name, kind))
        .collect()
}

/// The tool inventory of source texts (see [`analyze_sources`]) as sorted
/// `(name, function, style, kind)` rows: what the unit tests of tool styles and effects check.
#[cfg(test)]
pub(crate) fn inventory_rows(sources: &[(&str, &str)]) -> Vec<(String, String, String, String)> {
    let a = analyze_sources(sources, Config::default());
    let mut v: Vec<_> = a
        .report
        .tools
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.function.clone(),
                t.style.clone(),
                format!("{:?}", t.kind),
            )
        })
        .collect();
    v.sort();
    v
}

/// The evidence line of each tool of one source file (`src/lib.rs`), in report order.
#[cfg(test)]
pub(crate) fn evidence_of(src: &str) -> Vec<String> {
    let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
    a.report.tools.iter().map(|t| t.evidence.clone()).collect()
}

/// Analyze source texts without touching the disk (unit tests, editors). Each entry is a
/// workspace-relative path and its text; `lib.rs`/`main.rs` are at the crate root and any
/// other file `a/b.rs` is module `a::b`. `mod` declarations are not followed.
pub fn analyze_sources(sources: &[(&str, &str)], config: Config) -> Analysis {
    let config = Arc::new(config);
    // Sources that are not Rust are data files (a tool list), read by the data-file style.
    let is_rust = |rel: &str| rel.ends_with(".rs");
    let files: Vec<FileFacts> = sources
        .iter()
        .filter(|(rel, _)| is_rust(rel))
        .map(|(rel, text)| {
            let module: Vec<String> = rel
                .trim_start_matches("src/")
                .trim_end_matches(".rs")
                .split('/')
                .filter(|s| !matches!(*s, "lib" | "main" | "mod" | ""))
                .map(str::to_string)
                .collect();
            let job = FileJob {
                path: PathBuf::from(rel),
                rel: rel.to_string(),
                krate: 0,
                module,
                mod_rs: true,
                optional: false,
            };
            crate::collect::collect_source(&job, text, &config).0
        })
        .collect();
    let mut files = files;
    crate::frameworks::drop_repeated(&mut files);
    crate::frameworks::data_file::link(&mut files, Path::new(""), &|_| config.clone(), &|p| {
        sources
            .iter()
            .find(|(rel, _)| !is_rust(rel) && Path::new(rel) == p)
            .map(|(_, text)| text.to_string())
    });
    let plan = Plan {
        warnings: Vec::new(),
        root: PathBuf::new(),
        crates: vec![crate::discover::CratePlan {
            name: "test".into(),
            config,
            roots: Vec::new(),
            follow_mods: false,
            package: None,
        }],
        only: None,
        packages: Vec::new(),
        prefilter: false,
        cache: None,
    };
    let mut analysis = analyze_files(&plan, &files);
    analysis.sources = sources
        .iter()
        .map(|(r, t)| (r.to_string(), t.to_string()))
        .collect();
    analysis
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemcheck_spec::check::{CheckInput, check_contract};

    fn codes(src: &str) -> Vec<String> {
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        a.report
            .findings
            .iter()
            .filter(|f| f.suppressed.is_none())
            .map(|f| format!("{}@{}:{} {}", f.code, f.line, f.column, f.tool))
            .collect()
    }

    #[test]
    fn side_effect_findings_are_the_macro_verdict() {
        let src = "use idemcheck::side_effect;\n#[side_effect(key = [customer], max_retries = 4, name = \"charge\")]\nasync fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<(), E> { billing.http.post(\"u\").send().await }\n";
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        let lint: Vec<(String, u32, u32, String)> = a
            .report
            .findings
            .iter()
            .map(|f| (f.code.to_string(), f.line, f.column, f.message.clone()))
            .collect();
        // The same attribute judged directly by the shared implementation.
        let file = syn::parse_file(src).unwrap();
        let syn::Item::Fn(func) = &file.items[1] else {
            panic!()
        };
        let attr = idemcheck_spec::attr::SideEffectAttr::from_attribute(&func.attrs[0]).unwrap();
        let verdict = check_contract(CheckInput {
            attr: &attr,
            sig: &func.sig,
            hints: None,
            config: &Config::default(),
        });
        let mut direct: Vec<(String, u32, u32, String)> = verdict
            .violations
            .iter()
            .map(|v| {
                let s = v.span.start.start();
                (
                    v.code.to_string(),
                    s.line as u32,
                    s.column as u32 + 1,
                    v.message.clone(),
                )
            })
            .collect();
        direct.sort();
        let mut lint = lint;
        lint.sort();
        assert_eq!(lint, direct);
        assert!(
            !direct.is_empty(),
            "the example must have findings to compare"
        );
    }

    #[test]
    fn helpers_that_write_are_not_tools() {
        assert!(
            codes("fn save(p: &str) { std::fs::write(p, b\"x\").unwrap(); }\nasync fn post(c: &Client) { c.post(\"u\").send().await; }").is_empty()
        );
    }

    #[test]
    fn read_only_processes_are_reads_and_names_never_flag() {
        let src = r#"use rmcp::tool;
struct S;
#[rmcp::tool_router]
impl S {
    #[tool(description = "status")]
    async fn delete_everything(&self) { std::process::Command::new("git").arg("status").output(); }
    #[tool(description = "ls")]
    async fn purge(&self) { let mut c = std::process::Command::new("ls"); c.arg("-la"); c.output(); }
    #[tool(description = "push")]
    async fn list(&self) { std::process::Command::new("git").args(["push", "--force"]).status(); }
}
"#;
        assert_eq!(
            codes(src),
            [
                "IDEM001@10:14 list",
                "IDEM002@10:14 list",
                "IDEM003@10:14 list"
            ]
        );
    }

    #[test]
    fn read_only_hint_is_trusted_against_weak_evidence_only() {
        let weak = r#"struct S { sdk: Sdk }
#[rmcp::tool_router]
impl S {
    #[rmcp::tool(annotations(read_only_hint = true))]
    async fn a(&self) { self.sdk.create_session().await; }
    #[rmcp::tool]
    async fn b(&self) { self.sdk.create_session().await; }
    #[rmcp::tool(annotations(read_only_hint = true))]
    async fn c(&self) { self.sdk.http.delete("u").send().await; }
}
"#;
        let got = codes(weak);
        assert!(!got.iter().any(|c| c.ends_with(" a")), "{got:?}");
        assert!(got.contains(&"IDEM001@7:14 b".to_string()), "{got:?}");
        assert!(got.contains(&"IDEM007@8:47 c".to_string()), "{got:?}");
    }

    #[test]
    fn sdk_like_names_of_workspace_methods_are_followed_not_counted() {
        let src = r#"struct Preview;
impl Preview {
    fn create_order_preview(&self, n: u32) -> String { format!("order {n}") }
}
struct Shop { http: Client }
impl Shop {
    async fn create_invoice(&self) { self.http.post("u").send().await; }
}
struct S { shop: Shop }
#[rmcp::tool_router]
impl S {
    #[rmcp::tool]
    async fn preview(&self) -> String { let p = Preview; let mut s = p.create_order_preview(1); s.insert_str(0, ">"); s }
    #[rmcp::tool]
    async fn invoice(&self, shop: &Shop) { shop.create_invoice().await; }
    #[rmcp::tool]
    async fn refund(&self, stripe: &stripe::Client) { stripe.create_refund().await; }
}
"#;
        let got = codes(src);
        assert!(!got.iter().any(|c| c.ends_with(" preview")), "{got:?}");
        assert!(
            got.contains(&"IDEM001@15:14 invoice".to_string()),
            "{got:?}"
        );
        assert!(got.contains(&"IDEM001@17:14 refund".to_string()), "{got:?}");
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        let invoice = a
            .report
            .findings
            .iter()
            .find(|f| f.tool == "invoice" && f.code == idemcheck_spec::RuleCode::Idem001)
            .unwrap();
        assert!(invoice.message.contains("HTTP POST"), "{}", invoice.message);
    }

    #[test]
    fn batch_loops_and_worker_loops_are_not_retries() {
        let src = r#"struct S { http: Client }
#[rmcp::tool_router]
impl S {
    #[rmcp::tool]
    async fn notify_all(&self, items: Vec<String>) {
        for item in items {
            if let Err(e) = self.http.post(&item).send().await { log(e); continue; }
        }
        while let Some(m) = next().await {
            self.http.post(&m).send().await;
        }
    }
}
"#;
        let got = codes(src);
        assert!(!got.iter().any(|c| c.starts_with("IDEM008")), "{got:?}");
        assert!(got.iter().any(|c| c.starts_with("IDEM001")), "{got:?}");
    }

    #[test]
    fn unstable_keys_through_variables() {
        let src = r#"struct S { http: Client }
#[rmcp::tool_router]
impl S {
    #[rmcp::tool]
    async fn pay(&self) {
        let id = uuid::Uuid::new_v4();
        let t = chrono::Utc::now();
        self.http.post("u").header("Idempotency-Key", id.to_string()).send().await;
    }
}
"#;
        let got = codes(src);
        assert!(got.contains(&"IDEM004@8:55 pay".to_string()), "{got:?}");
        // The clock read is not a key: not reported.
        assert_eq!(got.iter().filter(|c| c.starts_with("IDEM004")).count(), 1);
    }

    #[test]
    fn suppression_comments() {
        let src = r#"struct S { http: Client }
#[rmcp::tool_router]
impl S {
    // idemcheck: allow(IDEM001, IDEM002, IDEM003, reason = "legacy endpoint, deduplicated upstream")
    #[rmcp::tool]
    async fn a(&self) { self.http.post("u").send().await; }
    // idemcheck: allow(IDEM005, reason = "no cap here")
    #[rmcp::tool]
    async fn b(&self) { self.http.get("u").send().await; }
    // idemcheck: allow(IDEM001)
    #[rmcp::tool]
    async fn c(&self) { self.http.get("u").send().await; }
}
// idemcheck: allow(IDEM002, reason = "floating")
"#;
        let got = codes(src);
        assert_eq!(
            got,
            ["IDEM010@7:5 b", "IDEM011@10:5 ", "IDEM010@14:1 ",],
            "{got:?}"
        );
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        assert_eq!(a.report.summary.suppressed, 3);
    }

    #[test]
    fn configured_levels_apply_to_lint_side_rules() {
        let src = "struct S { http: Client }\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool]\n    async fn a(&self) { loop { if self.http.post(\"u\").send().await.is_ok() { break; } } }\n}\n";
        let mut config = Config::default();
        config.rules.insert(
            idemcheck_spec::RuleCode::Idem008,
            idemcheck_spec::config::Level::Allow,
        );
        let a = analyze_sources(&[("src/lib.rs", src)], config);
        assert!(
            !a.report
                .findings
                .iter()
                .any(|f| f.code == idemcheck_spec::RuleCode::Idem008)
        );
        let b = analyze_sources(&[("src/lib.rs", src)], Config::default());
        assert!(
            b.report
                .findings
                .iter()
                .any(|f| f.code == idemcheck_spec::RuleCode::Idem008)
        );
    }

    #[test]
    fn unparsable_source_is_reported_with_position() {
        let a = analyze_sources(
            &[
                ("src/lib.rs", "fn ok() {}\nfn bad( {\n"),
                ("src/b.rs", "fn b() {}"),
            ],
            Config::default(),
        );
        let f = &a.report.findings[0];
        assert_eq!(f.code, idemcheck_spec::RuleCode::Idem012);
        assert_eq!(f.file, "src/lib.rs");
        assert!(f.line >= 1);
        assert_eq!(a.report.summary.files, 2);
    }

    /// Two rig tools guarded in place, keyed on the same field: each is its `NAME`, so they do
    /// not collide; named `call` (as before) they would.
    const RIG_TWO: &str = r#"
use rig_core::tool::{Tool, ToolContext};
use idemcheck::side_effect;
pub struct Escalate;
impl Tool for Escalate {
    const NAME: &'static str = "escalate_ticket";
    type Args = TicketArgs; type Output = String; type Error = E;
    #[side_effect(key = [ticket_id], verify = find, max_retries = 0)]
    async fn call(&self, _c: &mut ToolContext, args: Self::Args) -> Result<String, E> { self.db.execute("UPDATE tickets SET level = 2").await }
}
pub struct Deprioritise;
impl Tool for Deprioritise {
    const NAME: &'static str = "deprioritise_ticket";
    type Args = TicketArgs; type Output = String; type Error = E;
    #[side_effect(key = [ticket_id], verify = find, max_retries = 0)]
    async fn call(&self, _c: &mut ToolContext, args: Self::Args) -> Result<String, E> { self.db.execute("UPDATE tickets SET prio = 0").await }
}
"#;

    #[test]
    fn a_guarded_rig_tool_is_named_by_its_name_const() {
        let a = analyze_sources(&[("src/lib.rs", RIG_TWO)], Config::default());
        let mut names: Vec<&str> = a.report.tools.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        assert_eq!(names, ["deprioritise_ticket", "escalate_ticket"]);
        assert!(
            !codes(RIG_TWO).iter().any(|c| c.starts_with("IDEM013")),
            "{:?}",
            codes(RIG_TWO)
        );
    }

    #[test]
    fn two_guarded_tools_with_one_identity_are_an_error_each() {
        let src = r#"
use idemcheck::side_effect;
pub struct Tickets; pub struct Users;
impl Tickets {
    #[side_effect(key = [id], verify = find, max_retries = 0)]
    pub async fn create(&self, id: String) -> Result<(), E> { self.http.post("u").send().await }
}
impl Users {
    #[side_effect(key = [id], verify = find, max_retries = 0)]
    pub async fn create(&self, id: String) -> Result<(), E> { self.http.post("v").send().await }
}
"#;
        let found = codes(src);
        let dup: Vec<&String> = found.iter().filter(|c| c.starts_with("IDEM013")).collect();
        assert_eq!(dup.len(), 2, "{found:?}");
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        let f = a
            .report
            .findings
            .iter()
            .find(|f| f.code == idemcheck_spec::RuleCode::Idem013)
            .unwrap();
        assert_eq!(f.severity, idemcheck_spec::Severity::Error);
        assert!(
            f.message.contains("Users::create") || f.message.contains("Tickets::create"),
            "{}",
            f.message
        );
        // Named apart, they pass.
        let named = src.replacen(
            "#[side_effect(key",
            "#[side_effect(name = \"tickets.create\", key",
            1,
        );
        assert!(
            !codes(&named).iter().any(|c| c.starts_with("IDEM013")),
            "{:?}",
            codes(&named)
        );
        // A suppression cannot silence it: the keys would still collide.
        assert!(
            !idemcheck_spec::rules::idem010_unused_suppression::suppressible(
                idemcheck_spec::RuleCode::Idem013
            )
        );
    }

    #[test]
    fn a_name_that_contradicts_rigs_name_const_is_an_error() {
        let src = RIG_TWO.replacen(
            "#[side_effect(key",
            "#[side_effect(name = \"escalate\", key",
            1,
        );
        let a = analyze_sources(&[("src/lib.rs", &src)], Config::default());
        let f = a
            .report
            .findings
            .iter()
            .find(|f| f.code == idemcheck_spec::RuleCode::Idem013)
            .expect("IDEM013");
        assert!(
            f.message.contains(
                "`name = \"escalate\"` contradicts the tool's `NAME` (\"escalate_ticket\")"
            ),
            "{}",
            f.message
        );
        assert_eq!(f.severity, idemcheck_spec::Severity::Error);
        // The same name as `NAME` is fine.
        let same = RIG_TWO.replacen(
            "#[side_effect(key",
            "#[side_effect(name = \"escalate_ticket\", key",
            1,
        );
        assert!(!codes(&same).iter().any(|c| c.starts_with("IDEM013")));
    }

    /// An rmcp method guarded over a guarded function's raw body guards the same operation
    /// (layered, as examples/agent-tools does): sharing its identity is no collision.
    #[test]
    fn a_guard_layered_over_a_guarded_function_shares_its_identity() {
        let src = r#"
use idemcheck::side_effect;
#[side_effect(key = [id], verify = find, max_retries = 0)]
pub async fn create(http: &Client, id: String) -> Result<(), E> { http.post("u").send().await }
pub struct Server { http: Client }
#[rmcp::tool_router]
impl Server {
    #[side_effect(key = [id], verify = find, max_retries = 0)]
    #[rmcp::tool]
    async fn create(&self, id: String) -> Result<(), E> { create(&self.http, id).await }
}
"#;
        assert!(
            !codes(src).iter().any(|c| c.starts_with("IDEM013")),
            "{:?}",
            codes(src)
        );
        // The same two, the method writing on its own: two operations, one identity.
        let apart = src.replace(
            "create(&self.http, id).await",
            "self.http.post(\"v\").send().await",
        );
        assert_eq!(
            codes(&apart)
                .iter()
                .filter(|c| c.starts_with("IDEM013"))
                .count(),
            2
        );
        // Keyed on other fields, their keys never meet (the field names are in the key).
        let other_fields = apart
            .replacen("key = [id]", "key = [other_id]", 1)
            .replacen(
                "pub async fn create(http: &Client, id: String)",
                "pub async fn create(http: &Client, other_id: String)",
                1,
            );
        assert!(
            !codes(&other_fields)
                .iter()
                .any(|c| c.starts_with("IDEM013")),
            "{:?}",
            codes(&other_fields)
        );
    }

    fn kind_of(src: &str, tool: &str) -> idemcheck_spec::Judgement {
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        a.report
            .tools
            .iter()
            .find(|t| t.name == tool)
            .unwrap_or_else(|| panic!("no tool {tool}"))
            .kind
    }

    /// A trait object followed into every impl reaches the real one, not the test double
    /// that records calls.
    #[test]
    fn test_doubles_do_not_make_a_read_a_write() {
        use idemcheck_spec::Judgement;
        let src = r#"
pub trait Mail { fn list_folders(&self) -> Vec<String>; }
pub struct ComMail { http: reqwest::Client }
impl Mail for ComMail { fn list_folders(&self) -> Vec<String> { self.http.get("https://mail.example/api/folders").send(); vec![] } }
pub struct FakeMail { calls: std::sync::Mutex<Vec<String>> }
impl Mail for FakeMail { fn list_folders(&self) -> Vec<String> { self.calls.lock().unwrap().push("list".into()); vec![] } }
pub struct Server { mail: Box<dyn Mail> }
#[rmcp::tool_router]
impl Server {
    #[rmcp::tool]
    async fn list_folders(&self) -> String { self.mail.list_folders().join(",") }
}
"#;
        assert_eq!(kind_of(src, "list_folders"), Judgement::Read);
        // Only doubles are left out: a second real impl that writes still counts.
        let two_real = src
            .replace("pub struct FakeMail", "pub struct QueueMail")
            .replace("impl Mail for FakeMail", "impl Mail for QueueMail");
        assert_eq!(kind_of(&two_real, "list_folders"), Judgement::Write);
    }

    /// Kept state a retry converges on is bookkeeping; state a retry adds to is a write.
    #[test]
    fn converging_state_is_bookkeeping_and_accumulating_state_writes() {
        use idemcheck_spec::Judgement;
        let src = r#"
pub struct Server { state: std::sync::Mutex<State>, history: std::sync::Mutex<Vec<String>>, tools: std::sync::Mutex<std::collections::HashSet<String>>, hits: std::sync::atomic::AtomicU64 }
#[rmcp::tool_router]
impl Server {
    #[rmcp::tool]
    async fn choose_tenant(&self, t: String) -> String { self.state.lock().unwrap().tenancy = t; String::new() }
    #[rmcp::tool]
    async fn enable_tool(&self, t: String) -> bool { self.tools.lock().unwrap().insert(t) }
    #[rmcp::tool]
    async fn remember(&self, t: String) { self.history.lock().unwrap().push(t) }
    #[rmcp::tool]
    async fn bump(&self) { self.hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst); }
    #[rmcp::tool]
    async fn add_note(&self, body: String) { self.state.lock().unwrap().notes.insert(uuid::Uuid::new_v4(), body); }
    #[rmcp::tool]
    async fn forget_all(&self) { for h in self.history.lock().unwrap().drain(..) { drop(h) } }
    #[rmcp::tool]
    async fn take_oldest(&self) { self.history.lock().unwrap().drain(..1); }
    #[rmcp::tool]
    async fn add_member(&self, m: String) { let mut h = self.history.lock().unwrap(); if !h.iter().any(|x| x == &m) { h.push(m) } }
    #[rmcp::tool]
    async fn add_twice(&self, m: String) { let mut h = self.history.lock().unwrap(); if !h.is_empty() { h.push(m) } }
}
"#;
        assert_eq!(kind_of(src, "add_member"), Judgement::Read);
        assert_eq!(kind_of(src, "add_twice"), Judgement::Write);
        assert_eq!(kind_of(src, "forget_all"), Judgement::Read);
        assert_eq!(kind_of(src, "take_oldest"), Judgement::Write);
        assert_eq!(kind_of(src, "choose_tenant"), Judgement::Read);
        assert_eq!(kind_of(src, "enable_tool"), Judgement::Read);
        assert_eq!(kind_of(src, "remember"), Judgement::Write);
        assert_eq!(kind_of(src, "bump"), Judgement::Write);
        assert_eq!(kind_of(src, "add_note"), Judgement::Write);
    }

    /// A client that POSTs to the API method its caller names in the URL
    /// (`/bot{token}/{method}`, `{base}{endpoint}`): each tool's method decides, through a
    /// wrapper that hands the name on; a path naming no verb is POSTed all the same, and a
    /// query-named client method's POST is its query.
    #[test]
    fn an_api_method_named_in_the_url_decides_per_call() {
        use idemcheck_spec::Judgement;
        let src = r#"
pub struct Api { client: reqwest::Client, token: String, base: String }
impl Api {
    async fn raw_call(&self, method: &str, params: &serde_json::Value) -> Result<serde_json::Value, String> {
        let url = format!("https://api.telegram.org/bot{}/{}", self.token, method);
        let resp = self.client.post(&url).json(params).send().await.map_err(|e| e.to_string())?;
        resp.json().await.map_err(|e| e.to_string())
    }
    pub async fn call_method(&self, method: &str, params: &serde_json::Value) -> String {
        match self.raw_call(method, params).await { Ok(v) => v.to_string(), Err(e) => e }
    }
    async fn post(&self, endpoint: &str, body: &serde_json::Value) -> Result<serde_json::Value, String> {
        let resp = self.client.post(format!("{}{}", self.base, endpoint)).json(body).send().await.map_err(|e| e.to_string())?;
        resp.json().await.map_err(|e| e.to_string())
    }
    pub async fn duplicate_form(&self, id: &str) -> String { format!("{:?}", self.post(&format!("/api/v1/forms/{}/duplicate", id), &serde_json::json!({})).await) }
    pub async fn list_spaces(&self) -> String { format!("{:?}", self.post("/api/spaces", &serde_json::json!({})).await) }
}
pub struct Server { api: Api }
#[rmcp::tool_router]
impl Server {
    #[rmcp::tool]
    async fn get_chat(&self, p: serde_json::Value) -> String { self.api.call_method("getChat", &p).await }
    #[rmcp::tool]
    async fn send_message(&self, p: serde_json::Value) -> String { self.api.call_method("sendMessage", &p).await }
    #[rmcp::tool]
    async fn answer_callback_query(&self, p: serde_json::Value) -> String { self.api.call_method("answerCallbackQuery", &p).await }
    #[rmcp::tool]
    async fn duplicate(&self, id: String) -> String { self.api.duplicate_form(&id).await }
    #[rmcp::tool]
    async fn spaces(&self) -> String { self.api.list_spaces().await }
}
"#;
        assert_eq!(kind_of(src, "get_chat"), Judgement::Read);
        assert_eq!(kind_of(src, "send_message"), Judgement::Write);
        assert_eq!(kind_of(src, "answer_callback_query"), Judgement::Write);
        assert_eq!(kind_of(src, "duplicate"), Judgement::Write);
        assert_eq!(kind_of(src, "spaces"), Judgement::Read);
        // A record's id ending the URL names no method: the POST stands.
        let by_id = src
            .replace(
                "fn raw_call(&self, method: &str",
                "fn raw_call(&self, id: &str",
            )
            .replace("self.token, method", "self.token, id");
        assert_eq!(kind_of(&by_id, "get_chat"), Judgement::Write);
    }

    /// A helper that returns early, successfully, when its path exists makes the file only
    /// the first time (a cache, a first-use download): not the tool's write. One that
    /// refuses when the file exists still writes.
    #[test]
    fn made_only_when_missing_is_no_write() {
        use idemcheck_spec::Judgement;
        let src = r#"
async fn fetch_source(dir: &std::path::Path, url: &str) -> Result<std::path::PathBuf, std::io::Error> {
    let target = dir.join("source.crate");
    if tokio::fs::try_exists(&target).await? {
        tracing::debug!("found");
        return Ok(target);
    }
    tokio::fs::create_dir_all(dir).await?;
    let body = reqwest::get(url).await.unwrap().bytes().await.unwrap();
    tokio::fs::write(&target, &body).await?;
    Ok(target)
}
fn create_local(path: &str, text: &str) -> Result<String, String> {
    let p = std::path::Path::new(path);
    if p.exists() {
        return Ok(format!("Error: {} already exists", path));
    }
    std::fs::write(p, text).map_err(|e| e.to_string())?;
    Ok(String::new())
}
pub struct Server;
#[rmcp::tool_router]
impl Server {
    #[rmcp::tool]
    async fn crate_source(&self, url: String) -> String { let _ = fetch_source(std::path::Path::new("/cache"), &url).await; std::fs::read_to_string("/cache/source.crate").unwrap() }
    #[rmcp::tool]
    async fn create_file(&self, path: String, text: String) -> String { create_local(&path, &text).unwrap() }
}
"#;
        assert_eq!(kind_of(src, "crate_source"), Judgement::Read);
        assert_eq!(kind_of(src, "create_file"), Judgement::Write);
        // A load that writes a default only when the file is missing reads; an upsert
        // (`else` writes what it was handed) writes.
        let load = r#"
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Profile { name: String }
impl Profile {
    pub fn load() -> std::io::Result<Self> {
        let path = std::path::Path::new("profile.json");
        if path.exists() {
            let text = std::fs::read_to_string(path)?;
            Ok(serde_json::from_str(&text).unwrap())
        } else {
            let profile = Self::default();
            profile.save()?;
            Ok(profile)
        }
    }
    pub fn save(&self) -> std::io::Result<()> {
        std::fs::write("profile.json", serde_json::to_string(self).unwrap())
    }
}
pub fn upsert(text: &str) -> std::io::Result<()> {
    let path = std::path::Path::new("notes.md");
    if path.exists() {
        Ok(())
    } else {
        std::fs::write(path, text)
    }
}
pub struct Server;
#[rmcp::tool_router]
impl Server {
    #[rmcp::tool]
    async fn get_profile(&self) -> String { Profile::load().unwrap().name }
    #[rmcp::tool]
    async fn put_note(&self, text: String) -> String { upsert(&text).unwrap(); String::new() }
}
"#;
        assert_eq!(kind_of(load, "get_profile"), Judgement::Read);
        assert_eq!(kind_of(load, "put_note"), Judgement::Write);
        // Without the early return the write is the tool's.
        let always = src.replace("return Ok(target);", "tracing::debug!(\"again\");");
        assert_eq!(kind_of(&always, "crate_source"), Judgement::Write);
    }

    /// A helper handed the server's shared state behind a lock (`state: &Arc<RwLock<Doc>>`):
    /// what it pushes there is kept between calls; a method of the guarded type is followed
    /// instead (`storage.clear()` deletes rows).
    #[test]
    fn state_handed_over_behind_a_lock_is_kept_state() {
        let src = r#"
use std::sync::Arc;
use tokio::sync::{Mutex, RwLock};
pub struct Doc { segments: Vec<String> }
pub struct Storage { db: rusqlite::Connection }
impl Storage {
    pub fn clear(&mut self) { self.db.execute("DELETE FROM articles", []).unwrap(); }
}
async fn extract(state: &Arc<RwLock<Doc>>, seg: String) -> usize {
    let mut s = state.write().await;
    s.segments.push(seg);
    s.segments.len()
}
async fn wipe(storage: &Arc<Mutex<Storage>>) {
    let mut storage = storage.lock().await;
    storage.clear();
}
pub struct Server { state: Arc<RwLock<Doc>>, storage: Arc<Mutex<Storage>> }
impl Server {
    #[rmcp::tool(description = "Extract a segment")]
    pub async fn extract_segment(&self, seg: String) -> usize { extract(&self.state, seg).await }
    #[rmcp::tool(description = "Empty the index")]
    pub async fn clear_index(&self) { wipe(&self.storage).await }
}
"#;
        assert_eq!(
            inventory_kinds(&[("src/lib.rs", src)]),
            [
                ("clear_index".to_string(), "Write".to_string()),
                ("extract_segment".to_string(), "Write".to_string()),
            ]
        );
        // `clear_index` writes through the guarded type's method.
        let why = evidence_of(src);
        assert!(
            why.iter()
                .any(|w| w.starts_with("SQL DELETE") && w.contains("Storage::clear")),
            "{why:?}"
        );
    }

    /// A parameter of a generic type bounded by a workspace trait (`transport: &mut T` with
    /// `T: Transport`, or in a `where` clause): its method is every workspace impl's.
    #[test]
    fn a_generic_parameter_follows_its_trait_bound() {
        let src = r#"
pub trait Transport { fn send(&mut self, command: String) -> String; }
pub struct Local;
impl Transport for Local {
    fn send(&mut self, command: String) -> String { std::fs::write("/srv/queue", &command).unwrap(); command }
}
pub fn run<T: Transport>(transport: &mut T, c: String) -> String { transport.send(c) }
pub fn run_where<T>(transport: &mut T, c: String) -> String where T: Transport + Send { transport.send(c) }
pub struct Server;
impl Server {
    #[rmcp::tool(description = "Queue a command")]
    pub fn enqueue(&self, c: String) -> String { run(&mut Local, c) }
    #[rmcp::tool(description = "Queue another command")]
    pub fn enqueue_where(&self, c: String) -> String { run_where(&mut Local, c) }
}
"#;
        let why = evidence_of(src);
        assert_eq!(why.len(), 2);
        assert!(why.iter().all(|w| w.contains("`Local::send`")), "{why:?}");
    }

    /// A module that brings a sibling's items in by a glob (`pub use
    /// super::instance_metadata::*;`): a path through it reaches the sibling's function.
    #[test]
    fn a_path_through_a_glob_re_export_resolves() {
        let src = r#"
pub mod instance_metadata {
    pub fn handle_interrupt(p: &str) { std::fs::write(p, "\u{1b}").unwrap(); }
}
pub mod instance {
    pub use super::instance_metadata::*;
}
pub mod other {
    pub fn handle_interrupt(p: &str) -> String { std::fs::read_to_string(p).unwrap() }
}
pub struct Server;
impl Server {
    #[rmcp::tool(description = "Interrupt an agent")]
    pub fn interrupt(&self, pty: String) { crate::instance::handle_interrupt(&pty) }
}
"#;
        assert_eq!(
            inventory_kinds(&[("src/lib.rs", src)]),
            [("interrupt".to_string(), "Write".to_string())]
        );
    }

    /// A `use` inside a function body (`use crate::persistence as store;`) says what the
    /// body's paths name.
    #[test]
    fn a_use_in_a_function_body_resolves_its_paths() {
        let lib = r#"
pub mod persistence;
pub struct Server;
impl Server {
    #[rmcp::tool(description = "Save a query")]
    pub fn query_save(&self, name: String, text: String) -> String {
        use crate::persistence as store;
        store::save_query(&name, &text);
        name
    }
}
"#;
        let persistence = r#"
pub fn save_query(name: &str, text: &str) { std::fs::write(name, text).unwrap(); }
"#;
        // A module named as the alias, whose function of that name only reads.
        let store = r#"
pub fn save_query(name: &str, _text: &str) { std::fs::read_to_string(name).unwrap(); }
"#;
        assert_eq!(
            inventory_kinds(&[
                (
                    "src/lib.rs",
                    &lib.replace(
                        "pub mod persistence;",
                        "pub mod persistence;\npub mod store;"
                    )
                ),
                ("src/persistence.rs", persistence),
                ("src/store.rs", store),
            ]),
            [("query_save".to_string(), "Write".to_string())]
        );
    }

    /// A tool whose body only builds its answer (a placeholder's usage message) does
    /// nothing: its name does not make it a write. One that calls out of sight still does.
    #[test]
    fn a_placeholder_body_is_no_write_by_its_name() {
        use idemcheck_spec::Judgement;
        let src = r#"
pub struct Server { client: miro::Client }
#[rmcp::tool_router]
impl Server {
    #[rmcp::tool(description = "Create a shape on a board")]
    async fn create_shape(&self) -> Result<CallToolResult, McpError> {
        let message = "create_shape tool registered. Use tool_call with parameters: { board_id }".to_string();
        Ok(CallToolResult::success(vec![Content::text(message)]))
    }
    #[rmcp::tool(description = "Create a frame on a board")]
    async fn create_frame(&self, id: String) -> Result<CallToolResult, McpError> {
        self.client.frames(&id).await;
        Ok(CallToolResult::success(vec![Content::text("done")]))
    }
}
"#;
        assert_ne!(kind_of(src, "create_shape"), Judgement::Write);
        assert_eq!(kind_of(src, "create_frame"), Judgement::Write);
    }

    /// A tool table whose entries name an enum's variant as what runs them, and a `match` on
    /// that enum later in the file: each arm is its entry's body.
    #[test]
    fn a_table_of_executor_variants_runs_the_matching_arms() {
        use idemcheck_spec::Judgement;
        let src = r#"
pub enum ToolExecutor { ClusterList, ClusterDelete }
pub struct StaticTool { pub name: &'static str, pub description: &'static str, pub executor: ToolExecutor }
const STATIC_TOOLS: &[StaticTool] = &[
    StaticTool { name: "cp_clusters_list", description: "List clusters.", executor: ToolExecutor::ClusterList },
    StaticTool { name: "cp_clusters_delete", description: "Delete a cluster.", executor: ToolExecutor::ClusterDelete },
];
async fn execute_static_tool(pool: &sqlx::PgPool, tool: &StaticTool, name: &str) -> Result<String, String> {
    match tool.executor {
        ToolExecutor::ClusterList => {
            let rows = sqlx::query("SELECT name FROM clusters").fetch_all(pool).await.unwrap();
            Ok(format!("{}", rows.len()))
        }
        ToolExecutor::ClusterDelete => {
            sqlx::query("DELETE FROM clusters WHERE name = $1").bind(name).execute(pool).await.unwrap();
            Ok(String::new())
        }
    }
}
"#;
        assert_eq!(kind_of(src, "cp_clusters_list"), Judgement::Read);
        assert_eq!(kind_of(src, "cp_clusters_delete"), Judgement::Write);
    }

    fn kinds_with(src: &str, toml: &str) -> Vec<(String, idemcheck_spec::Judgement, String)> {
        let config =
            Config::from_idemcheck_toml(std::path::Path::new("idemcheck.toml"), toml).unwrap();
        let a = analyze_sources(&[("src/lib.rs", src)], config);
        a.report
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.kind, t.evidence.clone()))
            .collect()
    }

    /// One `[[effects]]` line corrects a root cause wherever it is reached: the session helper
    /// every tool calls is bookkeeping; a helper's argument decides per call; a path into
    /// another crate is matched at the calls of it.
    #[test]
    fn effects_models_correct_the_root_once() {
        use idemcheck_spec::Judgement::*;
        let src = r#"
pub struct Gmail { http: reqwest::Client, state: std::sync::Mutex<Vec<String>>, mailer: lettre::SmtpTransport }
impl Gmail {
    fn resolve_session(&self) { self.state.lock().unwrap().push("tenancy".into()); }
    async fn rpc(&self, method: &str) -> String { self.http.post("https://api.example/rpc").json(&method).send().await; String::new() }
}
#[rmcp::tool_router]
impl Gmail {
    #[rmcp::tool]
    async fn get_profile(&self) -> String { self.resolve_session(); self.http.get("https://api.example/profile").send().await; String::new() }
    #[rmcp::tool]
    async fn list_labels(&self) -> String { self.resolve_session(); self.http.get("https://api.example/labels").send().await; String::new() }
    #[rmcp::tool]
    async fn tell_status(&self) -> String { self.rpc("aria2.tellStatus").await }
    #[rmcp::tool]
    async fn add_uri(&self) -> String { self.rpc("aria2.addUri").await }
    #[rmcp::tool]
    async fn notify(&self, m: Message) { self.mailer.send(&m); }
}
"#;
        let bare = kinds_with(src, "");
        let kind = |all: &[(String, idemcheck_spec::Judgement, String)], n: &str| {
            all.iter().find(|t| t.0 == n).unwrap().1
        };
        // Without models: the session push makes every tool a write.
        assert_eq!(kind(&bare, "get_profile"), Write);
        assert_eq!(kind(&bare, "list_labels"), Write);
        let modelled = kinds_with(
            src,
            "[[effects]]\nfunction = \"Gmail::resolve_session\"\neffect = \"bookkeeping\"\n\n[[effects]]\nfunction = \"Gmail::rpc\"\neffect = \"by-argument\"\nargument = 0\nwords = \"rpc-method\"\n\n[[effects]]\nfunction = \"lettre::SmtpTransport::send\"\neffect = \"write\"\n",
        );
        assert_eq!(kind(&modelled, "get_profile"), Read);
        assert_eq!(kind(&modelled, "list_labels"), Read);
        assert_eq!(kind(&modelled, "tell_status"), Read);
        assert_eq!(kind(&modelled, "add_uri"), Write);
        let notify = modelled.iter().find(|t| t.0 == "notify").unwrap();
        assert_eq!(notify.1, Write);
        assert!(
            notify
                .2
                .contains("`lettre::SmtpTransport::send`, modelled a write (idemcheck.toml:"),
            "{}",
            notify.2
        );
        let add = modelled.iter().find(|t| t.0 == "add_uri").unwrap();
        assert!(
            add.2
                .contains("`Gmail::rpc`, modelled as decided by its argument 0"),
            "{}",
            add.2
        );
        // The same workspace function as a write, or a read.
        let as_read = kinds_with(
            src,
            "[[effects]]\nfunction = \"Gmail::resolve_session\"\neffect = \"read\"\n",
        );
        assert_eq!(kind(&as_read, "get_profile"), Read);
        let as_write = kinds_with(
            &src.replace("self.state.lock().unwrap().push(\"tenancy\".into());", ""),
            "[[effects]]\nfunction = \"Gmail::resolve_session\"\neffect = \"write\"\n",
        );
        assert_eq!(kind(&as_write, "get_profile"), Write);
    }

    /// Several tools writing only through one helper are one root cause, said once with the
    /// model line that would correct them all; a tool that also writes elsewhere is not in it.
    #[test]
    fn tools_that_write_only_through_one_helper_are_one_root_cause() {
        let src = r#"
pub struct S { db: Db, http: reqwest::Client }
impl S {
    async fn resolve_session(&self) { self.db.execute("UPDATE accounts SET last_refresh = now()", ()).await; }
}
#[rmcp::tool_router]
impl S {
    #[rmcp::tool] async fn get_a(&self) { self.resolve_session().await; }
    #[rmcp::tool] async fn get_b(&self) { self.resolve_session().await; }
    #[rmcp::tool] async fn get_c(&self) { self.resolve_session().await; }
    #[rmcp::tool] async fn post_d(&self) { self.resolve_session().await; self.http.post("https://x.example/d").send().await; }
}
"#;
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        assert_eq!(a.root_causes.len(), 1, "{:?}", a.root_causes);
        let rc = &a.root_causes[0];
        assert_eq!(rc.function, "S::resolve_session");
        assert_eq!(rc.tools, ["get_a", "get_b", "get_c"]);
        assert!(
            rc.model.contains("function = \"S::resolve_session\""),
            "{}",
            rc.model
        );
        let human = crate::report::render(&a, crate::report::Format::Human, false);
        assert!(
            human.contains("note: 3 tools write only through `S::resolve_session`: SQL UPDATE"),
            "{human}"
        );
        // Two tools are not yet a root cause worth a note.
        let two = src.replace(
            "    #[rmcp::tool] async fn get_c(&self) { self.resolve_session().await; }\n",
            "",
        );
        assert!(
            analyze_sources(&[("src/lib.rs", &two)], Config::default())
                .root_causes
                .is_empty()
        );
    }

    /// An SDK call handed a request object is judged by the request's type
    /// (`invoke(&GetHistory { .. })` reads, `invoke(&SendMessage { .. })` writes).
    #[test]
    fn an_sdk_request_object_decides() {
        use idemcheck_spec::Judgement;
        let src = r#"
pub struct S { client: grammers_client::Client }
#[rmcp::tool_router]
impl S {
    #[rmcp::tool] async fn history(&self) { self.client.invoke(&tl::functions::messages::GetHistory { peer, limit: 10 }).await; }
    #[rmcp::tool] async fn send(&self) { self.client.invoke(&tl::functions::messages::SendMessage { peer, message }).await; }
    #[rmcp::tool] async fn built(&self) { self.client.invoke(&DeleteMessages::new(ids)).await; }
}
"#;
        assert_eq!(kind_of(src, "history"), Judgement::Read);
        assert_eq!(kind_of(src, "send"), Judgement::Write);
        assert_eq!(kind_of(src, "built"), Judgement::Write);
    }
}
