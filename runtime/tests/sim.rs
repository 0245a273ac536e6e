//! The simulator and property harness, proving guarded tools under every fault class.

use idemcheck::sim::billing::{self, ChargeArgs, SimBilling};
use idemcheck::sim::{Config, FaultClass, Proof};

#[test]
fn builtin_create_charge_is_proven() {
    let report = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge,
        effects: SimBilling::count,
    }
    .check(&Config::acceptance_only());
    println!("{report}");
    for c in &report.counterexamples {
        println!("{}", c.timeline());
    }
    report.assert_proven();
}

#[test]
fn naive_retry_fails() {
    let report = Proof {
        contract: billing::NAIVE_RETRY,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::naive_retry,
        effects: SimBilling::count,
    }
    .check(&Config {
        shrink: true,
        ..Config::acceptance_only()
    });
    println!("{report}");
    for c in &report.counterexamples {
        println!("{}", c.timeline());
    }
    assert!(report.violating(FaultClass::LostAck) > 0);
}
