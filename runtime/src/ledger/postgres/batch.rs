//! Group commit: claims and settle writes that find another of their kind in flight are
//! queued and sent together, one statement over `unnest(..)` arrays.

use super::*;

/// The most claims (or settles) one batched statement carries.
pub(super) const MAX_BATCH: usize = 64;

/// Counts a handle's claims (or settles) in flight; the first of a quiet moment runs alone.
pub(super) struct InFlight<'a> {
    pub(super) count: &'a std::sync::atomic::AtomicUsize,
    pub(super) alone: bool,
}

impl<'a> InFlight<'a> {
    pub(super) fn enter(count: &'a std::sync::atomic::AtomicUsize) -> InFlight<'a> {
        let before = count.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        InFlight {
            count,
            alone: before == 0,
        }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// One claim's parameters.
pub(super) struct ClaimRow {
    pub(super) key: String,
    pub(super) tool: String,
    pub(super) fingerprint: String,
    pub(super) owner: String,
    pub(super) lease: i64,
    pub(super) ttl: i64,
}

/// What a claim statement found for one key: (claimed?, the record, the server's now), or
/// `None` when the statement neither inserted the key nor saw its row (a concurrent claim
/// committed after its snapshot).
pub(super) type ClaimAnswer = Result<Option<(bool, Record, i64)>, LedgerError>;

/// One settle write's parameters.
pub(super) struct SettleRow {
    pub(super) key: String,
    pub(super) token: i64,
    pub(super) state: &'static str,
    pub(super) resolution: String,
}

/// A kind of write the batcher groups: how one statement runs a batch of rows, and what
/// each row's caller is answered.
pub(super) trait Batched: Sized + Send + Sync + 'static {
    /// What the batch statement returns.
    type Found: Send;
    /// What one caller is answered.
    type Answer: Send + 'static;
    /// The row's key (at most one row per key per statement).
    fn key(&self) -> &str;
    /// Run `rows` as one statement on `client`.
    fn run<'a>(
        client: &'a deadpool_postgres::Object,
        sql: &'a Statements,
        rows: &'a [&'a Self],
    ) -> impl std::future::Future<Output = Result<Self::Found, LedgerError>> + Send + 'a;
    /// This row's answer out of the statement's result.
    fn answer(found: &mut Self::Found, row: &Self) -> Self::Answer;
}

impl Batched for ClaimRow {
    type Found = std::collections::HashMap<String, (bool, Record, i64)>;
    type Answer = Option<(bool, Record, i64)>;
    fn key(&self) -> &str {
        &self.key
    }
    fn run<'a>(
        client: &'a deadpool_postgres::Object,
        sql: &'a Statements,
        rows: &'a [&'a Self],
    ) -> impl std::future::Future<Output = Result<Self::Found, LedgerError>> + Send + 'a {
        run_claims(client, sql, rows)
    }
    fn answer(found: &mut Self::Found, row: &Self) -> Self::Answer {
        found.remove(&row.key)
    }
}

impl Batched for SettleRow {
    type Found = std::collections::HashSet<String>;
    type Answer = bool;
    fn key(&self) -> &str {
        &self.key
    }
    fn run<'a>(
        client: &'a deadpool_postgres::Object,
        sql: &'a Statements,
        rows: &'a [&'a Self],
    ) -> impl std::future::Future<Output = Result<Self::Found, LedgerError>> + Send + 'a {
        run_settles(client, sql, rows)
    }
    fn answer(found: &mut Self::Found, row: &Self) -> Self::Answer {
        found.contains(&row.key)
    }
}

/// A row waiting for its batcher, with where to send the answer.
pub(super) struct Job<R: Batched> {
    pub(super) row: R,
    pub(super) reply: oneshot::Sender<Result<R::Answer, LedgerError>>,
}

