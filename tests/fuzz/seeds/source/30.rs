//! Example agent tools guarded by idemcheck: the shapes real agent codebases have.
//!
//! - [`billing`]: `create_charge` and `refund` against a Stripe-like API that honours
//!   idempotency keys (`server_dedup = true`);
//! - [`email`]: `send_welcome` against a mail API that does not (a settle window bounds late
//!   deliveries instead);
//! - [`tickets`]: `open_ticket` against a help-desk API;
//! - [`mcp`]: the same operations served over MCP with rmcp, with `#[side_effect]` stacked on
//!   `#[tool]` methods of a `#[tool_router]` impl.
//!
//! Each service is a trait (what a real HTTP client would implement) with an in-memory fake
//! that behaves like the real thing, including the faults that make retries dangerous.

pub mod billing;
pub mod email;
pub mod mcp;
pub mod tickets;

#[cfg(feature = "incomplete")]
pub mod incomplete;

/// A fault the fakes inject on the next request, to show what the guard does about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The request takes effect, but the response is lost: the caller sees a timeout.
    LostAck,
    /// The request is lost before it takes effect: the caller sees a timeout.
    Dropped,
}
