//! Every `#[side_effect(...)]` contract that README.md, docs/*.md, the examples and the crate
//! documentation of `idemcheck` and `idemcheck-macros` show as one to write is proven here by the harness (DESIGN's acceptance run, the 16 classes, and every
//! schedule of up to four faults), and a guard fails when one of them gains a contract this
//! file does not cover, so the list cannot go stale.
//!
//! A contract is proven on the tool that carries it when that tool can run on the simulated
//! world: the example agent tools of `examples/agent-tools` (their free functions, generic over
//! the service traits; the rmcp server's methods guarded in place carry the same contracts and
//! call the same bodies and postconditions), and docs/rmcp.md's mail server, whose method
//! guarded in place is proven itself (`sim::in_place`, `readme_prove_rmcp.rs`). A tool that cannot (the README's rmcp inventory
//! keeps its reservations in a `Vec`; the rig example lives in its own workspace) is proven
//! through a twin here: a free function whose attribute is the documented text, verbatim,
//! over the simulated system of record, with the documented postcondition's lookup (and, for
//! the rig example, its error classification: every failure ambiguous). [`twins_carry_the_documented_contracts`] checks each
//! twin's compiled `CONTRACT` against the text it stands for.
//!
//! The rule catalogue (docs/rules.md, generated from `specs/src/rules/`) shows each rule with a
//! contract that breaks it and one that passes: those introduced by a `// fires`, `// fails` or
//! `// warns` comment are broken on purpose and left out ([`shown_broken`]); those that pass are
//! proven like the others. Other contracts the docs show unfinished on purpose (the incomplete
//! tool, `suggest`'s proposals before a key or a settle window is chosen) are listed in
//! [`NOT_WORKING`] with the reason; the settle-less proposal's gap is shown by the harness itself.

use std::path::{Path, PathBuf};
use std::time::Instant;

use idemcheck::sim::billing::{Charge, ChargeArgs, SimBilling};
use idemcheck::sim::{Config, FaultClass, Net, Proof, Report, SimError};
use idemcheck::{Classify, Contract, ErrorClass, KeySpec, side_effect};
use serde::{Deserialize, Serialize};

// ------------------------------------------------------------------ the simulated records

/// A system of record of the simulated world: one record per business id.
#[derive(Debug, Clone)]
pub(crate) struct Records {
    net: Net,
}

impl Records {
    fn new(net: &Net) -> Records {
        Records { net: net.clone() }
    }

    /// Creates a record for `id` (`key` when the API takes one).
    async fn create<P: Serialize>(
        &self,
        id: &str,
        params: &P,
        key: Option<&str>,
    ) -> Result<u64, SimError> {
        self.net.write(id, params, key).await.map(|e| e.id)
    }

    /// The record for `id`, if reads can see one.
    async fn find(&self, id: &str) -> Result<Option<u64>, SimError> {
        Ok(self.net.read(id).await?.first().map(|e| e.id))
    }
}

// ------------------------------------------------------------------ README: rmcp, five steps

/// README "Guarding an rmcp server in five steps" (`examples/agent-tools/tests/readme_rmcp.rs`).
mod reserve {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub(crate) struct ReserveArgs {
        pub(crate) order_id: String,
        pub(crate) sku: String,
        pub(crate) qty: u32,
    }

    pub(crate) fn intent(n: u64, variant: u32) -> ReserveArgs {
        ReserveArgs {
            order_id: format!("o-{n}"),
            sku: "sku-7".into(),
            qty: if variant == 0 { 3 } else { 4 },
        }
    }

    #[side_effect(key = [order_id], verify = find_reservation, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    pub(crate) async fn reserve_stock(
        inventory: &Records,
        args: ReserveArgs,
    ) -> Result<u64, SimError> {
        inventory.create(&args.order_id, &args, None).await
    }

    /// As the README's: the reservation of this order, by `order_id`.
    pub(crate) async fn find_reservation(
        inventory: &Records,
        args: &ReserveArgs,
    ) -> Result<Option<u64>, SimError> {
        inventory.find(&args.order_id).await
    }

    pub(crate) fn count(inventory: &Records, args: &ReserveArgs) -> usize {
        inventory.net.count(&args.order_id, args)
    }
}

// ------------------------------------------------------------------ README: rig, in place

/// README "Guarding a rig tool" (`examples/rig-tools/src/lib.rs`, `SendInvoice`).
mod invoice {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub(crate) struct InvoiceArgs {
        pub(crate) order_id: String,
        pub(crate) amount_cents: u64,
    }

    pub(crate) fn intent(n: u64, variant: u32) -> InvoiceArgs {
        InvoiceArgs {
            order_id: format!("o-{n}"),
            amount_cents: if variant == 0 { 4900 } else { 9900 },
        }
    }

    /// As the example's `InvoiceError`: every failure of the billing system is ambiguous.
    #[derive(Debug)]
    pub(crate) struct InvoiceError(SimError);

