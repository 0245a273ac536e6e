//! MCP hints given to a tool built by a builder chain, written in the chain or shared.
//!
//! ```text
//! ToolBuilder::new("redis_exists")
//!     .annotations(read_annotations())          // a shared value, defined once
//!     .handler(..)
//! Tool::new("delete_note", .., schema)
//!     .annotate(ToolAnnotations::new().destructive(true))   // written here
//! ToolBuilder::new("list_notes").read_only().handler(..)    // a step of the chain
//!
//! fn read_annotations() -> ToolAnnotations {
//!     ToolAnnotations { read_only_hint: true, destructive_hint: false, .. }
//! }
//! const READ_ONLY_ANNOTATIONS: ToolAnnotations = ToolAnnotations { read_only_hint: Some(true), .. };
//! ```
//!
//! Hints written in the chain are the tool's hints as an attribute's are. A shared value (a
//! function without arguments that say otherwise, or a constant, whose type is named
//! `*Annotations`) is defined once, often in another file: the tool notes its name
//! ([`crate::facts::ToolFacts::shared_hints`]), each file the hints its functions and
//! constants give ([`crate::facts::FileFacts::shared_hints`]), and once every file is read
//! [`apply_shared`] gives each tool the hints of the value of its crate it names (when one
//! value of that name is known there). A hint the helper takes as an argument
//! (`idempotent_hint: idempotent`) is not known and left undeclared.

use quote::ToTokens;
use syn::Expr;

use idemcheck_spec::hints::ToolHints;

use crate::facts::{DeclaredHints, FileFacts, Loc};

/// Hints a builder chain gives its tool.
#[derive(Debug, Clone)]
pub enum Given {
    /// Written in the chain.
    Inline(ToolHints),
    /// A shared value named by the chain: the function's or the constant's name.
    Shared(String),
}

/// Methods of a builder that take the hints as one value.
const VALUE_STEPS: &[&str] = &[
    "annotations",
    "annotate",
    "with_annotations",
    "tool_annotations",
    "set_annotations",
];

/// The hints a step of a builder chain gives (`.annotations(read_annotations())`,
/// `.annotate(ToolAnnotations::new().read_only(true))`, `.read_only()`,
/// `.destructive_hint(true)`), if it is such a step.
pub fn of_step(m: &syn::ExprMethodCall) -> Option<Given> {
    let step = m.method.to_string();
    if VALUE_STEPS.contains(&step.as_str()) {
        return match (m.args.len(), m.args.first()) {
            (1, Some(value)) => of_value(value),
            _ => None,
        };
    }
    let value = match (m.args.len(), m.args.first()) {
        (0, _) => true,
        (
            1,
            Some(Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            })),
        ) => b.value,
        _ => return None,
    };
    let spanned = |value| {
        Some(idemcheck_spec::attr::Spanned {
            value,
            span: m.method.span(),
        })
    };
    let mut hints = ToolHints::default();
    match step.as_str() {
        "read_only" | "read_only_hint" => hints.read_only = spanned(value),
        "destructive" | "destructive_hint" => hints.destructive = spanned(value),
        "non_destructive" => hints.destructive = spanned(!value),
        "idempotent" | "idempotent_hint" => hints.idempotent = spanned(value),
        "open_world" | "open_world_hint" => hints.open_world = spanned(value),
        _ => return None,
    }
    Some(Given::Inline(hints))
}

/// The hints a value handed to an annotations step gives: written there, or the name of
/// the shared function or constant it is.
fn of_value(e: &Expr) -> Option<Given> {
    let hints = super::rmcp_tool_base::hints_of_tokens(e.to_token_stream());
    if hints.any() {
        return Some(Given::Inline(hints));
    }
    let mut e = e;
    loop {
        e = match e {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::MethodCall(m)
                if m.args.is_empty() && (m.method == "clone" || m.method == "into") =>
            {
                &m.receiver
            }
            Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")) => {
                c.args.first()?
            }
            _ => break,
        };
    }
    let last = |p: &syn::Path| p.segments.last().map(|s| s.ident.to_string());
    match e {
        // `read_annotations()`, `annotations::write(false)`: a function's value.
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => last(&p.path)
                .filter(|n| n.starts_with(|c: char| c.is_ascii_lowercase()))
                .filter(|n| !matches!(n.as_str(), "new" | "default" | "from"))
                .map(Given::Shared),
            _ => None,
        },
        // `READ_ONLY_ANNOTATIONS`, `annotations::READ`: a constant.
        Expr::Path(p) => last(&p.path)
            .filter(|n| super::dispatch::is_const_name(n))
            .map(Given::Shared),
        _ => None,
    }
}

