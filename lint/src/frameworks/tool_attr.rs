//! `#[tool]` attributes of tool-macro crates other than rmcp and swiftide (style
//! `tool-attr`).
//!
//! ```text
//! use riglr_macros::tool;
//!
//! /// Transfer SOL to another account.
//! #[tool]
//! pub async fn transfer_sol(to: String, amount: u64) -> Result<String, ToolError> { .. }
//! ```
//!
//! riglr's
//! `#[riglr_macros::tool]` (it generates a rig `Tool` impl named after the function) and the
//! look-alikes agent toolkits write on their own (`#[my_agent_macros::tool]`). An attribute
//! named `tool` on a function marks that function as a tool whatever crate defines it; the
//! tool's name is the function's, its description the doc comment.
//!
//! rmcp's `#[tool]` (resolved to `rmcp`, or written bare in an rmcp file or a
//! `#[tool_router]` impl) and swiftide's are decided before this is asked. When the
//! configuration names a `tool` attribute (`tool_attributes = ["agent_sdk::tool"]`), that
//! one marks tools and other crates' `tool` attributes (tracing spans and the like) do not.

/// Whether an attribute path, resolved through the file's `use` items, is the `#[tool]` of
/// some other tool-macro crate.
pub fn is_other_tool_attr(resolved: &[String]) -> bool {
    resolved.last().is_some_and(|last| last == "tool") && !of_a_framework(resolved)
}

/// Whether an attribute path, resolved through the file's `use` items, is one named for
/// tools (`mcp_tool`, `agent_tool`: its last segment ends with `_tool`) of some crate that is
/// not a framework with a style of its own: a workspace's `#[mcp_tool(name = .., description
/// = ..)]` on a function.
pub fn is_named_for_tools(resolved: &[String]) -> bool {
    resolved.last().is_some_and(|last| last.ends_with("_tool")) && !of_a_framework(resolved)
}

