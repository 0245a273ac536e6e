//! pulseengine's `#[mcp_tools]` impls (style `mcp-tools`).
//!
//! ```text
//! use pulseengine_mcp_macros::{mcp_server, mcp_tools};
//!
//! #[mcp_tools]
//! impl NotesServer {
//!     /// Append a note.
//!     pub async fn add_note(&self, text: String) -> anyhow::Result<String> { .. }
//!     fn helper(&self) { .. }   // not public: not a tool
//! }
//! ```
//!
//! Every public method of an inherent impl marked `#[mcp_tools]` is a tool as it is, named
//! by the method ([`is_tools_impl`], [`is_tool_method`]); a method that carries its own
//! `#[tool]` is left to that attribute. The collector hands such a method on as if it were
//! written with the marker attribute [`METHOD_MARKER`], which the attribute classification
//! ([`super::attr_mark`]) reads as this style.

/// The synthetic attribute the collector puts on a public method of a `#[mcp_tools]` impl.
pub const METHOD_MARKER: &str = "mcp_tools_method";

/// Whether an impl is pulseengine's `#[mcp_tools] impl T`: inherent (no trait), with an
/// attribute whose last segment is `mcp_tools`.
pub fn is_tools_impl(i: &syn::ItemImpl) -> bool {
    i.trait_.is_none()
        && i.attrs.iter().any(|a| {
            a.path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "mcp_tools")
        })
}

/// Whether a method of a `#[mcp_tools]` impl is a tool by itself: public, without a
/// `#[tool]` of its own.
pub fn is_tool_method(f: &syn::ImplItemFn) -> bool {
    matches!(f.vis, syn::Visibility::Public(_))
        && !f.attrs.iter().any(|a| a.path().is_ident("tool"))
}

/// The method's attributes with [`METHOD_MARKER`] added.
pub fn marked(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    let mut attrs = attrs.to_vec();
    attrs.push(syn::parse_quote!(#[mcp_tools_method]));
    attrs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows;

    #[test]
    fn marker_attribute_is_the_marker_constant() {
        let attrs = marked(&[]);
        assert!(attrs[0].path().is_ident(METHOD_MARKER));
    }

    #[test]
    fn public_methods_of_an_mcp_tools_impl_are_tools() {
        let src = r#"
use pulseengine_mcp_macros::mcp_tools;

pub struct NotesServer;

#[mcp_tools]
impl NotesServer {
    /// Append a note.
    pub async fn add_note(&self, text: String) -> anyhow::Result<String> {
        std::fs::write("notes.txt", text)?;
        Ok(String::new())
    }
    /// Read the notes.
    pub async fn read_notes(&self) -> anyhow::Result<String> {
        Ok(std::fs::read_to_string("notes.txt")?)
    }
    fn helper(&self) { std::fs::remove_file("notes.txt").ok(); }
}

impl NotesServer {
    pub fn not_a_tool(&self) { std::fs::remove_file("x").ok(); }
}
"#;
        assert_eq!(
            rows(src),
            [
                (
                    "add_note".into(),
                    "NotesServer::add_note".into(),
                    "mcp-tools".into(),
                    "Write".into()
                ),
                (
                    "read_notes".into(),
                    "NotesServer::read_notes".into(),
                    "mcp-tools".into(),
                    "Read".into()
                ),
            ]
        );
    }
}
