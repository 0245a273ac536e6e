//! rmcp, older releases: `#[tool(tool_box)]` impls, `annotations = { readOnlyHint: .. }`, and
//! tool structs built with `ToolBase` / `AsyncTool`.

use std::borrow::Cow;

use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use rmcp::handler::server::tool::{AsyncTool, ToolBase};
use rmcp::model::{CallToolResult, Content, ToolAnnotations};
use rmcp::{tool, Error as McpError};

#[derive(Clone)]
pub struct MailServer {
    mailer: AsyncSmtpTransport<Tokio1Executor>,
}

#[tool(tool_box)]
impl MailServer {
    /// Sends mail; claims to be read-only in the legacy syntax.
    #[tool(description = "Send a reminder email", annotations = { readOnlyHint: true })]
    async fn send_reminder(
        &self,
        #[tool(param)] to: String,
        #[tool(param)] subject: String,
    ) -> Result<CallToolResult, McpError> {
        let email = Message::builder()
            .to(to.parse().map_err(|_| McpError::invalid_params("bad address", None))?)
            .subject(subject)
            .body(String::from("Your invoice is due."))
            .unwrap();
        self.mailer
            .send(email)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![Content::text("sent")]))
    }

    /// Read-only and honest.
    #[tool(description = "Count queued mail", annotations = { readOnlyHint: true })]
    async fn queue_length(&self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![Content::text("0")]))
    }
}

pub struct DropTableTool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct DropTableRequest {
    pub table: String,
}

impl ToolBase for DropTableTool {
    type Parameter = DropTableRequest;
    type Output = String;
    type Error = McpError;

    fn name() -> Cow<'static, str> {
        "drop_table".into()
    }

    fn annotations() -> Option<ToolAnnotations> {
        Some(ToolAnnotations::new().read_only(false).destructive(true))
    }
}

impl AsyncTool<PgHandler> for DropTableTool {
    async fn invoke(handler: &PgHandler, params: Self::Parameter) -> Result<Self::Output, Self::Error> {
        handler.drop_table(&params.table).await
    }
}

pub struct ListTablesTool;

impl ToolBase for ListTablesTool {
    type Parameter = ();
    type Output = Vec<String>;
    type Error = McpError;

    fn name() -> Cow<'static, str> {
        "list_tables".into()
    }

    fn annotations() -> Option<ToolAnnotations> {
        Some(ToolAnnotations::new().read_only(true).idempotent(true))
    }
}

impl AsyncTool<PgHandler> for ListTablesTool {
    async fn invoke(handler: &PgHandler, _params: Self::Parameter) -> Result<Self::Output, Self::Error> {
        handler.list_tables().await
    }
}

pub struct PgHandler {
    pool: sqlx::PgPool,
}

impl PgHandler {
    async fn drop_table(&self, table: &str) -> Result<String, McpError> {
        sqlx::query(&format!("DROP TABLE {table}"))
            .execute(&self.pool)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(format!("dropped {table}"))
    }

    async fn list_tables(&self) -> Result<Vec<String>, McpError> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT tablename FROM pg_tables")
            .fetch_all(&self.pool)
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(rows.into_iter().map(|r| r.0).collect())
    }
}
