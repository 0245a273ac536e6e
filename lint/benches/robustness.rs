//! Robustness on real code (not a timed test): every `.rs` file under each DIR (tests,
//! benches and examples included; `target/` skipped) through the lint's per-file analysis and
//! rules, each in `catch_unwind`; then `cargo idemcheck --workspace --all-files` end to end on
//! each DIR that is a workspace, three times: `--no-cache`, with a fresh incremental cache and
//! with it warm (the three reports must be the same, and the warm run must parse nothing;
//! the times shown are the first and the last). Reports files, bytes, files syn cannot
//! parse (the lint's IDEM012: not Rust this parser knows, e.g. deliberately broken test
//! inputs), panics and exit codes. Panics, exit code 2, differing reports and a warm run
//! that parsed are failures (the process exits 1).
//!
//! `lint/benches/robustness.sh` fetches the pinned workspaces (about 65 MB of Rust) and runs
//! `cargo bench -p cargo-idemcheck --bench robustness -- DIR...`.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct FileResult {
    bytes: u64,
    unparsable: bool,
    panic: Option<String>,
}

fn check_file(root: &Path, path: &Path) -> FileResult {
    let Ok(text) = std::fs::read(path) else {
        return FileResult {
            bytes: 0,
            unparsable: true,
            panic: None,
        };
    };
    let bytes = text.len() as u64;
    let text = String::from_utf8_lossy(&text).into_owned();
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    let out = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let a = cargo_idemcheck::analysis::analyze_sources(
            &[(rel.as_str(), text.as_str())],
            idemcheck_spec::config::Config::default(),
        );
        let _ = cargo_idemcheck::report::json::render(&a);
        a.report
            .findings
            .iter()
            .any(|f| f.code == idemcheck_spec::RuleCode::Idem012)
    }));
    match out {
        Ok(unparsable) => FileResult {
            bytes,
            unparsable,
            panic: None,
        },
        Err(p) => FileResult {
            bytes,
            unparsable: false,
            panic: Some(format!(
                "{rel}: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        },
    }
}

fn main() {
    let dirs: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        eprintln!("usage: cargo bench -p cargo-idemcheck --bench robustness -- DIR...");
        std::process::exit(2);
    }
    std::panic::set_hook(Box::new(|_| {}));
    println!(
        "{:<22} {:>6} {:>9} {:>11} {:>7} {:>9} | {:>9} {:>5} {:>15}",
        "workspace",
        "files",
        "MB",
        "unparsable",
        "panics",
        "per-file",
        "cli exit",
        "tools",
        "cli cold, warm"
    );
    let mut failed = false;
    let (mut all_files, mut all_bytes) = (0usize, 0u64);
    for dir in &dirs {
        let files = cargo_idemcheck::discover::walk_rs(dir);
        let t = Instant::now();
        let results: Vec<FileResult> = files.par_iter().map(|f| check_file(dir, f)).collect();
        let per_file = t.elapsed();
        let bytes: u64 = results.iter().map(|r| r.bytes).sum();
        let unparsable = results.iter().filter(|r| r.unparsable).count();
        let panics: Vec<&String> = results.iter().filter_map(|r| r.panic.as_ref()).collect();
        all_files += files.len();
        all_bytes += bytes;
        let (exit, tools, cli) = if dir.join("Cargo.toml").is_file() {
            // Three runs: without the cache, then with a fresh one (cold), then warm; the
            // reports must be one.
            let target = std::env::temp_dir().join(format!(
                "idemcheck-robustness-{}-{}",
                std::process::id(),
                dir.file_name().unwrap_or_default().to_string_lossy()
            ));
            let _ = std::fs::remove_dir_all(&target);
            let run = |extra: &[&str]| {
                let t = Instant::now();
                let out = Command::new(env!("CARGO_BIN_EXE_cargo-idemcheck"))
                    .args([
                        "idemcheck",
                        "--workspace",
                        "--all-files",
                        "--message-format",
                        "json",
                    ])
                    .args(extra)
                    .arg("--manifest-path")
                    .arg(dir.join("Cargo.toml"))
                    .env("CARGO_TARGET_DIR", &target)
                    .env("IDEMCHECK_CACHE_STATS", "1")
                    .output()
                    .expect("run cargo-idemcheck");
                (out, t.elapsed())
            };
            let (out, took) = run(&["--no-cache"]);
            let (cold, _) = run(&[]);
            let (warm, warm_took) = run(&[]);
            let _ = std::fs::remove_dir_all(&target);
            let code = out.status.code().unwrap_or(-1);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if code == 2 || code < 0 || stderr.contains("panicked") {
                failed = true;
                println!("  {}: exit {code}: {}", dir.display(), stderr.trim());
            }
            // And the warm run really used the cache: nothing parsed again.
            let warm_stats = String::from_utf8_lossy(&warm.stderr);
            if !warm_stats.contains(" 0 parsed") {
                failed = true;
                println!(
                    "  {}: the warm run did not use the cache: {}",
                    dir.display(),
                    warm_stats.trim()
                );
            }
            for (name, o) in [("cold", &cold), ("warm", &warm)] {
                if o.stdout != out.stdout || o.status.code() != out.status.code() {
                    failed = true;
                    println!(
                        "  {}: the report with the cache {name} differs from the one without",
                        dir.display()
                    );
                }
            }
            let tools = serde_json::from_slice::<serde_json::Value>(&out.stdout)
                .ok()
                .and_then(|v| v["summary"]["tools"].as_u64())
                .map_or("-".to_string(), |n| n.to_string());
            (
                code.to_string(),
                tools,
                format!(
                    "{:.2} s, {:.2} s",
                    took.as_secs_f64(),
                    warm_took.as_secs_f64()
                ),
            )
        } else {
            ("-".into(), "-".into(), "-".into())
        };
        println!(
            "{:<22} {:>6} {:>9.1} {:>11} {:>7} {:>7.2} s | {:>9} {:>5} {:>15}",
            dir.file_name().unwrap_or_default().to_string_lossy(),
            files.len(),
            bytes as f64 / 1e6,
            unparsable,
            panics.len(),
            per_file.as_secs_f64(),
            exit,
            tools,
            cli
        );
        for p in panics.iter().take(10) {
            println!("  PANIC {p}");
        }
        failed |= !panics.is_empty();
    }
    println!(
        "total: {all_files} files, {:.1} MB of Rust",
        all_bytes as f64 / 1e6
    );
    std::process::exit(i32::from(failed));
}
