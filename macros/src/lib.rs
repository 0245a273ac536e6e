//! `#[side_effect(...)]`: the compile-time half of idemcheck. Use it through the `idemcheck`
//! crate, which re-exports it.
//!
//! The attribute is parsed by the one grammar in `idemcheck-spec` and judged by the one rule
//! implementation there (the same code `cargo idemcheck` runs). A contract with an
//! error-level violation does not compile: the macro emits the original function unchanged
//! plus one `compile_error!` per violation, at the exact token. Warning-level violations
//! (e.g. `IDEM009`) become compiler warnings.
//!
//! On a free function it generates, next to the untouched raw function, a type of the same
//! name with the contract and a guarded entry point:
//!
//! ```text
//! #[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
//! async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { .. }
//!
//! create_charge(&billing, args).await;                    // the raw tool, unguarded
//! create_charge::call(&ctx, &billing, args).await;        // -> Outcome<Charge, BillingError>
//! create_charge::CONTRACT;                                // the contract as data
//! ```
//!
//! On a method (rmcp `#[tool]` methods in a `#[tool_router]` impl, rig's `Tool::call`), the
//! method keeps its name and signature and is guarded in place; its context comes from
//! `idemcheck::ContextProvider` implemented by `Self`. In an inherent impl the raw body moves to
//! `<name>_unguarded` and the contract is `Self::<NAME>_CONTRACT`; in a trait impl (a method
//! named `call`, or one whose signature names an associated type of `Self`) nothing is added
//! beside the method: the contract and the raw body stay inside it. `&mut` parameters (rig's
//! `&mut ToolContext`) are lent to one attempt at a time.

use proc_macro::TokenStream;

mod expand;

#[cfg(test)]
mod differential;

/// Give a tool function its idempotency contract and a guarded wrapper. See the crate
/// documentation of `idemcheck` for the grammar.
#[proc_macro_attribute]
pub fn side_effect(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::expand(args.into(), input.into()).into()
}
