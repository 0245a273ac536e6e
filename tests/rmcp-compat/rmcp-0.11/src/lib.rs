//! The guarded-tool test (`../guard.rs`) on rmcp 0.11, the oldest rmcp supported.

/// A `tools/call` whose `_meta` is `meta`: before rmcp 1, an extension of the request
/// (`Meta`), which the client writes as the parameters' `_meta`.
#[cfg(test)]
async fn call_in_run(
    client: &guard::tests::Client,
    params: serde_json::Value,
    meta: serde_json::Map<String, serde_json::Value>,
) -> Result<rmcp::model::CallToolResult, rmcp::ServiceError> {
    let mut extensions = rmcp::model::Extensions::new();
    extensions.insert(rmcp::model::Meta(meta));
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request {
        method: Default::default(),
        params: serde_json::from_value(params).unwrap(),
        extensions,
    });
    match client.send_request(request).await? {
        rmcp::model::ServerResult::CallToolResult(result) => Ok(result),
        other => panic!("a tools/call result, got {other:?}"),
    }
}

#[path = "../../guard.rs"]
pub mod guard;
