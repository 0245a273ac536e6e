//! Parse, validate, then expand.

use std::path::PathBuf;
use std::sync::OnceLock;

use idemcheck_spec::attr::{KeyAttr, SideEffectAttr};
use idemcheck_spec::check::{CheckInput, Verdict, Violation, apply_allows, check_contract};
use idemcheck_spec::config::Config;
use idemcheck_spec::hints::ToolHints;
use idemcheck_spec::model::{Severity, ToolKind};
use idemcheck_spec::signature::ParamRole;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

/// The configuration of the crate being compiled, read once per compiler process.
fn config() -> &'static Result<Config, String> {
    static CONFIG: OnceLock<Result<Config, String>> = OnceLock::new();
    CONFIG.get_or_init(|| match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(dir) => Config::discover(&PathBuf::from(dir)).map_err(|e| e.to_string()),
        None => Ok(Config::default()),
    })
}

pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    expand_with(args, input, config())
}

/// The expansion under a given configuration (the crate's own, or a test's).
pub(crate) fn expand_with(
    args: TokenStream,
    input: TokenStream,
    config: &Result<Config, String>,
) -> TokenStream {
    let func: ItemFn = match syn::parse2(input.clone()) {
        Ok(f) => f,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "#[side_effect] goes on a tool function (`async fn` or `fn`, free or a method)",
            )
            .to_compile_error();
            return quote! { #err #input };
        }
    };
    let attr: SideEffectAttr = match syn::parse2(args) {
        Ok(a) => a,
        Err(e) => return with_errors(&func, e),
    };
    let config = match config {
        Ok(c) => c,
        Err(e) => {
            return with_errors(
                &func,
                syn::Error::new(Span::call_site(), format!("idemcheck configuration: {e}")),
            );
        }
    };
    let hints =
        idemcheck_spec::hints::hint_attribute(&func.attrs, config).map(ToolHints::from_attribute);
    // rig's `Tool::call` is keyed under `Self::NAME`: the findings name it so (the lint, which
    // sees the impl, names it by the `NAME`'s value).
    let mut named = hints.clone();
    if attr.name.is_none() && is_rig_call(&func.sig) {
        let h = named.get_or_insert_with(ToolHints::default);
        if h.name_text.is_none() {
            h.name_text = Some("Self::NAME".to_string());
        }
    }
    let mut verdict = check_contract(CheckInput {
        attr: &attr,
        sig: &func.sig,
        hints: named.as_ref(),
        config,
    });
    apply_allows(&mut verdict.violations, &attr.allows);
    let mut errors: Option<syn::Error> = None;
    let mut warnings = TokenStream::new();
    for v in verdict.violations.iter().filter(|v| v.suppressed.is_none()) {
        match v.severity {
            Severity::Error => {
                let e = v.span.error(v.compile_message());
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
            }
            Severity::Warning => warnings.extend(warning(&func.sig, v)),
            Severity::Note => {}
        }
    }
    // The function shapes the wrapper needs: the same check the lint runs.
    for v in idemcheck_spec::rules::idem011_malformed_contract::check_signature(&func.sig, None) {
        let e = v.span.error(v.compile_message());
        match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        }
    }
    let (beside, inside) = place_warnings(&func, &warnings);
    if let Some(e) = errors {
        // Warnings are not a cascade: the user sees them with the errors, not after fixing.
        let item = with_errors(&with_leading(&func, &inside), e);
        return quote! { #item #beside };
    }
    let expanded = Expander::new(&func, &attr, &verdict, hints.as_ref(), inside).expand();
    quote! { #expanded #beside }
}

/// The original item plus the errors: the user sees the contract errors, not a cascade.
fn with_errors(func: &ItemFn, errors: syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    quote! { #func #errors }
}

/// A warning on stable Rust: the use of a deprecated constant whose note is the finding, as a
/// block statement. Beside a free function it goes in a `const _`; a method's warnings go
/// inside its body, since nothing but the trait's own items may stand beside a method in a
/// trait impl (a `const` there is `E0438`).
fn warning(sig: &syn::Signature, v: &Violation) -> TokenStream {
    let fn_name = &sig.ident;
    let span = v.span.start;
    let name = format_ident!("{}_{}", fn_name, v.code.as_str(), span = span);
    let note = v.compile_message();
    let use_it = quote_spanned! {span=>
        #[allow(clippy::let_unit_value)]
        let _ = #name;
    };
    quote! {
        {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            #use_it
        }
    }
}

/// Where the warnings go: beside a free function, inside a method's body.
fn place_warnings(func: &ItemFn, warnings: &TokenStream) -> (TokenStream, TokenStream) {
    if warnings.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else if func.sig.receiver().is_some() {
        (TokenStream::new(), warnings.clone())
    } else {
        (quote! { const _: () = { #warnings }; }, TokenStream::new())
    }
}

/// `func` with `stmts` first in its body.
fn with_leading(func: &ItemFn, stmts: &TokenStream) -> ItemFn {
    let mut func = func.clone();
    if !stmts.is_empty() {
        let block = &func.block;
        func.block = Box::new(syn::parse_quote!({ #stmts #block }));
    }
    func
}

/// Whether a method is written in a trait impl, where nothing can be added beside it: it is
/// rig's `call` (`Tool::call`, `PortableTool::call`), or its signature names an associated
/// type of `Self` (`Self::Args`, `<Self as Tool>::Output`).
fn in_trait_impl(sig: &syn::Signature) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            let self_first = t.path.segments.first().is_some_and(|s| s.ident == "Self");
            let self_qualified = t
                .qself
                .as_ref()
                .is_some_and(|q| matches!(&*q.ty, Type::Path(p) if p.path.is_ident("Self")));
            if (self_first && t.path.segments.len() >= 2) || self_qualified {
                self.0 = true;
            }
            syn::visit::visit_type_path(self, t);
        }
    }
    if sig.ident == "call" {
        return true;
    }
    let mut finder = Finder(false);
    for input in &sig.inputs {
        if let FnArg::Typed(pt) = input {
            syn::visit::Visit::visit_type(&mut finder, &pt.ty);
        }
    }
    syn::visit::Visit::visit_return_type(&mut finder, &sig.output);
    finder.0
}

/// Whether a method is rig's `Tool::call` guarded in place: a trait-impl method named `call`
/// with a receiver. Its public name is the trait's `NAME`.
fn is_rig_call(sig: &syn::Signature) -> bool {
    sig.receiver().is_some() && sig.ident == "call" && in_trait_impl(sig)
}

/// rmcp's request extractors, which may carry the run scope in `_meta`: `RequestContext`,
/// `RequestMetaObject` (rmcp 3), and in a crate that depends on rmcp, `Meta` (before 3).
fn is_request_type(ty: &Type, rmcp: bool) -> bool {
    last_ident(ty)
        .is_some_and(|s| s == "RequestContext" || s == "RequestMetaObject" || (rmcp && s == "Meta"))
}

/// rmcp's `RequestContext`, whose `meta` field holds the request's `_meta`.
fn is_request_context(ty: &Type) -> bool {
    last_ident(ty).is_some_and(|s| s == "RequestContext")
}

/// The last segment of a (referenced) path type.
fn last_ident(ty: &Type) -> Option<&Ident> {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| &s.ident),
        _ => None,
    }
}

/// The path of `rig-core` as the crate being compiled names it (`::rig_core`, or its rename),
/// when it depends on it.
fn rig_crate() -> Option<TokenStream> {
    use proc_macro_crate::{FoundCrate, crate_name};
    match crate_name("rig-core").ok()? {
        FoundCrate::Itself => Some(quote!(crate)),
        FoundCrate::Name(name) => {
            let ident = Ident::new(&name, Span::call_site());
            Some(quote!(::#ident))
        }
    }
}

/// The path of `rmcp` as the crate being compiled names it (`::rmcp`, or its rename), when it
/// depends on it directly: then a guarded method's expansion carries the rmcp pieces itself,
/// naming that crate's own rmcp (any version from 0.11 on), and the runtime needs no rmcp.
///
/// A dev-dependency counts only where dev-dependencies are linked: not in the package's
/// library or binaries (where `::rmcp` would not resolve), but in its integration tests,
/// benches and examples. (A library's own unit tests are not told apart from the library:
/// there an rmcp that is only a dev-dependency is not used.)
fn rmcp_crate() -> Option<TokenStream> {
    use proc_macro_crate::{FoundCrate, crate_name};
    let path = match crate_name("rmcp").ok()? {
        FoundCrate::Itself => return Some(quote!(crate)),
        FoundCrate::Name(name) => {
            let ident = Ident::new(&name, Span::call_site());
            quote!(::#ident)
        }
    };
    let env = |name: &str| std::env::var(name).ok();
    let manifest = env("CARGO_MANIFEST_DIR")
        .and_then(|dir| std::fs::read_to_string(PathBuf::from(dir).join("Cargo.toml")).ok());
    let normal = manifest.is_none_or(|m| declares_normal_dependency(&m, "rmcp"));
    let dev_linked = env("CARGO_TARGET_TMPDIR").is_some()
        || (env("CARGO_BIN_NAME").is_none()
            && env("CARGO_CRATE_NAME")
                .is_some_and(|c| env("CARGO_PKG_NAME").is_some_and(|p| c != p.replace('-', "_"))));
    (normal || dev_linked).then_some(path)
}

/// Whether a manifest declares the package `package` (under its own name or renamed with
/// `package = ".."`) in `[dependencies]` or a `[target.'..'.dependencies]` table, not only
/// in dev- or build-dependencies. A line scan: keys and table headers start their lines.
fn declares_normal_dependency(manifest: &str, package: &str) -> bool {
    let mut normal = false;
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']').trim();
            normal = header == "dependencies"
                || (header.starts_with("target.") && header.ends_with(".dependencies"));
            // `[dependencies.rmcp]` (a rename's `package` key in that table is not followed).
            if header
                .strip_prefix("dependencies.")
                .is_some_and(|name| name.trim_matches('"') == package)
            {
                return true;
            }
            continue;
        }
        if !normal {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        let key = key.split('.').next().unwrap_or(key);
        let renamed = value.split([',', '{', '}']).any(|part| {
            part.split_once('=').is_some_and(|(k, v)| {
                k.trim() == "package" && v.trim().trim_matches('"') == package
            })
        });
        if key == package || renamed {
            return true;
        }
    }
    false
}

/// `Result<Json<T>, E>` as rmcp's `#[tool]` recognises it (last segments `Result` and
/// `Json`): the `Json<T>` type and `E`.
fn json_result(ret: &ReturnType) -> Option<(Type, Type)> {
    let ReturnType::Type(_, ty) = ret else {
        return None;
    };
    let Type::Path(tp) = &**ty else { return None };
    let last = tp.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    });
    let (ok, err) = (types.next()?, types.next()?);
    let Type::Path(ok_path) = &ok else {
        return None;
    };
    let ok_last = ok_path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(inner) = &ok_last.arguments else {
        return None;
    };
    let json_inner = inner
        .args
        .iter()
        .any(|a| matches!(a, syn::GenericArgument::Type(_)));
    (ok_last.ident == "Json" && json_inner).then_some((ok, err))
}

/// The inner `T` of a `Json<T>` type.
fn json_inner(json: &Type) -> Option<&Type> {
    let Type::Path(tp) = json else { return None };
    let syn::PathArguments::AngleBracketed(args) = &tp.path.segments.last()?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// Whether an attribute is rmcp's `#[tool]` (`#[tool]`, `#[tool(..)]`, `#[rmcp::tool(..)]`).
fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tool")
}

/// A tool guarded in a crate that depends on rmcp.
struct Rmcp {
    /// The crate's own rmcp.
    path: TokenStream,
    /// For a `#[tool]` returning `Result<Json<T>, E>`: `Json<T>` and `E`. The guarded method
    /// then returns `Result<CallToolResult, E>` (a refusal must be an `isError` result, which
    /// `Json<T>` cannot be), with the output schema of `T` given to `#[tool]` explicitly.
    json: Option<(Type, Type)>,
}

/// What one attempt runs.
enum Raw {
    /// A function beside the guard (the raw tool, or the method's `<name>_unguarded`).
    Call(TokenStream),
    /// The method's own body, inside the guarded method (nothing is added beside it).
    InPlace(Box<syn::Block>),
}

struct Expander<'a> {
    func: &'a ItemFn,
    attr: &'a SideEffectAttr,
    verdict: &'a Verdict,
    hints: Option<&'a ToolHints>,
    /// Per parameter: the name the wrapper's signature gives it.
    names: Vec<Option<Ident>>,
    /// Warning statements for a method's body.
    warnings: TokenStream,
    /// Set for a method in a crate that depends on rmcp.
    rmcp: Option<Rmcp>,
}

impl<'a> Expander<'a> {
    fn new(
        func: &'a ItemFn,
        attr: &'a SideEffectAttr,
        verdict: &'a Verdict,
        hints: Option<&'a ToolHints>,
        warnings: TokenStream,
    ) -> Self {
        let names = verdict
            .signature
            .params
            .iter()
            .map(|p| match &p.pat {
                None => None,
                Some(Pat::Ident(pi)) if pi.subpat.is_none() => Some(pi.ident.clone()),
                Some(_) => Some(format_ident!("__idemcheck_arg{}", p.index)),
            })
            .collect();
        // A free function is classified the same way (it may return rmcp's `ErrorData`);
        // only a method is an rmcp tool whose answer the guard shapes.
        let rmcp = rmcp_crate().map(|path| Rmcp {
            path,
            json: json_result(&func.sig.output).filter(|_| {
                verdict.signature.has_receiver() && func.attrs.iter().any(is_tool_attr)
            }),
        });
        Expander {
            func,
            attr,
            verdict,
            hints,
            names,
            warnings,
            rmcp,
        }
    }

    fn is_method(&self) -> bool {
        self.verdict.signature.has_receiver()
    }

    /// Whether this is rig's `Tool::call` guarded in place ([`is_rig_call`]).
    fn is_rig_call(&self) -> bool {
        is_rig_call(&self.func.sig)
    }

    /// The tool's identity (part of every key, the ledger's `tool`, escalations): `name = ".."`,
    /// else the framework's name (rmcp `#[tool(name)]`), else rig's `Self::NAME` for
    /// `Tool::call`, else the function's name.
    fn tool_name(&self) -> TokenStream {
        if self.attr.name.is_none()
            && self.hints.and_then(|h| h.name_text.as_ref()).is_none()
            && self.is_rig_call()
        {
            let span = self.func.sig.ident.span();
            return quote_spanned!(span=> <Self>::NAME);
        }
        let name = idemcheck_spec::check::tool_name(self.attr, &self.func.sig, self.hints);
        quote!(#name)
    }

    fn contract(&self) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let name = self.tool_name();
        let fn_name = self.func.sig.ident.to_string();
        let kind = match self.attr.kind() {
            ToolKind::Write => quote!(#p::ToolKind::Write),
            ToolKind::Read => quote!(#p::ToolKind::Read),
        };
        let path_text = |path: &syn::Path| path.to_token_stream().to_string().replace(' ', "");
        let key = match &self.attr.key {
            None => quote!(#p::KeySpec::None),
            Some(KeyAttr::Fields { fields, .. }) => {
                let f = fields.iter().map(|f| &f.text);
                quote!(#p::KeySpec::Fields(&[#(#f),*]))
            }
            Some(KeyAttr::Function(path)) => {
                let t = path_text(path);
                quote!(#p::KeySpec::Function(#t))
            }
        };
        let chosen: Vec<&str> = match &self.attr.key {
            Some(KeyAttr::Fields { fields, .. }) => fields
                .iter()
                .map(|f| f.text.as_str())
                .filter(|f| idemcheck_spec::keys::is_caller_chosen(f))
                .collect(),
            _ => Vec::new(),
        };
        let key_context: Vec<&str> = self
            .attr
            .key_context
            .iter()
            .flat_map(|k| &k.parts)
            .map(|p| p.value.as_str())
            .collect();
        let opt = |v: Option<TokenStream>| match v {
            Some(v) => quote!(::core::option::Option::Some(#v)),
            None => quote!(::core::option::Option::None),
        };
        let verify = opt(self.attr.verify.as_ref().map(|v| {
            let t = path_text(v);
            quote!(#t)
        }));
        let no_postcondition = self.attr.verify_none.is_some();
        let max_retries = opt(self.attr.max_retries.map(|m| {
            let v = m.value;
            quote!(#v)
        }));
        let timeout_ms = opt(self.attr.timeout_ms.map(|m| {
            let v = m.value;
            quote!(#v)
        }));
        let settle_ms = opt(self.attr.settle_ms.map(|m| {
            let v = m.value;
            quote!(#v)
        }));
        let ttl_hours = self
            .attr
            .ttl_hours
            .map_or(idemcheck_spec::model::DEFAULT_TTL_HOURS, |t| t.value);
        let server_dedup = self.attr.server_dedup.is_some_and(|d| d.value);
        let suppressions = self.attr.allows.iter().map(|a| {
            let rules = a.rules.iter().map(|r| r.value.as_str());
            let reason = a.reason.value();
            quote!(#p::StaticSuppression { rules: &[#(#rules),*], reason: #reason })
        });
        quote! {
            #p::Contract {
                name: #name,
                function: ::core::concat!(::core::module_path!(), "::", #fn_name),
                kind: #kind,
                key: #key,
                chosen_key_fields: &[#(#chosen),*],
                key_context: &[#(#key_context),*],
                verify: #verify,
                no_postcondition: #no_postcondition,
                max_retries: #max_retries,
                timeout_ms: #timeout_ms,
                settle_ms: #settle_ms,
                ttl_hours: #ttl_hours,
                server_dedup: #server_dedup,
                suppressions: &[#(#suppressions),*],
            }
        }
    }

    /// The wrapper's parameter list (receiver kept, patterns replaced by names).
    fn params(&self) -> Vec<TokenStream> {
        self.func
            .sig
            .inputs
            .iter()
            .zip(&self.names)
            .map(|(arg, name)| match arg {
                FnArg::Receiver(r) => r.to_token_stream(),
                FnArg::Typed(pt) => {
                    let ty = &pt.ty;
                    let attrs = &pt.attrs;
                    quote!(#(#attrs)* #name: #ty)
                }
            })
            .collect()
    }

    /// `let <pattern> = &<name>;` for destructured parameters, so key fields and the
    /// fingerprint can name the user's bindings.
    fn rebind(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (param, name) in self.verdict.signature.params.iter().zip(&self.names) {
            if let (Some(pat), Some(name)) = (&param.pat, name)
                && !matches!(pat, Pat::Ident(pi) if pi.subpat.is_none())
            {
                out.extend(quote! {
                    #[allow(unused_variables)]
                    let #pat = &#name;
                });
            }
        }
        out
    }

    /// Whether parameter `i` is a `&mut` reference (lent to one attempt at a time).
    fn is_mut_ref(&self, i: usize) -> bool {
        matches!(&self.verdict.signature.params[i].ty, Some(Type::Reference(r)) if r.mutability.is_some())
    }

    /// The lend holding `&mut` parameter `i`, and the guard an attempt takes from it.
    fn lend_idents(&self, i: usize) -> (Ident, Ident) {
        (
            format_ident!("__idemcheck_lend{}", i),
            format_ident!("__idemcheck_lent{}", i),
        )
    }

    /// The lend and guard names of each `&mut` parameter, with the parameter's name.
    fn lends(&self) -> Vec<(Ident, Ident, &Ident)> {
        self.names
            .iter()
            .enumerate()
            .filter_map(|(i, name)| match (self.is_mut_ref(i), name) {
                (true, Some(name)) => {
                    let (lend, lent) = self.lend_idents(i);
                    Some((lend, lent, name))
                }
                _ => None,
            })
            .collect()
    }

    /// `let __idemcheck_lendN = Lend::new(name);` for each `&mut` parameter.
    fn lend_setup(&self) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let lends = self.lends();
        let (lend, name): (Vec<&Ident>, Vec<&Ident>) =
            lends.iter().map(|(l, _, n)| (l, *n)).unzip();
        quote! { #(let #lend = #p::Lend::new(#name);)* }
    }

    /// Inside an attempt's closure, before its `async move`: a reference to each lend.
    fn lend_refs(&self) -> TokenStream {
        let lend: Vec<Ident> = self.lends().into_iter().map(|(l, _, _)| l).collect();
        quote! { #(let #lend = &#lend;)* }
    }

    /// Inside an attempt's `async move`: the guard of each lend, held while it runs.
    fn lend_takes(&self) -> TokenStream {
        let (lend, lent): (Vec<Ident>, Vec<Ident>) =
            self.lends().into_iter().map(|(l, g, _)| (l, g)).unzip();
        quote! {
            #(
                #[allow(unused_mut)]
                let mut #lent = #lend.take();
            )*
        }
    }

    /// Arguments for one attempt: references passed through, owned values cloned, `&mut`
    /// parameters reborrowed from their lend. With `owned`, the owned values are the
    /// clones `__idemcheck_ownN` made before the attempt's `async move`.
    fn attempt_args(&self, owned: bool) -> Vec<TokenStream> {
        self.verdict
            .signature
            .params
            .iter()
            .zip(&self.names)
            .enumerate()
            .map(|(i, (param, name))| match (&param.ty, name) {
                (_, None) => quote!(self),
                (_, Some(_)) if self.is_mut_ref(i) => {
                    let (_, lent) = self.lend_idents(i);
                    quote!(&mut *#lent)
                }
                (Some(Type::Reference(_)), Some(name)) => quote!(#name),
                (_, Some(_)) if owned => {
                    let own = format_ident!("__idemcheck_own{}", i);
                    quote!(#own)
                }
                (_, Some(name)) => quote!(::core::clone::Clone::clone(&#name)),
            })
            .collect()
    }

    /// `let __idemcheck_ownN = name.clone();` for owned parameters, in an attempt's closure.
    fn owned_clones(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, (param, name)) in self
            .verdict
            .signature
            .params
            .iter()
            .zip(&self.names)
            .enumerate()
        {
            if let (false, Some(name)) = (matches!(param.ty, Some(Type::Reference(_))), name) {
                let own = format_ident!("__idemcheck_own{}", i);
                out.extend(quote! { let #own = ::core::clone::Clone::clone(&#name); });
            }
        }
        out
    }

    /// Arguments for the postcondition: every parameter by reference.
    fn verify_args(&self) -> Vec<TokenStream> {
        self.verdict
            .signature
            .params
            .iter()
            .zip(&self.names)
            .enumerate()
            .map(|(i, (param, name))| match (&param.ty, name) {
                (_, None) => quote!(self),
                (_, Some(_)) if self.is_mut_ref(i) => {
                    let (_, lent) = self.lend_idents(i);
                    quote!(&*#lent)
                }
                (Some(Type::Reference(_)), Some(name)) => quote!(#name),
                (_, Some(name)) => quote!(&#name),
            })
            .collect()
    }

    /// Input bindings by reference, for `key_fn`.
    fn input_refs(&self) -> Vec<TokenStream> {
        self.verdict
            .signature
            .inputs()
            .flat_map(|p| {
                p.bindings.iter().map(move |b| {
                    if p.parameters_wrapper {
                        quote!(&#b.0)
                    } else {
                        quote!(&#b)
                    }
                })
            })
            .collect()
    }

    fn key_material(&self, ctx: &TokenStream) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        match &self.attr.key {
            Some(KeyAttr::Fields { .. }) => {
                let fields = self.verdict.key_fields.iter().map(|f| {
                    let label = &f.label;
                    let binding = &f.binding;
                    let wrapper = f.through_wrapper.then(|| quote!(.0));
                    let rest = &f.rest;
                    // Spanned at the entry, so a type that cannot be serialised is reported
                    // at the key field that names it.
                    let span = f.span.start;
                    quote_spanned!(span=> .field(#label, &#binding #wrapper #(.#rest)*))
                });
                quote!(#p::Material::new() #(#fields)*)
            }
            Some(KeyAttr::Function(path)) => {
                let path = self.resolve_path(path);
                let args = self.input_refs();
                match &self.attr.key_context {
                    // The key function reads the context too: what the contract declares.
                    Some(kc) => {
                        let reads = kc.parts.iter().map(|p| p.value.as_str());
                        quote!(#p::Material::whole(&#path(
                            &#p::KeyContext::new(#ctx, &[#(#reads),*]),
                            #(#args),*
                        )))
                    }
                    None => quote!(#p::Material::whole(&#path(#(#args),*))),
                }
            }
            None => quote!(#p::Material::new()),
        }
    }

    fn inputs_material(&self) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let fields = self
            .verdict
            .signature
            .params
            .iter()
            .filter(|p| p.role == ParamRole::Input)
            .flat_map(|p| {
                p.bindings.iter().map(move |b| {
                    let label = b.to_string();
                    // Spanned at the parameter: an input that cannot be serialised is reported there.
                    let span = b.span();
                    if p.parameters_wrapper {
                        quote_spanned!(span=> .field(#label, &#b.0))
                    } else {
                        quote_spanned!(span=> .field(#label, &#b))
                    }
                })
            });
        quote!(#p::Material::new() #(#fields)*)
    }

    /// In a method, a bare `verify = name` means `Self::name`.
    fn resolve_path(&self, path: &syn::Path) -> TokenStream {
        if self.is_method() && path.get_ident().is_some() {
            quote!(Self::#path)
        } else {
            quote!(#path)
        }
    }

    fn ready(&self, call: TokenStream) -> TokenStream {
        if self.func.sig.asyncness.is_some() {
            call
        } else {
            quote!(::core::future::ready(#call))
        }
    }

    /// One attempt, as the executor's closure calls it: the raw function, or (a method guarded
    /// in place) the method's own body as an async block. `&mut` parameters come from their
    /// lend, owned ones are cloned per attempt.
    fn attempt(&self, raw: &Raw) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let lends = (0..self.names.len()).any(|i| self.is_mut_ref(i));
        match raw {
            Raw::Call(path) if !lends => {
                let args = self.attempt_args(false);
                self.ready(quote!(#path(#(#args),*)))
            }
            Raw::Call(path) => {
                let clones = self.owned_clones();
                let refs = self.lend_refs();
                let takes = self.lend_takes();
                let args = self.attempt_args(true);
                let call = self.ready(quote!(#path(#(#args),*)));
                quote!({ #clones #refs async move { #takes #call.await } })
            }
            Raw::InPlace(block) => {
                let clones = self.owned_clones();
                let refs = self.lend_refs();
                let takes = self.lend_takes();
                let args = self.attempt_args(true);
                // The user's own patterns, bound as the method bound them.
                let binds =
                    self.verdict
                        .signature
                        .params
                        .iter()
                        .zip(args)
                        .filter_map(|(param, arg)| {
                            param.pat.as_ref().map(|pat| {
                                quote! {
                                    #[allow(unused_variables, unused_mut)]
                                    let #pat = #arg;
                                }
                            })
                        });
                let ret = self.ret();
                quote!({
                    #clones
                    #refs
                    #p::attempt::<#ret, _>(async move {
                        #takes
                        #(#binds)*
                        #block
                    })
                })
            }
        }
    }

    fn body(&self, ctx: TokenStream, contract: TokenStream, raw: &Raw) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let rebind = self.rebind();
        let key = self.key_material(&ctx);
        let inputs = self.inputs_material();
        let attempt = self.attempt(raw);
        let lends = (0..self.names.len()).any(|i| self.is_mut_ref(i));
        let verify = match &self.attr.verify {
            Some(path) => {
                // Spanned at `verify = path`: a postcondition of the wrong type is reported
                // there, naming the type it must return.
                let span = syn::spanned::Spanned::span(path);
                let ret = self.ret();
                let path = self.resolve_path(path);
                let args = self.verify_args();
                let call = self.ready(quote_spanned!(span=> #path(#(#args),*)));
                let checked = quote_spanned!(span=> ::idemcheck::__private::postcondition::<::idemcheck::__private::OkOf<#ret>, _>({ #call }));
                let checked = if lends {
                    let takes = self.lend_takes();
                    quote!(async { #takes #checked.await })
                } else {
                    checked
                };
                // A `Json<T>` tool's postcondition answers `Json<T>`, as the tool does; the
                // ledger keeps the `T`.
                match self.rmcp.as_ref().and_then(|r| r.json.as_ref()) {
                    Some((json, _)) => quote!(#p::map_done(#checked, |__v: #json| __v.0)),
                    None => checked,
                }
            }
            // No postcondition (`verify = none`, a suppressed IDEM002, or a read): never
            // "done". With `verify = none` the runtime never calls it.
            None => quote!(::core::future::ready(::core::result::Result::<
                _,
                &'static str,
            >::Err(
                "no postcondition declared"
            ))),
        };
        let lend_setup = self.lend_setup();
        let ret = self.ret();
        // In a crate that depends on rmcp the error type is classified here (rmcp's
        // `ErrorData` cannot implement `Classify` outside rmcp or idemcheck), and a `Json<T>`
        // attempt's value is its `T`.
        let (attempt, err_ty, classify, unclassed) = match &self.rmcp {
            Some(r) => {
                let attempt = match &r.json {
                    Some((json, _)) => quote!(#p::map_ok(#attempt, |__v: #json| __v.0)),
                    None => attempt,
                };
                let classify = self.rmcp_classify(&r.path);
                (
                    quote!(#p::classed(#attempt, __idemcheck_class)),
                    quote!(#p::Classed<#p::ErrOf<#ret>>),
                    quote!(let __idemcheck_class = #classify;),
                    quote!(let __idemcheck_outcome = #p::unclassed(__idemcheck_outcome);),
                )
            }
            None => (
                attempt,
                quote!(#p::ErrOf<#ret>),
                TokenStream::new(),
                TokenStream::new(),
            ),
        };
        quote! {
            #rebind
            #lend_setup
            #classify
            // The postcondition is a block spanned at `verify = path` (see above).
            // A definite failure is stored with its value when the error type can be
            // (`Serialize + Deserialize`), so a replay keeps the tool's own error type.
            let __idemcheck_codec = {
                #[allow(unused_imports)]
                use #p::{CodecViaSerde as _, CodecViaText as _};
                (&#p::CodecFor::<#err_ty>::new()).idemcheck_codec()
            };
            #[allow(unused_braces)]
            let __idemcheck_outcome = #p::run_with(
                #ctx,
                #contract,
                #key,
                #inputs,
                || #attempt,
                || #verify,
                &__idemcheck_codec,
            )
            .await;
            #unclassed
            __idemcheck_outcome
        }
    }

    /// The classifier of the tool's error type, chosen by type: rmcp's `ErrorData` by its
    /// JSON-RPC code, any other type by its `Classify` impl.
    fn rmcp_classify(&self, rmcp: &TokenStream) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let ret = self.ret();
        quote! {{
            #[allow(unused_imports)]
            use #p::ClassViaClassify as _;
            trait __IdemcheckClassRmcp {
                fn idemcheck_class(&self) -> fn(&#rmcp::ErrorData) -> #p::ErrorClass;
            }
            impl __IdemcheckClassRmcp for #p::ClassOf<#rmcp::ErrorData> {
                fn idemcheck_class(&self) -> fn(&#rmcp::ErrorData) -> #p::ErrorClass {
                    |e| #p::jsonrpc_error_class(e.code.0)
                }
            }
            (&#p::ClassOf::<#p::ErrOf<#ret>>::new()).idemcheck_class()
        }}
    }

    /// How a method in a crate that depends on rmcp answers its outcome ([`Rmcp`]): a
    /// refusal or an Unknown is an `isError` `CallToolResult` (details in `_meta`) when the
    /// method answers one, else `Err` (rmcp's `ErrorData`: an internal error whose `data`
    /// holds the details; any other type: `From<Escalation>`).
    fn rmcp_answer(&self, r: &Rmcp, contract_ref: &TokenStream) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let rmcp = &r.path;
        let ret = self.ret();
        let ctr = quote!(#rmcp::model::CallToolResult);
        // A tool result from the wire JSON `answer` gives: `content`, `isError`, `_meta`, set
        // on rmcp's own constructor (the fields and `error` exist in every version; the
        // content and meta types differ, and are read by type).
        let build = quote! {{
            fn __idemcheck_tool_result(json: #p::serde_json::Value) -> #ctr {
                let mut result = #ctr::error(::std::vec::Vec::new());
                result.content =
                    #p::serde_json::from_value(json["content"].clone()).unwrap_or_default();
                result.meta = #p::serde_json::from_value(json["_meta"].clone()).ok();
                result
            }
            __idemcheck_tool_result as fn(#p::serde_json::Value) -> #ctr
        }};
        let (ok, tool_result) = match &r.json {
            Some((json, _)) => {
                let inner = json_inner(json);
                (
                    quote! {{
                        fn __idemcheck_structured(value: #inner) -> #ctr {
                            match #p::serde_json::to_value(&value) {
                                ::core::result::Result::Ok(value) => #ctr::structured(value),
                                ::core::result::Result::Err(e) => {
                                    let mut result = #ctr::error(::std::vec::Vec::new());
                                    result.content = #p::serde_json::from_value(#p::serde_json::json!([
                                        { "type": "text", "text": ::std::format!("the result cannot be serialised: {e}") }
                                    ])).unwrap_or_default();
                                    result
                                }
                            }
                        }
                        __idemcheck_structured as fn(#inner) -> #ctr
                    }},
                    quote!(::core::option::Option::Some(#build)),
                )
            }
            None => (
                quote!(::core::convert::identity),
                quote! {{
                    #[allow(unused_imports)]
                    use #p::NotAToolResult as _;
                    trait __IdemcheckToolResultRmcp {
                        fn idemcheck_tool_result(&self) -> ::core::option::Option<fn(#p::serde_json::Value) -> #ctr>;
                    }
                    impl __IdemcheckToolResultRmcp for #p::ToolResultOf<#ctr> {
                        fn idemcheck_tool_result(&self) -> ::core::option::Option<fn(#p::serde_json::Value) -> #ctr> {
                            ::core::option::Option::Some(#build)
                        }
                    }
                    (&#p::ToolResultOf::<#p::OkOf<#ret>>::new()).idemcheck_tool_result()
                }},
            ),
        };
        quote! {{
            let __idemcheck_escalate = {
                #[allow(unused_imports)]
                use #p::EscalateViaFrom as _;
                trait __IdemcheckEscalateRmcp {
                    fn idemcheck_escalate(&self) -> fn(#p::Escalation) -> #rmcp::ErrorData;
                }
                impl __IdemcheckEscalateRmcp for #p::EscalateTo<#rmcp::ErrorData> {
                    fn idemcheck_escalate(&self) -> fn(#p::Escalation) -> #rmcp::ErrorData {
                        |e| {
                            let data = e.to_json();
                            #rmcp::ErrorData::internal_error(
                                ::std::string::ToString::to_string(&e),
                                ::core::option::Option::Some(data),
                            )
                        }
                    }
                }
                (&#p::EscalateTo::<#p::ErrOf<#ret>>::new()).idemcheck_escalate()
            };
            #p::answer(
                __idemcheck_outcome,
                #contract_ref,
                &__idemcheck_ctx,
                #p::Answering {
                    ok: #ok,
                    tool_result: #tool_result,
                    escalate: __idemcheck_escalate,
                },
            )
        }}
    }

    fn ret(&self) -> TokenStream {
        match &self.func.sig.output {
            ReturnType::Type(_, ty) => quote!(#ty),
            ReturnType::Default => quote!(()),
        }
    }

    fn expand(&self) -> TokenStream {
        if self.is_method() {
            self.expand_method()
        } else {
            self.expand_free()
        }
    }

    fn expand_free(&self) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let func = self.func;
        let vis = &func.vis;
        let ident = &func.sig.ident;
        let (impl_generics, _, where_clause) = func.sig.generics.split_for_impl();
        let params = self.params();
        let ret = self.ret();
        let contract = self.contract();
        let body = self.body(
            quote!(__idemcheck_ctx),
            quote!(&<Self as #p::GuardedTool>::CONTRACT),
            &Raw::Call(quote!(#ident)),
        );
        let doc_struct = format!("Contract and guarded entry point of the tool [`{ident}()`].");
        let doc_call = format!(
            "Call [`{ident}()`] under its contract: same key on every attempt, verify before any retry, retries capped. Returns `Completed`, `NotCompleted` or `Unknown`."
        );
        quote! {
            #func

            #[doc = #doc_struct]
            #[allow(non_camel_case_types)]
            #vis struct #ident {}

            impl #p::GuardedTool for #ident {
                const CONTRACT: #p::Contract = #contract;
            }

            impl #ident {
                /// The tool's contract, as data.
                #[allow(dead_code)]
                pub const CONTRACT: #p::Contract = <Self as #p::GuardedTool>::CONTRACT;

                #[doc = #doc_call]
                #[allow(dead_code, clippy::too_many_arguments)]
                pub async fn call #impl_generics (
                    __idemcheck_ctx: &#p::Context,
                    #(#params),*
                ) -> #p::Outcome<#p::OkOf<#ret>, #p::ErrOf<#ret>> #where_clause {
                    #body
                }
            }
        }
    }

    /// rig's `Tool::map_error` for a guarded `Tool::call` (rig 0.44 and later, whose `call`
    /// takes a `&mut ToolContext`): rig shows the model only a redacted "the tool failed" for
    /// an error it does not know, so the guard's refusals and Unknowns would reach operators
    /// only. The generated `map_error` keeps rig's default for every other error and gives an
    /// escalation's [`Feedback`](idemcheck::Feedback) to the model. Not generated with
    /// `map_error = false`, nor when `rig-core` is not a dependency of the crate (then it is
    /// not rig's trait).
    fn rig_map_error(&self) -> TokenStream {
        if !self.is_rig_call() || self.attr.map_error.is_some_and(|m| !m.value) {
            return TokenStream::new();
        }
        let takes_context = self.verdict.signature.params.iter().any(|p| {
            let ty = match &p.ty {
                Some(Type::Reference(r)) => &*r.elem,
                Some(other) => other,
                None => return false,
            };
            matches!(ty, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == "ToolContext"))
        });
        if !takes_context {
            return TokenStream::new();
        }
        let Some(rig) = rig_crate() else {
            return TokenStream::new();
        };
        let span = self.func.sig.ident.span();
        quote_spanned! {span=>
            /// rig's error mapping with the idemcheck guard's advice shown to the model
            /// (generated by `#[side_effect]` on `call`; `map_error = false` turns it off).
            fn map_error(&self, error: Self::Error) -> #rig::tool::ToolExecutionError {
                let feedback = ::idemcheck::Feedback::find_in(&error).cloned();
                let mapped = #rig::tool::ToolExecutionError::from_error(error);
                match feedback {
                    ::core::option::Option::Some(f) => mapped
                        .with_model_feedback(f.advice)
                        .with_retryable(f.retryable),
                    ::core::option::Option::None => mapped,
                }
            }
        }
    }

    /// The method's attributes. For a `Json<T>` tool whose return type the guard changes to
    /// `CallToolResult` ([`Rmcp::json`]), rmcp's `#[tool]` no longer sees `Json<T>`: it is
    /// given `output_schema` explicitly, the schema it would have derived (rmcp's
    /// `schema_for_output::<T>()`, a `Result` before rmcp 3 and the schema from 3 on).
    fn method_attrs(&self) -> Vec<syn::Attribute> {
        let p = quote!(::idemcheck::__private);
        let mut attrs = self.func.attrs.clone();
        let Some(Rmcp {
            path,
            json: Some((json, _)),
        }) = &self.rmcp
        else {
            return attrs;
        };
        let Some(inner) = json_inner(json) else {
            return attrs;
        };
        let schema = quote! {{
            #[allow(unused_imports)]
            use #p::{SchemaAsIs as _, SchemaFromResult as _};
            (&#p::OutputSchema(#path::handler::server::tool::schema_for_output::<#inner>())).idemcheck_schema()
        }};
        for attr in attrs.iter_mut().filter(|a| is_tool_attr(a)) {
            let tool_path = attr.path().clone();
            match &attr.meta {
                syn::Meta::Path(_) => {
                    *attr = syn::parse_quote!(#[#tool_path(output_schema = #schema)]);
                }
                syn::Meta::List(list) => {
                    let declared = list.tokens.clone().into_iter().any(
                        |t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "output_schema"),
                    );
                    if !declared {
                        let tokens = &list.tokens;
                        let trailing = tokens.clone().into_iter().last().is_none_or(|t| {
                            matches!(&t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',')
                        });
                        let sep = (!trailing).then(|| quote!(,));
                        *attr =
                            syn::parse_quote!(#[#tool_path(#tokens #sep output_schema = #schema)]);
                    }
                }
                syn::Meta::NameValue(_) => {}
            }
        }
        attrs
    }

    fn expand_method(&self) -> TokenStream {
        let p = quote!(::idemcheck::__private);
        let func = self.func;
        let ident = &func.sig.ident;
        let raw_ident = format_ident!("{}_unguarded", ident);
        let const_ident = format_ident!("{}_CONTRACT", ident.to_string().to_uppercase());
        let vis = &func.vis;
        let contract = self.contract();
        // The raw method: the original body under a new name, without framework attributes
        // (they stay on the guarded method, which keeps the public name).
        let mut raw = func.clone();
        raw.sig.ident = raw_ident.clone();
        raw.attrs
            .retain(|a| a.path().is_ident("allow") || a.path().is_ident("cfg"));
        let raw_doc = format!(
            "The unguarded body of [`Self::{ident}`]: performs the effect without the ledger. For tests and the simulator."
        );
        // The guarded method: same name, attributes and signature.
        let mut guarded_sig = func.sig.clone();
        guarded_sig.asyncness = Some(Default::default());
        if let Some(Rmcp {
            path,
            json: Some((_, err)),
        }) = &self.rmcp
        {
            guarded_sig.output = syn::parse_quote!(
                -> ::core::result::Result<#path::model::CallToolResult, #err>
            );
        }
        for (arg, name) in guarded_sig.inputs.iter_mut().zip(&self.names) {
            if let (FnArg::Typed(pt), Some(name)) = (arg, name) {
                *pt.pat = syn::parse_quote!(#name);
            }
        }
        let attrs = self.method_attrs();
        // In a trait impl (rig's `Tool::call`) nothing may be added beside the method: the
        // contract and the raw body stay inside it.
        let in_place = in_trait_impl(&func.sig);
        let contract_ref = if in_place {
            quote!(&__idemcheck_contract)
        } else {
            quote!(&Self::#const_ident)
        };
        let raw_call = if in_place {
            Raw::InPlace(func.block.clone())
        } else {
            Raw::Call(quote!(Self::#raw_ident))
        };
        let body = self.body(quote!(&__idemcheck_ctx), contract_ref.clone(), &raw_call);
        // A request that carries the run scope (an MCP `_meta`) keys the call under that run.
        let scoped = self
            .verdict
            .signature
            .params
            .iter()
            .zip(&self.names)
            .filter(|(param, _)| {
                param
                    .ty
                    .as_ref()
                    .is_some_and(|ty| is_request_type(ty, self.rmcp.is_some()))
            })
            .filter_map(|(param, name)| name.as_ref().map(|name| (param, name)))
            .map(|(param, name)| {
                let scope = match &self.rmcp {
                    // rmcp's own types, read as JSON: `RequestContext::meta` (`Meta` before
                    // rmcp 3, `RequestMetaObject` from 3 on), or the extractor itself.
                    Some(_) => {
                        let meta = if param.ty.as_ref().is_some_and(is_request_context) {
                            quote!(&#name.meta)
                        } else {
                            quote!(&#name)
                        };
                        quote!(#p::scope_from_json(#p::serde_json::to_value(#meta)))
                    }
                    None => quote!(#p::RequestScope::request_scope(&#name)),
                };
                quote! {
                    if let ::core::option::Option::Some(scope) = #scope {
                        ctx = ctx.with_scope(scope);
                    }
                }
            });
        let ctx = quote! {
            let __idemcheck_ctx = {
                use #p::ContextProvider as _;
                #[allow(unused_mut)]
                let mut ctx = self.idemcheck_context();
                #(#scoped)*
                ctx
            };
        };
        // A method is `async fn`: `check_signature` refused it otherwise, before expansion.
        // In place, the contract is an inline `const` block: it may name `Self::NAME`, which an
        // item inside the method could not.
        let local_contract = in_place.then(|| {
            quote! {
                let __idemcheck_contract: #p::Contract = const { #contract };
            }
        });
        let warnings = &self.warnings;
        // In a crate that depends on rmcp: a tool result the model reads (rmcp's
        // `CallToolResult`) answers a non-completed outcome as an `isError` result. Any other
        // type: `E::from(Escalation)`.
        let finish = match &self.rmcp {
            Some(r) => self.rmcp_answer(r, &contract_ref),
            None => quote! {
                #[allow(unused_imports)]
                use #p::FinishAsError as _;
                (&#p::Finish::new(__idemcheck_outcome, #contract_ref)).idemcheck_finish()
            },
        };
        let guarded_body = quote! {
            #warnings
            #local_contract
            #ctx
            let __idemcheck_outcome = { #body };
            #finish
        };
        if in_place {
            let map_error = self.rig_map_error();
            return quote! {
                #(#attrs)*
                #vis #guarded_sig {
                    #guarded_body
                }

                #map_error
            };
        }
        let const_doc = format!("The contract of [`Self::{ident}`], as data.");
        quote! {
            #[doc = #const_doc]
            #[allow(dead_code)]
            #vis const #const_ident: #p::Contract = #contract;

            #(#attrs)*
            #vis #guarded_sig {
                #guarded_body
            }

            #[doc = #raw_doc]
            #[allow(dead_code)]
            #raw
        }
    }
}

#[cfg(test)]
mod tests {
    use super::declares_normal_dependency;

    #[test]
    fn a_normal_dependency_is_told_from_a_dev_dependency() {
        let normal = |m: &str| declares_normal_dependency(m, "rmcp");
        assert!(normal("[dependencies]\nrmcp = \"1\"\n"));
        assert!(normal("[dependencies]\nrmcp.workspace = true\n"));
        assert!(normal(
            "[dependencies]\nmcp = { package = \"rmcp\", version = \"2\" }\n"
        ));
        assert!(normal("[dependencies.rmcp]\nversion = \"3\"\n"));
        assert!(normal("[target.'cfg(unix)'.dependencies]\nrmcp = \"1\"\n"));
        assert!(!normal("[dev-dependencies]\nrmcp = \"1\"\n"));
        assert!(!normal("[build-dependencies]\nrmcp = \"1\"\n"));
        assert!(!normal(
            "[target.'cfg(unix)'.dev-dependencies]\nrmcp = \"1\"\n"
        ));
        assert!(!normal(
            "[dependencies]\nidemcheck = { path = \"..\", features = [\"rmcp\"] }\nx = { package = \"x\", features = [\"rmcp\"] }\n# rmcp = \"1\"\n[dev-dependencies]\nrmcp = \"1\"\n"
        ));
    }
}
