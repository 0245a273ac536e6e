//! pre-commit benchmark (not a timed test): how long `cargo idemcheck` takes as a pre-commit
//! hook with a handful of staged files, once built.
//!
//! Two temporary git repositories: the example crate (`examples/agent-tools`) on its own, and
//! a copy of this whole repository's tracked files (every member is read, since a hook reads
//! the whole workspace to resolve helpers). In each, five Rust files of the example are
//! staged, and these are measured, interleaved, `ROUNDS` times each (median and best):
//!
//! - `hook`: `cargo-idemcheck FILE...`, the process pre-commit's `idemcheck-system` hook runs;
//! - `cargo idemcheck`: the same through cargo's subcommand dispatch;
//! - `pre-commit`: `pre-commit run idemcheck-system --files FILE...`, end to end;
//! - `pre-commit no-op`: the same with a hook whose entry is `true`, i.e. pre-commit's own
//!   cost; `pre-commit` minus this is what the check adds to a commit.
//!
//! Run: `cargo bench -p cargo-idemcheck --bench precommit` (needs `pre-commit` on PATH).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const ROUNDS: usize = 21;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn sh(dir: &Path, program: &str, args: &[&str], path: &str) -> std::process::Output {
    Command::new(program)
        .current_dir(dir)
        .args(args)
        .env("PATH", path)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.invalid")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.invalid")
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

const STAGED: &[&str] = &[
    "src/billing.rs",
    "src/email.rs",
    "src/tickets.rs",
    "src/mcp.rs",
    "src/lib.rs",
];

const CONFIG: &str = "repos:\n  - repo: local\n    hooks:\n      - id: idemcheck-system\n        name: idemcheck\n        entry: cargo-idemcheck\n        language: system\n        types_or: [rust, toml]\n        require_serial: true\n      - id: noop\n        name: no-op\n        entry: \"true\"\n        language: system\n        types_or: [rust, toml]\n        require_serial: true\n";

/// The example crate as a repository of its own.
fn example_repo(dir: &Path) -> PathBuf {
    let root = dir.join("example");
    copy_dir(
        &repo_root().join("examples/agent-tools/src"),
        &root.join("src"),
    );
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"agent-tools\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nidemcheck = { version = \"0.1\", features = [\"rmcp\"] }\n\n[workspace]\n",
    )
    .unwrap();
    root
}

/// This repository's tracked files (its HEAD), as a repository of its own.
fn whole_repo(dir: &Path, path: &str) -> PathBuf {
    let root = dir.join("whole");
    std::fs::create_dir_all(&root).unwrap();
    let archive = sh(
        &repo_root(),
        "git",
        &["archive", "--format=tar", "HEAD"],
        path,
    );
    assert!(archive.status.success(), "git archive");
    let tar = dir.join("head.tar");
    std::fs::write(&tar, &archive.stdout).unwrap();
    let out = sh(&root, "tar", &["-xf", tar.to_str().unwrap()], path);
    assert!(out.status.success(), "tar");
    root
}

fn init(root: &Path, path: &str) {
    std::fs::write(root.join(".pre-commit-config.yaml"), CONFIG).unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "initial"],
    ] {
        let out = sh(root, "git", args, path);
        assert!(out.status.success(), "git {args:?}");
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_cargo-idemcheck"));
    let bin_dir = bin.parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    if sh(Path::new("/"), "pre-commit", &["--version"], &path)
        .status
        .code()
        != Some(0)
    {
        eprintln!("pre-commit is not installed (`pip install pre-commit`): nothing measured");
        std::process::exit(1);
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tmp =
        std::env::temp_dir().join(format!("idemcheck-precommit-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let home = tmp.join("pre-commit-cache");
    println!(
        "pre-commit benchmark: {} staged files, {ROUNDS} rounds, interleaved; median (best)\n",
        STAGED.len()
    );
    println!(
        "| workspace | files read | hook (`cargo-idemcheck FILE...`) | `cargo idemcheck FILE...` | `pre-commit run` | pre-commit no-op | check's share (run - no-op) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, root, prefix) in [
        ("example crate", example_repo(&tmp), ""),
        (
            "this repository",
            whole_repo(&tmp, &path),
            "examples/agent-tools/",
        ),
    ] {
        init(&root, &path);
        let files: Vec<String> = STAGED.iter().map(|f| format!("{prefix}{f}")).collect();
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        // Staged: touched and added, as before a commit.
        for f in &files {
            let p = root.join(f);
            let text = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, format!("{text}\n")).unwrap();
        }
        let mut add = vec!["add"];
        add.extend(&files);
        assert!(sh(&root, "git", &add, &path).status.success());
        let hook: Vec<&str> = files.clone();
        let mut via_cargo = vec!["idemcheck"];
        via_cargo.extend(&files);
        let mut pc = vec!["run", "idemcheck-system", "--files"];
        pc.extend(&files);
        let mut noop = vec!["run", "noop", "--files"];
        noop.extend(&files);
        let run = |program: &str, args: &[&str]| -> Duration {
            let start = Instant::now();
            let out = Command::new(program)
                .current_dir(&root)
                .args(args)
                .env("PATH", &path)
                .env("PRE_COMMIT_HOME", &home)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            let d = start.elapsed();
            assert!(
                out.status.code().is_some_and(|c| c <= 1),
                "{program} {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            d
        };
        let bin_s = bin.to_str().unwrap();
        // Warm up (pre-commit's first run prepares its cache; the page cache).
        run("pre-commit", &pc);
        run("pre-commit", &noop);
        run(bin_s, &hook);
        let summary = Command::new(&bin)
            .current_dir(&root)
            .args(&hook)
            .arg("--message-format=short")
            .output()
            .unwrap();
        let summary = String::from_utf8_lossy(&summary.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_string();
        let whole = Command::new(&bin)
            .current_dir(&root)
            .args(["--workspace", "--message-format=short"])
            .output()
            .unwrap();
        let read = String::from_utf8_lossy(&whole.stdout)
            .lines()
            .last()
            .and_then(|l| l.split(" in ").nth(1))
            .and_then(|l| l.split(' ').next())
            .unwrap_or("?")
            .to_string();
        let (mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            a.push(run(bin_s, &hook));
            b.push(run(&cargo, &via_cargo));
            c.push(run("pre-commit", &pc));
            d.push(run("pre-commit", &noop));
        }
        let best = |v: &[Duration]| *v.iter().min().unwrap();
        let (ba, bb, bc, bd) = (best(&a), best(&b), best(&c), best(&d));
        let (ma, mb, mc, md) = (
            median(&mut a),
            median(&mut b),
            median(&mut c),
            median(&mut d),
        );
        println!(
            "| {name} | {read} | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} |",
            ms(ma),
            ms(ba),
            ms(mb),
            ms(bb),
            ms(mc),
            ms(bc),
            ms(md),
            ms(bd),
            ms(mc.saturating_sub(md)),
        );
        eprintln!("  {name}: {summary}");
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nmachine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split(' ').take(3).collect::<Vec<_>>().join(" ")
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
