//! rmcp's `ToolBase` + `AsyncTool` impls (style `rmcp-tool-base`).
//!
//! ```text
//! impl ToolBase for DeleteFile {
//!     type Parameter = DeleteArgs;
//!     fn name() -> Cow<'static, str> { "delete_file".into() }
//!     fn annotations() -> Option<ToolAnnotations> {
//!         Some(ToolAnnotations::new().destructive(true))
//!     }
//! }
//! impl AsyncTool<Server> for DeleteFile {
//!     async fn invoke(server: &Server, args: DeleteArgs) -> Result<.., ..> { .. }
//! }
//! ```
//!
//! One tool is assembled from two impls of a type, which may come in either order: the
//! `ToolBase` impl gives the name ([`tool_name`]: the first string literal of `fn name()`, or
//! the type's `const NAME` when `fn name()` returns it) and the hints ([`annotations_hints`]);
//! the `AsyncTool` (or `SyncTool`) impl gives the body ([`RUN_METHODS`]). The collector links
//! them at the end of the file; without a `ToolBase` impl the tool is named by the type's
//! `const NAME`, else by the type.

use proc_macro2::TokenTree;
use quote::ToTokens;

use idemcheck_spec::hints::ToolHints;

use super::first_lit_in_tokens;

/// Whether a trait (its last path segment) is rmcp's `ToolBase`: the tool's name and hints.
pub fn is_tool_base(trait_last: &str) -> bool {
    trait_last == "ToolBase"
}

/// Whether a trait (its last path segment) runs an rmcp `ToolBase` tool.
pub fn is_run_trait(trait_last: &str) -> bool {
    trait_last == "AsyncTool" || trait_last == "SyncTool"
}

/// The methods of the run trait that are the tool's body, in the order they are looked for.
pub const RUN_METHODS: &[&str] = &["invoke", "call"];

/// The tool name `fn name()` of a `ToolBase` impl gives: its first string literal, or, when
/// its body names `NAME`, the type's `const NAME` (`const_name`).
pub fn tool_name(name_fn: &syn::ImplItemFn, const_name: Option<&String>) -> Option<String> {
    first_lit_in_tokens(name_fn.block.to_token_stream()).or_else(|| {
        name_fn
            .block
            .to_token_stream()
            .to_string()
            .contains("NAME")
            .then(|| const_name.cloned())
            .flatten()
    })
}

/// Hints of an rmcp `fn annotations()` body: `ToolAnnotations::new().read_only(true)` builder
/// calls, or struct literals with `read_only_hint: Some(true)`.
pub fn annotations_hints(block: &syn::Block) -> ToolHints {
    hints_of_tokens(block.to_token_stream())
}

/// Hints written in tokens, as [`annotations_hints`] reads them: builder calls
/// (`.read_only(true)`) and struct fields (`read_only_hint: Some(true)`).
pub fn hints_of_tokens(tokens: proc_macro2::TokenStream) -> ToolHints {
    let mut hints = ToolHints::from_tokens(tokens.clone());
    fn scan(tokens: proc_macro2::TokenStream, hints: &mut ToolHints) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, t) in trees.iter().enumerate() {
            match t {
                TokenTree::Group(g) => scan(g.stream(), hints),
                TokenTree::Ident(id) => {
                    let slot = match id.to_string().as_str() {
                        "read_only" => &mut hints.read_only,
                        "destructive" => &mut hints.destructive,
                        "idempotent" => &mut hints.idempotent,
                        "open_world" => &mut hints.open_world,
                        _ => continue,
                    };
                    if let Some(TokenTree::Group(g)) = trees.get(i + 1) {
                        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                        if let [TokenTree::Ident(v)] = inner.as_slice() {
                            let value = match v.to_string().as_str() {
                                "true" => true,
                                "false" => false,
                                _ => continue,
                            };
                            *slot = Some(idemcheck_spec::attr::Spanned {
                                value,
                                span: v.span(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    scan(tokens, &mut hints);
    hints
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows;

    #[test]
    fn hints_from_builder_calls_and_struct_literals() {
        let block: syn::Block =
            syn::parse_str("{ Some(ToolAnnotations::new().read_only(true).open_world(false)) }")
                .unwrap();
        let h = annotations_hints(&block);
        assert_eq!(h.read_only.map(|v| v.value), Some(true));
        assert_eq!(h.open_world.map(|v| v.value), Some(false));
        assert!(h.destructive.is_none());
        let block: syn::Block = syn::parse_str(
            "{ Some(ToolAnnotations { destructive_hint: Some(true), ..Default::default() }) }",
        )
        .unwrap();
        assert_eq!(
            annotations_hints(&block).destructive.map(|v| v.value),
            Some(true)
        );
    }

    #[test]
    fn names_from_a_literal_or_the_name_const() {
        let f: syn::ImplItemFn =
            syn::parse_str("fn name() -> Cow<'static, str> { \"delete_file\".into() }").unwrap();
        assert_eq!(tool_name(&f, None).as_deref(), Some("delete_file"));
        let f: syn::ImplItemFn =
            syn::parse_str("fn name() -> Cow<'static, str> { Self::NAME.into() }").unwrap();
        assert_eq!(
            tool_name(&f, Some(&"from_const".to_string())).as_deref(),
            Some("from_const")
        );
        assert_eq!(tool_name(&f, None), None);
    }

    #[test]
    fn a_tool_base_and_its_async_tool_are_one_tool_in_either_order() {
        let src = r#"
pub struct DeleteFile;
impl AsyncTool<Server> for DeleteFile {
    async fn invoke(server: &Server, args: DeleteArgs) -> Result<(), E> {
        std::fs::remove_file(&args.path).ok();
        Ok(())
    }
}
impl ToolBase for DeleteFile {
    type Parameter = DeleteArgs;
    fn name() -> Cow<'static, str> { "delete_file".into() }
}

pub struct ReadFile;
impl ToolBase for ReadFile {
    fn name() -> Cow<'static, str> { "read_file".into() }
    fn annotations() -> Option<ToolAnnotations> { Some(ToolAnnotations::new().read_only(true)) }
}
impl SyncTool<Server> for ReadFile {
    fn call(server: &Server, args: ReadArgs) -> Result<String, E> {
        Ok(std::fs::read_to_string(&args.path)?)
    }
}

pub struct Unnamed;
impl AsyncTool<Server> for Unnamed {
    async fn invoke(server: &Server, args: A) -> Result<(), E> { Ok(()) }
}
"#;
        assert_eq!(
            rows(src),
            [
                (
                    "Unnamed".into(),
                    "Unnamed::invoke".into(),
                    "rmcp-tool-base".into(),
                    "Unknown".into()
                ),
                (
                    "delete_file".into(),
                    "DeleteFile::invoke".into(),
                    "rmcp-tool-base".into(),
                    "Write".into()
                ),
                (
                    "read_file".into(),
                    "ReadFile::call".into(),
                    "rmcp-tool-base".into(),
                    "Read".into()
                ),
            ]
        );
    }
}