/// Take the next batch: everything queued (up to [`MAX_BATCH`]), at most one job per key —
/// a second job for a key waits for the next batch, so one statement never touches a row
/// twice — in key order, so any two writers lock rows in the same order.
pub(super) async fn next_batch<R: Batched>(
    rx: &mut mpsc::UnboundedReceiver<Job<R>>,
    held: &mut Vec<Job<R>>,
) -> Option<Vec<Job<R>>> {
    if held.is_empty() {
        held.push(rx.recv().await?);
    }
    while held.len() < MAX_BATCH {
        match rx.try_recv() {
            Ok(job) => held.push(job),
            Err(_) => break,
        }
    }
    let mut seen = std::collections::HashSet::new();
    let (mut batch, later): (Vec<Job<R>>, Vec<Job<R>>) = std::mem::take(held)
        .into_iter()
        .partition(|j| seen.insert(j.row.key().to_string()));
    *held = later;
    batch.sort_by(|a, b| a.row.key().cmp(b.row.key()));
    Some(batch)
}

/// Group commit: every row queued while the previous statement ran goes into the next one —
/// one statement, one transaction, one WAL flush for all of them.
pub(super) async fn batcher<R: Batched>(
    pool: Pool,
    sql: std::sync::Arc<Statements>,
    mut rx: mpsc::UnboundedReceiver<Job<R>>,
) {
    let mut held = Vec::new();
    while let Some(batch) = next_batch(&mut rx, &mut held).await {
        let rows: Vec<&R> = batch.iter().map(|j| &j.row).collect();
        let result = match pool.get().await.map_err(pg_error) {
            Ok(client) => R::run(&client, &sql, &rows).await,
            Err(e) => Err(e),
        };
        drop(rows);
        match result {
            Ok(mut found) => {
                for job in batch {
                    let answer = R::answer(&mut found, &job.row);
                    let _ = job.reply.send(Ok(answer));
                }
            }
            Err(e) => {
                for job in batch {
                    let _ = job.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

pub(super) async fn run_claims(
    client: &deadpool_postgres::Object,
    sql: &Statements,
    batch: &[&ClaimRow],
) -> Result<std::collections::HashMap<String, (bool, Record, i64)>, LedgerError> {
    let stmt = client
        .prepare_cached(&sql.begin_batch)
        .await
        .map_err(pg_error)?;
    let keys: Vec<&str> = batch.iter().map(|j| j.key.as_str()).collect();
    let tools: Vec<&str> = batch.iter().map(|j| j.tool.as_str()).collect();
    let fps: Vec<&str> = batch.iter().map(|j| j.fingerprint.as_str()).collect();
    let owners: Vec<&str> = batch.iter().map(|j| j.owner.as_str()).collect();
    let leases: Vec<i64> = batch.iter().map(|j| j.lease).collect();
    let ttls: Vec<i64> = batch.iter().map(|j| j.ttl).collect();
    let rows = client
        .query(&stmt, &[&keys, &tools, &fps, &owners, &leases, &ttls])
        .await
        .map_err(pg_error)?;
    let mut found = std::collections::HashMap::with_capacity(rows.len());
    for row in &rows {
        let (claimed, record, now) = claim_row_from(row)?;
        found.insert(record.key.as_str().to_string(), (claimed, record, now));
    }
    Ok(found)
}

/// (claimed?, record, server now) out of a row of a claim statement.
pub(super) fn claim_row_from(row: &Row) -> Result<(bool, Record, i64), LedgerError> {
    let claimed: bool = row
        .try_get(0)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    let record = record_from(row, 1)?;
    let now: i64 = row
        .try_get(12)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    Ok((claimed, record, now))
}

pub(super) async fn run_settles(
    client: &deadpool_postgres::Object,
    sql: &Statements,
    batch: &[&SettleRow],
) -> Result<std::collections::HashSet<String>, LedgerError> {
    let stmt = client
        .prepare_cached(&sql.resolve_batch)
        .await
        .map_err(pg_error)?;
    let keys: Vec<&str> = batch.iter().map(|j| j.key.as_str()).collect();
    let tokens: Vec<i64> = batch.iter().map(|j| j.token).collect();
    let states: Vec<&str> = batch.iter().map(|j| j.state).collect();
    let resolutions: Vec<&str> = batch.iter().map(|j| j.resolution.as_str()).collect();
    let rows = client
        .query(&stmt, &[&keys, &tokens, &states, &resolutions])
        .await
        .map_err(pg_error)?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
}
