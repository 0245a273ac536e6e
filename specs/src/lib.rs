//! The idemcheck tool contract, shared by the `#[side_effect]` macro and `cargo idemcheck`.
//!
//! - [`model`]: the contract and the findings report as data (serde; schemars with `schema`);
//! - [`keys`]: the one rule for key fields the caller chooses (macro, `IDEM004`, `suggest`);
//! - [`rules`]: the rule catalogue, one module per rule;
//! - [`near`]: "did you mean ...?" suggestions;
//! - `attr` (feature `grammar`): the `#[side_effect(...)]` grammar (`attr::SideEffectAttr`
//!   implements `syn::parse::Parse`);
//! - `signature` (`grammar`): which parameters are inputs and which are services, and how key
//!   fields resolve;
//! - `hints` (`grammar`): MCP tool hints of rmcp and rust-mcp-sdk attributes;
//! - `check` (`grammar`): the one rule implementation both the macro and the lint run;
//! - `config` (`config`, part of `grammar`): `idemcheck.toml` and `[*.metadata.idemcheck]`;
//! - `schema` (`schema`): the JSON Schemas generated from the model.
//!
//! This crate has no `proc_macro` dependency, so the lint can use it as a library.
//!
//! # Features
//!
//! Without features the crate is the model, the rule catalogue, the key rule and
//! suggestions, on serde alone: all the runtime (`idemcheck`) needs, so its users compile no
//! parser for it. `grammar` adds the grammar, the signature analysis, the hints, the check,
//! the rules' checks and (through `config`) the configuration — syn, quote, proc-macro2 and
//! toml_edit; the macro and the lint turn it on. `schema` adds the schemas and `JsonSchema`
//! on the model (schemars).
//!
//! ```
//! # #[cfg(feature = "grammar")] {
//! use idemcheck_spec::{attr::SideEffectAttr, check::{check_contract, CheckInput}, config::Config};
//!
//! let attr: SideEffectAttr = syn::parse_str("key = [customer, order_id], verify = find_charge").unwrap();
//! let func: syn::ItemFn = syn::parse_str(
//!     "async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { todo!() }",
//! ).unwrap();
//! let verdict = check_contract(CheckInput { attr: &attr, sig: &func.sig, hints: None, config: &Config::default() });
//! let codes: Vec<_> = verdict.violations.iter().map(|v| v.code.as_str()).collect();
//! assert_eq!(codes, ["IDEM003"]); // no retry cap
//! # }
//! ```

#[cfg(feature = "grammar")]
pub mod attr;
#[cfg(feature = "grammar")]
pub mod check;
#[cfg(feature = "config")]
pub mod config;
#[cfg(feature = "grammar")]
pub mod hints;
#[cfg(feature = "grammar")]
pub mod ident;
pub mod keys;
pub mod model;
pub mod near;
pub mod rules;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "grammar")]
pub mod signature;

pub use model::{
    Finding, Judgement, Report, RuleCode, Severity, ToolContract, ToolEntry, ToolKind,
};
