//! Database helpers. `record_refund` writes, but it is not a tool: only the tool calling it
//! is flagged.

pub async fn record_refund(pool: &sqlx::PgPool, charge_id: &str) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO refunds (charge_id, created_at) VALUES ($1, now())")
        .bind(charge_id)
        .execute(pool)
        .await?;
    Ok(())
}

pub async fn purge_old_sessions(pool: &sqlx::PgPool) -> Result<u64, sqlx::Error> {
    let r = sqlx::query("DELETE FROM sessions WHERE expires_at < now()")
        .execute(pool)
        .await?;
    Ok(r.rows_affected())
}
