//! Methods guarded in place, proven through what they return ([`idemcheck::sim::in_place`]):
//! the README's rmcp mail server (`examples/agent-tools/tests/readme_prove_rmcp.rs`) is
//! proven, also when escalations reach the client as JSON-RPC errors; the same server with a
//! broken contract — a postcondition that always says "not done", a key that includes a field
//! the agent rewords — fails with a shrunk counterexample; and a method of a plain impl
//! returning `Result<T, E>`, its error wrapping the guard's `Escalation` as rig tools do, is
//! proven and its broken twin caught the same way.

use std::sync::Arc;

use idemcheck::sim::{Config, FaultClass, Invariant, Proof, Report, in_place};
use idemcheck::{
    Classify, Context, ContextProvider, ErrorClass, Escalation, Escalations, side_effect,
};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

use crate::readme_prove::{MailServer, Mailer, Receipt, SimMail, receipt};

fn world(net: &idemcheck::sim::Net) -> Arc<SimMail> {
    Arc::new(SimMail(net.clone()))
}

fn sent(mail: &Arc<SimMail>, r: &Receipt) -> usize {
    mail.sent(r)
}

fn result(id: u64) -> CallToolResult {
    CallToolResult::structured(serde_json::json!({ "message": id }))
}

/// The README's mail server with two broken contracts.
#[derive(Clone)]
struct BrokenMail {
    mailer: Arc<SimMail>,
    ctx: Context,
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

impl ContextProvider for BrokenMail {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

#[tool_router]
impl BrokenMail {
    fn new(mailer: Arc<SimMail>, ctx: Context) -> Self {
        let tool_router = Self::tool_router();
        BrokenMail {
            mailer,
            ctx,
            tool_router,
        }
    }

    /// Broken: its postcondition always says "not done", so a lost answer is sent again.
    #[side_effect(key = [reference, to], verify = never_sent, max_retries = 1, timeout_ms = 10_000, settle_ms = 10_000)]
    #[tool(description = "E-mail an order's receipt.")]
    async fn send_receipt_unverified(
        &self,
        Parameters(mail): Parameters<Receipt>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(result(self.mailer.send(&mail).await?))
    }

    async fn never_sent(
        &self,
        _params: &Parameters<Receipt>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        Ok(None)
    }

    /// Broken: its key includes the body, which the agent rewords when it calls again, so
    /// one receipt becomes two operations.
    #[side_effect(key = [reference, to, body], verify = find_receipt, max_retries = 1, timeout_ms = 10_000, settle_ms = 10_000)]
    #[tool(description = "E-mail an order's receipt.")]
    async fn send_receipt_keyed_on_body(
        &self,
        Parameters(mail): Parameters<Receipt>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(result(self.mailer.send(&mail).await?))
    }

