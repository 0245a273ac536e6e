//! swiftide tools (style `swiftide`).
//!
//! ```text
//! #[swiftide::tool(description = "Search the code", param(name = "query", description = ".."))]
//! async fn search_code(context: &dyn AgentContext, query: &str) -> Result<ToolOutput, ToolError> { .. }
//!
//! #[derive(Clone, Tool)]
//! #[tool(description = "Reset a file", param(name = "path", description = ".."))]
//! struct ResetFile;
//! impl ResetFile {
//!     async fn reset_file(&self, context: &dyn AgentContext, path: &str) -> Result<..> { .. }
//! }
//! ```
//!
//! - `#[swiftide::tool(description = "..", param(..))]` (or `#[tool(..)]` with `use
//!   swiftide::tool`) on a free async function: the tool is the function, named by it (or
//!   by `name = ".."`).
//! - `#[derive(Tool)]` (swiftide's) on a struct with a `#[tool(..)]` attribute: the derive
//!   implements `Tool::invoke` by calling `self.<fn_name>(context, args..)`, where `fn_name`
//!   is `fn_name = ".."` of the attribute or else the struct's name in snake case
//!   (`ResetFile` → `reset_file`); the tool's name is `name = ".."` or that same snake-case
//!   name (swiftide-macros, `ToolArgs::with_name_from_ident`).
//!
//! A bare `#[tool]` is swiftide's when the path resolves into a `swiftide*` crate, or when
//! it does not resolve and the file imports swiftide but not rmcp (rmcp's `#[tool]` is told
//! apart the same way, by the file's `use` of rmcp).

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ItemStruct, Meta, Token};

use super::{snake_case, str_lit};

/// Whether a resolved path is rooted in a swiftide crate (`swiftide`, `swiftide_macros`,
/// `swiftide_agents`, ...).
pub fn is_swiftide_path(resolved: &[String]) -> bool {
    resolved
        .first()
        .is_some_and(|f| f == "swiftide" || f.starts_with("swiftide_"))
}

/// Whether a `use` tree whose first name is `first` (`swiftide` in
/// `use ::swiftide::{Tool, tool}`) starts in a swiftide crate.
pub fn use_is_swiftide(first: &str) -> bool {
    first.starts_with("swiftide")
}

/// Whether a `#[tool]` attribute (path resolved through `use`) is swiftide's.
pub fn is_tool_attr(
    resolved: &[String],
    router: bool,
    uses_swiftide: bool,
    uses_rmcp: bool,
) -> bool {
    if is_swiftide_path(resolved) {
        return true;
    }
    resolved.len() == 1 && !router && uses_swiftide && !uses_rmcp
}

/// The top-level `key = "value"` entries of a swiftide `#[tool(..)]` attribute that matter
/// here.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ToolArgs {
    /// `name = ".."`.
    pub name: Option<String>,
    /// `description = ".."`.
    pub description: Option<String>,
    /// `fn_name = ".."` (derive only: the method the derive calls).
    pub fn_name: Option<String>,
}

impl ToolArgs {
    /// Read an attribute's arguments; `param(..)` groups and other entries are skipped.
    pub fn of(attr: &Attribute) -> ToolArgs {
        let mut out = ToolArgs::default();
        let Meta::List(list) = &attr.meta else {
            return out;
        };
        let Ok(metas) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        else {
            return out;
        };
        for m in metas {
            let Meta::NameValue(nv) = m else { continue };
            let value = match &nv.value {
                Expr::Lit(_) => str_lit(&nv.value).map(|p| p.0),
                _ => None,
            };
            if nv.path.is_ident("name") {
                out.name = value;
            } else if nv.path.is_ident("description") {
                out.description = value;
            } else if nv.path.is_ident("fn_name") {
                out.fn_name = value;
            }
        }
        out
    }
}

/// A struct with swiftide's `#[derive(Tool)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedTool {
    /// The tool's public name.
    pub name: String,
    /// The method of the struct `invoke` calls.
    pub method: String,
    /// `description = ".."`.
    pub description: Option<String>,
}

