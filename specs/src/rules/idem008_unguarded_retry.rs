//! `IDEM008 unguarded_retry`: a write inside a retry loop or retry combinator that bypasses
//! the guarded wrapper.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem008,
    code: "IDEM008",
    name: "unguarded_retry",
    default_severity: Severity::Error,
    summary: "a write call inside a retry loop or retry combinator that bypasses the guarded wrapper",
    what: "It fires when a write (an HTTP POST, an SQL INSERT, a send) sits inside a hand-written \
retry loop (`loop`/`for`/`while` that retries on error) or a retry combinator (`backon`, \
`tokio-retry`, `reqwest-middleware`'s retry layer) instead of going through the `#[side_effect]` \
wrapper. A loop with no bound also fires `IDEM003`.",
    why: "Transparent client-side retries are retries nobody reasons about: the study measured \
them cutting exactly-once success from 72% to 50%. The wrapper retries only after the \
postcondition says the first attempt did not happen, with the same key, under a cap.",
    example: r#"// fires
for attempt in 0..3 {
    match client.post(url).json(&body).send().await {
        Ok(r) => return Ok(r),
        Err(_) => continue,
    }
}

// passes: let the wrapper decide
#[side_effect(key = [order_id], verify = find_order, max_retries = 1, settle_ms = 30_000)]
async fn place_order(client: &Client, args: OrderArgs) -> Result<Order, Error> {
    client.post(url).json(&args).send().await?.json().await
}"#,
    compile_time: false,
};
