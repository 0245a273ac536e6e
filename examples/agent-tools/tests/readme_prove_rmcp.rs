//! docs/rmcp.md, "Prove a tool guarded in place": this file is quoted there verbatim and
//! README.md quotes its proof (`tests/readme_sections.rs` checks both), so the snippets
//! compile and run.

use std::sync::Arc;

use idemcheck::sim::{Net, Proof, Report, SimError, in_place};
use idemcheck::{Context, ContextProvider, side_effect};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

/// What the model sends.
#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Receipt {
    /// With `to`, names the operation: one receipt per order and address.
    pub reference: String,
    /// The address.
    pub to: String,
    /// The text (the model may reword it: not part of the key).
    pub body: String,
}

/// The mail provider: an HTTP client in production, the simulated world in the proof.
pub trait Mailer: Send + Sync + 'static {
    /// Sends a message: its id.
    fn send(&self, mail: &Receipt) -> impl Future<Output = Result<u64, ErrorData>> + Send;
    /// The message sent for this reference and address, if any (the provider's search).
    fn find(&self, mail: &Receipt) -> impl Future<Output = Result<Option<u64>, ErrorData>> + Send;
}

/// The server, as in production: it holds its mailer and the guard's context.
#[derive(Clone)]
pub struct MailServer<M> {
    mailer: Arc<M>,
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl<M: Mailer> MailServer<M> {
    /// A server sending through `mailer`, guarded with `ctx`'s ledger.
    pub fn new(mailer: Arc<M>, ctx: Context) -> Self {
        let tool_router = Self::tool_router();
        MailServer {
            mailer,
            ctx,
            tool_router,
        }
    }

    /// Sends the receipt, once per order and address.
    #[side_effect(key = [reference, to], verify = find_receipt, max_retries = 1, timeout_ms = 10_000, settle_ms = 10_000)]
    #[tool(description = "E-mail an order's receipt (once per order and address).")]
    pub async fn send_receipt(
        &self,
        Parameters(mail): Parameters<Receipt>,
    ) -> Result<CallToolResult, ErrorData> {
        let id = self.mailer.send(&mail).await?;
        Ok(CallToolResult::structured(
            serde_json::json!({ "message": id }),
        ))
    }

    async fn find_receipt(
        &self,
        params: &Parameters<Receipt>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        let found = self.mailer.find(&params.0).await?;
        Ok(found.map(|id| CallToolResult::structured(serde_json::json!({ "message": id }))))
    }
}

#[tool_handler(router = self.tool_router)]
impl<M: Mailer> ServerHandler for MailServer<M> {}

impl<M> ContextProvider for MailServer<M> {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

/// The proof's mailer: the simulated world, which loses, delays, repeats and fails requests.
pub struct SimMail(pub Net);

impl SimMail {
    fn message(mail: &Receipt) -> String {
        format!("receipt {} to {}", mail.reference, mail.to)
    }

    /// How many of these messages really went out.
    pub fn sent(&self, mail: &Receipt) -> usize {
        self.0.count(&Self::message(mail), mail)
    }
}

// A timeout or a 5xx: the provider may have sent it (`internal_error` is ambiguous).
fn provider_error(e: SimError) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

impl Mailer for SimMail {
    async fn send(&self, mail: &Receipt) -> Result<u64, ErrorData> {
        let sent = self.0.write(&Self::message(mail), mail, None).await;
        sent.map(|m| m.id).map_err(provider_error)
    }

    async fn find(&self, mail: &Receipt) -> Result<Option<u64>, ErrorData> {
        let found = self
            .0
            .read(&Self::message(mail))
            .await
            .map_err(provider_error)?;
        Ok(found.first().map(|m| m.id))
    }
}

/// Episode `n`'s receipt; `variant` 1 is the same operation with another body.
pub fn receipt(n: u64, variant: u32) -> Receipt {
    let (reference, to) = (format!("order-{n}"), "ana@example.com".to_string());
    Receipt {
        reference,
        to,
        body: format!("Your receipt (version {variant})"),
    }
}

#[test]
fn send_receipt_survives_every_fault() {
    prove_send_receipt();
}

/// The proof (tests/sim runs it too, with every documented contract).
pub fn prove_send_receipt() -> Report {
    Proof {
        contract: MailServer::<SimMail>::SEND_RECEIPT_CONTRACT,
        world: |net: &Net| Arc::new(SimMail(net.clone())),
        intent: receipt,
        // How to build the server from the world, and how to call the guarded method:
        call: in_place(
            |ctx, mail: &Arc<SimMail>| MailServer::new(mail.clone(), ctx),
            async |server: &MailServer<SimMail>, mail| server.send_receipt(Parameters(mail)).await,
        ),
        effects: |mail: &Arc<SimMail>, r: &Receipt| mail.sent(r),
    }
    .prove()
}
