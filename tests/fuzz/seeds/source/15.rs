//! A toolkit's own `#[tool]` macro (riglr-macros style): the macro generates the tool type
//! `<Name>Tool` from the function; a hand-written impl of another trait for that type is the
//! same tool, not a second one.

use toolkit_macros::tool;

/// Pay an invoice from the treasury account.
#[tool]
pub async fn pay_invoice(invoice_id: String, amount_cents: u64) -> Result<String, ToolError> {
    let client = ledger_client();
    client.transfer_funds(&invoice_id, amount_cents).await
}

/// The balance of the treasury account.
#[tool]
pub async fn treasury_balance() -> Result<u64, ToolError> {
    let client = ledger_client();
    client.get_balance("treasury").await
}

impl toolkit_core::Tool for PayInvoiceTool {
    fn name(&self) -> &'static str {
        "pay_invoice"
    }

    async fn call(&self, args: serde_json::Value) -> Result<JobResult, ToolError> {
        let id = args["invoice_id"].to_string();
        let result = pay_invoice(id, 100).await?;
        JobResult::success(&result)
    }
}

fn ledger_client() -> ledger_sdk::Client {
    ledger_sdk::Client::new("https://ledger.example")
}
