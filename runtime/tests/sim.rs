//! The simulator and property harness: guarded tools proven under every fault class,
//! control strategies that must fail, the references' experiments reproduced, saved
//! counterexamples replayed.

use std::path::PathBuf;

use idemcheck::sim::billing::{self, Charge, ChargeArgs, SimBilling};
use idemcheck::sim::experiments::{self, Method, Task};
use idemcheck::sim::mutants::Mutant;
use idemcheck::sim::{
    Config, Env, EventKind, Fault, FaultClass, FaultLevel, Invariant, Net, NetConfig, Proof,
    Schedule, SimError,
};
use idemcheck::{Outcome, VirtualClock, current_key, side_effect};

// ------------------------------------------------------------------ a user's tool

/// A tool as a user writes it: `#[side_effect]` over the simulated billing service.
#[side_effect(
    key = [customer, order_id],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000,
    server_dedup = true
)]
async fn create_charge(billing: &SimBilling, args: ChargeArgs) -> Result<Charge, SimError> {
    let key = current_key();
    billing
        .create_charge(&args, key.as_ref().map(|k| k.as_str()))
        .await
}

async fn find_charge(billing: &SimBilling, args: &ChargeArgs) -> Result<Option<Charge>, SimError> {
    billing.find_charge(args).await
}

/// The README's five lines.
#[test]
fn prove_your_own_tool_in_five_lines() {
    idemcheck::sim::Proof {
        contract: create_charge::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge::call,
        effects: SimBilling::count,
    }
    .prove();
}

fn manifest(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

// ------------------------------------------------------------------ acceptance

#[test]
fn acceptance_run_9600_episodes_every_class_bites_every_invariant_exercised_replay_identical() {
    let proof = Proof {
        contract: create_charge::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge::call,
        effects: SimBilling::count,
    };
    let report = proof.check(&Config {
        save_to: None,
        ..Config::default()
    });
    println!("{report}");
    assert_eq!(report.episodes(), 9_600);
    assert_eq!(report.classes.len(), 16);
    assert!(report.uncovered().is_empty(), "{report}");
    assert_eq!(report.seeds.len(), 3);
    assert!(report.replay_identical, "I3");
    for class in FaultClass::ALL {
        let s = report.stats(class).unwrap();
        assert_eq!(s.episodes, 600, "{class}");
        assert!(s.hits > 0, "{class}: the dangerous window was never hit");
        assert_eq!(s.violating, 0, "{class}");
    }
    assert!(report.exhaustive.0 > 1_500, "{:?}", report.exhaustive);
    assert_eq!(report.exhaustive.1, 0);
    report.assert_proven();
}

#[test]
fn the_builtin_tool_without_a_server_key_is_proven_too() {
    let report = Proof {
        contract: billing::CREATE_CHARGE_NO_SERVER_KEY,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge_no_server_key,
        effects: SimBilling::count,
    }
    .check(&Config {
        save_to: None,
        ..Config::default()
    });
    println!("{report}");
    assert!(!report.wire_redelivery, "not injected without server_dedup");
    assert!(report.to_string().contains("wire redelivery not injected"));
    report.assert_proven();
}

#[test]
fn a_class_that_never_bites_fails_the_run() {
    // A "tool" that never sends anything: no fault can bite it.
    let report = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: async |_ctx: &idemcheck::Context, b: &SimBilling, a: ChargeArgs| {
            let _ = b;
            Outcome::<Charge, SimError>::Completed(Charge {
                id: "none".into(),
                customer: a.customer,
                order_id: a.order_id,
                amount_cents: a.amount_cents,
            })
        },
        effects: SimBilling::count,
    }
    .check(&Config {
        episodes: 5,
        ..Config::acceptance_only()
    });
    assert!(!report.never_bit().is_empty());
    assert!(!report.is_proven());
    // "Not proven" says why: each class that never bit, with what would open its window.
    let reasons = report.reasons();
    for class in report.never_bit() {
        assert!(
            reasons
                .iter()
                .any(|r| r.starts_with(class.as_str()) && r.contains(class.never_bit_hint())),
            "{class}: {reasons:?}"
        );
    }
    assert!(report.to_string().contains("verdict: NOT PROVEN\n    - "));
    // ...and it lies: I4.
    assert!(report.stats(FaultClass::LostAck).unwrap().by_invariant[2] > 0);
}

// ------------------------------------------------------------------ controls must fail

fn control<FC>(contract: idemcheck::Contract, call: FC, must_fail: &[FaultClass])
where
    FC: AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError> + Sync,
{
    let report = Proof {
        contract,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call,
        effects: SimBilling::count,
    }
    .check(&Config {
        shrink: true,
        save_to: None,
        exhaustive: 2,
        ..Config::default()
    });
    println!("{report}");
    for c in &report.counterexamples {
        println!("{}", c.timeline());
    }
    assert!(
        !report.is_proven(),
        "{}: the harness must catch it",
        contract.name
    );
    for class in must_fail {
        assert!(
            report.violating(*class) > 0,
            "{}: must fail {class}\n{report}",
            contract.name
        );
        let c = report
            .counterexamples
            .iter()
            .find(|c| c.class == Some(*class))
            .expect("a counterexample per failing class");
        assert!(c.schedule.faults.len() <= c.original_faults);
        assert!(!c.violations.is_empty());
    }
    assert!(report.exhaustive.1 > 0, "the enumeration finds it too");
}

#[test]
fn control_naive_retry_fails_every_class_but_three() {
    // Not lost_request: when the first request really never took effect, retrying it is
    // right. Not slow_success: it waits for its slow answer (its transport has no timeout)
    // and so sends once. Not ledger_fault: it uses no ledger.
    let fails: Vec<FaultClass> = FaultClass::ALL
        .into_iter()
        .filter(|c| {
            !matches!(
                c,
                FaultClass::LostRequest | FaultClass::SlowSuccess | FaultClass::LedgerFault
            )
        })
        .collect();
    control(billing::NAIVE_RETRY, billing::naive_retry, &fails);
}

#[test]
fn control_new_key_per_attempt_fails_lost_ack_late_commit_reorder() {
    control(
        billing::NEW_KEY_PER_ATTEMPT,
        billing::new_key_per_attempt,
        &[
            FaultClass::LostAck,
            FaultClass::LateCommit,
            FaultClass::Reorder,
        ],
    );
}

#[test]
fn control_verify_then_retry_without_settle_fails_late_commit_and_reorder() {
    control(
        billing::VERIFY_NO_SETTLE,
        billing::verify_then_retry_no_settle,
        &[FaultClass::LateCommit, FaultClass::Reorder],
    );
}

#[test]
fn control_key_generated_per_call_fails_redelivery_crash_divergent_payload() {
    control(
        billing::KEY_PER_CALL,
        billing::key_generated_per_call,
        &[
            FaultClass::Redelivery,
            FaultClass::Crash,
            FaultClass::DivergentPayload,
        ],
    );
}

