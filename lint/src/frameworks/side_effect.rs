//! idemcheck's own `#[side_effect]` contract (style `side_effect`).
//!
//! ```text
//! use idemcheck::side_effect;
//!
//! #[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1)]
//! async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, E> { .. }
//! ```
//!
//! The attribute, by its last path segment after `use` resolution (`idemcheck::side_effect`,
//! an alias, or inside `#[cfg_attr(.., side_effect(..))]`), makes a function a tool whose
//! contract the collector checks with the macro's own code
//! ([`idemcheck_spec::check::check_contract`]) while spans are alive. It may be stacked on a
//! framework's tool attribute (rmcp `#[tool]`, `#[rig_tool]`, ...): the tool keeps the style
//! `side_effect` and records that framework as well. A framework attribute written *above*
//! `#[side_effect]` expands first and leaves the macro nothing to wrap ([`framework_above`]).
//! `verify = path` and `key_fn = path` name functions of the workspace, which the index
//! follows ([`contract_fn_target`]).

use crate::facts::{CallTarget, Loc};

/// The last path segment of the contract attribute.
pub const ATTR: &str = "side_effect";

/// Whether a framework tool attribute `fw` is written above the contract `se` on the same
/// item: it expands first, and `#[side_effect]` then cannot wrap the function (`IDEM011`).
pub fn framework_above(se: &syn::Attribute, fw: &syn::Attribute) -> bool {
    Loc::of_span(fw.pound_token.span) < Loc::of_span(se.pound_token.span)
}

/// What a `verify = path` or `key_fn = path` of the contract calls, from the path resolved
/// through `use`: `Self::f` a method of the impl, `crate::a::f` an absolute path, `Type::f`
/// (an upper-case second-to-last segment) an associated function, anything else a path
/// relative to the module.
pub fn contract_fn_target(resolved: Vec<String>) -> CallTarget {
    if resolved.len() >= 2 && resolved[0] == "Self" {
        CallTarget::SelfMethod(resolved[resolved.len() - 1].clone())
    } else if resolved.first().is_some_and(|f| f == "crate") {
        CallTarget::Path {
            absolute: true,
            segments: resolved[1..].to_vec(),
        }
    } else if resolved.len() >= 2
        && resolved[resolved.len() - 2]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase())
    {
        CallTarget::TypeFn(
            resolved[resolved.len() - 2].clone(),
            resolved[resolved.len() - 1].clone(),
        )
    } else {
        CallTarget::Path {
            absolute: false,
            segments: resolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::ToolStyle;
    use crate::frameworks::test_support::{rows, tool_facts};

    fn segs(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    #[test]
    fn contract_functions_resolve_by_their_path() {
        assert_eq!(
            contract_fn_target(segs("Self::verify_charge")),
            CallTarget::SelfMethod("verify_charge".into())
        );
        assert_eq!(
            contract_fn_target(segs("crate::billing::find_charge")),
            CallTarget::Path {
                absolute: true,
                segments: segs("billing::find_charge")
            }
        );
        assert_eq!(
            contract_fn_target(segs("Billing::find_charge")),
            CallTarget::TypeFn("Billing".into(), "find_charge".into())
        );
        assert_eq!(
            contract_fn_target(segs("billing::find_charge")),
            CallTarget::Path {
                absolute: false,
                segments: segs("billing::find_charge")
            }
        );
    }

    #[test]
    fn a_contract_makes_a_function_a_tool_through_use_and_cfg_attr() {
        let src = r#"
use idemcheck::side_effect as guard;

#[guard(key = [order_id], verify = find_charge, max_retries = 1)]
pub async fn create_charge(order_id: String) -> Result<(), E> {
    reqwest::Client::new().post("https://pay.example/charges").send().await?;
    Ok(())
}

#[cfg_attr(feature = "guard", idemcheck::side_effect(kind = "read"))]
pub async fn get_charge(id: String) -> Result<(), E> { Ok(()) }

pub async fn find_charge(order_id: &str) -> Result<Option<String>, E> { Ok(None) }
"#;
        assert_eq!(
            rows(src),
            [
                (
                    "create_charge".into(),
                    "create_charge".into(),
                    "side_effect".into(),
                    "Write".into()
                ),
                (
                    "get_charge".into(),
                    "get_charge".into(),
                    "side_effect".into(),
                    "Read".into()
                ),
            ]
        );
        let facts = tool_facts(src);
        let charge = facts.iter().find(|t| t.name == "create_charge").unwrap();
        assert!(charge.has_contract);
        assert_eq!(
            charge
                .verify
                .as_ref()
                .map(|(c, text)| (&c.target, text.as_str())),
            Some((
                &CallTarget::Path {
                    absolute: false,
                    segments: vec!["find_charge".into()]
                },
                "find_charge"
            ))
        );
    }

    #[test]
    fn stacked_on_a_framework_attribute_the_tool_keeps_both() {
        let src = r#"
use rmcp::tool;
pub struct S;
#[rmcp::tool_router]
impl S {
    #[side_effect(key = [id], verify = Self::find, max_retries = 1)]
    #[tool(description = "Cancel")]
    async fn cancel(&self, id: String) { std::fs::remove_file(id).ok(); }
    #[tool(description = "Refund")]
    #[side_effect(key = [id], verify = Self::find, max_retries = 1)]
    async fn refund(&self, id: String) { std::fs::remove_file(id).ok(); }
}
"#;
        let facts = tool_facts(src);
        for t in &facts {
            assert_eq!(t.style, ToolStyle::SideEffect, "{}", t.name);
            assert_eq!(t.framework, Some(ToolStyle::Rmcp), "{}", t.name);
        }
        // `#[tool]` above `#[side_effect]` leaves the macro nothing to wrap.
        let refund = facts.iter().find(|t| t.name == "refund").unwrap();
        assert!(
            refund
                .contract_findings
                .iter()
                .any(|f| f.code == idemcheck_spec::RuleCode::Idem011),
            "{:?}",
            refund.contract_findings
        );
        let cancel = facts.iter().find(|t| t.name == "cancel").unwrap();
        assert!(
            !cancel
                .contract_findings
                .iter()
                .any(|f| f.code == idemcheck_spec::RuleCode::Idem011),
            "{:?}",
            cancel.contract_findings
        );
    }
}
