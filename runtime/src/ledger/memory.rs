//! The in-memory store: for tests, the simulator and single-process tools that accept
//! forgetting everything on restart. A hash map (lookups do not degrade with size); every
//! listing is sorted, so nothing order-dependent leaks out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;

use super::{
    Begin, Claim, Decided, Decision, DecisionRecord, Ledger, LedgerAdmin, LedgerError, Record,
    RecordQuery, RecordState, Resolution, Token,
};
use crate::clock::Clock;
use crate::key::Key;

#[derive(Debug, Default)]
struct State {
    records: HashMap<Key, Record>,
    last_token: Token,
    decisions: Vec<DecisionRecord>,
}

/// An in-memory [`Ledger`]: a mutex around an ordered map.
#[derive(Clone)]
pub struct MemoryLedger {
    state: Arc<Mutex<State>>,
    clock: Arc<dyn Clock>,
    tombstone_window: Duration,
}

impl std::fmt::Debug for MemoryLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryLedger")
            .field("records", &self.lock().records.len())
            .field("tombstone_window", &self.tombstone_window)
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
            tombstone_window: super::DEFAULT_TOMBSTONE_WINDOW,
        }
    }

    /// How long a resolved record past its TTL is kept as a tombstone before its key is
    /// forgotten (default [`super::DEFAULT_TOMBSTONE_WINDOW`], 30 days; zero keeps none).
    pub fn with_tombstone_window(mut self, window: Duration) -> Self {
        self.tombstone_window = window;
        self
    }

    /// The tombstone window in force.
    pub fn tombstone_window(&self) -> Duration {
        self.tombstone_window
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every record as stored (a resolved record past its TTL that `prune` has not rewritten
    /// yet still shows its resolution), in key order (for tests and the simulator's event
    /// log).
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
        if let Some(seen) = s
            .records
            .get(claim.key)
            .and_then(|rec| rec.clone().as_of(now, self.tombstone_window))
        {
            return Ok(Begin::Existing(seen));
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
        if rec.token != token {
            return Ok(None);
        }
        if rec.is_tombstone_at(now) {
            if &rec.fingerprint != claim.fingerprint {
                return Ok(None);
            }
            rec.tool = claim.tool.to_string();
            rec.created_at = now;
            rec.expires_at = now.after(claim.ttl);
        } else if !rec.state.is_unresolved() || rec.lease_until > now {
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
        let now = self.clock.now();
        Ok(self
            .lock()
            .records
            .get(key)
            .and_then(|r| r.clone().as_of(now, self.tombstone_window)))
    }
}

#[async_trait]
impl LedgerAdmin for MemoryLedger {
    async fn prune(&self) -> Result<u64, LedgerError> {
        let now = self.clock.now();
        let window = self.tombstone_window;
        let mut s = self.lock();
        let before = s.records.len();
        // Forgotten: past the expiry and the tombstone window.
        s.records
            .retain(|_, r| r.state.is_unresolved() || r.expires_at.after(window) > now);
        let mut changed = (before - s.records.len()) as u64;
        // Past the expiry: a tombstone, without the result.
        for r in s.records.values_mut() {
            if matches!(r.state, RecordState::Committed | RecordState::Failed)
                && r.expires_at <= now
            {
                r.state = RecordState::Pruned;
                r.resolution = None;
                r.updated_at = now;
                changed += 1;
            }
        }
        Ok(changed)
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

    async fn decide_with_note(
        &self,
        key: &Key,
        decision: &Decision,
        note: Option<&str>,
    ) -> Result<(), LedgerError> {
        let now = self.clock.now();
        let mut s = self.lock();
        let next = s.last_token + 1;
        let Some(rec) = s.records.get_mut(key) else {
            return Err(LedgerError::NotFound(key.clone()));
        };
        if !rec.state.is_unresolved() {
            return Err(LedgerError::NotFound(key.clone()));
        }
        let entry = DecisionRecord {
            key: key.clone(),
            tool: rec.tool.clone(),
            fingerprint: rec.fingerprint.clone(),
            from_state: rec.state,
            decision: Decided::of(decision),
            note: note.map(str::to_string),
            decided_at: now,
        };
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
        s.decisions.push(entry);
        Ok(())
    }

    async fn records(&self, query: &RecordQuery) -> Result<Vec<Record>, LedgerError> {
        let now = self.clock.now();
        let mut out: Vec<Record> = self
            .lock()
            .records
            .values()
            .filter_map(|r| r.clone().as_of(now, self.tombstone_window))
            .filter(|r| query.matches(r))
            .collect();
        out.sort_by(|a, b| (a.created_at, &a.key).cmp(&(b.created_at, &b.key)));
        if let Some(limit) = query.limit {
            out.truncate(limit);
        }
        Ok(out)
    }

    async fn decisions(&self, key: Option<&Key>) -> Result<Vec<DecisionRecord>, LedgerError> {
        Ok(self
            .lock()
            .decisions
            .iter()
            .filter(|d| key.is_none_or(|k| &d.key == k))
            .cloned()
            .collect())
    }
}
