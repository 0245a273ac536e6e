//! rig-core 0.44 tools around a guarded function: `Tool::call` delegating to the guarded
//! entry point (guarded), a `PortableTool` posting over HTTP (found without configuration),
//! and a `PortableTool` calling the raw, unguarded body (told to call `send_invoice::call`).

use idemcheck::{side_effect, Context};
use rig_core::tool::{PortableTool, Tool, ToolContext};
use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
#[error("billing error")]
pub struct BillingError;

#[derive(Clone, Deserialize, Serialize)]
pub struct InvoiceArgs {
    pub order_id: String,
    pub amount_cents: u64,
}

pub struct Billing {
    client: reqwest::Client,
}

/// Send the invoice of an order, once.
#[side_effect(key = [order_id], verify = find_invoice, max_retries = 1, settle_ms = 30_000)]
pub async fn send_invoice(billing: &Billing, args: InvoiceArgs) -> Result<String, BillingError> {
    let resp = billing
        .client
        .post("https://billing.example/invoices")
        .json(&args)
        .send()
        .await
        .map_err(|_| BillingError)?;
    Ok(resp.status().to_string())
}

pub async fn find_invoice(
    billing: &Billing,
    args: &InvoiceArgs,
) -> Result<Option<String>, BillingError> {
    let resp = billing
        .client
        .get(format!("https://billing.example/invoices/{}", args.order_id))
        .send()
        .await
        .map_err(|_| BillingError)?;
    Ok(Some(resp.status().to_string()))
}

pub struct SendInvoice {
    ctx: Context,
    billing: Billing,
}

impl Tool for SendInvoice {
    const NAME: &'static str = "send_invoice_tool";
    type Args = InvoiceArgs;
    type Output = String;
    type Error = idemcheck::Escalation;

    fn description(&self) -> String {
        "Send the invoice of an order".into()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({ "type": "object" })
    }

    async fn call(&self, _context: &mut ToolContext, args: Self::Args) -> Result<String, Self::Error> {
        let out = send_invoice::call(&self.ctx, &self.billing, args).await;
        out.completed().ok_or_else(|| unreachable!())
    }
}

#[derive(Deserialize, Serialize)]
pub struct CardArgs {
    pub card: String,
    pub amount_cents: u64,
}

pub struct ChargeCard {
    client: reqwest::Client,
}

impl PortableTool for ChargeCard {
    const NAME: &'static str = "charge_card";
    type Args = CardArgs;
    type Output = String;
    type Error = BillingError;

    fn description(&self) -> String {
        "Charge a card".into()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({ "type": "object" })
    }

    async fn call(&self, args: Self::Args) -> Result<String, BillingError> {
        let resp = self
            .client
            .post("https://pay.example/charges")
            .json(&args)
            .send()
            .await
            .map_err(|_| BillingError)?;
        Ok(resp.status().to_string())
    }
}

pub struct ResendInvoice {
    billing: Billing,
}

impl PortableTool for ResendInvoice {
    const NAME: &'static str = "resend_invoice";
    type Args = InvoiceArgs;
    type Output = String;
    type Error = BillingError;

    fn description(&self) -> String {
        "Send an invoice again".into()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({ "type": "object" })
    }

    async fn call(&self, args: Self::Args) -> Result<String, BillingError> {
        // Around the guard: the raw body, no ledger.
        send_invoice(&self.billing, args).await
    }
}
