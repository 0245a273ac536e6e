//! The example agent tools (`examples/agent-tools`), proven with the simulator: each
//! service trait gets a simulated implementation on the episode's `Net`, and each guarded
//! tool runs DESIGN's acceptance run (9,600 fault episodes, 16 classes, I1–I5, every class bites,
//! replay identical, small schedules enumerated). [`documented`] proves every contract the
//! README, the docs and the examples show, and fails when they gain one it does not cover.

use agent_tools::billing::{
    self, BillingApi, BillingError, Charge, ChargeArgs, Refund, RefundArgs,
};
use agent_tools::email::{self, MailApi, MailError, Message, MessageId};
use agent_tools::tickets::{self, DeskError, HelpDesk, Ticket, TicketArgs};
use idemcheck::Context;
use idemcheck::sim::{Config, Effect, Net, Proof, Report, SimError};

#[path = "agent_tools/documented.rs"]
mod documented;
#[path = "agent_tools/in_place.rs"]
mod in_place;
/// The README's proof of an rmcp tool guarded in place, run here too: `documented` lists its
/// contract, `in_place` breaks it.
#[path = "../../../examples/agent-tools/tests/readme_prove_rmcp.rs"]
#[allow(unreachable_pub)]
mod readme_prove;

/// The example services, on the simulated world.
struct SimApis {
    net: Net,
}

impl SimApis {
    fn new(net: &Net) -> SimApis {
        SimApis { net: net.clone() }
    }
}

fn payload<T: serde::de::DeserializeOwned>(e: &Effect) -> T {
    serde_json::from_value((*e.payload).clone()).expect("we stored it")
}

fn billing_error(e: SimError) -> BillingError {
    match e {
        SimError::Timeout => BillingError::Timeout,
        SimError::KeyReused => BillingError::KeyReuse,
        SimError::Invalid => BillingError::InvalidRequest("rejected".into()),
        // 503 before, 500 after the effect: both ambiguous to a client.
        _ => BillingError::Timeout,
    }
}

fn charge(e: &Effect) -> Charge {
    let a: ChargeArgs = payload(e);
    Charge {
        id: format!("ch_{}", e.id),
        customer: a.customer,
        order_id: a.order_id,
        amount_cents: a.amount_cents,
        currency: a.currency,
    }
}

fn refund(e: &Effect) -> Refund {
    let a: RefundArgs = payload(e);
    Refund {
        id: format!("re_{}", e.id),
        charge_id: a.charge_id,
        amount_cents: a.amount_cents,
    }
}

impl BillingApi for SimApis {
    async fn create_charge(
        &self,
        req: &ChargeArgs,
        idempotency_key: Option<&str>,
    ) -> Result<Charge, BillingError> {
        self.net
            .write(&req.order_id, req, idempotency_key)
            .await
            .map(|e| charge(&e))
            .map_err(billing_error)
    }

    async fn find_charge_for_order(
        &self,
        customer: &str,
        order_id: &str,
    ) -> Result<Option<Charge>, BillingError> {
        Ok(self
            .net
            .read(order_id)
            .await
            .map_err(billing_error)?
            .iter()
            .map(charge)
            .find(|c| c.customer == customer))
    }

    async fn create_refund(
        &self,
        req: &RefundArgs,
        idempotency_key: Option<&str>,
    ) -> Result<Refund, BillingError> {
        self.net
            .write(&format!("refund:{}", req.charge_id), req, idempotency_key)
            .await
            .map(|e| refund(&e))
            .map_err(billing_error)
    }

    async fn find_refund(&self, charge_id: &str) -> Result<Option<Refund>, BillingError> {
        Ok(self
            .net
            .read(&format!("refund:{charge_id}"))
            .await
            .map_err(billing_error)?
            .first()
            .map(refund))
    }
}

impl MailApi for SimApis {
    async fn send(&self, message: &Message) -> Result<MessageId, MailError> {
        self.net
            .write(&message.to, message, None)
            .await
            .map(|e| MessageId(format!("msg_{}", e.id)))
            .map_err(|_| MailError::Timeout)
    }

    async fn find_sent(&self, to: &str, template: &str) -> Result<Option<MessageId>, MailError> {
        Ok(self
            .net
            .read(to)
            .await
            .map_err(|_| MailError::Timeout)?
            .iter()
            .find(|e| e.payload["template"] == template)
            .map(|e| MessageId(format!("msg_{}", e.id))))
    }
}

impl HelpDesk for SimApis {
    async fn create(&self, args: &TicketArgs) -> Result<Ticket, DeskError> {
        self.net
            .write(&args.reference, args, None)
            .await
            .map(|e| Ticket {
                number: e.id,
                reference: args.reference.clone(),
            })
            .map_err(|_| DeskError::Timeout)
    }

    async fn search(&self, reference: &str) -> Result<Option<Ticket>, DeskError> {
        let found = self
            .net
            .read(reference)
            .await
            .map_err(|_| DeskError::Timeout)?;
        Ok(found.first().map(|e| Ticket {
            number: e.id,
            reference: reference.to_string(),
        }))
    }
}

