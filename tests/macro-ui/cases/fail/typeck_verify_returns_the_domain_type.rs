//! An rmcp method's postcondition returns the domain type, not the tool's own success type
//! (`CallToolResult`): reported at `verify = ..`, naming the type it must return.
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

pub struct Reservation;

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
    #[side_effect(key = [order_id], verify = find_reservation, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    #[tool(description = "Reserve stock for an order")]
    async fn reserve_stock(&self, Parameters(args): Parameters<ReserveArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::structured(serde_json::json!({ "order": args.order_id })))
    }

    async fn find_reservation(&self, _params: &Parameters<ReserveArgs>) -> Result<Option<Reservation>, ErrorData> {
        Ok(None)
    }
}

fn main() {
    let _ = Inventory::tool_router;
}
