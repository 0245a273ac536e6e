//! Recognisers for tool styles that are not a plain framework attribute on a function.
//!
//! Each submodule reads syntax only and answers "is this a tool, named what, with its body
//! where"; turning the answer into [`crate::facts::ToolFacts`] (signatures, contract check,
//! recorded bodies) is done by the collector's hooks (`collect/hooks.rs`), so that the
//! per-file visitor itself only gains a few calls.
//!
//! - [`rig`]: rig's `impl Tool for T`, by path or by shape (`const NAME` + `fn call`),
//!   whatever the trait is called or re-exported as (`PortableTool`, an alias, a re-export
//!   through another crate);
//! - [`rmcp_tool_base`]: rmcp's `ToolBase` + `AsyncTool` impls, one tool from two impls;
//! - [`swiftide`]: swiftide's `#[tool(..)]` on free functions and `#[derive(Tool)]` structs;
//! - [`function_tool`]: `FunctionTool::new("name", "description", handler)` (adk-rust and
//!   look-alikes);
//! - [`mcp_sdk`]: rust-mcp-sdk's `#[mcp_tool]` structs, whose call method is the body;
//! - [`registry`]: tool registries, `registry.register("name", "A description.", schema,
//!   handler)`;
//! - [`dispatch`]: hand-written MCP `tools/call` handlers that `match` on the tool name;
//! - [`tool_attr`]: `#[tool]` of other tool-macro crates (riglr-macros and look-alikes);
//! - [`tool_trait`]: impls of hand-written tool traits (`fn name` + `fn execute` + a schema).

pub mod dispatch;
pub mod function_tool;
pub mod mcp_sdk;
pub mod registry;
pub mod rig;
pub mod rmcp_tool_base;
pub mod swiftide;
pub mod tool_attr;
pub mod tool_trait;

use proc_macro2::Span;
use syn::{Expr, Lit};

use crate::facts::{FileFacts, ToolStyle};

/// Drop tools that repeat another definition:
///
/// - dispatch arms and function tools that repeat the name of a tool defined in another
///   style anywhere in the files (a hand-written `call_tool` dispatching to `#[mcp_tool]`
///   structs or rig tools: those are the definitions), and repeats among themselves;
/// - trait impls (rig's `Tool` by shape, configured traits) named like a `#[tool]` function
///   of a tool-macro crate in the same crate: the macro generates the tool's type from the
///   function (riglr: `transfer_sol` → `TransferSolTool`), and a hand-written impl of another
///   trait for that type is the same tool again.
pub fn drop_repeated(files: &mut [FileFacts]) {
    drop_generated_twins(files);
    confirm_provisional(files);
    let weak = |s: ToolStyle| {
        matches!(
            s,
            ToolStyle::McpDispatch | ToolStyle::AdkFunctionTool | ToolStyle::Registry
        )
    };
    if !files.iter().any(|f| f.tools.iter().any(|t| weak(t.style))) {
        return;
    }
    let strong: rustc_hash::FxHashSet<String> = files
        .iter()
        .flat_map(|f| f.tools.iter())
        .filter(|t| !weak(t.style))
        .map(|t| t.name.clone())
        .collect();
    let mut seen = rustc_hash::FxHashSet::default();
    for f in files.iter_mut() {
        let krate = f.krate;
        f.tools.retain(|t| {
            !weak(t.style) || (!strong.contains(&t.name) && seen.insert((krate, t.name.clone())))
        });
    }
}

/// How many calls from a tools/call handler a dispatcher it hands the tool name to may be.
const HANDOFF_DEPTH: usize = 4;

/// The first rule of [`drop_repeated`]: a provisional tool (an arm of a function that
/// dispatches on a tool name it is given) stays when a tools/call handler of its crate
/// reaches that function within [`HANDOFF_DEPTH`] calls — followed by the called names, as
/// the per-file facts write them — and no other tool of the crate has its name.
fn confirm_provisional(files: &mut [FileFacts]) {
    use crate::facts::CallTarget;
    if !files.iter().any(|f| f.tools.iter().any(|t| t.provisional)) {
        return;
    }
    let callee_name = |t: &CallTarget| -> Option<String> {
        match t {
            CallTarget::Path { segments, .. } => segments.last().cloned(),
            CallTarget::SelfMethod(n)
            | CallTarget::TypeFn(_, n)
            | CallTarget::FieldMethod(_, n)
            | CallTarget::TypedFieldMethod(_, _, n)
            | CallTarget::AnyMethod(n)
            | CallTarget::TypedMethod(_, n)
            | CallTarget::ReturnedMethod(_, n) => Some(n.clone()),
        }
    };
    // Functions by (crate, name).
    let mut by_name: rustc_hash::FxHashMap<(usize, &str), Vec<(usize, usize)>> =
        rustc_hash::FxHashMap::default();
    let mut queue = std::collections::VecDeque::new();
    let mut depth_of: rustc_hash::FxHashMap<(usize, usize), usize> =
        rustc_hash::FxHashMap::default();
    for (fi, f) in files.iter().enumerate() {
        for (j, g) in f.fns.iter().enumerate() {
            by_name
                .entry((f.krate, g.name.as_str()))
                .or_default()
                .push((fi, j));
            if g.tools_handler {
                depth_of.insert((fi, j), 0);
                queue.push_back((fi, j));
            }
        }
    }
    while let Some((fi, j)) = queue.pop_front() {
        let d = depth_of[&(fi, j)];
        if d >= HANDOFF_DEPTH {
            continue;
        }
        let krate = files[fi].krate;
        for call in &files[fi].fns[j].calls {
            let Some(n) = callee_name(&call.target) else {
                continue;
            };
            for &next in by_name.get(&(krate, n.as_str())).into_iter().flatten() {
                if let std::collections::hash_map::Entry::Vacant(v) = depth_of.entry(next) {
                    v.insert(d + 1);
                    queue.push_back(next);
                }
            }
        }
    }
    let defined: rustc_hash::FxHashSet<(usize, String)> = files
        .iter()
        .flat_map(|f| f.tools.iter().map(move |t| (f.krate, t)))
        .filter(|(_, t)| !t.provisional)
        .map(|(k, t)| (k, t.name.clone()))
        .collect();
    for (fi, f) in files.iter_mut().enumerate() {
        let krate = f.krate;
        let fns = &f.fns;
        f.tools.retain(|t| {
            if !t.provisional {
                return true;
            }
            let crate::facts::ToolBody::Local(body) = t.body else {
                return false;
            };
            let reached = fns.iter().enumerate().any(|(j, g)| {
                g.name_arms.iter().any(|(_, a)| *a == body) && depth_of.contains_key(&(fi, j))
            });
            reached && !defined.contains(&(krate, t.name.clone()))
        });
    }
}

