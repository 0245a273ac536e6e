//! A crate whose tools are all fine: complete contracts, honest read tools. Only a warning
//! (IDEM009) remains, so the run exits 0.

use idemcheck::side_effect;
use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

pub struct Desk {
    http: reqwest::Client,
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct TicketArgs {
    pub reference: String,
    pub title: String,
}

#[tool_router]
impl Desk {
    #[side_effect(key = [reference], verify = Self::find_ticket, max_retries = 1, settle_ms = 20_000)]
    #[tool(description = "Open a ticket (one per reference)", annotations(destructive_hint = false, idempotent_hint = true))]
    async fn open_ticket(&self, Parameters(args): Parameters<TicketArgs>) -> Result<String, String> {
        self.http
            .post("https://desk.example/tickets")
            .json(&args)
            .send()
            .await
            .map(|r| r.status().to_string())
            .map_err(|e| e.to_string())
    }

    #[tool(description = "Find a ticket by reference", annotations(read_only_hint = true))]
    async fn find_ticket(&self, Parameters(args): Parameters<TicketArgs>) -> Result<Option<String>, String> {
        let r = self
            .http
            .get(format!("https://desk.example/tickets?ref={}", args.reference))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        Ok(Some(r.status().to_string()))
    }

    /// Retries without `settle_ms`: a warning, not an error.
    #[side_effect(key = [reference], verify = Self::find_ticket, max_retries = 1)]
    #[tool(description = "Add a comment (one per reference)")]
    async fn comment(&self, Parameters(args): Parameters<TicketArgs>) -> Result<String, String> {
        self.http
            .post("https://desk.example/comments")
            .json(&args)
            .send()
            .await
            .map(|r| r.status().to_string())
            .map_err(|e| e.to_string())
    }
}
