//! Generated code names only absolute paths: it compiles with the prelude shadowed and
//! with every warning denied.
#![deny(warnings)]
#![allow(non_camel_case_types, dead_code, non_snake_case)]

type Option = ();
type Result = ();
struct Ok;
struct Err;
struct Some;
struct None;
type String = u8;
type Vec = ();
type Box = ();
mod core {}
mod std {}
mod serde {}
mod idemcheck {}
mod serde_json {}
trait Clone {}
trait Future {}
trait Send {}

#[derive(::core::clone::Clone, ::serde::Serialize)]
pub struct ChargeArgs {
    pub customer: ::std::string::String,
    pub order_id: ::std::string::String,
}

pub struct Billing;

pub async fn find_charge(
    _billing: &Billing,
    _args: &ChargeArgs,
) -> ::core::result::Result<::core::option::Option<u32>, ::std::string::String> {
    ::core::result::Result::Ok(::core::option::Option::None)
}

/// Charges once.
#[::idemcheck::side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
pub async fn create_charge(
    _billing: &Billing,
    _args: ChargeArgs,
) -> ::core::result::Result<u32, ::std::string::String> {
    ::core::result::Result::Ok(7)
}

fn main() {
    let clock = ::idemcheck::VirtualClock::new();
    let ledger = ::idemcheck::MemoryLedger::with_clock(::std::sync::Arc::new(clock.clone()));
    let ctx = ::idemcheck::Context::with_clock(
        ledger,
        ::std::sync::Arc::new(clock.clone()),
        ::idemcheck::Scope::run("r"),
    );
    let args = ChargeArgs { customer: "acme".into(), order_id: "o-1".into() };
    let out = clock.block_on(create_charge::call(&ctx, &Billing, args));
    assert!(::core::matches!(out, ::core::option::Option::Some(::idemcheck::Outcome::Completed(7))));
}