/// DESIGN's acceptance rule (zero I1/I4 violations, every class bit, replay identical).
#[track_caller]
fn assert_acceptance(report: &idemcheck::sim::Report) {
    println!("{report}");
    assert!(report.replay_identical, "{report}");
    assert!(report.never_bit().is_empty(), "{report}");
    for (class, s) in &report.classes {
        assert_eq!(s.by_invariant[0], 0, "I1 {class}\n{report}");
        assert_eq!(s.by_invariant[2], 0, "I4 {class}\n{report}");
    }
    for c in &report.counterexamples {
        println!("{}", c.timeline());
    }
}

fn config() -> Config {
    Config {
        save_to: None,
        ..Config::default()
    }
}

#[allow(clippy::type_complexity)]
fn charge_proof() -> Proof<
    impl Fn(&Net) -> SimApis,
    impl Fn(u64, u32) -> ChargeArgs,
    impl AsyncFn(&Context, &SimApis, ChargeArgs) -> idemcheck::Outcome<Charge, BillingError>,
    impl Fn(&SimApis, &ChargeArgs) -> usize,
> {
    Proof {
        contract: billing::create_charge::CONTRACT,
        world: SimApis::new,
        intent: |n, v| ChargeArgs {
            customer: "acme".into(),
            order_id: format!("o-{n}"),
            amount_cents: if v == 0 { 4900 } else { 9900 },
            currency: "usd".into(),
        },
        call: billing::create_charge::call::<SimApis>,
        effects: |w: &SimApis, a: &ChargeArgs| w.net.count(&a.order_id, a),
    }
}

#[test]
fn billing_create_charge_is_proven() {
    let report = charge_proof().check(&config());
    assert!(
        report.wire_redelivery,
        "server_dedup: wire duplicates injected too"
    );
    assert_acceptance(&report);
    report.assert_proven();
}

/// A finding of the harness, kept as a regression test: lost ack, late visibility, lost ack on
/// the retry. A `server_dedup` contract without `settle_ms` used to release the key and answer
/// "not completed" for a charge that exists (I2); it now answers Unknown after its last retry.
#[test]
fn finding_server_dedup_without_settle_reports_not_completed_for_an_existing_charge() {
    charge_proof()
        .replay_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/counterexamples/create_charge-lost_ack-seed1-ep7.json"
        ))
        .assert_fixed();
}

fn refund_report() -> Report {
    Proof {
        contract: billing::refund::CONTRACT,
        world: SimApis::new,
        intent: |n, v| RefundArgs {
            charge_id: format!("ch_{n}"),
            amount_cents: if v == 0 { 4900 } else { 4000 },
            reason: "duplicate order".into(),
        },
        call: billing::refund::call::<SimApis>,
        effects: |w: &SimApis, a: &RefundArgs| w.net.count(&format!("refund:{}", a.charge_id), a),
    }
    .check(&config())
}

#[test]
fn billing_refund_is_proven() {
    let report = refund_report();
    assert_acceptance(&report);
    report.assert_proven();
}

fn welcome_report() -> Report {
    Proof {
        contract: email::send_welcome::CONTRACT,
        world: SimApis::new,
        intent: |n, v| {
            (
                format!("cust-{n}"),
                if v == 0 {
                    format!("cust-{n}@example.com")
                } else {
                    format!("other-{n}@example.com")
                },
            )
        },
        call: async |ctx: &Context, w: &SimApis, (customer_id, to): (String, String)| {
            email::send_welcome::call(ctx, w, customer_id, to).await
        },
        effects: |w: &SimApis, (customer_id, to): &(String, String)| {
            w.net
                .effects(to)
                .iter()
                .filter(|e| e.payload["customer_id"] == customer_id.as_str())
                .count()
        },
    }
    .check(&config())
}

#[test]
fn email_send_welcome_is_proven() {
    let report = welcome_report();
    println!("{report}");
    assert!(!report.wire_redelivery, "the mail API takes no key");
    report.assert_proven();
}

fn ticket_report() -> Report {
    Proof {
        contract: tickets::open_ticket::CONTRACT,
        world: SimApis::new,
        intent: |n, v| TicketArgs {
            reference: format!("order-{n}"),
            requester: "ops@example.com".into(),
            subject: "Refund request".into(),
            body: if v == 0 {
                "Please refund."
            } else {
                "Please refund twice."
            }
            .into(),
        },
        call: tickets::open_ticket::call::<SimApis>,
        effects: |w: &SimApis, a: &TicketArgs| w.net.count(&a.reference, a),
    }
    .check(&config())
}

#[test]
fn tickets_open_ticket_is_proven() {
    ticket_report().assert_proven();
}

/// Writes the counterexamples of the example tools: `cargo test -p idemcheck-sim-tests
/// --test agent_tools -- --ignored bless`.
#[test]
#[ignore]
fn bless_counterexamples() {
    let report = charge_proof().check(&Config {
        classes: vec![idemcheck::sim::FaultClass::LostAck],
        seeds: vec![1],
        episodes: 10,
        exhaustive: 0,
        save_to: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/counterexamples").into()),
        ..Config::default()
    });
    println!("{report}");
}
