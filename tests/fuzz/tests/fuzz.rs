//! Every fuzz target for a short budget (what CI runs; `cargo run --release -p
//! idemcheck-fuzz -- all 600` runs each for ten minutes).

use std::process::Command;

use idemcheck_fuzz::{Budget, Outcome, Target, fuzz, fuzz_with, seeds};

/// Inputs per target under `cargo test` (debug build): seconds on two cores.
const CI_EXECS: u64 = 1_500;

fn check(target: Target) {
    let out = fuzz(target, Budget::Execs(CI_EXECS), 7)
        .unwrap_or_else(|s| panic!("{} skipped: {}", target.name(), s.reason));
    assert_eq!(out.execs, CI_EXECS);
    reached_enough(target, &out);
    assert!(
        out.crashes.is_empty(),
        "{}: {} input(s) panicked; the first, {:?}:\n{}",
        target.name(),
        out.crashes.len(),
        out.crashes[0].1,
        String::from_utf8_lossy(&out.crashes[0].0)
    );
}

#[test]
fn grammar() {
    check(Target::Grammar);
}

#[test]
fn allow_comment() {
    check(Target::AllowComment);
}

#[test]
fn config() {
    check(Target::Config);
}

#[test]
fn baseline() {
    check(Target::Baseline);
}

#[test]
fn counterexample() {
    check(Target::Counterexample);
}

#[test]
fn source() {
    check(Target::Source);
}

#[test]
fn ledger_record() {
    // A real SQLite file per input: fewer inputs than the in-memory targets.
    let out = fuzz(Target::LedgerRecord, Budget::Execs(200), 7).expect("SQLite runs everywhere");
    reached_enough(Target::LedgerRecord, &out);
    assert!(out.crashes.is_empty(), "{:?}", out.crashes.first());
}

/// A fair share of a target's inputs reach its code under test: mutants mostly miss the
/// grammar's lexer and the ledgers' JSON objects (seed 7: 835 of 1,500 grammar inputs, 35 of
/// 200 SQLite records), but a target that silently stopped reaching its code fails here.
fn reached_enough(target: Target, out: &Outcome) {
    assert!(
        out.reached * 10 >= out.execs,
        "{}: only {} of {} inputs reached the code under test",
        target.name(),
        out.reached,
        out.execs
    );
}

#[test]
fn ledger_record_postgres() {
    let required = ["CI", "IDEMCHECK_REQUIRE_PG"].iter().any(|v| {
        std::env::var(v)
            .is_ok_and(|x| !x.is_empty() && x != "0" && !x.eq_ignore_ascii_case("false"))
    });
    if let Some(reason) = Target::LedgerRecordPostgres.unavailable() {
        assert!(
            !required,
            "ledger_record_postgres: {reason}, but this run requires a server"
        );
        // Not run, so not counted.
        let skip = fuzz(Target::LedgerRecordPostgres, Budget::Execs(100), 7).unwrap_err();
        assert_eq!(skip.reason, reason);
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED ledger_record_postgres: {reason}; .ci/run starts one to fuzz PostgreSQL records"
        );
        return;
    }
    // The target really rewrites the record it made (not a silent no-op).
    assert_eq!(idemcheck_fuzz::postgres_probe(), 1);
    // And counts an input only when it rewrote that record (PostgreSQL refuses an unknown
    // state: that input changed nothing).
    assert!(!Target::LedgerRecordPostgres.run(b"{}"));
    assert!(!Target::LedgerRecordPostgres.run(b"{\"state\": \"bogus\"}"));
    assert!(Target::LedgerRecordPostgres.run(b"{\"fingerprint\": \"zz\"}"));
    let out = fuzz(Target::LedgerRecordPostgres, Budget::Execs(100), 7).expect("a server");
    idemcheck_fuzz::postgres_cleanup();
    reached_enough(Target::LedgerRecordPostgres, &out);
    assert!(out.crashes.is_empty(), "{:?}", out.crashes.first());
}

#[test]
fn every_target_has_a_seed_corpus() {
    for t in Target::ALL {
        assert!(!seeds(t).is_empty(), "{}", t.name());
    }
}

#[test]
fn the_harness_reports_a_panicking_input() {
    // A target that panics on one byte the mutations are bound to produce.
    let out = fuzz_with(
        "self-test",
        &[b"abc".to_vec()],
        &["z"],
        Budget::Execs(500),
        1,
        |i| {
            assert!(!i.contains(&b'z'), "found z");
            true
        },
    );
    assert!(!out.crashes.is_empty());
    assert!(out.crashes[0].0.contains(&b'z'));
    assert!(out.crashes[0].1.contains("found z"), "{}", out.crashes[0].1);
}

