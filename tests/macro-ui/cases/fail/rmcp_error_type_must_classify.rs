//! In a crate that depends on rmcp, a guarded method's error type that is neither rmcp's
//! `ErrorData` (classified by its JSON-RPC code) nor `Classify` is reported as elsewhere.
use idemcheck::{Context, ContextProvider, side_effect};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub order_id: String,
}

#[derive(Debug)]
pub struct ShopError;

impl std::fmt::Display for ShopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shop error")
    }
}

impl From<idemcheck::Escalation> for ShopError {
    fn from(_: idemcheck::Escalation) -> Self {
        ShopError
    }
}

impl rmcp::model::IntoContents for ShopError {
    fn into_contents(self) -> Vec<rmcp::model::ContentBlock> {
        vec![rmcp::model::ContentBlock::text(self.to_string())]
    }
}

#[derive(Clone)]
pub struct Shop {
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

impl ContextProvider for Shop {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

#[tool_router]
impl Shop {
    #[side_effect(key = [order_id], verify = find, max_retries = 0)]
    #[tool(description = "Reserve")]
    async fn reserve(&self, Parameters(args): Parameters<Args>) -> Result<CallToolResult, ShopError> {
        let _ = args;
        Ok(CallToolResult::success(vec![]))
    }

    async fn find(&self, _params: &Parameters<Args>) -> Result<Option<CallToolResult>, ShopError> {
        Ok(None)
    }
}

fn main() {}
