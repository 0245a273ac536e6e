//! MCP tool hints (`read_only_hint`, `destructive_hint`, `idempotent_hint`,
//! `open_world_hint`) as written in the attributes of real MCP frameworks:
//!
//! - rmcp: `#[tool(name = "..", annotations(read_only_hint = true, ..))]`;
//! - rmcp, older releases: `annotations = { readOnlyHint: true }` or a `ToolAnnotations`
//!   struct literal with `read_only_hint: Some(true)`;
//! - rust-mcp-sdk: `#[mcp_tool(name = "..", read_only_hint = true, ..)]`.
//!
//! The reader is deliberately tolerant: it scans the attribute's tokens for the hint names
//! in either spelling, followed by `=` or `:` and `true`, `false` or `Some(..)`.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use crate::attr::Spanned;

/// The attribute a `#[side_effect]` function takes its MCP hints (and public name) from:
/// the first of rmcp's and look-alikes' `#[tool(..)]`, rust-mcp-sdk's `#[mcp_tool(..)]`,
/// rig's `#[rig_tool(..)]`, or a tool attribute the configuration names
/// (`tool_attributes`, matched by last segment). Decided here once: the macro and the lint
/// both call it, so they read the same hints and name the tool alike.
pub fn hint_attribute<'a>(
    attrs: &'a [syn::Attribute],
    config: &crate::config::Config,
) -> Option<&'a syn::Attribute> {
    attrs.iter().find(|a| {
        let Some(last) = a.path().segments.last() else {
            return false;
        };
        last.ident == "tool"
            || last.ident == "mcp_tool"
            || last.ident == "rig_tool"
            || config
                .tool_attributes
                .iter()
                .any(|c| c.rsplit("::").next().is_some_and(|l| last.ident == l))
    })
}

/// Hints a tool declares.
#[derive(Debug, Clone, Default)]
pub struct ToolHints {
    /// `name = ".."` at the top level of the attribute.
    pub name: Option<Spanned<()>>,
    /// The name's text.
    pub name_text: Option<String>,
    /// `description = ".."` at the top level.
    pub description: Option<String>,
    /// `read_only_hint`.
    pub read_only: Option<Spanned<bool>>,
    /// `destructive_hint`.
    pub destructive: Option<Spanned<bool>>,
    /// `idempotent_hint`.
    pub idempotent: Option<Spanned<bool>>,
    /// `open_world_hint`.
    pub open_world: Option<Spanned<bool>>,
}

impl ToolHints {
    /// Read the hints out of an attribute's argument tokens.
    pub fn from_tokens(tokens: TokenStream) -> Self {
        let mut hints = ToolHints::default();
        hints.scan(tokens, true);
        hints
    }

    /// Read the hints of an attribute (`#[tool(...)]`, `#[mcp_tool(...)]`).
    pub fn from_attribute(attr: &syn::Attribute) -> Self {
        match &attr.meta {
            syn::Meta::List(list) => Self::from_tokens(list.tokens.clone()),
            _ => ToolHints::default(),
        }
    }

    /// Whether any hint is declared.
    pub fn any(&self) -> bool {
        self.read_only.is_some()
            || self.destructive.is_some()
            || self.idempotent.is_some()
            || self.open_world.is_some()
    }

    fn scan(&mut self, tokens: TokenStream, top: bool) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.scan(g.stream(), false),
                TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    let sep = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=' || p.as_char() == ':');
                    if sep {
                        if let Some((value, span, used)) = bool_value(&trees[i + 2..]) {
                            let slot = match name.as_str() {
                                "read_only_hint" | "readOnlyHint" => Some(&mut self.read_only),
                                "destructive_hint" | "destructiveHint" => {
                                    Some(&mut self.destructive)
                                }
                                "idempotent_hint" | "idempotentHint" => Some(&mut self.idempotent),
                                "open_world_hint" | "openWorldHint" => Some(&mut self.open_world),
                                _ => None,
                            };
                            if let Some(slot) = slot {
                                *slot = Some(Spanned { value, span });
                                i += 2 + used;
                                continue;
                            }
                        }
                        if top
                            && (name == "name" || name == "description")
                            && let Some(TokenTree::Literal(lit)) = trees.get(i + 2)
                            && let Ok(s) =
                                syn::parse2::<syn::LitStr>(TokenTree::Literal(lit.clone()).into())
                        {
                            if name == "name" {
                                self.name = Some(Spanned {
                                    value: (),
                                    span: lit.span(),
                                });
                                self.name_text = Some(s.value());
                            } else {
                                self.description = Some(s.value());
                            }
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// `true`, `false`, `Some(true)`, `Some(false)`: the value, its span and how many trees it used.
fn bool_value(trees: &[TokenTree]) -> Option<(bool, Span, usize)> {
    match trees.first()? {
        TokenTree::Ident(i) if i == "true" => Some((true, i.span(), 1)),
        TokenTree::Ident(i) if i == "false" => Some((false, i.span(), 1)),
        TokenTree::Ident(i) if i == "Some" => match trees.get(1)? {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let (v, span, _) = bool_value(&inner)?;
                Some((v, span, 2))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_attribute_is_the_first_tool_like_or_configured_one() {
        let f: syn::ItemFn = syn::parse_str(
            r#"#[doc = "x"] #[tracing::instrument] #[agent_sdk::expose(read_only_hint = true)] #[rmcp::tool(name = "t")] fn f() {}"#,
        )
        .unwrap();
        let plain = crate::config::Config::default();
        let hint = hint_attribute(&f.attrs, &plain).expect("rmcp tool");
        assert!(hint.path().segments.last().unwrap().ident == "tool");
        let configured = crate::config::Config {
            tool_attributes: vec!["agent_sdk::expose".into()],
            ..crate::config::Config::default()
        };
        let hint = hint_attribute(&f.attrs, &configured).expect("configured");
        assert!(hint.path().segments.last().unwrap().ident == "expose");
        let none: syn::ItemFn = syn::parse_str("#[inline] fn g() {}").unwrap();
        assert!(hint_attribute(&none.attrs, &plain).is_none());
    }

    fn hints(src: &str) -> ToolHints {
        ToolHints::from_tokens(src.parse().unwrap())
    }

    #[test]
    fn rmcp_current_syntax() {
        let h = hints(
            r#"name = "charge", description = "Charge", annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true)"#,
        );
        assert_eq!(h.name_text.as_deref(), Some("charge"));
        assert!(!h.read_only.unwrap().value);
        assert!(h.destructive.unwrap().value);
        assert!(h.idempotent.unwrap().value);
        assert!(h.open_world.is_none());
    }

    #[test]
    fn rmcp_legacy_and_struct_literal_syntax() {
        let h = hints(
            r#"description = "x", annotations = { readOnlyHint: true, openWorldHint: false }"#,
        );
        assert!(h.read_only.unwrap().value);
        assert!(!h.open_world.unwrap().value);
        let h = hints(
            r#"annotations = ToolAnnotations { read_only_hint: Some(true), ..Default::default() }"#,
        );
        assert!(h.read_only.unwrap().value);
    }

    #[test]
    fn rust_mcp_sdk_top_level_hints() {
        let h = hints(
            r#"name = "send", description = "..", destructive_hint = false, idempotent_hint = false, read_only_hint = false"#,
        );
        assert!(!h.idempotent.unwrap().value);
        assert!(h.any());
    }

    #[test]
    fn nested_names_are_not_the_tool_name() {
        let h = hints(r#"annotations(title = "T", name = "inner")"#);
        assert!(h.name_text.is_none());
    }
}
