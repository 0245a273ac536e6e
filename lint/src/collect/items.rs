//! Item-level facts ([`ItemFacts`]), recorded from the syntax tree the collector just walked:
//! the line ranges of items (`--new-from-rev` keeps a finding when its item changed), `impl
//! Trait for Type` pairs, structs and enums with their derives, and, for each function that
//! is a tool, its signature as text and where its lines are (`cargo idemcheck suggest`
//! proposes a contract and inserts it from these). Only items at the top level of the file
//! and of its inline modules are looked at, the way a reader scans a file. Spans are read
//! from the few tokens that begin and end an item, never by printing the item.

use std::collections::{BTreeMap, BTreeSet};

use idemcheck_spec::signature::{ParamRole, ToolSignature, type_text};
use proc_macro2::Span;
use quote::ToTokens;

use crate::facts::{FileFacts, ItemFacts, SigParam, SigResult, ToolFnFacts, TypeFacts};

/// Record the item facts of a parsed file into `facts` (whose tools are already known).
pub(super) fn record(file: &syn::File, text: &str, facts: &mut FileFacts) {
    let lines: Vec<&str> = text.lines().collect();
    let mut w = Walk {
        lines: &lines,
        tools: facts
            .tools
            .iter()
            .map(|t| (t.loc.line, t.loc.column))
            .collect(),
        out: ItemFacts::default(),
        names: Vec::new(),
    };
    w.items(&file.items);
    let mut out = w.out;
    if !out.tool_fns.is_empty() {
        out.fn_names = w.names;
    }
    out.imports_side_effect = file.items.iter().any(|i| match i {
        syn::Item::Use(u) => imports_side_effect(&u.tree, false),
        _ => false,
    });
    facts.items = out;
}

struct Walk<'a> {
    lines: &'a [&'a str],
    tools: BTreeSet<(u32, u32)>,
    out: ItemFacts,
    names: Vec<String>,
}

/// The impl a method is in.
struct ImplCx<'i> {
    self_ty: String,
    trait_impl: bool,
    assoc: BTreeMap<String, &'i syn::Type>,
    /// The impl block's last line.
    end_line: u32,
}

fn line(span: Span) -> u32 {
    span.start().line as u32
}

fn end_line(span: Span) -> u32 {
    span.end().line as u32
}

fn vis_line(vis: &syn::Visibility) -> Option<u32> {
    super::syntax::vis_span(vis).map(line)
}

/// The line of a signature's first token.
fn sig_line(sig: &syn::Signature) -> u32 {
    line(super::syntax::sig_span(sig))
}