    impl std::fmt::Display for InvoiceError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "billing: {}", self.0)
        }
    }

    impl Classify for InvoiceError {
        fn class(&self) -> ErrorClass {
            ErrorClass::Ambiguous
        }
    }

    #[side_effect(key = [order_id], verify = find_invoice, max_retries = 1,
                  timeout_ms = 2_000, settle_ms = 2_000)]
    pub(crate) async fn send_invoice(
        billing: &Records,
        args: InvoiceArgs,
    ) -> Result<u64, InvoiceError> {
        billing
            .create(&args.order_id, &args, None)
            .await
            .map_err(InvoiceError)
    }

    /// As the example's: is there an invoice for this order?
    pub(crate) async fn find_invoice(
        billing: &Records,
        args: &InvoiceArgs,
    ) -> Result<Option<u64>, InvoiceError> {
        billing.find(&args.order_id).await.map_err(InvoiceError)
    }

    pub(crate) fn count(billing: &Records, args: &InvoiceArgs) -> usize {
        billing.net.count(&args.order_id, args)
    }
}

// ------------------------------------------------------------------ docs/design.md grammar

/// docs/design.md "The contract grammar".
mod grammar {
    use super::*;

    #[side_effect(
        key = [customer, order_id],   // inputs naming the logical operation (paths allowed: args.order.id)
        verify = find_charge,         // postcondition: did this operation already happen?
        max_retries = 1,              // retry cap per logical operation; 0 = never retry
        timeout_ms = 10_000,          // per-attempt timeout
        settle_ms = 90_000,           // longest time a dispatched request can stay in flight
    )]
    pub(crate) async fn create_charge(
        billing: &SimBilling,
        args: ChargeArgs,
    ) -> Result<Charge, SimError> {
        billing.create_charge(&args, None).await
    }

    pub(crate) async fn find_charge(
        billing: &SimBilling,
        args: &ChargeArgs,
    ) -> Result<Option<Charge>, SimError> {
        billing.find_charge(args).await
    }
}

// ------------------------------------------------------------------ README: suggest's proposal

/// README "Suggested contracts": what `suggest` proposes for `open_ticket` before a settle
/// window or `server_dedup` is chosen (the README says `IDEM009` stays a warning until then:
/// the macro's warning is expected here).
#[allow(deprecated)]
mod proposal {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub(crate) struct TicketArgs {
        pub(crate) incident_id: String,
        pub(crate) requester: String,
        pub(crate) body: String,
    }

    pub(crate) fn intent(n: u64, variant: u32) -> TicketArgs {
        TicketArgs {
            incident_id: format!("inc-{n}"),
            requester: "ops@example.com".into(),
            body: if variant == 0 {
                "Disk full"
            } else {
                "Disk full again"
            }
            .into(),
        }
    }

    #[idemcheck::side_effect(
          key = [incident_id, requester],
          verify = verify_open_ticket,
          max_retries = 1
      )]
    pub(crate) async fn open_ticket(desk: &Records, args: TicketArgs) -> Result<u64, SimError> {
        desk.create(&args.incident_id, &args, None).await
    }

    pub(crate) async fn verify_open_ticket(
        desk: &Records,
        args: &TicketArgs,
    ) -> Result<Option<u64>, SimError> {
        desk.find(&args.incident_id).await
    }

    pub(crate) fn count(desk: &Records, args: &TicketArgs) -> usize {
        desk.net.count(&args.incident_id, args)
    }
}

// ------------------------------------------------------------------ examples: two tools, one field

