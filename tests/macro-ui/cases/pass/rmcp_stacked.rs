//! `#[side_effect]` stacked on rmcp's `#[tool]` inside `#[tool_router]`, under
//! `#![deny(warnings)]`: the routed future is `Send`, the signature is unchanged.
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

    #[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
    #[tool(description = "Charge a card", annotations(destructive_hint = false, idempotent_hint = true))]
    async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::structured(serde_json::json!({ "order": args.order_id })))
    }

    async fn find_charge(&self, _params: &Parameters<ChargeArgs>) -> Result<Option<CallToolResult>, ErrorData> {
        Ok(None)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Billing {}

fn assert_send<T: Send>(_: &T) {}

fn main() {
    let clock = idemcheck::VirtualClock::new();
    let ledger = idemcheck::MemoryLedger::with_clock(std::sync::Arc::new(clock.clone()));
    let ctx = Context::with_clock(ledger, std::sync::Arc::new(clock.clone()), idemcheck::Scope::run("r"));
    let server = Billing::new(ctx);
    let args = ChargeArgs { customer: "acme".into(), order_id: "o-1".into() };
    let fut = server.create_charge(Parameters(args));
    assert_send(&fut);
    let out = clock.block_on(fut).expect("virtual time only");
    assert_eq!(out.unwrap().structured_content, Some(serde_json::json!({ "order": "o-1" })));
    assert_eq!(Billing::CREATE_CHARGE_CONTRACT.name, "create_charge");
}