// ------------------------------------------------------------------ what contracts cannot defend

#[test]
fn wire_redelivery_duplicates_without_server_dedup_and_not_with_it() {
    let env = Env {
        wire_redelivery: true,
        ..Env::for_contract(&billing::CREATE_CHARGE_NO_SERVER_KEY)
    };
    let schedule = Schedule::of([Fault::WireRedelivery {
        request: 0,
        gap_ms: 5_000,
    }]);
    let no_key = Proof {
        contract: billing::CREATE_CHARGE_NO_SERVER_KEY,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge_no_server_key,
        effects: SimBilling::count,
    };
    let ep = no_key.episode(&env, 0, &schedule);
    assert_eq!(ep.effects[0], 2, "nothing above the wire can stop this");
    assert_eq!(ep.violations[0].invariant, Invariant::I1AtMostOnce);
    let with_key = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge,
        effects: SimBilling::count,
    };
    let ep = with_key.episode(&Env::for_contract(&billing::CREATE_CHARGE), 0, &schedule);
    assert_eq!(ep.effects[0], 1, "the system of record replays the key");
    assert!(ep.violations.is_empty());
}

#[test]
fn a_settle_window_shorter_than_reality_is_caught() {
    let proof = Proof {
        contract: billing::CREATE_CHARGE_NO_SERVER_KEY,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge_no_server_key,
        effects: SimBilling::count,
    };
    let report = proof.check(&Config {
        classes: vec![FaultClass::LateCommit],
        env: Some(Env {
            bound_ms: 400_000,
            ..Env::for_contract(&billing::CREATE_CHARGE_NO_SERVER_KEY)
        }),
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    assert!(report.violating(FaultClass::LateCommit) > 0, "{report}");
}

// ------------------------------------------------------------------ the in-flight bound

/// The rig example's first contract shape: `settle_ms = 2_000` and no `timeout_ms` (the
/// transport's 30 s applies; the example now states `timeout_ms = 2_000`, and its contract is
/// proven in `tests/sim/tests/agent_tools/documented.rs`).
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 2_000,
              allow(unbounded_in_flight, reason = "the shape under test: a settle window shorter than the attempt, judged under its own claim"))]
async fn create_charge_short_settle(
    billing: &SimBilling,
    args: ChargeArgs,
) -> Result<Charge, SimError> {
    billing.create_charge(&args, None).await
}

#[test]
fn the_harness_never_holds_a_request_longer_than_the_bound() {
    let envs = [
        Env::for_contract(&billing::CREATE_CHARGE),
        Env::for_contract(&billing::CREATE_CHARGE_NO_SERVER_KEY),
        Env::for_contract(&create_charge_short_settle::CONTRACT),
        Env {
            bound_ms: 30_000,
            ..Env::for_contract(&billing::CREATE_CHARGE)
        },
    ];
    assert_eq!(envs[2].bound_ms, 2_000);
    assert_eq!(envs[2].timeout_ms, 30_000);
    for env in envs {
        let mut rng = idemcheck::sim::SplitMix64::new(11);
        for class in FaultClass::ALL {
            for _ in 0..500 {
                let s = env.draw(class, &mut rng);
                assert!(
                    s.longest_in_flight() <= env.bound_ms,
                    "{class} drew {s} beyond the bound {} ms",
                    env.bound_ms
                );
            }
        }
        // In-flight time is per request (its hold plus its visibility delay): every pair of
        // the enumeration's alphabet covers every combination of them.
        let alphabet = env.alphabet();
        for a in &alphabet {
            for b in &alphabet {
                let s = Schedule::of([*a, *b]);
                assert!(
                    s.longest_in_flight() <= env.bound_ms,
                    "the enumeration holds {s} beyond the bound {} ms",
                    env.bound_ms
                );
            }
        }
    }
}

#[test]
fn a_settle_window_shorter_than_the_timeout_is_judged_under_its_own_claim() {
    let proof = Proof {
        contract: create_charge_short_settle::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_short_settle::call,
        effects: SimBilling::count,
    };
    let report = proof.check(&Config {
        save_to: None,
        ..Config::default()
    });
    println!("{report}");
    let na: Vec<FaultClass> = report.not_applicable.iter().map(|(c, _)| *c).collect();
    assert_eq!(
        na,
        [
            FaultClass::LateCommit,
            FaultClass::Reorder,
            FaultClass::SlowSuccess
        ]
    );
    assert!(
        report
            .to_string()
            .contains("n/a under the contract's claim")
    );
    report.assert_proven();
    // The claim is what is proven: an API that commits later than 2 s breaks the tool.
    let wider = proof.check(&Config {
        classes: vec![FaultClass::LateCommit],
        env: Some(Env {
            bound_ms: 60_000,
            ..Env::for_contract(&create_charge_short_settle::CONTRACT)
        }),
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    assert!(wider.violating(FaultClass::LateCommit) > 0, "{wider}");
    assert!(!wider.reasons().is_empty());
}

// ------------------------------------------------------------------ time that moves

#[test]
fn episodes_start_at_seed_drawn_wall_times_and_clock_phase_straddles_a_boundary() {
    const HOUR: u64 = 3_600_000;
    const DAY: u64 = 24 * HOUR;
    let env = Env::for_contract(&billing::CREATE_CHARGE);
    let mut rng = idemcheck::sim::SplitMix64::new(5);
    let mut starts = std::collections::BTreeSet::new();
    for class in FaultClass::ALL {
        for _ in 0..200 {
            let s = env.draw(class, &mut rng);
            assert!(s.start_ms >= 1_704_067_200_000, "{class}: {s}"); // 2024-01-01
            starts.insert(s.start_ms);
            if class == FaultClass::ClockPhase {
                // Just before an hour boundary (a day's too, half the time), within one
                // attempt's timeout of it.
                let to_boundary = HOUR - s.start_ms % HOUR;
                assert!((1..=env.timeout_ms).contains(&to_boundary), "{s}");
            } else {
                // Other classes never reach midnight: no episode lasts two hours.
                assert!(s.start_ms % DAY < 22 * HOUR, "{class}: {s}");
            }
        }
    }
    assert!(starts.len() > 2_900, "starts are drawn, not fixed");
    // Across the day-boundary episodes, both an hour and a day boundary are straddled.
    let mut rng = idemcheck::sim::SplitMix64::new(6);
    let day_ones = (0..200)
        .map(|_| env.draw(FaultClass::ClockPhase, &mut rng))
        .filter(|s| DAY - s.start_ms % DAY <= env.timeout_ms)
        .count();
    assert!(
        (50..150).contains(&day_ones),
        "{day_ones} of 200 before midnight"
    );
    // The start is a setting.
    let fixed = Env {
        start_ms: Some(1_000),
        ..env
    };
    assert_eq!(fixed.draw(FaultClass::LostAck, &mut rng).start_ms, 1_000);
    assert!(fixed.draw(FaultClass::ClockPhase, &mut rng).start_ms <= 24 * HOUR);
    assert_eq!(
        idemcheck::sim::wall_time(Env::ENUMERATION_START),
        "2024-02-29T23:59:00.000Z"
    );
    // The episode runs on that clock; its log counts from the start.
    let s = Schedule::of([Fault::LostAck { request: 0 }]).starting_at(Env::ENUMERATION_START);
    let ep = builtin().episode(&env, 0, &s);
    assert!(ep.violations.is_empty(), "{:?}", ep.violations);
    assert_eq!(ep.events[0].t, 0);
    assert_eq!(
        ep.jsonl(),
        builtin()
            .episode(&env, 0, &Schedule::of(s.faults.clone()))
            .jsonl()
    );
}

/// The date-keyed mutant, a `key_fn` reading the clock, as a proof.
fn date_keyed() -> BillingProof<
    impl AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError> + Sync,
> {
    Proof {
        contract: Mutant::KeyFromDate.contract(),
        world: SimBilling::new as fn(&Net) -> SimBilling,
        intent: ChargeArgs::episode as fn(u64, u32) -> ChargeArgs,
        call: async |ctx: &idemcheck::Context, b: &SimBilling, a: ChargeArgs| {
            Mutant::KeyFromDate.call(ctx, b, a).await
        },
        effects: SimBilling::count as fn(&SimBilling, &ChargeArgs) -> usize,
    }
}

#[test]
fn a_key_from_the_date_passes_every_older_class_and_fails_clock_phase_across_midnight() {
    let report = date_keyed().check(&Config {
        env: Some(Mutant::KeyFromDate.env()),
        ..Config::acceptance_only()
    });
    println!("{report}");
    for class in FaultClass::ALL {
        if class != FaultClass::ClockPhase {
            assert_eq!(report.violating(class), 0, "{class}\n{report}");
        }
    }
    assert!(report.violating(FaultClass::ClockPhase) > 0, "{report}");
    let c = date_keyed()
        .check(&Config {
            classes: vec![FaultClass::ClockPhase],
            env: Some(Mutant::KeyFromDate.env()),
            save_to: None,
            exhaustive: 0,
            ..Config::default()
        })
        .counterexamples
        .remove(0);
    let text = c.timeline();
    println!("{text}");
    // The shrunk counterexample keeps the wall time it needs: just before midnight.
    assert!(
        c.schedule.start_ms % 86_400_000 > 86_400_000 - 30_000,
        "{text}"
    );
    assert!(text.contains("T23:59:"), "{text}");
    assert!(
        c.violations
            .iter()
            .any(|v| v.invariant == Invariant::I1AtMostOnce)
    );
}

// ------------------------------------------------------------------ keys that read the context

/// Keyed by a function that reads the run scope besides the arguments.
#[side_effect(
    key_fn = scoped_key,
    key_context = [scope],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000
)]
async fn create_charge_scoped(billing: &SimBilling, args: ChargeArgs) -> Result<Charge, SimError> {
    billing.create_charge(&args, None).await
}

