//! The in-memory store: for tests, the simulator and single-process tools that accept
//! forgetting everything on restart. A hash map (lookups do not degrade with size); every
//! listing is sorted, so nothing order-dependent leaks out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::{
    Begin, Claim, Decision, Ledger, LedgerAdmin, LedgerError, Record, RecordState, Resolution,
    Token,
};
use crate::clock::Clock;
use crate::key::Key;

#[derive(Debug, Default)]
struct State {
    records: HashMap<Key, Record>,
    last_token: Token,
}

/// An in-memory [`Ledger`]: a mutex around an ordered map.
#[derive(Clone)]
pub struct MemoryLedger {
    state: Arc<Mutex<State>>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for MemoryLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryLedger")
            .field("records", &self.lock().records.len())
            .finish()
    }
}

impl MemoryLedger {
    /// A ledger on the system clock.
    #[cfg(feature = "tokio")]
    pub fn new() -> Self {
        MemoryLedger::with_clock(Arc::new(crate::clock::SystemClock::new()))
    }

    /// A ledger reading time from `clock` (leases and expiry).
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        MemoryLedger {
            state: Arc::default(),
            clock,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every record, in key order (for tests and the simulator's event log).
    pub fn snapshot(&self) -> Vec<Record> {
        let mut out: Vec<Record> = self.lock().records.values().cloned().collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }
}

#[cfg(feature = "tokio")]
impl Default for MemoryLedger {
    fn default() -> Self {
        MemoryLedger::new()
    }
}

#[async_trait]
impl Ledger for MemoryLedger {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        let now = self.clock.now();
        let mut s = self.lock();
        if let Some(rec) = s.records.get(claim.key) {
            let expired = !rec.state.is_unresolved() && rec.expires_at <= now;
            if !expired {
                return Ok(Begin::Existing(rec.clone()));
            }
        }
        s.last_token += 1;
        let token = s.last_token;
        s.records.insert(
            claim.key.clone(),
            Record {
                key: claim.key.clone(),
                tool: claim.tool.to_string(),
                fingerprint: claim.fingerprint.clone(),
                state: RecordState::Declared,
                owner: claim.owner.to_string(),
                token,
                lease_until: now.after(claim.lease),
                created_at: now,
                updated_at: now,
                expires_at: now.after(claim.ttl),
                resolution: None,
            },
        );
        Ok(Begin::Claimed { token })
    }

    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        let now = self.clock.now();
        let mut s = self.lock();
        let next = s.last_token + 1;
        let Some(rec) = s.records.get_mut(claim.key) else {
            return Ok(None);
        };
        if rec.token != token || !rec.state.is_unresolved() || rec.lease_until > now {
            return Ok(None);
        }
        rec.state = RecordState::Declared;
        rec.owner = claim.owner.to_string();
        rec.token = next;
        rec.lease_until = now.after(claim.lease);
        rec.updated_at = now;
        rec.resolution = None;
        s.last_token = next;
        Ok(Some(next))
    }

    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        let now = self.clock.now();
        let mut s = self.lock();
        let rec = s
            .records
            .get_mut(key)
            .ok_or_else(|| LedgerError::fenced(key, token))?;
        if rec.token != token || !rec.state.is_unresolved() {
            return Err(LedgerError::fenced(key, token));
        }
        rec.state = match resolution {
            Resolution::Committed { .. } => RecordState::Committed,
            Resolution::Failed { .. } => RecordState::Failed,
            Resolution::Unknown { .. } => RecordState::Unknown,
        };
        rec.resolution = Some(resolution.sealed().into_owned());
        rec.updated_at = now;
        Ok(())
    }

    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        let mut s = self.lock();
        match s.records.get(key) {
            Some(rec) if rec.token == token && rec.state == RecordState::Declared => {
                s.records.remove(key);
                Ok(())
            }
            _ => Err(LedgerError::fenced(key, token)),
        }
    }

    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        Ok(self.lock().records.get(key).cloned())
    }
}

#[async_trait]
impl LedgerAdmin for MemoryLedger {
    async fn prune(&self) -> Result<u64, LedgerError> {
        let now = self.clock.now();
        let mut s = self.lock();
        let before = s.records.len();
        s.records
            .retain(|_, r| r.state.is_unresolved() || r.expires_at > now);
        Ok((before - s.records.len()) as u64)
    }

    async fn pending(&self) -> Result<Vec<Record>, LedgerError> {
        let mut out: Vec<Record> = self
            .lock()
            .records
            .values()
            .filter(|r| r.state.is_unresolved())
            .cloned()
            .collect();
        out.sort_by(|a, b| (a.created_at, &a.key).cmp(&(b.created_at, &b.key)));
        Ok(out)
    }

    async fn decide(&self, key: &Key, decision: &Decision) -> Result<(), LedgerError> {
        let now = self.clock.now();
        let mut s = self.lock();
        let next = s.last_token + 1;
        let Some(rec) = s.records.get_mut(key) else {
            return Err(LedgerError::NotFound(key.clone()));
        };
        if !rec.state.is_unresolved() {
            return Err(LedgerError::NotFound(key.clone()));
        }
        match decision {
            Decision::Happened { result } => {
                rec.state = RecordState::Committed;
                rec.resolution = Some(Resolution::Committed {
                    result: super::seal(result).into_owned(),
                });
                rec.token = next;
                rec.updated_at = now;
                s.last_token = next;
            }
            Decision::DidNotHappen => {
                s.records.remove(key);
            }
        }
        Ok(())
    }
}
