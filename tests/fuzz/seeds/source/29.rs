//! A deliberately incomplete contract (feature `incomplete`), to show what
//! `#[side_effect]` says at compile time:
//!
//! ```text
//! cargo build -p agent-tools --features incomplete
//! ```

use idemcheck::side_effect;

use crate::billing::{BillingApi, BillingError, Charge, ChargeArgs};

/// Charge again for an order, with no key and no cap: this does not compile.
#[side_effect(verify = crate::billing::find_charge)]
pub async fn charge_again<B: BillingApi>(
    billing: &B,
    args: ChargeArgs,
) -> Result<Charge, BillingError> {
    billing.create_charge(&args, None).await
}
