//! One read tool.

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

pub struct Desk {
    http: reqwest::Client,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct FindArgs {
    pub reference: String,
}

#[tool_router]
impl Desk {
    #[tool(description = "Find a ticket by reference", annotations(read_only_hint = true))]
    async fn find_ticket(&self, Parameters(args): Parameters<FindArgs>) -> Result<Option<String>, String> {
        let r = self
            .http
            .get(format!("https://desk.example/tickets?ref={}", args.reference))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        Ok(Some(r.status().to_string()))
    }
}
