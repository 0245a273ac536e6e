//! [`PostgresLedger`]: connecting, the protocol operations, and the [`Ledger`] impl.

use super::*;

/// How many times `begin` re-runs its statement when a concurrent claim committed after
/// the statement's snapshot (it then neither inserts nor sees the row).
const BEGIN_ATTEMPTS: usize = 16;

impl PostgresLedger {
    /// Connect to `url` (`postgres://user@host:port/db` or `host=… user=…`) with the
    /// default options, and create or check the `idemcheck` schema.
    pub async fn connect(url: &str) -> Result<PostgresLedger, LedgerError> {
        PostgresLedger::connect_with(url, PostgresOptions::default()).await
    }

    /// Connect to `url` and create or check the schema of `options`.
    ///
    /// `sslmode` (`disable`, `prefer`, `require`, `verify-full`) and `sslrootcert` in `url`
    /// choose TLS (see the module documentation). No error contains `url`, and the password
    /// it holds is redacted from every error.
    pub async fn connect_with(
        url: &str,
        options: PostgresOptions,
    ) -> Result<PostgresLedger, LedgerError> {
        if !valid_schema(&options.schema) {
            return Err(unavailable(format!(
                "`{}` is not a valid schema name (lowercase letters, digits, `_`)",
                options.schema
            )));
        }
        let (rest, params) = tls::split_tls_params(url)
            .map_err(|e| unavailable(format!("bad connection string: {e}")))?;
        let mut config: tokio_postgres::Config = rest
            .parse()
            .map_err(|e| unavailable(format!("bad connection string: {e}")))?;
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let mode = params.mode.unwrap_or(tls::SslMode::Disable);
        config.ssl_mode(mode.for_tokio_postgres());
        let root = params
            .root_cert
            .as_deref()
            .or(options.tls_root_certificate.as_deref());
        let tls = tls::MakeRustls(tls::client_config(mode, root).map_err(unavailable)?);
        PostgresLedger::connect_config(config, tls, options)
            .await
            .map_err(|e| redact_password(e, password.as_deref()))
    }

    async fn connect_config(
        mut config: tokio_postgres::Config,
        tls: tls::MakeRustls,
        options: PostgresOptions,
    ) -> Result<PostgresLedger, LedgerError> {
        config.connect_timeout(options.connect_timeout);
        if config.get_application_name().is_none() {
            config.application_name("idemcheck");
        }
        let build_sized = |config: tokio_postgres::Config, size: usize| {
            let manager = Manager::from_config(
                config,
                tls.clone(),
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(options.op_timeout))
                .create_timeout(Some(options.connect_timeout))
                .recycle_timeout(Some(options.connect_timeout))
                .build()
                .map_err(unavailable)
        };
        let build = |config: tokio_postgres::Config| build_sized(config, options.pool_size);
        let pool = build(config.clone())?;
        let mut lazy_config = config.clone();
        let startup = match lazy_config.get_options() {
            Some(o) => format!("{o} -c synchronous_commit=off"),
            None => "-c synchronous_commit=off".to_string(),
        };
        lazy_config.options(startup);
        let settle_pool = if options.async_resolutions {
            build(lazy_config.clone())?
        } else {
            pool.clone()
        };
        let sql = std::sync::Arc::new(Statements::new(&options.schema));
        let (claims, claim_rx) = mpsc::unbounded_channel();
        let (settles, settle_rx) = mpsc::unbounded_channel();
        // The batchers run on a thread and runtime of their own, with connections of their
        // own, so a ledger outlives the runtime it was connected on (and its connections do
        // not depend on a caller's runtime). They stop when the last clone is dropped.
        let claim_pool = build_sized(config.clone(), 1)?;
        let settle_batch_pool = if options.async_resolutions {
            build_sized(lazy_config.clone(), 1)?
        } else {
            build_sized(config.clone(), 1)?
        };
        {
            let sql = sql.clone();
            std::thread::Builder::new()
                .name("idemcheck-pg-batch".into())
                .spawn(move || {
                    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                    else {
                        return;
                    };
                    rt.block_on(async move {
                        let claims = tokio::spawn(batcher(claim_pool, sql.clone(), claim_rx));
                        let settles = tokio::spawn(batcher(settle_batch_pool, sql, settle_rx));
                        let _ = claims.await;
                        let _ = settles.await;
                    });
                })
                .map_err(|e| unavailable(format!("cannot start the batch thread: {e}")))?;
        }
        let ledger = PostgresLedger {
            pool,
            settle_pool,
            sql,
            schema: options.schema.clone(),
            op_timeout: options.op_timeout,
            tombstone_window: options.tombstone_window,
            create_schema: options.create_schema,
            claims,
            settles,
            claims_in_flight: Default::default(),
            settles_in_flight: Default::default(),
        };
        ledger.migrate().await?;
        Ok(ledger)
    }

