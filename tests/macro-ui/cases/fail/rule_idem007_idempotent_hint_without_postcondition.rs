use idemcheck::{side_effect, Context, ContextProvider};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};

#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ChargeArgs {
    pub customer: String,
    pub order_id: String,
}

#[derive(Clone)]
pub struct Billing {
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

impl ContextProvider for Billing {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

#[tool_router]
impl Billing {
    #[side_effect(key = [customer, order_id], max_retries = 0, allow(missing_verify, reason = "the provider cannot be asked"))]
    #[tool(description = "Charge a card", annotations(idempotent_hint = true))]
    async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<String, String> {
        Ok(args.order_id)
    }
}

fn main() {
    let _ = Billing::tool_router;
}
