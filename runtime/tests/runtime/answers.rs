//! Right answers (issue 25, items 2 and 4): a ledger outage whose postcondition cannot tell is
//! Unknown; the detail of a call that stopped waiting says what the postcondition answered and
//! how long it waited ([`Context::with_max_wait`]); a contract without a read
//! (`verify = none`) never executes an interrupted call again unless `server_dedup`.

use super::*;
use idemcheck::Answer;

/// A claim left by a worker that crashed, on `tool`'s key for `a`.
fn crashed_claim_of(w: &World, tool: &str, lease: Duration, a: &ChargeArgs) -> u64 {
    let key = idemcheck::Key::derive(
        w.ctx.scope(),
        tool,
        &idemcheck::key::Material::new()
            .field("customer", &a.customer)
            .field("order_id", &a.order_id),
    )
    .unwrap();
    let fp = idemcheck::Fingerprint::of(&idemcheck::key::Material::new().field("args", a)).unwrap();
    let claim = Claim {
        key: &key,
        fingerprint: &fp,
        tool,
        owner: "crashed-worker",
        lease,
        ttl: Duration::from_secs(3600),
    };
    match w.run(w.ledger.begin(&claim)).unwrap() {
        Begin::Claimed { token } => token,
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------ item 4: right answers

#[test]
fn a_ledger_outage_whose_postcondition_cannot_tell_is_unknown() {
    let clock = VirtualClock::new();
    let ctx = Context::with_clock(DownLedger, Arc::new(clock.clone()), Scope::run("r"));
    let billing = Billing::new(&clock, &[Next::Ok]);
    // An earlier call did charge; the postcondition's search is down too.
    billing.commit(&args("o-1", 4900));
    billing
        .verify_answers
        .lock()
        .unwrap()
        .push_back(Err("search API down".into()));
    let out = clock
        .block_on(charge_settled::call(&ctx, &billing, args("o-1", 4900)))
        .unwrap();
    let Outcome::Unknown(Unknown {
        postcondition: Postcondition::LedgerUnavailable { error, answer },
        attempts: 0,
        ..
    }) = &out
    else {
        panic!("a guessed answer: {out:?}")
    };
    assert!(error.contains("connection refused"), "{error}");
    assert_eq!(*answer, Answer::CannotTell("search API down".into()));
    assert_eq!(billing.effects(), 1, "nothing executed by this call");
    let text = idemcheck::Escalation::of("charge", &out).to_string();
    assert!(
        text.contains("postcondition answered: could not tell (search API down)"),
        "{text}"
    );
}

#[test]
fn a_ledger_outage_whose_postcondition_says_done_or_not_done_is_answered_by_it() {
    for done in [true, false] {
        let clock = VirtualClock::new();
        let ctx = Context::with_clock(DownLedger, Arc::new(clock.clone()), Scope::run("r"));
        let billing = Billing::new(&clock, &[Next::Ok]);
        if done {
            billing.commit(&args("o-1", 4900));
        }
        let out = clock
            .block_on(charge_settled::call(&ctx, &billing, args("o-1", 4900)))
            .unwrap();
        match (done, &out) {
            (true, Outcome::Completed(c)) => assert_eq!(c.id, "ch_1"),
            (
                false,
                Outcome::NotCompleted(NotCompleted {
                    reason: Failure::Ledger(_),
                    ..
                }),
            ) => {}
            _ => panic!("done = {done}: {out:?}"),
        }
    }
}

#[test]
fn a_call_that_stops_waiting_says_what_the_postcondition_answered() {
    let w = world(&[Next::Ok]);
    let ctx = w.ctx.clone().with_max_wait(Duration::from_secs(2));
    let a = args("o-1", 4900);
    crashed_claim(&w, &a);
    w.billing
        .verify_answers
        .lock()
        .unwrap()
        .push_back(Err("index down".into()));
    let out = w.run(charge_settled::call(&ctx, &w.billing, a));
    let Outcome::Unknown(Unknown {
        postcondition: Postcondition::InFlightElsewhere { answer, .. },
        ..
    }) = &out
    else {
        panic!("{out:?}")
    };
    assert_eq!(*answer, Answer::CannotTell("index down".into()));
    let text = idemcheck::Escalation::of("charge", &out).to_string();
    assert!(
        text.contains("postcondition answered: could not tell (index down)"),
        "{text}"
    );
    assert!(!text.contains("says not done"), "{text}");
    assert_eq!(w.billing.effects(), 0, "never executed blindly");
}

#[test]
fn the_wait_for_a_call_in_flight_elsewhere_is_set_by_max_wait_and_reported() {
    // charge_settled's lease: 2 × (1 s + 5 s) + 5 s = 17 s.
    let lease = charge_settled::CONTRACT.lease();
    assert_eq!(lease, Duration::from_secs(17));
    for wait in [Duration::from_secs(3), Duration::from_secs(10)] {
        let w = world(&[Next::Ok]);
        let ctx = w.ctx.clone().with_max_wait(wait);
        assert_eq!(ctx.max_wait(), wait);
        let a = args("o-1", 4900);
        crashed_claim(&w, &a);
        let out = w.run(charge_settled::call(&ctx, &w.billing, a));
        let Outcome::Unknown(Unknown {
            postcondition:
                Postcondition::InFlightElsewhere {
                    owner,
                    since,
                    lease_until,
                    waited,
                    answer,
                },
            ..
        }) = &out
        else {
            panic!("{out:?}")
        };
        assert_eq!(owner, "crashed-worker");
        assert_eq!(*since, Timestamp(0));
        assert_eq!(*lease_until, Timestamp(0).after(lease));
        assert_eq!(*answer, Answer::NotDone);
        assert!(*waited <= wait, "{waited:?} > {wait:?}");
        // It polls a tenth of the lease at a time: it stops within one poll of the limit.
        assert!(*waited + lease / 10 > wait, "{waited:?} for {wait:?}");
        assert_eq!(w.clock.now(), Timestamp(0).after(*waited));
        assert_eq!(w.billing.effects(), 0);
    }
    // The default, documented: 30 s.
    assert_eq!(
        idemcheck::context::DEFAULT_MAX_WAIT,
        Duration::from_secs(30)
    );
    let w = world(&[]);
    assert_eq!(w.ctx.max_wait(), idemcheck::context::DEFAULT_MAX_WAIT);
}

// ------------------------------------------------------------------ item 2: verify = none

/// Send a message: the mail system cannot be read back.
#[side_effect(key = [customer, order_id], verify = none, max_retries = 0, timeout_ms = 1_000)]
async fn send_unreadable(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    attempt(billing, args).await
}

/// The same, to an API that deduplicates on the key it is passed.
#[side_effect(key = [customer, order_id], verify = none, max_retries = 1, timeout_ms = 1_000, settle_ms = 1_000, server_dedup = true)]
async fn send_deduplicated(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> {
    attempt(billing, args).await
}

#[test]
fn the_contract_says_it_has_no_postcondition() {
    let c = send_unreadable::CONTRACT;
    assert!(c.no_postcondition);
    assert_eq!(c.verify, None);
    let spec = c.to_spec();
    assert!(spec.no_postcondition);
    assert!(spec.is_complete());
}

#[test]
fn without_a_postcondition_a_lost_ack_is_unknown_and_never_executed_again() {
    let w = world(&[Next::LostAck, Next::Ok, Next::Ok]);
    let a = args("o-1", 4900);
    let out = w.run(send_unreadable::call(&w.ctx, &w.billing, a.clone()));
    let Outcome::Unknown(u) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(u.postcondition, Postcondition::NoPostcondition);
    assert_eq!(u.attempts, 1);
    assert_eq!(w.states(), [RecordState::Unknown]);
    let text = idemcheck::Escalation::of("send", &out).to_string();
    assert!(text.contains("no postcondition (verify = none)"), "{text}");
    // The agent calls again, now and after the lease: never a second send.
    let again = w.run(send_unreadable::call(&w.ctx, &w.billing, a.clone()));
    assert!(again.is_unknown(), "{again:?}");
    w.clock.advance(Duration::from_secs(3600));
    let later = w.run(send_unreadable::call(&w.ctx, &w.billing, a.clone()));
    assert_eq!(
        later.clone().into_result_unknown(),
        Some(Postcondition::NoPostcondition),
        "{later:?}"
    );
    assert_eq!(w.billing.effects(), 1, "sent once");
    assert!(w.billing.verify_calls.lock().unwrap().is_empty());
    // An operator settles it: later calls replay the decision.
    w.run(w.ledger.decide(
        &u.key,
        &Decision::Happened {
            result: serde_json::to_value(charge("ch_1", "o-1", 4900)).unwrap(),
        },
    ))
    .unwrap();
    let settled = w.run(send_unreadable::call(&w.ctx, &w.billing, a));
    assert_eq!(settled, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
}

#[test]
fn without_a_postcondition_a_crashed_claim_is_unknown_after_its_lease() {
    let w = world(&[Next::Ok]);
    let a = args("o-1", 4900);
    let lease = send_unreadable::CONTRACT.lease();
    crashed_claim_of(&w, "send_unreadable", lease, &a);
    let out = w.run(send_unreadable::call(&w.ctx, &w.billing, a));
    let Outcome::Unknown(u) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(u.postcondition, Postcondition::NoPostcondition);
    assert_eq!(
        w.billing.effects(),
        0,
        "not executed: the crashed owner may have sent"
    );
    assert_eq!(
        w.clock.now(),
        Timestamp(0).after(lease),
        "waited for the lease"
    );
}

#[test]
fn without_a_postcondition_but_with_server_dedup_a_lost_ack_is_retried_with_the_same_key() {
    let w = world(&[Next::LostAck, Next::Ok]);
    let out = w.run(send_deduplicated::call(
        &w.ctx,
        &w.billing,
        args("o-1", 4900),
    ));
    assert!(out.is_completed(), "{out:?}");
    let keys = w.billing.keys_seen.lock().unwrap().clone();
    assert_eq!(keys.len(), 2);
    assert_eq!(
        keys[0], keys[1],
        "the API sees the same key: it deduplicates"
    );
    // At the cap, never "not completed": nothing can say it did not happen.
    let w = world(&[Next::LostAck, Next::LostAck]);
    let out = w.run(send_deduplicated::call(
        &w.ctx,
        &w.billing,
        args("o-1", 4900),
    ));
    let Outcome::Unknown(u) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(u.postcondition, Postcondition::NoPostcondition);
    assert_eq!(u.attempts, 2);
}

trait UnknownOf {
    fn into_result_unknown(self) -> Option<Postcondition>;
}

impl<T, E> UnknownOf for Outcome<T, E> {
    fn into_result_unknown(self) -> Option<Postcondition> {
        match self {
            Outcome::Unknown(u) => Some(u.postcondition),
            _ => None,
        }
    }
}

#[test]
fn without_a_postcondition_an_operator_decision_not_done_frees_the_key() {
    let w = world(&[Next::Dropped, Next::Ok]);
    let a = args("o-1", 4900);
    let out = w.run(send_unreadable::call(&w.ctx, &w.billing, a.clone()));
    let Outcome::Unknown(u) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(w.billing.effects(), 0, "the request was dropped");
    w.run(w.ledger.decide(&u.key, &Decision::DidNotHappen))
        .unwrap();
    let again = w.run(send_unreadable::call(&w.ctx, &w.billing, a));
    assert_eq!(again, Outcome::Completed(charge("ch_1", "o-1", 4900)));
    assert_eq!(w.billing.effects(), 1);
}
