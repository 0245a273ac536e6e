//! How the SQL stores write a record's state and resolution: the state as its
//! [`RecordState::as_str`] text, the resolution as its serde JSON text (exact round trip:
//! the text is stored verbatim, never normalised), with secrets sealed first.

use super::{Decided, DecisionRecord, LedgerError, RecordState, Resolution};
use crate::clock::Timestamp;
use crate::key::{Fingerprint, Key};

/// The state a resolution puts a record in.
pub(crate) fn state_of(resolution: &Resolution) -> RecordState {
    match resolution {
        Resolution::Committed { .. } => RecordState::Committed,
        Resolution::Failed { .. } => RecordState::Failed,
        Resolution::Unknown { .. } => RecordState::Unknown,
    }
}

/// The stored text of a resolution: sealed (see [`super::seal`]), then JSON.
pub(crate) fn encode(resolution: &Resolution) -> Result<String, LedgerError> {
    serde_json::to_string(&*resolution.sealed())
        .map_err(|e| LedgerError::Corrupt(format!("cannot encode the resolution: {e}")))
}

/// Read back a stored state and resolution.
pub(crate) fn decode(
    key: &str,
    state: &str,
    resolution: Option<&str>,
) -> Result<(RecordState, Option<Resolution>), LedgerError> {
    let state = RecordState::parse(state).ok_or_else(|| {
        LedgerError::Corrupt(format!("record {key}: unknown record state `{state}`"))
    })?;
    let resolution = match resolution {
        None => None,
        Some(text) => Some(serde_json::from_str::<Resolution>(text).map_err(|e| {
            LedgerError::Corrupt(format!("record {key}: unreadable resolution: {e}"))
        })?),
    };
    Ok((state, resolution))
}

/// Milliseconds as the SQL stores keep them (signed 64-bit).
pub(crate) fn millis(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A stored signed value back to the unsigned one the trait speaks.
pub(crate) fn unsigned(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// An unsigned value as the SQL stores keep it.
pub(crate) fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A decision log row, read back.
pub(crate) fn decision_record(
    key: String,
    tool: String,
    fingerprint: String,
    from_state: &str,
    decision: &str,
    note: Option<String>,
    decided_at: i64,
) -> Result<DecisionRecord, LedgerError> {
    let from_state = RecordState::parse(from_state).ok_or_else(|| {
        LedgerError::Corrupt(format!("decision on {key}: unknown state `{from_state}`"))
    })?;
    let decision = Decided::parse(decision).ok_or_else(|| {
        LedgerError::Corrupt(format!("decision on {key}: unknown decision `{decision}`"))
    })?;
    Ok(DecisionRecord {
        key: Key::from_stored(key),
        tool,
        fingerprint: Fingerprint::from_stored(fingerprint),
        from_state,
        decision,
        note,
        decided_at: Timestamp(unsigned(decided_at)),
    })
}
