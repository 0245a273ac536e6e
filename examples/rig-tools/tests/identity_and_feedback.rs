//! A guarded rig tool is keyed under its `NAME`, and the guard's refusals reach the model
//! through rig's own dispatch (`ErasedTool::execute`, what rig's agents call) as advice.

use idemcheck::{
    Classify, Context, ContextProvider, ErrorClass, Escalation, MemoryLedger, Scope, side_effect,
};
use rig_core::tool::{ErasedTool, Tool, ToolContext};
use rig_tools::{Billing, InvoiceArgs, SendInvoice};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// A help desk's ticket table: every change is one row.
#[derive(Default)]
struct Desk {
    changes: Mutex<Vec<(String, String)>>,
}

impl Desk {
    fn change(&self, ticket: &str, what: &str) -> Result<String, DeskError> {
        let mut changes = self.changes.lock().unwrap();
        changes.push((ticket.to_string(), what.to_string()));
        Ok(format!("{what} {ticket}"))
    }

    fn find(&self, ticket: &str, what: &str) -> Option<String> {
        let changes = self.changes.lock().unwrap();
        changes
            .iter()
            .any(|(t, w)| t == ticket && w == what)
            .then(|| format!("{what} {ticket}"))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct TicketArgs {
    ticket_id: String,
    note: String,
}

#[derive(Debug, thiserror::Error)]
enum DeskError {
    #[error(transparent)]
    Escalated(#[from] Escalation),
}

impl Classify for DeskError {
    fn class(&self) -> ErrorClass {
        ErrorClass::Ambiguous
    }
}

struct Escalate {
    desk: Arc<Desk>,
    ctx: Context,
}

struct Deprioritise {
    desk: Arc<Desk>,
    ctx: Context,
}

impl ContextProvider for Escalate {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl ContextProvider for Deprioritise {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl Escalate {
    async fn find(&self, _c: &ToolContext, args: &TicketArgs) -> Result<Option<String>, DeskError> {
        Ok(self.desk.find(&args.ticket_id, "escalated"))
    }
}

impl Deprioritise {
    async fn find(&self, _c: &ToolContext, args: &TicketArgs) -> Result<Option<String>, DeskError> {
        Ok(self.desk.find(&args.ticket_id, "deprioritised"))
    }
}

impl Tool for Escalate {
    const NAME: &'static str = "escalate_ticket";
    type Args = TicketArgs;
    type Output = String;
    type Error = DeskError;

    fn description(&self) -> String {
        "Escalate a ticket.".into()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({ "type": "object" })
    }

    #[side_effect(key = [ticket_id], verify = find, max_retries = 0, settle_ms = 30_000)]
    async fn call(&self, _c: &mut ToolContext, args: Self::Args) -> Result<String, DeskError> {
        self.desk.change(&args.ticket_id, "escalated")
    }
}

impl Tool for Deprioritise {
    const NAME: &'static str = "deprioritise_ticket";
    type Args = TicketArgs;
    type Output = String;
    type Error = DeskError;

    fn description(&self) -> String {
        "Lower a ticket's priority.".into()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({ "type": "object" })
    }

    #[side_effect(key = [ticket_id], verify = find, max_retries = 0, settle_ms = 30_000)]
    async fn call(&self, _c: &mut ToolContext, args: Self::Args) -> Result<String, DeskError> {
        self.desk.change(&args.ticket_id, "deprioritised")
    }
}

fn args(ticket: &str) -> TicketArgs {
    TicketArgs {
        ticket_id: ticket.into(),
        note: "customer waiting".into(),
    }
}

/// Two tools keyed on the same field, sharing one ledger and run: both run, because each is
/// keyed under its own `NAME` (both were keyed as `call` before, and the second returned the
/// first one's stored result without running).
#[tokio::test(start_paused = true)]
async fn two_tools_keyed_on_the_same_field_both_run() {
    let desk = Arc::new(Desk::default());
    let ctx = Context::new(MemoryLedger::new(), Scope::run("run-1"));
    let escalate = Escalate {
        desk: desk.clone(),
        ctx: ctx.clone(),
    };
    let deprioritise = Deprioritise {
        desk: desk.clone(),
        ctx: ctx.clone(),
    };
    let mut c = ToolContext::new();
    let first = Tool::call(&escalate, &mut c, args("T-1")).await.unwrap();
    let second = Tool::call(&deprioritise, &mut c, args("T-1"))
        .await
        .unwrap();
    assert_eq!(first, "escalated T-1");
    assert_eq!(second, "deprioritised T-1");
    assert_eq!(desk.changes.lock().unwrap().len(), 2, "both ran");
    // And each is still replayed, not re-run, under its own name.
    Tool::call(&escalate, &mut c, args("T-1")).await.unwrap();
    assert_eq!(desk.changes.lock().unwrap().len(), 2);
}

/// The divergent call goes through rig's own dispatch: the model reads the guard's advice,
/// in the tool's words, and is told it cannot retry with the same arguments.
#[tokio::test(start_paused = true)]
async fn a_refusal_reaches_the_model_through_rigs_dispatch() {
    let ctx = Context::new(MemoryLedger::new(), Scope::run("run-1"));
    let tool = Escalate {
        desk: Arc::new(Desk::default()),
        ctx,
    };
    let mut c = ToolContext::new();
    let call = |note: &str| serde_json::json!({ "ticket_id": "T-9", "note": note }).to_string();
    let ok = ErasedTool::execute(&tool, call("first"), &mut c).await;
    assert!(ok.is_success(), "{:?}", ok.output());
    let refused = ErasedTool::execute(&tool, call("second"), &mut c).await;
    assert!(refused.is_error());
    let text = refused.output().as_text().expect("text for the model");
    assert!(
        text.starts_with("`escalate_ticket` refused: it was already called for the same `ticket_id` with other arguments"),
        "{text}"
    );
    assert!(text.contains("repeat its arguments exactly"), "{text}");
    assert!(
        !text.contains("use a new"),
        "the model cannot make up a ticket: {text}"
    );
    assert_eq!(refused.error().and_then(|e| e.retryable()), Some(false));
    // The operator still sees the escalation itself.
    let message = refused.error().unwrap().message().to_string();
    assert!(
        message.contains("escalate_ticket: not_completed"),
        "{message}"
    );
}

/// The README's tool, through rig's dispatch: the refusal names `order_id` without telling
/// the model to make one up.
#[tokio::test(start_paused = true)]
async fn the_readme_tool_tells_the_model_why_it_was_refused() {
    let tool = SendInvoice {
        billing: Billing::default(),
        ctx: Context::new(MemoryLedger::new(), Scope::run("run-1")),
    };
    let mut c = ToolContext::new();
    let call = |amount: u64| {
        serde_json::to_string(&InvoiceArgs {
            order_id: "o-1".into(),
            amount_cents: amount,
        })
        .unwrap()
    };
    assert!(
        ErasedTool::execute(&tool, call(100), &mut c)
            .await
            .is_success()
    );
    let refused = ErasedTool::execute(&tool, call(999), &mut c).await;
    let text = refused.output().as_text().unwrap_or_default().to_string();
    assert!(text.contains("`send_invoice` refused"), "{text}");
    assert!(text.contains("`order_id`"), "{text}");
}
