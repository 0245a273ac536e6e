//! Tools marked with attributes and traits named in the configuration. Several crates export
//! an attribute called `tool`: only the configured one (`agent_sdk::tool`) marks tools here.

use agent_sdk::tool;
use idemcheck::side_effect;

mod generated;
mod telemetry;

pub struct Shop {
    http: reqwest::Client,
}

#[derive(serde::Serialize)]
pub struct OrderArgs {
    pub order_id: String,
}

/// A configured tool attribute (resolved through `use agent_sdk::tool`).
#[tool(name = "place_order")]
pub async fn place_order(shop: &Shop, args: OrderArgs) -> Result<String, reqwest::Error> {
    shop.http.post("https://shop.example/orders").json(&args).send().await?.text().await
}

/// A configured tool that only reads: no findings.
#[tool(name = "order_status")]
pub async fn order_status(shop: &Shop, args: OrderArgs) -> Result<String, reqwest::Error> {
    shop.http.get(format!("https://shop.example/orders/{}", args.order_id)).send().await?.text().await
}

/// A cap of 2 is within the configured maximum; missing verify is only a warning here.
#[side_effect(key = [order_id], max_retries = 2)]
pub async fn cancel_order(shop: &Shop, args: OrderArgs) -> Result<String, reqwest::Error> {
    shop.http.delete(format!("https://shop.example/orders/{}", args.order_id)).send().await?.text().await
}

/// A configured tool trait.
pub trait AgentTool {
    fn run(&self, input: String) -> Result<String, String>;
}

pub struct Restock {
    pool: sqlx::PgPool,
}

impl AgentTool for Restock {
    fn run(&self, input: String) -> Result<String, String> {
        let pool = self.pool.clone();
        futures::executor::block_on(async move {
            sqlx::query("UPDATE stock SET qty = qty + 10 WHERE sku = $1")
                .bind(&input)
                .execute(&pool)
                .await
                .map_err(|e| e.to_string())
        })?;
        Ok(input)
    }
}
