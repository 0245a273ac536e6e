//! The idemcheck tool contract, shared by the `#[side_effect]` macro and `cargo idemcheck`.
//!
//! - [`model`]: the contract and the findings report as data (serde + schemars);
//! - [`attr`]: the `#[side_effect(...)]` grammar ([`attr::SideEffectAttr`] implements
//!   [`syn::parse::Parse`]);
//! - [`signature`]: which parameters are inputs and which are services, and how key fields
//!   resolve;
//! - [`hints`]: MCP tool hints of rmcp and rust-mcp-sdk attributes;
//! - [`keys`]: the one rule for key fields the caller chooses (macro, `IDEM004`, `suggest`);
//! - [`rules`]: the rule catalogue, one module per rule;
//! - [`check`]: the one rule implementation both the macro and the lint run;
//! - [`config`]: `idemcheck.toml` and `[*.metadata.idemcheck]`.
//!
//! This crate has no `proc_macro` dependency, so the lint can use it as a library.
//!
//! ```
//! use idemcheck_spec::{attr::SideEffectAttr, check::{check_contract, CheckInput}, config::Config};
//!
//! let attr: SideEffectAttr = syn::parse_str("key = [customer, order_id], verify = find_charge").unwrap();
//! let func: syn::ItemFn = syn::parse_str(
//!     "async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { todo!() }",
//! ).unwrap();
//! let verdict = check_contract(CheckInput { attr: &attr, sig: &func.sig, hints: None, config: &Config::default() });
//! let codes: Vec<_> = verdict.violations.iter().map(|v| v.code.as_str()).collect();
//! assert_eq!(codes, ["IDEM003"]); // no retry cap
//! ```

pub mod attr;
pub mod check;
pub mod config;
pub mod hints;
pub mod keys;
pub mod model;
pub mod rules;
pub mod schema;
pub mod signature;

pub use model::{
    Finding, Judgement, Report, RuleCode, Severity, ToolContract, ToolEntry, ToolKind,
};
