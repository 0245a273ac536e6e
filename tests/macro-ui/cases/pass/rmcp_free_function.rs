//! A free function returning rmcp's `ErrorData`, in a crate that depends on rmcp: the guard
//! classifies it by its JSON-RPC code (no `Classify` impl, which only rmcp or idemcheck could
//! write): `invalid_params` is a rejection, not retried; an internal error is ambiguous.
#![deny(warnings)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use idemcheck::{Context, Failure, MemoryLedger, NotCompleted, Outcome, Scope, VirtualClock, side_effect};
use rmcp::ErrorData;

#[derive(Clone, serde::Serialize)]
pub struct Args {
    pub order_id: String,
    pub code: i32,
}

static ATTEMPTS: AtomicU32 = AtomicU32::new(0);

#[side_effect(key = [order_id], verify = find, max_retries = 1, timeout_ms = 1_000, settle_ms = 1_000)]
pub async fn reserve(args: Args) -> Result<String, ErrorData> {
    ATTEMPTS.fetch_add(1, Ordering::SeqCst);
    match args.code {
        -32602 => Err(ErrorData::invalid_params("bad order", None)),
        _ => Err(ErrorData::internal_error("lost", None)),
    }
}

async fn find(_args: &Args) -> Result<Option<String>, ErrorData> {
    Ok(None)
}

fn main() {
    let clock = Arc::new(VirtualClock::new());
    let ctx = Context::with_clock(MemoryLedger::with_clock(clock.clone()), clock.clone(), Scope::run("r"));
    let rejected = clock.block_on(reserve::call(&ctx, Args { order_id: "o-1".into(), code: -32602 }))
        .expect("virtual time only");
    match rejected {
        Outcome::NotCompleted(NotCompleted { reason: Failure::Tool(e), attempts: 1, .. }) => {
            assert_eq!(e.code.0, -32602)
        }
        other => panic!("a rejection, got {other:?}"),
    }
    assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 1, "a rejection is not retried");
    let ambiguous = clock.block_on(reserve::call(&ctx, Args { order_id: "o-2".into(), code: -32603 }))
        .expect("virtual time only");
    assert!(!ambiguous.is_completed());
    assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 3, "an internal error is retried after the postcondition");
}
