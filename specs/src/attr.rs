//! The `#[side_effect(...)]` grammar.
//!
//! [`SideEffectAttr`] implements [`syn::parse::Parse`] for the tokens inside the
//! parentheses. Parsing collects every error it finds (combined with
//! [`syn::Error::combine`]), each pointing at the offending token and saying how to fix it.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Token};

use crate::check::SpanRange;
use crate::model::{ContextPart, RuleCode, ToolKind};

/// A value with the span it was written at.
#[derive(Debug, Clone, Copy)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

/// One entry of `key = [...]`: a parameter name or a field path (`args.order.id`).
#[derive(Debug, Clone)]
pub struct FieldPath {
    /// The path's segments (`args`, `order`, `id`).
    pub segments: Vec<syn::Member>,
    /// The path as written, without spaces.
    pub text: String,
    /// Where it was written.
    pub span: SpanRange,
}

impl FieldPath {
    /// The last segment as text.
    pub fn last_name(&self) -> String {
        member_text(self.segments.last().expect("a field path has a segment"))
    }

    /// The first segment as an identifier, if it is one.
    pub fn first_ident(&self) -> Option<&Ident> {
        match self.segments.first() {
            Some(syn::Member::Named(ident)) => Some(ident),
            _ => None,
        }
    }
}

/// Add `e` to the errors collected so far (`syn::Error::combine`).
pub(crate) fn accumulate(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

pub(crate) fn member_text(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

/// How the key is written.
#[derive(Debug, Clone)]
pub enum KeyAttr {
    /// `key = [a, b.c]`
    Fields {
        /// The entries.
        fields: Vec<FieldPath>,
        /// The `key` token.
        span: Span,
    },
    /// `key_fn = path`
    Function(syn::Path),
}

/// `key_context = [scope, clock, worker]`: what of the calling context the `key_fn` reads.
#[derive(Debug, Clone)]
pub struct KeyContextAttr {
    /// The parts, with where each was written.
    pub parts: Vec<Spanned<ContextPart>>,
    /// The `key_context` token.
    pub span: Span,
}

/// `allow(rule, ..., reason = "...")`.
#[derive(Debug, Clone)]
pub struct Allow {
    /// The rules it names, with where each was written.
    pub rules: Vec<Spanned<RuleCode>>,
    /// The reason (required).
    pub reason: LitStr,
    /// The `allow` token.
    pub span: Span,
}

/// A parsed `#[side_effect(...)]` attribute.
#[derive(Debug, Clone, Default)]
pub struct SideEffectAttr {
    /// `kind = "write" | "read"`.
    pub kind: Option<Spanned<ToolKind>>,
    /// `key = [...]` or `key_fn = path`.
    pub key: Option<KeyAttr>,
    /// `key_context = [...]` (with `key_fn` only).
    pub key_context: Option<KeyContextAttr>,
    /// `verify = path`.
    pub verify: Option<syn::Path>,
    /// `verify = none`: the system cannot be read back, a documented choice (where it was
    /// written). Exclusive with [`SideEffectAttr::verify`].
    pub verify_none: Option<Span>,
    /// `max_retries = N`.
    pub max_retries: Option<Spanned<u32>>,
    /// `timeout_ms = N`.
    pub timeout_ms: Option<Spanned<u64>>,
    /// `settle_ms = N`.
    pub settle_ms: Option<Spanned<u64>>,
    /// `ttl_hours = N`.
    pub ttl_hours: Option<Spanned<u32>>,
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `server_dedup = bool` (a bare `server_dedup` means `true`).
    pub server_dedup: Option<Spanned<bool>>,
    /// `map_error = false`: on rig's `Tool::call`, do not generate `Tool::map_error` (the impl
    /// writes its own; it finds the advice with `idemcheck::Feedback::find_in`).
    pub map_error: Option<Spanned<bool>>,
    /// Suppressions.
    pub allows: Vec<Allow>,
}

/// Every key the grammar accepts, for "did you mean" suggestions.
pub const KEYS: &[&str] = &[
    "kind",
    "key",
    "key_fn",
    "key_context",
    "verify",
    "max_retries",
    "timeout_ms",
    "settle_ms",
    "ttl_hours",
    "name",
    "server_dedup",
    "map_error",
    "allow",
];

pub use crate::near::nearest;

/// A short description of what an expression is, for "expects X, found Y" messages.
fn describe(expr: &Expr) -> String {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(_) => "string".into(),
            Lit::Int(_) => "integer".into(),
            Lit::Float(_) => "float".into(),
            Lit::Bool(_) => "boolean".into(),
            Lit::Char(_) => "character".into(),
            Lit::ByteStr(_) | Lit::CStr(_) => "byte string".into(),
            _ => "literal".into(),
        },
        Expr::Path(p) => format!(
            "path `{}`",
            p.to_token_stream().to_string().replace(' ', "")
        ),
        Expr::Array(_) => "list".into(),
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            ..
        }) => "negative number".into(),
        Expr::Call(_) | Expr::MethodCall(_) => "call".into(),
        Expr::Field(_) => "field path".into(),
        _ => "expression".into(),
    }
}

