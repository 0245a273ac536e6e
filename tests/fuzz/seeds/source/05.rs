//! Contracts whose `verify` and `key_fn` are followed into their bodies.

use idemcheck::side_effect;

pub struct Billing {
    http: reqwest::Client,
    url: String,
}

#[derive(serde::Serialize)]
pub struct ChargeArgs {
    pub customer: String,
    pub order_id: String,
    pub amount: u64,
}

/// Complete and honest.
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, server_dedup = true)]
pub async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<String, reqwest::Error> {
    billing.http.post(format!("{}/charges", billing.url)).json(&args).send().await?.text().await
}

pub async fn find_charge(billing: &Billing, args: &ChargeArgs) -> Result<Option<String>, reqwest::Error> {
    let r = billing.http.get(format!("{}/charges?order={}", billing.url, args.order_id)).send().await?;
    Ok(Some(r.text().await?))
}

/// The postcondition writes (through a helper): IDEM006.
#[side_effect(key = [customer, order_id], verify = find_or_create_refund, max_retries = 0)]
pub async fn create_refund(billing: &Billing, args: ChargeArgs) -> Result<String, reqwest::Error> {
    billing.http.post(format!("{}/refunds", billing.url)).json(&args).send().await?.text().await
}

pub async fn find_or_create_refund(billing: &Billing, args: &ChargeArgs) -> Result<Option<String>, reqwest::Error> {
    Ok(Some(ensure_refund(billing, args).await?))
}

async fn ensure_refund(billing: &Billing, args: &ChargeArgs) -> Result<String, reqwest::Error> {
    billing.http.put(format!("{}/refunds/{}", billing.url, args.order_id)).send().await?.text().await
}

/// The postcondition does not exist: IDEM006.
#[side_effect(key = [customer, order_id], verify = lookup_payout, max_retries = 0)]
pub async fn create_payout(billing: &Billing, args: ChargeArgs) -> Result<String, reqwest::Error> {
    billing.http.post(format!("{}/payouts", billing.url)).json(&args).send().await?.text().await
}

/// The key function is random: IDEM004.
#[side_effect(key_fn = fresh_key, verify = find_charge, max_retries = 0)]
pub async fn capture_charge(billing: &Billing, args: ChargeArgs) -> Result<String, reqwest::Error> {
    billing.http.post(format!("{}/captures", billing.url)).json(&args).send().await?.text().await
}

fn fresh_key(args: &ChargeArgs) -> String {
    format!("{}-{}", args.order_id, uuid::Uuid::new_v4())
}

/// A deterministic key function: no finding.
#[side_effect(key_fn = order_key, verify = find_charge, max_retries = 0)]
pub async fn void_charge(billing: &Billing, args: ChargeArgs) -> Result<String, reqwest::Error> {
    billing.http.delete(format!("{}/charges/{}", billing.url, args.order_id)).send().await?.text().await
}

fn order_key(args: &ChargeArgs) -> (String, String) {
    (args.customer.clone(), args.order_id.clone())
}
