//! The example tools under the faults that make retries dangerous, called directly and over
//! a real MCP connection (rmcp client ↔ rmcp server, in process).

use std::sync::Arc;

use agent_tools::Fault;
use agent_tools::billing::{self, ChargeArgs, FakeBilling, RefundArgs};
use agent_tools::email::{self, FakeMail};
use agent_tools::mcp::AgentToolsServer;
use agent_tools::tickets::{self, FakeDesk, TicketArgs};
use idemcheck::ledger::{LedgerAdmin, RecordState};
use idemcheck::{Context, Failure, MemoryLedger, Outcome, Scope};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, MetaObject, RequestMetaObject};

fn charge_args(order: &str) -> ChargeArgs {
    ChargeArgs {
        customer: "acme".into(),
        order_id: order.into(),
        amount_cents: 4900,
        currency: "usd".into(),
    }
}

fn ctx(ledger: &MemoryLedger) -> Context {
    Context::new(ledger.clone(), Scope::run("task-42")).with_owner("agent-1")
}

#[tokio::test(start_paused = true)]
async fn create_charge_survives_a_lost_ack_with_one_charge() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let api = FakeBilling::new();
    api.inject(Fault::LostAck);
    let out = billing::create_charge::call(&ctx, &api, charge_args("o-1")).await;
    let charge = out.completed().expect("the postcondition finds the charge");
    assert_eq!(charge.id, "ch_1");
    // The agent retries the whole tool call: replayed from the ledger, not re-sent.
    let again = billing::create_charge::call(&ctx, &api, charge_args("o-1")).await;
    assert_eq!(again, Outcome::Completed(charge));
    assert_eq!(api.charges().len(), 1);
    assert_eq!(api.requests(), 1);
}

#[tokio::test(start_paused = true)]
async fn create_charge_retries_a_dropped_request_with_the_same_key() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let api = FakeBilling::new();
    api.inject(Fault::Dropped);
    let out = billing::create_charge::call(&ctx, &api, charge_args("o-1")).await;
    assert!(out.is_completed(), "{out:?}");
    assert_eq!(api.charges().len(), 1);
    assert_eq!(
        api.requests(),
        2,
        "one retry after the postcondition said 'not done'"
    );
}

