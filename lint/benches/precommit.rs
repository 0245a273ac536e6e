//! pre-commit benchmark (not a timed test): how long `cargo idemcheck` takes as a pre-commit
//! hook with five staged files, once built.
//!
//! Workspaces, each a temporary git repository: the example crate (`examples/agent-tools`) on
//! its own; a copy of this whole repository's tracked files (every member is read, since a
//! hook reads the whole workspace to resolve helpers); and, with `--real DIR...`, local
//! clones of real workspaces (`lint/benches/speed.sh` passes bevy, 634k lines). Before every
//! measured run the five staged files get a new edit and are staged again, as before each
//! commit, so a warm cache always has five changed files to read. Measured, interleaved,
//! `ROUNDS` times each (median and best):
//!
//! - the hook, `cargo-idemcheck FILE...` (what pre-commit's `idemcheck-system` hook runs),
//!   with the incremental cache warm, and with `--no-cache`;
//! - the same with `--all-files` (every file parsed, none left to the lexical prefilter);
//! - `pre-commit run idemcheck-system --files FILE...`, end to end, and the same with a hook
//!   whose entry is `true`: pre-commit's own cost; the difference is what the check adds.
//!
//! Run: `cargo bench -p cargo-idemcheck --bench precommit [-- --real DIR...]` (needs
//! `pre-commit` on PATH).

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

