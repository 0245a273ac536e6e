//! The guarded-tool test (`../guard.rs`) on rmcp 3.

/// A `tools/call` whose `_meta` is `meta`: from rmcp 1 on, a field of its parameters.
#[cfg(test)]
async fn call_in_run(
    client: &guard::tests::Client,
    mut params: serde_json::Value,
    meta: serde_json::Map<String, serde_json::Value>,
) -> Result<rmcp::model::CallToolResult, rmcp::ServiceError> {
    params["_meta"] = serde_json::Value::Object(meta);
    client
        .call_tool(serde_json::from_value(params).unwrap())
        .await
}

#[path = "../../guard.rs"]
pub mod guard;
