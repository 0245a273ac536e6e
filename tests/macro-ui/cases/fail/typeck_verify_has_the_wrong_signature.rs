use idemcheck::side_effect;

#[derive(Clone, serde::Serialize)]
pub struct ChargeArgs {
    pub customer: String,
    pub order_id: String,
}

pub struct Billing;

/// Takes the arguments by value: the guard passes them by reference.
pub async fn find_charge(_billing: &Billing, _args: ChargeArgs) -> Result<Option<String>, String> {
    Ok(None)
}

#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 0)]
pub async fn create_charge(_billing: &Billing, args: ChargeArgs) -> Result<String, String> {
    Ok(args.order_id)
}

fn main() {}