/// Whether a type (its last path segment) is a tool's annotations (`ToolAnnotations`,
/// `McpToolAnnotations`, `Option<ToolAnnotations>`).
fn annotations_type(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(seg) = p.path.segments.last() else {
        return false;
    };
    if seg.ident == "Option"
        && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
        && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
    {
        return annotations_type(inner);
    }
    seg.ident.to_string().ends_with("Annotations")
}

/// The hints a function gives as a shared value: it returns a tool's annotations, and its
/// body declares some (`fn read_annotations() -> ToolAnnotations { .. }`).
pub fn of_fn(sig: &syn::Signature, block: &syn::Block) -> Option<(String, DeclaredHints)> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    if !annotations_type(ty) {
        return None;
    }
    let hints = super::rmcp_tool_base::hints_of_tokens(block.to_token_stream());
    declared(&hints).map(|d| (sig.ident.to_string(), d))
}

/// The hints a constant (or static) of a tool's annotations type gives.
pub fn of_const(
    ident: &syn::Ident,
    ty: &syn::Type,
    value: &Expr,
) -> Option<(String, DeclaredHints)> {
    if !annotations_type(ty) {
        return None;
    }
    let hints = super::rmcp_tool_base::hints_of_tokens(value.to_token_stream());
    declared(&hints).map(|d| (ident.to_string(), d))
}

/// Hints as a tool declares them, when any is.
pub fn declared(h: &ToolHints) -> Option<DeclaredHints> {
    h.any().then(|| DeclaredHints {
        read_only: h.read_only.as_ref().map(|v| v.value),
        destructive: h.destructive.as_ref().map(|v| v.value),
        idempotent: h.idempotent.as_ref().map(|v| v.value),
        open_world: h.open_world.as_ref().map(|v| v.value),
        loc: [&h.read_only, &h.destructive, &h.idempotent, &h.open_world]
            .into_iter()
            .flatten()
            .map(|v| Loc::of_span(v.span))
            .min()
            .unwrap_or_default(),
    })
}

/// Give each tool that names a shared annotations value the hints of that value in its
/// crate: `destructive_hint = true` or `read_only_hint = false` declare a write, and
/// `read_only_hint = true` a read that only strong evidence overrides (as the same hints
/// in an attribute do). Two values of one name that disagree give nothing.
pub fn apply_shared(files: &mut [FileFacts]) {
    if !files
        .iter()
        .any(|f| f.tools.iter().any(|t| t.shared_hints.is_some()))
    {
        return;
    }
    let mut known: rustc_hash::FxHashMap<(usize, &str), Option<DeclaredHints>> =
        rustc_hash::FxHashMap::default();
    for f in files.iter() {
        for (name, h) in &f.shared_hints {
            known
                .entry((f.krate, name.as_str()))
                .and_modify(|k| {
                    if k.is_some_and(|k| !same_hints(&k, h)) {
                        *k = None;
                    }
                })
                .or_insert(Some(*h));
        }
    }
    let known: rustc_hash::FxHashMap<(usize, String), DeclaredHints> = known
        .into_iter()
        .filter_map(|((k, n), h)| h.map(|h| ((k, n.to_string()), h)))
        .collect();
    for f in files.iter_mut() {
        let krate = f.krate;
        for t in &mut f.tools {
            let Some(name) = &t.shared_hints else {
                continue;
            };
            if t.hints.is_some() || t.has_contract || t.declared_write.is_some() {
                continue;
            }
            let Some(h) = known.get(&(krate, name.clone())) else {
                continue;
            };
            t.hints = Some(*h);
            // What the hints say is IDEM007's reading of them, as for an attribute's.
            let say = idemcheck_spec::rules::idem007_annotation_mismatch::hints_say_values(
                h.read_only,
                h.destructive,
            );
            if say.write {
                t.declared_write = Some(true);
            }
            t.claims_read_only = say.claims_read_only;
        }
    }
}

