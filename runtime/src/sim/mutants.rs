//! Mutation testing of the harness itself: the simulator's billing tool, each time broken
//! in one way a real tool breaks (a lying postcondition, an unstable key, a wrong error
//! classification, a retry in the body, a fail-open ledger ...). A harness that proves a
//! mutant proves nothing; [`run`] asks that every mutant be killed by at least one fault
//! **class** (not only by the exhaustive enumeration), and prints the mutant × class table.
//!
//! Each mutant runs in the *real* world of the tool it breaks (its environment is the
//! correct contract's, see [`Mutant::env`]), so a contract that lies about its world (a
//! settle window shorter than the replica lag) meets the world as it is.

use std::fmt::{self, Display};

use super::billing::{CREATE_CHARGE_NO_SERVER_KEY, Charge, ChargeArgs, SimBilling, write_contract};
use super::fault::FaultClass;
use super::harness::{Config, Env, Proof, Report};
use super::net::SimError;
use crate::clock::with_deadline;
use crate::context::{Context, KeyContext, current_key};
use crate::contract::{Contract, KeySpec};
use crate::key::Material;
use crate::outcome::{Failure, NotCompleted, Outcome};

/// A broken variant of the billing tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mutant {
    /// The postcondition always says "not done".
    VerifyAlwaysNotDone,
    /// The postcondition always says "done" (it fabricates success).
    VerifyAlwaysDone,
    /// The postcondition ignores the order id: any charge of the customer will do.
    VerifyIgnoresOrderId,
    /// The key comes from a per-call counter.
    KeyFromCounter,
    /// The key comes from the clock.
    KeyFromClock,
    /// `server_dedup = true`, but the key never reaches the downstream API.
    ServerDedupKeyNotSent,
    /// No settle window in front of an API that commits late.
    NoSettleWindow,
    /// An error is mapped to success.
    ErrorMappedToSuccess,
    /// The tool body retries the write itself.
    RetryInsideTool,
    /// A 500 after the write is classified as a definite failure.
    ServerErrorIsDefinite,
    /// The tool answers as soon as the request is on its way (fire and forget).
    FireAndForget,
    /// The settle window is shorter than the replica lag the postcondition reads through.
    SettleShorterThanLag,
    /// The key includes the worker's identity.
    KeyIncludesWorker,
    /// When the ledger is down, the tool runs unguarded (fails open).
    FailOpenLedger,
    /// The key leaves out the order id: two orders of a customer share it.
    KeyMergesOperations,
    /// The key includes the calendar date of the clock (UTC): a call repeated after
    /// midnight gets another key.
    KeyFromDate,
    /// The postcondition turns a failed lookup into "not done".
    ReadErrorIsNotDone,
    /// The postcondition looks for the charge on the first page of the customer's charges
    /// only.
    VerifyFirstPageOnly,
    /// The tool body sends the request again on a 503 ("503 means nothing happened").
    ResendOn503,
    /// The key is built by walking a `HashMap` of the key fields: its order follows the
    /// process's hash seed, so a restarted process builds another key.
    KeyFromMapOrder,
    /// A two-effect tool (authorize, then charge) that sends the idempotency key with the
    /// charge only: a retry authorizes again.
    AuthorizeWithoutKey,
}

const KEY: KeySpec = KeySpec::Fields(&["customer", "order_id"]);

/// The billing tool's write contract under another name, with one retry, `find_charge` as
/// its postcondition, and the mutant's attempt timeout.
const fn contract(
    name: &'static str,
    key: KeySpec,
    timeout_ms: u64,
    settle_ms: Option<u64>,
    server_dedup: bool,
) -> Contract {
    Contract {
        function: "idemcheck::sim::mutants",
        timeout_ms: Some(timeout_ms),
        ..write_contract(name, key, Some("find_charge"), 1, settle_ms, server_dedup)
    }
}

impl Mutant {
    /// Every mutant.
    pub const ALL: [Mutant; 21] = [
        Mutant::VerifyAlwaysNotDone,
        Mutant::VerifyAlwaysDone,
        Mutant::VerifyIgnoresOrderId,
        Mutant::KeyFromCounter,
        Mutant::KeyFromClock,
        Mutant::ServerDedupKeyNotSent,
        Mutant::NoSettleWindow,
        Mutant::ErrorMappedToSuccess,
        Mutant::RetryInsideTool,
        Mutant::ServerErrorIsDefinite,
        Mutant::FireAndForget,
        Mutant::SettleShorterThanLag,
        Mutant::KeyIncludesWorker,
        Mutant::FailOpenLedger,
        Mutant::KeyMergesOperations,
        Mutant::KeyFromDate,
        Mutant::ReadErrorIsNotDone,
        Mutant::VerifyFirstPageOnly,
        Mutant::ResendOn503,
        Mutant::KeyFromMapOrder,
        Mutant::AuthorizeWithoutKey,
    ];

