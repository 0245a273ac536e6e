//! rig's real `Tool` trait, guarded in place: retries, a lost answer and a divergent call.

use idemcheck::{Context, MemoryLedger, Scope};
use rig_core::tool::{Tool, ToolContext};
use rig_tools::{Billing, InvoiceArgs, InvoiceError, SendInvoice};

fn tool() -> SendInvoice {
    let ctx = Context::new(MemoryLedger::new(), Scope::run("run-1"));
    SendInvoice {
        billing: Billing::default(),
        ctx,
    }
}

fn args(order: &str, amount_cents: u64) -> InvoiceArgs {
    InvoiceArgs {
        order_id: order.into(),
        amount_cents,
    }
}

#[tokio::test(start_paused = true)]
async fn a_repeated_call_is_replayed_not_resent() {
    let tool = tool();
    let mut context = ToolContext::new();
    let first = Tool::call(&tool, &mut context, args("o-1", 4900))
        .await
        .unwrap();
    let again = Tool::call(&tool, &mut context, args("o-1", 4900))
        .await
        .unwrap();
    assert_eq!(first, again);
    assert_eq!(tool.billing.invoices().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_lost_answer_is_verified_and_not_resent() {
    let tool = tool();
    tool.billing.lose_next_answer();
    let mut context = ToolContext::new();
    // The attempt times out after issuing; the postcondition finds the invoice.
    let invoice = Tool::call(&tool, &mut context, args("o-2", 100))
        .await
        .unwrap();
    assert_eq!(invoice.order_id, "o-2");
    assert_eq!(tool.billing.invoices().len(), 1, "verified, not sent again");
}

#[tokio::test(start_paused = true)]
async fn a_divergent_call_is_refused() {
    let tool = tool();
    let mut context = ToolContext::new();
    Tool::call(&tool, &mut context, args("o-3", 100))
        .await
        .unwrap();
    let refused = Tool::call(&tool, &mut context, args("o-3", 999)).await;
    match refused {
        Err(InvoiceError::Escalated(e)) => assert_eq!(e.reason, "divergent", "{e}"),
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(tool.billing.invoices().len(), 1);
}

/// The guarded call's future is `Send`, as rig's trait requires of `call`.
#[test]
fn the_guarded_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let tool = tool();
    let mut context = ToolContext::new();
    let future = Tool::call(&tool, &mut context, args("o-4", 1));
    assert_send(&future);
}
