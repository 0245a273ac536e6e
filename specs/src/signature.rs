//! What a tool function takes: which parameters are the operation's inputs (they may enter
//! the key and the fingerprint) and which are service handles or contexts (they never do),
//! and how `key = [...]` entries resolve against them.

use proc_macro2::Ident;
use quote::ToTokens;
use syn::{FnArg, Pat, Type};

use crate::attr::{FieldPath, nearest};

/// What a parameter is to the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ParamRole {
    /// `self`, `&self`, `&mut self`.
    Receiver,
    /// A service handle or context (`&Billing`, `&Client`, `RequestContext<RoleServer>`):
    /// never part of the key or the fingerprint.
    Service,
    /// An input of the operation: may be named in the key, always in the fingerprint.
    Input,
}

/// One parameter of a tool function.
#[derive(Debug, Clone)]
pub struct Param {
    /// Position in the signature, receiver included.
    pub index: usize,
    /// The pattern (`None` for the receiver).
    pub pat: Option<Pat>,
    /// The declared type (`None` for the receiver).
    pub ty: Option<Type>,
    /// What the parameter is to the contract.
    pub role: ParamRole,
    /// The names the pattern binds (`args` for `args: T`, `req` for `Parameters(req): ..`).
    pub bindings: Vec<Ident>,
    /// An rmcp `Parameters<T>` bound to a plain name: its fields live under `.0`.
    pub parameters_wrapper: bool,
}

/// A key entry resolved against the signature.
#[derive(Debug, Clone)]
pub struct ResolvedField {
    /// The entry as written (`customer`, `args.order.id`): the name it gets in the key.
    pub label: String,
    /// The binding the path starts from.
    pub binding: Ident,
    /// Whether `.0` must be inserted after the binding (rmcp `Parameters<T>`).
    pub through_wrapper: bool,
    /// Field accesses after the binding.
    pub rest: Vec<syn::Member>,
    /// Where the entry is written in the attribute.
    pub span: crate::check::SpanRange,
}

/// The parameters of a tool function, classified.
#[derive(Debug, Clone)]
pub struct ToolSignature {
    /// All parameters, receiver first when present.
    pub params: Vec<Param>,
}

/// Type names that are handles or contexts, never inputs.
const SERVICE_NAMES: &[&str] = &[
    "RequestContext",
    "Context",
    "Ctx",
    "Peer",
    "State",
    "Extension",
    "Extensions",
    "Meta",
    "MetaObject",
    "RequestMetaObject",
    "RequestId",
    "Arc",
    "Rc",
    "Client",
    "Pool",
    "PgPool",
    "SqlitePool",
    "Transaction",
    "Connection",
    "Sender",
    "CancellationToken",
];

/// Suffixes of type names that are handles or contexts.
const SERVICE_SUFFIXES: &[&str] = &[
    "Context",
    "Client",
    "Service",
    "Pool",
    "Handle",
    "Conn",
    "Connection",
    "Db",
    "Database",
    "Store",
    "Repo",
    "Repository",
    "Api",
    "Gateway",
    "Mailer",
    "Server",
    "Sdk",
];

/// Suffixes of type names that are argument structs even when passed by reference.
const INPUT_SUFFIXES: &[&str] = &[
    "Args",
    "Params",
    "Parameters",
    "Request",
    "Input",
    "Req",
    "Arguments",
];

/// Types that are values even behind a reference.
const VALUE_TYPES: &[&str] = &[
    "str", "String", "Vec", "Option", "Value", "u8", "u16", "u32", "u64", "u128", "usize", "i8",
    "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char", "Uuid", "Decimal",
];

fn last_ident(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) => p.path.segments.last(),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

fn is_service_name(name: &str) -> bool {
    SERVICE_NAMES.contains(&name) || SERVICE_SUFFIXES.iter().any(|s| name.ends_with(s))
}

