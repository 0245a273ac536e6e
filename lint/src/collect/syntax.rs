//! Small syntax helpers: attributes (`cfg(test)`, `cfg_attr`), literals, types,
//! receivers, locations.

use super::*;

pub(super) fn has_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let Some(last) = a.path().segments.last().map(|s| &s.ident) else {
            return false;
        };
        if last == "test" {
            return true;
        }
        if last != "cfg" {
            return false;
        }
        match &a.meta {
            Meta::List(l) => {
                let t = l.tokens.to_string();
                t == "test" || t.starts_with("all (test") || t.starts_with("test ,")
            }
            _ => false,
        }
    })
}

/// Expand `#[cfg_attr(pred, a, b(..))]` into `#[a]`, `#[b(..)]`.
pub(super) fn expand_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    let mut out = Vec::new();
    for a in attrs {
        if a.path().is_ident("cfg_attr") {
            if let Meta::List(list) = &a.meta
                && let Ok(metas) =
                    list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            {
                for meta in metas.into_iter().skip(1) {
                    out.push(Attribute {
                        pound_token: a.pound_token,
                        style: a.style,
                        bracket_token: a.bracket_token,
                        meta,
                    });
                }
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}

pub(super) fn first_line(attrs: &[Attribute], fallback: Span) -> u32 {
    attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Outer))
        .map(|a| a.pound_token.span.start().line as u32)
        .min()
        .unwrap_or(fallback.start().line as u32)
}

/// Whether an identifier is a key field name the model typically supplies.
pub(super) fn is_model_key(ident: &syn::Ident) -> bool {
    idemcheck_spec::rules::idem004_unstable_key::is_model_key_ident(ident)
}

/// The location of a path, from its first to its last segment (cheaper than collecting
/// its tokens).
pub(super) fn path_loc(path: &syn::Path) -> Loc {
    match (path.segments.first(), path.segments.last()) {
        (Some(a), Some(b)) => Loc::of_spans(a.ident.span(), b.ident.span()),
        _ => Loc::of_tokens(path),
    }
}

pub(super) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Await(a) => strip(&a.base),
        Expr::Try(t) => strip(&t.expr),
        Expr::Paren(p) => strip(&p.expr),
        Expr::Reference(r) => strip(&r.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

pub(super) fn lit_str(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Macro(m) => first_lit_in_tokens(m.mac.tokens.clone()),
        _ => None,
    }
}

pub(super) use crate::frameworks::first_lit_in_tokens;

pub(super) fn bool_lit(e: &Expr) -> Option<bool> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Bool(b) => Some(b.value),
            _ => None,
        },
        _ => None,
    }
}

/// A builder switch: a method handed one flag (`.follow_links(true)`,
/// `.delete_on_drop(false)`) or one value named as the method itself
/// (`.follow_links(self.config.follow_links)`, `.hidden(!follow_links)`): it sets an option of
/// the value it is called on and performs nothing.
pub(super) fn builder_switch(m: &syn::ExprMethodCall) -> bool {
    if m.args.len() != 1 {
        return false;
    }
    let mut arg = strip(&m.args[0]);
    if let Expr::Unary(u) = arg
        && matches!(u.op, syn::UnOp::Not(_))
    {
        arg = strip(&u.expr);
    }
    let named = match arg {
        Expr::Field(f) => match &f.member {
            syn::Member::Named(id) => Some(id),
            syn::Member::Unnamed(_) => None,
        },
        Expr::Path(p) => p.path.segments.last().map(|s| &s.ident),
        _ => None,
    };
    bool_lit(arg).is_some() || named.is_some_and(|id| *id == m.method)
}

/// Whether a type shares state behind a lock or a concurrent map (`&Arc<RwLock<Doc>>`,
/// `&Mutex<Vec<Note>>`, `Arc<DashMap<K, V>>`): values of it live beyond one call.
pub(super) fn shared_state_type(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => shared_state_type(&r.elem),
        Type::Paren(p) => shared_state_type(&p.elem),
        Type::Group(g) => shared_state_type(&g.elem),
        Type::Path(p) => p.path.segments.iter().any(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "Mutex" | "RwLock" | "RefCell" | "DashMap" | "DashSet"
            ) || match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .any(|g| matches!(g, syn::GenericArgument::Type(t) if shared_state_type(t))),
                _ => false,
            }
        }),
        _ => false,
    }
}

