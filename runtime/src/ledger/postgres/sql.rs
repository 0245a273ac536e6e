//! The schema, its migration, and the statements (with the schema spelled in).

use super::*;

pub(super) const COLUMNS: &str = "key, tool, fingerprint, state, owner, token, lease_until, created_at, updated_at, expires_at, resolution";
pub(super) const NOW_MS: &str = "(extract(epoch FROM now()) * 1000)::bigint";

/// A row `r` that is unresolved (DECLARED or UNKNOWN).
const UNRESOLVED: &str = "r.state IN ('declared', 'unknown')";

/// A row `r` that is a tombstone at `now.ms`: pruned, or resolved and past its expiry.
const TOMBSTONE: &str =
    "(r.state = 'pruned' OR (r.state IN ('committed', 'failed') AND r.expires_at <= now.ms))";

/// The state's CHECK constraint (schema version 2: the `pruned` state).
const STATE_CHECK: &str =
    "CHECK (state IN ('declared', 'committed', 'failed', 'unknown', 'pruned'))";

/// The statements, with the schema spelled in.
pub(super) struct Statements {
    pub(super) begin_one: String,
    pub(super) resolve_one: String,
    pub(super) begin_batch: String,
    pub(super) resolve_batch: String,
    pub(super) reclaim: String,
    pub(super) take_over: String,
    pub(super) release: String,
    pub(super) load: String,
    pub(super) prune: String,
    pub(super) pending: String,
    pub(super) decide_happened: String,
    pub(super) decide_not: String,
    pub(super) decide_lock: String,
    pub(super) decide_log: String,
    pub(super) records: String,
    pub(super) decisions: String,
}

