//! The wrapper's overhead per call over the raw tool, with the in-memory ledger.
//!
//! `cargo bench -p idemcheck --bench overhead` prints, for a no-op tool: the raw call, the
//! guarded first call (new key: derive key + fingerprint, claim, execute, commit) and the
//! guarded replay (derive, one ledger read, deserialize the stored result), on virtual time
//! and on tokio's current-thread runtime with the system clock. Target: ≤ 5 µs per call.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use idemcheck::{Context, MemoryLedger, Scope, VirtualClock, side_effect};
use serde::{Deserialize, Serialize};

#[derive(Clone, Serialize)]
struct ChargeArgs {
    customer: String,
    order_id: u64,
    amount_cents: u64,
    currency: &'static str,
}

#[derive(Clone, Serialize, Deserialize)]
struct Charge {
    id: u64,
    amount_cents: u64,
}

struct Billing;

#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
async fn create_charge(_billing: &Billing, args: ChargeArgs) -> Result<Charge, String> {
    Ok(Charge {
        id: args.order_id,
        amount_cents: args.amount_cents,
    })
}

/// The same tool, but it waits once (like any real I/O), so the per-attempt timer is armed.
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
async fn create_charge_io(_billing: &Billing, args: ChargeArgs) -> Result<Charge, String> {
    tokio::task::yield_now().await;
    Ok(Charge {
        id: args.order_id,
        amount_cents: args.amount_cents,
    })
}

async fn find_charge(_billing: &Billing, _args: &ChargeArgs) -> Result<Option<Charge>, String> {
    Ok(None)
}

fn args(order_id: u64) -> ChargeArgs {
    ChargeArgs {
        customer: "cus_8f3a2c".into(),
        order_id,
        amount_cents: 4900,
        currency: "usd",
    }
}

/// Median of `rounds` timings of `n` iterations, in nanoseconds per iteration.
fn measure(rounds: usize, n: u64, mut f: impl FnMut(u64, u64)) -> f64 {
    let mut per = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let start = Instant::now();
        f(r as u64 * n, n);
        per.push(start.elapsed().as_nanos() as f64 / n as f64);
    }
    per.sort_by(f64::total_cmp);
    per[rounds / 2]
}

fn main() {
    const N: u64 = 50_000;
    const ROUNDS: usize = 7;
    let billing = Billing;

    // Virtual time: the executor's own cost, no timer wheel.
    let clock = VirtualClock::new();
    let ledger = MemoryLedger::with_clock(Arc::new(clock.clone()));
    let ctx = Context::with_clock(ledger, Arc::new(clock.clone()), Scope::run("bench"));
    let raw = measure(ROUNDS, N, |base, n| {
        for i in base..base + n {
            black_box(clock.block_on(create_charge(&billing, args(i))));
        }
    });
    let first = measure(ROUNDS, N, |base, n| {
        for i in base..base + n {
            black_box(clock.block_on(create_charge::call(&ctx, &billing, args(i))));
        }
    });
    let replay = measure(ROUNDS, N, |_, n| {
        for _ in 0..n {
            black_box(clock.block_on(create_charge::call(&ctx, &billing, args(7))));
        }
    });

    // tokio current-thread runtime, system clock and tokio's timer (the per-attempt timeout).
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ledger = rt.block_on(async { MemoryLedger::new() });
    let tctx = rt.block_on(async { Context::new(ledger, Scope::run("bench")) });
    let t_raw = measure(ROUNDS, N, |base, n| {
        rt.block_on(async {
            for i in base..base + n {
                black_box(create_charge(&billing, args(i)).await.ok());
            }
        })
    });
    let t_first = measure(ROUNDS, N, |base, n| {
        rt.block_on(async {
            for i in base..base + n {
                black_box(
                    create_charge::call(&tctx, &billing, args(i))
                        .await
                        .is_completed(),
                );
            }
        })
    });
    let t_replay = measure(ROUNDS, N, |_, n| {
        rt.block_on(async {
            for _ in 0..n {
                black_box(
                    create_charge::call(&tctx, &billing, args(7))
                        .await
                        .is_completed(),
                );
            }
        })
    });

    let io_raw = measure(ROUNDS, N, |base, n| {
        rt.block_on(async {
            for i in base..base + n {
                black_box(create_charge_io(&billing, args(i)).await.ok());
            }
        })
    });
    let io_first = measure(ROUNDS, N, |base, n| {
        rt.block_on(async {
            for i in base..base + n {
                black_box(
                    create_charge_io::call(&tctx, &billing, args(i))
                        .await
                        .is_completed(),
                );
            }
        })
    });

    let us = |ns: f64| ns / 1_000.0;
    println!(
        "wrapper overhead per call, in-memory ledger, no-op tool ({N} calls x {ROUNDS} rounds, median)"
    );
    println!(
        "{:<34} {:>10} {:>12} {:>12}",
        "", "raw (µs)", "guarded (µs)", "overhead (µs)"
    );
    for (name, r, g) in [
        ("virtual clock, first call", raw, first),
        ("virtual clock, replay", raw, replay),
        ("tokio + system clock, first call", t_raw, t_first),
        ("tokio + system clock, replay", t_raw, t_replay),
        ("tokio, tool awaits I/O, first call", io_raw, io_first),
    ] {
        println!(
            "{name:<34} {:>10.3} {:>12.3} {:>12.3}",
            us(r),
            us(g),
            us(g - r)
        );
    }
    let worst = (first - raw)
        .max(replay - raw)
        .max(t_first - t_raw)
        .max(t_replay - t_raw)
        .max(io_first - io_raw);
    println!(
        "worst overhead: {:.3} µs per call (target ≤ 5 µs): {}",
        us(worst),
        if worst <= 5_000.0 { "met" } else { "NOT met" }
    );
}
