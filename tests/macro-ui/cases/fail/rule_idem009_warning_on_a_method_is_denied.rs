//! A warning-level finding (IDEM009) on a method guarded in place: a compiler warning, denied
//! here, and nothing else (the warning's constant is named, as an impl block requires).
#![deny(warnings)]

use idemcheck::{Context, ContextProvider, side_effect};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

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
    pub fn new(ctx: Context) -> Self {
        Billing { ctx, tool_router: Self::tool_router() }
    }

    #[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1)]
    #[tool(description = "Charge a card")]
    async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::structured(serde_json::json!({ "order": args.order_id })))
    }

    async fn find_charge(&self, _params: &Parameters<ChargeArgs>) -> Result<Option<CallToolResult>, ErrorData> {
        Ok(None)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Billing {}

fn main() {}
