//! The SMS client and the `call_tool` of `SendSmsTool`, in another file.

use super::SendSmsTool;
use rust_mcp_sdk::schema::{schema_utils::CallToolError, CallToolResult, TextContent};

pub struct SmsClient {
    http: reqwest::Client,
    base: String,
}

impl SmsClient {
    pub async fn send_text(&self, to: &str, body: &str) -> Result<String, reqwest::Error> {
        self.http
            .post(format!("{}/messages", self.base))
            .form(&[("To", to), ("Body", body)])
            .send()
            .await?
            .text()
            .await
    }

    pub async fn status(&self, id: &str) -> Result<String, reqwest::Error> {
        self.http.get(format!("{}/messages/{id}", self.base)).send().await?.text().await
    }
}

impl SendSmsTool {
    pub async fn call_tool(&self, client: &SmsClient) -> Result<CallToolResult, CallToolError> {
        let id = client.send_text(&self.to, &self.body).await.map_err(CallToolError::new)?;
        Ok(CallToolResult::text_content(vec![TextContent::from(id)]))
    }
}
