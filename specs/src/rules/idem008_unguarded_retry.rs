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

/// Retry combinators called as free or associated functions, by their last two path
/// segments: how a finding names the combinator.
pub fn combinator_fn(segments: &[String]) -> Option<&'static str> {
    let n = segments.len();
    let last = segments.last()?.as_str();
    let parent = if n >= 2 { segments[n - 2].as_str() } else { "" };
    match (parent, last) {
        ("Retry", "spawn") => Some("tokio-retry `Retry::spawn`"),
        ("RetryIf", "spawn") => Some("tokio-retry `RetryIf::spawn`"),
        ("future" | "backoff", "retry") => Some("backoff `retry`"),
        ("future" | "backoff", "retry_notify") => Some("backoff `retry_notify`"),
        ("again", "retry") => Some("again `retry`"),
        ("tryhard", "retry_fn") | ("", "retry_fn") => Some("tryhard `retry_fn`"),
        ("", "retry") | ("", "retry_notify") => Some("`retry`"),
        _ => None,
    }
}

/// Whether a combinator found by [`combinator_fn`] is bounded only when its strategy says
/// so: tokio-retry's strategies are infinite iterators unless cut with `.take(n)`.
pub fn unbounded_unless_taken(name: &str) -> bool {
    name.starts_with("tokio-retry")
}

/// The method that bounds an iterator-style retry strategy (`.take(3)`).
pub const TAKE_METHOD: &str = "take";

/// backon's retry methods (`op.retry(builder)`, `.retry_notify(..)`).
pub const COMBINATOR_METHODS: &[&str] = &["retry", "retry_notify"];

/// How a finding names a backon retry method of [`COMBINATOR_METHODS`].
pub fn combinator_method_name(method: &str) -> String {
    format!("backon `.{method}(..)`")
}

/// The builder method that removes backon's attempt limit.
pub const UNBOUNDED_BUILDER: &str = "without_max_times";

/// reqwest-middleware's retry layer, by its type name (`RetryTransientMiddleware::new_with_policy`).
pub fn is_retry_middleware(type_name: &str) -> bool {
    type_name == "RetryTransientMiddleware"
}

/// How a retry is written, as the lint finds it in a function body.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RetryShape {
    /// A hand-written `loop`, `while` or `for` loop; the keyword.
    Loop(std::borrow::Cow<'static, str>),
    /// A retry combinator (backon, tokio-retry, backoff, ...); its name.
    Combinator(String),
    /// reqwest-middleware's retry layer around an HTTP client.
    Middleware,
}

impl RetryShape {
    /// How a finding names it.
    pub fn describe(&self) -> String {
        match self {
            RetryShape::Loop(k) => format!("hand-written `{k}` retry loop"),
            RetryShape::Combinator(n) => format!("retry combinator {n}"),
            RetryShape::Middleware => "reqwest-middleware retry layer".into(),
        }
    }
}

/// A retry around a write, in a tool or a workspace function it calls: the plain fact the
/// lint gathers for this rule and for `IDEM003`.
#[derive(Debug, Clone, Copy)]
pub struct RetriedWrite<'a> {
    /// The function the retry is in (`Billing::charge`).
    pub function: &'a str,
    /// How the retry is written.
    pub shape: &'a RetryShape,
    /// Whether its attempts are bounded.
    pub bounded: bool,
    /// The write it retries, described.
    pub write: &'a str,
}

/// The finding for a retried write: message and help.
pub fn retried_write(r: &RetriedWrite<'_>) -> (String, &'static str) {
    (
        format!(
            "{} in `{}` retries a write ({}) outside the guarded wrapper",
            r.shape.describe(),
            r.function,
            r.write
        ),
        "remove the hand-written retry and let `#[side_effect(..., max_retries = N)]` retry after the postcondition says the first attempt did not happen",
    )
}

/// The finding for an HTTP client built with reqwest-middleware's retry layer in `function`,
/// in a crate whose write tools send HTTP writes: message and help.
pub fn middleware(function: &str) -> (String, &'static str) {
    (
        format!(
            "`{function}` builds an HTTP client with reqwest-middleware's retry layer; the crate's write tools send HTTP writes, which it retries transparently"
        ),
        "use a client without the retry layer for writes, and let `#[side_effect(..., max_retries = N)]` retry",
    )
}
