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
pub fn check_signature(sig: &syn::Signature) -> Vec<crate::check::Violation> {
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
        out.push(violation(
            sig.fn_token.span.into(),
            "a `#[side_effect]` method must be `async fn`: it waits on the ledger",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(src: &str) -> Vec<String> {
        let f: syn::ImplItemFn = syn::parse_str(src).unwrap();
        check_signature(&f.sig)
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
}
