//! rig tools: `impl Tool for T` and `#[rig_tool]`.

use rig::completion::ToolDefinition;
use rig::tool::Tool;
use rig_derive::rig_tool;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
#[error("ticket error")]
pub struct TicketError;

#[derive(Deserialize, Serialize)]
pub struct TicketArgs {
    pub reference: String,
    pub title: String,
    /// The model is asked to fill this in.
    pub idempotency_key: String,
}

pub struct CreateTicket {
    client: reqwest::Client,
    url: String,
}

impl Tool for CreateTicket {
    const NAME: &'static str = "create_ticket";
    type Error = TicketError;
    type Args = TicketArgs;
    type Output = String;

    async fn definition(&self, _prompt: String) -> ToolDefinition {
        ToolDefinition {
            name: Self::NAME.to_string(),
            description: "Open a help-desk ticket".to_string(),
            parameters: serde_json::json!({ "type": "object" }),
        }
    }

    async fn call(&self, args: Self::Args) -> Result<Self::Output, Self::Error> {
        // The key comes from the model: a retry may carry a different one.
        let resp = self
            .client
            .post(&self.url)
            .header("Idempotency-Key", args.idempotency_key.clone())
            .json(&args)
            .send()
            .await
            .map_err(|_| TicketError)?;
        Ok(resp.status().to_string())
    }
}

pub struct PostComment {
    client: reqwest::Client,
    url: String,
}

#[derive(Deserialize, Serialize)]
pub struct CommentArgs {
    pub ticket: String,
    pub body: String,
}

impl Tool for PostComment {
    const NAME: &'static str = "post_comment";
    type Error = TicketError;
    type Args = CommentArgs;
    type Output = ();

    async fn definition(&self, _prompt: String) -> ToolDefinition {
        unimplemented!()
    }

    async fn call(&self, args: Self::Args) -> Result<(), TicketError> {
        // A fresh key per attempt deduplicates nothing.
        let key = Uuid::new_v4().to_string();
        for attempt in 0..3 {
            let r = self
                .client
                .post(format!("{}/tickets/{}/comments", self.url, args.ticket))
                .header("Idempotency-Key", &key)
                .json(&args)
                .send()
                .await;
            match r {
                Ok(_) => return Ok(()),
                Err(_) if attempt < 2 => continue,
                Err(_) => return Err(TicketError),
            }
        }
        Ok(())
    }
}

pub struct SearchTickets {
    client: reqwest::Client,
    url: String,
}

#[derive(Deserialize, Serialize)]
pub struct SearchArgs {
    pub query: String,
}

impl Tool for SearchTickets {
    const NAME: &'static str = "search_tickets";
    type Error = TicketError;
    type Args = SearchArgs;
    type Output = String;

    async fn definition(&self, _prompt: String) -> ToolDefinition {
        unimplemented!()
    }

    async fn call(&self, args: Self::Args) -> Result<String, TicketError> {
        // Retrying a read is fine: not IDEM008.
        let mut tries = 0;
        loop {
            tries += 1;
            match self.client.get(&self.url).query(&[("q", &args.query)]).send().await {
                Ok(r) => return r.text().await.map_err(|_| TicketError),
                Err(_) if tries < 3 => continue,
                Err(_) => return Err(TicketError),
            }
        }
    }
}

/// Deploys by shelling out to kubectl.
#[rig_tool(description = "Deploy a service version", params(service = "service name", version = "version"))]
async fn deploy(service: String, version: String) -> Result<String, rig::tool::ToolError> {
    let status = tokio::process::Command::new("kubectl")
        .args(["set", "image", "deployment/app"])
        .arg(format!("{service}={version}"))
        .status()
        .await
        .map_err(|e| rig::tool::ToolError::ToolCallError(Box::new(e)))?;
    Ok(status.to_string())
}

/// Reads the rollout status: a read-only process.
#[rig_tool(description = "Show rollout status", params(service = "service name"))]
async fn rollout_status(service: String) -> Result<String, rig::tool::ToolError> {
    let out = std::process::Command::new("kubectl")
        .args(["get", "deployment"])
        .arg(&service)
        .output()
        .map_err(|e| rig::tool::ToolError::ToolCallError(Box::new(e)))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
