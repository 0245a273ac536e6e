//! rust-mcp-sdk tools: `#[mcp_tool(...)]` structs (hints at the top level) with a
//! `call_tool` method.

use rust_mcp_sdk::macros::{mcp_tool, JsonSchema};
use rust_mcp_sdk::schema::{schema_utils::CallToolError, CallToolResult, TextContent};
use serde::{Deserialize, Serialize};

mod sms;

#[mcp_tool(
    name = "send_sms",
    description = "Send an SMS to a phone number",
    destructive_hint = false,
    idempotent_hint = false,
    open_world_hint = true,
    read_only_hint = false
)]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SendSmsTool {
    /// Destination number.
    pub to: String,
    /// Message body.
    pub body: String,
}

#[mcp_tool(
    name = "sms_status",
    description = "Check the delivery status of an SMS",
    read_only_hint = true,
    idempotent_hint = true
)]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SmsStatusTool {
    pub message_id: String,
}

impl SmsStatusTool {
    pub async fn call_tool(&self, client: &sms::SmsClient) -> Result<CallToolResult, CallToolError> {
        let status = client.status(&self.message_id).await.map_err(CallToolError::new)?;
        Ok(CallToolResult::text_content(vec![TextContent::from(status)]))
    }
}

// idemcheck: allow(IDEM001, IDEM002, reason = "the provider deduplicates on the message hash")
#[mcp_tool(
    name = "send_otp",
    description = "Send a one-time password",
    read_only_hint = true
)]
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SendOtpTool {
    pub to: String,
}

impl SendOtpTool {
    pub async fn call_tool(&self, client: &sms::SmsClient) -> Result<CallToolResult, CallToolError> {
        let id = client.send_text(&self.to, "123456").await.map_err(CallToolError::new)?;
        Ok(CallToolResult::text_content(vec![TextContent::from(id)]))
    }
}