fn is_input_name(name: &str) -> bool {
    INPUT_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Whether `ty` is rmcp's `Parameters<T>` wrapper.
pub fn is_parameters_wrapper(ty: &Type) -> bool {
    matches!(last_ident(ty), Some(seg) if seg.ident == "Parameters"
        && matches!(seg.arguments, syn::PathArguments::AngleBracketed(_)))
}

/// A type as text, spaced the way people write it (`&Billing`, `Parameters<Args>`).
pub fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    for part in raw.split(' ') {
        let glue = out.ends_with(['&', '<', ':', '(', '['])
            || part.starts_with(['>', '<', ':', ',', ')', ']'])
            || out.is_empty();
        if !glue {
            out.push(' ');
        }
        out.push_str(part);
    }
    out.replace(",", ", ").replace(",  ", ", ")
}

/// Classify a typed parameter.
pub fn classify(ty: &Type) -> ParamRole {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(_) | Type::Array(_) | Type::Tuple(_) => ParamRole::Input,
            inner => match last_ident(inner) {
                Some(seg) => {
                    let name = seg.ident.to_string();
                    if VALUE_TYPES.contains(&name.as_str()) || is_input_name(&name) {
                        ParamRole::Input
                    } else {
                        ParamRole::Service
                    }
                }
                None => ParamRole::Service,
            },
        },
        Type::ImplTrait(_) | Type::TraitObject(_) => ParamRole::Service,
        other => match last_ident(other) {
            Some(seg) => {
                let name = seg.ident.to_string();
                if name == "Parameters"
                    || VALUE_TYPES.contains(&name.as_str())
                    || is_input_name(&name)
                {
                    ParamRole::Input
                } else if is_service_name(&name) {
                    ParamRole::Service
                } else {
                    ParamRole::Input
                }
            }
            None => ParamRole::Input,
        },
    }
}

/// The names a pattern binds, in order.
pub fn bindings(pat: &Pat, out: &mut Vec<Ident>) {
    match pat {
        Pat::Ident(p) => {
            out.push(p.ident.clone());
            if let Some((_, sub)) = &p.subpat {
                bindings(sub, out);
            }
        }
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| bindings(e, out)),
        Pat::Tuple(p) => p.elems.iter().for_each(|e| bindings(e, out)),
        Pat::Struct(p) => p.fields.iter().for_each(|f| bindings(&f.pat, out)),
        Pat::Reference(p) => bindings(&p.pat, out),
        Pat::Paren(p) => bindings(&p.pat, out),
        Pat::Slice(p) => p.elems.iter().for_each(|e| bindings(e, out)),
        Pat::Type(p) => bindings(&p.pat, out),
        _ => {}
    }
}

impl ToolSignature {
    /// Classify the parameters of `sig`.
    pub fn new(sig: &syn::Signature) -> Self {
        let params = sig
            .inputs
            .iter()
            .enumerate()
            .map(|(index, arg)| match arg {
                FnArg::Receiver(_) => Param {
                    index,
                    pat: None,
                    ty: None,
                    role: ParamRole::Receiver,
                    bindings: Vec::new(),
                    parameters_wrapper: false,
                },
                FnArg::Typed(pt) => {
                    let mut names = Vec::new();
                    bindings(&pt.pat, &mut names);
                    let role = classify(&pt.ty);
                    let parameters_wrapper =
                        matches!(&*pt.pat, Pat::Ident(_)) && is_parameters_wrapper(&pt.ty);
                    Param {
                        index,
                        pat: Some((*pt.pat).clone()),
                        ty: Some((*pt.ty).clone()),
                        role,
                        bindings: names,
                        parameters_wrapper,
                    }
                }
            })
            .collect();
        ToolSignature { params }
    }

    /// Whether the function takes `self`.
    pub fn has_receiver(&self) -> bool {
        self.params.iter().any(|p| p.role == ParamRole::Receiver)
    }