    /// Its name in the table.
    pub fn name(self) -> &'static str {
        self.contract().name
    }

    /// The bug, in a sentence.
    pub fn bug(self) -> &'static str {
        match self {
            Mutant::VerifyAlwaysNotDone => "the postcondition always says not done",
            Mutant::VerifyAlwaysDone => "the postcondition always says done",
            Mutant::VerifyIgnoresOrderId => {
                "the postcondition ignores a key field (any charge of the customer matches)"
            }
            Mutant::KeyFromCounter => "the key comes from a per-call counter",
            Mutant::KeyFromClock => "the key comes from the clock",
            Mutant::ServerDedupKeyNotSent => {
                "server_dedup = true, but the key never reaches the downstream API"
            }
            Mutant::NoSettleWindow => "no settle window in front of a late-committing API",
            Mutant::ErrorMappedToSuccess => "an error is mapped to success",
            Mutant::RetryInsideTool => "a retry loop inside the tool body",
            Mutant::ServerErrorIsDefinite => "a 500 after the write is classified definite",
            Mutant::FireAndForget => "success is reported once the request is on its way",
            Mutant::SettleShorterThanLag => "the settle window is shorter than the replica lag",
            Mutant::KeyIncludesWorker => "the key includes the worker's identity",
            Mutant::FailOpenLedger => "with the ledger down the tool runs unguarded",
            Mutant::KeyMergesOperations => "the key leaves out the order id",
            Mutant::KeyFromDate => "the key includes today's date (from the clock)",
            Mutant::ReadErrorIsNotDone => {
                "the postcondition turns a failed lookup into \"not done\""
            }
            Mutant::VerifyFirstPageOnly => {
                "the postcondition looks at the first page of a listing only"
            }
            Mutant::ResendOn503 => "the tool resends on a 503 (\"503 means nothing happened\")",
            Mutant::KeyFromMapOrder => {
                "the key follows a HashMap's iteration order (a per-process hash seed)"
            }
            Mutant::AuthorizeWithoutKey => {
                "of two effects (authorize, charge), only the second carries the key"
            }
        }
    }

    /// The class added with this mutant as its proof of use (`None`: a mutant of the
    /// original list, killed wherever it is).
    pub fn designed_for(self) -> Option<FaultClass> {
        match self {
            Mutant::VerifyAlwaysDone => Some(FaultClass::LostRequest),
            Mutant::ServerErrorIsDefinite => Some(FaultClass::ErrorAfterEffect),
            Mutant::FireAndForget => Some(FaultClass::SlowSuccess),
            Mutant::SettleShorterThanLag => Some(FaultClass::StaleRead),
            Mutant::KeyIncludesWorker => Some(FaultClass::ConcurrentCallers),
            Mutant::FailOpenLedger => Some(FaultClass::LedgerFault),
            Mutant::VerifyIgnoresOrderId => Some(FaultClass::LookalikeRecords),
            Mutant::KeyMergesOperations => Some(FaultClass::SiblingOperations),
            Mutant::KeyFromDate => Some(FaultClass::ClockPhase),
            Mutant::ReadErrorIsNotDone => Some(FaultClass::ReadFault),
            Mutant::VerifyFirstPageOnly => Some(FaultClass::LookalikeRecords),
            Mutant::ResendOn503 => Some(FaultClass::ErrorAfterEffect),
            Mutant::KeyFromMapOrder => Some(FaultClass::Crash),
            Mutant::AuthorizeWithoutKey => Some(FaultClass::LostAck),
            _ => None,
        }
    }

    /// The contract the mutant declares.
    pub fn contract(self) -> Contract {
        let declared = self.declared();
        Contract {
            key_context: match self {
                Mutant::KeyFromDate => &["clock"],
                Mutant::KeyIncludesWorker => &["worker"],
                _ => &[],
            },
            ..declared
        }
    }

    fn declared(self) -> Contract {
        match self {
            Mutant::VerifyAlwaysNotDone => {
                contract("verify_always_not_done", KEY, 30_000, Some(120_000), false)
            }
            Mutant::VerifyAlwaysDone => {
                contract("verify_always_done", KEY, 30_000, Some(120_000), false)
            }
            Mutant::VerifyIgnoresOrderId => {
                contract("verify_ignores_order_id", KEY, 30_000, Some(120_000), false)
            }
            Mutant::KeyFromCounter => contract(
                "key_from_counter",
                KeySpec::Function("counter"),
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::KeyFromClock => contract(
                "key_from_clock",
                KeySpec::Function("now"),
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::ServerDedupKeyNotSent => {
                contract("server_dedup_key_not_sent", KEY, 30_000, None, true)
            }
            Mutant::NoSettleWindow => contract("no_settle_window", KEY, 30_000, None, false),
            Mutant::ErrorMappedToSuccess => {
                contract("error_mapped_to_success", KEY, 30_000, Some(120_000), false)
            }
            // A generous attempt timeout, so the body's own retries happen inside it.
            Mutant::RetryInsideTool => {
                contract("retry_inside_tool", KEY, 120_000, Some(120_000), false)
            }
            Mutant::ServerErrorIsDefinite => contract(
                "server_error_is_definite",
                KEY,
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::FireAndForget => contract("fire_and_forget", KEY, 30_000, Some(120_000), false),
            Mutant::SettleShorterThanLag => {
                contract("settle_shorter_than_lag", KEY, 30_000, Some(1_000), false)
            }
            Mutant::KeyIncludesWorker => contract(
                "key_includes_worker",
                KeySpec::Function("worker_key"),
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::FailOpenLedger => {
                contract("fail_open_ledger", KEY, 30_000, Some(120_000), false)
            }
            Mutant::KeyMergesOperations => contract(
                "key_merges_operations",
                KeySpec::Fields(&["customer"]),
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::KeyFromDate => contract(
                "key_from_date",
                KeySpec::Function("key_with_date"),
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::ReadErrorIsNotDone => {
                contract("read_error_is_not_done", KEY, 30_000, Some(120_000), false)
            }
            Mutant::VerifyFirstPageOnly => {
                contract("verify_first_page_only", KEY, 30_000, Some(120_000), false)
            }
            Mutant::ResendOn503 => contract("resend_on_503", KEY, 30_000, Some(120_000), false),
            Mutant::KeyFromMapOrder => contract(
                "key_from_map_order",
                KeySpec::Function("fields_in_map_order"),
                30_000,
                Some(120_000),
                false,
            ),
            Mutant::AuthorizeWithoutKey => {
                contract("authorize_without_key", KEY, 30_000, Some(120_000), true)
            }
        }
    }

    /// The world the mutant runs in: the correct tool's. Only the server-dedup mutant
    /// lives in a world whose API honours keys, as its contract says.
    pub fn env(self) -> Env {
        match self {
            Mutant::ServerDedupKeyNotSent | Mutant::AuthorizeWithoutKey => {
                Env::for_contract(&self.contract())
            }
            _ => Env::for_contract(&CREATE_CHARGE_NO_SERVER_KEY),
        }
    }

    /// The guarded call of the mutant.
    pub async fn call(
        self,
        ctx: &Context,
        billing: &SimBilling,
        args: ChargeArgs,
    ) -> Outcome<Charge, SimError> {
        let contract = self.contract();
        // What the key function may read besides the arguments, as the contract declares.
        let kctx = KeyContext::new(ctx, contract.key_context);
        let key_fields = match self {
            Mutant::KeyFromCounter => Material::new().field("counter", &billing.next_nonce()),
            Mutant::KeyFromClock => Material::new().field("now", &ctx.clock().now().0),
            Mutant::KeyIncludesWorker => Material::new()
                .field("worker", &kctx.worker())
                .field("order_id", &args.order_id),
            Mutant::KeyMergesOperations => Material::new().field("customer", &args.customer),
            Mutant::KeyFromMapOrder => {
                let mut fields =
                    std::collections::HashMap::with_hasher(billing.net.process().random_state());
                fields.insert("customer", args.customer.clone());
                fields.insert("order_id", args.order_id.clone());
                let in_order: Vec<&String> = fields.values().collect();
                Material::whole(&in_order)
            }
            Mutant::KeyFromDate => Material::new()
                .field("customer", &args.customer)
                .field("order_id", &args.order_id)
                .field("day", &kctx.now().map(|t| t.0 / 86_400_000)),
            _ => Material::new()
                .field("customer", &args.customer)
                .field("order_id", &args.order_id),
        };
        let inputs = Material::new().field("args", &args);
        let out = crate::executor::run(
            ctx,
            &contract,
            key_fields,
            inputs,
            || self.attempt(ctx, billing, args.clone()),
            || self.verify(billing, &args),
        )
        .await;
        match (self, out) {
            (
                Mutant::FailOpenLedger,
                Outcome::NotCompleted(NotCompleted {
                    reason: Failure::Ledger(_),
                    ..
                }),
            ) => match billing.create_charge(&args, None).await {
                Ok(c) => Outcome::Completed(c),
                Err(e) => Outcome::NotCompleted(NotCompleted {
                    key: None,
                    attempts: 1,
                    reason: Failure::Tool(e),
                }),
            },
            (_, out) => out,
        }
    }

    /// One attempt of the mutant's tool body.
    async fn attempt(
        self,
        ctx: &Context,
        billing: &SimBilling,
        args: ChargeArgs,
    ) -> Result<Charge, SimError> {
        let key = current_key();
        let sent_key = match self {
            Mutant::ServerDedupKeyNotSent => None,
            _ if self.contract().server_dedup => key.as_ref().map(|k| k.as_str()),
            _ => None,
        };
        match self {
            Mutant::ErrorMappedToSuccess => Ok(billing
                .create_charge(&args, sent_key)
                .await
                .unwrap_or_else(|_| pending_charge(&args))),
            Mutant::RetryInsideTool => {
                let mut last = SimError::Timeout;
                for _ in 0..3 {
                    match billing.create_charge(&args, None).await {
                        Ok(c) => return Ok(c),
                        Err(SimError::Timeout) => last = SimError::Timeout,
                        Err(e) => return Err(e),
                    }
                }
                Err(last)
            }
            Mutant::AuthorizeWithoutKey => {
                billing.authorize(&args, None).await?;
                billing.create_charge(&args, sent_key).await
            }
            Mutant::ResendOn503 => match billing.create_charge(&args, sent_key).await {
                Err(SimError::Unavailable) => billing.create_charge(&args, sent_key).await,
                other => other,
            },
            Mutant::ServerErrorIsDefinite => match billing.create_charge(&args, sent_key).await {
                Err(SimError::ServerError) => Err(SimError::Declined),
                other => other,
            },
            Mutant::FireAndForget => {
                let clock = ctx.clock();
                let soon = clock.now().after(std::time::Duration::from_secs(1));
                match with_deadline(clock, Some(soon), billing.create_charge(&args, sent_key)).await
                {
                    Some(answer) => answer,
                    None => Ok(pending_charge(&args)),
                }
            }
            _ => billing.create_charge(&args, sent_key).await,
        }
    }

    /// The mutant's postcondition.
    async fn verify(
        self,
        billing: &SimBilling,
        args: &ChargeArgs,
    ) -> Result<Option<Charge>, SimError> {
        match self {
            Mutant::VerifyAlwaysNotDone => Ok(None),
            Mutant::VerifyAlwaysDone => Ok(Some(pending_charge(args))),
            Mutant::VerifyIgnoresOrderId => Ok(billing
                .net
                .read_all()
                .await?
                .iter()
                .find(|e| e.payload["customer"].as_str() == Some(args.customer.as_str()))
                .map(Charge::from_effect)),
            Mutant::ReadErrorIsNotDone => Ok(billing.find_charge(args).await.unwrap_or(None)),
            Mutant::VerifyFirstPageOnly => Ok(billing
                .list_charges(&args.customer, None)
                .await?
                .effects
                .iter()
                .find(|e| e.payload["order_id"].as_str() == Some(args.order_id.as_str()))
                .map(Charge::from_effect)),
            _ => billing.find_charge(args).await,
        }
    }
}

impl Mutant {
    /// The mutant's effect counter: its charges, and for the two-effect mutant its
    /// authorizations too ([`crate::sim::EffectCounts`]).
    pub fn count(self, billing: &SimBilling, args: &ChargeArgs) -> Vec<(&'static str, usize)> {
        match self {
            Mutant::AuthorizeWithoutKey => billing.count_both(args).to_vec(),
            _ => vec![("charge", billing.count(args))],
        }
    }
}

/// The charge a lying tool reports without the system of record's word.
fn pending_charge(args: &ChargeArgs) -> Charge {
    Charge {
        id: "ch_pending".into(),
        customer: args.customer.clone(),
        order_id: args.order_id.clone(),
        amount_cents: args.amount_cents,
    }
}

impl Display for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The mutation run: per mutant, the harness's report.
#[derive(Debug)]
pub struct MutationReport {
    /// Per mutant, its report (classes only: no exhaustive enumeration counts here).
    pub runs: Vec<(Mutant, Report)>,
}

impl MutationReport {
    /// Violating episodes of `mutant` under `class`.
    pub fn kills(&self, mutant: Mutant, class: FaultClass) -> u64 {
        self.runs
            .iter()
            .find(|(m, _)| *m == mutant)
            .map_or(0, |(_, r)| r.violating(class))
    }

    /// The classes that killed `mutant`.
    pub fn killed_by(&self, mutant: Mutant) -> Vec<FaultClass> {
        FaultClass::ALL
            .into_iter()
            .filter(|c| self.kills(mutant, *c) > 0)
            .collect()
    }

    /// The mutants `class` kills that no class before it in [`FaultClass::ALL`] (the
    /// order the classes were added in) kills: what the class adds to the harness.
    pub fn first_killed_by(&self, class: FaultClass) -> Vec<Mutant> {
        let older: Vec<FaultClass> = FaultClass::ALL
            .into_iter()
            .take_while(|c| *c != class)
            .collect();
        self.runs
            .iter()
            .map(|(m, _)| *m)
            .filter(|m| self.kills(*m, class) > 0 && older.iter().all(|c| self.kills(*m, *c) == 0))
            .collect()
    }

    /// Mutants no class killed.
    pub fn survivors(&self) -> Vec<Mutant> {
        self.runs
            .iter()
            .map(|(m, _)| *m)
            .filter(|m| self.killed_by(*m).is_empty())
            .collect()
    }

    /// Killed mutants and all mutants.
    pub fn score(&self) -> (usize, usize) {
        (self.runs.len() - self.survivors().len(), self.runs.len())
    }
}

/// Short column heads of the mutant × class table, in [`FaultClass::ALL`]'s order.
const HEADS: [&str; 16] = [
    "LA", "LC", "RD", "RO", "CR", "DP", "LR", "EA", "SS", "SR", "CC", "LF", "LK", "SB", "CP", "RF",
];

impl Display for MutationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (killed, total) = self.score();
        writeln!(
            f,
            "harness mutation score: {killed}/{total} mutants killed by a fault class ({}%)",
            killed * 100 / total.max(1)
        )?;
        write!(f, "  {:<26}", "mutant")?;
        for h in HEADS {
            write!(f, " {h:>4}")?;
        }
        writeln!(f, "  designed for")?;
        for (m, _) in &self.runs {
            write!(f, "  {:<26}", m.name())?;
            for c in FaultClass::ALL {
                match self.kills(*m, c) {
                    0 => write!(f, " {:>4}", ".")?,
                    n => write!(f, " {n:>4}")?,
                }
            }
            let designed = m.designed_for().map_or("", FaultClass::as_str);
            let survived = if self.killed_by(*m).is_empty() {
                "  <- SURVIVED"
            } else {
                ""
            };
            writeln!(f, "  {designed}{survived}")?;
        }
        write!(f, "  (violating episodes per class;")?;
        for (h, c) in HEADS.iter().zip(FaultClass::ALL) {
            write!(f, " {h} {}", c.as_str())?;
        }
        writeln!(f, ")")
    }
}

impl MutationReport {
    /// The mutant × class table as Markdown (violating episodes per class; docs/simulator.md shows
    /// the suite's run of it).
    pub fn markdown(&self) -> String {
        let mut out = String::from("| mutant | the bug |");
        for h in HEADS {
            out.push_str(&format!(" {h} |"));
        }
        out.push_str(" designed for |\n|---|---|");
        for _ in HEADS {
            out.push_str("---|");
        }
        out.push_str("---|\n");
        for (m, _) in &self.runs {
            out.push_str(&format!("| `{}` | {} |", m.name(), m.bug()));
            for c in FaultClass::ALL {
                match self.kills(*m, c) {
                    0 => out.push_str(" . |"),
                    n => out.push_str(&format!(" {n} |")),
                }
            }
            match m.designed_for() {
                Some(c) => out.push_str(&format!(" `{c}` |\n")),
                None => out.push_str(" |\n"),
            }
        }
        out
    }
}

/// Run every mutant through the fault classes of `config` (its `env` is replaced by each
/// mutant's world; exhaustive enumeration, shrinking and saving are off: a mutant must be
/// killed by a class).
pub fn run(config: &Config) -> MutationReport {
    let runs = Mutant::ALL
        .into_iter()
        .map(|m| {
            let report = Proof {
                contract: m.contract(),
                world: SimBilling::new,
                intent: ChargeArgs::episode,
                call: async |ctx: &Context, b: &SimBilling, a: ChargeArgs| m.call(ctx, b, a).await,
                effects: |b: &SimBilling, a: &ChargeArgs| m.count(b, a),
            }
            .check(&Config {
                env: Some(m.env()),
                shrink: false,
                save_to: None,
                exhaustive: 0,
                ..config.clone()
            });
            (m, report)
        })
        .collect();
    MutationReport { runs }
}