impl Walk<'_> {
    /// An item from `head` (its first token after the attributes) to `end`, extended over
    /// its attributes and the comment lines right above.
    fn range(&mut self, attrs: &[syn::Attribute], head: u32, end: Span) {
        let mut start = attrs
            .iter()
            .map(|a| line(a.pound_token.spans[0]))
            .fold(head, u32::min);
        while start > 1 {
            let above = self
                .lines
                .get(start as usize - 2)
                .map(|l| l.trim_start())
                .unwrap_or("");
            if above.starts_with("//") {
                start -= 1;
            } else {
                break;
            }
        }
        self.out.ranges.push((start, end_line(end)));
    }

    fn items(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    let head = vis_line(&f.vis).unwrap_or_else(|| sig_line(&f.sig));
                    let end = f.block.brace_token.span.close();
                    self.range(&f.attrs, head, end);
                    self.function(&f.attrs, &f.vis, &f.sig, end, None);
                }
                syn::Item::Struct(s) => {
                    let head = vis_line(&s.vis).unwrap_or_else(|| line(s.struct_token.span));
                    let end = match (&s.semi_token, &s.fields) {
                        (Some(semi), _) => semi.spans[0],
                        (None, syn::Fields::Named(n)) => n.brace_token.span.close(),
                        (None, syn::Fields::Unnamed(u)) => u.paren_token.span.close(),
                        (None, _) => s.ident.span(),
                    };
                    self.range(&s.attrs, head, end);
                    self.out.types.push(TypeFacts {
                        name: s.ident.to_string(),
                        is_enum: false,
                        derives: derives(&s.attrs),
                        holds: Vec::new(),
                    });
                }
                syn::Item::Enum(e) => {
                    let head = vis_line(&e.vis).unwrap_or_else(|| line(e.enum_token.span));
                    self.range(&e.attrs, head, e.brace_token.span.close());
                    self.out.types.push(TypeFacts {
                        name: e.ident.to_string(),
                        is_enum: true,
                        derives: derives(&e.attrs),
                        holds: e
                            .variants
                            .iter()
                            .flat_map(|v| v.fields.iter().map(|f| core_name(&f.ty)))
                            .collect(),
                    });
                }
                syn::Item::Impl(i) => self.item_impl(i),
                syn::Item::Trait(t) => {
                    let head = vis_line(&t.vis)
                        .or(t.unsafety.map(|u| line(u.span)))
                        .or(t.modifiers.auto_token.map(|a| line(a.span)))
                        .unwrap_or_else(|| line(t.trait_token.span));
                    self.range(&t.attrs, head, t.brace_token.span.close());
                    for it in &t.items {
                        if let syn::TraitItem::Fn(f) = it {
                            let end = match (&f.default, &f.semi_token) {
                                (Some(b), _) => b.brace_token.span.close(),
                                (None, Some(semi)) => semi.spans[0],
                                (None, None) => f.sig.ident.span(),
                            };
                            self.range(&f.attrs, sig_line(&f.sig), end);
                        }
                    }
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.items(items);
                    }
                }
                _ => {}
            }
        }
    }

    fn item_impl(&mut self, i: &syn::ItemImpl) {
        let head = i
            .modifiers
            .defaultness
            .map(|d| line(d.span))
            .or(i.unsafety.map(|u| line(u.span)))
            .unwrap_or_else(|| line(i.impl_token.span));
        self.range(&i.attrs, head, i.brace_token.span.close());
        if let Some((path, _)) = &i.trait_ {
            let trait_ = crate::suggest::fix::tokens_text(&path.to_token_stream());
            self.out.impls.push((trait_, type_text(&i.self_ty)));
        }
        let mut cx = None;
        for it in &i.items {
            match it {
                syn::ImplItem::Fn(f) => {
                    let head = vis_line(&f.vis)
                        .or(f.modifiers.defaultness.map(|d| line(d.span)))
                        .unwrap_or_else(|| sig_line(&f.sig));
                    let end = f.block.brace_token.span.close();
                    self.range(&f.attrs, head, end);
                    if self.is_tool(&f.sig) && cx.is_none() {
                        cx = Some(ImplCx {
                            self_ty: type_text(&i.self_ty),
                            trait_impl: i.trait_.is_some(),
                            end_line: end_line(i.brace_token.span.close()),
                            assoc: i
                                .items
                                .iter()
                                .filter_map(|it| match it {
                                    syn::ImplItem::Type(t) => Some((t.ident.to_string(), &t.ty)),
                                    _ => None,
                                })
                                .collect(),
                        });
                    }
                    self.function(&f.attrs, &f.vis, &f.sig, end, cx.as_ref());
                }
                syn::ImplItem::Const(c) => {
                    let head = vis_line(&c.vis)
                        .or(c.modifiers.defaultness.map(|d| line(d.span)))
                        .unwrap_or_else(|| line(c.const_token.span));
                    self.range(&c.attrs, head, c.semi_token.spans[0]);
                }
                _ => {}
            }
        }
    }

    fn is_tool(&self, sig: &syn::Signature) -> bool {
        let s = sig.ident.span().start();
        self.tools.contains(&(s.line as u32, s.column as u32 + 1))
    }

    /// A function or method: its name, and, when it is a tool, its [`ToolFnFacts`].
    fn function(
        &mut self,
        attrs: &[syn::Attribute],
        vis: &syn::Visibility,
        sig: &syn::Signature,
        end: Span,
        cx: Option<&ImplCx<'_>>,
    ) {
        self.names.push(sig.ident.to_string());
        if !self.is_tool(sig) {
            return;
        }
        let s = sig.ident.span().start();
        let attr_line = attrs
            .iter()
            .filter(|a| !a.path().is_ident("doc"))
            .map(|a| line(a.pound_token.spans[0]))
            .min()
            .or(vis_line(vis))
            .unwrap_or_else(|| {
                sig.constness
                    .map(|c| line(c.span))
                    .or(sig.asyncness.map(|a| line(a.span)))
                    .unwrap_or_else(|| line(sig.fn_token.span))
            });
        let signature = ToolSignature::new(sig);
        let params = signature
            .params
            .iter()
            .enumerate()
            .map(|(i, param)| {
                let core = match &param.ty {
                    Some(ty) => match self_assoc(ty).and_then(|a| cx?.assoc.get(&a).copied()) {
                        Some(t) => core_name(t),
                        None => core_name(ty),
                    },
                    None => String::new(),
                };
                let stub = match (param.role, &param.ty) {
                    (ParamRole::Receiver, _) | (_, None) => None,
                    (_, Some(ty)) => {
                        let (name, pat) = stub_param(param, i);
                        // The postcondition takes every input by shared reference (a `&mut`
                        // one is lent to it as `&`), and, as an inherent method, names the
                        // impl's associated types by what they are (`Self::Args` is
                        // ambiguous there).
                        let ty = match ty {
                            syn::Type::Reference(r) => {
                                format!("&{}", resolved_text(&r.elem, cx))
                            }
                            _ => format!("&{}", resolved_text(ty, cx)),
                        };
                        Some((name, format!("{pat}: {ty}")))
                    }
                };
                SigParam {
                    role: param.role,
                    bindings: param.bindings.iter().map(|b| b.to_string()).collect(),
                    core,
                    stub,
                }
            })
            .collect();
        let generics = &sig.generics;
        self.out.tool_fns.push(ToolFnFacts {
            line: s.line as u32,
            column: s.column as u32 + 1,
            name: sig.ident.to_string(),
            attr_line,
            end_line: end_line(end),
            self_ty: cx.map(|c| c.self_ty.clone()),
            trait_impl: cx.is_some_and(|c| c.trait_impl),
            is_async: sig.asyncness.is_some(),
            has_receiver: signature.has_receiver(),
            ref_self: matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(r))
                if matches!(r.kind, syn::ReceiverKind::Reference(_, _, None))),
            single_input: signature.single_input().is_some(),
            params,
            result: result_types(sig).map(|mut r| {
                if let Some(assoc) = r.ok.strip_prefix("Self::")
                    && let Some(t) = cx.and_then(|c| c.assoc.get(assoc))
                {
                    r.ok = type_text(t);
                    r.ok_core = core_name(t);
                }
                if let Some(assoc) = r.err.as_deref().and_then(|e| e.strip_prefix("Self::"))
                    && let Some(t) = cx.and_then(|c| c.assoc.get(assoc))
                {
                    r.err = Some(type_text(t));
                }
                r
            }),
            impl_end_line: cx.filter(|c| c.trait_impl).map(|c| c.end_line),
            generics: if generics.params.is_empty() {
                String::new()
            } else {
                crate::suggest::fix::tokens_text(&generics.to_token_stream())
            },
            where_preds: generics
                .where_clause
                .as_ref()
                .map(|w| {
                    w.predicates
                        .iter()
                        .map(|p| crate::suggest::fix::tokens_text(&p.to_token_stream()))
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
}

/// The paths `#[derive(..)]` lists.
fn derives(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .flat_map(|a| match &a.meta {
            syn::Meta::List(l) => l
                .tokens
                .to_string()
                .split(',')
                .map(|d| d.replace(' ', ""))
                .filter(|d| !d.is_empty())
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

fn imports_side_effect(tree: &syn::UseTree, under_idemcheck: bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => {
            imports_side_effect(&p.tree, under_idemcheck || p.ident == "idemcheck")
        }
        syn::UseTree::Name(n) => under_idemcheck && n.ident == "side_effect",
        syn::UseTree::Rename(r) => {
            under_idemcheck && r.ident == "side_effect" && r.rename == "side_effect"
        }
        syn::UseTree::Glob(_) => under_idemcheck,
        syn::UseTree::Group(g) => g
            .items
            .iter()
            .any(|t| imports_side_effect(t, under_idemcheck)),
    }
}

/// The last identifier of a type, looking through references, `Option`, `Parameters`,
/// `Json`, `Box` (slices and arrays are `Vec`).
pub(super) fn core_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Reference(r) => core_name(&r.elem),
        syn::Type::Paren(p) => core_name(&p.elem),
        syn::Type::Group(g) => core_name(&g.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => "Vec".into(),
        syn::Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return String::new();
            };
            let name = seg.ident.to_string();
            if matches!(name.as_str(), "Option" | "Parameters" | "Json" | "Box")
                && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
                && let Some(syn::GenericArgument::Type(t)) = a.args.first()
            {
                return core_name(t);
            }
            name
        }
        _ => String::new(),
    }
}

/// A type as text, `Self::X` replaced by what the impl says `X` is.
fn resolved_text(ty: &syn::Type, cx: Option<&ImplCx<'_>>) -> String {
    match self_assoc(ty).and_then(|a| cx?.assoc.get(&a).copied()) {
        Some(t) if !matches!(ty, syn::Type::Reference(_)) => type_text(t),
        _ => type_text(ty),
    }
}

/// `X` of a `Self::X` type (also behind a reference).
fn self_assoc(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => self_assoc(&r.elem),
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
            (p.path.segments[0].ident == "Self").then(|| p.path.segments[1].ident.to_string())
        }
        _ => None,
    }
}