    async fn find_receipt(
        &self,
        params: &Parameters<Receipt>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        Ok(self.mailer.find(&params.0).await?.map(result))
    }
}

/// One class, shrunk, nothing saved: a broken tool's run.
fn only(class: FaultClass) -> Config {
    Config {
        classes: vec![class],
        exhaustive: 0,
        save_to: None,
        ..Config::default()
    }
}

/// The run found `invariant` broken under `class`, with a shrunk counterexample.
fn assert_caught(report: &Report, class: FaultClass, invariant: Invariant) {
    println!("{report}");
    let stats = report.stats(class).expect("the class ran");
    let column = Invariant::PER_EPISODE
        .iter()
        .position(|i| *i == invariant)
        .expect("a per-episode invariant");
    assert!(
        stats.by_invariant[column] > 0,
        "{} under {class}:\n{report}",
        invariant.title()
    );
    let c = report
        .counterexamples
        .first()
        .expect("a shrunk counterexample");
    println!("{}", c.timeline());
    assert!(
        c.violations.iter().any(|v| v.invariant == invariant),
        "{c:?}"
    );
    assert!(!report.reasons().is_empty(), "not a proof:\n{report}");
}

/// The README's server, its refusals and Unknowns sent as JSON-RPC errors (the opt-out): the
/// harness reads the guard's details from `ErrorData`'s `data` and the proof holds.
#[test]
fn the_readme_server_is_proven_with_escalations_as_errors() {
    let report = Proof {
        contract: MailServer::<SimMail>::SEND_RECEIPT_CONTRACT,
        world,
        intent: receipt,
        call: in_place(
            |ctx: Context, mail: &Arc<SimMail>| {
                MailServer::new(mail.clone(), ctx.with_escalations(Escalations::Errors))
            },
            async |server: &MailServer<SimMail>, mail| server.send_receipt(Parameters(mail)).await,
        ),
        effects: sent,
    }
    .check(&Config {
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{report}");
    assert!(report.reasons().is_empty(), "{report}");
    let unknown: u64 = report.classes.iter().map(|(_, s)| s.answers[2]).sum();
    assert!(
        unknown > 0,
        "some answers are Unknown, read from errors: {report}"
    );
}

/// A postcondition that always says "not done": the answer of the first request is lost,
/// the guard asks, is told "not done", and sends the receipt again.
#[test]
fn an_rmcp_method_whose_postcondition_always_says_not_done_is_caught() {
    let report = Proof {
        contract: BrokenMail::SEND_RECEIPT_UNVERIFIED_CONTRACT,
        world,
        intent: receipt,
        call: in_place(
            |ctx, mail: &Arc<SimMail>| BrokenMail::new(mail.clone(), ctx),
            async |server: &BrokenMail, mail| {
                server.send_receipt_unverified(Parameters(mail)).await
            },
        ),
        effects: sent,
    }
    .check(&only(FaultClass::LostAck));
    assert_caught(&report, FaultClass::LostAck, Invariant::I1AtMostOnce);
}

/// A key with a field the agent rewords: the changed call is a new operation, a second
/// receipt.
#[test]
fn an_rmcp_method_keyed_on_a_reworded_field_is_caught() {
    let report = Proof {
        contract: BrokenMail::SEND_RECEIPT_KEYED_ON_BODY_CONTRACT,
        world,
        intent: receipt,
        call: in_place(
            |ctx, mail: &Arc<SimMail>| BrokenMail::new(mail.clone(), ctx),
            async |server: &BrokenMail, mail| {
                server.send_receipt_keyed_on_body(Parameters(mail)).await
            },
        ),
        effects: sent,
    }
    .check(&only(FaultClass::DivergentPayload));
    assert_caught(
        &report,
        FaultClass::DivergentPayload,
        Invariant::I1AtMostOnce,
    );
}

// ------------------------------------------------------------------ Result<T, E>, as rig's

/// A tool error that wraps the guard's escalation transparently, as the rig example's.
#[derive(Debug, thiserror::Error)]
enum SendError {
    #[error("the provider did not answer")]
    Provider,
    #[error(transparent)]
    Escalated(#[from] Escalation),
}

impl Classify for SendError {
    fn class(&self) -> ErrorClass {
        ErrorClass::Ambiguous
    }
}

/// A tool that is not an rmcp server: a plain method guarded in place.
struct Sender {
    mailer: Arc<SimMail>,
    ctx: Context,
}

impl ContextProvider for Sender {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl Sender {
    #[side_effect(key = [reference, to], verify = find, max_retries = 1, timeout_ms = 10_000, settle_ms = 10_000)]
    async fn send(&self, mail: Receipt) -> Result<u64, SendError> {
        self.mailer
            .send(&mail)
            .await
            .map_err(|_| SendError::Provider)
    }

    async fn find(&self, mail: &Receipt) -> Result<Option<u64>, SendError> {
        self.mailer
            .find(mail)
            .await
            .map_err(|_| SendError::Provider)
    }

    /// Broken: "not done" whenever the lookup fails (a failed read taken as an answer).
    #[side_effect(key = [reference, to], verify = find_or_not_done, max_retries = 1, timeout_ms = 10_000, settle_ms = 10_000)]
    async fn send_trusting_failed_reads(&self, mail: Receipt) -> Result<u64, SendError> {
        self.mailer
            .send(&mail)
            .await
            .map_err(|_| SendError::Provider)
    }

    async fn find_or_not_done(&self, mail: &Receipt) -> Result<Option<u64>, SendError> {
        Ok(self.mailer.find(mail).await.unwrap_or(None))
    }
}

fn sender(ctx: Context, mail: &Arc<SimMail>) -> Sender {
    Sender {
        mailer: mail.clone(),
        ctx,
    }
}

/// `Result<u64, SendError>`: Ok is completed, the guard's refusals and Unknowns are read from
/// the escalation's text its transparent wrapper shows; proven.
#[test]
fn a_plain_method_returning_result_is_proven() {
    let report = Proof {
        contract: Sender::SEND_CONTRACT,
        world,
        intent: receipt,
        call: in_place(sender, async |s: &Sender, mail| s.send(mail).await),
        effects: sent,
    }
    .check(&Config {
        save_to: None,
        ..Config::default()
    });
    println!("{report}");
    assert!(report.reasons().is_empty(), "{report}");
    let unknown: u64 = report.classes.iter().map(|(_, s)| s.answers[2]).sum();
    assert!(unknown > 0, "some answers are Unknown: {report}");
}

/// Its broken twin: a failed lookup taken for "not done" resends under `read_fault`.
#[test]
fn a_plain_method_trusting_failed_reads_is_caught() {
    let report = Proof {
        contract: Sender::SEND_TRUSTING_FAILED_READS_CONTRACT,
        world,
        intent: receipt,
        call: in_place(sender, async |s: &Sender, mail| {
            s.send_trusting_failed_reads(mail).await
        }),
        effects: sent,
    }
    .check(&only(FaultClass::ReadFault));
    assert_caught(&report, FaultClass::ReadFault, Invariant::I1AtMostOnce);
}

// ------------------------------------------------------------------ the example's own server

/// The example crate's rmcp server (`examples/agent-tools/src/mcp.rs`): its `create_charge`
/// method itself, guarded in place with `server_dedup` and taking the request's `_meta`, on
/// the simulated billing API; proven (wire duplicates included). The acceptance run only:
/// every episode builds the five-tool server's router (its schemas), which makes this proof
/// several times slower than the free function's, whose run (`billing_create_charge_is_proven`)
/// also enumerates every schedule of up to four faults on the same body.
#[test]
fn the_example_servers_create_charge_is_proven_in_place() {
    use agent_tools::billing::ChargeArgs;
    use agent_tools::mcp::AgentToolsServer;
    use rmcp::model::RequestMetaObject;

    type Server = AgentToolsServer<crate::SimApis, crate::SimApis, crate::SimApis>;
    let report = Proof {
        contract: Server::CREATE_CHARGE_CONTRACT,
        world: |net: &idemcheck::sim::Net| Arc::new(crate::SimApis::new(net)),
        intent: |n, v| ChargeArgs {
            customer: "acme".into(),
            order_id: format!("o-{n}"),
            amount_cents: if v == 0 { 4900 } else { 9900 },
            currency: "usd".into(),
        },
        call: in_place(
            |ctx, apis: &Arc<crate::SimApis>| {
                AgentToolsServer::new(apis.clone(), apis.clone(), apis.clone(), ctx)
            },
            async |server: &Server, args| {
                server
                    .create_charge(Parameters(args), RequestMetaObject::default())
                    .await
            },
        ),
        effects: |apis: &Arc<crate::SimApis>, a: &ChargeArgs| apis.net.count(&a.order_id, a),
    }
    .check(&Config {
        save_to: None,
        exhaustive: 0,
        ..Config::default()
    });
    println!("{report}");
    assert!(report.wire_redelivery, "server_dedup: wire duplicates too");
    assert!(report.reasons().is_empty(), "{report}");
}
