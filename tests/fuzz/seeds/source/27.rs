//! Billing: charge a card, refund a charge. The API honours idempotency keys the way Stripe
//! does, so the contracts pass the key through (`server_dedup = true`).

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::sync::Mutex;

use idemcheck::{Classify, ErrorClass, side_effect};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Fault;

/// Arguments of `create_charge`, as the agent supplies them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChargeArgs {
    /// The customer to charge.
    pub customer: String,
    /// The order being paid: one order is paid once.
    pub order_id: String,
    /// Amount in the smallest currency unit.
    pub amount_cents: u64,
    /// ISO currency code.
    pub currency: String,
}

/// A charge as the billing API reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Charge {
    /// Charge id.
    pub id: String,
    /// Customer charged.
    pub customer: String,
    /// Order paid.
    pub order_id: String,
    /// Amount in the smallest currency unit.
    pub amount_cents: u64,
    /// ISO currency code.
    pub currency: String,
}

/// Arguments of `refund`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RefundArgs {
    /// The charge to refund: one charge is refunded once.
    pub charge_id: String,
    /// Amount to refund, in the smallest currency unit.
    pub amount_cents: u64,
    /// Why, for the customer's statement.
    pub reason: String,
}

/// A refund as the billing API reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Refund {
    /// Refund id.
    pub id: String,
    /// The refunded charge.
    pub charge_id: String,
    /// Amount refunded.
    pub amount_cents: u64,
}

/// What can go wrong talking to the billing API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BillingError {
    /// The card was declined: nothing was charged.
    #[error("card declined: {0}")]
    Declined(String),
    /// The request was malformed: nothing was charged.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The idempotency key was reused with other parameters.
    #[error("idempotency key reused with different parameters")]
    KeyReuse,
    /// No answer in time: the request may or may not have taken effect.
    #[error("timed out waiting for the billing API")]
    Timeout,
    /// The API failed after the request was sent: it may or may not have taken effect.
    #[error("billing API unavailable: {0}")]
    Unavailable(String),
}

impl Classify for BillingError {
    fn class(&self) -> ErrorClass {
        match self {
            BillingError::Declined(_) | BillingError::KeyReuse => ErrorClass::Definite,
            BillingError::InvalidRequest(_) => ErrorClass::Invalid,
            BillingError::Timeout | BillingError::Unavailable(_) => ErrorClass::Ambiguous,
        }
    }
}

/// The billing API, as an HTTP client would implement it.
pub trait BillingApi: Send + Sync {
    /// `POST /v1/charges`, with an optional `Idempotency-Key` header.
    fn create_charge(
        &self,
        req: &ChargeArgs,
        idempotency_key: Option<&str>,
    ) -> impl Future<Output = Result<Charge, BillingError>> + Send;

    /// `GET /v1/charges?customer=..&order_id=..`: the charge for an order, if any.
    fn find_charge_for_order(
        &self,
        customer: &str,
        order_id: &str,
    ) -> impl Future<Output = Result<Option<Charge>, BillingError>> + Send;

    /// `POST /v1/refunds`, with an optional `Idempotency-Key` header.
    fn create_refund(
        &self,
        req: &RefundArgs,
        idempotency_key: Option<&str>,
    ) -> impl Future<Output = Result<Refund, BillingError>> + Send;

    /// `GET /v1/refunds?charge=..`: the refund of a charge, if any.
    fn find_refund(
        &self,
        charge_id: &str,
    ) -> impl Future<Output = Result<Option<Refund>, BillingError>> + Send;
}

/// Charge a customer's card for an order. One order is paid once, however often the agent
/// retries: the key is the customer and the order (plus the run scope the runtime adds).
#[side_effect(
    key = [customer, order_id],
    verify = find_charge,
    max_retries = 1,
    timeout_ms = 10_000,
    server_dedup = true
)]
pub async fn create_charge<B: BillingApi>(
    billing: &B,
    args: ChargeArgs,
) -> Result<Charge, BillingError> {
    if args.amount_cents == 0 {
        return Err(BillingError::InvalidRequest(
            "amount must be positive".into(),
        ));
    }
    let key = idemcheck::current_key();
    billing
        .create_charge(&args, key.as_ref().map(|k| k.as_str()))
        .await
}

/// Postcondition of `create_charge`: is there a charge for this order?
pub async fn find_charge<B: BillingApi>(
    billing: &B,
    args: &ChargeArgs,
) -> Result<Option<Charge>, BillingError> {
    billing
        .find_charge_for_order(&args.customer, &args.order_id)
        .await
}

/// Refund a charge. One charge is refunded once.
#[side_effect(key = [charge_id], verify = find_refund, max_retries = 1, timeout_ms = 10_000, server_dedup = true)]
pub async fn refund<B: BillingApi>(billing: &B, args: RefundArgs) -> Result<Refund, BillingError> {
    let key = idemcheck::current_key();
    billing
        .create_refund(&args, key.as_ref().map(|k| k.as_str()))
        .await
}

