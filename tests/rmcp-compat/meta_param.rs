//! `tools/call` with a `_meta` on rmcp 1 and later, where `_meta` is a field of the call's
//! parameters (rmcp 0.x writes it from the request's extensions: rmcp-0.11/src/lib.rs).

/// A `tools/call` whose `_meta` is `meta`: from rmcp 1 on, a field of its parameters.
pub async fn call_in_run(
    client: &crate::guard::tests::Client,
    mut params: serde_json::Value,
    meta: serde_json::Map<String, serde_json::Value>,
) -> Result<rmcp::model::CallToolResult, rmcp::ServiceError> {
    params["_meta"] = serde_json::Value::Object(meta);
    client
        .call_tool(serde_json::from_value(params).unwrap())
        .await
}