/// The examples' tests of tool identity (`examples/agent-tools/tests/agent_tools.rs`,
/// `examples/rig-tools/tests/identity_and_feedback.rs`): two tools acting on one ticket, each
/// keyed on `ticket_id` alone and never retried. One twin per postcondition name, each on the
/// help desk's change log (`escalated` or `deprioritised`, per ticket).
macro_rules! ticket_change {
    ($module:ident, $verify:ident, $change:literal) => {
        ticket_change!($module, $verify, $change, #[side_effect(key = [ticket_id], verify = $verify, max_retries = 0, settle_ms = 30_000)]);
    };
    ($module:ident, $verify:ident, $change:literal, #[$contract:meta]) => {
        pub(crate) mod $module {
            use super::*;

            #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
            pub(crate) struct TicketArgs {
                pub(crate) ticket_id: String,
                pub(crate) note: String,
            }

            pub(crate) fn intent(n: u64, variant: u32) -> TicketArgs {
                TicketArgs {
                    ticket_id: format!("t-{n}"),
                    note: if variant == 0 { "customer waiting" } else { "customer left" }.into(),
                }
            }

            fn change(args: &TicketArgs) -> String {
                format!("{} {}", $change, args.ticket_id)
            }

            #[$contract]
            pub(crate) async fn tool(desk: &Records, args: TicketArgs) -> Result<u64, SimError> {
                desk.create(&change(&args), &args, None).await
            }

            pub(crate) async fn $verify(
                desk: &Records,
                args: &TicketArgs,
            ) -> Result<Option<u64>, SimError> {
                desk.find(&change(args)).await
            }

            pub(crate) fn count(desk: &Records, args: &TicketArgs) -> usize {
                desk.net.count(&change(args), args)
            }

            pub(crate) fn report() -> Report {
                Proof {
                    contract: tool::CONTRACT,
                    world: Records::new,
                    intent,
                    call: tool::call,
                    effects: count,
                }
                .check(&super::config())
            }
        }
    };
}

ticket_change!(escalation, find_escalation, "escalated");
ticket_change!(deprioritisation, find_deprioritisation, "deprioritised");
ticket_change!(escalated, find_escalated, "escalated");
ticket_change!(deprioritised, find_deprioritised, "deprioritised");
ticket_change!(rig_escalate, find, "escalated");
ticket_change!(
    no_settle,
    find_escalation,
    "escalated",
    #[side_effect(key = [ticket_id], verify = find_escalation, max_retries = 0)]
);

// ------------------------------------------------------------------ docs/contract.md: no read

/// docs/contract.md "When the system cannot be read back": an e-mail send with
/// `verify = none`. The mail system is a record per (reference, recipient) that the tool never
/// reads.
pub(crate) mod smtp {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub(crate) struct Mail {
        pub(crate) reference: String,
        pub(crate) to: String,
        pub(crate) body: String,
    }

    pub(crate) fn intent(n: u64, variant: u32) -> Mail {
        Mail {
            reference: format!("order-{n}"),
            to: "ana@example.com".into(),
            body: if variant == 0 {
                "Your order shipped."
            } else {
                "Your order is late."
            }
            .into(),
        }
    }

    fn message(reference: &str, to: &str) -> String {
        format!("mail {reference} {to}")
    }

    #[side_effect(key = [reference, to], verify = none, max_retries = 0, timeout_ms = 30_000)]
    pub(crate) async fn send_email(
        smtp: &Records,
        reference: String,
        to: String,
        body: String,
    ) -> Result<u64, SimError> {
        let mail = Mail {
            reference: reference.clone(),
            to: to.clone(),
            body,
        };
        smtp.create(&message(&reference, &to), &mail, None).await
    }

    pub(crate) fn count(smtp: &Records, mail: &Mail) -> usize {
        smtp.net.count(&message(&mail.reference, &mail.to), mail)
    }

    pub(crate) fn report() -> Report {
        Proof {
            contract: send_email::CONTRACT,
            world: Records::new,
            intent,
            call: async |ctx: &idemcheck::Context, smtp: &Records, m: Mail| {
                send_email::call(ctx, smtp, m.reference, m.to, m.body).await
            },
            effects: count,
        }
        .check(&super::config())
    }
}

// ------------------------------------------------------------------ docs/rules.md: what passes

/// The rule catalogue's passing examples (docs/rules.md, generated from `specs/src/rules/`).
mod rules {
    use super::*;

    /// IDEM001–IDEM004 and IDEM007 (there on an rmcp method: the same contract).
    #[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
    pub(crate) async fn create_charge(
        billing: &SimBilling,
        args: ChargeArgs,
    ) -> Result<Charge, SimError> {
        billing.create_charge(&args, None).await
    }

    pub(crate) async fn find_charge(
        billing: &SimBilling,
        args: &ChargeArgs,
    ) -> Result<Option<Charge>, SimError> {
        billing.find_charge(args).await
    }

    /// A record's arguments: its business id and a body that is not part of the key.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    pub(crate) struct RecordArgs {
        pub(crate) id: String,
        pub(crate) body: String,
    }

    /// Episode `n`'s record under `prefix`.
    pub(crate) fn record(prefix: &str, n: u64, variant: u32) -> RecordArgs {
        RecordArgs {
            id: format!("{prefix}-{n}"),
            body: if variant == 0 { "first" } else { "changed" }.into(),
        }
    }

    pub(crate) fn count(records: &Records, args: &RecordArgs) -> usize {
        records.net.count(&args.id, args)
    }

    async fn lookup(records: &Records, args: &RecordArgs) -> Result<Option<u64>, SimError> {
        records.find(&args.id).await
    }

    async fn make(records: &Records, args: RecordArgs) -> Result<u64, SimError> {
        records.create(&args.id, &args, None).await
    }

    /// IDEM005 (`ticket_ref` is the record's id).
    pub(crate) mod ticket {
        use super::*;

        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        pub(crate) struct TicketArgs {
            pub(crate) ticket_ref: String,
            pub(crate) body: String,
        }

        pub(crate) fn intent(n: u64, variant: u32) -> TicketArgs {
            let r = record("ref", n, variant);
            TicketArgs {
                ticket_ref: r.id,
                body: r.body,
            }
        }

        #[side_effect(key = [ticket_ref], verify = find_ticket, max_retries = 1, settle_ms = 30_000)]
        pub(crate) async fn open_ticket(desk: &Records, args: TicketArgs) -> Result<u64, SimError> {
            desk.create(&args.ticket_ref, &args, None).await
        }

        pub(crate) async fn find_ticket(
            desk: &Records,
            args: &TicketArgs,
        ) -> Result<Option<u64>, SimError> {
            desk.find(&args.ticket_ref).await
        }

        pub(crate) fn count(desk: &Records, args: &TicketArgs) -> usize {
            desk.net.count(&args.ticket_ref, args)
        }
    }

    /// IDEM008 (`order_id` is the record's id).
    pub(crate) mod order {
        use super::*;

        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        pub(crate) struct OrderArgs {
            pub(crate) order_id: String,
            pub(crate) body: String,
        }

        pub(crate) fn intent(n: u64, variant: u32) -> OrderArgs {
            let r = record("o", n, variant);
            OrderArgs {
                order_id: r.id,
                body: r.body,
            }
        }

        #[side_effect(key = [order_id], verify = find_order, max_retries = 1, settle_ms = 30_000)]
        pub(crate) async fn place_order(shop: &Records, args: OrderArgs) -> Result<u64, SimError> {
            shop.create(&args.order_id, &args, None).await
        }

        pub(crate) async fn find_order(
            shop: &Records,
            args: &OrderArgs,
        ) -> Result<Option<u64>, SimError> {
            shop.find(&args.order_id).await
        }

        pub(crate) fn count(shop: &Records, args: &OrderArgs) -> usize {
            shop.net.count(&args.order_id, args)
        }
    }

    /// IDEM009's passing example: `send_welcome(mail, to)`, keyed on the address; the
    /// changed call sends another body to the same address.
    pub(crate) mod welcome {
        use super::*;

        pub(crate) fn intent(n: u64, variant: u32) -> (String, String) {
            let r = record("cust", n, variant);
            (format!("{}@example.com", r.id), r.body)
        }

        #[side_effect(key = [to], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
        pub(crate) async fn send_welcome(
            mail: &Records,
            to: String,
            body: String,
        ) -> Result<u64, SimError> {
            mail.create(&to, &body, None).await
        }

        // A postcondition takes the tool's parameters by reference: `&String` for `String`.
        #[allow(clippy::ptr_arg)]
        pub(crate) async fn find_welcome(
            mail: &Records,
            to: &String,
            _body: &String,
        ) -> Result<Option<u64>, SimError> {
            mail.find(to).await
        }

        pub(crate) fn count(mail: &Records, (to, body): &(String, String)) -> usize {
            mail.net.count(to, body)
        }
    }

    /// IDEM013's passing example: two `create` methods, each with its own `name`.
    #[side_effect(name = "tickets.create", key = [id], verify = find, max_retries = 0, settle_ms = 30_000)]
    pub(crate) async fn create_ticket(
        records: &Records,
        args: RecordArgs,
    ) -> Result<u64, SimError> {
        make(records, args).await
    }

    #[side_effect(name = "users.create", key = [id], verify = find, max_retries = 0, settle_ms = 30_000)]
    pub(crate) async fn create_user(records: &Records, args: RecordArgs) -> Result<u64, SimError> {
        make(records, args).await
    }

    pub(crate) async fn find(
        records: &Records,
        args: &RecordArgs,
    ) -> Result<Option<u64>, SimError> {
        lookup(records, args).await
    }
}