#[tokio::test(start_paused = true)]
async fn the_raw_tool_without_the_guard_duplicates() {
    // What the guard prevents: the naive retry of the raw tool after a lost ack.
    let api = FakeBilling::new();
    api.inject(Fault::LostAck);
    assert!(
        billing::create_charge(&api, charge_args("o-1"))
            .await
            .is_err()
    );
    assert!(
        billing::create_charge(&api, charge_args("o-1"))
            .await
            .is_ok()
    );
    assert_eq!(api.charges().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn invalid_and_divergent_requests_never_charge() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let api = FakeBilling::new();
    let mut zero = charge_args("o-1");
    zero.amount_cents = 0;
    let out = billing::create_charge::call(&ctx, &api, zero).await;
    assert!(
        matches!(out, Outcome::NotCompleted(ref n) if matches!(n.reason, Failure::Tool(billing::BillingError::InvalidRequest(_)))),
        "{out:?}"
    );
    billing::create_charge::call(&ctx, &api, charge_args("o-1"))
        .await
        .completed()
        .unwrap();
    let mut changed = charge_args("o-1");
    changed.amount_cents = 9900;
    let out = billing::create_charge::call(&ctx, &api, changed).await;
    assert!(
        matches!(out, Outcome::NotCompleted(ref n) if matches!(n.reason, Failure::Divergent { .. })),
        "{out:?}"
    );
    assert_eq!(api.charges().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn refund_once() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let api = FakeBilling::new();
    let charge = billing::create_charge::call(&ctx, &api, charge_args("o-1"))
        .await
        .completed()
        .unwrap();
    api.inject(Fault::LostAck);
    let args = RefundArgs {
        charge_id: charge.id,
        amount_cents: 4900,
        reason: "duplicate order".into(),
    };
    let refund = billing::refund::call(&ctx, &api, args.clone())
        .await
        .completed()
        .unwrap();
    assert_eq!(
        billing::refund::call(&ctx, &api, args).await,
        Outcome::Completed(refund)
    );
    assert_eq!(api.refunds().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn send_welcome_waits_out_the_settle_window_then_trusts_the_sent_log() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let mail = FakeMail::new();
    mail.inject(Fault::LostAck);
    let start = tokio::time::Instant::now();
    let out =
        email::send_welcome::call(&ctx, &mail, "cus_1".into(), "ada@example.com".into()).await;
    assert!(out.is_completed(), "{out:?}");
    assert_eq!(start.elapsed().as_secs(), 30, "the settle window");
    assert_eq!(mail.sent().len(), 1);
    let rejected =
        email::send_welcome::call(&ctx, &mail, "cus_2".into(), "not-an-address".into()).await;
    assert!(matches!(rejected, Outcome::NotCompleted(_)));
}

#[tokio::test(start_paused = true)]
async fn open_ticket_once_per_reference() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let desk = FakeDesk::new();
    desk.inject(Fault::Dropped);
    desk.inject(Fault::LostAck);
    let args = TicketArgs {
        reference: "INC-7".into(),
        requester: "ada".into(),
        subject: "VPN down".into(),
        body: "since 9:00".into(),
    };
    let out = tickets::open_ticket::call(&ctx, &desk, args.clone()).await;
    assert!(out.is_completed(), "{out:?}");
    assert_eq!(desk.tickets().len(), 1);
    assert_eq!(tickets::open_ticket::call(&ctx, &desk, args).await, out);
}

// ------------------------------------------------------------------ over MCP

type Server = AgentToolsServer<FakeBilling, FakeMail, FakeDesk>;

async fn connect(server: Server) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("client connects")
}

/// A server over fresh fakes and a memory ledger (its context shaped by `shape`), and a
/// client connected to it.
async fn serve(
    shape: impl FnOnce(Context) -> Context,
) -> (
    Arc<FakeBilling>,
    MemoryLedger,
    rmcp::service::RunningService<rmcp::RoleClient, ()>,
) {
    let billing = Arc::new(FakeBilling::new());
    let ledger = MemoryLedger::new();
    let server = Server::new(
        billing.clone(),
        Arc::new(FakeMail::new()),
        Arc::new(FakeDesk::new()),
        shape(ctx(&ledger)),
    );
    (billing, ledger, connect(server).await)
}

fn call(name: &'static str, args: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(args.as_object().expect("an object").clone())
}

#[tokio::test]
async fn over_mcp_every_routed_call_goes_through_the_guard() {
    let (billing, ledger, client) = serve(|ctx| ctx).await;

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "create_charge",
            "lookup_charge",
            "open_ticket",
            "refund",
            "send_welcome"
        ]
    );
    let charge_tool = tools.iter().find(|t| t.name == "create_charge").unwrap();
    let hints = charge_tool.annotations.as_ref().unwrap();
    assert_eq!(hints.idempotent_hint, Some(true));
    assert_eq!(hints.read_only_hint, None);

    billing.inject(Fault::LostAck);
    let args = serde_json::json!({"customer": "acme", "order_id": "o-1", "amount_cents": 4900, "currency": "usd"});
    let first = client
        .call_tool(call("create_charge", args.clone()))
        .await
        .unwrap();
    let second = client.call_tool(call("create_charge", args)).await.unwrap();
    assert_eq!(first.is_error, Some(false));
    assert_eq!(first.structured_content, second.structured_content);
    assert_eq!(first.structured_content.as_ref().unwrap()["id"], "ch_1");
    assert_eq!(
        billing.charges().len(),
        1,
        "one charge despite the lost ack and the agent's retry"
    );
    assert_eq!(billing.requests(), 1);

    let records = ledger.snapshot();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].state, RecordState::Committed);
    assert_eq!(records[0].tool, "create_charge");

    // A divergent payload under the same key is refused, and the client is told why.
    let changed = serde_json::json!({"customer": "acme", "order_id": "o-1", "amount_cents": 9900, "currency": "usd"});
    let refused = client
        .call_tool(call("create_charge", changed))
        .await
        .unwrap();
    // Not a protocol error: a result with `isError: true` the model reads and can act on.
    assert_eq!(refused.is_error, Some(true));
    let text = refused.content[0].as_text().unwrap().text.clone();
    assert!(
        text.contains(
            "`create_charge` refused: it was already called for the same `customer` and `order_id` with other arguments"
        ),
        "{text}"
    );
    // The customer and the order name the thing charged: the model is not told to make up
    // new ones, only how to get the first call's result.
    assert!(text.contains("repeat its arguments exactly"), "{text}");
    assert!(!text.contains("use a new"), "{text}");
    // The details go in `_meta`, never in the structured content a declared output schema
    // describes.
    assert!(refused.structured_content.is_none());
    let data = &refused.meta.as_ref().unwrap().0["idemcheck"];
    assert_eq!(data["status"], "not_completed");
    assert_eq!(data["reason"], "divergent");
    assert_eq!(data["tool"], "create_charge");
    assert_eq!(billing.charges().len(), 1);
    assert!(ledger.pending().await.unwrap().is_empty());

    // The harness names the run in `_meta`: the same order in two runs is two operations,
    // and a retry within a run is one.
    let in_run = |run: &str| {
        let mut params = call(
            "create_charge",
            serde_json::json!({"customer": "acme", "order_id": "o-2", "amount_cents": 100, "currency": "usd"}),
        );
        let meta = serde_json::json!({ idemcheck::META_RUN: run });
        params.meta = Some(RequestMetaObject(MetaObject(
            meta.as_object().unwrap().clone(),
        )));
        params
    };
    client.call_tool(in_run("run-a")).await.unwrap();
    client.call_tool(in_run("run-a")).await.unwrap();
    client.call_tool(in_run("run-b")).await.unwrap();
    let o2: Vec<_> = billing
        .charges()
        .into_iter()
        .filter(|c| c.order_id == "o-2")
        .collect();
    assert_eq!(o2.len(), 2, "one charge per run");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_mcp_an_unknown_outcome_is_an_error_result_the_model_reads() {
    let (billing, ledger, client) = serve(|ctx| ctx).await;
    // Both allowed attempts are lost before they take effect: the postcondition says "not
    // done", but `create_charge` declares no settle window, so a late commit may still land.
    billing.inject(Fault::Dropped);
    billing.inject(Fault::Dropped);
    let args = serde_json::json!({"customer": "acme", "order_id": "o-9", "amount_cents": 100, "currency": "usd"});
    let unknown = client
        .call_tool(call("create_charge", args))
        .await
        .expect("a tool result, not a protocol error");
    assert_eq!(unknown.is_error, Some(true));
    let text = unknown.content[0].as_text().unwrap().text.clone();
    assert!(
        text.contains("`create_charge` may or may not have happened"),
        "{text}"
    );
    assert!(text.contains("escalated to a person"), "{text}");
    // The details go in `_meta`, never in the structured content a declared output schema
    // describes.
    assert!(unknown.structured_content.is_none());
    let data = &unknown.meta.as_ref().unwrap().0["idemcheck"];
    assert_eq!(data["status"], "unknown");
    assert_eq!(data["reason"], "unknown");
    assert_eq!(data["attempts"], 2);
    assert_eq!(billing.requests(), 2);
    assert_eq!(ledger.pending().await.unwrap().len(), 1, "escalated");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_mcp_the_opt_out_answers_escalations_as_protocol_errors() {
    let (billing, ledger, client) =
        serve(|ctx| ctx.with_escalations(idemcheck::Escalations::Errors)).await;
    let args = serde_json::json!({"customer": "acme", "order_id": "o-1", "amount_cents": 100, "currency": "usd"});
    let first = client.call_tool(call("create_charge", args)).await.unwrap();
    assert_eq!(first.is_error, Some(false));
    let changed = serde_json::json!({"customer": "acme", "order_id": "o-1", "amount_cents": 200, "currency": "usd"});
    let refused = client.call_tool(call("create_charge", changed)).await;
    // The example's error type turns an escalation into an error result of its own (its
    // `IntoContents`); the text is the escalation's.
    let refused = refused.expect("the example's ToolError is a tool result");
    assert_eq!(refused.is_error, Some(true));
    assert!(refused.structured_content.is_none());
    let text = refused.content[0].as_text().unwrap().text.clone();
    assert!(
        text.contains(
            "create_charge: not_completed: idempotency key reused with different parameters"
        ),
        "{text}"
    );
    assert_eq!(billing.charges().len(), 1);
    assert!(ledger.pending().await.unwrap().is_empty());
    client.cancel().await.unwrap();
}

// ------------------------------------------------------------------ one identity per tool

/// Two tools that act on the same ticket, each keyed on `ticket_id` only. Each is keyed under
/// its own identity (its rmcp tool name, or the function's name), so calling both on one
/// ticket, in one ledger and one run, runs both: a shared identity would have answered the
/// second with the first one's stored result (`IDEM013` in `cargo idemcheck`).
mod two_tools {
    use std::sync::Mutex;

    use idemcheck::{Context, ContextProvider, side_effect};
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::model::CallToolResult;
    use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

    #[derive(Clone, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    pub(crate) struct TicketArgs {
        pub(crate) ticket_id: String,
        pub(crate) note: String,
    }

    /// The help desk's table of changes.
    #[derive(Default)]
    pub(crate) struct Desk {
        pub(crate) changes: Mutex<Vec<String>>,
    }

    impl Desk {
        fn change(&self, what: &str, ticket: &str) -> String {
            let change = format!("{what} {ticket}");
            self.changes.lock().unwrap().push(change.clone());
            change
        }

        fn find(&self, what: &str, ticket: &str) -> Option<String> {
            let change = format!("{what} {ticket}");
            self.changes
                .lock()
                .unwrap()
                .contains(&change)
                .then_some(change)
        }
    }

    #[side_effect(key = [ticket_id], verify = find_escalation, max_retries = 0, settle_ms = 30_000)]
    pub(crate) async fn escalate_ticket(desk: &Desk, args: TicketArgs) -> Result<String, String> {
        Ok(desk.change("escalated", &args.ticket_id))
    }

    pub(crate) async fn find_escalation(
        desk: &Desk,
        args: &TicketArgs,
    ) -> Result<Option<String>, String> {
        Ok(desk.find("escalated", &args.ticket_id))
    }

    #[side_effect(key = [ticket_id], verify = find_deprioritisation, max_retries = 0, settle_ms = 30_000)]
    pub(crate) async fn deprioritise_ticket(
        desk: &Desk,
        args: TicketArgs,
    ) -> Result<String, String> {
        Ok(desk.change("deprioritised", &args.ticket_id))
    }

    pub(crate) async fn find_deprioritisation(
        desk: &Desk,
        args: &TicketArgs,
    ) -> Result<Option<String>, String> {
        Ok(desk.find("deprioritised", &args.ticket_id))
    }

    #[derive(Clone)]
    pub(crate) struct DeskServer {
        pub(crate) desk: std::sync::Arc<Desk>,
        pub(crate) ctx: Context,
        tool_router: ToolRouter<Self>,
    }

    impl ContextProvider for DeskServer {
        fn idemcheck_context(&self) -> Context {
            self.ctx.clone()
        }
    }

    fn text(s: String) -> CallToolResult {
        CallToolResult::success(vec![rmcp::model::ContentBlock::text(s)])
    }

    #[tool_router]
    impl DeskServer {
        pub(crate) fn new(desk: std::sync::Arc<Desk>, ctx: Context) -> Self {
            DeskServer {
                desk,
                ctx,
                tool_router: Self::tool_router(),
            }
        }

        #[side_effect(key = [ticket_id], verify = find_escalated, max_retries = 0, settle_ms = 30_000)]
        #[tool(description = "Escalate a ticket")]
        async fn escalate_ticket(
            &self,
            Parameters(args): Parameters<TicketArgs>,
        ) -> Result<CallToolResult, ErrorData> {
            Ok(text(self.desk.change("escalated", &args.ticket_id)))
        }

        async fn find_escalated(
            &self,
            params: &Parameters<TicketArgs>,
        ) -> Result<Option<CallToolResult>, ErrorData> {
            Ok(self.desk.find("escalated", &params.0.ticket_id).map(text))
        }

        #[side_effect(key = [ticket_id], verify = find_deprioritised, max_retries = 0, settle_ms = 30_000)]
        #[tool(description = "Lower a ticket's priority")]
        async fn deprioritise_ticket(
            &self,
            Parameters(args): Parameters<TicketArgs>,
        ) -> Result<CallToolResult, ErrorData> {
            Ok(text(self.desk.change("deprioritised", &args.ticket_id)))
        }

        async fn find_deprioritised(
            &self,
            params: &Parameters<TicketArgs>,
        ) -> Result<Option<CallToolResult>, ErrorData> {
            Ok(self
                .desk
                .find("deprioritised", &params.0.ticket_id)
                .map(text))
        }
    }

    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for DeskServer {}
}

