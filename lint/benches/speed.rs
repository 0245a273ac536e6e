//! Speed benchmark (not a timed test): generates synthetic workspaces of 10k, 100k and 1M
//! lines (one tool per 50 lines, in rotating styles: rmcp `#[tool]`, rig `impl Tool`,
//! rust-mcp-sdk `#[mcp_tool]`, `#[side_effect]`, `#[rig_tool]`), then measures in separate
//! child processes, interleaved, best of five:
//!
//! - `lint`: the whole analysis (parallel parse + collect, index, rules, report);
//! - `parse`: a bare parallel `syn::parse_file` of the same files;
//! - `cli`: the `cargo-idemcheck` binary end to end (including `cargo metadata`; cold, with
//!   `--no-cache`, as the rounds run on the same tree);
//!
//! and prints times, the lint/parse ratio and each child's peak memory (VmHWM).
//!
//! Run: `cargo bench -p cargo-idemcheck --bench speed` (or with `-- 10000 100000` for sizes).
//!
//! Real code: `cargo bench -p cargo-idemcheck --bench speed -- --real DIR [DIR ...]` (each
//! DIR a workspace root) reports the lint as `check` runs it, cold and with its incremental
//! cache warm, against a bare parallel parse of exactly the files it read; medians of 11
//! interleaved rounds (`REAL_ROUNDS` to change).
//! `lint/benches/speed.sh` fetches the pinned workspaces and runs this benchmark (synthetic
//! and real) and the pre-commit one: all the speed figures from one command.
//!
//! Path mode, as pre-commit runs the lint (`cargo-idemcheck FILE...`, every file given):
//! `cargo bench -p cargo-idemcheck --bench speed -- --path DIR [DIR ...]` (also printed after
//! the `--real` table, and for the synthetic sizes) times whole processes from outside,
//! interleaved: the lint given every file of the workspace's module trees (cold,
//! `--no-cache`; human output, as a hook prints it; with the lexical prefilter and with
//! `--all-files`) against a process that only parses the same files in parallel
//! (`speed --parse-files FILE...`); medians of 11 rounds (`PATH_ROUNDS` to change).
//!
//! Two builds: `cargo bench -p cargo-idemcheck --bench speed -- --ab OTHER DIR...` (OTHER the
//! `speed` bench binary of the other build) interleaves their cold `--all-files` lints and the
//! bare parse, medians of 11 (`AB_ROUNDS` to change).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;

// The allocator of the `cargo-idemcheck` binary, for both the lint and the bare parse.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const LINES_PER_FILE: usize = 500;
const LINES_PER_TOOL: usize = 50;
const ROUNDS: usize = 5;

