//! `IDEM011 malformed_contract`: a `#[side_effect(...)]` attribute that does not follow the
//! grammar.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem011,
    code: "IDEM011",
    name: "malformed_contract",
    default_severity: Severity::Error,
    summary: "a `#[side_effect(...)]` attribute or suppression comment that does not follow the grammar",
    what: "Unknown keys (with the nearest valid one suggested), values of the wrong type, a key \
given twice, both `key` and `key_fn`, `allow` without `reason`, unknown rule names, and key fields \
that name no input of the tool. The macro reports these as compile errors; the lint as findings \
at the same token.",
    why: "A contract that does not parse protects nothing, and a silently ignored key is worse \
than a missing one because it looks reviewed.",
    example: r#"// fires: `max_retries` expects an integer, found string
#[side_effect(key = [customer], verify = find_charge, max_retries = "1")]

// fires: unknown key `verfy`; did you mean `verify`?
#[side_effect(key = [customer], verfy = find_charge, max_retries = 1)]"#,
    compile_time: true,
};

/// The shapes of function the generated wrapper needs, checked by the macro (as compile
/// errors) and by the lint (as findings) through this one function: a `#[side_effect]`
/// method borrows its service as `&self` (the attempt and the postcondition both borrow it,
/// so `&mut self` and `mut self` cannot work), and it is an `async fn` (it waits on the
/// ledger). A free function may be synchronous.
///
/// `framework_above` is a framework's tool attribute (rmcp's `#[tool]`) written above
/// `#[side_effect]`: it runs first and turns an `async fn` into a plain `fn` returning a boxed
/// future, which the guard cannot wrap. The lint sees that attribute in the source; the macro
/// sees only what it left: a non-async function returning `Pin<Box<dyn Future ..>>`. Either
/// way the finding says to swap them, at the framework's attribute.
#[cfg(feature = "grammar")]
pub fn check_signature(
    sig: &syn::Signature,
    framework_above: Option<&syn::Attribute>,
) -> Vec<crate::check::Violation> {
    use crate::check::{SpanRange, Violation};
    let mut out = Vec::new();
    let violation = |span: SpanRange, message: &str| Violation {
        code: RuleCode::Idem011,
        severity: Severity::Error,
        span,
        message: message.to_string(),
        help: None,
        suppressed: None,
    };
    let order = match framework_above {
        Some(attr) => Some((SpanRange::of(attr), attribute_name(attr))),
        None if sig.asyncness.is_none() && returns_boxed_future(&sig.output) => {
            Some((SpanRange::of(&sig.output), "tool".to_string()))
        }
        None => None,
    };
    if let Some((span, name)) = order {
        out.push(violation(
            span,
            &format!(
                "place `#[side_effect]` above `#[{name}]`: `#[{name}]` runs first when it is written above, and turns the `async fn` into a boxed future the guard cannot wrap"
            ),
        ));
        return out;
    }
    let Some(receiver) = sig.receiver() else {
        return out;
    };
    if receiver.mutability.is_some()
        || matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, Some(_)))
    {
        out.push(violation(
            SpanRange::of(receiver),
            "a `#[side_effect]` method takes `&self`: the attempt and the postcondition both borrow the service",
        ));
    }
    if sig.asyncness.is_none() {
        let message = match returns_impl_future(&sig.output) {
            // A trait method declared `fn call(..) -> impl Future<..>` (rig's `Tool::call`)
            // may be implemented as an `async fn`.
            true => format!(
                "a `#[side_effect]` method must be `async fn`: it waits on the ledger; write `async fn {}(..)` returning the future's output (a trait that declares `-> impl Future<Output = ..>` accepts an `async fn` in its impl)",
                sig.ident
            ),
            false => "a `#[side_effect]` method must be `async fn`: it waits on the ledger".into(),
        };
        out.push(violation(sig.fn_token.span.into(), &message));
    }
    out
}

/// `-> impl Future<..>`.
#[cfg(feature = "grammar")]
fn returns_impl_future(output: &syn::ReturnType) -> bool {
    matches!(output, syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::ImplTrait(t) if t.bounds.iter().any(|b| matches!(
        b,
        syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Future")
    ))))
}

#[cfg(feature = "grammar")]
fn attribute_name(attr: &syn::Attribute) -> String {
    attr.path()
        .segments
        .last()
        .map_or_else(|| "tool".to_string(), |s| s.ident.to_string())
}

/// `-> Pin<Box<dyn Future<..> ..>>`: what rmcp's `#[tool]` makes of an `async fn`.
#[cfg(feature = "grammar")]
fn returns_boxed_future(output: &syn::ReturnType) -> bool {
    let syn::ReturnType::Type(_, ty) = output else {
        return false;
    };
    let last_arg = |ty: &syn::Type, name: &str| -> Option<syn::Type> {
        let syn::Type::Path(p) = ty else { return None };
        let seg = p.path.segments.last()?;
        if seg.ident != name {
            return None;
        }
        let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
            return None;
        };
        args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        })
    };
    let Some(boxed) = last_arg(ty, "Pin").and_then(|b| last_arg(&b, "Box")) else {
        return false;
    };
    matches!(boxed, syn::Type::TraitObject(o) if o.bounds.iter().any(|b| matches!(
        b,
        syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Future")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(src: &str) -> Vec<String> {
        let f: syn::ImplItemFn = syn::parse_str(src).unwrap();
        check_signature(&f.sig, None)
            .into_iter()
            .map(|v| v.message)
            .collect()
    }

    #[test]
    fn methods_borrow_self_and_are_async() {
        assert!(messages("async fn ok(&self, x: u32) {}").is_empty());
        assert!(messages("fn free_sync(x: u32) {}").is_empty());
        assert_eq!(messages("async fn a(&mut self) {}").len(), 1);
        assert_eq!(messages("async fn b(mut self) {}").len(), 1);
        let both = messages("fn c(&mut self) {}");
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(both[1].contains("async fn"));
    }

    #[test]
    fn a_framework_attribute_above_the_guard_is_named() {
        // What rmcp's `#[tool]` leaves when it runs first.
        let boxed = messages(
            "fn t(&self) -> ::std::pin::Pin<Box<dyn ::std::future::Future<Output = Result<u8, String>> + Send + '_>> { Box::pin(async move { Ok(1) }) }",
        );
        assert_eq!(boxed.len(), 1, "{boxed:?}");
        assert!(boxed[0].starts_with("place `#[side_effect]` above `#[tool]`"));
        // What the lint sees in the source.
        let f: syn::ImplItemFn = syn::parse_str(
            "#[tool(description = \"x\")] async fn t(&self) -> Result<u8, String> { Ok(1) }",
        )
        .unwrap();
        let found = check_signature(&f.sig, f.attrs.first());
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .message
                .starts_with("place `#[side_effect]` above `#[tool]`")
        );
        // A plain boxed return type is not mistaken for it.
        assert_eq!(messages("fn u(&self) -> Box<u8> { Box::new(1) }").len(), 1);
    }
}
