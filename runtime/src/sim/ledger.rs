//! A ledger view per simulated process: the shared store (it survives crashes, like the
//! SQLite file or the PostgreSQL table would) plus the event log of every transition.

use async_trait::async_trait;

use super::event::EventKind;
use super::fault::LedgerOp;
use super::net::Net;
use crate::key::Key;
use crate::ledger::{
    Begin, Claim, Ledger, LedgerError, MemoryLedger, Record, RecordState, Resolution, Token,
};

/// One process's handle on the episode's ledger store.
pub(crate) struct SimLedger {
    pub(crate) store: MemoryLedger,
    pub(crate) net: Net,
    pub(crate) pid: u32,
}

impl SimLedger {
    fn log(&self, op: &'static str, result: &'static str) {
        self.net.log_event(EventKind::Ledger {
            pid: self.pid,
            op: op.into(),
            result: result.into(),
        });
    }

    /// An injected ledger fault at this step, if the schedule has one: the store is called
    /// first when the fault comes after it applied the step (its reply is lost).
    async fn injected<T, F>(&self, op: LedgerOp, apply: F) -> Option<LedgerError>
    where
        F: std::future::Future<Output = Result<T, LedgerError>>,
    {
        let applied = self.net.ledger_fault(op)?;
        if applied {
            let _ = apply.await;
        }
        self.log(
            op.as_str(),
            if applied {
                "applied, but the reply is LOST (injected)"
            } else {
                "UNAVAILABLE (injected)"
            },
        );
        Some(LedgerError::Unavailable(format!(
            "injected fault at {}",
            op.as_str()
        )))
    }

    fn claimed(&self, key: &Key, lease: std::time::Duration) {
        let now = self.net.clock().now();
        self.net.claimed(self.pid, key.as_str(), now.after(lease).0);
    }
}

fn state_name(state: RecordState) -> &'static str {
    match state {
        RecordState::Declared => "found DECLARED",
        RecordState::Committed => "found COMMITTED",
        RecordState::Failed => "found FAILED",
        RecordState::Unknown => "found UNKNOWN",
        RecordState::Pruned => "found a tombstone (PRUNED)",
    }
}

fn err_name(e: &LedgerError) -> &'static str {
    match e {
        LedgerError::Fenced { .. } => "fenced",
        LedgerError::Unavailable(_) => "unavailable",
        LedgerError::Corrupt(_) => "corrupt",
        LedgerError::NotFound(_) => "not found",
    }
}

#[async_trait]
impl Ledger for SimLedger {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        if let Some(e) = self
            .injected(LedgerOp::Begin, self.store.begin(claim))
            .await
        {
            return Err(e);
        }
        let out = self.store.begin(claim).await;
        if let Ok(Begin::Claimed { .. }) = &out {
            self.claimed(claim.key, claim.lease);
        }
        self.log(
            "begin",
            match &out {
                Ok(Begin::Claimed { .. }) => "DECLARED (claimed)",
                Ok(Begin::Existing(r)) if &r.fingerprint != claim.fingerprint => {
                    "found a record with another fingerprint"
                }
                Ok(Begin::Existing(r)) => state_name(r.state),
                Err(e) => err_name(e),
            },
        );
        out
    }

    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        if let Some(e) = self
            .injected(LedgerOp::TakeOver, self.store.take_over(claim, token))
            .await
        {
            return Err(e);
        }
        let out = self.store.take_over(claim, token).await;
        if let Ok(Some(_)) = &out {
            self.claimed(claim.key, claim.lease);
        }
        self.log(
            "take_over",
            match &out {
                Ok(Some(_)) => "DECLARED (taken over)",
                Ok(None) => "refused",
                Err(e) => err_name(e),
            },
        );
        out
    }

    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        if let Some(e) = self
            .injected(
                LedgerOp::Resolve,
                self.store.resolve(key, token, resolution),
            )
            .await
        {
            return Err(e);
        }
        let out = self.store.resolve(key, token, resolution).await;
        if out.is_ok() {
            self.net.unclaimed_key(self.pid, key.as_str());
        }
        self.log(
            "resolve",
            match (&out, resolution) {
                (Ok(()), Resolution::Committed { .. }) => "COMMITTED",
                (Ok(()), Resolution::Failed { .. }) => "FAILED",
                (Ok(()), Resolution::Unknown { .. }) => "UNKNOWN",
                (Err(e), _) => err_name(e),
            },
        );
        out
    }

    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        if let Some(e) = self
            .injected(LedgerOp::Release, self.store.release(key, token))
            .await
        {
            return Err(e);
        }
        let out = self.store.release(key, token).await;
        if out.is_ok() {
            self.net.unclaimed_key(self.pid, key.as_str());
        }
        self.log(
            "release",
            match &out {
                Ok(()) => "released",
                Err(e) => err_name(e),
            },
        );
        out
    }

    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        if let Some(e) = self.injected(LedgerOp::Load, self.store.load(key)).await {
            return Err(e);
        }
        self.store.load(key).await
    }
}
