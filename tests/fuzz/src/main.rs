//! `cargo run --release -p idemcheck-fuzz -- <target|all> <seconds> [seed]`: fuzz for a while,
//! print how many inputs reached the code under test (and how fast) and what was found, and
//! save crashing inputs under `tests/fuzz/crashes/<target>-<n>`.
//!
//! A target that cannot run here (the PostgreSQL one without a server) is not run: `all`
//! prints a skip line with the reason in its place and counts nothing for it, and ends with a
//! summary of what ran and what was skipped; asking for that target alone is an error.
//!
//! Exit status: 0 when every target that ran found nothing; 1 when an input panicked or no
//! input of a target reached its code under test; 2 for a bad command line or a target asked
//! for alone that cannot run here.

use std::time::Duration;

use idemcheck_fuzz::{Budget, Target, fuzz};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
    let usage = format!(
        "usage: idemcheck-fuzz <target|all> <seconds> [seed]; targets: {}",
        names.join(", ")
    );
    let usage_error = |msg: String| -> ! {
        eprintln!("{msg}{usage}");
        std::process::exit(2);
    };
    let (Some(which), Some(secs)) = (args.first(), args.get(1)) else {
        usage_error(String::new());
    };
    let secs = match secs.parse::<u64>() {
        Ok(s) if s > 0 => s,
        _ => usage_error(format!(
            "error: `{secs}` is not a number of seconds (1 or more)\n"
        )),
    };
    let seed = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(Err(_)) => usage_error(format!("error: `{}` is not a seed\n", args[2])),
    };
    let alone = which != "all";
    let targets: Vec<Target> = if !alone {
        Target::ALL.to_vec()
    } else if let Some(t) = Target::named(which) {
        vec![t]
    } else {
        usage_error(format!("error: no target `{which}`\n"));
    };
    let crashes_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes");
    let mut failed = false;
    let mut ran: Vec<Target> = Vec::new();
    let mut skipped = Vec::new();
    let (mut reached, mut crashes) = (0u64, 0usize);
    for t in targets {
        let out = match fuzz(t, Budget::Time(Duration::from_secs(secs)), seed) {
            Ok(out) => out,
            Err(skip) if alone => {
                eprintln!("error: {} cannot run here: {}", t.name(), skip.reason);
                std::process::exit(2);
            }
            Err(skip) => {
                println!("{:<22} skipped: {}", t.name(), skip.reason);
                skipped.push(skip);
                continue;
            }
        };
        ran.push(t);
        reached += out.reached;
        crashes += out.crashes.len();
        println!("{}", out.line(t.name()));
        if out.reached == 0 {
            failed = true;
            println!("  FAILED: no input reached the code under test");
        }
        for (i, (input, msg)) in out.crashes.iter().enumerate() {
            failed = true;
            let _ = std::fs::create_dir_all(&crashes_dir);
            let path = crashes_dir.join(format!("{}-{i}", t.name()));
            let _ = std::fs::write(&path, input);
            println!("  panic: {msg} (input saved to {})", path.display());
        }
    }
    if ran.contains(&Target::LedgerRecordPostgres) {
        idemcheck_fuzz::postgres_cleanup();
    }
    if !alone {
        let names: Vec<&str> = ran.iter().map(|t| t.name()).collect();
        println!(
            "ran {} of {} targets ({}): {reached} inputs reached the code under test, {crashes} crash(es)",
            ran.len(),
            Target::ALL.len(),
            names.join(", ")
        );
        if skipped.is_empty() {
            println!("skipped none");
        } else {
            let why: Vec<String> = skipped
                .iter()
                .map(|s| format!("{} ({})", s.target.name(), s.reason))
                .collect();
            println!(
                "skipped {}: {}; their inputs are counted nowhere",
                skipped.len(),
                why.join(", ")
            );
        }
    }
    std::process::exit(i32::from(failed));
}