#[tokio::test(start_paused = true)]
async fn two_free_function_tools_keyed_on_the_same_field_both_run() {
    let ledger = MemoryLedger::new();
    let ctx = ctx(&ledger);
    let desk = two_tools::Desk::default();
    let args = || two_tools::TicketArgs {
        ticket_id: "T-1".into(),
        note: "waiting".into(),
    };
    let a = two_tools::escalate_ticket::call(&ctx, &desk, args()).await;
    let b = two_tools::deprioritise_ticket::call(&ctx, &desk, args()).await;
    assert_eq!(a, Outcome::Completed("escalated T-1".to_string()));
    assert_eq!(b, Outcome::Completed("deprioritised T-1".to_string()));
    assert_eq!(desk.changes.lock().unwrap().len(), 2);
    let mut tools: Vec<String> = ledger.snapshot().into_iter().map(|r| r.tool).collect();
    tools.sort();
    assert_eq!(tools, ["deprioritise_ticket", "escalate_ticket"]);
}

#[tokio::test]
async fn two_rmcp_tools_keyed_on_the_same_field_both_run_over_mcp() {
    let ledger = MemoryLedger::new();
    let desk = Arc::new(two_tools::Desk::default());
    let server = two_tools::DeskServer::new(desk.clone(), ctx(&ledger));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("client connects");
    let args = serde_json::json!({"ticket_id": "T-1", "note": "waiting"});
    let a = client
        .call_tool(call("escalate_ticket", args.clone()))
        .await
        .unwrap();
    let b = client
        .call_tool(call("deprioritise_ticket", args))
        .await
        .unwrap();
    assert_eq!(a.is_error, Some(false));
    assert_eq!(b.is_error, Some(false));
    assert_eq!(
        *desk.changes.lock().unwrap(),
        ["escalated T-1", "deprioritised T-1"]
    );
    let mut tools: Vec<String> = ledger.snapshot().into_iter().map(|r| r.tool).collect();
    tools.sort();
    assert_eq!(tools, ["deprioritise_ticket", "escalate_ticket"]);
}