/// The second rule of [`drop_repeated`].
fn drop_generated_twins(files: &mut [FileFacts]) {
    let generated: rustc_hash::FxHashSet<(usize, String)> = files
        .iter()
        .flat_map(|f| f.tools.iter().map(move |t| (f.krate, t)))
        .filter(|(_, t)| t.style == ToolStyle::ToolAttr)
        .map(|(k, t)| (k, t.name.clone()))
        .collect();
    if generated.is_empty() {
        return;
    }
    for f in files.iter_mut() {
        let krate = f.krate;
        f.tools.retain(|t| {
            !(matches!(
                t.style,
                ToolStyle::RigTrait | ToolStyle::Configured | ToolStyle::ToolTrait
            ) && generated.contains(&(krate, t.name.clone())))
        });
    }
}

/// `&str`, `&'static str`, `String` (checked without spelling the type out): a text parameter.
pub fn is_text_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_text_type(&r.elem),
        syn::Type::Path(p) => p.path.is_ident("str") || p.path.is_ident("String"),
        _ => false,
    }
}

/// `ResetFile` → `reset_file`, `HTTPGet` → `http_get` (heck's snake case, as the tool
/// macros that derive a name from a type use).
pub fn snake_case(name: &str) -> String {
    heck::ToSnakeCase::to_snake_case(name)
}

/// A string literal (through `&`, parentheses and `.to_string()`-like conversions), with
/// its span.
pub fn str_lit(e: &Expr) -> Option<(String, Span)> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some((s.value(), s.span())),
            _ => None,
        },
        Expr::Reference(r) => str_lit(&r.expr),
        Expr::Paren(p) => str_lit(&p.expr),
        Expr::Group(g) => str_lit(&g.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "to_owned" | "into" | "as_str"
                ) =>
        {
            str_lit(&m.receiver)
        }
        _ => None,
    }
}

/// The first string literal in a token stream, groups searched depth-first.
pub fn first_lit_in_tokens(tokens: proc_macro2::TokenStream) -> Option<String> {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Literal(l) => {
                // `Lit::new` classifies the token as `parse2::<LitStr>` would, without
                // building a token buffer and a parse stream for one token.
                if let Lit::Str(s) = Lit::new(l) {
                    return Some(s.value());
                }
            }
            proc_macro2::TokenTree::Group(g) => {
                if let Some(s) = first_lit_in_tokens(g.stream()) {
                    return Some(s);
                }
            }
            _ => {}
        }
    }
    None
}

/// An identifier for a synthetic function standing for a tool body: `prefix` and the tool
/// name with everything but ASCII letters, digits and `_` replaced, so that it can never
/// collide with a method a call resolves to.
pub fn synthetic_ident(prefix: &str, tool: &str, span: Span) -> syn::Ident {
    let mut s = String::with_capacity(prefix.len() + tool.len() + 8);
    s.push_str(prefix);
    s.push_str("__tool_");
    for c in tool.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    syn::Ident::new(&s, span)
}

/// What the styles' tests feed sources through.
#[cfg(test)]
pub(crate) mod test_support {
    /// (name, function, style, judgement) of every tool of one `src/lib.rs`, sorted.
    pub(crate) fn rows(src: &str) -> Vec<(String, String, String, String)> {
        crate::analysis::inventory_rows(&[("src/lib.rs", src)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_of_type_names() {
        assert_eq!(snake_case("ResetFile"), "reset_file");
        assert_eq!(snake_case("ExplainCode"), "explain_code");
        assert_eq!(snake_case("HTTPGet"), "http_get");
        assert_eq!(snake_case("Get2Fa"), "get2_fa");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }

    #[test]
    fn string_literals_through_conversions() {
        let e: Expr = syn::parse_str(r#"&"x".to_string()"#).unwrap();
        assert_eq!(str_lit(&e).map(|p| p.0).as_deref(), Some("x"));
        let e: Expr = syn::parse_str("name").unwrap();
        assert!(str_lit(&e).is_none());
    }

    #[test]
    fn synthetic_idents_are_valid() {
        let id = synthetic_ident("call_tool", "git.status-v2", Span::call_site());
        assert_eq!(id.to_string(), "call_tool__tool_git_status_v2");
    }
}
