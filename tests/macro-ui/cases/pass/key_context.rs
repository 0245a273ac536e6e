//! A `key_fn` that reads the calling context the contract declares (`key_context`).
#![deny(warnings)]

use idemcheck::{KeyContext, side_effect};

#[derive(Clone, serde::Serialize)]
pub struct DigestArgs {
    pub customer: String,
}

pub struct Mail;

fn digest_key(ctx: &KeyContext, args: &DigestArgs) -> (String, String) {
    // The run scope: the same for every retry, restart and worker. Undeclared, the clock
    // answers nothing.
    assert!(ctx.now().is_none());
    (ctx.scope().run.clone(), args.customer.clone())
}

async fn find_digest(_mail: &Mail, _args: &DigestArgs) -> Result<Option<u64>, String> {
    Ok(None)
}

#[side_effect(key_fn = digest_key, key_context = [scope], verify = find_digest, max_retries = 0)]
pub async fn send_digest(mail: &Mail, args: DigestArgs) -> Result<u64, String> {
    let _ = (mail, args);
    Ok(1)
}

/// A key read from the clock is refused (IDEM004) unless a reason allows it.
fn daily_key(ctx: &KeyContext, args: &DigestArgs) -> (String, Option<u64>) {
    (args.customer.clone(), ctx.now().map(|t| t.0 / 86_400_000))
}

#[side_effect(
    key_fn = daily_key,
    key_context = [clock],
    verify = find_digest,
    max_retries = 0,
    allow(IDEM004, reason = "one digest per calendar day, whatever the retries")
)]
pub async fn send_daily_digest(mail: &Mail, args: DigestArgs) -> Result<u64, String> {
    let _ = (mail, args);
    Ok(1)
}

fn main() {
    assert_eq!(send_digest::CONTRACT.key_context, ["scope"]);
    assert_eq!(send_daily_digest::CONTRACT.key_context, ["clock"]);
}