impl Statements {
    pub(super) fn new(s: &str) -> Statements {
        let r_columns = COLUMNS
            .split(", ")
            .map(|c| format!("r.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        Statements {
            begin_one: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms),
                 ins AS (
                    INSERT INTO {s}.records ({COLUMNS})
                    SELECT $1, $2, $3, 'declared', $4, nextval('{s}.tokens'),
                           ms + $5, ms, ms, ms + $6, NULL FROM now
                    ON CONFLICT (key) DO NOTHING
                    RETURNING {COLUMNS}
                 )
                 SELECT true, ins.*, now.ms FROM ins, now
                 UNION ALL SELECT false, {r_columns}, now.ms FROM {s}.records AS r, now
                    WHERE r.key = $1 AND NOT EXISTS (SELECT 1 FROM ins)"
            ),
            resolve_one: format!(
                "UPDATE {s}.records SET state = $3, resolution = $4, updated_at = {NOW_MS}
                 WHERE key = $1 AND token = $2 AND state IN ('declared', 'unknown')"
            ),
            begin_batch: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms),
                 u AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
                                            $5::int8[], $6::int8[])
                       AS u(key, tool, fingerprint, owner, lease, ttl)),
                 ins AS (
                    INSERT INTO {s}.records ({COLUMNS})
                    SELECT u.key, u.tool, u.fingerprint, 'declared', u.owner,
                           nextval('{s}.tokens'), now.ms + u.lease, now.ms, now.ms,
                           now.ms + u.ttl, NULL
                    FROM u, now
                    ON CONFLICT (key) DO NOTHING
                    RETURNING {COLUMNS}
                 )
                 SELECT true, ins.*, now.ms FROM ins, now
                 UNION ALL SELECT false, {r_columns}, now.ms FROM {s}.records AS r, now, u
                    WHERE r.key = u.key AND NOT EXISTS (SELECT 1 FROM ins WHERE ins.key = u.key)"
            ),
            resolve_batch: format!(
                "UPDATE {s}.records AS r SET state = u.state, resolution = u.resolution,
                        updated_at = {NOW_MS}
                 FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[])
                      AS u(key, token, state, resolution)
                 WHERE r.key = u.key AND r.token = u.token AND r.state IN ('declared', 'unknown')
                 RETURNING r.key"
            ),
            reclaim: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms)
                 UPDATE {s}.records AS r SET
                    tool = $2, fingerprint = $3, state = 'declared', owner = $4,
                    token = nextval('{s}.tokens'), lease_until = now.ms + $5,
                    created_at = now.ms, updated_at = now.ms, expires_at = now.ms + $6,
                    resolution = NULL
                 FROM now
                 WHERE r.key = $1 AND r.token = $7 AND r.state IN ('committed', 'failed', 'pruned')
                   AND r.expires_at <= now.ms - $8
                 RETURNING r.token"
            ),
            // An unresolved record whose lease ran out keeps its creation and expiry; a
            // tombstone (with the same inputs) counts as claimed now.
            take_over: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms)
                 UPDATE {s}.records AS r SET
                    state = 'declared', owner = $3, token = nextval('{s}.tokens'),
                    lease_until = now.ms + $4, updated_at = now.ms, resolution = NULL,
                    tool = CASE WHEN {UNRESOLVED} THEN r.tool ELSE $5 END,
                    created_at = CASE WHEN {UNRESOLVED} THEN r.created_at ELSE now.ms END,
                    expires_at = CASE WHEN {UNRESOLVED} THEN r.expires_at ELSE now.ms + $6 END
                 FROM now
                 WHERE r.key = $1 AND r.token = $2
                   AND (({UNRESOLVED} AND r.lease_until <= now.ms)
                        OR ({TOMBSTONE} AND r.fingerprint = $7))
                 RETURNING r.token"
            ),
            release: format!(
                "DELETE FROM {s}.records WHERE key = $1 AND token = $2 AND state = 'declared'"
            ),
            load: format!("SELECT {COLUMNS}, {NOW_MS} FROM {s}.records WHERE key = $1"),
            // Forgotten (past the expiry and the tombstone window, $1): deleted; past the
            // expiry only: a tombstone, without the result. Disjoint, so no row is touched
            // twice by the one statement.
            prune: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms),
                 forgotten AS (
                    DELETE FROM {s}.records AS r USING now
                    WHERE r.state IN ('committed', 'failed', 'pruned')
                      AND r.expires_at <= now.ms - $1
                    RETURNING 1
                 ),
                 tombstoned AS (
                    UPDATE {s}.records AS r SET state = 'pruned', resolution = NULL,
                        updated_at = now.ms
                    FROM now
                    WHERE r.state IN ('committed', 'failed') AND r.expires_at <= now.ms
                      AND r.expires_at > now.ms - $1
                    RETURNING 1
                 )
                 SELECT (SELECT count(*) FROM forgotten) + (SELECT count(*) FROM tombstoned)"
            ),
            pending: format!(
                "SELECT {COLUMNS} FROM {s}.records
                 WHERE state IN ('declared', 'unknown') ORDER BY created_at, key"
            ),
            decide_happened: format!(
                "UPDATE {s}.records SET state = 'committed', resolution = $2,
                    token = nextval('{s}.tokens'), updated_at = {NOW_MS}
                 WHERE key = $1 AND state IN ('declared', 'unknown')"
            ),
            decide_not: format!(
                "DELETE FROM {s}.records WHERE key = $1 AND state IN ('declared', 'unknown')"
            ),
            decide_lock: format!(
                "SELECT tool, fingerprint, state FROM {s}.records
                 WHERE key = $1 AND state IN ('declared', 'unknown') FOR UPDATE"
            ),
            decide_log: format!(
                "INSERT INTO {s}.decisions
                    (key, tool, fingerprint, from_state, decision, note, decided_at)
                 VALUES ($1, $2, $3, $4, $5, $6, {NOW_MS})"
            ),
            // The state as seen (a resolved record past its expiry is a tombstone),
            // forgotten records (past the expiry and the window, $1) left out.
            records: format!(
                "WITH now AS (SELECT {NOW_MS} AS ms)
                 SELECT {r_columns}, now.ms FROM {s}.records AS r, now
                 WHERE NOT (r.state IN ('committed', 'failed', 'pruned')
                            AND r.expires_at <= now.ms - $1)
                   AND (CASE WHEN r.state IN ('committed', 'failed') AND r.expires_at <= now.ms
                             THEN 'pruned' ELSE r.state END) = ANY($2::text[])
                   AND ($3::int8 IS NULL OR (r.created_at, r.key) > ($3::int8, $4::text))
                 ORDER BY r.created_at, r.key
                 LIMIT $5::int8"
            ),
            decisions: format!(
                "SELECT key, tool, fingerprint, from_state, decision, note, decided_at
                 FROM {s}.decisions WHERE $1::text IS NULL OR key = $1::text ORDER BY seq"
            ),
        }
    }
}