fn scoped_key(ctx: &idemcheck::KeyContext, args: &ChargeArgs) -> (String, String, String) {
    (
        ctx.scope().run.clone(),
        args.customer.clone(),
        args.order_id.clone(),
    )
}

/// Its twin keyed by today's date: IDEM004 refuses it unless allowed.
#[side_effect(
    key_fn = dated_key,
    key_context = [clock],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000,
    allow(IDEM004, reason = "the broken twin the harness must catch")
)]
async fn create_charge_dated(billing: &SimBilling, args: ChargeArgs) -> Result<Charge, SimError> {
    billing.create_charge(&args, None).await
}

fn dated_key(ctx: &idemcheck::KeyContext, args: &ChargeArgs) -> (String, String, Option<u64>) {
    (
        args.customer.clone(),
        args.order_id.clone(),
        ctx.now().map(|t| t.0 / 86_400_000),
    )
}

/// Its twin keyed by the worker: IDEM004 refuses it unless allowed.
#[side_effect(
    key_fn = worker_key,
    key_context = [worker],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000,
    allow(IDEM004, reason = "the broken twin the harness must catch")
)]
async fn create_charge_per_worker(
    billing: &SimBilling,
    args: ChargeArgs,
) -> Result<Charge, SimError> {
    billing.create_charge(&args, None).await
}

fn worker_key(ctx: &idemcheck::KeyContext, args: &ChargeArgs) -> (String, Option<String>) {
    (args.order_id.clone(), ctx.worker().map(str::to_string))
}