    /// The schema holding the ledger.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// The tombstone window in force ([`PostgresOptions::tombstone_window`]).
    pub fn tombstone_window(&self) -> Duration {
        self.tombstone_window
    }

    async fn migrate(&self) -> Result<(), LedgerError> {
        let schema = self.schema.clone();
        self.bounded(async {
            let mut client = self.pool.get().await.map_err(pg_error)?;
            let tx = client.transaction().await.map_err(pg_error)?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1)",
                &[&migration_lock(&schema)],
            )
            .await
            .map_err(pg_error)?;
            if !self.create_schema {
                let exists: bool = tx
                    .query_one(
                        "SELECT to_regclass($1) IS NOT NULL",
                        &[&format!("{schema}.records")],
                    )
                    .await
                    .map_err(pg_error)?
                    .get(0);
                if !exists {
                    let db: String = tx
                        .query_one("SELECT current_database()", &[])
                        .await
                        .map_err(pg_error)?
                        .get(0);
                    return Err(unavailable(format!(
                        "database `{db}` holds no idemcheck ledger in schema `{schema}` (no table {schema}.records)"
                    )));
                }
            }
            tx.batch_execute(&migration(&schema))
                .await
                .map_err(pg_error)?;
            let version: Option<i32> = tx
                .query_one(
                    &format!("SELECT max(version) FROM {schema}.schema_version"),
                    &[],
                )
                .await
                .map_err(pg_error)?
                .get(0);
            if version.unwrap_or(0) > SCHEMA_VERSION {
                return Err(LedgerError::Corrupt(format!(
                    "schema {schema} is at version {}; this idemcheck writes version {SCHEMA_VERSION}",
                    version.unwrap_or(0)
                )));
            }
            if version.unwrap_or(0) < 2 {
                tx.batch_execute(&upgrade_to_2(&schema))
                    .await
                    .map_err(pg_error)?;
            }
            tx.commit().await.map_err(pg_error)
        })
        .await
    }

    /// Run one claim: directly when no other claim of this handle is in flight (no hop, no
    /// wait), else through the claim batcher, which puts every claim queued meanwhile into
    /// one statement (group commit).
    async fn claim_row(&self, row: ClaimRow) -> ClaimAnswer {
        let _in_flight = InFlight::enter(&self.claims_in_flight);
        if _in_flight.alone {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.begin_one)
                .await
                .map_err(pg_error)?;
            let rows = client
                .query(
                    &stmt,
                    &[
                        &row.key,
                        &row.tool,
                        &row.fingerprint,
                        &row.owner,
                        &row.lease,
                        &row.ttl,
                    ],
                )
                .await
                .map_err(pg_error)?;
            return rows.first().map(claim_row_from).transpose();
        }
        let (reply, answer) = oneshot::channel();
        self.claims
            .send(Job { row, reply })
            .map_err(|_| unavailable("the claim batcher has stopped"))?;
        answer
            .await
            .map_err(|_| unavailable("the claim batcher has stopped"))?
    }

    /// Run one settle write, directly or batched like [`Self::claim_row`].
    async fn settle_row(&self, row: SettleRow) -> Result<bool, LedgerError> {
        let _in_flight = InFlight::enter(&self.settles_in_flight);
        if _in_flight.alone {
            let client = self.settle_client().await?;
            let stmt = client
                .prepare_cached(&self.sql.resolve_one)
                .await
                .map_err(pg_error)?;
            let n = client
                .execute(&stmt, &[&row.key, &row.token, &row.state, &row.resolution])
                .await
                .map_err(pg_error)?;
            return Ok(n == 1);
        }
        let (reply, answer) = oneshot::channel();
        self.settles
            .send(Job { row, reply })
            .map_err(|_| unavailable("the settle batcher has stopped"))?;
        answer
            .await
            .map_err(|_| unavailable("the settle batcher has stopped"))?
    }

    async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, LedgerError>>,
    ) -> Result<T, LedgerError> {
        match tokio::time::timeout(self.op_timeout, fut).await {
            Ok(r) => r,
            Err(_) => Err(unavailable(format!(
                "no answer within {} ms",
                self.op_timeout.as_millis()
            ))),
        }
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, LedgerError> {
        self.pool.get().await.map_err(pg_error)
    }

    /// A connection for the writes that settle a claim.
    async fn settle_client(&self) -> Result<deadpool_postgres::Object, LedgerError> {
        self.settle_pool.get().await.map_err(pg_error)
    }
}

