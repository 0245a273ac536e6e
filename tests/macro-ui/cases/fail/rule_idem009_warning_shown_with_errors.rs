#![deny(warnings)]
// An error does not hide the warnings: both are shown at once, not one after the other.
use idemcheck::side_effect;

#[derive(Clone, serde::Serialize)]
pub struct ChargeArgs {
    pub customer: String,
    pub order_id: String,
    pub amount_cents: u64,
    pub idempotency_key: String,
}

pub struct Billing;

pub async fn find_charge(_billing: &Billing, _args: &ChargeArgs) -> Result<Option<String>, String> {
    Ok(None)
}

#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 3)]
pub async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<String, String> {
    let _ = (billing, args);
    Ok(String::new())
}

fn main() {}