/// Whether a type, behind references, is a bare name among `names` (`&SharedDfRegistry`).
pub(super) fn names_one_of(ty: &Type, names: &[String]) -> bool {
    match ty {
        Type::Reference(r) => names_one_of(&r.elem, names),
        Type::Paren(p) => names_one_of(&p.elem, names),
        Type::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|id| names.iter().any(|n| id == n)),
        _ => false,
    }
}

/// The first trait bound of generic parameter `name` (`T: Transport`, `where T: Transport +
/// Send`), when `name` is one of the function's type parameters.
pub(super) fn generic_bound(generics: &syn::Generics, name: &str) -> Option<String> {
    if generics.params.is_empty() {
        return None;
    }
    let trait_of = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(t) => t
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .filter(|n| !matches!(n.as_str(), "Send" | "Sync" | "Sized" | "Unpin" | "Clone")),
            _ => None,
        })
    };
    let param = generics.params.iter().find_map(|p| match p {
        syn::GenericParam::Type(t) if t.ident == name => Some(t),
        _ => None,
    })?;
    trait_of(&param.bounds).or_else(|| {
        generics.where_clause.as_ref()?.predicates.iter().find_map(|w| match w {
            syn::WherePredicate::Type(pt)
                if matches!(&pt.bounded_ty, Type::Path(p) if p.path.is_ident(name)) =>
            {
                trait_of(&pt.bounds)
            }
            _ => None,
        })
    })
}

/// A type with reference, smart-pointer and lock wrappers removed (`Arc<reqwest::Client>` →
/// `reqwest::Client`).
pub(super) fn unwrap_type(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => unwrap_type(&r.elem),
        Type::Paren(p) => unwrap_type(&p.elem),
        Type::Group(g) => unwrap_type(&g.elem),
        Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return ty;
            };
            let name = seg.ident.to_string();
            if matches!(
                name.as_str(),
                "Arc" | "Box" | "Rc" | "Mutex" | "RwLock" | "Option"
            ) && let syn::PathArguments::AngleBracketed(args) = &seg.arguments
                && let Some(syn::GenericArgument::Type(t)) = args.args.first()
            {
                return unwrap_type(t);
            }
            ty
        }
        _ => ty,
    }
}

/// Whether a return type can name a type of the workspace, checked without spelling it out:
/// not `bool`, `String`, `Vec<..>`, `()` and the like (most functions return those).
/// Whether a return type is a path: `PathBuf`, `&Path`, through `Result` and `Option`.
pub(super) fn returns_path(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => returns_path(&r.elem),
        Type::Path(p) => p.path.segments.last().is_some_and(|seg| {
            if seg.ident == "PathBuf" || seg.ident == "Path" {
                return true;
            }
            (seg.ident == "Result" || seg.ident == "Option")
                && matches!(&seg.arguments, syn::PathArguments::AngleBracketed(a)
                    if matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if returns_path(t)))
        }),
        _ => false,
    }
}

pub(super) fn returns_named_type(ty: &Type) -> bool {
    const STD: &[&str] = &[
        "bool", "String", "Vec", "usize", "u8", "u16", "u32", "u64", "i32", "i64", "f64", "str",
        "PathBuf", "HashMap", "BTreeMap", "HashSet", "Value", "Duration", "char", "Cow",
    ];
    match ty {
        Type::Reference(r) => returns_named_type(&r.elem),
        Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return false;
            };
            // The name once, on the stack, for the two lists.
            match crate::frameworks::with_ident_text(&seg.ident, |t| {
                if matches!(t, "Result" | "Option" | "Arc" | "Box") {
                    None
                } else {
                    Some(!STD.contains(&t))
                }
            }) {
                Some(named) => named,
                None => match &seg.arguments {
                    syn::PathArguments::AngleBracketed(args) => match args.args.first() {
                        Some(syn::GenericArgument::Type(inner)) => returns_named_type(inner),
                        _ => false,
                    },
                    _ => false,
                },
            }
        }
        _ => false,
    }
}