fn expects(key: &str, what: &str, found: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        found,
        format!("`{key}` expects {what}, found {}", describe(found)),
    )
}

fn parse_int<T: std::str::FromStr>(key: &str, expr: &Expr, what: &str) -> syn::Result<Spanned<T>>
where
    T::Err: std::fmt::Display,
{
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => match int.base10_parse::<T>() {
            Ok(value) => Ok(Spanned {
                value,
                span: int.span(),
            }),
            Err(err) => Err(syn::Error::new(
                int.span(),
                format!("`{key}` expects {what}: {err}"),
            )),
        },
        other => Err(expects(key, what, other)),
    }
}

fn parse_path(key: &str, expr: &Expr) -> syn::Result<syn::Path> {
    match expr {
        Expr::Path(p) if p.qself.is_none() => Ok(p.path.clone()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Err(syn::Error::new(
            s.span(),
            format!(
                "`{key}` expects a function path, found string; write `{key} = {}` without quotes",
                s.value()
            ),
        )),
        other => Err(expects(key, "a function path", other)),
    }
}

fn field_path(expr: &Expr) -> syn::Result<FieldPath> {
    fn walk(expr: &Expr, out: &mut Vec<syn::Member>) -> syn::Result<()> {
        match expr {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                out.push(syn::Member::Named(
                    p.path.get_ident().cloned().expect("checked"),
                ));
                Ok(())
            }
            Expr::Field(f) => {
                walk(&f.base, out)?;
                out.push(f.member.clone());
                Ok(())
            }
            other => Err(syn::Error::new_spanned(
                other,
                format!(
                    "`key` entries are parameter names or field paths like `args.order.id`, found {}",
                    describe(other)
                ),
            )),
        }
    }
    let mut segments = Vec::new();
    walk(expr, &mut segments)?;
    let text = segments
        .iter()
        .map(member_text)
        .collect::<Vec<_>>()
        .join(".");
    Ok(FieldPath {
        segments,
        text,
        span: SpanRange::of(expr),
    })
}

fn parse_allow(input: ParseStream<'_>, span: Span) -> syn::Result<Allow> {
    let content;
    syn::parenthesized!(content in input);
    let mut rules = Vec::new();
    let mut reason: Option<LitStr> = None;
    let mut reason_written = false;
    let mut errors: Option<syn::Error> = None;
    let push = |e: syn::Error, errors: &mut Option<syn::Error>| accumulate(errors, e);
    while !content.is_empty() {
        let ident: Ident = content.call(syn::ext::IdentExt::parse_any)?;
        if ident == "reason" {
            reason_written = true;
            content.parse::<Token![=]>()?;
            let expr: Expr = content.parse()?;
            match expr {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => {
                    if s.value().trim().is_empty() {
                        push(
                            syn::Error::new(
                                s.span(),
                                "`reason` must say why the rule does not apply here",
                            ),
                            &mut errors,
                        );
                    } else if reason.is_some() {
                        push(
                            syn::Error::new(s.span(), "`reason` given twice"),
                            &mut errors,
                        );
                    }
                    reason = Some(s);
                }
                other => push(expects("reason", "a string", &other), &mut errors),
            }
        } else {
            let text = ident.to_string();
            match RuleCode::parse(&text) {
                Some(code) => rules.push(Spanned {
                    value: code,
                    span: ident.span(),
                }),
                None => {
                    let names = crate::rules::CATALOGUE.iter().map(|r| r.name);
                    let hint = match nearest(&text, names) {
                        Some(n) => format!("; did you mean `{n}`?"),
                        None => {
                            "; rules are named by code (`IDEM001`) or name (`missing_key`)".into()
                        }
                    };
                    push(
                        syn::Error::new(ident.span(), format!("unknown rule `{text}`{hint}")),
                        &mut errors,
                    );
                }
            }
        }
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if rules.is_empty() && errors.is_none() {
        push(
            syn::Error::new(
                span,
                "`allow` needs at least one rule, e.g. `allow(missing_verify, reason = \"...\")`",
            ),
            &mut errors,
        );
    }
    let reason = match reason {
        Some(reason) => Some(reason),
        None if reason_written => None,
        None => {
            push(
                syn::Error::new(
                    span,
                    "`allow` requires `reason = \"...\"` saying why the rule does not apply here",
                ),
                &mut errors,
            );
            None
        }
    };
    match errors {
        Some(e) => Err(e),
        None => Ok(Allow {
            rules,
            reason: reason.expect("checked above"),
            span,
        }),
    }
}

/// Consume an entry's value (`= expr` or `(...)`), if any, so parsing can go on with the
/// next entry after an error.
fn skip_value(input: ParseStream<'_>) -> syn::Result<()> {
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        input.parse::<Expr>()?;
    } else if input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in input);
    }
    Ok(())
}