/// Postcondition of `refund`.
pub async fn find_refund<B: BillingApi>(
    billing: &B,
    args: &RefundArgs,
) -> Result<Option<Refund>, BillingError> {
    billing.find_refund(&args.charge_id).await
}

#[derive(Debug, Default)]
struct FakeState {
    charges: Vec<Charge>,
    refunds: Vec<Refund>,
    /// Idempotency key → (request fingerprint, stored response), as Stripe keeps them.
    keys: BTreeMap<String, (String, Result<serde_json::Value, BillingError>)>,
    faults: VecDeque<Fault>,
    requests: u64,
}

/// An in-memory billing API with Stripe's idempotency rules: same key and same parameters
/// replay the first response; same key and other parameters are refused.
#[derive(Debug, Default)]
pub struct FakeBilling {
    state: Mutex<FakeState>,
}

impl FakeBilling {
    /// A fresh API.
    pub fn new() -> Self {
        FakeBilling::default()
    }

    /// Inject a fault into the next request.
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push_back(fault);
    }

    /// Every charge made, in order: the ground truth a test counts.
    pub fn charges(&self) -> Vec<Charge> {
        self.lock().charges.clone()
    }

    /// Every refund made.
    pub fn refunds(&self) -> Vec<Refund> {
        self.lock().refunds.clone()
    }

    /// Requests received (including retries and replays).
    pub fn requests(&self) -> u64 {
        self.lock().requests
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FakeState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn post<T: Serialize + serde::de::DeserializeOwned>(
        &self,
        fingerprint: String,
        key: Option<&str>,
        effect: impl FnOnce(&mut FakeState) -> Result<T, BillingError>,
    ) -> Result<T, BillingError> {
        let mut s = self.lock();
        s.requests += 1;
        let fault = s.faults.pop_front();
        if fault == Some(Fault::Dropped) {
            return Err(BillingError::Timeout);
        }
        let response = match key.and_then(|k| s.keys.get(k).cloned()) {
            Some((fp, _)) if fp != fingerprint => Err(BillingError::KeyReuse),
            Some((_, stored)) => stored.map(|v| serde_json::from_value(v).expect("stored by us")),
            None => {
                let result = effect(&mut s);
                // Validation failures are not stored (as Stripe); everything else is.
                if let (Some(k), false) =
                    (key, matches!(result, Err(BillingError::InvalidRequest(_))))
                {
                    let stored = result
                        .as_ref()
                        .map(|t| serde_json::to_value(t).expect("serialisable"))
                        .map_err(Clone::clone);
                    s.keys.insert(k.to_string(), (fingerprint, stored));
                }
                result
            }
        };
        match fault {
            Some(Fault::LostAck) => Err(BillingError::Timeout),
            _ => response,
        }
    }
}

impl BillingApi for FakeBilling {
    async fn create_charge(
        &self,
        req: &ChargeArgs,
        idempotency_key: Option<&str>,
    ) -> Result<Charge, BillingError> {
        let fp = serde_json::to_string(req).expect("serialisable");
        self.post(fp, idempotency_key, |s| {
            let charge = Charge {
                id: format!("ch_{}", s.charges.len() + 1),
                customer: req.customer.clone(),
                order_id: req.order_id.clone(),
                amount_cents: req.amount_cents,
                currency: req.currency.clone(),
            };
            s.charges.push(charge.clone());
            Ok(charge)
        })
    }

    async fn find_charge_for_order(
        &self,
        customer: &str,
        order_id: &str,
    ) -> Result<Option<Charge>, BillingError> {
        Ok(self
            .lock()
            .charges
            .iter()
            .find(|c| c.customer == customer && c.order_id == order_id)
            .cloned())
    }

    async fn create_refund(
        &self,
        req: &RefundArgs,
        idempotency_key: Option<&str>,
    ) -> Result<Refund, BillingError> {
        let fp = serde_json::to_string(req).expect("serialisable");
        self.post(fp, idempotency_key, |s| {
            let charge = s
                .charges
                .iter()
                .find(|c| c.id == req.charge_id)
                .ok_or_else(|| {
                    BillingError::InvalidRequest(format!("no charge {}", req.charge_id))
                })?;
            if req.amount_cents > charge.amount_cents {
                return Err(BillingError::InvalidRequest(
                    "refund exceeds the charge".into(),
                ));
            }
            let refund = Refund {
                id: format!("re_{}", s.refunds.len() + 1),
                charge_id: req.charge_id.clone(),
                amount_cents: req.amount_cents,
            };
            s.refunds.push(refund.clone());
            Ok(refund)
        })
    }

    async fn find_refund(&self, charge_id: &str) -> Result<Option<Refund>, BillingError> {
        Ok(self
            .lock()
            .refunds
            .iter()
            .find(|r| r.charge_id == charge_id)
            .cloned())
    }
}
