//! The guarded-tool test every supported rmcp major runs (`tests/rmcp-compat/rmcp-*`, each its
//! own crate, lockfile and rmcp version; `.ci/run` runs them all). The same source for every
//! version: an rmcp server as its users write it, `#[side_effect]` above `#[tool]`, and a real
//! rmcp client over an in-process pipe.
//!
//! - `reserve`: `Result<CallToolResult, ErrorData>` with a `RequestContext` (the run scope from
//!   `_meta`): a duplicate call runs once; a divergent call is an `isError` result with the
//!   guard's details in `_meta`; with `Escalations::Errors` it is a JSON-RPC internal error
//!   whose `data` carries them.
//! - `ship`: `Result<Json<Shipment>, ErrorData>`: the same, and the structured content of every
//!   result validates against the output schema the client lists.
//! - `check`: an `invalid_params` error is a rejection (one attempt, passed through), not an
//!   ambiguous failure.

use std::sync::{Arc, Mutex};

use idemcheck::{Context, ContextProvider, side_effect};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};

/// The arguments of every tool: one operation per order.
#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct OrderArgs {
    /// Names the operation.
    pub order_id: String,
    /// How many.
    pub qty: u32,
}

/// `ship`'s structured output.
#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Shipment {
    /// The order shipped.
    pub order_id: String,
    /// The shipment's number.
    pub shipment: u32,
}

/// A server whose tools record their effects.
#[derive(Clone)]
pub struct Shop {
    /// Every effect, as `tool:order`.
    pub effects: Arc<Mutex<Vec<String>>>,
    /// Attempts of `check`.
    pub checks: Arc<Mutex<u32>>,
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

impl ContextProvider for Shop {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl Shop {
    fn effect(&self, tool: &str, order: &str) -> u32 {
        let mut all = self.effects.lock().unwrap();
        all.push(format!("{tool}:{order}"));
        all.iter().filter(|e| e.starts_with(tool)).count() as u32
    }

    fn find(&self, tool: &str, order: &str) -> Option<u32> {
        let all = self.effects.lock().unwrap();
        all.iter()
            .filter(|e| e.starts_with(tool))
            .position(|e| *e == format!("{tool}:{order}"))
            .map(|i| i as u32 + 1)
    }

    /// The number of effects of `tool`.
    pub fn count(&self, tool: &str) -> usize {
        let all = self.effects.lock().unwrap();
        all.iter().filter(|e| e.starts_with(tool)).count()
    }
}

#[tool_router]
impl Shop {
    /// A server on `ctx`.
    pub fn new(ctx: Context) -> Self {
        Shop {
            effects: Arc::default(),
            checks: Arc::default(),
            ctx,
            tool_router: Self::tool_router(),
        }
    }

    #[side_effect(key = [order_id], verify = find_reservation, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    #[tool(description = "Reserve stock for an order (once per order).")]
    async fn reserve(
        &self,
        Parameters(args): Parameters<OrderArgs>,
        _request: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let n = self.effect("reserve", &args.order_id);
        Ok(CallToolResult::structured(
            serde_json::json!({ "reservation": n }),
        ))
    }

    async fn find_reservation(
        &self,
        params: &Parameters<OrderArgs>,
        _request: &RequestContext<RoleServer>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        let found = self.find("reserve", &params.0.order_id);
        Ok(found.map(|n| CallToolResult::structured(serde_json::json!({ "reservation": n }))))
    }

    #[side_effect(key = [order_id], verify = find_shipment, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    #[tool(description = "Ship an order (once per order).")]
    async fn ship(
        &self,
        Parameters(args): Parameters<OrderArgs>,
    ) -> Result<Json<Shipment>, ErrorData> {
        let shipment = self.effect("ship", &args.order_id);
        Ok(Json(Shipment {
            order_id: args.order_id,
            shipment,
        }))
    }

    async fn find_shipment(
        &self,
        params: &Parameters<OrderArgs>,
    ) -> Result<Option<Json<Shipment>>, ErrorData> {
        let order_id = params.0.order_id.clone();
        let found = self.find("ship", &order_id);
        Ok(found.map(|shipment| Json(Shipment { order_id, shipment })))
    }

    #[side_effect(key = [order_id], verify = find_check, max_retries = 1, timeout_ms = 5_000, settle_ms = 5_000)]
    #[tool(description = "Refuses a quantity of zero.")]
    async fn check(
        &self,
        Parameters(args): Parameters<OrderArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        *self.checks.lock().unwrap() += 1;
        if args.qty == 0 {
            return Err(ErrorData::invalid_params("qty must be positive", None));
        }
        let n = self.effect("check", &args.order_id);
        Ok(CallToolResult::structured(
            serde_json::json!({ "check": n }),
        ))
    }