/// Whether a path starts at rmcp or swiftide (their own styles) or at `std`/`core`
/// (`#[core::prelude::v1::test]`-like built-ins have other names, but stay safe).
fn of_a_framework(resolved: &[String]) -> bool {
    resolved.first().is_some_and(|root| {
        matches!(
            root.as_str(),
            "rmcp" | "swiftide" | "swiftide_macros" | "std" | "core"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn other_crates_tool_attributes() {
        assert!(is_other_tool_attr(&seg(&["riglr_macros", "tool"])));
        assert!(is_other_tool_attr(&seg(&["my_agent", "macros", "tool"])));
        assert!(is_other_tool_attr(&seg(&["tool"])));
        assert!(!is_other_tool_attr(&seg(&["rmcp", "tool"])));
        assert!(!is_other_tool_attr(&seg(&["swiftide", "tool"])));
        assert!(!is_other_tool_attr(&seg(&["riglr_macros", "tool_router"])));
        assert!(!is_other_tool_attr(&[]));
        assert!(is_named_for_tools(&seg(&["mcp_tool"])));
        assert!(is_named_for_tools(&seg(&[
            "agents",
            "macros",
            "agent_tool"
        ])));
        assert!(!is_named_for_tools(&seg(&["rmcp", "mcp_tool"])));
        assert!(!is_named_for_tools(&seg(&["tool"])));
    }

    /// A workspace's own tool attribute named for tools on a function (`#[mcp_tool(name =
    /// "azdo_create_work_item", description = "..")]`, whose `build.rs` generates the
    /// router): a tool named by its `name`, whose body is the function; `#[rig_tool]` stays
    /// rig's, and a `#[tracing::instrument]` is no tool.
    #[test]
    fn a_function_with_an_attribute_named_for_tools_is_a_tool() {
        let src = r#"
use mcp_tools_codegen::mcp_tool;
#[mcp_tool(name = "azdo_create_work_item", description = "Create work item")]
pub async fn create_work_item(client: &Client, args: CreateArgs) -> Result<CallToolResult, McpError> {
    client.http.post("https://dev.azure.com/_apis/wit/workitems").send().await?;
    Ok(CallToolResult::success(vec![]))
}
#[mcp_tool(name = "azdo_get_team", description = "Get a team")]
pub async fn get_team(client: &Client, args: TeamArgs) -> Result<CallToolResult, McpError> {
    client.http.get("https://dev.azure.com/_apis/teams").send().await?;
    Ok(CallToolResult::success(vec![]))
}
#[tracing::instrument]
pub async fn helper(client: &Client) { client.http.delete("https://x").send().await.ok(); }
"#;
        let rows: Vec<(String, String, String)> = crate::frameworks::test_support::rows(src)
            .into_iter()
            .map(|(n, _, style, k)| (n, style, k))
            .collect();
        assert_eq!(
            rows,
            [
                (
                    "azdo_create_work_item".into(),
                    "tool-attr".into(),
                    "Write".into()
                ),
                ("azdo_get_team".into(), "tool-attr".into(), "Read".into()),
            ]
        );
    }

    /// autoagents: `#[tool(name = "copy_file", description = "..", input = Args)]` on a
    /// struct, run by the `execute` of its `impl ToolRuntime`; a `#[tool]` struct without a
    /// name and a description is none.
    #[test]
    fn a_named_described_tool_struct_is_run_by_its_method() {
        let src = r#"
use autoagents::tool::{ToolRuntime, ToolCallError};
#[tool(name = "copy_file", description = "Copy a file", input = CopyFileArgs)]
pub struct CopyFile { root: String }
#[async_trait]
impl ToolRuntime for CopyFile {
    async fn execute(&self, args: Value) -> Result<Value, ToolCallError> {
        std::fs::copy(&self.root, "b").map_err(|_| ToolCallError::Io)?;
        Ok(Value::Null)
    }
}
#[tool]
pub struct Marker;
impl ToolRuntime for Marker {
    async fn execute(&self, args: Value) -> Result<Value, ToolCallError> { Ok(Value::Null) }
}
/// A crate's own attribute named for tools (tanuki-mcp's `#[gitlab_tool]`, registered
/// through `inventory`).
#[gitlab_tool(name = "list_pipelines", description = "List pipelines", operation = "read")]
pub struct ListPipelines { project: String }
impl ToolExecutor for ListPipelines {
    async fn execute(&self, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ctx.http.get(format!("https://gitlab.example/api/v4/projects/{}/pipelines", self.project)).send().await?.into())
    }
}
#[serde_tool(rename_all = "camelCase")]
pub struct Settings { level: u8 }
"#;
        assert_eq!(
            crate::analysis::inventory_rows(&[("src/lib.rs", src)]),
            [
                (
                    "copy_file".into(),
                    "CopyFile::execute".into(),
                    "tool-attr".into(),
                    "Write".into()
                ),
                (
                    "list_pipelines".into(),
                    "ListPipelines::execute".into(),
                    "tool-attr".into(),
                    "Read".into()
                )
            ]
        );
    }

    #[test]
    fn a_riglr_tool_function_is_a_tool() {
        let src = r#"
use riglr_macros::tool;

/// Transfer SOL to another account.
#[tool]
pub async fn transfer_sol(to: String, amount: u64) -> Result<String, ToolError> {
    let client = rpc_client();
    client.send_and_confirm_transaction(&tx(to, amount)).await
}

fn rpc_client() -> RpcClient { RpcClient::new("https://api.mainnet-beta.solana.com") }
"#;
        assert_eq!(
            crate::analysis::inventory_rows(&[("src/lib.rs", src)]),
            [(
                "transfer_sol".into(),
                "transfer_sol".into(),
                "tool-attr".into(),
                "Write".into()
            )]
        );
    }

    #[test]
    fn a_hand_impl_for_the_generated_type_is_the_same_tool() {
        let src = r#"
use riglr_macros::tool;

/// Transfer SOL to another account.
#[tool]
pub async fn transfer_sol(to: String, amount: u64) -> Result<String, ToolError> {
    rpc_client().send_and_confirm_transaction(&tx(to, amount)).await
}

impl riglr_core::Tool for TransferSolTool {
    fn name(&self) -> &'static str {
        "transfer_sol"
    }

    async fn call(&self, args: serde_json::Value) -> Result<JobResult, ToolError> {
        let to = args["to"].to_string();
        let result = transfer_sol(to, 1).await?;
        JobResult::success(&result)
    }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0].2, "tool-attr");
    }
}