impl Parse for SideEffectAttr {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut attr = SideEffectAttr::default();
        let mut errors: Option<syn::Error> = None;
        let mut seen: Vec<(String, Span)> = Vec::new();
        let mut key_fn_span: Option<Span> = None;
        let mut key_span: Option<Span> = None;

        while !input.is_empty() {
            let ident: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            let name = ident.to_string();
            let span = ident.span();
            let result: syn::Result<()> = (|| {
                if name != "allow" && seen.iter().any(|(n, _)| *n == name) {
                    skip_value(input)?;
                    return Err(syn::Error::new(span, format!("`{name}` is given twice")));
                }
                seen.push((name.clone(), span));
                if name == "allow" {
                    attr.allows.push(parse_allow(input, span)?);
                    return Ok(());
                }
                if name == "server_dedup" && (input.is_empty() || input.peek(Token![,])) {
                    attr.server_dedup = Some(Spanned { value: true, span });
                    return Ok(());
                }
                if !KEYS.contains(&name.as_str()) {
                    skip_value(input)?;
                    let hint = match nearest(&name, KEYS.iter().copied()) {
                        Some(k) => format!("; did you mean `{k}`?"),
                        None => format!("; expected one of {}", KEYS.join(", ")),
                    };
                    return Err(syn::Error::new(span, format!("unknown key `{name}`{hint}")));
                }
                if !input.peek(Token![=]) {
                    return Err(syn::Error::new(
                        span,
                        format!("`{name}` needs a value: `{name} = ...`"),
                    ));
                }
                input.parse::<Token![=]>()?;
                let value: Expr = input.parse()?;
                match name.as_str() {
                    "kind" => match &value {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) => {
                            let kind = match s.value().as_str() {
                                "write" => ToolKind::Write,
                                "read" => ToolKind::Read,
                                other => {
                                    return Err(syn::Error::new(
                                        s.span(),
                                        format!(
                                            "`kind` expects \"write\" or \"read\", found \"{other}\""
                                        ),
                                    ));
                                }
                            };
                            attr.kind = Some(Spanned {
                                value: kind,
                                span: s.span(),
                            });
                        }
                        Expr::Path(p) if p.path.is_ident("write") || p.path.is_ident("read") => {
                            let word = p.path.get_ident().expect("checked").to_string();
                            return Err(syn::Error::new_spanned(
                                p,
                                format!("`kind` expects a string: write `kind = \"{word}\"`"),
                            ));
                        }
                        other => return Err(expects("kind", "\"write\" or \"read\"", other)),
                    },
                    "key" => {
                        key_span = Some(span);
                        if let Some(other) = key_fn_span {
                            let mut e = syn::Error::new(
                                span,
                                "`key` and `key_fn` are mutually exclusive; keep one",
                            );
                            e.combine(syn::Error::new(other, "`key_fn` given here"));
                            return Err(e);
                        }
                        let Expr::Array(array) = &value else {
                            return Err(expects(
                                "key",
                                "a list of fields like `[customer, order_id]`",
                                &value,
                            ));
                        };
                        if array.elems.is_empty() {
                            return Err(syn::Error::new_spanned(
                                array,
                                "`key` needs at least one field naming the operation",
                            ));
                        }
                        let mut fields = Vec::new();
                        let mut errs: Option<syn::Error> = None;
                        for elem in &array.elems {
                            match field_path(elem) {
                                Ok(f) => {
                                    if fields.iter().any(|g: &FieldPath| g.text == f.text) {
                                        let e = syn::Error::new(
                                            f.span.start,
                                            format!("key field `{}` is listed twice", f.text),
                                        );
                                        accumulate(&mut errs, e);
                                    } else {
                                        fields.push(f);
                                    }
                                }
                                Err(e) => accumulate(&mut errs, e),
                            }
                        }
                        if let Some(e) = errs {
                            return Err(e);
                        }
                        attr.key = Some(KeyAttr::Fields { fields, span });
                    }
                    "key_fn" => {
                        key_fn_span = Some(span);
                        if let Some(other) = key_span {
                            let mut e = syn::Error::new(
                                span,
                                "`key` and `key_fn` are mutually exclusive; keep one",
                            );
                            e.combine(syn::Error::new(other, "`key` given here"));
                            return Err(e);
                        }
                        attr.key = Some(KeyAttr::Function(parse_path("key_fn", &value)?));
                    }
                    "key_context" => attr.key_context = Some(parse_key_context(&value, span)?),
                    "verify" => match &value {
                        Expr::Path(p) if p.qself.is_none() && p.path.is_ident("none") => {
                            attr.verify_none = Some(syn::spanned::Spanned::span(p));
                        }
                        _ => attr.verify = Some(parse_path("verify", &value)?),
                    },
                    "max_retries" => {
                        attr.max_retries = Some(parse_int("max_retries", &value, "an integer")?)
                    }
                    "timeout_ms" => {
                        let v: Spanned<u64> =
                            parse_int("timeout_ms", &value, "an integer number of milliseconds")?;
                        if v.value == 0 {
                            return Err(syn::Error::new(
                                v.span,
                                "`timeout_ms` must be greater than 0",
                            ));
                        }
                        attr.timeout_ms = Some(v);
                    }
                    "settle_ms" => {
                        attr.settle_ms = Some(parse_int(
                            "settle_ms",
                            &value,
                            "an integer number of milliseconds",
                        )?)
                    }
                    "ttl_hours" => {
                        let v: Spanned<u32> =
                            parse_int("ttl_hours", &value, "an integer number of hours")?;
                        if v.value == 0 {
                            return Err(syn::Error::new(v.span, "`ttl_hours` must be at least 1"));
                        }
                        attr.ttl_hours = Some(v);
                    }
                    "name" => match &value {
                        Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        }) => {
                            if s.value().trim().is_empty() {
                                return Err(syn::Error::new(s.span(), "`name` must not be empty"));
                            }
                            attr.name = Some(s.clone());
                        }
                        other => return Err(expects("name", "a string", other)),
                    },
                    "server_dedup" => match &value {
                        Expr::Lit(ExprLit {
                            lit: Lit::Bool(b), ..
                        }) => {
                            attr.server_dedup = Some(Spanned {
                                value: b.value,
                                span: b.span(),
                            })
                        }
                        other => return Err(expects("server_dedup", "a boolean", other)),
                    },
                    "map_error" => match &value {
                        Expr::Lit(ExprLit {
                            lit: Lit::Bool(b), ..
                        }) => {
                            attr.map_error = Some(Spanned {
                                value: b.value,
                                span: b.span(),
                            })
                        }
                        other => return Err(expects("map_error", "a boolean", other)),
                    },
                    _ => unreachable!("every key of KEYS is handled"),
                }
                Ok(())
            })();
            if let Err(e) = result {
                accumulate(&mut errors, e);
            }
            if input.is_empty() {
                break;
            }
            if let Err(e) = input.parse::<Token![,]>() {
                let e = syn::Error::new(
                    e.span(),
                    "expected `,` between entries of `#[side_effect(...)]`",
                );
                accumulate(&mut errors, e);
                // Skip to the end: the rest cannot be split into entries reliably.
                let _: TokenStream = input.parse()?;
            }
        }
        if let Some(kc) = &attr.key_context
            && !matches!(attr.key, Some(KeyAttr::Function(_)))
        {
            accumulate(
                &mut errors,
                syn::Error::new(
                    kc.span,
                    "`key_context` says what a `key_fn` reads besides the arguments: it needs `key_fn = path` (a `key = [...]` list reads only arguments)",
                ),
            );
        }
        if let Some(none) = attr.verify_none
            && attr.kind() == ToolKind::Write
            && let Some(cap) = attr.max_retries
            && cap.value > 0
            && !attr.server_dedup.is_some_and(|d| d.value)
        {
            let mut e = syn::Error::new(
                cap.span,
                format!(
                    "`max_retries = {}` with `verify = none`: without a read, an interrupted call is never retried (a retry could do it twice), so the cap is never used; write `max_retries = 0`, or add `server_dedup = true` if the API deduplicates on the key",
                    cap.value
                ),
            );
            e.combine(syn::Error::new(none, "`verify = none` given here"));
            accumulate(&mut errors, e);
        }
        match errors {
            Some(e) => Err(e),
            None => Ok(attr),
        }
    }
}