#[test]
fn a_context_keyed_tool_is_proven_and_its_clock_and_worker_twins_are_caught() {
    assert_eq!(create_charge_scoped::CONTRACT.key_context, ["scope"]);
    assert_eq!(create_charge_dated::CONTRACT.key_context, ["clock"]);
    Proof {
        contract: create_charge_scoped::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_scoped::call,
        effects: SimBilling::count,
    }
    .prove();
    let dated = Proof {
        contract: create_charge_dated::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_dated::call,
        effects: SimBilling::count,
    }
    .check(&Config {
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{dated}");
    assert!(dated.violating(FaultClass::ClockPhase) > 0, "{dated}");
    for class in FaultClass::ALL {
        if class != FaultClass::ClockPhase {
            assert_eq!(dated.violating(class), 0, "{class}\n{dated}");
        }
    }
    let c = dated
        .counterexamples
        .iter()
        .find(|c| c.class == Some(FaultClass::ClockPhase))
        .expect("a counterexample");
    println!("{}", c.timeline());
    assert!(c.timeline().contains("T23:59:"), "{}", c.timeline());
    let per_worker = Proof {
        contract: create_charge_per_worker::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_per_worker::call,
        effects: SimBilling::count,
    }
    .check(&Config {
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{per_worker}");
    for class in [FaultClass::Crash, FaultClass::ConcurrentCallers] {
        assert!(per_worker.violating(class) > 0, "{class}\n{per_worker}");
        assert!(
            per_worker
                .counterexamples
                .iter()
                .any(|c| c.class == Some(class)),
            "{class}"
        );
    }
    // Undeclared parts answer nothing: a key cannot read them by accident.
    let ctx = idemcheck::Context::with_clock(
        idemcheck::MemoryLedger::new(),
        std::sync::Arc::new(VirtualClock::new()),
        idemcheck::Scope::run("r"),
    );
    let k = idemcheck::KeyContext::new(&ctx, &["scope"]);
    assert_eq!(
        (k.now(), k.worker(), k.scope().run.as_str()),
        (None, None, "r")
    );
    let k = idemcheck::KeyContext::new(&ctx, &["clock", "worker"]);
    assert!(k.now().is_some() && k.worker().is_some());
}

// ------------------------------------------------------------------ reads that fail

/// A mutant of the billing tool as a proof.
fn mutant(
    m: Mutant,
) -> BillingProof<
    impl AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError> + Sync,
> {
    Proof {
        contract: m.contract(),
        world: SimBilling::new as fn(&Net) -> SimBilling,
        intent: ChargeArgs::episode as fn(u64, u32) -> ChargeArgs,
        call: async move |ctx: &idemcheck::Context, b: &SimBilling, a: ChargeArgs| {
            m.call(ctx, b, a).await
        },
        effects: SimBilling::count as fn(&SimBilling, &ChargeArgs) -> usize,
    }
}

#[test]
fn a_failed_read_taken_for_not_done_fails_read_fault_and_only_it() {
    let m = Mutant::ReadErrorIsNotDone;
    let report = mutant(m).check(&Config {
        env: Some(m.env()),
        save_to: None,
        exhaustive: 2,
        ..Config::default()
    });
    println!("{report}");
    for class in FaultClass::ALL {
        if class != FaultClass::ReadFault {
            assert_eq!(report.violating(class), 0, "{class}\n{report}");
        }
    }
    assert!(report.violating(FaultClass::ReadFault) > 0, "{report}");
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.class == Some(FaultClass::ReadFault))
        .expect("a counterexample");
    println!("{}", c.timeline());
    assert!(
        c.timeline().contains("postcondition read for o-"),
        "{}",
        c.timeline()
    );
    assert!(c.timeline().contains("FAILS"), "{}", c.timeline());
    assert!(
        c.violations
            .iter()
            .any(|v| v.invariant == Invariant::I1AtMostOnce)
    );
    // The enumeration finds it too (a read fault is in its alphabet).
    assert!(report.exhaustive.1 > 0);
    // The correct tool answers Unknown when it cannot tell: proven under the same class.
    let correct = builtin().check(&Config {
        classes: vec![FaultClass::ReadFault],
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    assert_eq!(correct.violating(FaultClass::ReadFault), 0, "{correct}");
    assert!(correct.never_bit().is_empty(), "{correct}");
    assert!(
        correct.stats(FaultClass::ReadFault).unwrap().answers[2] > 0,
        "{correct}"
    );
}

// ------------------------------------------------------------------ processes that really restart

#[test]
fn a_restarted_process_gets_a_fresh_identity_and_a_key_from_it_is_caught() {
    use std::sync::Mutex;
    let seen: Mutex<Vec<(idemcheck::sim::Process, u64)>> = Mutex::new(Vec::new());
    let proof = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: async |ctx: &idemcheck::Context, b: &SimBilling, a: ChargeArgs| {
            // A process-wide value: made once per process.
            let cached = b
                .net
                .process_local("cache", || b.net.process().boot_nonce ^ 1);
            seen.lock().unwrap().push((b.net.process(), cached));
            billing::create_charge(ctx, b, a).await
        },
        effects: SimBilling::count,
    };
    let env = Env::for_contract(&billing::CREATE_CHARGE);
    let crash = Schedule::of([Fault::Crash {
        request: 0,
        restart_ms: 1_000,
    }]);
    let ep = proof.episode(&env, 7, &crash);
    assert!(ep.violations.is_empty(), "{:?}", ep.violations);
    let first: Vec<_> = std::mem::take(&mut *seen.lock().unwrap());
    assert_eq!(first.len(), 2, "the call, and its rerun after the crash");
    let (p1, c1) = first[0];
    let (p2, c2) = first[1];
    assert_eq!((p1.pid, p2.pid), (1, 2));
    assert_ne!(p1.boot_nonce, p2.boot_nonce, "a restart is a new process");
    assert_eq!(
        (c1, c2),
        (p1.boot_nonce ^ 1, p2.boot_nonce ^ 1),
        "its statics start empty"
    );
    // Deterministic: the same episode gives the same identities.
    let _ = proof.episode(&env, 7, &crash);
    assert_eq!(*seen.lock().unwrap(), first);
    // A key that walks a HashMap built with the process's hash seed: proven when a restart
    // kept the hash seed (one OS process), caught now.
    let m = Mutant::KeyFromMapOrder;
    let report = mutant(m).check(&Config {
        env: Some(m.env()),
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{report}");
    assert!(report.violating(FaultClass::Crash) > 0, "{report}");
    assert!(
        report.violating(FaultClass::ConcurrentCallers) > 0,
        "{report}"
    );
    for class in [
        FaultClass::LostAck,
        FaultClass::LateCommit,
        FaultClass::Redelivery,
        FaultClass::LostRequest,
        FaultClass::ErrorAfterEffect,
        FaultClass::ReadFault,
    ] {
        assert_eq!(report.violating(class), 0, "{class}\n{report}");
    }
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.class == Some(FaultClass::Crash))
        .expect("a counterexample");
    println!("{}", c.timeline());
    assert!(
        c.violations
            .iter()
            .any(|v| v.invariant == Invariant::I1AtMostOnce)
    );
}

// ------------------------------------------------------------------ gateway errors

#[test]
fn errors_after_the_effect_include_gateway_statuses_and_a_503_resend_is_caught() {
    let env = Env::for_contract(&billing::CREATE_CHARGE);
    let mut rng = idemcheck::sim::SplitMix64::new(3);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        for f in env.draw(FaultClass::ErrorAfterEffect, &mut rng).faults {
            if let Fault::ErrorAfter { status, .. } = f {
                seen.insert(status);
            }
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), [500, 502, 503, 504]);
    let m = Mutant::ResendOn503;
    let report = mutant(m).check(&Config {
        env: Some(m.env()),
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{report}");
    // A 503 before any effect: resending is right, and lost_request never catches it.
    assert_eq!(report.violating(FaultClass::LostRequest), 0, "{report}");
    assert!(
        report.violating(FaultClass::ErrorAfterEffect) > 0,
        "{report}"
    );
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.class == Some(FaultClass::ErrorAfterEffect))
        .expect("a counterexample");
    println!("{}", c.timeline());
    assert!(
        c.schedule.faults.contains(&Fault::ErrorAfter {
            request: 0,
            status: 503
        }),
        "{}",
        c.timeline()
    );
    assert!(c.timeline().contains("error 503 (after the effect)"));
}

// ------------------------------------------------------------------ crowded worlds, listings

/// The billing tool with a postcondition that lists the customer's charges page by page.
#[side_effect(
    key = [customer, order_id],
    verify = find_charge_listing,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000
)]
async fn create_charge_listing(billing: &SimBilling, args: ChargeArgs) -> Result<Charge, SimError> {
    billing.create_charge(&args, None).await
}

async fn find_charge_listing(
    billing: &SimBilling,
    args: &ChargeArgs,
) -> Result<Option<Charge>, SimError> {
    billing.find_charge_listing(args).await
}

#[test]
fn a_correct_listing_postcondition_is_proven_in_crowded_worlds() {
    let report = Proof {
        contract: create_charge_listing::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_listing::call,
        effects: SimBilling::count,
    }
    .check(&Config {
        save_to: None,
        ..Config::default()
    });
    println!("{report}");
    // A listing opens the windows a read does: no false "never bit".
    for class in [
        FaultClass::StaleRead,
        FaultClass::LookalikeRecords,
        FaultClass::SiblingOperations,
        FaultClass::ReadFault,
    ] {
        assert!(report.stats(class).unwrap().hits > 0, "{class}\n{report}");
    }
    report.assert_proven();
}

#[test]
fn a_first_page_only_postcondition_is_caught_in_a_crowded_world() {
    let m = Mutant::VerifyFirstPageOnly;
    let report = mutant(m).check(&Config {
        env: Some(m.env()),
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{report}");
    assert!(
        report.violating(FaultClass::LookalikeRecords) > 0,
        "{report}"
    );
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.class == Some(FaultClass::LookalikeRecords))
        .expect("a counterexample");
    let text = c.timeline();
    println!("{text}");
    // Shrunk to a crowd beyond one page, and the listing that stopped at page one.
    let crowd = c
        .schedule
        .faults
        .iter()
        .find_map(|f| match f {
            Fault::Crowd { records } => Some(*records),
            _ => None,
        })
        .expect("the crowd is needed");
    assert!(crowd as usize >= SimBilling::PAGE - 1, "{text}");
    assert!(text.contains("more pages follow"), "{text}");
    assert!(
        c.violations
            .iter()
            .any(|v| v.invariant == Invariant::I1AtMostOnce)
    );
    // Worlds of one earlier record, as before harness v3, never catch it.
    for class in FaultClass::ALL {
        if !matches!(
            class,
            FaultClass::LookalikeRecords | FaultClass::SiblingOperations
        ) {
            assert_eq!(report.violating(class), 0, "{class}\n{report}");
        }
    }
}

// ------------------------------------------------------------------ operations with several effects

/// Authorize, then charge: two effects, each sent under its own key derived from the
/// operation's (the API deduplicates both).
#[side_effect(
    key = [customer, order_id],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000,
    server_dedup = true
)]
async fn authorize_and_charge(billing: &SimBilling, args: ChargeArgs) -> Result<Charge, SimError> {
    let key = current_key().map(|k| k.as_str().to_string());
    let sub = |what: &str| key.as_ref().map(|k| format!("{k}/{what}"));
    billing
        .authorize(&args, sub("authorize").as_deref())
        .await?;
    billing.create_charge(&args, sub("charge").as_deref()).await
}

#[test]
fn a_two_effect_tool_is_proven_per_kind_and_its_twin_that_keys_one_effect_is_caught() {
    Proof {
        contract: authorize_and_charge::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: authorize_and_charge::call,
        effects: SimBilling::count_both,
    }
    .prove();
    let m = Mutant::AuthorizeWithoutKey;
    let report = mutant_counting(m, |b: &SimBilling, a: &ChargeArgs| {
        Mutant::AuthorizeWithoutKey.count(b, a)
    })
    .check(&Config {
        env: Some(m.env()),
        classes: vec![FaultClass::LostAck],
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{report}");
    assert!(report.violating(FaultClass::LostAck) > 0, "{report}");
    let c = &report.counterexamples[0];
    println!("{}", c.timeline());
    assert!(
        c.violations
            .iter()
            .any(|v| v.detail.contains("of kind `authorize`")),
        "{}",
        c.timeline()
    );
    // Counted as one effect (its charges), as Proof.effects could only count before, the
    // twin passes the same run.
    let one_kind = mutant(m).check(&Config {
        env: Some(m.env()),
        classes: vec![FaultClass::LostAck],
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    assert_eq!(one_kind.violating(FaultClass::LostAck), 0, "{one_kind}");
}

/// A mutant as a proof, with its own effect counter.
#[allow(clippy::type_complexity)]
fn mutant_counting<C: idemcheck::sim::EffectCounts>(
    m: Mutant,
    effects: fn(&SimBilling, &ChargeArgs) -> C,
) -> Proof<
    fn(&Net) -> SimBilling,
    fn(u64, u32) -> ChargeArgs,
    impl AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError> + Sync,
    fn(&SimBilling, &ChargeArgs) -> C,
> {
    Proof {
        contract: m.contract(),
        world: SimBilling::new as fn(&Net) -> SimBilling,
        intent: ChargeArgs::episode as fn(u64, u32) -> ChargeArgs,
        call: async move |ctx: &idemcheck::Context, b: &SimBilling, a: ChargeArgs| {
            m.call(ctx, b, a).await
        },
        effects,
    }
}

// ------------------------------------------------------------------ what a custom world needs

/// The billing tool whose postcondition looks the charge up by the key its request carried.
#[side_effect(
    key = [customer, order_id],
    verify = find_charge_by_key,
    max_retries = 1,
    timeout_ms = 30_000,
    settle_ms = 120_000,
    server_dedup = true
)]
async fn create_charge_by_key(billing: &SimBilling, args: ChargeArgs) -> Result<Charge, SimError> {
    let key = current_key();
    billing
        .create_charge(&args, key.as_ref().map(|k| k.as_str()))
        .await
}

async fn find_charge_by_key(
    billing: &SimBilling,
    _args: &ChargeArgs,
) -> Result<Option<Charge>, SimError> {
    // The key this call sent: available in the postcondition as in the body.
    let key = current_key().ok_or(SimError::Invalid)?;
    Ok(billing
        .net
        .find_by_key(key.as_str())
        .await?
        .map(|e| Charge::from_effect(&e)))
}

#[test]
fn the_postcondition_can_look_the_effect_up_by_the_key_it_sent() {
    let report = Proof {
        contract: create_charge_by_key::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_by_key::call,
        effects: SimBilling::count,
    }
    .check(&Config {
        save_to: None,
        ..Config::default()
    });
    println!("{report}");
    report.assert_proven();
    // After a lost ack the lookup by key finds the charge: every such call completes
    // (without the key in the postcondition it could only answer Unknown).
    let lost_ack = report.stats(FaultClass::LostAck).unwrap();
    assert_eq!(lost_ack.answers, [lost_ack.episodes, 0, 0], "{report}");
}

/// A world with its own history: twelve earlier charges of the customer, written as the
/// world is built.
fn world_with_history(net: &Net, bracket: bool) -> SimBilling {
    let billing = SimBilling::new(net);
    if bracket {
        net.set_setup(true);
    }
    for k in 0..12 {
        let args = ChargeArgs::episode(1_000_000 + k, 0);
        // Unbracketed, these meet the schedule's faults (their errors are ignored here).
        let _ = net.clock().block_on(billing.create_charge(&args, None));
    }
    if bracket {
        net.set_setup(false);
    }
    billing
}

#[test]
fn a_world_that_writes_its_own_history_brackets_it_as_set_up() {
    let proof = |bracket: bool| Proof {
        contract: create_charge_listing::CONTRACT,
        world: move |net: &Net| world_with_history(net, bracket),
        intent: ChargeArgs::episode,
        call: create_charge_listing::call,
        effects: SimBilling::count,
    };
    let config = Config {
        classes: vec![FaultClass::LostAck, FaultClass::ConcurrentCallers],
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    };
    let bracketed = proof(true).check(&config);
    println!("{bracketed}");
    assert!(
        bracketed.classes.iter().all(|(_, s)| s.violating == 0),
        "{bracketed}"
    );
    assert!(bracketed.never_bit().is_empty(), "{bracketed}");
    // Unbracketed, the history's writes are taken for the tool's: unclaimed (I5), and the
    // schedule's faults hit them instead of the tool's requests.
    let unbracketed = proof(false).check(&config);
    println!("{unbracketed}");
    assert!(
        unbracketed
            .stats(FaultClass::ConcurrentCallers)
            .unwrap()
            .by_invariant[3]
            > 0,
        "{unbracketed}"
    );
    assert!(!unbracketed.never_bit().is_empty(), "{unbracketed}");
    // Net::seed does the same in one call.
    let clock = VirtualClock::new();
    let net = Net::new(
        clock,
        NetConfig::default(),
        &Schedule::of([Fault::LostAck { request: 0 }]),
    );
    let seeded = net.seed("o-x", &ChargeArgs::episode(9, 0)).unwrap();
    assert_eq!(seeded.id, 1);
    let b = SimBilling::new(&net);
    let err = net
        .clock()
        .block_on(b.create_charge(&ChargeArgs::episode(1, 0), None))
        .unwrap();
    assert_eq!(
        err.unwrap_err(),
        SimError::Timeout,
        "request 0 is the tool's first, not the seed"
    );
}

// ------------------------------------------------------------------ determinism, log, shrinking

#[allow(clippy::type_complexity)]
fn builtin() -> Proof<
    fn(&Net) -> SimBilling,
    fn(u64, u32) -> ChargeArgs,
    impl AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError>,
    fn(&SimBilling, &ChargeArgs) -> usize,
> {
    Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new as fn(&Net) -> SimBilling,
        intent: ChargeArgs::episode as fn(u64, u32) -> ChargeArgs,
        call: billing::create_charge,
        effects: SimBilling::count as fn(&SimBilling, &ChargeArgs) -> usize,
    }
}

#[test]
fn same_schedule_same_log_byte_for_byte() {
    let proof = builtin();
    let env = Env::for_contract(&billing::CREATE_CHARGE);
    let mut rng = idemcheck::sim::SplitMix64::new(7);
    for class in FaultClass::ALL {
        for i in 0..20 {
            let s = env.draw(class, &mut rng);
            let a = proof.episode(&env, i, &s).jsonl();
            let b = proof.episode(&env, i, &s).jsonl();
            assert_eq!(a, b);
        }
    }
}

#[test]
fn the_event_log_records_every_kind_of_event_as_json_lines() {
    let proof = builtin();
    let env = Env::for_contract(&billing::CREATE_CHARGE);
    let schedule = Schedule::of([
        Fault::Crash {
            request: 0,
            restart_ms: 2_000,
        },
        Fault::LostAck { request: 1 },
        Fault::Invisible {
            request: 0,
            delay_ms: 30_000,
        },
        Fault::Diverge { at_ms: 500_000 },
    ]);
    let ep = proof.episode(&env, 3, &schedule);
    assert!(ep.violations.is_empty(), "{:?}", ep.violations);
    let others = [
        Schedule::of([
            Fault::LostAck { request: 0 },
            Fault::Redeliver { at_ms: 1_000 },
        ]),
        Schedule::of([Fault::Drop { request: 0 }]),
        Schedule::of([Fault::LateCommit {
            request: 0,
            delay_ms: 60_000,
        }]),
    ];
    let mut text = ep.jsonl();
    for s in &others {
        let e = proof.episode(&env, 4, s);
        assert!(e.violations.is_empty(), "{:?}", e.violations);
        text.push_str(&e.jsonl());
    }
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        kinds.insert(v["ev"].as_str().unwrap().to_string());
    }
    for k in [
        "call", "dispatch", "effect", "ack", "ack_lost", "dropped", "held", "timeout", "crash",
        "ledger", "read", "report",
    ] {
        assert!(kinds.contains(k), "{k} missing from\n{text}");
    }
    // The crashed owner's record was adopted by the new process once the effect was
    // visible: one charge.
    assert_eq!(ep.effects, [1, 0, 0, 0]);
    assert!(ep.events.iter().any(|e| matches!(
        &e.kind,
        EventKind::Ledger { op, result, pid: 2 } if op == "resolve" && result == "COMMITTED"
    )));
    // Times never go backwards.
    assert!(ep.events.windows(2).all(|w| w[0].t <= w[1].t));
}

#[test]
fn a_replayed_schedule_with_extreme_values_runs_to_an_answer() {
    // Saved counterexamples are other people's input: no overflow, no endless crowd.
    let s = Schedule {
        faults: vec![
            Fault::Crowd { records: u32::MAX },
            Fault::Slow {
                request: 0,
                delay_ms: u64::MAX,
            },
            Fault::Redeliver { at_ms: u64::MAX },
            Fault::Stall {
                at_ms: u64::MAX,
                for_ms: u64::MAX,
            },
            Fault::ErrorAfter {
                request: 1,
                status: 599,
            },
        ],
        start_ms: u64::MAX - 10,
    };
    let ep = builtin().episode(&Env::for_contract(&billing::CREATE_CHARGE), 0, &s);
    assert!(!ep.reports.is_empty());
    let text = serde_json::to_string(&s).unwrap();
    let back: Schedule = serde_json::from_str(&text).unwrap();
    assert_eq!(back, s);
    assert!(s.to_string().starts_with("clock starts at "));
}

#[test]
fn shrinking_finds_the_shortest_failing_schedule() {
    let proof = Proof {
        contract: billing::NAIVE_RETRY,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::naive_retry,
        effects: SimBilling::count,
    };
    let env = Env::for_contract(&billing::NAIVE_RETRY);
    let noisy = Schedule::of([
        Fault::Invisible {
            request: 1,
            delay_ms: 7_000,
        },
        Fault::Drop { request: 2 },
        Fault::LostAck { request: 1 },
        Fault::Diverge { at_ms: 400_000 },
        Fault::LostAck { request: 0 },
    ]);
    assert!(!proof.episode(&env, 0, &noisy).violations.is_empty());
    let shrunk = proof.shrink(&env, 0, noisy);
    assert_eq!(shrunk.faults.len(), 1, "{shrunk}");
}

// ------------------------------------------------------------------ saved counterexamples

#[test]
fn saved_counterexample_naive_retry_lost_ack_replays() {
    control_proof()
        .replay_file(manifest(
            "tests/counterexamples/naive_retry-lost_ack-seed1-ep0.json",
        ))
        .assert_reproduces();
}

#[test]
fn saved_counterexample_verify_without_settle_late_commit_replays() {
    Proof {
        contract: billing::VERIFY_NO_SETTLE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::verify_then_retry_no_settle,
        effects: SimBilling::count,
    }
    .replay_file(manifest(
        "tests/counterexamples/verify_then_retry_no_settle-late_commit-seed1-ep0.json",
    ))
    .assert_reproduces();
}

#[test]
fn saved_counterexample_replayed_against_the_wrapper_is_fixed() {
    builtin()
        .replay_file(manifest(
            "tests/counterexamples/naive_retry-lost_ack-seed1-ep0.json",
        ))
        .assert_fixed();
}

#[allow(clippy::type_complexity)]
fn control_proof() -> BillingProof<
    impl AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError>,
> {
    Proof {
        contract: billing::NAIVE_RETRY,
        world: SimBilling::new as fn(&Net) -> SimBilling,
        intent: ChargeArgs::episode as fn(u64, u32) -> ChargeArgs,
        call: billing::naive_retry,
        effects: SimBilling::count as fn(&SimBilling, &ChargeArgs) -> usize,
    }
}

/// Regenerates the saved counterexamples: `cargo test -p idemcheck --features sim --test
/// sim -- --ignored bless`.
#[test]
#[ignore]
fn bless_counterexamples() {
    let dir = manifest("tests/counterexamples");
    let cfg = Config {
        classes: vec![FaultClass::LostAck, FaultClass::LateCommit],
        seeds: vec![1],
        episodes: 1,
        save_to: Some(dir),
        exhaustive: 0,
        ..Config::default()
    };
    let r = control_proof().check(&cfg);
    println!("{r}");
    let r = Proof {
        contract: billing::VERIFY_NO_SETTLE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::verify_then_retry_no_settle,
        effects: SimBilling::count,
    }
    .check(&cfg);
    println!("{r}");
    let r = lying_postcondition().check(&lying_config(Some(manifest("tests/counterexamples"))));
    println!("{r}");
}

// ------------------------------------------------------------------ a lying postcondition

/// A proof of the simulator's billing tool, with the call `FC`.
type BillingProof<FC> = Proof<
    fn(&Net) -> SimBilling,
    fn(u64, u32) -> ChargeArgs,
    FC,
    fn(&SimBilling, &ChargeArgs) -> usize,
>;

/// The billing tool whose postcondition always says "done" (it fabricates success).
fn lying_postcondition() -> BillingProof<
    impl AsyncFn(&idemcheck::Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError> + Sync,
> {
    Proof {
        contract: Mutant::VerifyAlwaysDone.contract(),
        world: SimBilling::new as fn(&Net) -> SimBilling,
        intent: ChargeArgs::episode as fn(u64, u32) -> ChargeArgs,
        call: async |ctx: &idemcheck::Context, b: &SimBilling, a: ChargeArgs| {
            Mutant::VerifyAlwaysDone.call(ctx, b, a).await
        },
        effects: SimBilling::count as fn(&SimBilling, &ChargeArgs) -> usize,
    }
}

fn lying_config(save_to: Option<PathBuf>) -> Config {
    Config {
        classes: vec![FaultClass::LostRequest],
        seeds: vec![1],
        episodes: 1,
        save_to,
        exhaustive: 0,
        threads: Some(1),
        ..Config::default()
    }
}

#[test]
fn a_lying_postcondition_passes_the_old_six_classes_and_fails_lost_request() {
    let report = lying_postcondition().check(&Config {
        seeds: vec![1, 2, 3],
        episodes: 100,
        ..Config::acceptance_only()
    });
    println!("{report}");
    assert!(!report.is_proven());
    // What issue 12 found: the six classes of the first harness never catch it.
    for class in &FaultClass::ALL[..6] {
        assert_eq!(report.violating(*class), 0, "{class}\n{report}");
    }
    assert!(report.violating(FaultClass::LostRequest) > 0, "{report}");
}

#[test]
fn docs_show_the_lying_postcondition_shrunk_and_its_replay() {
    let report = lying_postcondition().check(&lying_config(None));
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.class == Some(FaultClass::LostRequest))
        .expect("a counterexample");
    let readme = std::fs::read_to_string(manifest("../docs/simulator.md")).unwrap();
    assert!(
        readme.contains(&c.timeline()),
        "docs/simulator.md must show this timeline:\n{}",
        c.timeline()
    );
    let saved = "tests/counterexamples/verify_always_done-lost_request-seed1-ep0.json";
    assert!(
        readme.contains(saved),
        "docs/simulator.md must show the replay of {saved}"
    );
    lying_postcondition()
        .replay_file(manifest(saved))
        .assert_reproduces();
}

// ------------------------------------------------------------------ the system of record

#[test]
fn system_of_record_follows_stripe_key_rules() {
    let clock = VirtualClock::new();
    let net = Net::new(
        clock.clone(),
        NetConfig {
            server_keys: true,
            validate: Some(|v| v["amount_cents"].as_u64() != Some(0)),
            key_ttl_ms: 24 * 3600 * 1000,
            ..NetConfig::default()
        },
        &Schedule::of([Fault::Invisible {
            request: 0,
            delay_ms: 5_000,
        }]),
    );
    let b = SimBilling::new(&net);
    let a = ChargeArgs::episode(1, 0);
    let zero = ChargeArgs {
        amount_cents: 0,
        ..a.clone()
    };
    clock
        .block_on(async {
            let first = b.create_charge(&a, Some("k1")).await.unwrap();
            // Not visible to reads yet; ground truth has it.
            assert_eq!(b.find_charge(&a).await.unwrap(), None);
            assert_eq!(b.count(&a), 1);
            // Same key, same parameters: the first result, no new effect.
            assert_eq!(b.create_charge(&a, Some("k1")).await.unwrap(), first);
            // Same key, other parameters: refused.
            let other = ChargeArgs {
                amount_cents: 9900,
                ..a.clone()
            };
            assert_eq!(
                b.create_charge(&other, Some("k1")).await.unwrap_err(),
                SimError::KeyReused
            );
            // Invalid parameters are not stored: the key can be used once corrected.
            assert_eq!(
                b.create_charge(&zero, Some("k2")).await.unwrap_err(),
                SimError::Invalid
            );
            let fixed = ChargeArgs {
                order_id: "o-2".into(),
                ..a.clone()
            };
            b.create_charge(&fixed, Some("k2")).await.unwrap();
            net.clock().advance(std::time::Duration::from_secs(5));
            assert_eq!(b.find_charge(&a).await.unwrap(), Some(first.clone()));
            // Keys are pruned after the TTL: the same key is a new request again.
            net.clock()
                .advance(std::time::Duration::from_secs(24 * 3600));
            b.create_charge(&a, Some("k1")).await.unwrap();
        })
        .unwrap();
    assert_eq!(b.count(&ChargeArgs::episode(1, 0)), 2);
    assert_eq!(net.all_effects().len(), 3);
    assert_eq!(SimError::KeyReused.to_string(), idemcheck::sim::KEY_REUSED);
}

// ------------------------------------------------------------------ the references

#[test]
fn retry_matrix_reproduces_reference_000_character_for_character() {
    let out = experiments::render_matrix(&experiments::retry_matrix());
    // The reference part: everything before the additions, without the idemcheck rows.
    let reference_part: String = out
        .split("\nBeyond the reference")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("  idemcheck"))
        .map(|l| format!("{l}\n"))
        .collect();
    let expected =
        std::fs::read_to_string(manifest("tests/fixtures/reference_000_expected.txt")).unwrap();
    assert_eq!(reference_part, expected);
    // The fixture is the reference's own block (checked when the references are beside
    // the repository, as in CI).
    if let Ok(text) =
        std::fs::read_to_string(manifest("../../shared/references/000_573d37a637e3b37e.txt"))
    {
        assert!(
            text.contains(&expected),
            "fixture drifted from reference 000"
        );
    }
    assert!(out.contains("idemcheck: 0 duplicate(s) in 7 runs"), "{out}");
}

#[test]
fn retry_matrix_markdown_has_every_cell() {
    let md = experiments::render_matrix_markdown(&experiments::retry_matrix());
    assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 1 + 6);
    assert!(
        md.contains("| idemcheck | 1 ok | 1 ok | 1 ok | 1 ok | 1 ok | 1 ok | 1 ok |"),
        "{md}"
    );
}

