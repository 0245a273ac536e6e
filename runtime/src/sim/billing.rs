//! The simulator's own billing tool — reference 000's service, on a [`Net`] — guarded
//! under several contracts, and the **control strategies** that must fail the harness:
//! naive retry, a new key per attempt, verify-then-retry without a settle window, and a
//! key generated per call.
//!
//! The guarded calls here use [`crate::executor::run`] directly with a [`Contract`]
//! constant: exactly what `#[side_effect]` generates (the macro cannot be used inside the
//! crate that defines its runtime paths). The integration tests prove the same tool
//! written with `#[side_effect]`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::net::{Effect, Net, Page, SimError};
use crate::context::{Context, current_key};
use crate::contract::{Contract, KeySpec, ToolKind};
use crate::key::Material;
use crate::outcome::{AttemptError, Failure, NotCompleted, Outcome};

/// Arguments of a charge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargeArgs {
    /// Customer.
    pub customer: String,
    /// Business id of the charge (the logical operation).
    pub order_id: String,
    /// Amount.
    pub amount_cents: u64,
}

impl ChargeArgs {
    /// The arguments of episode `n`: order `o-n`, $49.00 for `acme`; variant 1 charges
    /// $99.00 instead (a divergent retry).
    pub fn episode(n: u64, variant: u32) -> ChargeArgs {
        ChargeArgs {
            customer: "acme".into(),
            order_id: format!("o-{n}"),
            amount_cents: if variant == 0 { 4900 } else { 9900 },
        }
    }
}

/// A charge as the system of record reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charge {
    /// `ch_<n>`.
    pub id: String,
    /// Customer.
    pub customer: String,
    /// Order.
    pub order_id: String,
    /// Amount.
    pub amount_cents: u64,
}

impl Charge {
    /// The charge an effect of the simulated world records (for worlds of one's own that
    /// read the system of record their own way).
    pub fn from_effect(e: &Effect) -> Charge {
        Charge {
            id: format!("ch_{}", e.id),
            customer: e.payload["customer"].as_str().unwrap_or("").to_string(),
            order_id: e.intent.to_string(),
            amount_cents: e.payload["amount_cents"].as_u64().unwrap_or(0),
        }
    }
}

/// The billing service of the simulated world.
#[derive(Debug, Clone)]
pub struct SimBilling {
    /// The world.
    pub net: Net,
    nonce: Arc<AtomicU64>,
}

impl SimBilling {
    /// The page size of [`SimBilling::list_charges`] (Stripe's default `limit`).
    pub const PAGE: usize = 10;

    /// The billing service on `net`.
    pub fn new(net: &Net) -> SimBilling {
        SimBilling {
            net: net.clone(),
            nonce: Arc::default(),
        }
    }

    /// One charge request (the raw effect), with an idempotency key if given.
    pub async fn create_charge(
        &self,
        args: &ChargeArgs,
        key: Option<&str>,
    ) -> Result<Charge, SimError> {
        self.net
            .write(&args.order_id, args, key)
            .await
            .map(|e| Charge::from_effect(&e))
    }

    /// `POST /v1/authorizations`: hold the amount on the customer's card for this order (the
    /// first effect of a two-effect operation: authorize, then charge), with an idempotency
    /// key if given. Its business id in the system of record is `auth:<order_id>`.
    pub async fn authorize(&self, args: &ChargeArgs, key: Option<&str>) -> Result<u64, SimError> {
        self.net
            .write(&format!("auth:{}", args.order_id), args, key)
            .await
            .map(|e| e.id)
    }

    /// Real authorizations carrying exactly these arguments.
    pub fn count_authorizations(&self, args: &ChargeArgs) -> usize {
        self.net.count(&format!("auth:{}", args.order_id), args)
    }