/// `key_context = [scope, clock, worker]`.
fn parse_key_context(value: &Expr, span: Span) -> syn::Result<KeyContextAttr> {
    let Expr::Array(array) = value else {
        return Err(expects(
            "key_context",
            "a list like `[scope]` (of scope, clock, worker)",
            value,
        ));
    };
    if array.elems.is_empty() {
        return Err(syn::Error::new_spanned(
            array,
            "`key_context` needs at least one of scope, clock, worker (or leave it out: the `key_fn` then reads only the arguments)",
        ));
    }
    let mut parts: Vec<Spanned<ContextPart>> = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for elem in &array.elems {
        let found = match elem {
            Expr::Path(p) => p.path.get_ident().map(|i| (i.to_string(), i.span())),
            _ => None,
        };
        let Some((name, at)) = found else {
            accumulate(
                &mut errors,
                expects("key_context", "names among scope, clock, worker", elem),
            );
            continue;
        };
        match ContextPart::parse(&name) {
            Some(part) if parts.iter().any(|p| p.value == part) => accumulate(
                &mut errors,
                syn::Error::new(at, format!("`{name}` is listed twice")),
            ),
            Some(part) => parts.push(Spanned {
                value: part,
                span: at,
            }),
            None => {
                let hint = match nearest(&name, ContextPart::ALL.iter().map(|p| p.as_str())) {
                    Some(k) => format!("; did you mean `{k}`?"),
                    None => "; expected scope, clock or worker".to_string(),
                };
                accumulate(
                    &mut errors,
                    syn::Error::new(at, format!("unknown context part `{name}`{hint}")),
                );
            }
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(KeyContextAttr { parts, span }),
    }
}

impl SideEffectAttr {
    /// The effective kind (`write` unless `kind = "read"`).
    pub fn kind(&self) -> ToolKind {
        self.kind.map_or(ToolKind::Write, |k| k.value)
    }

    /// Parse the arguments of a `#[side_effect(...)]` attribute as found on an item (the
    /// lint's entry point). A bare `#[side_effect]` has no arguments.
    pub fn from_attribute(attr: &syn::Attribute) -> syn::Result<Self> {
        match &attr.meta {
            syn::Meta::Path(_) => Ok(SideEffectAttr::default()),
            syn::Meta::List(list) => syn::parse2(list.tokens.clone()),
            syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(
                nv,
                "write the contract as `#[side_effect(key = [...], verify = ..., max_retries = N)]`",
            )),
        }
    }

    /// Whether the contract says what settles an ambiguous failure: a postcondition
    /// (`verify = path`) or, consciously, none (`verify = none`).
    pub fn declares_verify(&self) -> bool {
        self.verify.is_some() || self.verify_none.is_some()
    }

    /// The path of `key_fn`, if given.
    pub fn key_fn(&self) -> Option<&syn::Path> {
        match &self.key {
            Some(KeyAttr::Function(p)) => Some(p),
            _ => None,
        }
    }
}

/// Parse a `// idemcheck: allow(IDEM001, ..., reason = "...")` comment's text (everything
/// after `idemcheck:`), as the lint does for tools without a `#[side_effect]` attribute.
pub fn parse_allow_comment(text: &str) -> Result<(Vec<RuleCode>, String), String> {
    let tokens: TokenStream = text
        .trim()
        .parse()
        .map_err(|_| "cannot tokenize the comment".to_string())?;
    let parser = |input: ParseStream<'_>| {
        let ident: Ident = input.parse()?;
        if ident != "allow" {
            return Err(syn::Error::new(ident.span(), "expected `allow(...)`"));
        }
        let allow = parse_allow(input, ident.span())?;
        if !input.is_empty() {
            return Err(input.error("unexpected text after `allow(...)`"));
        }
        Ok(allow)
    };
    let allow = syn::parse::Parser::parse2(parser, tokens).map_err(|e| e.to_string())?;
    Ok((
        allow.rules.iter().map(|r| r.value).collect(),
        allow.reason.value(),
    ))
}
