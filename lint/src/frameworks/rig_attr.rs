//! rig's `#[rig_tool]` functions (style `rig-attr`).
//!
//! ```text
//! use rig_derive::rig_tool;
//!
//! #[rig_tool(description = "Post a message to a channel", params(channel = "the channel"))]
//! async fn post_message(channel: String, text: String) -> Result<String, ToolError> { .. }
//! ```
//!
//! The attribute (its last path segment after `use` resolution, also inside `cfg_attr`)
//! makes the function a tool, named by the function (or `name = ".."`) and described by
//! `description = ".."`. The macro generates a rig `Tool` impl for a struct named after the
//! function; the function's body is the tool's body.

/// The last path segment of rig's tool attribute.
pub const ATTR: &str = "rig_tool";

#[cfg(test)]
mod tests {
    use crate::frameworks::test_support::rows;

    #[test]
    fn a_rig_tool_function_is_a_tool() {
        let src = r#"
use rig_derive::rig_tool as tool_fn;

#[tool_fn(description = "Post a message to a channel")]
async fn post_message(channel: String, text: String) -> Result<String, ToolError> {
    reqwest::Client::new().post("https://chat.example/api").json(&text).send().await?;
    Ok(String::new())
}

#[rig_derive::rig_tool(name = "list_channels", description = "List channels")]
async fn channels() -> Result<Vec<String>, ToolError> {
    Ok(reqwest::get("https://chat.example/channels").await?.json().await?)
}

async fn helper(text: String) {}
"#;
        assert_eq!(
            rows(src),
            [
                (
                    "list_channels".into(),
                    "channels".into(),
                    "rig-attr".into(),
                    "Read".into()
                ),
                (
                    "post_message".into(),
                    "post_message".into(),
                    "rig-attr".into(),
                    "Write".into()
                ),
            ]
        );
    }
}
