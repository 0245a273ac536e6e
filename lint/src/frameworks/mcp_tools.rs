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
//! by the method ([`is_tools_impl`], [`is_tool_method`]); so is every method taking `self`
//! of one marked by poem-mcpserver's `#[Tools]`; a method that carries its own
//! `#[tool]` is left to that attribute. The collector hands such a method on as if it were
//! written with the marker attribute [`METHOD_MARKER`], which the attribute classification
//! ([`super::attr_mark`]) reads as this style.

/// The synthetic attribute the collector puts on a public method of a `#[mcp_tools]` impl.
pub const METHOD_MARKER: &str = "mcp_tools_method";

/// Which methods of an impl are tools by the impl's attribute: pulseengine's `#[mcp_tools]`
/// makes its public methods tools, poem-mcpserver's `#[Tools]` every method that takes
/// `self` (`#[Tools] impl McpSSHCommands { async fn ssh_connect(&self, ..) }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsImpl {
    /// `#[mcp_tools]`: the public methods.
    Public,
    /// `#[Tools]`: every method with a receiver.
    Every,
}

/// Whether an impl is a tools impl (inherent, no trait) and which of its methods are tools.
pub fn is_tools_impl(i: &syn::ItemImpl) -> Option<ToolsImpl> {
    if i.trait_.is_some() {
        return None;
    }
    i.attrs.iter().find_map(|a| {
        let last = a.path().segments.last()?;
        if last.ident == "mcp_tools" {
            Some(ToolsImpl::Public)
        } else if last.ident == "Tools" {
            Some(ToolsImpl::Every)
        } else {
            None
        }
    })
}

/// Whether a method of a tools impl is a tool by itself: one the impl's attribute makes a
/// tool, without a `#[tool]` of its own.
pub fn is_tool_method(f: &syn::ImplItemFn, kind: ToolsImpl) -> bool {
    let by_kind = match kind {
        ToolsImpl::Public => matches!(f.vis, syn::Visibility::Public(_)),
        ToolsImpl::Every => f.sig.receiver().is_some(),
    };
    by_kind && !f.attrs.iter().any(|a| a.path().is_ident("tool"))
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

    /// poem-mcpserver's `#[Tools]`: every method taking `self` is a tool, public or not.
    #[test]
    fn methods_of_a_poem_tools_impl_are_tools() {
        let src = r#"
use poem_mcpserver::Tools;

pub struct Ssh;

#[Tools]
impl Ssh {
    /// Open a session.
    async fn ssh_connect(&self, address: String) -> String {
        std::fs::write("sessions", address).unwrap();
        String::new()
    }
    /// List the sessions.
    async fn ssh_list_sessions(&self) -> String { std::fs::read_to_string("sessions").unwrap() }
    fn parse(text: &str) -> usize { text.len() }
}
"#;
        let kinds: Vec<(String, String)> = rows(src)
            .into_iter()
            .map(|(name, _, _, kind)| (name, kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("ssh_connect".to_string(), "Write".to_string()),
                ("ssh_list_sessions".to_string(), "Read".to_string()),
            ]
        );
    }
}