    async fn find_check(
        &self,
        params: &Parameters<OrderArgs>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        let found = self.find("check", &params.0.order_id);
        Ok(found.map(|n| CallToolResult::structured(serde_json::json!({ "check": n }))))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use idemcheck::{MemoryLedger, Scope};
    use rmcp::ServiceExt;

    pub(crate) type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

    async fn serve(ctx: Context) -> (Shop, Client) {
        let server = Shop::new(ctx);
        let shop = server.clone();
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
        (shop, ().serve(client_io).await.unwrap())
    }

    fn default_ctx() -> Context {
        Context::new(MemoryLedger::new(), Scope::run("run-1"))
    }

    /// A `tools/call`, its parameters as JSON (their type and fields differ between
    /// versions); with `run`, its `_meta` names the run (`crate::call_in_run`: how this
    /// version's client sends a request's `_meta`).
    async fn call(
        client: &Client,
        tool: &str,
        order: &str,
        qty: u32,
        run: Option<&str>,
    ) -> Result<CallToolResult, rmcp::ServiceError> {
        let params = serde_json::json!({
            "name": tool,
            "arguments": { "order_id": order, "qty": qty },
        });
        match run {
            Some(run) => {
                let meta = serde_json::json!({ idemcheck::META_RUN: run });
                crate::call_in_run(client, params, meta.as_object().unwrap().clone()).await
            }
            None => {
                client
                    .call_tool(serde_json::from_value(params).unwrap())
                    .await
            }
        }
    }

    fn details(result: &CallToolResult) -> serde_json::Value {
        let meta = result
            .meta
            .as_ref()
            .expect("the guard's details in `_meta`");
        meta.0["idemcheck"].clone()
    }

    #[tokio::test]
    async fn a_duplicate_runs_once_and_a_divergent_call_is_an_error_result() {
        let (shop, client) = serve(default_ctx()).await;
        let first = call(&client, "reserve", "o-1", 3, None).await.unwrap();
        let again = call(&client, "reserve", "o-1", 3, None).await.unwrap();
        assert_eq!(first.is_error, Some(false));
        assert_eq!(first.structured_content, again.structured_content);
        assert_eq!(shop.count("reserve"), 1, "one effect");

        let refused = call(&client, "reserve", "o-1", 5, None).await;
        let refused = refused.expect("an isError tool result, not a JSON-RPC error");
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(refused.structured_content, None);
        let details = details(&refused);
        assert_eq!(details["reason"], "divergent");
        assert_eq!(details["tool"], "reserve");
        assert_eq!(shop.count("reserve"), 1, "nothing executed");
    }

    #[tokio::test]
    async fn a_json_tool_is_guarded_and_keeps_its_output_schema() {
        let (shop, client) = serve(default_ctx()).await;
        let tools = client.list_all_tools().await.unwrap();
        let ship = tools.iter().find(|t| t.name == "ship").unwrap();
        let schema = ship
            .output_schema
            .clone()
            .expect("`ship` declares an output schema");
        let schema = serde_json::Value::Object((*schema).clone());
        let validator = jsonschema::validator_for(&schema).unwrap();

        let first = call(&client, "ship", "o-1", 1, None).await.unwrap();
        let again = call(&client, "ship", "o-1", 1, None).await.unwrap();
        assert_eq!(first.is_error, Some(false));
        let content = first
            .structured_content
            .clone()
            .expect("structured content");
        assert!(validator.is_valid(&content), "{content} against {schema}");
        assert_eq!(content["order_id"], "o-1");
        assert_eq!(content["shipment"], 1);
        assert_eq!(first.structured_content, again.structured_content);
        assert_eq!(shop.count("ship"), 1, "one effect");

        let refused = call(&client, "ship", "o-1", 2, None).await;
        let refused = refused.expect("an isError tool result, not a JSON-RPC error");
        assert_eq!(refused.is_error, Some(true));
        // Nothing for the output schema to reject: the details are in `_meta`.
        assert_eq!(refused.structured_content, None);
        assert_eq!(details(&refused)["reason"], "divergent");
        assert_eq!(shop.count("ship"), 1, "nothing executed");
    }

    #[tokio::test]
    async fn invalid_params_is_a_rejection_passed_through() {
        let (shop, client) = serve(default_ctx()).await;
        let rejected = call(&client, "check", "o-1", 0, None).await;
        match rejected {
            Err(rmcp::ServiceError::McpError(e)) => assert_eq!(e.code.0, -32602),
            other => panic!("the tool's own JSON-RPC error, got {other:?}"),
        }
        // Rejected: not retried (an ambiguous error would be, `max_retries = 1`), key released.
        assert_eq!(*shop.checks.lock().unwrap(), 1);
        let fixed = call(&client, "check", "o-1", 1, None).await.unwrap();
        assert_eq!(fixed.is_error, Some(false));
        assert_eq!(shop.count("check"), 1);
    }

    #[tokio::test]
    async fn the_opt_out_answers_a_json_rpc_error_with_the_details() {
        let ctx = default_ctx().with_escalations(idemcheck::Escalations::Errors);
        let (shop, client) = serve(ctx).await;
        call(&client, "reserve", "o-1", 3, None).await.unwrap();
        match call(&client, "reserve", "o-1", 5, None).await {
            Err(rmcp::ServiceError::McpError(e)) => {
                assert_eq!(e.code.0, -32603);
                let data = e.data.expect("the details");
                assert_eq!(data["idemcheck"]["reason"], "divergent");
            }
            other => panic!("a JSON-RPC internal error, got {other:?}"),
        }
        assert_eq!(shop.count("reserve"), 1);
    }

    #[tokio::test]
    async fn the_run_in_meta_scopes_the_key() {
        let (shop, client) = serve(default_ctx()).await;
        call(&client, "reserve", "o-2", 1, Some("run-a"))
            .await
            .unwrap();
        call(&client, "reserve", "o-2", 1, Some("run-a"))
            .await
            .unwrap();
        call(&client, "reserve", "o-2", 1, Some("run-b"))
            .await
            .unwrap();
        assert_eq!(shop.count("reserve"), 2, "one reservation per run");
    }
}