/// The swiftide tool a struct derives, if any. `resolve` resolves a path through the file's
/// `use` items.
pub fn derived_tool(
    s: &ItemStruct,
    resolve: impl Fn(&syn::Path) -> Vec<String>,
    uses_swiftide: bool,
) -> Option<DerivedTool> {
    let derives_tool = s.attrs.iter().any(|a| {
        if !a.path().is_ident("derive") {
            return false;
        }
        let Ok(paths) = a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
        else {
            return false;
        };
        paths.iter().any(|p| {
            let resolved = resolve(p);
            resolved.last().is_some_and(|l| l == "Tool")
                && (is_swiftide_path(&resolved) || (resolved.len() == 1 && uses_swiftide))
        })
    });
    if !derives_tool {
        return None;
    }
    let args = s
        .attrs
        .iter()
        .find(|a| a.path().is_ident("tool"))
        .map(ToolArgs::of)
        .unwrap_or_default();
    let snake = snake_case(&s.ident.to_string());
    Some(DerivedTool {
        name: args.name.unwrap_or_else(|| snake.clone()),
        method: args.fn_name.unwrap_or(snake),
        description: args.description,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_sources;
    use idemcheck_spec::config::Config;

    fn inventory(src: &str) -> Vec<(String, String, String, String)> {
        crate::analysis::inventory_rows(&[("src/lib.rs", src)])
    }

    #[test]
    fn attribute_arguments() {
        let s: ItemStruct = syn::parse_str(
            r#"#[derive(Tool, Clone)]
            #[tool(description = "Resets", fn_name = "do_reset", param(name = "file", description = "f"))]
            struct ResetFile;"#,
        )
        .unwrap();
        let resolve = |p: &syn::Path| vec![p.segments.last().unwrap().ident.to_string()];
        let d = derived_tool(&s, resolve, true).unwrap();
        assert_eq!(d.name, "reset_file");
        assert_eq!(d.method, "do_reset");
        assert_eq!(d.description.as_deref(), Some("Resets"));
        // Without swiftide in the file, a bare `Tool` derive is someone else's.
        assert!(derived_tool(&s, resolve, false).is_none());
    }

    #[test]
    fn tool_attr_is_told_from_rmcp() {
        let seg = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(is_tool_attr(
            &seg(&["swiftide", "tool"]),
            false,
            false,
            false
        ));
        assert!(is_tool_attr(
            &seg(&["swiftide_macros", "tool"]),
            false,
            false,
            true
        ));
        assert!(is_tool_attr(&seg(&["tool"]), false, true, false));
        assert!(!is_tool_attr(&seg(&["tool"]), false, true, true));
        assert!(!is_tool_attr(&seg(&["tool"]), true, true, false));
        assert!(!is_tool_attr(&seg(&["rmcp", "tool"]), false, true, false));
        assert!(use_is_swiftide("swiftide"));
        assert!(use_is_swiftide("swiftide_core"));
        assert!(!use_is_swiftide("rmcp"));
    }

    #[test]
    fn free_functions_and_derived_structs() {
        let src = r#"
use swiftide::{Tool, tool};
use swiftide::traits::{AgentContext, Command};

#[tool(
    description = "Run a shell command",
    param(name = "cmd", description = "The command")
)]
pub async fn shell_command(context: &dyn AgentContext, cmd: &str) -> Result<ToolOutput, ToolError> {
    let out = std::process::Command::new("sh").arg("-c").arg(cmd).output()?;
    Ok(out.into())
}

#[swiftide::tool(name = "peek", description = "Reads a file")]
pub async fn read_file(context: &dyn AgentContext, path: &str) -> Result<ToolOutput, ToolError> {
    Ok(std::fs::read_to_string(path)?.into())
}

#[derive(Tool, Clone)]
#[tool(description = "Reset a file", param(name = "file_name", description = "Path"))]
pub struct ResetFile {
    start: String,
}

impl ResetFile {
    pub async fn reset_file(&self, context: &dyn AgentContext, file_name: &str) -> Result<ToolOutput, ToolError> {
        std::fs::remove_file(file_name)?;
        Ok("ok".into())
    }
}

#[derive(Tool, Clone)]
#[tool(description = "Open a pull request", fn_name = "open")]
pub struct CreatePullRequest {
    http: reqwest::Client,
}
"#;
        assert_eq!(
            inventory(src),
            [
                (
                    "create_pull_request".into(),
                    "CreatePullRequest::open".into(),
                    "swiftide".into(),
                    "Write".into()
                ),
                (
                    "peek".into(),
                    "read_file".into(),
                    "swiftide".into(),
                    "Read".into()
                ),
                (
                    "reset_file".into(),
                    "ResetFile::reset_file".into(),
                    "swiftide".into(),
                    "Write".into()
                ),
                (
                    "shell_command".into(),
                    "shell_command".into(),
                    "swiftide".into(),
                    "Write".into()
                ),
            ]
        );
    }

    #[test]
    fn derived_tool_body_in_another_file_is_followed() {
        let lib = r#"
use swiftide::Tool;
mod imp;
#[derive(Tool)]
#[tool(description = "Delete a branch")]
pub struct DeleteBranch { repo: String }
"#;
        let imp = r#"
use super::DeleteBranch;
impl DeleteBranch {
    async fn delete_branch(&self, _c: &dyn AgentContext) -> Result<ToolOutput, ToolError> {
        std::fs::remove_dir_all(&self.repo)?;
        Ok("ok".into())
    }
}
"#;
        let a = analyze_sources(
            &[("src/lib.rs", lib), ("src/imp.rs", imp)],
            Config::default(),
        );
        let t = a
            .report
            .tools
            .iter()
            .find(|t| t.name == "delete_branch")
            .unwrap();
        assert_eq!(t.style, "swiftide");
        assert_eq!(format!("{:?}", t.kind), "Write");
    }

    #[test]
    fn rmcp_tool_attribute_stays_rmcp() {
        let src = r#"
use rmcp::tool;
use swiftide::Tool;
struct S;
#[rmcp::tool_router]
impl S {
    #[tool(description = "x")]
    async fn ping(&self) -> String { String::new() }
}
"#;
        let got = inventory(src);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].2, "rmcp");
    }
}