/// `Result<T, E>` (or an alias `X::Result<T>`): `T` and, when written, `E`.
fn result_types(sig: &syn::Signature) -> Option<SigResult> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    let syn::Type::Path(p) = &**ty else {
        return None;
    };
    let seg = p.path.segments.last()?;
    if !seg.ident.to_string().ends_with("Result") {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    let mut types = a.args.iter().filter_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let ok = types.next()?;
    let err = types.next().map(type_text);
    let path = super::scope::path_segments(&p.path);
    let err = err.or_else(|| {
        if path.iter().any(|s| s == "io") {
            Some("std::io::Error".into())
        } else if path.iter().any(|s| s == "anyhow") {
            Some("anyhow::Error".into())
        } else {
            None
        }
    });
    Some(SigResult {
        ok: type_text(ok),
        ok_core: core_name(ok),
        err,
    })
}

/// The name of a parameter in the stub, and its pattern as written there.
fn stub_param(param: &idemcheck_spec::signature::Param, n: usize) -> (String, String) {
    match &param.pat {
        Some(syn::Pat::Ident(p)) => (p.ident.to_string(), p.ident.to_string()),
        Some(syn::Pat::TupleStruct(ts)) if ts.elems.len() == 1 => {
            let path = ts
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            match ts.elems.first() {
                Some(syn::Pat::Ident(p)) => (p.ident.to_string(), format!("{path}({})", p.ident)),
                _ => (format!("arg{n}"), format!("arg{n}")),
            }
        }
        _ => (format!("arg{n}"), format!("arg{n}")),
    }
}