/// The named type a function returns, through `Result`/`Option` and the wrappers
/// [`type_name`] sees through: `KeyStore` for `Result<Arc<KeyStore>, Error>`; `None` for
/// `()`, tuples, `impl Trait` and trait objects; `Self` as written (the index knows it from
/// the method).
pub(super) fn returned_type_name(ty: &Type) -> Option<String> {
    if let Type::Path(p) = ty
        && let Some(seg) = p.path.segments.last()
        && (seg.ident == "Result" || seg.ident == "Option")
        && let syn::PathArguments::AngleBracketed(args) = &seg.arguments
        && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
    {
        return returned_type_name(inner);
    }
    type_name(ty).filter(|n| n.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
}

pub(super) fn type_name(ty: &Type) -> Option<String> {
    match ty {
        // `dyn ImageBackend + Send`, `impl Store`: the trait, whose workspace impls the index
        // follows.
        Type::TraitObject(t) => t.bounds.iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(tb) => tb.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }),
        Type::ImplTrait(t) => t.bounds.iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(tb) => tb.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }),
        Type::Reference(r) => type_name(&r.elem),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            let name = seg.ident.to_string();
            const WRAPPERS: &[&str] = &[
                "Arc",
                "Box",
                "Rc",
                "Mutex",
                "RwLock",
                "Parameters",
                "Option",
                "Json",
            ];
            if WRAPPERS.contains(&name.as_str())
                && let syn::PathArguments::AngleBracketed(args) = &seg.arguments
            {
                for a in &args.args {
                    if let syn::GenericArgument::Type(t) = a {
                        return type_name(t);
                    }
                }
            }
            Some(name)
        }
        _ => None,
    }
}

/// First identifier of a field-access chain (`args.0.order` → `args`).
pub(super) fn base_ident(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => base_ident(&f.base),
        _ => None,
    }
}

/// Last name of a receiver expression, for message-send receivers.
/// Multi-word method names that the standard library, serde and the common async crates use:
/// a workspace method of the same name is not assumed to be the one called.
const COMMON_METHODS: &[&str] = &[
    "and_then",
    "as_bytes",
    "as_deref",
    "as_deref_mut",
    "as_mut",
    "as_ptr",
    "as_ref",
    "as_slice",
    "as_str",
    "chars_rev",
    "clone_from",
    "contains_key",
    "ends_with",
    "entry_ref",
    "extend_from_slice",
    "for_each",
    "from_str",
    "get_mut",
    "get_or_insert",
    "get_or_insert_with",
    "into_inner",
    "into_iter",
    "into_keys",
    "into_values",
    "is_empty",
    "is_err",
    "is_none",
    "is_ok",
    "is_some",
    "iter_mut",
    "map_err",
    "map_or",
    "map_or_else",
    "ok_or",
    "ok_or_else",
    "or_default",
    "or_else",
    "or_insert",
    "or_insert_with",
    "push_back",
    "push_front",
    "push_str",
    "pop_back",
    "pop_front",
    "retain_mut",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "split_off",
    "split_once",
    "split_whitespace",
    "starts_with",
    "strip_prefix",
    "strip_suffix",
    "to_le_bytes",
    "to_be_bytes",
    "to_lowercase",
    "to_owned",
    "to_string",
    "to_uppercase",
    "to_vec",
    "trim_end",
    "trim_start",
    "try_from",
    "try_into",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "filter_map",
    "flat_map",
    "find_map",
    "take_while",
    "skip_while",
    "max_by",
    "min_by",
    "max_by_key",
    "min_by_key",
    "with_capacity",
    "try_lock",
    "try_recv",
    "try_send",
    "blocking_lock",
    "blocking_send",
    "send_timeout",
    "recv_timeout",
    "fetch_add",
    "fetch_sub",
    "json_body",
    "error_for_status",
    "bearer_auth",
    "basic_auth",
    "query_pairs",
    "set_len",
    "copy_from_slice",
];