/// A real workspace (`--real DIR`, a git work tree) as a repository of its own: a local
/// clone of its HEAD. Its five largest Rust files under `src/` directories are the ones
/// staged (the most a re-parse can cost).
fn real_repo(dir: &Path, from: &Path, path: &str) -> (PathBuf, Vec<String>) {
    let name = from.file_name().unwrap().to_string_lossy().to_string();
    let root = dir.join(&name);
    let head = sh(from, "git", &["rev-parse", "HEAD"], path);
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let (from_s, root_s) = (from.to_str().unwrap(), root.to_str().unwrap());
    // Rust and manifests only, as the fetched trees (mirrors may lack bevy's assets).
    for (dir, args) in [
        (
            Path::new("/"),
            &["clone", "-q", "--local", "--no-checkout", from_s, root_s][..],
        ),
        (
            &root,
            &[
                "sparse-checkout",
                "set",
                "--no-cone",
                "*.rs",
                "*.toml",
                "Cargo.lock",
            ],
        ),
        (
            &root,
            &["-c", "advice.detachedHead=false", "checkout", "-q", &head],
        ),
    ] {
        let out = sh(dir, "git", args, path);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = sh(&root, "git", &["ls-files", "*.rs"], path);
    let mut files: Vec<(u64, String)> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter(|f| f.contains("src/"))
        .filter_map(|f| Some((std::fs::metadata(root.join(f)).ok()?.len(), f.to_string())))
        .collect();
    files.sort_by(|a, b| b.cmp(a));
    let staged = files.into_iter().take(5).map(|(_, f)| f).collect();
    (root, staged)
}

fn main() {
    // `cargo bench` passes `--bench`; `--real DIR...` adds real workspaces.
    let args: Vec<String> = std::env::args().collect();
    let reals: Vec<PathBuf> = args
        .iter()
        .position(|a| a == "--real")
        .map(|i| {
            args[i + 1..]
                .iter()
                .filter(|a| !a.starts_with("--"))
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
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
    let tmp =
        std::env::temp_dir().join(format!("idemcheck-precommit-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let home = tmp.join("pre-commit-cache");
    println!(
        "pre-commit benchmark: 5 staged files, edited again before every run (as before each \
         commit); {ROUNDS} rounds, interleaved; median (best)\n"
    );
    println!(
        "| workspace | lines | hook, cache warm | hook, `--no-cache` | hook `--all-files`, cache warm | hook `--all-files --no-cache` | `pre-commit run` | pre-commit no-op | check's share (run - no-op) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut workspaces: Vec<(String, PathBuf, Vec<String>)> = Vec::new();
    let example = example_repo(&tmp);
    init(&example, &path);
    workspaces.push((
        "example crate".into(),
        example,
        STAGED.iter().map(|f| f.to_string()).collect(),
    ));
    let whole = whole_repo(&tmp, &path);
    init(&whole, &path);
    workspaces.push((
        "this repository".into(),
        whole,
        STAGED
            .iter()
            .map(|f| format!("examples/agent-tools/{f}"))
            .collect(),
    ));
    for from in &reals {
        let (root, staged) = real_repo(&tmp, from, &path);
        std::fs::write(root.join(".pre-commit-config.yaml"), CONFIG).unwrap();
        let commit = sh(&root, "git", &["rev-parse", "--short=12", "HEAD"], &path);
        let name = format!(
            "{} {}",
            from.file_name().unwrap().to_string_lossy(),
            String::from_utf8_lossy(&commit.stdout).trim()
        );
        workspaces.push((name, root, staged));
    }
    // Files are trusted by their stat only two seconds after they were written (see
    // `cargo_idemcheck::cache`): a checkout made just now is not yet an old one.
    std::thread::sleep(Duration::from_secs(3));
    for (name, root, files) in &workspaces {
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        let lines: usize = sh(root, "git", &["ls-files", "*.rs"], &path)
            .stdout
            .split(|b| *b == b'\n')
            .filter(|f| !f.is_empty())
            .map(|f| {
                std::fs::read_to_string(root.join(String::from_utf8_lossy(f).as_ref()))
                    .map_or(0, |t| t.lines().count())
            })
            .sum();
        let mut edits = 0u32;
        // Stage the files with a new edit each (a line at their end), as before a commit.
        let mut edit = || {
            edits += 1;
            for f in &files {
                let p = root.join(f);
                let text = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, format!("{text}// edit {edits}\n")).unwrap();
            }
            let mut add = vec!["add"];
            add.extend(&files);
            assert!(sh(root, "git", &add, &path).status.success());
        };
        let run = |program: &str, args: &[&str]| -> Duration {
            let start = Instant::now();
            let out = Command::new(program)
                .current_dir(root)
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
        let with = |extra: &[&'static str]| {
            let mut v: Vec<&str> = files.clone();
            v.extend(extra);
            v
        };
        let commands: Vec<(&str, Vec<&str>)> = vec![
            (bin_s, with(&[])),
            (bin_s, with(&["--no-cache"])),
            (bin_s, with(&["--all-files"])),
            (bin_s, with(&["--all-files", "--no-cache"])),
            ("pre-commit", {
                let mut v = vec!["run", "idemcheck-system", "--files"];
                v.extend(&files);
                v
            }),
            ("pre-commit", {
                let mut v = vec!["run", "noop", "--files"];
                v.extend(&files);
                v
            }),
        ];
        // Warm up: pre-commit's first run prepares its environment; the lint's caches (both
        // modes) and the page cache fill.
        for (program, args) in &commands {
            run(program, args);
        }
        let summary = Command::new(&bin)
            .current_dir(root)
            .args(&files)
            .arg("--message-format=short")
            .output()
            .unwrap();
        let summary = String::from_utf8_lossy(&summary.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_string();
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); commands.len()];
        for _ in 0..ROUNDS {
            for ((program, args), t) in commands.iter().zip(&mut times) {
                edit();
                t.push(run(program, args));
            }
        }
        let cells: Vec<(Duration, Duration)> = times
            .iter_mut()
            .map(|t| (*t.iter().min().unwrap(), median(t)))
            .collect();
        let cell = |(best, med): (Duration, Duration)| format!("{} ({})", ms(med), ms(best));
        println!(
            "| {name} | {lines} | {} | {} | {} | {} | {} | {} | {} |",
            cell(cells[0]),
            cell(cells[1]),
            cell(cells[2]),
            cell(cells[3]),
            cell(cells[4]),
            cell(cells[5]),
            ms(cells[4].1.saturating_sub(cells[5].1)),
        );
        eprintln!("  {name}: staged {}; {summary}", files.join(" "));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nmachine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split(' ').take(3).collect::<Vec<_>>().join(" ")
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
