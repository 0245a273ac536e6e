//! The tools served over MCP with rmcp. `#[side_effect]` sits on top of rmcp's `#[tool]`
//! inside a `#[tool_router]` impl: each method keeps the signature rmcp routes to, and every
//! call the router makes goes through the guard. The server provides the ledger, clock and
//! scope once, through `idemcheck::ContextProvider`.

use std::sync::Arc;

use idemcheck::{Context, ContextProvider, Escalation, side_effect};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, IntoContents, RequestMetaObject};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

use crate::billing::{self, BillingApi, BillingError, ChargeArgs, RefundArgs};
use crate::email::{MailApi, MailError};
use crate::tickets::{self, DeskError, HelpDesk, TicketArgs};

/// A tool failure as the MCP client sees it (an error result with a text explanation).
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// From the billing API.
    #[error(transparent)]
    Billing(#[from] BillingError),
    /// From the mail API.
    #[error(transparent)]
    Mail(#[from] MailError),
    /// From the help desk.
    #[error(transparent)]
    Desk(#[from] DeskError),
    /// The guard could not complete the operation: a person must look.
    #[error(transparent)]
    Escalated(#[from] Escalation),
}

impl idemcheck::Classify for ToolError {
    fn class(&self) -> idemcheck::ErrorClass {
        match self {
            ToolError::Billing(e) => e.class(),
            ToolError::Mail(e) => e.class(),
            ToolError::Desk(e) => e.class(),
            ToolError::Escalated(_) => idemcheck::ErrorClass::Ambiguous,
        }
    }
}

impl IntoContents for ToolError {
    fn into_contents(self) -> Vec<ContentBlock> {
        vec![ContentBlock::text(self.to_string())]
    }
}

fn structured<T: serde::Serialize>(value: &T) -> CallToolResult {
    CallToolResult::structured(serde_json::to_value(value).expect("tool results serialise"))
}

/// Arguments of the MCP `send_welcome` tool.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct WelcomeArgs {
    /// The customer to welcome.
    pub customer_id: String,
    /// Their address.
    pub to: String,
}

/// An MCP server exposing billing, email and ticket tools.
#[derive(Clone)]
pub struct AgentToolsServer<B, M, D> {
    billing: Arc<B>,
    mail: Arc<M>,
    desk: Arc<D>,
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

impl<B, M, D> ContextProvider for AgentToolsServer<B, M, D> {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

#[tool_router]
impl<B: BillingApi + 'static, M: MailApi + 'static, D: HelpDesk + 'static>
    AgentToolsServer<B, M, D>
{
    /// A server over these services; every call is recorded in `ctx`'s ledger under its scope.
    pub fn new(billing: Arc<B>, mail: Arc<M>, desk: Arc<D>, ctx: Context) -> Self {
        AgentToolsServer {
            billing,
            mail,
            desk,
            ctx,
            tool_router: Self::tool_router(),
        }
    }

    /// Charge a customer's card for an order, exactly once.
    #[side_effect(
        key = [customer, order_id],
        verify = find_charge,
        max_retries = 1,
        timeout_ms = 10_000,
        server_dedup = true
    )]
    #[tool(
        description = "Charge a customer's card for an order. Safe to retry: the same order is charged once.",
        annotations(
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    pub async fn create_charge(
        &self,
        Parameters(args): Parameters<ChargeArgs>,
        // The agent harness may name the run in the request's `_meta` (`dev.idemcheck/run`):
        // the guard then keys the charge under that run instead of the server's default.
        _meta: RequestMetaObject,
    ) -> Result<CallToolResult, ToolError> {
        Ok(structured(
            &billing::create_charge(&*self.billing, args).await?,
        ))
    }

    async fn find_charge(
        &self,
        params: &Parameters<ChargeArgs>,
        _meta: &RequestMetaObject,
    ) -> Result<Option<CallToolResult>, ToolError> {
        Ok(billing::find_charge(&*self.billing, &params.0)
            .await?
            .as_ref()
            .map(structured))
    }

    /// Refund a charge, exactly once.
    #[side_effect(key = [charge_id], verify = find_refund, max_retries = 1, timeout_ms = 10_000, server_dedup = true)]
    #[tool(
        description = "Refund a charge. Safe to retry: a charge is refunded once.",
        annotations(destructive_hint = true, idempotent_hint = true)
    )]
    async fn refund(
        &self,
        Parameters(args): Parameters<RefundArgs>,
    ) -> Result<CallToolResult, ToolError> {
        Ok(structured(&billing::refund(&*self.billing, args).await?))
    }

    async fn find_refund(
        &self,
        params: &Parameters<RefundArgs>,
    ) -> Result<Option<CallToolResult>, ToolError> {
        Ok(billing::find_refund(&*self.billing, &params.0)
            .await?
            .as_ref()
            .map(structured))
    }

    /// Send a customer their welcome email, once.
    #[side_effect(key = [customer_id], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
    #[tool(description = "Send a customer their welcome email (once per customer).")]
    async fn send_welcome(
        &self,
        Parameters(args): Parameters<WelcomeArgs>,
    ) -> Result<CallToolResult, ToolError> {
        let id = crate::email::send_welcome(&*self.mail, args.customer_id, args.to).await?;
        Ok(structured(&id))
    }

    async fn find_welcome(
        &self,
        params: &Parameters<WelcomeArgs>,
    ) -> Result<Option<CallToolResult>, ToolError> {
        let args = &params.0;
        Ok(
            crate::email::find_welcome(&*self.mail, &args.customer_id, &args.to)
                .await?
                .as_ref()
                .map(structured),
        )
    }

    /// Open a help-desk ticket for an incident, once per reference.
    #[side_effect(key = [reference], verify = find_ticket, max_retries = 1, timeout_ms = 8_000, settle_ms = 20_000)]
    #[tool(description = "Open a help-desk ticket for an incident (one per reference).")]
    async fn open_ticket(
        &self,
        Parameters(args): Parameters<TicketArgs>,
    ) -> Result<CallToolResult, ToolError> {
        Ok(structured(&tickets::open_ticket(&*self.desk, args).await?))
    }

    async fn find_ticket(
        &self,
        params: &Parameters<TicketArgs>,
    ) -> Result<Option<CallToolResult>, ToolError> {
        Ok(tickets::find_ticket(&*self.desk, &params.0)
            .await?
            .as_ref()
            .map(structured))
    }

    /// Look up the charge for an order (read-only; needs no contract).
    #[tool(
        description = "Look up the charge for an order.",
        annotations(read_only_hint = true)
    )]
    async fn lookup_charge(
        &self,
        Parameters(args): Parameters<ChargeArgs>,
    ) -> Result<CallToolResult, ToolError> {
        let found = billing::find_charge(&*self.billing, &args).await?;
        Ok(structured(&found))
    }
}

#[tool_handler(router = self.tool_router)]
impl<B: BillingApi + 'static, M: MailApi + 'static, D: HelpDesk + 'static> ServerHandler
    for AgentToolsServer<B, M, D>
{
}