    /// Authorizations and charges carrying exactly these arguments: the effect counter of a
    /// tool that authorizes, then charges ([`crate::sim::EffectCounts`]).
    pub fn count_both(&self, args: &ChargeArgs) -> [(&'static str, usize); 2] {
        [
            ("authorize", self.count_authorizations(args)),
            ("charge", self.count(args)),
        ]
    }

    /// The postcondition: the charge for this order, matched on the business id (not on
    /// look-alike fields: a customer may have two $49 charges).
    pub async fn find_charge(&self, args: &ChargeArgs) -> Result<Option<Charge>, SimError> {
        Ok(self
            .net
            .read(&args.order_id)
            .await?
            .first()
            .map(Charge::from_effect))
    }

    /// `GET /v1/charges?customer=..&starting_after=..`: one page of the customer's charges
    /// (at most [`SimBilling::PAGE`]), oldest first.
    pub async fn list_charges(
        &self,
        customer: &str,
        starting_after: Option<u64>,
    ) -> Result<Page, SimError> {
        self.net
            .list(
                |e| e.payload["customer"].as_str() == Some(customer),
                starting_after,
                Self::PAGE,
            )
            .await
    }

    /// A postcondition that lists: the customer's charges, page after page, until the one
    /// for this order turns up or the pages run out.
    pub async fn find_charge_listing(&self, args: &ChargeArgs) -> Result<Option<Charge>, SimError> {
        let mut after = None;
        loop {
            let page = self.list_charges(&args.customer, after).await?;
            if let Some(e) = page
                .effects
                .iter()
                .find(|e| e.payload["order_id"].as_str() == Some(args.order_id.as_str()))
            {
                return Ok(Some(Charge::from_effect(e)));
            }
            match page.effects.last() {
                Some(last) if page.has_more => after = Some(last.id),
                _ => return Ok(None),
            }
        }
    }

    /// Real charges carrying exactly these arguments.
    pub fn count(&self, args: &ChargeArgs) -> usize {
        self.net.count(&args.order_id, args)
    }

    /// Real charges for the customer, whatever the order (reference 000 counts these).
    pub fn charges_of(&self, customer: &str) -> usize {
        self.net
            .all_effects()
            .iter()
            .filter(|e| e.payload["customer"].as_str() == Some(customer))
            .count()
    }

    pub(crate) fn next_nonce(&self) -> u64 {
        self.nonce.fetch_add(1, Ordering::Relaxed)
    }
}

/// A write contract of the billing tool (30 s attempt timeout, 24 h key lifetime).
pub(crate) const fn write_contract(
    name: &'static str,
    key: KeySpec,
    verify: Option<&'static str>,
    max_retries: u32,
    settle_ms: Option<u64>,
    server_dedup: bool,
) -> Contract {
    Contract {
        name,
        function: "idemcheck::sim::billing",
        kind: ToolKind::Write,
        key,
        chosen_key_fields: &[],
        key_context: &[],
        verify,
        no_postcondition: false,
        max_retries: Some(max_retries),
        timeout_ms: Some(30_000),
        settle_ms,
        ttl_hours: 24,
        server_dedup,
        suppressions: &[],
    }
}

const KEY: KeySpec = KeySpec::Fields(&["customer", "order_id"]);

/// `create_charge` guarded by idemcheck: key `[customer, order_id]`, verify `find_charge`,
/// one retry, 30 s timeout, 120 s settle window, and the key passed to the billing API
/// (`server_dedup`).
pub const CREATE_CHARGE: Contract = write_contract(
    "create_charge",
    KEY,
    Some("find_charge"),
    1,
    Some(120_000),
    true,
);

/// The same tool against an API that takes no key: the settle window alone bounds late
/// commits. It cannot defend against a request the wire delivers twice.
pub const CREATE_CHARGE_NO_SERVER_KEY: Contract = write_contract(
    "create_charge_no_server_key",
    KEY,
    Some("find_charge"),
    1,
    Some(120_000),
    false,
);

/// Control: verify-then-retry with no settle window and no server key (IDEM009).
pub const VERIFY_NO_SETTLE: Contract = write_contract(
    "verify_then_retry_no_settle",
    KEY,
    Some("find_charge"),
    1,
    None,
    false,
);

/// Control: the full protocol, but the key comes from a value generated per call (as when
/// the model supplies it, or a tool-call id is regenerated): IDEM004.
pub const KEY_PER_CALL: Contract = write_contract(
    "key_generated_per_attempt",
    KeySpec::Function("nonce"),
    Some("find_charge"),
    1,
    Some(120_000),
    true,
);

/// Control: retry on timeout, no key, no check (the contract describes its environment).
pub const NAIVE_RETRY: Contract =
    write_contract("naive_retry", KeySpec::None, None, 2, None, false);

/// Control: a fresh key per attempt (`<run>-retry<i>`), sent to an API that honours keys.
pub const NEW_KEY_PER_ATTEMPT: Contract =
    write_contract("new_key_per_attempt", KeySpec::None, None, 2, None, true);

/// `create_charge` under `contract` through the runtime protocol (what `#[side_effect]`
/// generates).
pub async fn charge_under(
    contract: &Contract,
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    let key_fields = match contract.key {
        KeySpec::Function(_) => Material::new().field("nonce", &billing.next_nonce()),
        _ => Material::new()
            .field("customer", &args.customer)
            .field("order_id", &args.order_id),
    };
    let inputs = Material::new().field("args", &args);
    let server_dedup = contract.server_dedup;
    crate::executor::run(
        ctx,
        contract,
        key_fields,
        inputs,
        || {
            let args = args.clone();
            async move {
                let key = if server_dedup { current_key() } else { None };
                billing
                    .create_charge(&args, key.as_ref().map(|k| k.as_str()))
                    .await
            }
        },
        || billing.find_charge(&args),
    )
    .await
}

/// The guarded tool ([`CREATE_CHARGE`]).
pub async fn create_charge(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    charge_under(&CREATE_CHARGE, ctx, billing, args).await
}

/// The guarded tool against an API without keys ([`CREATE_CHARGE_NO_SERVER_KEY`]).
pub async fn create_charge_no_server_key(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    charge_under(&CREATE_CHARGE_NO_SERVER_KEY, ctx, billing, args).await
}

/// Control: verify-then-retry without a settle window ([`VERIFY_NO_SETTLE`]).
pub async fn verify_then_retry_no_settle(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    charge_under(&VERIFY_NO_SETTLE, ctx, billing, args).await
}

/// Control: a key generated per call ([`KEY_PER_CALL`]).
pub async fn key_generated_per_call(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    charge_under(&KEY_PER_CALL, ctx, billing, args).await
}

fn gave_up(attempts: u32, e: SimError) -> Outcome<Charge, SimError> {
    Outcome::NotCompleted(NotCompleted {
        key: None,
        attempts,
        reason: Failure::NotDone {
            last_error: AttemptError::Tool(e),
        },
    })
}

const MAX_ATTEMPTS: u32 = 3;

/// Control: reference 000's `naiveRetry` — retry on timeout, up to 3 attempts, no key.
pub async fn naive_retry(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    let mut last = SimError::Timeout;
    for attempt in 1..=MAX_ATTEMPTS {
        match billing.create_charge(&args, None).await {
            Ok(c) => return Outcome::Completed(c),
            Err(SimError::Timeout) => last = SimError::Timeout,
            Err(e) => return gave_up(attempt, e),
        }
        pause(ctx).await;
    }
    gave_up(MAX_ATTEMPTS, last)
}

/// Control: reference 000's `newKeyPerAttempt` — key `<run>-retry<i>`.
pub async fn new_key_per_attempt(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    let mut last = SimError::Timeout;
    for attempt in 1..=MAX_ATTEMPTS {
        let key = format!("{}-retry{attempt}", ctx.scope());
        match billing.create_charge(&args, Some(&key)).await {
            Ok(c) => return Outcome::Completed(c),
            Err(SimError::Timeout) => last = SimError::Timeout,
            Err(e) => return gave_up(attempt, e),
        }
        pause(ctx).await;
    }
    gave_up(MAX_ATTEMPTS, last)
}

/// The reference's `svc.advance(1)` between attempts.
async fn pause(ctx: &Context) {
    let clock = ctx.clock();
    clock
        .sleep_until(clock.now().after(Duration::from_secs(1)))
        .await;
}
