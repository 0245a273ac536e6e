//! Hand-written retry loops and retry combinators around writes (IDEM008, IDEM003 when
//! unbounded), next to retries of reads and bounded retries.

use backon::{ExponentialBuilder, Retryable};
use rmcp::{tool, tool_router, handler::server::wrapper::Parameters};
use tokio_retry::{strategy::ExponentialBackoff, Retry};

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub struct OrderArgs {
    pub order_id: String,
}

pub struct Orders {
    http: reqwest::Client,
    url: String,
}

#[tool_router]
impl Orders {
    /// `loop` with no bound around a POST: IDEM008 and IDEM003.
    #[tool(description = "Place an order")]
    async fn place_order(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, String> {
        loop {
            match self.http.post(&self.url).json(&args).send().await {
                Ok(r) => return Ok(r.status().to_string()),
                Err(e) => {
                    tracing::warn!("retrying: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
            }
        }
    }

    /// backon around a helper that POSTs: IDEM008 (bounded by default).
    #[tool(description = "Ship an order")]
    async fn ship_order(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, String> {
        let id = args.order_id.clone();
        (|| async { self.request_shipment(&id).await })
            .retry(ExponentialBuilder::default())
            .await
    }

    /// tokio-retry with no `.take(n)`: unbounded.
    #[tool(description = "Cancel an order")]
    async fn cancel_order(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, String> {
        let strategy = ExponentialBackoff::from_millis(10);
        Retry::spawn(strategy, || async {
            self.http
                .delete(format!("{}/{}", self.url, args.order_id))
                .send()
                .await
                .map(|r| r.status().to_string())
                .map_err(|e| e.to_string())
        })
        .await
    }

    /// Retrying a read with tokio-retry: fine.
    #[tool(description = "Get an order")]
    async fn get_order(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, String> {
        let strategy = ExponentialBackoff::from_millis(10).take(3);
        Retry::spawn(strategy, || async {
            self.http
                .get(format!("{}/{}", self.url, args.order_id))
                .send()
                .await
                .map(|r| r.status().to_string())
                .map_err(|e| e.to_string())
        })
        .await
    }

    /// A single POST and no retry: only the contract findings.
    #[tool(description = "Archive an order")]
    async fn archive_order(&self, Parameters(args): Parameters<OrderArgs>) -> Result<String, String> {
        self.http
            .post(format!("{}/{}/archive", self.url, args.order_id))
            .send()
            .await
            .map(|r| r.status().to_string())
            .map_err(|e| e.to_string())
    }

    async fn request_shipment(&self, id: &str) -> Result<String, String> {
        self.http
            .post(format!("{}/{id}/shipments", self.url))
            .send()
            .await
            .map(|r| r.status().to_string())
            .map_err(|e| e.to_string())
    }
}

/// A client with transparent retries: every write through it is retried (IDEM008).
pub fn build_client() -> reqwest_middleware::ClientWithMiddleware {
    let policy = reqwest_retry::policies::ExponentialBackoff::builder().build_with_max_retries(3);
    reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
        .with(reqwest_retry::RetryTransientMiddleware::new_with_policy(policy))
        .build()
}
