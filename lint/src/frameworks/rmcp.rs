//! rmcp's `#[tool]` methods and functions (style `rmcp`).
//!
//! ```text
//! use rmcp::{tool, tool_router};
//!
//! #[tool_router]
//! impl Billing {
//!     #[tool(description = "Refund a charge", annotations(destructive_hint = true))]
//!     async fn refund_charge(&self, Parameters(args): Parameters<RefundArgs>) -> .. { .. }
//! }
//! ```
//!
//! A `#[tool]` is rmcp's when its path resolves to `rmcp` through `use` items, or when it is
//! written bare in a router impl ([`is_router_attr`]: rmcp's `#[tool_router]`, the legacy
//! `#[tool(tool_box)]`, mcp-attr's `#[mcp_server] impl McpServer for ..`) or in a file (or
//! inline module) that imports from rmcp ([`use_is_rmcp`]). swiftide's `#[tool]` is decided
//! first ([`super::swiftide::is_tool_attr`]); another crate's `#[tool]` is
//! [`super::tool_attr`]'s. The tool is the method, named by `name = ".."` or the function;
//! its hints (`annotations(read_only_hint = ..)`, legacy `annotations = { readOnlyHint: .. }`)
//! are read by [`idemcheck_spec::hints::ToolHints::from_attribute`].

use syn::{Attribute, Meta};

/// Whether a `use` tree whose first name is `root` (`rmcp` in `use rmcp::{tool, ..}`) imports
/// from rmcp.
pub fn use_is_rmcp(root: &str) -> bool {
    root.starts_with("rmcp")
}

/// Whether a `#[tool]` attribute (last segment `tool`, path resolved through `use`, not
/// swiftide's) is rmcp's: rooted in `rmcp`, or bare inside a router impl (`router`) or in a
/// file that imports from rmcp (`uses_rmcp`).
pub fn is_tool_attr(resolved: &[String], router: bool, uses_rmcp: bool) -> bool {
    resolved[0] == "rmcp" || (resolved.len() == 1 && (router || uses_rmcp))
}

/// Whether an attribute of an impl makes its `#[tool]` methods rmcp tools: `#[tool_router]`,
/// mcp-attr's `#[mcp_server]`, or rmcp's legacy `#[tool(tool_box)]`. `a` is one of the impl's
/// attributes with `cfg_attr` expanded.
pub fn is_router_attr(a: &Attribute) -> bool {
    let last = a.path().segments.last().map(|s| s.ident.to_string());
    match last.as_deref() {
        // rmcp's `#[tool_router]`; mcp-attr's `#[mcp_server] impl McpServer for ..`.
        Some("tool_router") | Some("mcp_server") => true,
        Some("tool") => {
            matches!(&a.meta, Meta::List(l) if l.tokens.to_string().contains("tool_box"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows;

    fn segs(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rmcp_tool_attributes_by_path_router_or_import() {
        assert!(is_tool_attr(&segs(&["rmcp", "tool"]), false, false));
        assert!(is_tool_attr(&segs(&["tool"]), true, false));
        assert!(is_tool_attr(&segs(&["tool"]), false, true));
        assert!(!is_tool_attr(&segs(&["tool"]), false, false));
        assert!(!is_tool_attr(&segs(&["riglr_macros", "tool"]), true, true));
        assert!(use_is_rmcp("rmcp"));
        assert!(!use_is_rmcp("serde"));
    }

    #[test]
    fn router_attributes() {
        let attr = |s: &str| -> Attribute {
            let item: syn::ItemImpl = syn::parse_str(&format!("{s} impl S {{}}")).unwrap();
            item.attrs[0].clone()
        };
        assert!(is_router_attr(&attr("#[tool_router]")));
        assert!(is_router_attr(&attr("#[rmcp::tool_router(router = r)]")));
        assert!(is_router_attr(&attr("#[mcp_server]")));
        assert!(is_router_attr(&attr("#[tool(tool_box)]")));
        assert!(!is_router_attr(&attr("#[tool]")));
        assert!(!is_router_attr(&attr("#[derive(Clone)]")));
    }

    #[test]
    fn tool_methods_of_a_router_and_of_an_rmcp_file() {
        let router = r#"
pub struct Billing { http: reqwest::Client }
#[tool_router]
impl Billing {
    #[tool(description = "Refund a charge")]
    async fn refund_charge(&self, id: String) {
        self.http.post("https://pay.example/refunds").send().await.ok();
    }
    #[tool(name = "get_charge", description = "Read a charge", annotations(read_only_hint = true))]
    async fn charge(&self, id: String) {
        self.http.get("https://pay.example/charges").send().await.ok();
    }
}
"#;
        assert_eq!(
            rows(router),
            [
                (
                    "get_charge".into(),
                    "Billing::charge".into(),
                    "rmcp".into(),
                    "Read".into()
                ),
                (
                    "refund_charge".into(),
                    "Billing::refund_charge".into(),
                    "rmcp".into(),
                    "Write".into()
                ),
            ]
        );
        // Outside a router, a bare `#[tool]` is rmcp's when the file imports from rmcp.
        let free = "use rmcp::model::CallToolResult;\n#[tool(description = \"Wipe\")]\nasync fn wipe() { std::fs::remove_dir_all(\"/tmp/x\").ok(); }\n";
        assert_eq!(
            rows(free),
            [("wipe".into(), "wipe".into(), "rmcp".into(), "Write".into())]
        );
        // Without either, it is another crate's `#[tool]` (`tool-attr`).
        let other = "#[tool(description = \"Wipe\")]\nasync fn wipe() { std::fs::remove_dir_all(\"/tmp/x\").ok(); }\n";
        assert_eq!(rows(other)[0].2, "tool-attr");
    }
}