/// Whether two values declare the same hints (wherever they are written).
fn same_hints(a: &DeclaredHints, b: &DeclaredHints) -> bool {
    (a.read_only, a.destructive, a.idempotent, a.open_world)
        == (b.read_only, b.destructive, b.idempotent, b.open_world)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(src: &str) -> Option<Given> {
        of_step(&syn::parse_str::<syn::ExprMethodCall>(src).unwrap())
    }

    #[test]
    fn steps_give_hints_written_or_shared() {
        let read_only = |g: Option<Given>| match g {
            Some(Given::Inline(h)) => h.read_only.map(|v| v.value),
            _ => None,
        };
        assert_eq!(read_only(step("b.read_only()")), Some(true));
        assert_eq!(read_only(step("b.read_only_hint(false)")), Some(false));
        assert_eq!(
            read_only(step("b.annotate(ToolAnnotations::new().read_only(true))")),
            Some(true)
        );
        assert_eq!(
            read_only(step(
                "b.annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() })"
            )),
            Some(true)
        );
        let shared = |g: Option<Given>| match g {
            Some(Given::Shared(n)) => Some(n),
            _ => None,
        };
        assert_eq!(
            shared(step("b.annotations(read_annotations())")).as_deref(),
            Some("read_annotations")
        );
        assert_eq!(
            shared(step("b.annotations(write_annotations(false))")).as_deref(),
            Some("write_annotations")
        );
        assert_eq!(
            shared(step("b.annotations(READ_ONLY_ANNOTATIONS.clone())")).as_deref(),
            Some("READ_ONLY_ANNOTATIONS")
        );
        assert!(step("b.annotations(annotations)").is_none());
        assert!(step("b.description(\"x\")").is_none());
        assert!(step("b.read_only(flag)").is_none());
    }

    #[test]
    fn shared_values_declare_the_hints_of_their_body() {
        let f: syn::ItemFn = syn::parse_str(
            "fn write_annotations(idempotent: bool) -> ToolAnnotations { ToolAnnotations { read_only_hint: false, destructive_hint: false, idempotent_hint: idempotent, ..ToolAnnotations::default() } }",
        )
        .unwrap();
        let (name, h) = of_fn(&f.sig, &f.block).unwrap();
        assert_eq!(name, "write_annotations");
        assert_eq!(
            (h.read_only, h.destructive, h.idempotent),
            (Some(false), Some(false), None)
        );
        let not: syn::ItemFn = syn::parse_str("fn read_only() -> bool { true }").unwrap();
        assert!(of_fn(&not.sig, &not.block).is_none());
        let c: syn::ItemConst = syn::parse_str(
            "const READ_ONLY_ANNOTATIONS: ToolAnnotations = ToolAnnotations { read_only_hint: Some(true), destructive_hint: Some(false), idempotent_hint: Some(true), open_world_hint: None, title: None };",
        )
        .unwrap();
        let (_, h) = of_const(&c.ident, &c.ty, &c.expr).unwrap();
        assert_eq!(h.read_only, Some(true));
    }

    /// Tools built by a builder chain take the hints of the shared value they name, defined
    /// in another file: a read-only claim outweighs a weak write (an SDK method named like
    /// one), `read_only_hint: false` declares a write; without the value, the code decides.
    #[test]
    fn builder_tools_take_the_hints_of_a_shared_value() {
        let lib = r#"
mod tools;
use tower_mcp::ToolAnnotations;
pub fn read_annotations() -> ToolAnnotations {
    ToolAnnotations { read_only_hint: true, destructive_hint: false, ..ToolAnnotations::default() }
}
pub fn write_annotations(idempotent: bool) -> ToolAnnotations {
    ToolAnnotations { read_only_hint: false, destructive_hint: false, idempotent_hint: idempotent, ..ToolAnnotations::default() }
}
"#;
        let tools = r#"
use crate::{read_annotations, write_annotations};
use tower_mcp::{McpRouter, ToolBuilder};
pub fn register(router: McpRouter) -> McpRouter {
    router
        .tool(ToolBuilder::new("key_count").description("Count the keys").annotations(read_annotations())
            .handler(|s: State| async move { s.client.create_snapshot("keys").await })
            .build())
        .tool(ToolBuilder::new("key_touch").description("Touch a key").annotations(write_annotations(true))
            .handler(|s: State| async move { s.cache.len() })
            .build())
        .tool(ToolBuilder::new("key_scan").description("Scan the keys")
            .handler(|s: State| async move { s.client.create_snapshot("scan").await })
            .build())
}
"#;
        let kinds =
            crate::analysis::inventory_kinds(&[("src/lib.rs", lib), ("src/tools.rs", tools)]);
        let kind = |n: &str| kinds.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        assert_eq!(kind("key_count").as_deref(), Some("Read"), "{kinds:?}");
        assert_eq!(kind("key_touch").as_deref(), Some("Write"), "{kinds:?}");
        assert_eq!(kind("key_scan").as_deref(), Some("Write"), "{kinds:?}");
    }
}
