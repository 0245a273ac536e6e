//! `#[tool]` above `#[side_effect]`: rmcp's macro runs first and turns the `async fn` into a
//! boxed future, so the guard cannot wrap it. The error says which way round they go.
use idemcheck::{Context, ContextProvider, side_effect};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ReserveArgs {
    pub order_id: String,
    pub qty: u32,
}

#[derive(Clone)]
pub struct Inventory {
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

impl ContextProvider for Inventory {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

#[tool_router]
impl Inventory {
    #[tool(description = "Reserve stock for an order")]
    #[side_effect(key = [order_id], verify = find_reservation, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    async fn reserve_stock(&self, Parameters(args): Parameters<ReserveArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::structured(serde_json::json!({ "order": args.order_id })))
    }

    async fn find_reservation(&self, _params: &Parameters<ReserveArgs>) -> Result<Option<CallToolResult>, ErrorData> {
        Ok(None)
    }
}

fn main() {
    let _ = Inventory::tool_router;
}
