//! rig's `impl Tool for T` (style `rig`), recognised by the shape of the impl as well as by
//! the trait's path.
//!
//! ```text
//! impl Tool for ChargeCard {
//!     const NAME: &'static str = "charge_card";
//!     type Error = BillingError;
//!     type Args = CardArgs;
//!     type Output = String;
//!     async fn definition(&self, _prompt: String) -> ToolDefinition { .. }
//!     async fn call(&self, args: Self::Args) -> Result<String, BillingError> { .. }
//! }
//! ```
//!
//! rig tools implement a trait with `const NAME: &str` and `async fn call(&self, args)`
//! (and usually `type Args`): `rig::tool::Tool`, rig's newer `PortableTool`, and the same
//! traits re-exported through another crate or imported under an alias. So an impl of a
//! trait `Tool` resolved into a `rig*` crate, of a bare `Tool` with a `fn call`, or of any
//! trait whose items hold both `const NAME` and `fn call` is taken for a rig tool
//! ([`is_rig_impl`]), named by the constant. Its body is the first of [`RUN_METHODS`] it
//! defines; its description comes from `fn description()` or the `ToolDefinition` of
//! `fn definition()` ([`description`]). When `NAME` is a constant rather than a literal, it is
//! looked up among the string constants of the file; a constant of another file
//! (`const NAME: &str = SOL_TRANSFER;` with `use crate::tool_names::SOL_TRANSFER`) is named
//! by the constant's lower-cased name, the usual convention (`SOL_TRANSFER` →
//! `sol_transfer`).
//!
//! A `call` guarded in place with `#[side_effect]` is the tool its `NAME` names: the macro
//! keys it under `Self::NAME`, and a contract `name = ".."` that says otherwise is an error
//! ([`name_contradiction`], `IDEM013`).

use quote::ToTokens;
use rustc_hash::FxHashMap;
use syn::visit::Visit;
use syn::{Expr, ImplItem, Item};

use super::str_lit;

/// The methods of a rig tool's impl (and of a configured tool trait's) that are the tool's
/// body, in the order they are looked for.
pub const RUN_METHODS: &[&str] = &["call", "run", "invoke", "execute", "call_tool", "handle"];

/// Whether an impl of the trait `trait_path` (resolved through `use`; empty for an inherent
/// impl) is a rig tool: rig's `Tool` by path (rooted in a `rig*` crate, or a bare `Tool` whose
/// impl has a `fn call`: `has_call`, test-only methods left out), or any trait impl with the
/// shape of one ([`is_tool_shape`]).
pub fn is_rig_impl(trait_path: &[String], items: &[ImplItem], has_call: bool) -> bool {
    let trait_last = trait_path.last().map(String::as_str).unwrap_or_default();
    (trait_last == "Tool"
        && (trait_path.first().is_some_and(|f| f.starts_with("rig"))
            || (trait_path.len() == 1 && has_call)))
        || (!trait_path.is_empty() && is_tool_shape(items))
}

/// The `IDEM013` message and help when the contract on a rig tool's `call` gives
/// `name = "given"` while the impl's `NAME` is `name`; `None` when they agree.
pub fn name_contradiction(given: &str, name: &str) -> Option<(String, String)> {
    (given != name).then(|| {
        (
            format!(
                "`name = \"{given}\"` contradicts the tool's `NAME` (\"{name}\"): the guard would key and report it as `{given}` while the model calls `{name}`"
            ),
            format!(
                "remove `name = ..` (rig's `Tool::call` is keyed under `Self::NAME`) or write `name = \"{name}\"`"
            ),
        )
    })
}

/// Whether the items of an impl have the shape of a rig tool: `const NAME` and `fn call`.
pub fn is_tool_shape(items: &[ImplItem]) -> bool {
    let has_name = items
        .iter()
        .any(|i| matches!(i, ImplItem::Const(c) if c.ident == "NAME"));
    let has_call = items
        .iter()
        .any(|i| matches!(i, ImplItem::Fn(f) if f.sig.ident == "call"));
    has_name && has_call
}

