//! Background pruning.
//!
//! Resolved records (COMMITTED, FAILED) are replayed for the contract's `ttl_hours`
//! (default 24, as Stripe) counted from the claim. After that the record is a tombstone
//! (its result no longer replayed, its key and fingerprint kept) for the store's tombstone
//! window ([`super::DEFAULT_TOMBSTONE_WINDOW`], 30 days): a call with the key asks the
//! postcondition before anything is executed. Once the window has passed too, the key is
//! forgotten and a call with it executes as a new operation. Stores behave so whether or not
//! pruning has run; [`LedgerAdmin::prune`] reclaims the space: it drops the results of
//! expired records (leaving the tombstones) and deletes forgotten ones. Unresolved records
//! (DECLARED, UNKNOWN) are never pruned: they wait for their owner, a take-over, or a
//! person ([`LedgerAdmin::pending`], [`LedgerAdmin::decide`]).
//!
//! Pruning is explicit: call `prune` from a job of your own, or run
//! [`prune_periodically`] beside the agent:
//!
//! ```no_run
//! # #[cfg(feature = "sqlite")] {
//! use std::{sync::Arc, time::Duration};
//! use idemcheck::ledger::{prune_periodically, SqliteLedger};
//! use idemcheck::SystemClock;
//!
//! # async fn demo() -> Result<(), idemcheck::LedgerError> {
//! let ledger = SqliteLedger::open("idemcheck-ledger.sqlite3")?;
//! let pruner = tokio::spawn(prune_periodically(
//!     ledger.clone(),
//!     Arc::new(SystemClock::new()),
//!     Duration::from_secs(3600),
//! ));
//! // ... run the agent with `ledger` ...
//! pruner.abort(); // stop pruning
//! # Ok(()) }
//! # }
//! ```
//!
//! A fleet sharing one PostgreSQL ledger needs one pruner (running one per worker is
//! harmless: the statements are idempotent). Without a Rust process, the same can run from
//! cron (here with the default 30-day window, in milliseconds):
//!
//! ```sql
//! DELETE FROM idemcheck.records WHERE state IN ('committed', 'failed', 'pruned')
//!   AND expires_at <= (extract(epoch from now()) * 1000)::bigint - 2592000000;
//! UPDATE idemcheck.records SET state = 'pruned', resolution = NULL,
//!     updated_at = (extract(epoch from now()) * 1000)::bigint
//!   WHERE state IN ('committed', 'failed')
//!   AND expires_at <= (extract(epoch from now()) * 1000)::bigint;
//! ```

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use tracing::{info, warn};

use super::LedgerAdmin;
use crate::clock::Clock;

/// Prune `ledger` every `every` on `clock`, forever; log what was pruned and any failure
/// (a failed round is retried at the next tick). Spawn it on your runtime and abort the
/// task to stop.
pub async fn prune_periodically(
    ledger: impl LedgerAdmin,
    clock: Arc<dyn Clock>,
    every: Duration,
) -> Infallible {
    let every = every.max(Duration::from_millis(1));
    loop {
        let next = clock.now().after(every);
        clock.sleep_until(next).await;
        match ledger.prune().await {
            Ok(0) => {}
            Ok(n) => info!(pruned = n, "pruned expired ledger records"),
            Err(e) => warn!(error = %e, "ledger pruning failed; retrying at the next tick"),
        }
    }
}
