//! A different crate's `tool` attribute (tracing spans): not a tool here.

use span_macros::tool;

#[tool(level = "info")]
pub async fn flush(http: &reqwest::Client) -> Result<(), reqwest::Error> {
    http.post("https://telemetry.example/flush").send().await.map(|_| ())
}
