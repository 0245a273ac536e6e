//! Text output: the records table, one record, UTC times.

use std::io::Write;

use idemcheck::Key;
use idemcheck::ledger::{Decided, DecisionRecord, Record, Resolution};

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Milliseconds since the Unix epoch as `2026-12-06T07:30:35.123Z`.
pub(crate) fn time(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(i64::MAX));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

/// Days since 1970-01-01 to a (year, month, day) of the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The records as a table, one per line.
pub(crate) fn table(records: &[Record], out: &mut impl Write) -> std::io::Result<()> {
    if records.is_empty() {
        return writeln!(out, "no records");
    }
    let tool_width = records
        .iter()
        .map(|r| r.tool.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    writeln!(
        out,
        "{:<64}  {:<9}  {:<tool_width$}  {:<24}  OWNER",
        "KEY", "STATE", "TOOL", "CREATED (UTC)"
    )?;
    for r in records {
        writeln!(
            out,
            "{:<64}  {:<9}  {:<tool_width$}  {:<24}  {}",
            r.key.as_str(),
            r.state.as_str(),
            r.tool,
            time(r.created_at.0),
            r.owner
        )?;
    }
    writeln!(
        out,
        "{} record{}",
        records.len(),
        if records.len() == 1 { "" } else { "s" }
    )
}

/// One record (or what is left of it) and the decisions on its key.
pub(crate) fn record(
    key: &Key,
    record: Option<&Record>,
    decisions: &[DecisionRecord],
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(out, "key          {key}")?;
    match record {
        None => writeln!(
            out,
            "state        (no record: decided not-done, or forgotten)"
        )?,
        Some(r) => {
            writeln!(out, "tool         {}", r.tool)?;
            writeln!(out, "state        {}", r.state.as_str())?;
            writeln!(out, "fingerprint  {}", r.fingerprint)?;
            writeln!(out, "owner        {} (token {})", r.owner, r.token)?;
            writeln!(out, "created      {}", time(r.created_at.0))?;
            writeln!(out, "updated      {}", time(r.updated_at.0))?;
            if r.state.is_unresolved() {
                writeln!(out, "lease until  {}", time(r.lease_until.0))?;
            }
            writeln!(out, "expires      {}", time(r.expires_at.0))?;
            match &r.resolution {
                Some(Resolution::Committed { result }) => writeln!(out, "result       {result}")?,
                Some(Resolution::Failed { error }) => {
                    writeln!(out, "failure      {}", error.message)?;
                    if let Some(value) = &error.value {
                        writeln!(out, "error value  {value}")?;
                    }
                }
                Some(Resolution::Unknown { note }) => writeln!(out, "unknown      {note}")?,
                None => {}
            }
        }
    }
    for d in decisions {
        let what = match d.decision {
            Decided::Happened => "done",
            Decided::DidNotHappen => "not done",
        };
        write!(
            out,
            "decided      {} {what} (was {})",
            time(d.decided_at.0),
            d.from_state.as_str()
        )?;
        match &d.note {
            Some(note) => writeln!(out, ": {note}")?,
            None => writeln!(out)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_calendar_dates() {
        assert_eq!(time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(time(1_796_534_435_123), "2026-12-06T05:20:35.123Z");
        assert_eq!(time(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
    }
}