pub(super) fn migration(s: &str) -> String {
    format!(
        "CREATE SCHEMA IF NOT EXISTS {s};
         CREATE SEQUENCE IF NOT EXISTS {s}.tokens AS bigint;
         CREATE TABLE IF NOT EXISTS {s}.records (
             key         text PRIMARY KEY,
             tool        text NOT NULL,
             fingerprint text NOT NULL,
             state       text NOT NULL CONSTRAINT records_state_check {STATE_CHECK},
             owner       text NOT NULL,
             token       bigint NOT NULL,
             lease_until bigint NOT NULL,
             created_at  bigint NOT NULL,
             updated_at  bigint NOT NULL,
             expires_at  bigint NOT NULL,
             resolution  text
         ) WITH (fillfactor = 70);
         CREATE INDEX IF NOT EXISTS records_expiry ON {s}.records (expires_at);
         CREATE TABLE IF NOT EXISTS {s}.decisions (
             seq         bigserial PRIMARY KEY,
             key         text NOT NULL,
             tool        text NOT NULL,
             fingerprint text NOT NULL,
             from_state  text NOT NULL,
             decision    text NOT NULL CHECK (decision IN ('happened', 'did_not_happen')),
             note        text,
             decided_at  bigint NOT NULL
         );
         CREATE INDEX IF NOT EXISTS decisions_key ON {s}.decisions (key, seq);
         CREATE TABLE IF NOT EXISTS {s}.schema_version (
             version    integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         );
         INSERT INTO {s}.schema_version (version)
             SELECT {SCHEMA_VERSION} WHERE NOT EXISTS (SELECT 1 FROM {s}.schema_version);"
    )
}

/// From version 1 (no tombstones) to 2: the state's CHECK constraint accepts `pruned`.
/// Version 1 named it `records_state_check` (PostgreSQL's name for a column's CHECK).
pub(super) fn upgrade_to_2(s: &str) -> String {
    format!(
        "ALTER TABLE {s}.records DROP CONSTRAINT IF EXISTS records_state_check;
         ALTER TABLE {s}.records ADD CONSTRAINT records_state_check {STATE_CHECK};
         INSERT INTO {s}.schema_version (version) VALUES (2) ON CONFLICT DO NOTHING;"
    )
}

pub(super) fn valid_schema(schema: &str) -> bool {
    let mut chars = schema.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && schema.len() <= 63
}

/// The advisory lock that serialises migrations of one schema.
pub(super) fn migration_lock(schema: &str) -> i64 {
    let hex = sha256_hex(format!("idemcheck migration {schema}").as_bytes());
    i64::from_str_radix(&hex[..15], 16).unwrap_or(0x1de3_c4ec)
}

pub(super) fn record_from(row: &Row, at: usize) -> Result<Record, LedgerError> {
    let get_text = |i: usize| -> Result<String, LedgerError> {
        row.try_get::<_, String>(at + i)
            .map_err(|e| LedgerError::Corrupt(e.to_string()))
    };
    let get_i64 = |i: usize| -> Result<i64, LedgerError> {
        row.try_get::<_, i64>(at + i)
            .map_err(|e| LedgerError::Corrupt(e.to_string()))
    };
    let resolution: Option<String> = row
        .try_get(at + 10)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    let key = get_text(0)?;
    let (state, resolution) = decode(&key, &get_text(3)?, resolution.as_deref())?;
    Ok(Record {
        key: Key::from_stored(key),
        tool: get_text(1)?,
        fingerprint: Fingerprint::from_stored(get_text(2)?),
        state,
        owner: get_text(4)?,
        token: unsigned(get_i64(5)?),
        lease_until: Timestamp(unsigned(get_i64(6)?)),
        created_at: Timestamp(unsigned(get_i64(7)?)),
        updated_at: Timestamp(unsigned(get_i64(8)?)),
        expires_at: Timestamp(unsigned(get_i64(9)?)),
        resolution,
    })
}
