//! docs/rmcp.md, "Guarding an rmcp server in five steps": this file is quoted there verbatim
//! (`tests/readme_sections.rs` checks it), so the snippet there compiles and runs.

// Step 2: `#[side_effect]` stacked ABOVE rmcp's `#[tool]`, in a `#[tool_router]` impl.
use std::sync::{Arc, Mutex};

use idemcheck::{Context, ContextProvider, MemoryLedger, Scope, side_effect};
use rmcp::handler::server::{
    router::tool::ToolRouter,
    wrapper::{Json, Parameters},
};
use rmcp::model::CallToolRequestParams;
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct ReserveArgs {
    /// Names the operation: one reservation per order.
    order_id: String,
    sku: String,
    qty: u32,
}

/// The tool's structured output (`Json<Reservation>`: rmcp declares its output schema).
#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Reservation {
    order_id: String,
    reservation: u32,
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
    ) -> Result<Json<Reservation>, ErrorData> {
        let mut all = self.reservations.lock().unwrap();
        all.push((args.order_id.clone(), args.sku.clone(), args.qty));
        let reservation = all.len() as u32;
        Ok(Json(Reservation {
            order_id: args.order_id,
            reservation,
        }))
    }

    // Step 3: the postcondition. It takes the tool's parameters by reference and returns the
    // tool's own success type: Ok(Some(result)) it happened, Ok(None) it did not, Err can't tell.
    async fn find_reservation(
        &self,
        params: &Parameters<ReserveArgs>,
    ) -> Result<Option<Json<Reservation>>, ErrorData> {
        let all = self.reservations.lock().unwrap();
        let found = all.iter().position(|r| r.0 == params.0.order_id);
        Ok(found.map(|i| {
            Json(Reservation {
                order_id: params.0.order_id.clone(),
                reservation: i as u32 + 1,
            })
        }))
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
    // The output schema rmcp declares for `Json<Reservation>`, as the client lists it.
    let tools = client.list_all_tools().await.unwrap();
    let schema = tools[0].output_schema.clone().expect("an output schema");
    let schema = jsonschema::validator_for(&serde_json::Value::Object((*schema).clone())).unwrap();

    let first = client.call_tool(call(3)).await.unwrap();
    let again = client.call_tool(call(3)).await.unwrap(); // the agent retries: replayed
    assert_eq!(first.structured_content, again.structured_content);
    assert!(schema.is_valid(first.structured_content.as_ref().unwrap()));
    assert_eq!(reservations.lock().unwrap().len(), 1);

    // Same order, other quantity: refused as a result the model reads (`isError: true`), the
    // guard's details in `_meta` (no structured content for the schema to reject).
    let refused = client.call_tool(call(5)).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(refused.structured_content, None);
    let details = &refused.meta.unwrap().0["idemcheck"];
    assert_eq!(details["reason"], "divergent");
    assert_eq!(reservations.lock().unwrap().len(), 1);
    client.cancel().await.unwrap();
}
