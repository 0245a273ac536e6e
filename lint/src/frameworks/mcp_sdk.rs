//! rust-mcp-sdk's `#[mcp_tool]` structs (style `rust-mcp-sdk`).
//!
//! ```text
//! use rust_mcp_sdk::macros::mcp_tool;
//!
//! #[mcp_tool(name = "send_otp", description = "Send a one-time password",
//!            destructive_hint = true)]
//! #[derive(Deserialize, JsonSchema)]
//! pub struct SendOtpTool { pub to: String }
//!
//! impl SendOtpTool {
//!     pub async fn call_tool(&self, sms: &Sms) -> Result<CallToolResult, CallToolError> { .. }
//! }
//! ```
//!
//! The attribute (last path segment `mcp_tool` after `use` resolution) on a struct makes it
//! a tool, named and hinted by the attribute's top-level `name`, `description` and `*_hint`
//! entries. The tool's input is the struct itself (`self`). Its body is the struct's method
//! named in [`CALL_METHODS`] (the first found, in that order): defined in the same file, it
//! is that function; otherwise the index looks the method up anywhere in the crate, whatever
//! the server's dispatch to it.

/// The last path segment of rust-mcp-sdk's tool attribute.
pub const ATTR: &str = "mcp_tool";

/// Whether an attribute path, resolved through `use`, is `#[mcp_tool]`.
pub fn is_tool_attr(resolved: &[String]) -> bool {
    resolved.last().is_some_and(|l| l == ATTR)
}

/// The methods of the struct that run the tool, in the order they are looked for.
pub const CALL_METHODS: &[&str] = &["call_tool", "run_tool", "call", "run", "execute", "handle"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows;

    #[test]
    fn the_attribute_by_its_last_segment() {
        let segs = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
        assert!(is_tool_attr(&segs("rust_mcp_sdk::macros::mcp_tool")));
        assert!(is_tool_attr(&segs("mcp_tool")));
        assert!(!is_tool_attr(&segs("rust_mcp_sdk::macros::JsonSchema")));
        assert!(!is_tool_attr(&[]));
    }

    #[test]
    fn a_struct_is_a_tool_whose_body_is_its_call_method() {
        let a = r#"
use rust_mcp_sdk::macros::mcp_tool;

#[mcp_tool(name = "send_otp", description = "Send a one-time password")]
pub struct SendOtpTool { pub to: String }

impl SendOtpTool {
    pub async fn call_tool(&self) -> Result<CallToolResult, CallToolError> {
        reqwest::Client::new().post("https://sms.example/send").send().await.ok();
        Ok(CallToolResult::default())
    }
    pub fn run(&self) { std::fs::remove_file("never the body").ok(); }
}

#[mcp_tool(name = "list_messages", description = "List messages", read_only_hint = true)]
pub struct ListMessagesTool {}
"#;
        // The second struct's method is in another file of the crate.
        let b = r#"
impl crate::ListMessagesTool {
    pub async fn call_tool(&self) -> Result<CallToolResult, CallToolError> {
        let _ = std::fs::read_to_string("messages.json");
        Ok(CallToolResult::default())
    }
}
"#;
        let got = crate::analysis::inventory_rows(&[("src/lib.rs", a), ("src/handlers.rs", b)]);
        assert_eq!(
            got,
            [
                (
                    "list_messages".into(),
                    "ListMessagesTool::call_tool".into(),
                    "rust-mcp-sdk".into(),
                    "Read".into()
                ),
                (
                    "send_otp".into(),
                    "SendOtpTool::call_tool".into(),
                    "rust-mcp-sdk".into(),
                    "Write".into()
                ),
            ]
        );
        // Without the attribute the struct is no tool.
        assert!(rows("pub struct SendOtpTool { pub to: String }\n").is_empty());
    }

    /// A struct the server runs inline, in the tools/call handler's arm of its name: that
    /// arm is its body.
    #[test]
    fn a_struct_run_inline_by_the_handler_has_that_arm_as_its_body() {
        let src = r#"
use rust_mcp_sdk::macros::mcp_tool;

#[mcp_tool(name = "save_note", description = "Save a note")]
pub struct SaveNoteTool { pub text: String }

#[mcp_tool(name = "list_notes", description = "List the notes")]
pub struct ListNotesTool {}

impl ServerHandler for Handler {
    async fn handle_call_tool_request(&self, params: CallToolRequestParams) -> Result<CallToolResult, CallToolError> {
        match params.name.as_str() {
            "save_note" => {
                std::fs::write("notes.md", "x").unwrap();
                Ok(CallToolResult::default())
            }
            "list_notes" => {
                let _ = std::fs::read_to_string("notes.md");
                Ok(CallToolResult::default())
            }
            other => Err(CallToolError::unknown_tool(other.to_string())),
        }
    }
}
"#;
        let got = crate::analysis::inventory_rows(&[("src/main.rs", src)]);
        let kind = |n: &str| {
            got.iter()
                .find(|r| r.0 == n)
                .map(|r| (r.2.clone(), r.3.clone()))
        };
        assert_eq!(
            kind("save_note"),
            Some(("rust-mcp-sdk".into(), "Write".into())),
            "{got:?}"
        );
        assert_eq!(
            kind("list_notes"),
            Some(("rust-mcp-sdk".into(), "Read".into())),
            "{got:?}"
        );
        assert_eq!(got.len(), 2, "{got:?}");
    }

    #[test]
    fn a_struct_registered_with_a_handler_has_that_handler_as_its_body() {
        // A home-grown registry pairs the parameters struct with a free function
        // (ADORSYS-GIS/adb-mcp-rs's shape): the function is the tool's body.
        let src = r#"
use rust_mcp_sdk::macros::mcp_tool;

#[mcp_tool(name = "delete_note", description = "Delete a note")]
pub struct DeleteNoteParams { pub path: String }

#[mcp_tool(name = "read_note", description = "Read a note")]
pub struct ReadNoteParams { pub path: String }

#[mcp_tool(name = "orphan", description = "Registered nowhere")]
pub struct OrphanParams {}

pub fn register_all(registry: &mut ToolRegistry) {
    registry.register(DeleteNoteParams::tool(), handle_delete);
    registry.register(ReadNoteParams::tool(), handle_read);
}

fn handle_delete(args: Map<String, Value>) -> Result<ToolResult, ToolError> {
    let p: DeleteNoteParams = serde_json::from_value(Value::Object(args))?;
    std::fs::remove_file(&p.path)?;
    Ok(ToolResult::ok("deleted"))
}

fn handle_read(args: Map<String, Value>) -> Result<ToolResult, ToolError> {
    let p: ReadNoteParams = serde_json::from_value(Value::Object(args))?;
    Ok(ToolResult::ok(std::fs::read_to_string(&p.path)?))
}
"#;
        let got = rows(src);
        let find = |n: &str| got.iter().find(|r| r.0 == n).cloned().unwrap();
        assert_eq!(
            find("delete_note"),
            (
                "delete_note".into(),
                "handle_delete".into(),
                "rust-mcp-sdk".into(),
                "Write".into()
            )
        );
        assert_eq!(
            find("read_note"),
            (
                "read_note".into(),
                "handle_read".into(),
                "rust-mcp-sdk".into(),
                "Read".into()
            )
        );
        // Without a registration (nor a call method) nothing is followed.
        assert_eq!(find("orphan").3, "Unknown");
    }
}
