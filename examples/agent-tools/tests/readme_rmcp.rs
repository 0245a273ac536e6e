//! docs/rmcp.md, "Guarding an rmcp server in five steps": this file is quoted there verbatim
//! (`tests/readme_sections.rs` checks it), so the snippet there compiles and runs.

// Step 2: `#[side_effect]` stacked ABOVE rmcp's `#[tool]`, in a `#[tool_router]` impl.
use std::sync::{Arc, Mutex};

use idemcheck::{Context, ContextProvider, MemoryLedger, Scope, side_effect};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct ReserveArgs {
    /// Names the operation: one reservation per order.
    order_id: String,
    sku: String,
    qty: u32,
}

#[derive(Clone)]
struct Inventory {
    reservations: Arc<Mutex<Vec<(String, String, u32)>>>,
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Inventory {
    fn new(ctx: Context) -> Self {
        let reservations = Arc::default();
        Inventory {
            reservations,
            ctx,
            tool_router: Self::tool_router(),
        }
    }

    #[side_effect(key = [order_id], verify = find_reservation, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    #[tool(description = "Reserve stock for an order (once per order).")]
    async fn reserve_stock(
        &self,
        Parameters(args): Parameters<ReserveArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut all = self.reservations.lock().unwrap();
        all.push((args.order_id.clone(), args.sku.clone(), args.qty));
        Ok(CallToolResult::structured(
            serde_json::json!({ "reservation": all.len() }),
        ))
    }

    // Step 3: the postcondition. It takes the tool's parameters by reference and returns the
    // tool's own success type: Ok(Some(result)) it happened, Ok(None) it did not, Err can't tell.
    async fn find_reservation(
        &self,
        params: &Parameters<ReserveArgs>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        let all = self.reservations.lock().unwrap();
        let found = all.iter().position(|r| r.0 == params.0.order_id);
        Ok(found.map(|i| CallToolResult::structured(serde_json::json!({ "reservation": i + 1 }))))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Inventory {}

// Step 4: where the guard finds its ledger and run scope.
impl ContextProvider for Inventory {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

// Step 5: a real MCP client over an in-process pipe calls twice and sees one effect.
#[tokio::test]
async fn two_identical_calls_reserve_once() {
    let ctx = Context::new(MemoryLedger::new(), Scope::run("run-1"));
    let server = Inventory::new(ctx);
    let reservations = server.reservations.clone();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = ().serve(client_io).await.unwrap();
    let call = |qty: u32| {
        let args = serde_json::json!({ "order_id": "o-1", "sku": "sku-7", "qty": qty });
        CallToolRequestParams::new("reserve_stock")
            .with_arguments(args.as_object().unwrap().clone())
    };

    let first = client.call_tool(call(3)).await.unwrap();
    let again = client.call_tool(call(3)).await.unwrap(); // the agent retries: replayed
    assert_eq!(first.structured_content, again.structured_content);
    assert_eq!(reservations.lock().unwrap().len(), 1);

    // Same order, other quantity: refused as a result the model reads (`isError: true`).
    let refused = client.call_tool(call(5)).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        refused.structured_content.unwrap()["idemcheck"]["reason"],
        "divergent"
    );
    assert_eq!(reservations.lock().unwrap().len(), 1);
    client.cancel().await.unwrap();
}
