//! One file does not parse; the run reports it and goes on with the others.

use rmcp::{tool, tool_router};

mod broken;

pub struct Desk {
    http: reqwest::Client,
}

#[tool_router]
impl Desk {
    #[tool(description = "Close a ticket")]
    async fn close_ticket(&self, id: String) -> Result<String, String> {
        self.http
            .patch(format!("https://desk.example/tickets/{id}"))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        Ok(id)
    }
}
