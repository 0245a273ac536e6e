//! Simulator speed, single-threaded: episodes per second, and the wall time of the
//! acceptance run (200 episodes x 16 classes x 3 seeds = 9,600; each seed run twice for I3,
//! so 16,800 episodes executed, plus the byte comparison of their logs).
//!
//! `cargo bench -p idemcheck --features sim --bench sim`

use std::hint::black_box;
use std::time::Instant;

use idemcheck::sim::billing::{self, ChargeArgs, SimBilling};
use idemcheck::sim::{Config, Env, FaultClass, Proof, Schedule, SplitMix64};

fn main() {
    let proof = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge,
        effects: SimBilling::count,
    };
    let env = Env::for_contract(&billing::CREATE_CHARGE);

    // Warm up.
    let report = proof.check(&Config::acceptance_only());
    assert!(report.is_proven(), "{report}");

    // The acceptance run: best of 5, on one thread and on the machine's parallelism.
    let parallelism = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in [1, parallelism] {
        let config = Config {
            threads: Some(threads),
            ..Config::acceptance_only()
        };
        let mut best = f64::MAX;
        let mut episodes = 0;
        let mut classes = 0;
        for _ in 0..5 {
            let t = Instant::now();
            let report = black_box(proof.check(&config));
            best = best.min(t.elapsed().as_secs_f64());
            assert!(report.is_proven());
            episodes = report.episodes();
            classes = report.classes.len();
        }
        let executed = episodes as f64 * 2.0;
        println!(
            "acceptance run ({episodes} episodes, {classes} classes, x 2 runs for I3, logs compared), {threads} thread(s): {:.1} ms  ({:.0} episodes/s)",
            best * 1e3,
            executed / best
        );
    }

    // Episodes per class, schedules drawn up front.
    let mut total_eps = 0u64;
    let mut total_time = 0.0;
    for class in FaultClass::ALL {
        let mut rng = SplitMix64::new(9);
        let schedules: Vec<Schedule> = (0..20_000).map(|_| env.draw(class, &mut rng)).collect();
        let t = Instant::now();
        for (i, s) in schedules.iter().enumerate() {
            black_box(proof.episode(&env, i as u64, s));
        }
        let dt = t.elapsed().as_secs_f64();
        total_eps += schedules.len() as u64;
        total_time += dt;
        println!(
            "  {:<18} {:>9.0} episodes/s",
            class.as_str(),
            schedules.len() as f64 / dt
        );
    }
    let clean: Vec<Schedule> = vec![Schedule::none(); 20_000];
    let t = Instant::now();
    for (i, s) in clean.iter().enumerate() {
        black_box(proof.episode(&env, i as u64, s));
    }
    println!(
        "  {:<18} {:>9.0} episodes/s",
        "no fault",
        clean.len() as f64 / t.elapsed().as_secs_f64()
    );
    println!(
        "all fault classes: {:.0} episodes/s single-threaded ({} episodes)",
        total_eps as f64 / total_time,
        total_eps
    );
    let t = Instant::now();
    let (n, bad, _) = proof.enumerate(&env, 4);
    println!(
        "exhaustive enumeration, up to 4 faults: {n} schedules ({bad} violating) in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
}