/// The string constants and statics of a file (`const SOL_TRANSFER: &str = "sol_transfer";`),
/// inline modules included, test modules left out.
pub fn string_consts(items: &[Item]) -> FxHashMap<String, String> {
    fn walk(items: &[Item], out: &mut FxHashMap<String, String>) {
        for item in items {
            match item {
                Item::Const(c) => {
                    if let Some((v, _)) = str_lit(&c.expr) {
                        out.insert(c.ident.to_string(), v);
                    }
                }
                Item::Static(s) => {
                    if let Some((v, _)) = str_lit(&s.expr) {
                        out.insert(s.ident.to_string(), v);
                    }
                }
                // `impl ShellTool { pub const NAME: &'static str = "shell"; }`, keyed
                // `ShellTool::NAME` (the trait impl's `const NAME: &str = Self::NAME;`).
                Item::Impl(i) if i.trait_.is_none() => {
                    let syn::Type::Path(tp) = &*i.self_ty else {
                        continue;
                    };
                    let Some(ty) = tp.path.segments.last().map(|s| s.ident.to_string()) else {
                        continue;
                    };
                    for item in &i.items {
                        if let ImplItem::Const(c) = item
                            && let Some((v, _)) = str_lit(&c.expr)
                        {
                            out.insert(format!("{ty}::{}", c.ident), v);
                        }
                    }
                }
                Item::Mod(m) => {
                    let test = m.attrs.iter().any(|a| {
                        a.path().is_ident("cfg")
                            && a.meta.to_token_stream().to_string().contains("test")
                    });
                    if let (false, Some((_, items))) = (test, &m.content) {
                        walk(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = FxHashMap::default();
    walk(items, &mut out);
    out
}

/// The tool name a `const NAME` expression gives: a literal, a constant of the file, or
/// the lower-cased name of a `SCREAMING_CASE` constant defined elsewhere.
pub fn tool_name(expr: &Expr, consts: &FxHashMap<String, String>) -> Option<String> {
    if let Some((v, _)) = str_lit(expr) {
        return Some(v);
    }
    let Expr::Path(p) = expr else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    if let Some(v) = consts.get(&last) {
        return Some(v.clone());
    }
    // `Self::NAME` (the caller passes `Self` replaced) or `ShellTool::NAME`: an inherent
    // impl's constant.
    let n = p.path.segments.len();
    if n >= 2
        && let Some(v) = consts.get(&format!("{}::{last}", p.path.segments[n - 2].ident))
    {
        return Some(v.clone());
    }
    let screaming = last
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && last.chars().any(|c| c.is_ascii_uppercase());
    (screaming && last != "NAME").then(|| last.to_ascii_lowercase())
}

/// The description of a rig tool: the string of `fn description()` (`PortableTool`), or
/// the `description: ".."` field of the `ToolDefinition` built in `fn definition()`.
pub fn description(items: &[ImplItem]) -> Option<String> {
    #[derive(Default)]
    struct Find {
        field: Option<String>,
        first: Option<String>,
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_field_value(&mut self, fv: &'ast syn::FieldValue) {
            if let syn::Member::Named(n) = &fv.member
                && n == "description"
                && self.field.is_none()
            {
                self.field = str_lit(&fv.expr).map(|p| p.0);
            }
            syn::visit::visit_field_value(self, fv);
        }
        fn visit_lit_str(&mut self, s: &'ast syn::LitStr) {
            if self.first.is_none() {
                self.first = Some(s.value());
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            // `format!("..")`: its format string.
            if self.first.is_none()
                && let Ok(s) = m.parse_body_with(|input: syn::parse::ParseStream| {
                    let s: syn::LitStr = input.parse()?;
                    let _: proc_macro2::TokenStream = input.parse()?;
                    Ok(s)
                })
            {
                self.first = Some(s.value());
            }
        }
    }
    for item in items {
        let ImplItem::Fn(f) = item else { continue };
        let mut find = Find::default();
        if f.sig.ident == "description" {
            find.visit_block(&f.block);
            if let Some(d) = find.first {
                return Some(d);
            }
        } else if f.sig.ident == "definition" {
            find.visit_block(&f.block);
            if let Some(d) = find.field {
                return Some(d);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_sources;
    use idemcheck_spec::config::Config;

    fn impl_items(src: &str) -> Vec<ImplItem> {
        let i: syn::ItemImpl = syn::parse_str(src).unwrap();
        i.items
    }

    /// (name, function, style) of every tool found in some files.
    fn tools(files: &[(&str, &str)]) -> Vec<(String, String, String)> {
        let a = analyze_sources(files, Config::default());
        a.report
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.function.clone(), t.style.clone()))
            .collect()
    }

    #[test]
    fn shape_needs_const_name_and_call() {
        assert!(is_tool_shape(&impl_items(
            "impl PortableTool for X { const NAME: &str = \"x\"; type Args = A; async fn call(&self, a: A) {} }"
        )));
        assert!(!is_tool_shape(&impl_items(
            "impl Display for X { fn fmt(&self, f: &mut Formatter) {} }"
        )));
        assert!(!is_tool_shape(&impl_items(
            "impl Named for X { const NAME: &str = \"x\"; }"
        )));
    }

    #[test]
    fn rig_impls_by_path_bare_name_or_shape() {
        let segs = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
        let plain = impl_items("impl Tool for X { async fn call(&self, a: A) {} }");
        assert!(is_rig_impl(&segs("rig::tool::Tool"), &[], false));
        assert!(is_rig_impl(&segs("Tool"), &plain, true));
        assert!(!is_rig_impl(&segs("Tool"), &plain, false));
        assert!(!is_rig_impl(&segs("other::Tool"), &plain, true));
        let shaped = impl_items(
            "impl PortableTool for X { const NAME: &str = \"x\"; async fn call(&self, a: A) {} }",
        );
        assert!(is_rig_impl(&segs("agent_kit::PortableTool"), &shaped, true));
        assert!(!is_rig_impl(&[], &shaped, true));
    }

    #[test]
    fn a_contract_name_must_be_the_name_const() {
        assert!(name_contradiction("charge_card", "charge_card").is_none());
        let (message, help) = name_contradiction("call", "charge_card").unwrap();
        assert!(message.contains("`NAME` (\"charge_card\")"), "{message}");
        assert!(help.contains("name = \"charge_card\""), "{help}");
    }

    #[test]
    fn names_from_literals_file_constants_and_foreign_constants() {
        let file: syn::File = syn::parse_str(
            "const SEND: &str = \"send_mail\"; mod inner { pub static OTHER: &str = \"other\"; }",
        )
        .unwrap();
        let consts = string_consts(&file.items);
        let e = |s: &str| syn::parse_str::<Expr>(s).unwrap();
        assert_eq!(tool_name(&e("\"lit\""), &consts).as_deref(), Some("lit"));
        assert_eq!(tool_name(&e("SEND"), &consts).as_deref(), Some("send_mail"));
        assert_eq!(tool_name(&e("OTHER"), &consts).as_deref(), Some("other"));
        assert_eq!(
            tool_name(&e("crate::names::SOL_TRANSFER"), &consts).as_deref(),
            Some("sol_transfer")
        );
        assert_eq!(tool_name(&e("make_name()"), &consts), None);
    }

    #[test]
    fn descriptions_of_portable_and_classic_tools() {
        let d = description(&impl_items(
            "impl PortableTool for X { fn description(&self) -> String { \"Reads a file\".to_string() } }",
        ));
        assert_eq!(d.as_deref(), Some("Reads a file"));
        let d = description(&impl_items(
            "impl Tool for X { async fn definition(&self, _p: String) -> ToolDefinition { ToolDefinition { name: \"x\".into(), description: \"Sends\".to_string(), parameters: json!({}) } } }",
        ));
        assert_eq!(d.as_deref(), Some("Sends"));
    }

    #[test]
    fn portable_tool_reexported_and_aliased_traits_are_rig_tools() {
        let src = r#"
use agent_kit::tools::PortableTool;
use other::Tool as AgentTool;

const WRITE_NAME: &str = "write_note";

pub struct ReadNote;
impl PortableTool for ReadNote {
    const NAME: &'static str = "read_note";
    type Args = String;
    type Output = String;
    type Error = std::io::Error;
    fn description(&self) -> String { "Read a note".into() }
    async fn call(&self, path: String) -> Result<String, std::io::Error> {
        std::fs::read_to_string(path)
    }
}

pub struct WriteNote;
impl AgentTool for WriteNote {
    const NAME: &str = WRITE_NAME;
    type Args = String;
    async fn call(&self, text: String) -> Result<(), std::io::Error> {
        std::fs::write("note.txt", text)
    }
}

pub struct Sender;
impl reexport::agents::Tool for Sender {
    const NAME: &'static str = crate::names::SEND_MAIL;
    async fn call(&self, to: String) -> Result<(), E> { Ok(()) }
}

pub struct NotATool;
impl Iterator for NotATool {
    type Item = u8;
    fn next(&mut self) -> Option<u8> { None }
}
"#;
        let mut got = tools(&[("src/lib.rs", src)]);
        got.sort();
        assert_eq!(
            got,
            [
                ("read_note".into(), "ReadNote::call".into(), "rig".into()),
                ("send_mail".into(), "Sender::call".into(), "rig".into()),
                ("write_note".into(), "WriteNote::call".into(), "rig".into()),
            ]
        );
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        let kind = |n: &str| {
            a.report
                .tools
                .iter()
                .find(|t| t.name == n)
                .map(|t| format!("{:?}", t.kind))
        };
        assert_eq!(kind("write_note").as_deref(), Some("Write"));
    }

    /// `const NAME: &str = Self::NAME;` names the tool by the inherent impl's constant.
    #[test]
    fn a_name_from_the_inherent_impl() {
        let src = r#"
use rig::tool::Tool;
pub struct ShellTool;
impl ShellTool { pub const NAME: &'static str = "shell"; }
impl Tool for ShellTool {
    const NAME: &'static str = Self::NAME;
    type Args = A; type Output = String; type Error = E;
    async fn definition(&self, _p: String) -> ToolDefinition { todo!() }
    async fn call(&self, a: A) -> Result<String, E> { std::fs::write("x", "y").unwrap(); Ok(String::new()) }
}
"#;
        let rows = crate::frameworks::test_support::rows(src);
        assert_eq!(rows[0].0, "shell", "{rows:?}");
    }
}
