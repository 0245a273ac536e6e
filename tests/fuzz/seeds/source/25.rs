//! One write tool without a contract.

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

pub struct Billing {
    http: reqwest::Client,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct ChargeArgs {
    pub customer: String,
    pub cents: u64,
}

#[tool_router]
impl Billing {
    #[tool(description = "Charge a customer")]
    async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<String, String> {
        self.http
            .post(format!("https://billing.example/charges/{}", args.customer))
            .send()
            .await
            .map(|r| r.status().to_string())
            .map_err(|e| e.to_string())
    }
}