#[test]
fn fault_levels_have_the_papers_shape() {
    let cells = experiments::fault_levels(100, 42);
    println!("{}", experiments::render_levels(&cells, 42));
    let get = |t: Task, l: FaultLevel, m: Method| {
        cells
            .iter()
            .find(|c| c.task == t && c.level == l && c.method == m)
            .unwrap()
            .clone()
    };
    for t in Task::ALL {
        let base: Vec<u64> = FaultLevel::ALL
            .iter()
            .map(|&l| get(t, l, Method::RetryOnly).duplicates)
            .collect();
        assert!(base[0] < base[1] && base[1] < base[2], "{t:?}: {base:?}");
        for l in FaultLevel::ALL {
            let w = get(t, l, Method::Idemcheck);
            assert_eq!(w.duplicates, 0, "{t:?} {l:?}");
            assert!(
                w.successes >= get(t, l, Method::RetryOnly).successes,
                "{t:?} {l:?}"
            );
        }
    }
    let md = experiments::render_levels_markdown(&cells, 42);
    assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 1 + 18);
    let svg = experiments::render_levels_svg(&cells);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<rect x=").count(),
        18 + 3,
        "18 bars and 3 legend keys"
    );
}

// ------------------------------------------------------------------ the harness, mutated

#[test]
fn every_mutant_is_killed_by_a_fault_class() {
    let report = idemcheck::sim::mutants::run(&Config {
        seeds: vec![1],
        episodes: 60,
        ..Config::acceptance_only()
    });
    println!("{report}");
    let (killed, total) = report.score();
    assert_eq!(total, idemcheck::sim::mutants::Mutant::ALL.len());
    assert_eq!(
        killed,
        total,
        "mutation score below 100 %: {:?} survived\n{report}",
        report.survivors()
    );
    // Each class added with a mutant kills it.
    for m in idemcheck::sim::mutants::Mutant::ALL {
        if let Some(class) = m.designed_for() {
            assert!(
                report.kills(m, class) > 0,
                "{m} ({}) is not killed by {class}, the class made for it\n{report}",
                m.bug()
            );
        }
    }
    // Each class added by harness v3 kills a mutant no older class kills.
    for class in &FaultClass::ALL[14..] {
        assert!(
            !report.first_killed_by(*class).is_empty(),
            "{class} kills nothing an older class does not\n{report}"
        );
    }
    // docs/simulator.md shows this run's table.
    let readme = std::fs::read_to_string(manifest("../docs/simulator.md")).unwrap();
    assert!(
        readme.contains(&report.markdown()),
        "docs/simulator.md must show the mutant table:\n{}",
        report.markdown()
    );
    let text = report.to_string();
    assert!(
        text.contains(&format!("{total}/{total} mutants killed")),
        "{text}"
    );
}

