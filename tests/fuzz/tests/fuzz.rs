//! Every fuzz target for a short budget (what CI runs; `cargo run --release -p
//! idemcheck-fuzz -- all 600` runs each for ten minutes).

use idemcheck_fuzz::{Budget, Target, fuzz, fuzz_with, seeds};

/// Inputs per target under `cargo test` (debug build): seconds on two cores.
const CI_EXECS: u64 = 1_500;

fn check(target: Target) {
    let out = fuzz(target, Budget::Execs(CI_EXECS), 7);
    assert_eq!(out.execs, CI_EXECS);
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
    let out = fuzz(Target::LedgerRecord, Budget::Execs(200), 7);
    assert!(out.crashes.is_empty(), "{:?}", out.crashes.first());
}

#[test]
fn ledger_record_postgres() {
    let required = ["CI", "IDEMCHECK_REQUIRE_PG"].iter().any(|v| {
        std::env::var(v)
            .is_ok_and(|x| !x.is_empty() && x != "0" && !x.eq_ignore_ascii_case("false"))
    });
    if !idemcheck_fuzz::postgres_available() {
        assert!(
            !required,
            "ledger_record_postgres: no PostgreSQL server (IDEMCHECK_PG_URL), but this run requires one"
        );
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED ledger_record_postgres: set IDEMCHECK_PG_URL (.ci/run does) to fuzz PostgreSQL records"
        );
        return;
    }
    // The target really rewrites the record it made (not a silent no-op).
    assert_eq!(idemcheck_fuzz::postgres_probe(), 1);
    let out = fuzz(Target::LedgerRecordPostgres, Budget::Execs(100), 7);
    idemcheck_fuzz::postgres_cleanup();
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
        |i| assert!(!i.contains(&b'z'), "found z"),
    );
    assert!(!out.crashes.is_empty());
    assert!(out.crashes[0].0.contains(&b'z'));
    assert!(out.crashes[0].1.contains("found z"), "{}", out.crashes[0].1);
}
