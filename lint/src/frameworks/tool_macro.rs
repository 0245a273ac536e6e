//! A crate's own catalogue macro of tools (style `tool-registry`).
//!
//! ```text
//! tools! {
//!     /// Report the state of the local node and the peers it knows about.
//!     tailscale_status => StatusParams, status,
//!         toolset: LocalStatus, tier: Read, idempotent: true;
//!     /// Log this node out of the tailnet.
//!     tailscale_logout => LogoutParams, handlers::logout, toolset: LocalStatus, tier: Write;
//! }
//! ```
//!
//! A crate that declares its tools through a `macro_rules!` of its own writes one row per
//! tool; what the macro makes of a row the walk cannot see, but the row says it: a tool's
//! name, then (after `=>`) the path of the function that runs it. A bang macro named for
//! tools (`tools!`, `define_tools!`, `tool!`) whose rows, separated by `;`, each read `name
//! => .., path::to::handler, ..` defines a tool per row, run by that function; the row's doc
//! comments are its description.

use proc_macro2::{Delimiter, Spacing, Span, TokenTree};

/// One row of a catalogue macro.
#[derive(Debug, Clone)]
pub struct Row {
    /// The tool's name, as the row writes it.
    pub name: String,
    /// Where the name is written.
    pub span: Span,
    /// The path of the function that runs it (`status`, `handlers::status`).
    pub handler: syn::Path,
    /// The row's doc comments, joined.
    pub description: Option<String>,
}

/// Whether a macro so named may be a catalogue of tools (`tools`, `define_tools`,
/// `register_tool`): its name has the word `tool` or `tools`.
pub fn named_for_tools(name: &str) -> bool {
    name.split('_').any(|w| w == "tool" || w == "tools")
}

/// The rows of a catalogue macro's tokens; none when any row does not read as one.
pub fn rows(tokens: proc_macro2::TokenStream) -> Vec<Row> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    for row in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';')) {
        if row.is_empty() {
            continue;
        }
        match parse_row(row) {
            Some(r) => out.push(r),
            None => return Vec::new(),
        }
    }
    out
}

fn parse_row(row: &[TokenTree]) -> Option<Row> {
    let mut i = 0;
    let mut docs = Vec::new();
    // `/// ..` is `# [doc = ".."]`.
    while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) = (row.get(i), row.get(i + 1))
    {
        if p.as_char() != '#' || g.delimiter() != Delimiter::Bracket {
            break;
        }
        if let Ok(syn::Meta::NameValue(nv)) = syn::parse2::<syn::Meta>(g.stream())
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            docs.push(s.value().trim().to_string());
        }
        i += 2;
    }
    let TokenTree::Ident(name) = row.get(i)? else {
        return None;
    };
    // `=>`
    match (row.get(i + 1)?, row.get(i + 2)?) {
        (TokenTree::Punct(a), TokenTree::Punct(b))
            if a.as_char() == '=' && a.spacing() == Spacing::Joint && b.as_char() == '>' => {}
        _ => return None,
    }
    let handler = first_fn_path(&row[i + 3..])?;
    Some(Row {
        name: name.to_string(),
        span: name.span(),
        handler,
        description: (!docs.is_empty()).then(|| docs.join(" ")),
    })
}

/// The first item after `=>` (items separated by `,`) that is only a path whose last
/// segment names a function (lower case): `handlers::status` or `status`, not the
/// parameter type `StatusParams` nor a setting `tier: Read`.
fn first_fn_path(rest: &[TokenTree]) -> Option<syn::Path> {
    rest.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .find_map(|item| {
            let mut segs = Vec::new();
            let mut j = 0;
            loop {
                let TokenTree::Ident(id) = item.get(j)? else {
                    return None;
                };
                segs.push(id.to_string());
                match (item.get(j + 1), item.get(j + 2)) {
                    (None, _) => break,
                    (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                        if a.as_char() == ':'
                            && a.spacing() == Spacing::Joint
                            && b.as_char() == ':' =>
                    {
                        j += 3;
                    }
                    _ => return None,
                }
            }
            segs.last()
                .is_some_and(|s| s.starts_with(|c: char| c.is_ascii_lowercase()))
                .then(|| syn::parse_str(&segs.join("::")).ok())
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_a_catalogue() {
        let tokens: proc_macro2::TokenStream = r#"
            /// Report the state of the local node.
            tailscale_status => StatusParams, status,
                toolset: LocalStatus, tier: Read, idempotent: true;
            /// Log this node out.
            tailscale_logout => LogoutParams, crate::handlers::logout, tier: Write;
        "#
        .parse()
        .unwrap();
        let rows = rows(tokens);
        let got: Vec<(String, String, Option<String>)> = rows
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    quote::ToTokens::to_token_stream(&r.handler)
                        .to_string()
                        .replace(' ', ""),
                    r.description.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "tailscale_status".to_string(),
                    "status".to_string(),
                    Some("Report the state of the local node.".to_string())
                ),
                (
                    "tailscale_logout".to_string(),
                    "crate::handlers::logout".to_string(),
                    Some("Log this node out.".to_string())
                ),
            ]
        );
        // Not a catalogue: a row without a handler path, a match-like table of values.
        assert!(rows_of("a => Params, 3;").is_empty());
        assert!(rows_of("\"x\" => handlers::x;").is_empty());
        assert!(named_for_tools("tools") && named_for_tools("define_tools"));
        assert!(!named_for_tools("toolbox") && !named_for_tools("vec"));
    }

    /// Each row is a tool run by its handler, judged by what the handler does.
    #[test]
    fn a_catalogue_macro_defines_a_tool_per_row() {
        let src = r#"
macro_rules! tools { ($($t:tt)*) => {}; }
crate::tools! {
    /// Show the node's status.
    node_status => StatusParams, status, tier: Read;
    /// Write the node's preferences.
    node_set_prefs => PrefsParams, handlers::set_prefs, tier: Write, idempotent: true;
}
fn status(p: StatusParams) -> String { std::fs::read_to_string("/etc/node").unwrap() }
mod handlers {
    pub fn set_prefs(p: PrefsParams) { std::fs::write("/etc/node.prefs", "x").unwrap(); }
}
"#;
        let mut kinds = crate::frameworks::test_support::kinds(src);
        kinds.sort();
        assert_eq!(
            kinds,
            [
                ("node_set_prefs".to_string(), "Write".to_string()),
                ("node_status".to_string(), "Read".to_string()),
            ]
        );
    }

    fn rows_of(s: &str) -> Vec<Row> {
        rows(s.parse().unwrap())
    }
}