/// Whether a method name on an unknown receiver is specific enough to follow into the
/// workspace methods of that name.
/// Whether a method name is distinctive: several words, not a standard-library method.
/// Whether a step of a method chain is a standard-library one (`iter`, `lock`, `unwrap`,
/// `map`, `into_iter`, `as_ref`, `clone`): what it returns is no workspace type whose
/// methods the next step could be.
pub(super) fn std_chain_step(method: &syn::Ident) -> bool {
    let name = method.to_string();
    COMMON_METHODS.contains(&name.as_str())
        || [
            "iter",
            "iter_mut",
            "into_iter",
            "lock",
            "read",
            "write",
            "unwrap",
            "expect",
            "map",
            "and_then",
            "ok",
            "err",
            "clone",
            "cloned",
            "borrow",
            "borrow_mut",
            "get",
            "first",
            "last",
            "next",
            "await",
            "into",
            "collect",
            "filter",
            "chars",
            "bytes",
            "keys",
            "values",
            "entry",
            "or_insert",
            "or_default",
            "lines",
            "split",
        ]
        .contains(&name.as_str())
        || name.starts_with("as_")
        || name.starts_with("to_")
        || name.starts_with("into_")
        || name.starts_with("unwrap_")
        || name.starts_with("map_")
}

pub(crate) fn distinctive_method(name: &str) -> bool {
    name.contains('_') && !name.starts_with('_') && !COMMON_METHODS.contains(&name)
}

pub(super) fn receiver_name(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(i) => Some(i.to_string()),
            syn::Member::Unnamed(_) => receiver_name(&f.base),
        },
        Expr::Call(c) => receiver_name(&c.func),
        Expr::MethodCall(m) => receiver_name(&m.receiver),
        _ => None,
    }
}

/// A field's name as the index keys it: its identifier, or its position in a tuple struct.
pub(super) fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(id) => id.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

pub(super) fn is_self(e: &Expr) -> bool {
    matches!(strip(e), Expr::Path(p) if p.path.is_ident("self"))
}

pub(super) fn mentions_attempt(e: &Expr) -> bool {
    match strip(e) {
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| ev::attempt_ident(&i.to_string())),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(i) => ev::attempt_ident(&i.to_string()),
            _ => false,
        },
        Expr::Binary(b) => mentions_attempt(&b.left) || mentions_attempt(&b.right),
        Expr::MethodCall(m) => mentions_attempt(&m.receiver),
        _ => false,
    }
}

pub(super) fn span_loc_of_error(e: &syn::Error) -> Option<Loc> {
    let span = e.span();
    let s = span.start();
    (s.line > 0).then(|| Loc::of_span(span))
}

/// The span of a visibility's first token (`pub`), unless it is inherited (nothing written).
pub(super) fn vis_span(vis: &syn::Visibility) -> Option<Span> {
    match vis {
        syn::Visibility::Public(p) => Some(p.span),
        syn::Visibility::Restricted(r) => Some(r.pub_token.span),
        syn::Visibility::Inherited => None,
    }
}

/// The span of a signature's first token (`const`, `async`, `unsafe`, `extern` or `fn`).
pub(super) fn sig_span(sig: &syn::Signature) -> Span {
    sig.constness
        .map(|c| c.span)
        .or(sig.asyncness.map(|a| a.span))
        .or(match &sig.safety {
            syn::Safety::Safe(s) => Some(s.span),
            syn::Safety::Unsafe(u) => Some(u.span),
            _ => None,
        })
        .or(sig.abi.as_ref().map(|a| a.extern_token.span))
        .unwrap_or(sig.fn_token.span)
}

