//! A rig `Tool` guarded in place: `#[side_effect]` sits on `Tool::call` itself. The contract and
//! the raw body stay inside `call`, the tool is keyed under its `NAME`, rig's `&mut ToolContext`
//! is lent to one attempt at a time, and the macro adds `Tool::map_error`, so a refusal reaches
//! the model as advice it can act on instead of rig's redacted "the tool failed".

use idemcheck::{Classify, Context, ContextProvider, ErrorClass, Escalation, side_effect};
use rig_core::tool::{Tool, ToolContext};
use serde::{Deserialize, Serialize};

mod billing;
pub use billing::Billing;

/// What the model sends: the order names the operation (one invoice per order).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvoiceArgs {
    /// The order being invoiced.
    pub order_id: String,
    /// The amount, in cents.
    pub amount_cents: u64,
}

/// An invoice the billing system issued.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Invoice {
    /// Its number.
    pub number: u32,
    /// The order it bills.
    pub order_id: String,
}

/// Why an invoice was not sent.
#[derive(Debug, thiserror::Error)]
pub enum InvoiceError {
    /// The billing system did not answer: the invoice may exist.
    #[error("billing timed out")]
    Timeout,
    /// The guard could not complete the call (divergent arguments, Unknown, ...).
    #[error(transparent)]
    Escalated(#[from] Escalation),
}

impl Classify for InvoiceError {
    fn class(&self) -> ErrorClass {
        ErrorClass::Ambiguous
    }
}

/// The rig tool.
pub struct SendInvoice {
    /// The billing system.
    pub billing: Billing,
    /// Where the guard keeps its ledger and run scope.
    pub ctx: Context,
}

impl ContextProvider for SendInvoice {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl SendInvoice {
    /// The postcondition: is there an invoice for this order? It takes the tool's parameters
    /// by reference (`&mut ToolContext` as `&ToolContext`) and returns its success type.
    async fn find_invoice(
        &self,
        _context: &ToolContext,
        args: &InvoiceArgs,
    ) -> Result<Option<Invoice>, InvoiceError> {
        Ok(self.billing.find(&args.order_id))
    }
}

impl Tool for SendInvoice {
    const NAME: &'static str = "send_invoice";
    type Args = InvoiceArgs;
    type Output = Invoice;
    type Error = InvoiceError;

    fn description(&self) -> String {
        "Send the invoice of an order (once per order).".into()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({ "type": "object", "required": ["order_id", "amount_cents"] })
    }

    #[side_effect(key = [order_id], verify = find_invoice, max_retries = 1,
                  timeout_ms = 2_000, settle_ms = 2_000)]
    async fn call(
        &self,
        _context: &mut ToolContext,
        args: Self::Args,
    ) -> Result<Self::Output, Self::Error> {
        self.billing.issue(&args.order_id)
    }
}