#[test]
fn a_target_that_does_nothing_reports_no_inputs() {
    // It is handed every input, and reaches no code: the figure is what reached, not what
    // was generated.
    let out = fuzz_with(
        "does-nothing",
        &[b"abc".to_vec()],
        &["z"],
        Budget::Execs(500),
        1,
        |_| false,
    );
    assert_eq!(out.execs, 500);
    assert_eq!(out.reached, 0);
    // One that reaches its code with every other input reports those.
    let half = fuzz_with(
        "half",
        &[b"abc".to_vec()],
        &["z"],
        Budget::Execs(500),
        1,
        |i| i.len() % 2 == 0,
    );
    assert!(half.reached > 0 && half.reached < 500, "{}", half.reached);
}

#[test]
fn the_printed_figure_is_the_inputs_that_reached() {
    let out = Outcome {
        execs: 1_000,
        reached: 250,
        elapsed: std::time::Duration::from_secs(2),
        crashes: Vec::new(),
    };
    assert_eq!(
        out.line("ledger_record"),
        "ledger_record                 250 inputs in    2.0 s (     125/s), 0 crash(es); \
         750 more generated input(s) did not reach the code under test"
    );
    let all = Outcome {
        execs: 40,
        reached: 40,
        ..out
    };
    assert!(
        all.line("config")
            .ends_with("40 inputs in    2.0 s (      20/s), 0 crash(es)")
    );
}

#[test]
fn inputs_that_miss_the_code_under_test_are_not_counted() {
    // No token stream: the attribute parser never sees it.
    assert!(!Target::Grammar.run(b"key = [\"unterminated"));
    assert!(Target::Grammar.run(b"key = [id], verify = find"));
    // Not a JSON object, or no field of the record rewritten: the store read back nothing of
    // the input's.
    assert!(!Target::LedgerRecord.run(b"not json"));
    assert!(!Target::LedgerRecord.run(b"[1, 2]"));
    assert!(!Target::LedgerRecord.run(b"{}"));
    assert!(!Target::LedgerRecord.run(b"{\"no_such_column\": 1}"));
    // A field both stores take (PostgreSQL refuses an unknown state, SQLite does not).
    let good = b"{\"fingerprint\": \"zz\"}";
    assert!(Target::LedgerRecord.run(good));
    if Target::LedgerRecordPostgres.unavailable().is_some() {
        // Without a server, even a good record reaches nothing (with one, the test
        // `ledger_record_postgres`, which owns the server's schema, checks the same inputs).
        assert!(!Target::LedgerRecordPostgres.run(good));
    }
}

/// The command-line runner, without any PostgreSQL server whatever this machine has.
fn runner(args: &[&str], pg_url: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_idemcheck-fuzz"));
    cmd.args(args);
    match pg_url {
        Some(url) => cmd.env("IDEMCHECK_PG_URL", url),
        None => cmd.env_remove("IDEMCHECK_PG_URL"),
    };
    let out = cmd.output().expect("the runner starts");
    (
        out.status.code().expect("an exit status"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_runner_skips_what_cannot_run_and_counts_nothing_for_it() {
    let (code, stdout, stderr) = runner(&["all", "1"], None);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let pg: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("ledger_record_postgres"))
        .collect();
    assert_eq!(
        pg,
        [&"ledger_record_postgres skipped: no PostgreSQL server (set IDEMCHECK_PG_URL)"],
        "{stdout}"
    );
    // Every other target ran and reports what reached its code.
    for t in Target::ALL
        .into_iter()
        .filter(|t| *t != Target::LedgerRecordPostgres)
    {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(t.name()))
            .unwrap_or_else(|| panic!("no line for {}:\n{stdout}", t.name()));
        let n: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(n > 0, "{line}");
        assert!(line.contains(" inputs in "), "{line}");
    }
    // The summary: what ran, what was skipped and why.
    assert!(
        stdout.contains(
            "ran 7 of 8 targets (grammar, allow_comment, config, baseline, counterexample, source, ledger_record): "
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "skipped 1: ledger_record_postgres (no PostgreSQL server (set IDEMCHECK_PG_URL)); their inputs are counted nowhere"
        ),
        "{stdout}"
    );
}

#[test]
fn asking_for_a_target_that_cannot_run_is_an_error() {
    let (code, stdout, stderr) = runner(&["ledger_record_postgres", "1"], None);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.trim(),
        "error: ledger_record_postgres cannot run here: no PostgreSQL server (set IDEMCHECK_PG_URL)"
    );
    // A URL naming no server (port 1 refuses) is no server either; the reason does not print
    // the URL, which may hold a password.
    let (code, stdout, stderr) = runner(
        &["ledger_record_postgres", "1"],
        Some("postgres://fuzz:secret@127.0.0.1:1/postgres"),
    );
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.starts_with(
            "error: ledger_record_postgres cannot run here: no PostgreSQL server at IDEMCHECK_PG_URL ("
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("secret"), "{stderr}");
}