/// `if target.exists() { return Ok(target); }`, `if fs::try_exists(&p).await? { debug!(..);
/// return Ok(p) }`, `if out.is_file() { return Ok(()) }`: a check that a path exists whose
/// branch returns, not with an error. What the function does after it happens only when the
/// path is missing. Not `if !p.exists() { .. }`, nor a branch that refuses (`return
/// Err(..)`): a tool that will not overwrite still writes. Also a load that makes a default
/// when the file is missing (`if path.exists() { read } else { let d = Self::default();
/// d.save()?; Ok(d) }`); not an `else` that writes what it was handed (an upsert).
/// The collection an `if` condition tests for not holding a value yet: `!xs.contains(&x)`,
/// `!map.contains_key(k)`, `!xs.iter().any(|m| m == x)` give `xs`/`map`, written without
/// spaces (see [`spaceless`]).
pub(super) fn membership_guard(cond: &Expr) -> Option<String> {
    let Expr::Unary(u) = strip(cond) else {
        return None;
    };
    if !matches!(u.op, syn::UnOp::Not(_)) {
        return None;
    }
    let Expr::MethodCall(m) = strip(&u.expr) else {
        return None;
    };
    let collection = match m.method.to_string().as_str() {
        "contains" | "contains_key" => &*m.receiver,
        "any" => match strip(&m.receiver) {
            Expr::MethodCall(it) if it.method == "iter" && it.args.is_empty() => &*it.receiver,
            _ => return None,
        },
        _ => return None,
    };
    Some(spaceless(collection))
}

