//! Tool registries (style `tool-registry`).
//!
//! ```text
//! pub fn create_registry() -> ToolRegistry {
//!     let mut registry = ToolRegistry::new();
//!     registry.register(
//!         "list_instances",
//!         "List all configured instances and their health.",
//!         json!({ "type": "object" }),
//!         system::list_instances,
//!     );
//!     registry
//! }
//! ```
//!
//! A method call `register(..)` or `register_tool(..)` with at least three arguments, a
//! tool-like name first and a description second, registers a tool whose handler is the last
//! argument: a closure (its body is the tool's body, recorded as a function of its own) or a
//! path to a function (which the tool's body calls), as for
//! [`super::function_tool`]'s `FunctionTool::new`, whose scan ([`super::function_tool::find`])
//! finds both. The name must read as a tool name (one word, no spaces) and the second argument
//! as prose (a description with spaces), so that an event bus's `bus.register("topic", "x",
//! handler)` is not taken for a tool. Registry entries that repeat a tool defined in another
//! style are dropped ([`super::drop_repeated`]).

use syn::Expr;

use super::function_tool::{FunctionTool, from_args};
use super::str_lit;

/// Methods of a tool registry that register a tool.
const REGISTER_METHODS: &[&str] = &["register", "register_tool"];

/// The tool a registry call registers, if it is one: `registry.register("name", "A
/// description.", schema, handler)`.
pub fn of_method_call(m: &syn::ExprMethodCall) -> Option<FunctionTool<'_>> {
    if m.args.len() < 3 || !REGISTER_METHODS.iter().any(|r| m.method == r) {
        return None;
    }
    let args: Vec<&Expr> = m.args.iter().collect();
    let name = str_lit(args[0])?.0;
    let description = str_lit(args[1])?.0;
    let tool_like = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    if !tool_like || !description.trim().contains(' ') {
        return None;
    }
    let t = from_args(&args, true)?;
    t.handler.is_some().then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows as inventory;

    #[test]
    fn registrations_need_a_tool_name_prose_and_a_handler() {
        let call = |s: &str| syn::parse_str::<syn::ExprMethodCall>(s).unwrap();
        let m =
            call(r#"registry.register("list_instances", "List all instances.", json!({}), list)"#);
        let t = of_method_call(&m).expect("a registry entry");
        assert_eq!(t.name, "list_instances");
        assert!(t.registry);
        for not in [
            r#"bus.register("user.created", "x", on_user_created)"#,
            r#"registry.register("Hello world", "Says hello to the world.", json!({}), hello)"#,
            r#"registry.register("list", "List all instances.", json!({}), make())"#,
            r#"registry.add("list", "List all instances.", json!({}), list)"#,
        ] {
            assert!(of_method_call(&call(not)).is_none(), "{not}");
        }
    }

    #[test]
    fn tool_registry_entries_are_tools() {
        // syncthing-mcp-rs: `registry.register(name, description, schema, handler)`.
        let src = r#"
pub mod system {
    pub async fn list_instances(c: Client, cfg: AppConfig, a: Value) -> Result<Value> {
        Ok(std::fs::read_to_string("instances")?.into())
    }
}
pub fn create_registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(
        "list_instances",
        "List all configured instances and their health.",
        serde_json::json!({ "type": "object" }),
        system::list_instances,
    );
    registry.register(
        "delete_conflict",
        "Delete a conflict file.",
        serde_json::json!({ "type": "object" }),
        |c, cfg, a| async move { std::fs::remove_file("conflict")?; Ok(Value::Null) },
    );
    // Not tools: an event bus's topic, a registration without a description in prose.
    bus.register("user.created", "x", on_user_created);
    registry.register("Hello world", "Says hello to the world.", json!({}), hello);
    registry
}
"#;
        assert_eq!(
            inventory(src)
                .into_iter()
                .map(|(n, _, style, kind)| (n, style, kind))
                .collect::<Vec<_>>(),
            [
                (
                    "delete_conflict".into(),
                    "tool-registry".into(),
                    "Write".into()
                ),
                (
                    "list_instances".into(),
                    "tool-registry".into(),
                    "Read".into()
                ),
            ]
        );
    }
}
