//! A ledger view per simulated process: the shared store (it survives crashes, like the
//! SQLite file or the PostgreSQL table would) plus the event log of every transition.

use async_trait::async_trait;

use super::event::EventKind;
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
}

fn state_name(state: RecordState) -> &'static str {
    match state {
        RecordState::Declared => "found DECLARED",
        RecordState::Committed => "found COMMITTED",
        RecordState::Failed => "found FAILED",
        RecordState::Unknown => "found UNKNOWN",
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
        let out = self.store.begin(claim).await;
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
        let out = self.store.take_over(claim, token).await;
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
        let out = self.store.resolve(key, token, resolution).await;
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
        let out = self.store.release(key, token).await;
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
        self.store.load(key).await
    }
}