#[async_trait]
impl Ledger for PostgresLedger {
    async fn begin(&self, claim: &Claim<'_>) -> Result<Begin, LedgerError> {
        self.bounded(async {
            let (key, fp) = (claim.key.as_str(), claim.fingerprint.as_str());
            let (lease, ttl) = (millis(claim.lease), millis(claim.ttl));
            let window = millis(self.tombstone_window);
            for _ in 0..BEGIN_ATTEMPTS {
                let row = ClaimRow {
                    key: key.to_string(),
                    tool: claim.tool.to_string(),
                    fingerprint: fp.to_string(),
                    owner: claim.owner.to_string(),
                    lease,
                    ttl,
                };
                let (claimed, record, now) = match self.claim_row(row).await? {
                    Some(found) => found,
                    // A concurrent claim committed after the statement's snapshot: the
                    // next statement sees it.
                    None => continue,
                };
                if claimed {
                    return Ok(Begin::Claimed {
                        token: record.token,
                    });
                }
                let token = record.token;
                if let Some(seen) = record.as_of(Timestamp(unsigned(now)), self.tombstone_window) {
                    return Ok(Begin::Existing(seen));
                }
                // A resolved record or tombstone past its expiry and the tombstone window is
                // forgotten: take its place, in one fenced statement (rare: only until
                // `prune` deletes it).
                let client = self.client().await?;
                let reclaim = client
                    .prepare_cached(&self.sql.reclaim)
                    .await
                    .map_err(pg_error)?;
                let row = client
                    .query_opt(
                        &reclaim,
                        &[
                            &key,
                            &claim.tool,
                            &fp,
                            &claim.owner,
                            &lease,
                            &ttl,
                            &signed(token),
                            &window,
                        ],
                    )
                    .await
                    .map_err(pg_error)?;
                if let Some(row) = row {
                    return Ok(Begin::Claimed {
                        token: unsigned(row.get::<_, i64>(0)),
                    });
                }
                // Someone else changed it first: look again.
            }
            Err(unavailable(format!(
                "the claim of {key} kept racing with other claims"
            )))
        })
        .await
    }

    async fn take_over(
        &self,
        claim: &Claim<'_>,
        token: Token,
    ) -> Result<Option<Token>, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.take_over)
                .await
                .map_err(pg_error)?;
            let row = client
                .query_opt(
                    &stmt,
                    &[
                        &claim.key.as_str(),
                        &signed(token),
                        &claim.owner,
                        &millis(claim.lease),
                        &claim.tool,
                        &millis(claim.ttl),
                        &claim.fingerprint.as_str(),
                    ],
                )
                .await
                .map_err(pg_error)?;
            Ok(row.map(|r| unsigned(r.get::<_, i64>(0))))
        })
        .await
    }

    async fn resolve(
        &self,
        key: &Key,
        token: Token,
        resolution: &Resolution,
    ) -> Result<(), LedgerError> {
        let text = encode(resolution)?;
        let state = state_of(resolution).as_str();
        self.bounded(async {
            let row = SettleRow {
                key: key.as_str().to_string(),
                token: signed(token),
                state,
                resolution: text,
            };
            let settled = self.settle_row(row).await?;
            LedgerError::fenced_unless(settled, key, token)
        })
        .await
    }

    async fn release(&self, key: &Key, token: Token) -> Result<(), LedgerError> {
        self.bounded(async {
            let client = self.settle_client().await?;
            let stmt = client
                .prepare_cached(&self.sql.release)
                .await
                .map_err(pg_error)?;
            let n = client
                .execute(&stmt, &[&key.as_str(), &signed(token)])
                .await
                .map_err(pg_error)?;
            LedgerError::fenced_unless(n == 1, key, token)
        })
        .await
    }

    async fn load(&self, key: &Key) -> Result<Option<Record>, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.load)
                .await
                .map_err(pg_error)?;
            let Some(row) = client
                .query_opt(&stmt, &[&key.as_str()])
                .await
                .map_err(pg_error)?
            else {
                return Ok(None);
            };
            let now: i64 = row
                .try_get(11)
                .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            Ok(record_from(&row, 0)?.as_of(Timestamp(unsigned(now)), self.tombstone_window))
        })
        .await
    }
}