#[test]
fn the_report_does_not_depend_on_the_number_of_threads() {
    let proof = control_proof();
    let run = |threads| {
        let report = proof.check(&Config {
            seeds: vec![4, 5],
            episodes: 30,
            threads: Some(threads),
            ..Config::acceptance_only()
        });
        let saved: Vec<String> = report
            .counterexamples
            .iter()
            .map(|c| c.timeline())
            .collect();
        (report.to_string(), saved)
    };
    let one = run(1);
    assert!(one.0.contains("NOT PROVEN"), "the control fails: {}", one.0);
    assert_eq!(one, run(2));
    assert_eq!(one, run(5));
}

// ------------------------------------------------------------------ no postcondition

/// The billing API as if it could not be read back (an SMTP server, a webhook): the contract
/// says so with `verify = none`, and passes no key (no `server_dedup`).
#[side_effect(key = [customer, order_id], verify = none, max_retries = 0, timeout_ms = 30_000)]
async fn create_charge_unreadable(
    billing: &SimBilling,
    args: ChargeArgs,
) -> Result<Charge, SimError> {
    billing.create_charge(&args, None).await
}

#[test]
fn without_a_postcondition_the_read_classes_are_not_applicable_and_no_effect_is_duplicated() {
    let report = Proof {
        contract: create_charge_unreadable::CONTRACT,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: create_charge_unreadable::call,
        effects: SimBilling::count,
    }
    .check(&Config {
        save_to: None,
        shrink: false,
        ..Config::default()
    });
    println!("{report}");
    let text = report.to_string();
    let read_classes: Vec<FaultClass> = FaultClass::ALL
        .into_iter()
        .filter(|c| c.needs_read())
        .collect();
    assert_eq!(read_classes.len(), 4, "{read_classes:?}");
    for class in &read_classes {
        assert!(!report.applicable(*class), "{class}");
        let (_, why) = report
            .not_applicable
            .iter()
            .find(|(c, _)| c == class)
            .unwrap();
        assert!(
            why.starts_with("not applicable: no postcondition (verify = none)"),
            "{why}"
        );
        assert!(
            text.contains(&format!("{class}: not applicable: no postcondition")),
            "{text}"
        );
    }
    assert!(report.never_bit().is_empty(), "{:?}", report.never_bit());
    // What can be proven is: at most one effect, no wrong answer, every invariant exercised.
    for (class, s) in &report.classes {
        assert_eq!(s.violating, 0, "{class}: {s:?}");
    }
    let lost_ack = report.stats(FaultClass::LostAck).unwrap();
    assert!(lost_ack.hits > 0);
    assert!(
        lost_ack.answers[2] > 0,
        "lost acks stay Unknown: {lost_ack:?}"
    );
    assert!(report.uncovered().is_empty(), "{text}");
    assert_eq!(report.exhaustive.1, 0);
    assert!(
        text.contains("no postcondition (verify = none): proven here is at most one effect"),
        "{text}"
    );
    assert!(
        text.contains("an operator settles it in the ledger"),
        "{text}"
    );
    report.assert_proven();
}