    /// The input parameters.
    pub fn inputs(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.role == ParamRole::Input)
    }

    /// The names of every input binding, for error messages.
    pub fn input_names(&self) -> Vec<String> {
        self.inputs()
            .flat_map(|p| p.bindings.iter().map(|b| b.to_string()))
            .collect()
    }

    /// The single argument struct, when the tool has exactly one input binding.
    pub fn single_input(&self) -> Option<(&Param, &Ident)> {
        let mut inputs = self
            .inputs()
            .flat_map(|p| p.bindings.iter().map(move |b| (p, b)));
        let first = inputs.next()?;
        inputs.next().is_none().then_some(first)
    }

    /// Resolve `key = [...]` entries; every entry that names nothing is an error listing the
    /// candidates.
    pub fn resolve_key(&self, fields: &[FieldPath]) -> syn::Result<Vec<ResolvedField>> {
        let mut out = Vec::new();
        let mut errors: Option<syn::Error> = None;
        for field in fields {
            match self.resolve_one(field) {
                Ok(r) => out.push(r),
                Err(e) => crate::attr::accumulate(&mut errors, e),
            }
        }
        match errors {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    fn resolve_one(&self, field: &FieldPath) -> syn::Result<ResolvedField> {
        let first = field.first_ident();
        if let Some(first) = first {
            for param in &self.params {
                if !param.bindings.iter().any(|b| b == first) {
                    continue;
                }
                if param.role == ParamRole::Service {
                    // A service is never meant: with one argument struct, the name is its field.
                    if let Some((input, binding)) = self.single_input() {
                        return Ok(ResolvedField {
                            label: field.text.clone(),
                            span: field.span,
                            binding: binding.clone(),
                            through_wrapper: input.parameters_wrapper,
                            rest: field.segments.clone(),
                        });
                    }
                    let ty = param.ty.as_ref().map(type_text).unwrap_or_default();
                    return Err(syn::Error::new(
                        field.span.start,
                        format!(
                            "key field `{}` names `{first}: {ty}`, a service or context parameter; services and contexts never enter the key",
                            field.text
                        ),
                    ));
                }
                return Ok(ResolvedField {
                    label: field.text.clone(),
                    span: field.span,
                    binding: first.clone(),
                    through_wrapper: param.parameters_wrapper,
                    rest: field.segments[1..].to_vec(),
                });
            }
            if first == "self" {
                return Err(syn::Error::new(
                    field.span.start,
                    "`self` is the service, not an input; services and contexts never enter the key",
                ));
            }
        }
        if let Some((param, binding)) = self.single_input() {
            return Ok(ResolvedField {
                label: field.text.clone(),
                span: field.span,
                binding: binding.clone(),
                through_wrapper: param.parameters_wrapper,
                rest: field.segments.clone(),
            });
        }
        let names = self.input_names();
        let text = field.text.as_str();
        let message = if names.is_empty() {
            format!(
                "key field `{text}` matches no input: this tool has no input parameters (services and contexts never enter the key)"
            )
        } else {
            let suggestion = nearest(text, names.iter().map(String::as_str))
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_else(|| ".".into());
            format!(
                "key field `{text}` matches no parameter{suggestion} The tool's inputs are: {}; with several inputs, name fields as `param.field`",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Err(syn::Error::new(field.span.start, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(src: &str) -> ToolSignature {
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        ToolSignature::new(&f.sig)
    }

    fn roles(s: &ToolSignature) -> Vec<ParamRole> {
        s.params.iter().map(|p| p.role).collect()
    }

    #[test]
    fn classifies_services_and_inputs() {
        use ParamRole::*;
        let s = sig("async fn f(billing: &Billing, args: ChargeArgs) {}");
        assert_eq!(roles(&s), [Service, Input]);
        let s = sig("async fn f(mail: &Mailer, to: &str, body: String) {}");
        assert_eq!(roles(&s), [Service, Input, Input]);
        let s =
            sig("async fn f(ctx: RequestContext<RoleServer>, Parameters(req): Parameters<A>) {}");
        assert_eq!(roles(&s), [Service, Input]);
        assert_eq!(s.params[1].bindings[0], "req");
        let s = sig("async fn f(client: Arc<Http>, req: &CreateRequest) {}");
        assert_eq!(roles(&s), [Service, Input]);
        let s = sig("async fn f(&self, Parameters(a): Parameters<A>, meta: RequestMetaObject) {}");
        assert_eq!(roles(&s), [Receiver, Input, Service]);
        let s = sig("async fn f(db: PgPool, order: Order) {}");
        assert_eq!(roles(&s), [Service, Input]);
    }

    #[test]
    fn resolves_bare_fields_against_the_single_argument_struct() {
        let s = sig("async fn f(billing: &Billing, args: ChargeArgs) {}");
        let attr: crate::attr::SideEffectAttr =
            syn::parse_str("key = [customer, args.order.id]").unwrap();
        let Some(crate::attr::KeyAttr::Fields { fields, .. }) = attr.key else {
            panic!()
        };
        let r = s.resolve_key(&fields).unwrap();
        assert_eq!(r[0].binding, "args");
        assert_eq!(r[0].rest.len(), 1);
        assert_eq!(r[1].binding, "args");
        assert_eq!(r[1].rest.len(), 2);
    }

    #[test]
    fn parameters_wrapper_goes_through_dot_zero() {
        let s = sig("async fn f(&self, params: Parameters<A>) {}");
        let attr: crate::attr::SideEffectAttr = syn::parse_str("key = [customer]").unwrap();
        let Some(crate::attr::KeyAttr::Fields { fields, .. }) = attr.key else {
            panic!()
        };
        let r = s.resolve_key(&fields).unwrap();
        assert!(r[0].through_wrapper);
    }

    #[test]
    fn services_never_enter_the_key() {
        let s = sig("async fn f(billing: &Billing, to: String, body: String) {}");
        let attr: crate::attr::SideEffectAttr = syn::parse_str("key = [billing]").unwrap();
        let Some(crate::attr::KeyAttr::Fields { fields, .. }) = attr.key else {
            panic!()
        };
        let e = s.resolve_key(&fields).unwrap_err().to_string();
        assert!(e.contains("`billing: &Billing`"), "{e}");
        assert!(
            e.contains("services and contexts never enter the key"),
            "{e}"
        );
    }

    #[test]
    fn a_bare_name_shared_with_a_service_means_the_argument_field() {
        let s = sig("async fn f(desk: &Desk, args: TicketArgs) {}");
        let attr: crate::attr::SideEffectAttr = syn::parse_str("key = [desk]").unwrap();
        let Some(crate::attr::KeyAttr::Fields { fields, .. }) = attr.key else {
            panic!()
        };
        let r = s.resolve_key(&fields).unwrap();
        assert_eq!(r[0].binding, "args");
        assert_eq!(r[0].rest.len(), 1);
    }

    #[test]
    fn types_print_as_written() {
        let t: Type = syn::parse_str("&'a mut Parameters<Vec<(String, u8)>>").unwrap();
        assert_eq!(type_text(&t), "&'a mut Parameters<Vec<(String, u8)>>");
        let t: Type = syn::parse_str("rmcp::RequestContext<RoleServer>").unwrap();
        assert_eq!(type_text(&t), "rmcp::RequestContext<RoleServer>");
    }

    #[test]
    fn unknown_names_list_candidates() {
        let s = sig("async fn f(mail: &Mailer, to: String, body: String) {}");
        let attr: crate::attr::SideEffectAttr = syn::parse_str("key = [too]").unwrap();
        let Some(crate::attr::KeyAttr::Fields { fields, .. }) = attr.key else {
            panic!()
        };
        let e = s.resolve_key(&fields).unwrap_err().to_string();
        assert_eq!(
            e,
            "key field `too` matches no parameter; did you mean `to`? The tool's inputs are: `to`, `body`; with several inputs, name fields as `param.field`"
        );
    }
}