// ------------------------------------------------------------------ the list

/// The config of every proof here: DESIGN's acceptance run, nothing saved.
fn config() -> Config {
    Config {
        save_to: None,
        ..Config::default()
    }
}

/// A documented contract and how it is proven.
struct Proven {
    /// The attribute's arguments as documented (compared without whitespace and comments).
    text: &'static str,
    /// Where it is documented (checked: the guard finds it there).
    shown_in: &'static [&'static str],
    /// The compiled contract of the tool the proof runs.
    contract: Contract,
    /// Which tool is proven: the example's own, or a twin here.
    proven_on: &'static str,
    /// The harness's run.
    prove: fn() -> Report,
}

/// Every documented working contract.
fn proven() -> Vec<Proven> {
    vec![
        Proven {
            text: "key = [reference, to], verify = none, max_retries = 0, timeout_ms = 30_000",
            shown_in: &["docs/contract.md"],
            contract: smtp::send_email::CONTRACT,
            proven_on: "a twin of docs/contract.md's `send_email` (no postcondition: the four read classes not applicable)",
            prove: smtp::report,
        },
        Proven {
            text: "key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 10_000, server_dedup = true",
            shown_in: &[
                "README.md",
                "examples/agent-tools/src/billing.rs",
                "examples/agent-tools/src/mcp.rs",
            ],
            contract: agent_tools::billing::create_charge::CONTRACT,
            proven_on: "agent_tools::billing::create_charge (the example's own code; mcp.rs's method calls its body and postcondition)",
            prove: || super::charge_proof().check(&config()),
        },
        Proven {
            text: "key = [charge_id], verify = find_refund, max_retries = 1, timeout_ms = 10_000, server_dedup = true",
            shown_in: &[
                "examples/agent-tools/src/billing.rs",
                "examples/agent-tools/src/mcp.rs",
            ],
            contract: agent_tools::billing::refund::CONTRACT,
            proven_on: "agent_tools::billing::refund (the example's own code)",
            prove: super::refund_report,
        },
        Proven {
            text: "key = [customer_id], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000",
            shown_in: &[
                "examples/agent-tools/src/email.rs",
                "examples/agent-tools/src/mcp.rs",
            ],
            contract: agent_tools::email::send_welcome::CONTRACT,
            proven_on: "agent_tools::email::send_welcome (the example's own code)",
            prove: super::welcome_report,
        },
        Proven {
            text: "key = [reference], verify = find_ticket, max_retries = 1, timeout_ms = 8_000, settle_ms = 20_000",
            shown_in: &[
                "examples/agent-tools/src/tickets.rs",
                "examples/agent-tools/src/mcp.rs",
            ],
            contract: agent_tools::tickets::open_ticket::CONTRACT,
            proven_on: "agent_tools::tickets::open_ticket (the example's own code)",
            prove: super::ticket_report,
        },
        Proven {
            text: "key = [order_id], verify = find_reservation, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000",
            shown_in: &["docs/rmcp.md", "examples/agent-tools/tests/readme_rmcp.rs"],
            contract: reserve::reserve_stock::CONTRACT,
            proven_on: "a twin of the README's rmcp `reserve_stock`",
            prove: || {
                Proof {
                    contract: reserve::reserve_stock::CONTRACT,
                    world: Records::new,
                    intent: reserve::intent,
                    call: reserve::reserve_stock::call,
                    effects: reserve::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "key = [reference, to], verify = find_receipt, max_retries = 1, timeout_ms = 10_000, settle_ms = 10_000",
            shown_in: &["docs/rmcp.md", "examples/agent-tools/tests/readme_prove_rmcp.rs"],
            contract: crate::readme_prove::MailServer::<crate::readme_prove::SimMail>::SEND_RECEIPT_CONTRACT,
            proven_on: "docs/rmcp.md's rmcp `MailServer::send_receipt` itself, guarded in place (its own proof, `sim::in_place`)",
            prove: crate::readme_prove::prove_send_receipt,
        },
        Proven {
            text: "key = [order_id], verify = find_invoice, max_retries = 1, timeout_ms = 2_000, settle_ms = 2_000",
            shown_in: &["docs/rig.md", "examples/rig-tools/src/lib.rs"],
            contract: invoice::send_invoice::CONTRACT,
            proven_on: "a twin of the rig example's `SendInvoice::call`",
            prove: || {
                Proof {
                    contract: invoice::send_invoice::CONTRACT,
                    world: Records::new,
                    intent: invoice::intent,
                    call: invoice::send_invoice::call,
                    effects: invoice::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 10_000, settle_ms = 90_000,",
            shown_in: &["docs/design.md"],
            contract: grammar::create_charge::CONTRACT,
            proven_on: "a twin of docs/design.md's `create_charge` on the simulator's billing service",
            prove: || {
                Proof {
                    contract: grammar::create_charge::CONTRACT,
                    world: SimBilling::new,
                    intent: ChargeArgs::episode,
                    call: grammar::create_charge::call,
                    effects: SimBilling::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "key = [ticket_id], verify = find_escalation, max_retries = 0, settle_ms = 30_000",
            shown_in: &["examples/agent-tools/tests/agent_tools.rs"],
            contract: escalation::tool::CONTRACT,
            proven_on: "a twin of the example test's `escalate_ticket`",
            prove: escalation::report,
        },
        Proven {
            text: "key = [ticket_id], verify = find_deprioritisation, max_retries = 0, settle_ms = 30_000",
            shown_in: &["examples/agent-tools/tests/agent_tools.rs"],
            contract: deprioritisation::tool::CONTRACT,
            proven_on: "a twin of the example test's `deprioritise_ticket`",
            prove: deprioritisation::report,
        },
        Proven {
            text: "key = [ticket_id], verify = find_escalated, max_retries = 0, settle_ms = 30_000",
            shown_in: &["examples/agent-tools/tests/agent_tools.rs"],
            contract: escalated::tool::CONTRACT,
            proven_on: "a twin of the example test's rmcp `escalate_ticket`",
            prove: escalated::report,
        },
        Proven {
            text: "key = [ticket_id], verify = find_deprioritised, max_retries = 0, settle_ms = 30_000",
            shown_in: &["examples/agent-tools/tests/agent_tools.rs"],
            contract: deprioritised::tool::CONTRACT,
            proven_on: "a twin of the example test's rmcp `deprioritise_ticket`",
            prove: deprioritised::report,
        },
        Proven {
            text: "key = [ticket_id], verify = find, max_retries = 0, settle_ms = 30_000",
            shown_in: &["examples/rig-tools/tests/identity_and_feedback.rs"],
            contract: rig_escalate::tool::CONTRACT,
            proven_on: "a twin of the rig test's `Escalate::call` and `Deprioritise::call`",
            prove: rig_escalate::report,
        },
        Proven {
            text: "key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000",
            shown_in: &["docs/rules.md", "runtime/src/lib.rs", "macros/src/lib.rs"],
            contract: rules::create_charge::CONTRACT,
            proven_on: "a twin of docs/rules.md's passing `create_charge` (IDEM001-IDEM004, IDEM007) and the crate docs' example",
            prove: || {
                Proof {
                    contract: rules::create_charge::CONTRACT,
                    world: SimBilling::new,
                    intent: ChargeArgs::episode,
                    call: rules::create_charge::call,
                    effects: SimBilling::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "key = [ticket_ref], verify = find_ticket, max_retries = 1, settle_ms = 30_000",
            shown_in: &["docs/rules.md"],
            contract: rules::ticket::open_ticket::CONTRACT,
            proven_on: "a twin of docs/rules.md's passing `open_ticket` (IDEM005)",
            prove: || {
                Proof {
                    contract: rules::ticket::open_ticket::CONTRACT,
                    world: Records::new,
                    intent: rules::ticket::intent,
                    call: rules::ticket::open_ticket::call,
                    effects: rules::ticket::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "key = [order_id], verify = find_order, max_retries = 1, settle_ms = 30_000",
            shown_in: &["docs/rules.md"],
            contract: rules::order::place_order::CONTRACT,
            proven_on: "a twin of docs/rules.md's passing `place_order` (IDEM008)",
            prove: || {
                Proof {
                    contract: rules::order::place_order::CONTRACT,
                    world: Records::new,
                    intent: rules::order::intent,
                    call: rules::order::place_order::call,
                    effects: rules::order::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "key = [to], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000",
            shown_in: &["docs/rules.md"],
            contract: rules::welcome::send_welcome::CONTRACT,
            proven_on: "a twin of docs/rules.md's passing `send_welcome` (IDEM009)",
            prove: || {
                Proof {
                    contract: rules::welcome::send_welcome::CONTRACT,
                    world: Records::new,
                    intent: rules::welcome::intent,
                    call: async |ctx: &idemcheck::Context,
                                 mail: &Records,
                                 (to, body): (String, String)| {
                        rules::welcome::send_welcome::call(ctx, mail, to, body).await
                    },
                    effects: rules::welcome::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "name = \"tickets.create\", key = [id], verify = find, max_retries = 0, settle_ms = 30_000",
            shown_in: &["docs/rules.md"],
            contract: rules::create_ticket::CONTRACT,
            proven_on: "a twin of docs/rules.md's passing `Tickets::create` (IDEM013)",
            prove: || {
                Proof {
                    contract: rules::create_ticket::CONTRACT,
                    world: Records::new,
                    intent: |n, v| rules::record("t", n, v),
                    call: rules::create_ticket::call,
                    effects: rules::count,
                }
                .check(&config())
            },
        },
        Proven {
            text: "name = \"users.create\", key = [id], verify = find, max_retries = 0, settle_ms = 30_000",
            shown_in: &["docs/rules.md"],
            contract: rules::create_user::CONTRACT,
            proven_on: "a twin of docs/rules.md's passing `Users::create` (IDEM013)",
            prove: || {
                Proof {
                    contract: rules::create_user::CONTRACT,
                    world: Records::new,
                    intent: |n, v| rules::record("u", n, v),
                    call: rules::create_user::call,
                    effects: rules::count,
                }
                .check(&config())
            },
        },
    ]
}

/// A contract the docs show on purpose as one that does not work yet, and why.
struct NotWorking {
    /// The attribute's arguments as documented.
    text: &'static str,
    /// Why it is not a working contract, and what shows it.
    why: &'static str,
}

/// Documented contracts that are not meant to work.
const NOT_WORKING: &[NotWorking] = &[
    NotWorking {
        text: "verify = crate::billing::find_charge",
        why: "the deliberately incomplete tool (examples/agent-tools/src/incomplete.rs): it does not compile (IDEM001, IDEM003), as the README and docs/lint.md show",
    },
    NotWorking {
        text: "key = [incident_id, requester], verify = verify_open_ticket, max_retries = 1",
        why: "suggest's proposal before a settle window or server_dedup is chosen (IDEM009 stays a warning until then): `a_proposal_without_settle_window_is_not_proven` shows the duplicate the harness finds",
    },
    NotWorking {
        text: "key = [], verify = verify_add_note, max_retries = 1",
        why: "suggest's proposal with a REVIEW placeholder for the key: it does not compile until an input naming the operation is added",
    },
];

// ------------------------------------------------------------------ the guard

/// Where documented contracts are: the README, the docs, and the examples' sources and tests.
fn documented_files(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    for example in ["examples/agent-tools", "examples/rig-tools"] {
        for dir in ["src", "tests"] {
            rust_files(&root.join(example).join(dir), &mut out);
        }
    }
    // The crate documentation users read first (its `//!` lines only: see [`code_of`]).
    out.extend(CRATE_DOCS.iter().map(|f| root.join(f)));
    out
}

/// Crate roots whose documentation (`//!`) shows a contract.
const CRATE_DOCS: &[&str] = &["runtime/src/lib.rs", "macros/src/lib.rs"];

/// The code of a documented file, line numbers kept: a Markdown file's fenced blocks, a crate
/// root's `//!` documentation, an example's whole source.
fn code_of(rel: &str, text: &str) -> String {
    if rel.ends_with(".md") {
        code_of_markdown(text)
    } else if CRATE_DOCS.contains(&rel) {
        text.lines()
            .map(|l| l.trim_start().strip_prefix("//!").unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        text.to_string()
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a Markdown file: the lines of its fenced blocks (other lines blanked, so line
/// numbers stay). Prose that names `#[side_effect(...)]` is not a contract.
fn code_of_markdown(text: &str) -> String {
    let mut inside = false;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        if fence {
            inside = !inside;
        }
        if inside && !fence {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Without comments (`//` to the end of the line, `/* .. */`) and whitespace.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        out.push_str(line);
        out.push(' ');
    }
    while let Some(start) = out.find("/*") {
        let end = out[start..].find("*/").map_or(out.len(), |e| start + e + 2);
        out.replace_range(start..end, "");
    }
    out.retain(|c| !c.is_whitespace());
    out
}

/// The arguments of every `side_effect(` attribute in `code`, with the line it starts on
/// (comments inside kept: [`normalise`] removes them).
fn attributes(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("side_effect(") {
        let open = from + at + "side_effect".len();
        let mut depth = 0usize;
        let mut end = code.len();
        for (i, c) in code[open..].char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = code[..open].matches('\n').count() + 1;
        out.push((line, code[open + 1..end].to_string()));
        from = end.min(code.len());
    }
    out
}

/// The contracts of `code`: its attributes, leaving out `#[side_effect(...)]` (in a comment
/// or a doc line it names the attribute, it is not one).
fn contracts_in(code: &str) -> Vec<(usize, String)> {
    attributes(code)
        .into_iter()
        .filter(|(_, args)| normalise(args) != "...")
        .collect()
}

/// Whether the contract starting on `line` (1-based) of `code` is shown broken on purpose: the
/// comment that introduces it (the nearest `//` line above it, in the same paragraph of code)
/// says it fires, fails or warns, as the rule catalogue's examples do (`// fires: nothing
/// identifies the operation`, `// passes`).
fn shown_broken(code: &str, line: usize) -> bool {
    let lines: Vec<&str> = code.lines().collect();
    for l in lines[..line - 1].iter().rev() {
        let l = l.trim();
        if l.is_empty() {
            return false;
        }
        if let Some(comment) = l.strip_prefix("//") {
            let word = comment.trim_start();
            return ["fires", "fails", "warns"]
                .iter()
                .any(|w| word.starts_with(w));
        }
    }
    false
}

/// Every documented contract: (file relative to the workspace, line, arguments), but those
/// [`shown_broken`] on purpose, which come second.
#[allow(clippy::type_complexity)]
fn documented(root: &Path) -> (Vec<(String, usize, String)>, Vec<(String, usize, String)>) {
    let mut broken = Vec::new();
    let mut out = Vec::new();
    for file in documented_files(root) {
        let text = std::fs::read_to_string(&file).expect("readable");
        let rel = file
            .strip_prefix(root)
            .expect("under the workspace")
            .to_string_lossy()
            .replace('\\', "/");
        let code = code_of(&rel, &text);
        for (line, args) in contracts_in(&code) {
            if shown_broken(&code, line) {
                broken.push((rel.clone(), line, args));
            } else {
                out.push((rel.clone(), line, args));
            }
        }
    }
    (out, broken)
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The guard: every contract the README, the docs and the examples show is in [`proven`] or
/// in [`NOT_WORKING`]; every entry of both is still shown somewhere (no stale entries); and a
/// proven one is shown in the files its entry names.
#[test]
fn every_documented_contract_is_listed() {
    let root = workspace();
    let (found, broken) = documented(&root);
    let proven = proven();
    let mut missing = Vec::new();
    for (file, line, args) in &found {
        let n = normalise(args);
        let listed = proven.iter().any(|p| normalise(p.text) == n)
            || NOT_WORKING.iter().any(|w| normalise(w.text) == n);
        if !listed {
            missing.push(format!("{file}:{line}: side_effect({})", args.trim()));
        }
    }
    assert!(
        missing.is_empty(),
        "contracts shown in the docs or examples that {} does not prove (add a proof to `proven()`, or, if the docs show it broken on purpose, a reason to NOT_WORKING):\n{}",
        file!(),
        missing.join("\n")
    );
    for p in &proven {
        let n = normalise(p.text);
        for file in p.shown_in {
            assert!(
                found.iter().any(|(f, _, a)| f == file && normalise(a) == n),
                "`{}` is no longer shown in {file}: update `proven()`",
                p.text
            );
        }
    }
    for w in NOT_WORKING {
        let n = normalise(w.text);
        assert!(
            found.iter().any(|(_, _, a)| normalise(a) == n),
            "`{}` is no longer shown anywhere: remove it from NOT_WORKING",
            w.text
        );
    }
    // The guard sees what it must: the README's contracts and the guides' (docs/) among them.
    let readme = found.iter().filter(|(f, _, _)| f == "README.md").count();
    assert!(readme >= 2, "{readme} contracts found in README.md");
    let guides = found
        .iter()
        .filter(|(f, _, _)| f.starts_with("docs/"))
        .count();
    assert!(guides >= 5, "{guides} contracts found in docs/");
    for w in NOT_WORKING {
        println!("not a working contract: {}: {}", w.text, w.why);
    }
    println!(
        "{} contracts shown broken on purpose (// fires, fails, warns):",
        broken.len()
    );
    for (file, line, args) in &broken {
        println!("  {file}:{line}: {}", normalise(args));
    }
    assert!(
        broken.iter().all(|(f, _, _)| f == "docs/rules.md"),
        "only the rule catalogue shows broken contracts: {broken:?}"
    );
    let rules = found
        .iter()
        .filter(|(f, _, _)| f == "docs/rules.md")
        .count();
    assert!(
        rules >= 10 && broken.len() >= 10,
        "the rule catalogue's examples are read: {rules} passing, {} broken",
        broken.len()
    );
    println!("{} documented contracts found:", found.len());
    for (file, line, args) in &found {
        println!("  {file}:{line}: {}", normalise(args));
    }
}

/// The guard reads what it must: a contract in a fenced block is found (and, being new, is
/// not covered), one named in prose or in a `//` comment is not, and comments inside an
/// attribute do not count.
#[test]
fn the_guard_sees_a_contract_added_to_a_code_block() {
    let readme = "Prose names `#[side_effect(...)]` and #[side_effect(key = [a])] too.\n\n```rust\n// `#[side_effect(...)]` in a comment\n#[side_effect(key = [order_id], // the order\n              verify = find_order, max_retries = 1, settle_ms = 31_000)]\nasync fn place_order() {}\n\n// fires: no key\n#[side_effect(verify = find_order)]\nasync fn place_order() {}\n```\n";
    let code = code_of_markdown(readme);
    let found = contracts_in(&code);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(!shown_broken(&code, found[0].0));
    assert_eq!(found[1].0, 10);
    assert!(shown_broken(&code, found[1].0));
    assert_eq!(found[0].0, 5);
    let n = normalise(&found[0].1);
    assert_eq!(
        n,
        "key=[order_id],verify=find_order,max_retries=1,settle_ms=31_000"
    );
    assert!(!proven().iter().any(|p| normalise(p.text) == n));
    assert!(!NOT_WORKING.iter().any(|w| normalise(w.text) == n));
}

/// The value of `name = value` in normalised attribute arguments (`key` as its bracket).
fn field<'a>(normalised: &'a str, name: &str) -> Option<&'a str> {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in normalised.char_indices().chain([(normalised.len(), ',')]) {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                let part = &normalised[start..i];
                start = i + 1;
                if let Some((k, v)) = part.split_once('=')
                    && k == name
                {
                    return Some(v);
                }
            }
            _ => {}
        }
    }
    None
}

fn number(v: Option<&str>) -> Option<u64> {
    v.map(|v| v.replace('_', "").parse().expect("an integer"))
}

/// Each proof runs a tool whose compiled contract is the documented text: the same key
/// fields, postcondition, retry cap, timeout, settle window and `server_dedup`.
#[test]
fn twins_carry_the_documented_contracts() {
    for p in proven() {
        let n = normalise(p.text);
        let c = p.contract;
        let key = field(&n, "key").expect("a key");
        let fields: Vec<&str> = key
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .filter(|f| !f.is_empty())
            .collect();
        match c.key {
            KeySpec::Fields(compiled) => assert_eq!(compiled, fields.as_slice(), "{}", p.text),
            other => panic!("{}: compiled as {other:?}", p.text),
        }
        let verify = field(&n, "verify").expect("a postcondition");
        assert_eq!(c.no_postcondition, verify == "none", "{}", p.text);
        assert_eq!(
            c.verify.map(|v| v.rsplit("::").next().unwrap_or(v).trim()),
            (verify != "none").then(|| verify.rsplit("::").next().unwrap_or(verify)),
            "{}",
            p.text
        );
        assert_eq!(
            c.max_retries.map(u64::from),
            number(field(&n, "max_retries")),
            "{}",
            p.text
        );
        assert_eq!(c.timeout_ms, number(field(&n, "timeout_ms")), "{}", p.text);
        assert_eq!(c.settle_ms, number(field(&n, "settle_ms")), "{}", p.text);
        if let Some(name) = field(&n, "name") {
            assert_eq!(format!("\"{}\"", c.name), name, "{}", p.text);
        }
        assert_eq!(
            c.server_dedup,
            field(&n, "server_dedup") == Some("true"),
            "{}",
            p.text
        );
    }
}

// ------------------------------------------------------------------ the proofs

/// Every documented working contract, proven: zero I1/I4 violations, every class bit (or not
/// applicable under the contract's own claim, with the reason), replay identical, the
/// enumeration clean.
#[test]
fn every_documented_contract_is_proven() {
    let all = proven();
    let mut lines = Vec::new();
    for p in &all {
        let started = Instant::now();
        let report = (p.prove)();
        let took = started.elapsed();
        println!("{report}");
        for c in &report.counterexamples {
            println!("{}", c.timeline());
        }
        assert!(
            report.reasons().is_empty(),
            "`{}` ({}) is documented but not proven:\n{report}",
            p.text,
            p.proven_on
        );
        report.assert_proven();
        for (class, s) in &report.classes {
            assert_eq!(s.by_invariant[0], 0, "I1 {class}\n{report}");
            assert_eq!(s.by_invariant[2], 0, "I4 {class}\n{report}");
        }
        let na: Vec<String> = report
            .not_applicable
            .iter()
            .map(|(c, _)| c.to_string())
            .collect();
        lines.push(format!(
            "{:>6} episodes + {:>6} schedules in {:>5} ms  {}  [{}]  n/a: {}",
            report.episodes(),
            report.exhaustive.0,
            took.as_millis(),
            p.text,
            p.proven_on,
            if na.is_empty() {
                "-".into()
            } else {
                na.join(", ")
            },
        ));
    }
    assert_eq!(all.len(), 20);
    println!("documented contracts proven:");
    for l in lines {
        println!("  {l}");
    }
}

/// The README's `suggest` proposal before a settle window is chosen: the harness finds the
/// duplicate that `IDEM009` warns about (a request still in flight when the retry goes out).
#[test]
fn a_proposal_without_settle_window_is_not_proven() {
    let report = Proof {
        contract: proposal::open_ticket::CONTRACT,
        world: Records::new,
        intent: proposal::intent,
        call: proposal::open_ticket::call,
        effects: proposal::count,
    }
    .check(&Config {
        classes: vec![FaultClass::LateCommit],
        exhaustive: 0,
        ..config()
    });
    println!("{report}");
    assert!(report.violating(FaultClass::LateCommit) > 0, "{report}");
    assert!(
        report.stats(FaultClass::LateCommit).unwrap().by_invariant[0] > 0,
        "I1: a duplicate\n{report}"
    );
    assert!(!report.reasons().is_empty());
}

/// A finding of this proof, kept as a regression test: a tool that never retries
/// (`max_retries = 0`) and states no settle window is not safe either. A call that finds the
/// operation's record UNKNOWN (its answer was lost, the postcondition said "not done" while
/// the effect sat in a lagging replica), or DECLARED by a process that crashed after its
/// request took effect, asks the postcondition, gets "not done", takes the record over and
/// executes again: a second real effect (I1). The examples' identity tests declared such
/// contracts; they now state `settle_ms = 30_000`, which this file proves. (`IDEM009` fires
/// only for tools that may retry; a redelivered call is a retry the contract does not cap.)
#[test]
fn finding_a_tool_that_never_retries_without_settle_window_duplicates_on_redelivery() {
    let report = no_settle::report();
    println!("{report}");
    for class in [FaultClass::Crash, FaultClass::StaleRead] {
        let s = report.stats(class).expect("run");
        assert!(s.by_invariant[0] > 0, "I1 under {class}\n{report}");
    }
    assert!(!report.reasons().is_empty());
    assert!(
        escalation::report().reasons().is_empty(),
        "with settle_ms = 30_000 the same tool is proven"
    );
}