#[async_trait]
impl LedgerAdmin for PostgresLedger {
    async fn prune(&self) -> Result<u64, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.prune)
                .await
                .map_err(pg_error)?;
            let window = millis(self.tombstone_window);
            let row = client
                .query_one(&stmt, &[&window])
                .await
                .map_err(pg_error)?;
            let changed: i64 = row
                .try_get(0)
                .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            Ok(unsigned(changed))
        })
        .await
    }

    async fn pending(&self) -> Result<Vec<Record>, LedgerError> {
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.pending)
                .await
                .map_err(pg_error)?;
            let rows = client.query(&stmt, &[]).await.map_err(pg_error)?;
            rows.iter().map(|r| record_from(r, 0)).collect()
        })
        .await
    }

    async fn decide_with_note(
        &self,
        key: &Key,
        decision: &Decision,
        note: Option<&str>,
    ) -> Result<(), LedgerError> {
        let text = match decision {
            Decision::Happened { result } => Some(encode(&Resolution::Committed {
                result: result.clone(),
            })?),
            Decision::DidNotHappen => None,
        };
        let decided = Decided::of(decision).as_str();
        self.bounded(async {
            let mut client = self.client().await?;
            // One transaction: the record locked, changed, and the decision logged.
            let tx = client.transaction().await.map_err(pg_error)?;
            let Some(found) = tx
                .query_opt(&self.sql.decide_lock, &[&key.as_str()])
                .await
                .map_err(pg_error)?
            else {
                return Err(LedgerError::NotFound(key.clone()));
            };
            let (tool, fingerprint, from_state): (String, String, String) =
                (found.get(0), found.get(1), found.get(2));
            let n = match &text {
                Some(text) => {
                    tx.execute(&self.sql.decide_happened, &[&key.as_str(), text])
                        .await
                }
                None => tx.execute(&self.sql.decide_not, &[&key.as_str()]).await,
            }
            .map_err(pg_error)?;
            if n != 1 {
                return Err(LedgerError::NotFound(key.clone()));
            }
            tx.execute(
                &self.sql.decide_log,
                &[
                    &key.as_str(),
                    &tool,
                    &fingerprint,
                    &from_state,
                    &decided,
                    &note,
                ],
            )
            .await
            .map_err(pg_error)?;
            tx.commit().await.map_err(pg_error)
        })
        .await
    }

    async fn records(&self, query: &RecordQuery) -> Result<Vec<Record>, LedgerError> {
        let states: Vec<&str> = if query.states.is_empty() {
            ALL_STATES.iter().map(|s| s.as_str()).collect()
        } else {
            query.states.iter().map(|s| s.as_str()).collect()
        };
        let (after_at, after_key) = match &query.after {
            Some((at, key)) => (Some(signed(at.0)), Some(key.as_str().to_string())),
            None => (None, None),
        };
        let limit = query.limit.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        let window = millis(self.tombstone_window);
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.records)
                .await
                .map_err(pg_error)?;
            let rows = client
                .query(&stmt, &[&window, &states, &after_at, &after_key, &limit])
                .await
                .map_err(pg_error)?;
            let mut out = Vec::with_capacity(rows.len());
            for row in &rows {
                let now: i64 = row
                    .try_get(11)
                    .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
                if let Some(r) =
                    record_from(row, 0)?.as_of(Timestamp(unsigned(now)), self.tombstone_window)
                {
                    out.push(r);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn decisions(&self, key: Option<&Key>) -> Result<Vec<DecisionRecord>, LedgerError> {
        let key = key.map(|k| k.as_str().to_string());
        self.bounded(async {
            let client = self.client().await?;
            let stmt = client
                .prepare_cached(&self.sql.decisions)
                .await
                .map_err(pg_error)?;
            let rows = client.query(&stmt, &[&key]).await.map_err(pg_error)?;
            rows.iter()
                .map(|r| {
                    let text = |i: usize| -> Result<String, LedgerError> {
                        r.try_get::<_, String>(i)
                            .map_err(|e| LedgerError::Corrupt(e.to_string()))
                    };
                    let note: Option<String> = r
                        .try_get(5)
                        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
                    let at: i64 = r
                        .try_get(6)
                        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
                    decision_record(text(0)?, text(1)?, text(2)?, &text(3)?, &text(4)?, note, at)
                })
                .collect()
        })
        .await
    }
}
