//! Opening the ledger the command line names: a SQLite file that must already be a ledger,
//! or a PostgreSQL schema that must already hold one. Nothing is ever created by mistake.

use std::sync::Arc;
use std::time::Duration;

use idemcheck::ledger::{
    LedgerAdmin, LedgerError, PostgresLedger, PostgresOptions, SqliteLedger, SqliteOptions,
    state_dir,
};

use crate::{Cli, Failure, Result};

/// An open ledger and how to name it in messages (never the connection string: it may hold
/// a password).
pub(crate) struct Opened {
    pub(crate) ledger: Arc<dyn LedgerAdmin>,
    pub(crate) name: String,
}

pub(crate) async fn open(cli: &Cli) -> Result<Opened> {
    let window = Duration::from_secs(cli.tombstone_window_hours.saturating_mul(3600));
    match (&cli.sqlite, &cli.postgres) {
        (Some(_), Some(_)) => Err(Failure::Given(
            "--sqlite and --postgres name two ledgers: give one (IDEMCHECK_LEDGER_POSTGRES counts as --postgres)"
                .into(),
        )),
        (None, Some(url)) => {
            let url = url.trim();
            if url.is_empty() {
                return Err(Failure::Given(
                    "--postgres is empty: give a connection string such as postgres://user@host:5432/db"
                        .into(),
                ));
            }
            let options = PostgresOptions::default()
                .schema(cli.schema.clone())
                .create_schema(false)
                .pool_size(2)
                .tombstone_window(window);
            let ledger = PostgresLedger::connect_with(url, options)
                .await
                .map_err(|e| {
                    Failure::Given(format!(
                        "cannot open the PostgreSQL ledger (schema `{}`): {}",
                        cli.schema,
                        text(e)
                    ))
                })?;
            Ok(Opened {
                ledger: Arc::new(ledger),
                name: format!("the PostgreSQL ledger (schema {})", cli.schema),
            })
        }
        (path, None) => {
            let (path, default) = match path {
                Some(p) => (p.clone(), false),
                None => {
                    let dir = state_dir().map_err(|e| {
                        Failure::Given(format!(
                            "no ledger named and no default one: {}; pass --sqlite PATH or --postgres URL",
                            text(e)
                        ))
                    })?;
                    (dir.path.join(idemcheck::ledger::DEFAULT_SQLITE_FILE), true)
                }
            };
            let options = SqliteOptions::default().tombstone_window(window);
            let ledger = SqliteLedger::open_existing(&path, options).map_err(|e| {
                let hint = if default {
                    " (the default ledger in the state directory; pass --sqlite PATH or --postgres URL for another)"
                } else {
                    ""
                };
                Failure::Given(format!("cannot open the SQLite ledger: {}{hint}", text(e)))
            })?;
            Ok(Opened {
                ledger: Arc::new(ledger),
                name: format!("the SQLite ledger {}", path.display()),
            })
        }
    }
}

/// What went wrong, without the error kind's prefix ("ledger unavailable: ").
fn text(e: LedgerError) -> String {
    match e {
        LedgerError::Unavailable(text) | LedgerError::Corrupt(text) => text,
        other => other.to_string(),
    }
}