fn unit(i: usize) -> String {
    let body = match i % 5 {
        0 => format!(
            r#"pub struct Server{i} {{ http: reqwest::Client, url: String }}

#[rmcp::tool_router]
impl Server{i} {{
    #[rmcp::tool(description = "Create order {i}", annotations(destructive_hint = false))]
    async fn create_order_{i}(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, String> {{
        let body = serde_json::json!({{ "id": args.order_id, "n": {i} }});
        self.send_{i}(&body).await
    }}

    async fn send_{i}(&self, body: &serde_json::Value) -> Result<String, String> {{
        let r = self.http.post(format!("{{}}/orders", self.url)).json(body).send().await;
        r.map(|r| r.status().to_string()).map_err(|e| e.to_string())
    }}
}}
"#
        ),
        1 => format!(
            r#"pub struct Lookup{i} {{ client: reqwest::Client }}

impl Tool for Lookup{i} {{
    const NAME: &'static str = "lookup_{i}";
    type Error = ToolError;
    type Args = LookupArgs;
    type Output = String;

    async fn call(&self, args: Self::Args) -> Result<String, ToolError> {{
        let mut tries = 0;
        loop {{
            tries += 1;
            match self.client.get(&args.url).send().await {{
                Ok(r) => return r.text().await.map_err(|_| ToolError),
                Err(_) if tries < 3 => continue,
                Err(_) => return Err(ToolError),
            }}
        }}
    }}
}}
"#
        ),
        2 => format!(
            r#"#[mcp_tool(name = "notify_{i}", description = "Notify", read_only_hint = true)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Notify{i} {{ pub to: String, pub text: String }}

impl Notify{i} {{
    pub async fn call_tool(&self, db: &sqlx::PgPool) -> Result<CallToolResult, CallToolError> {{
        sqlx::query("INSERT INTO outbox (to_addr, body) VALUES ($1, $2)")
            .bind(&self.to)
            .bind(&self.text)
            .execute(db)
            .await
            .map_err(CallToolError::new)?;
        Ok(CallToolResult::text_content(vec![]))
    }}
}}
"#
        ),
        3 => format!(
            r#"#[side_effect(key = [customer, order_id], verify = find_charge_{i}, max_retries = 1, settle_ms = 30_000)]
pub async fn charge_{i}(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {{
    billing.http.post(format!("{{}}/charges", billing.url)).json(&args).send().await?.json().await
}}

pub async fn find_charge_{i}(billing: &Billing, args: &ChargeArgs) -> Result<Option<Charge>, BillingError> {{
    let url = format!("{{}}/charges?order={{}}", billing.url, args.order_id);
    let r = billing.http.get(url).send().await?;
    if r.status() == 404 {{ return Ok(None); }}
    Ok(Some(r.json().await?))
}}
"#
        ),
        _ => format!(
            r#"#[rig_tool(description = "Status {i}", params(service = "name"))]
async fn status_{i}(service: String) -> Result<String, ToolError> {{
    let out = std::process::Command::new("git").args(["status", "--porcelain"]).arg(&service).output();
    match out {{
        Ok(o) => Ok(String::from_utf8_lossy(&o.stdout).into_owned()),
        Err(e) => Err(ToolError::from(e)),
    }}
}}
"#
        ),
    };
    // Pad with an ordinary helper to LINES_PER_TOOL lines.
    let mut s = body;
    let used = s.lines().count();
    s.push_str(&format!(
        "\nfn helper_{i}(values: &[u64]) -> u64 {{\n    let mut acc = 0u64;\n"
    ));
    let pad = LINES_PER_TOOL.saturating_sub(used + 5);
    // Ordinary code: statements, comments and blank lines, as in real files.
    for k in 0..pad {
        let line = match k % 4 {
            0 => format!("    // step {k}: fold the next value into the accumulator"),
            1 => format!("    let x{k} = values.len() as u64 + {k};"),
            2 => String::new(),
            _ => format!("    acc = acc.wrapping_add(x{});", k - 2),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("    acc\n}\n");
    s
}

const HEADER: &str = "use rmcp::handler::server::wrapper::Parameters;\nuse rig::tool::Tool;\nuse idemcheck::side_effect;\nuse serde::Deserialize;\n\n";

/// Generate a workspace of about `lines` lines; returns its directory and the file list.
fn generate(dir: &Path, lines: usize) -> Vec<PathBuf> {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"synthetic\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    let files = lines.div_ceil(LINES_PER_FILE);
    let tools_per_file = LINES_PER_FILE / LINES_PER_TOOL;
    let mut lib = String::from("//! Synthetic.\n");
    let mut paths = vec![src.join("lib.rs")];
    for f in 0..files {
        lib.push_str(&format!("mod m{f};\n"));
        let mut text = String::from(HEADER);
        for t in 0..tools_per_file {
            text.push_str(&unit(f * tools_per_file + t));
        }
        let p = src.join(format!("m{f}.rs"));
        std::fs::write(&p, text).unwrap();
        paths.push(p);
    }
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    paths
}

/// This process's counters from /proc/self/stat: minor page faults, user and kernel CPU
/// time (ms). The child modes print their differences over the measured window too.
#[derive(Clone, Copy)]
struct ProcStat {
    faults: u64,
    user_ms: f64,
    sys_ms: f64,
}

impl ProcStat {
    fn now() -> ProcStat {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let after = stat.rsplit(')').next().unwrap_or("");
        let fields: Vec<&str> = after.split_whitespace().collect();
        let num = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        // USER_HZ is 100 on Linux.
        ProcStat {
            faults: num(7) as u64,
            user_ms: num(11) * 10.0,
            sys_ms: num(12) * 10.0,
        }
    }

    /// `faults=.. user_ms=.. sys_ms=..` since `start`.
    fn since(start: ProcStat) -> String {
        let now = ProcStat::now();
        format!(
            "faults={} user_ms={:.0} sys_ms={:.0}",
            now.faults - start.faults,
            now.user_ms - start.user_ms,
            now.sys_ms - start.sys_ms
        )
    }
}

/// User + system CPU time of this process, in milliseconds.
fn cpu_ms() -> f64 {
    let s = ProcStat::now();
    s.user_ms + s.sys_ms
}

fn peak_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn child(mode: &str, dir: &Path) {
    let start = Instant::now();
    let detail = match mode {
        "lint" => {
            let sel = cargo_idemcheck::discover::Selection::default();
            let _ = sel;
            let root = dir.to_path_buf();
            let job = cargo_idemcheck::collect::FileJob {
                path: dir.join("src/lib.rs"),
                rel: "src/lib.rs".into(),
                krate: 0,
                module: Vec::new(),
                mod_rs: true,
                optional: false,
            };
            let plan = cargo_idemcheck::discover::Plan {
                warnings: Vec::new(),
                root,
                crates: vec![cargo_idemcheck::discover::CratePlan {
                    name: "synthetic".into(),
                    config: Default::default(),
                    roots: vec![job],
                    follow_mods: true,
                    package: None,
                }],
                only: None,
                packages: Vec::new(),
                prefilter: false,
                cache: None,
            };
            let t0 = Instant::now();
            let files = cargo_idemcheck::analysis::collect_all_with(&plan, false);
            let t1 = Instant::now();
            let peak_collect = peak_kb();
            let a = cargo_idemcheck::analysis::analyze_files(&plan, &files);
            let json = cargo_idemcheck::report::json::render(&a);
            let t2 = Instant::now();
            let s = &a.report.summary;
            format!(
                "collect={:.0}ms (peak {} MB) rules+report={:.0}ms files={} tools={} write={} findings={} json_bytes={}",
                (t1 - t0).as_secs_f64() * 1000.0,
                peak_collect / 1024,
                (t2 - t1).as_secs_f64() * 1000.0,
                s.files,
                s.tools,
                s.write_tools,
                a.report.findings.len(),
                json.len()
            )
        }
        "lint-real" | "lint-real-all" | "lint-real-warm" | "lint-real-all-warm" => {
            // A real workspace: the plan from `cargo metadata` (made before the clock starts,
            // like the file list of `parse-real`), then what `check` does: with the lexical
            // prefilter (the default), or parsing every file (`--all-files`). Warm: with the
            // incremental cache (in the target directory the parent chose) filled by an
            // earlier run; the clock starts before the plan, so reading the cache counts.
            let all_files = mode.starts_with("lint-real-all");
            let warm = mode.ends_with("-warm");
            let sel = cargo_idemcheck::discover::Selection {
                manifest_path: Some(dir.join("Cargo.toml")),
                workspace: true,
                all_files,
                cache: warm,
                ..Default::default()
            };
            let (t_plan, k_plan) = (Instant::now(), ProcStat::now());
            let plan = cargo_idemcheck::discover::plan(&sel).expect("a plan");
            // The window's counters start with its clock.
            let (t0, k0) = if warm {
                (t_plan, k_plan)
            } else {
                (Instant::now(), ProcStat::now())
            };
            let (files, _) = cargo_idemcheck::analysis::collect_prefiltered(&plan, false);
            let t_collected = t0.elapsed().as_secs_f64() * 1000.0;
            let a = cargo_idemcheck::analysis::analyze_files(&plan, &files);
            let t_analyzed = t0.elapsed().as_secs_f64() * 1000.0;
            let json = cargo_idemcheck::report::json::render(&a);
            if let Some(cache) = &plan.cache {
                cache.save().expect("the cache saved");
            }
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            let window = ProcStat::since(k0);
            // Every file of the workspace, for `parse-real` to parse the same ones.
            if all_files {
                let list: Vec<String> =
                    files.iter().map(|f| f.path.display().to_string()).collect();
                std::fs::write(real_list(dir), list.join("\n")).expect("file list");
            }
            let lines: usize = files
                .iter()
                .map(|f| std::fs::read_to_string(&f.path).map_or(0, |t| t.lines().count()))
                .sum();
            println!(
                "{ms:.1} {} {:.0} files={} lines={lines} tools={} json_bytes={} {window} collected_ms={t_collected:.0} analyzed_ms={t_analyzed:.0}",
                peak_kb(),
                cpu_ms(),
                files.len(),
                a.report.summary.tools,
                json.len(),
            );
            return;
        }
        "parse-real" => {
            let list = std::fs::read_to_string(real_list(dir)).expect("run lint-real first");
            let files: Vec<PathBuf> = list.lines().map(PathBuf::from).collect();
            let t0 = Instant::now();
            let k0 = ProcStat::now();
            let ok = parse_all(&files);
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            let window = ProcStat::since(k0);
            println!("{ms:.1} {} {:.0} files={ok} {window}", peak_kb(), cpu_ms());
            return;
        }
        "parse-visit-real" => {
            // The floor of any lint that walks the trees it parses: the bare parse plus one
            // empty `syn::visit` walk of each tree.
            let list = std::fs::read_to_string(real_list(dir)).expect("run lint-real first");
            let files: Vec<PathBuf> = list.lines().map(PathBuf::from).collect();
            let t0 = Instant::now();
            let ok: usize = files
                .par_iter()
                .map(|p| {
                    struct Walk;
                    impl<'a> syn::visit::Visit<'a> for Walk {}
                    let text = std::fs::read_to_string(p).unwrap_or_default();
                    let parsed = match syn::parse_file(&text) {
                        Ok(file) => {
                            syn::visit::Visit::visit_file(&mut Walk, &file);
                            true
                        }
                        Err(_) => false,
                    };
                    proc_macro2::extra::invalidate_current_thread_spans();
                    usize::from(parsed)
                })
                .sum();
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            println!("{ms:.1} {} {:.0} files={ok}", peak_kb(), cpu_ms());
            return;
        }
        "parse" => {
            let files = cargo_idemcheck::discover::walk_rs(dir);
            format!("files={}", parse_all(&files))
        }
        _ => unreachable!(),
    };
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    println!("{ms:.1} {} {:.0} {detail}", peak_kb(), cpu_ms());
}

/// How many rounds: the variable `var` (`AB_ROUNDS=25` for a closer look), else `default`.
fn rounds_from_env(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(default)
}

/// The floor: a bare parallel `syn::parse_file` of `files`; how many parsed.
fn parse_all(files: &[PathBuf]) -> usize {
    files
        .par_iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            let parsed = syn::parse_file(&text).is_ok();
            proc_macro2::extra::invalidate_current_thread_spans();
            usize::from(parsed)
        })
        .sum()
}

/// The target directory (so the incremental cache) of the warm modes on `dir`.
fn bench_target(dir: &Path) -> PathBuf {
    std::env::temp_dir().join(format!(
        "idemcheck-speed-target-{}",
        dir.display().to_string().replace(['/', '\\', ':'], "_")
    ))
}

/// Where `lint-real` leaves the list of files it read, for `parse-real`.
fn real_list(dir: &Path) -> PathBuf {
    std::env::temp_dir().join(format!(
        "idemcheck-speed-{}.files",
        dir.display().to_string().replace(['/', '\\', ':'], "_")
    ))
}

/// Real workspaces (`--real DIR ...`): the lint as `check` runs it after `cargo metadata`
/// (with the lexical prefilter, the default, and with `--all-files`, every file parsed),
/// cold (no cache) and warm (the incremental cache filled by an earlier run, nothing
/// changed since), against a bare parallel parse of every file of the workspace's module
/// trees (the files the `--all-files` run parses), and that parse plus an empty
/// `syn::visit` walk of each tree (the floor of a lint that walks what it parses);
/// interleaved rounds, the median of each (times from inside the child: cold after the
/// plan, warm including the plan, which reads the cache; CPU and peak memory for the whole
/// child). The last row sums the workspaces.
fn real(dirs: &[PathBuf]) {
    // More rounds than the synthetic sizes: real workspaces are where the targets are judged,
    // and the clock of a shared machine swings by a fifth between runs.
    let rounds = rounds_from_env("REAL_ROUNDS", 11);
    println!(
        "real workspaces: {rounds} interleaved rounds, medians; {} threads",
        rayon::current_num_threads()
    );
    println!(
        "| workspace | files | lines | lint | lint, warm | `--all-files` | `--all-files`, warm | bare parse | parse + empty walk | lint / parse | all / parse | all / parse, best times | CPU lint / all / parse | peak lint / all / all warm / parse |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut total_ms, mut total_cpu, mut total_best) = ([0.0f64; 6], [0.0f64; 6], [0.0f64; 6]);
    let (mut files_total, mut lines_total) = (0usize, 0usize);
    for dir in dirs {
        // Warm-up: page cache, the file list for `parse-real`, the caches of the warm modes.
        measure_once("lint-real-all", dir);
        measure_once("lint-real-warm", dir);
        measure_once("lint-real-all-warm", dir);
        let modes = [
            "lint-real",
            "lint-real-warm",
            "lint-real-all",
            "lint-real-all-warm",
            "parse-real",
            "parse-visit-real",
        ];
        let mut samples: Vec<Vec<Sample>> = modes.iter().map(|_| Vec::new()).collect();
        for _ in 0..rounds {
            for (mode, v) in modes.iter().zip(&mut samples) {
                v.push(measure_once(mode, dir));
            }
        }
        let ms: Vec<f64> = samples.iter().map(|v| median(v, |s| s.ms)).collect();
        // The best time of each mode too: on a shared machine the least disturbed run.
        let best: Vec<f64> = samples
            .iter()
            .map(|v| v.iter().map(|s| s.ms).fold(f64::INFINITY, f64::min))
            .collect();
        let cpu: Vec<f64> = samples.iter().map(|v| median(v, |s| s.cpu)).collect();
        let mb: Vec<f64> = samples
            .iter()
            .map(|v| median(v, |s| s.kb as f64) / 1024.0)
            .collect();
        let detail = &samples[2][0].detail;
        let field = |k: &str| -> usize {
            detail
                .split_whitespace()
                .find_map(|w| w.strip_prefix(k))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        let (files, lines) = (field("files="), field("lines="));
        files_total += files;
        lines_total += lines;
        for (t, v) in total_ms.iter_mut().zip(&ms) {
            *t += v;
        }
        for (t, v) in total_cpu.iter_mut().zip(&cpu) {
            *t += v;
        }
        for (t, v) in total_best.iter_mut().zip(&best) {
            *t += v;
        }
        let name = dir
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .rev()
            .take(2)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect::<Vec<_>>()
            .join("/");
        print_row(&name, files, lines, &ms, &best, &cpu, Some(&mb));
    }
    if dirs.len() > 1 {
        print_row(
            "**all**",
            files_total,
            lines_total,
            &total_ms,
            &total_best,
            &total_cpu,
            None,
        );
    }
}

/// One row of the real-code table: median times, best times and CPU per mode in `real`'s
/// order (lint, warm, all, all warm, parse, parse + walk), peak memory when the row is one
/// workspace.
fn print_row(
    name: &str,
    files: usize,
    lines: usize,
    ms: &[f64],
    best: &[f64],
    cpu: &[f64],
    mb: Option<&[f64]>,
) {
    let memory = mb.map_or(String::new(), |mb| {
        format!(
            "{:.0} / {:.0} / {:.0} / {:.0} MB",
            mb[0], mb[2], mb[3], mb[4]
        )
    });
    println!(
        "| {name} | {files} | {lines} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {:.2}× | {:.2}× | {:.2}× | {:.0} / {:.0} / {:.0} ms | {memory} |",
        ms[0],
        ms[1],
        ms[2],
        ms[3],
        ms[4],
        ms[5],
        ms[0] / ms[4],
        ms[2] / ms[4],
        best[2] / best[4],
        cpu[0],
        cpu[2],
        cpu[4],
    );
}

/// The median of one measure over samples.
fn median(v: &[Sample], f: fn(&Sample) -> f64) -> f64 {
    let mut xs: Vec<f64> = v.iter().map(f).collect();
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Two builds compared on real workspaces (`--ab OTHER DIR...`, OTHER the `speed` bench
/// binary of the other build, e.g. built from another commit with its own
/// `CARGO_TARGET_DIR`): the cold `--all-files` lint of each and the bare parse, interleaved,
/// 11 rounds (or `AB_ROUNDS`), medians of wall and CPU time. On a shared machine whose clock swings
/// by a fifth between full runs, this is how a change is measured.
fn ab(other: &Path, dirs: &[PathBuf]) {
    let rounds = rounds_from_env("AB_ROUNDS", 11);
    println!(
        "A/B: this build against {}; {rounds} interleaved rounds, medians",
        other.display()
    );
    println!(
        "| workspace | other build | this build | change | bare parse | other / parse | this / parse | CPU other / this / parse |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let this = std::env::current_exe().unwrap();
    for dir in dirs {
        // The file list for `parse-real`, and a warm page cache.
        measure_once("lint-real-all", dir);
        let mut samples: [Vec<Sample>; 3] = Default::default();
        for _ in 0..rounds {
            samples[0].push(run_child(other, "lint-real-all", dir));
            samples[1].push(run_child(&this, "lint-real-all", dir));
            samples[2].push(run_child(&this, "parse-real", dir));
        }
        let ms: Vec<f64> = samples.iter().map(|v| median(v, |s| s.ms)).collect();
        let cpu: Vec<f64> = samples.iter().map(|v| median(v, |s| s.cpu)).collect();
        println!(
            "| {} | {:.1} ms | {:.1} ms | {:+.1}% | {:.1} ms | {:.2}× | {:.2}× | {:.0} / {:.0} / {:.0} ms |",
            dir.display(),
            ms[0],
            ms[1],
            (ms[1] / ms[0] - 1.0) * 100.0,
            ms[2],
            ms[0] / ms[2],
            ms[1] / ms[2],
            cpu[0],
            cpu[1],
            cpu[2]
        );
    }
}

/// One measurement: wall time, CPU time, peak memory, details.
struct Sample {
    ms: f64,
    cpu: f64,
    kb: u64,
    detail: String,
}

fn measure_once(mode: &str, dir: &Path) -> Sample {
    if mode != "cli" {
        return run_child(&std::env::current_exe().unwrap(), mode, dir);
    }
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-idemcheck"))
        .args([
            "idemcheck",
            "--no-cache",
            "--message-format",
            "json",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .output()
        .unwrap();
    Sample {
        ms: start.elapsed().as_secs_f64() * 1000.0,
        cpu: f64::NAN,
        kb: 0,
        detail: format!("exit={:?} bytes={}", out.status.code(), out.stdout.len()),
    }
}

/// One `--child MODE DIR` run of the benchmark binary `exe` (this build's or another's):
/// what it printed, `ms kb cpu detail...`.
fn run_child(exe: &Path, mode: &str, dir: &Path) -> Sample {
    let out = Command::new(exe)
        .args(["--child", mode])
        .arg(dir)
        // The warm modes' cache: the benchmark's own, not in the measured tree.
        .env("CARGO_TARGET_DIR", bench_target(dir))
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    let mut parts = s.trim().splitn(4, ' ');
    let mut num = || {
        parts
            .next()
            .unwrap_or("")
            .parse::<f64>()
            .unwrap_or(f64::NAN)
    };
    let (ms, kb, cpu) = (num(), num(), num());
    Sample {
        ms,
        cpu,
        kb: kb as u64,
        detail: parts.next().unwrap_or("").to_string(),
    }
}

/// The wall time of one whole process, from outside (the lint's start-up, `cargo metadata`,
/// output and exit included), in milliseconds.
fn process_ms(cmd: &mut Command) -> f64 {
    let start = Instant::now();
    let out = cmd.output().expect("the process runs");
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    ms
}

/// Path mode against a bare parse of the same files, whole processes: `files` given to
/// `cargo-idemcheck` in `dir` (cold: `--no-cache`; human output, as pre-commit shows it), with
/// the lexical prefilter and with `--all-files`, and to `speed --parse-files`; interleaved
/// `rounds`, medians in milliseconds: `[path, path --all-files, parse]`.
fn path_mode(dir: &Path, files: &[PathBuf], rounds: usize) -> [f64; 3] {
    let lint = |all: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-idemcheck"));
        c.current_dir(dir)
            .env("NO_COLOR", "1")
            .args(["idemcheck", "--no-cache"]);
        if all {
            c.arg("--all-files");
        }
        c.args(files);
        c
    };
    let parse = || {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.current_dir(dir).arg("--parse-files").args(files);
        c
    };
    // Warm-up: the page cache, cargo's own files.
    process_ms(&mut lint(true));
    process_ms(&mut parse());
    let mut samples: [Vec<f64>; 3] = Default::default();
    for _ in 0..rounds {
        samples[0].push(process_ms(&mut lint(false)));
        samples[1].push(process_ms(&mut lint(true)));
        samples[2].push(process_ms(&mut parse()));
    }
    samples.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    })
}

/// The path-mode table (`--path DIR...`, and after `--real`): each workspace's module-tree
/// files (as `--all-files` reads them) given as paths; the last row sums the workspaces.
fn path_table(dirs: &[PathBuf]) {
    let rounds = rounds_from_env("PATH_ROUNDS", 11);
    println!(
        "path mode, whole processes: {rounds} interleaved rounds, medians; {} threads",
        rayon::current_num_threads()
    );
    println!(
        "| workspace | files given | `cargo-idemcheck FILE...` | with `--all-files` | bare parse of the same files | path / parse | all / parse |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let (mut total, mut n) = ([0.0f64; 3], 0usize);
    for dir in dirs {
        // The file list: what the `--all-files` run reads.
        measure_once("lint-real-all", dir);
        let list = std::fs::read_to_string(real_list(dir)).expect("the file list");
        let files: Vec<PathBuf> = list.lines().map(PathBuf::from).collect();
        let ms = path_mode(dir, &files, rounds);
        for (t, v) in total.iter_mut().zip(&ms) {
            *t += v;
        }
        n += files.len();
        println!(
            "| {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {:.2}× | {:.2}× |",
            dir.display(),
            files.len(),
            ms[0],
            ms[1],
            ms[2],
            ms[0] / ms[2],
            ms[1] / ms[2]
        );
    }
    if dirs.len() > 1 {
        println!(
            "| **all** | {n} | {:.1} ms | {:.1} ms | {:.1} ms | {:.2}× | {:.2}× |",
            total[0],
            total[1],
            total[2],
            total[0] / total[2],
            total[1] / total[2]
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--generate") {
        generate(
            Path::new(&args[i + 1]),
            args[i + 2].parse().expect("a line count"),
        );
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--parse-files") {
        // A whole process that only parses: the floor of a path-mode run (`--path`).
        let files: Vec<PathBuf> = args[i + 1..]
            .iter()
            .filter(|a| !a.starts_with("--"))
            .map(PathBuf::from)
            .collect();
        let ok = parse_all(&files);
        println!("parsed {ok} of {}", files.len());
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], Path::new(&args[i + 2]));
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--ab") {
        // `--ab OTHER DIR...`: OTHER is the `speed` bench binary of another build.
        let rest: Vec<&String> = args[i + 1..]
            .iter()
            .filter(|a| !a.starts_with("--"))
            .collect();
        let (other, dirs) = rest.split_first().expect("--ab OTHER_SPEED_BINARY DIR...");
        let dirs: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
        ab(Path::new(other), &dirs);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--real") {
        // (cargo adds `--bench` to a harness-less benchmark's arguments.)
        let dirs: Vec<PathBuf> = args[i + 1..]
            .iter()
            .filter(|a| !a.starts_with("--"))
            .map(PathBuf::from)
            .collect();
        real(&dirs);
        path_table(&dirs);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--path") {
        let dirs: Vec<PathBuf> = args[i + 1..]
            .iter()
            .filter(|a| !a.starts_with("--"))
            .map(PathBuf::from)
            .collect();
        path_table(&dirs);
        return;
    }
    let sizes: Vec<usize> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    println!(
        "threads: {}; one tool per {LINES_PER_TOOL} lines, {LINES_PER_FILE} lines per file",
        rayon::current_num_threads()
    );
    println!(
        "{:>9} {:>6} {:>7} | {:>8} {:>8} {:>6} | {:>8} {:>8} {:>6} | {:>8} | {:>9} {:>10}",
        "lines",
        "files",
        "tools",
        "lint ms",
        "parse ms",
        "ratio",
        "lint cpu",
        "parse cpu",
        "ratio",
        "cli ms",
        "lint peak",
        "parse peak"
    );
    for lines in sizes {
        let tmp = tempfile::tempdir().unwrap();
        let files = generate(tmp.path(), lines);
        let real_lines: usize = files
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
            .sum();
        // Rounds interleave the modes, so a burst of load on the machine hits them alike;
        // the best of ROUNDS is kept for each.
        let (mut lint, mut parse, mut cli) = (None::<Sample>, None::<Sample>, None::<Sample>);
        for _ in 0..ROUNDS {
            for (mode, slot) in [
                ("lint", &mut lint),
                ("parse", &mut parse),
                ("cli", &mut cli),
            ] {
                let s = measure_once(mode, tmp.path());
                if slot.as_ref().is_none_or(|b| s.ms < b.ms) {
                    *slot = Some(s);
                }
            }
        }
        let (lint, parse, cli) = (lint.unwrap(), parse.unwrap(), cli.unwrap());
        let tools = lint
            .detail
            .split_whitespace()
            .find_map(|w| w.strip_prefix("tools="))
            .unwrap_or("?")
            .to_string();
        println!(
            "{:>9} {:>6} {:>7} | {:>8.1} {:>8.1} {:>6.2} | {:>8.0} {:>9.0} {:>6.2} | {:>8.1} | {:>6} MB {:>7} MB",
            real_lines,
            files.len(),
            tools,
            lint.ms,
            parse.ms,
            lint.ms / parse.ms,
            lint.cpu,
            parse.cpu,
            lint.cpu / parse.cpu,
            cli.ms,
            lint.kb / 1024,
            parse.kb / 1024
        );
        println!("          lint: {}; cli: {}", lint.detail, cli.detail);
        // Path mode, whole processes: every file given, against a process that parses them.
        let path = path_mode(tmp.path(), &files, ROUNDS);
        println!(
            "          path mode (processes, median of {ROUNDS}): `cargo-idemcheck FILE...` {:.1} ms, `--all-files` {:.1} ms, bare parse {:.1} ms: {:.2}×, {:.2}×",
            path[0],
            path[1],
            path[2],
            path[0] / path[2],
            path[1] / path[2]
        );
    }
}
