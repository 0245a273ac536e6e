//! An rmcp billing server (current `#[tool_router]` syntax).

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, Content, ServerInfo},
    tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler,
};
use serde::Deserialize;

mod db;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ChargeArgs {
    pub customer: String,
    pub order_id: String,
    pub amount_cents: u64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RefundArgs {
    pub charge_id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CustomerArgs {
    pub customer: String,
}

#[derive(Clone)]
pub struct BillingServer {
    http: reqwest::Client,
    base_url: String,
    pool: sqlx::PgPool,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl BillingServer {
    pub fn new(http: reqwest::Client, base_url: String, pool: sqlx::PgPool) -> Self {
        Self { http, base_url, pool, tool_router: Self::tool_router() }
    }

    /// Unannotated writer: POSTs a charge.
    #[tool(description = "Charge a customer for an order")]
    async fn create_charge(
        &self,
        Parameters(args): Parameters<ChargeArgs>,
    ) -> Result<CallToolResult, McpError> {
        let resp = self
            .http
            .post(format!("{}/v1/charges", self.base_url))
            .json(&serde_json::json!({ "customer": args.customer, "amount": args.amount_cents }))
            .send()
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![Content::text(resp.status().to_string())]))
    }

    /// Read: a GET, annotated read-only (correctly).
    #[tool(description = "Look up a charge", annotations(read_only_hint = true))]
    async fn get_charge(
        &self,
        Parameters(args): Parameters<RefundArgs>,
    ) -> Result<CallToolResult, McpError> {
        let body = self
            .http
            .get(format!("{}/v1/charges/{}", self.base_url, args.charge_id))
            .send()
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .text()
            .await
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![Content::text(body)]))
    }

    /// Claims to be read-only, but inserts a refund row through a helper module.
    #[tool(
        name = "refund_charge",
        description = "Refund a charge",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn refund(&self, Parameters(args): Parameters<RefundArgs>) -> Result<CallToolResult, McpError> {
        db::record_refund(&self.pool, &args.charge_id).await.map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![Content::text("refunded")]))
    }

    /// Declared destructive and idempotent, with nothing that makes it idempotent.
    #[tool(description = "Delete a customer", annotations(destructive_hint = true, idempotent_hint = true))]
    async fn delete_customer(&self, Parameters(args): Parameters<CustomerArgs>) -> Result<CallToolResult, McpError> {
        self.remove_customer(&args.customer).await?;
        Ok(CallToolResult::success(vec![]))
    }

    /// The write hides in a helper method.
    #[tool(description = "Send an invoice to a customer")]
    async fn send_invoice(&self, Parameters(args): Parameters<CustomerArgs>) -> Result<CallToolResult, McpError> {
        let n = self.deliver_invoice(&args.customer).await?;
        Ok(CallToolResult::success(vec![Content::text(n.to_string())]))
    }

    /// Read: lists invoices with a SELECT.
    #[tool(description = "List invoices", annotations(read_only_hint = true))]
    async fn list_invoices(&self, Parameters(args): Parameters<CustomerArgs>) -> Result<CallToolResult, McpError> {
        let rows = sqlx::query("SELECT id, total FROM invoices WHERE customer = $1")
            .bind(&args.customer)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![Content::text(rows.len().to_string())]))
    }

    async fn remove_customer(&self, customer: &str) -> Result<(), McpError> {
        let _ = (self, customer);
        Ok(())
    }

    async fn deliver_invoice(&self, customer: &str) -> Result<u64, McpError> {
        self.post_json("/v1/invoices/send", customer).await
    }

    async fn post_json(&self, path: &str, customer: &str) -> Result<u64, McpError> {
        let r = self
            .http
            .post(format!("{}{}", self.base_url, path))
            .json(&customer)
            .send()
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(r.content_length().unwrap_or(0))
    }
}

#[tool_handler]
impl ServerHandler for BillingServer {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::default()
    }
}