/// An expression's tokens written without spaces (`p . members` → `p.members`).
pub(super) fn spaceless(e: &Expr) -> String {
    quote::ToTokens::to_token_stream(e)
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

pub(super) fn returns_when_it_exists(i: &syn::ExprIf) -> bool {
    fn existence_check(e: &Expr) -> bool {
        match strip_wrappers(e) {
            Expr::MethodCall(m) => {
                // Compared in place: every `if` on a method call asks.
                ["exists", "try_exists", "is_file", "is_dir"]
                    .iter()
                    .any(|n| m.method == n)
                    || (m.method == "is_ok"
                        && matches!(strip_wrappers(&m.receiver), Expr::Call(c)
                            if matches!(strip(&c.func), Expr::Path(p)
                                if p.path.segments.last().is_some_and(|s| s.ident == "metadata"))))
            }
            Expr::Call(c) => matches!(strip(&c.func), Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "try_exists" || s.ident == "exists")),
            _ => false,
        }
    }
    /// Through `.await`, `?`, `.unwrap_or(false)`, `.unwrap_or_default()`, `.unwrap()`.
    fn strip_wrappers(e: &Expr) -> &Expr {
        match strip(e) {
            Expr::Await(a) => strip_wrappers(&a.base),
            Expr::Try(t) => strip_wrappers(&t.expr),
            Expr::MethodCall(m)
                if ["unwrap_or", "unwrap_or_default", "unwrap", "expect"]
                    .iter()
                    .any(|n| m.method == n) =>
            {
                strip_wrappers(&m.receiver)
            }
            e => e,
        }
    }
    if !existence_check(&i.cond) {
        return false;
    }
    if let Some((_, otherwise)) = &i.else_branch {
        return makes_a_default(otherwise);
    }
    let Some(syn::Stmt::Expr(Expr::Return(r), _)) = i.then_branch.stmts.last() else {
        return false;
    };
    // A refusal is no success: `return Err(..)`, `return Ok(CallToolResult::error(..))`,
    // `return Ok(format!("Error: {} already exists", p))`, a result marked failed.
    let Some(value) = r.expr.as_deref() else {
        return true;
    };
    let text = quote::ToTokens::to_token_stream(value)
        .to_string()
        .to_ascii_lowercase();
    ![
        "err",
        "exist",
        "fail",
        "conflict",
        "success : false",
        "refuse",
        "denied",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// An `else` branch that binds a default value (`let d = Self::default();`,
/// `Config::new()`, `Default::default()`), then does something with it (`d.save()?;`) and
/// hands a value back: a default made and kept when the file is missing. Not a value made
/// for the function's own use (`let lines = if p.exists() { read } else { Vec::new() }`).
fn makes_a_default(e: &Expr) -> bool {
    fn is_default(e: &Expr) -> bool {
        match strip(e) {
            Expr::Call(c) => {
                matches!(strip(&c.func), Expr::Path(p)
                    if c.args.is_empty()
                        && p.path.segments.last().is_some_and(|s| s.ident == "default" || s.ident == "new"))
                    || (c.args.len() == 1 && is_default(&c.args[0]))
            }
            Expr::Try(t) => is_default(&t.expr),
            _ => false,
        }
    }
    let Expr::Block(b) = strip(e) else {
        return false;
    };
    let stmts = &b.block.stmts;
    let Some(made) = stmts.iter().position(|s| {
        matches!(s, syn::Stmt::Local(l) if l.init.as_ref().is_some_and(|i| is_default(&i.expr)))
    }) else {
        return false;
    };
    // A statement after it (the save), then the value handed back.
    stmts.len() >= made + 3
        && matches!(stmts.last(), Some(syn::Stmt::Expr(_, None)))
        && stmts[made + 1..stmts.len() - 1]
            .iter()
            .any(|s| matches!(s, syn::Stmt::Expr(_, Some(_))))
}

/// A method that only converts or copies the value it is called on (`to_string`, `clone`,
/// `to_path_buf`): like [`makes_an_answer`], it does nothing to act on.
pub(super) fn converts(method: &syn::Ident) -> bool {
    crate::effects::vocabulary::CONVERSIONS
        .iter()
        .any(|n| method == n)
}

/// A call that only makes an answer: `Ok(..)`, `Some(..)`, `Err(..)`, `String::from(..)`,
/// `CallToolResult::success(..)`, `Content::text(..)`, `Value::String(..)`, a tuple struct.
pub(super) fn makes_an_answer(c: &syn::ExprCall) -> bool {
    let Expr::Path(p) = strip(&c.func) else {
        return false;
    };
    let segs = &p.path.segments;
    let Some(last) = segs.last().map(|s| s.ident.to_string()) else {
        return false;
    };
    let upper = |s: &str| s.starts_with(|ch: char| ch.is_ascii_uppercase());
    match segs.len() {
        // `Ok(..)`, `Some(..)`, a tuple struct or variant.
        1 => upper(&last),
        _ => {
            let owner = segs[segs.len() - 2].ident.to_string();
            upper(&owner)
                && (upper(&last)
                    || matches!(
                        last.as_str(),
                        "success" | "error" | "text" | "json" | "from" | "new" | "structured"
                    ))
        }
    }
}

/// Calls its function with each name the patterns it visits bind (`let`, `if let`, `match`
/// arms, closure and function parameters), nested items left out: the one walk both
/// [`bound_names`] and [`super::Collector::bind_locals`] make.
pub(super) struct Binds<F>(pub(super) F);

impl<'ast, F: FnMut(&syn::Ident)> syn::visit::Visit<'ast> for Binds<F> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        (self.0)(&p.ident);
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Every name a function's parameters and the patterns of its body bind.
pub(super) fn bound_names(sig: &syn::Signature, block: &syn::Block) -> Vec<String> {
    let mut names = Vec::new();
    let mut binds = Binds(|i: &syn::Ident| names.push(i.to_string()));
    for input in &sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            syn::visit::Visit::visit_pat(&mut binds, &pt.pat);
        }
    }
    syn::visit::Visit::visit_block(&mut binds, block);
    names
}

/// A key for a name's text, for sets of names looked up often ([`FnState::locals`],
/// [`super::hooks::FwState::value_names`]); [`ident_key`] gives an identifier's the same key
/// without making its text.
pub(super) fn name_key(name: &str) -> u64 {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

/// [`name_key`] of an identifier, made without allocating its text.
pub(super) fn ident_key(ident: &proc_macro2::Ident) -> u64 {
    use std::fmt::Write as _;
    use std::hash::Hasher as _;
    struct Feed(rustc_hash::FxHasher);
    impl std::fmt::Write for Feed {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut feed = Feed(rustc_hash::FxHasher::default());
    let _ = write!(feed, "{ident}");
    feed.0.finish()
}
