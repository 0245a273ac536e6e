//! `cargo run --release -p idemcheck-fuzz -- <target|all> <seconds> [seed]`: fuzz for a while,
//! print executions per second and what was found, and save crashing inputs under
//! `tests/fuzz/crashes/<target>-<n>` (exit 1 if there are any).

use std::time::Duration;

use idemcheck_fuzz::{Budget, Target, fuzz};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: idemcheck-fuzz <target|all> <seconds> [seed]; targets: grammar, allow_comment, config, baseline, counterexample, source";
    let (Some(which), Some(secs)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(secs) = secs.parse::<u64>() else {
        eprintln!("error: `{secs}` is not a number of seconds\n{usage}");
        std::process::exit(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let targets: Vec<Target> = if which == "all" {
        Target::ALL.to_vec()
    } else if let Some(t) = Target::named(which) {
        vec![t]
    } else {
        eprintln!("error: no target `{which}`\n{usage}");
        std::process::exit(2);
    };
    let crashes_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes");
    let mut failed = false;
    for t in targets {
        let out = fuzz(t, Budget::Time(Duration::from_secs(secs)), seed);
        println!(
            "{:<16} {:>10} inputs in {:>6.1} s ({:>8.0}/s), {} crash(es)",
            t.name(),
            out.execs,
            out.elapsed.as_secs_f64(),
            out.execs as f64 / out.elapsed.as_secs_f64().max(1e-9),
            out.crashes.len()
        );
        for (i, (input, msg)) in out.crashes.iter().enumerate() {
            failed = true;
            let _ = std::fs::create_dir_all(&crashes_dir);
            let path = crashes_dir.join(format!("{}-{i}", t.name()));
            let _ = std::fs::write(&path, input);
            println!("  panic: {msg} (input saved to {})", path.display());
        }
    }
    std::process::exit(i32::from(failed));
}
