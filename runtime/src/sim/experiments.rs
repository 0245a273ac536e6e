//! The references' experiments, reproduced on the simulator (the `retry_matrix` and
//! `fault_levels` examples print these).
//!
//! - [`retry_matrix`]: reference 000 — four retry strategies × four faults against a
//!   billing service with Stripe's key rules; its 16 reference cells print exactly the
//!   reference's expected output (7 duplicates of 16 runs, all reported "completed"), plus
//!   rows for the idemcheck wrapper and the faults the reference did not cover.
//! - [`fault_levels`]: the paper's shape (arXiv:2608.02645) — retry-only vs verify-only vs
//!   the idemcheck wrapper on `activate_customer` and `record_invoice` at low / medium /
//!   high fault levels.

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::json;

use super::billing::{self, Charge, ChargeArgs, SimBilling};
use super::fault::{Fault, FaultLevel, Schedule};
use super::harness::{Env, Episode, Proof};
use super::net::{Net, NetConfig, SimError};
use super::rng::SplitMix64;
use crate::clock::{Timestamp, VirtualClock};
use crate::context::{Context, current_key};
use crate::contract::{Contract, KeySpec, ToolKind};
use crate::key::{Key, Material, canonical_json, sha256_hex};
use crate::outcome::{AttemptError, Failure, NotCompleted, Outcome, Postcondition, Unknown};

// ------------------------------------------------------------------ reference 000

/// A retry strategy of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Retry on timeout, no key.
    NaiveRetry,
    /// Check the ledger (customer and amount) before retrying.
    VerifyThenRetry,
    /// A fresh key per attempt (`task-42-retry<i>`).
    NewKeyPerAttempt,
    /// One key per intent: task + tool + hash of the canonical arguments.
    PinnedIntentKey,
    /// `#[side_effect]`: key `[customer, order_id]`, verify, settle 120 s, key passed on.
    Idemcheck,
    /// The same against an API that takes no key (settle window only).
    IdemcheckNoServerKey,
}

impl Strategy {
    /// The reference's four, then idemcheck's two.
    pub const ALL: [Strategy; 6] = [
        Strategy::NaiveRetry,
        Strategy::VerifyThenRetry,
        Strategy::NewKeyPerAttempt,
        Strategy::PinnedIntentKey,
        Strategy::Idemcheck,
        Strategy::IdemcheckNoServerKey,
    ];

    /// The row label.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::NaiveRetry => "naive retry",
            Strategy::VerifyThenRetry => "verify then retry",
            Strategy::NewKeyPerAttempt => "new key per attempt",
            Strategy::PinnedIntentKey => "pinned intent key",
            Strategy::Idemcheck => "idemcheck",
            Strategy::IdemcheckNoServerKey => "idemcheck no srv key",
        }
    }

    /// One of reference 000's four.
    pub fn in_reference(self) -> bool {
        !matches!(self, Strategy::Idemcheck | Strategy::IdemcheckNoServerKey)
    }
}

/// A fault column of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixFault {
    /// No fault.
    None,
    /// The first call commits, its response is lost (30 s timeout).
    LostAck,
    /// The first call is in the pipe when the client gives up; it lands 90 s later.
    LateCommit,
    /// The transport delivers the first call twice; the client sees one success.
    Redelivery,
    /// Not in the reference: the first call is held until the retry has landed.
    Reorder,
    /// Not in the reference: the process dies right after the first call took effect; the
    /// agent reruns the task in a new process 1 s later.
    Crash,
    /// Not in the reference: after the first call, the agent calls again with $99.00.
    DivergentPayload,
}

impl MatrixFault {
    /// The reference's four, then three more.
    pub const ALL: [MatrixFault; 7] = [
        MatrixFault::None,
        MatrixFault::LostAck,
        MatrixFault::LateCommit,
        MatrixFault::Redelivery,
        MatrixFault::Reorder,
        MatrixFault::Crash,
        MatrixFault::DivergentPayload,
    ];

    /// The column label (the reference's spelling).
    pub fn name(self) -> &'static str {
        match self {
            MatrixFault::None => "none",
            MatrixFault::LostAck => "lost-ack",
            MatrixFault::LateCommit => "late-commit",
            MatrixFault::Redelivery => "redelivery",
            MatrixFault::Reorder => "reorder",
            MatrixFault::Crash => "crash",
            MatrixFault::DivergentPayload => "divergent payload",
        }
    }

    /// One of reference 000's four.
    pub fn in_reference(self) -> bool {
        matches!(
            self,
            MatrixFault::None
                | MatrixFault::LostAck
                | MatrixFault::LateCommit
                | MatrixFault::Redelivery
        )
    }

    /// The schedule: a fault on the first request only, as the reference's
    /// `++this.calls === 1`.
    pub fn schedule(self) -> Schedule {
        Schedule::of(match self {
            MatrixFault::None => vec![],
            MatrixFault::LostAck => vec![Fault::LostAck { request: 0 }],
            MatrixFault::LateCommit => vec![Fault::LateCommit {
                request: 0,
                delay_ms: 90_000,
            }],
            MatrixFault::Redelivery => vec![Fault::WireRedelivery {
                request: 0,
                gap_ms: 0,
            }],
            MatrixFault::Reorder => vec![Fault::Reorder {
                request: 0,
                delay_ms: 90_000,
            }],
            MatrixFault::Crash => vec![Fault::Crash {
                request: 0,
                restart_ms: 1_000,
            }],
            MatrixFault::DivergentPayload => vec![Fault::Diverge { at_ms: 60_000 }],
        })
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Row.
    pub strategy: Strategy,
    /// Column.
    pub fault: MatrixFault,
    /// Real charges for acme once everything landed (the reference advances 3600 s).
    pub charges: usize,
    /// What the agent was told (the last call's answer; both for divergent payload).
    pub agent_said: String,
}

impl Cell {
    /// More than one charge.
    pub fn duplicate(&self) -> bool {
        self.charges > 1
    }
}

const TASK: &str = "task-42";

fn matrix_args(_n: u64, variant: u32) -> ChargeArgs {
    ChargeArgs {
        customer: "acme".into(),
        order_id: "order-42".into(),
        amount_cents: if variant == 0 { 4900 } else { 9900 },
    }
}

/// The reference's `verifyThenRetry`: after a failure, list the customer's charges and
/// look for one with the same amount.
pub async fn verify_then_retry(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    for attempt in 1..=3 {
        if let Ok(c) = billing.create_charge(&args, None).await {
            return Outcome::Completed(c);
        }
        pause(ctx).await;
        if let Ok(Some(c)) = billing.find_charge(&args).await
            && c.customer == args.customer
            && c.amount_cents == args.amount_cents
        {
            return Outcome::Completed(c);
        }
        let _ = attempt;
    }
    failed(3, SimError::Timeout)
}

/// The reference's `intentKey`: `task:tool:` + 12 hex of SHA-256 of the canonical
/// arguments.
pub fn intent_key(task: &str, tool: &str, args: &ChargeArgs) -> String {
    let canonical = canonical_json(&serde_json::to_value(args).unwrap_or_default());
    let hash = sha256_hex(canonical.as_bytes());
    format!("{task}:{tool}:{}", &hash[..12])
}

/// The reference's `pinnedKey`: one key per intent; an error fails, no answer escalates.
pub async fn pinned_intent_key(
    ctx: &Context,
    billing: &SimBilling,
    args: ChargeArgs,
) -> Outcome<Charge, SimError> {
    let key = intent_key(TASK, "create_charge", &args);
    for attempt in 1..=3 {
        match billing.create_charge(&args, Some(&key)).await {
            Ok(c) => return Outcome::Completed(c),
            Err(SimError::Timeout) => {}
            Err(e) => {
                return Outcome::NotCompleted(NotCompleted {
                    key: None,
                    attempts: attempt,
                    reason: Failure::Tool(e),
                });
            }
        }
        pause(ctx).await;
    }
    Outcome::Unknown(Unknown {
        key: Key::from_stored(key),
        attempts: 3,
        last_error: Some(AttemptError::Tool(SimError::Timeout)),
        postcondition: Postcondition::NotChecked,
    })
}

fn failed(attempts: u32, e: SimError) -> Outcome<Charge, SimError> {
    Outcome::NotCompleted(NotCompleted {
        key: None,
        attempts,
        reason: Failure::NotDone {
            last_error: AttemptError::Tool(e),
        },
    })
}

async fn pause(ctx: &Context) {
    let clock = ctx.clock();
    clock
        .sleep_until(clock.now().after(Duration::from_secs(1)))
        .await;
}

fn matrix_env() -> Env {
    Env {
        server_keys: true,
        ..Env::for_contract(&billing::CREATE_CHARGE)
    }
}

fn cell_episode<FC>(call: FC, fault: MatrixFault) -> Episode
where
    FC: AsyncFn(&Context, &SimBilling, ChargeArgs) -> Outcome<Charge, SimError>,
{
    let proof = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: matrix_args,
        call,
        effects: |b: &SimBilling, _a: &ChargeArgs| b.charges_of("acme"),
    };
    proof.episode(&matrix_env(), 42, &fault.schedule())
}

fn said(status: &str, detail: &str) -> String {
    match status {
        "completed" => "completed".to_string(),
        "unknown" => "unknown: escalate".to_string(),
        "not_completed" if detail.starts_with("not done") => "failed".to_string(),
        "not_completed" => format!("failed: {detail}"),
        other => other.to_string(),
    }
}

/// Run one cell.
pub fn cell(strategy: Strategy, fault: MatrixFault) -> Cell {
    let ep = match strategy {
        Strategy::NaiveRetry => cell_episode(billing::naive_retry, fault),
        Strategy::VerifyThenRetry => cell_episode(verify_then_retry, fault),
        Strategy::NewKeyPerAttempt => cell_episode(billing::new_key_per_attempt, fault),
        Strategy::PinnedIntentKey => cell_episode(pinned_intent_key, fault),
        Strategy::Idemcheck => cell_episode(billing::create_charge, fault),
        Strategy::IdemcheckNoServerKey => cell_episode(billing::create_charge_no_server_key, fault),
    };
    let agent_said = ep
        .reports
        .iter()
        .map(|r| said(r.status, &r.detail))
        .collect::<Vec<_>>()
        .join("; then ");
    Cell {
        strategy,
        fault,
        charges: ep.effects[0],
        agent_said,
    }
}

/// Every cell, fault-major.
pub fn retry_matrix() -> Vec<Cell> {
    MatrixFault::ALL
        .iter()
        .flat_map(|&f| Strategy::ALL.iter().map(move |&s| cell(s, f)))
        .collect()
}

/// The reference's last experiment: same key, different amount — the service refuses.
pub fn key_reuse_refusal() -> String {
    let clock = VirtualClock::new();
    let net = Net::new(
        clock.clone(),
        NetConfig {
            server_keys: true,
            ..NetConfig::default()
        },
        &Schedule::none(),
    );
    let billing = SimBilling::new(&net);
    let args = matrix_args(0, 0);
    let key = intent_key(TASK, "create_charge", &args);
    let changed = ChargeArgs {
        amount_cents: 9900,
        ..args.clone()
    };
    let out = clock.block_on(async {
        let _ = billing.create_charge(&args, Some(&key)).await;
        billing.create_charge(&changed, Some(&key)).await
    });
    match out {
        Some(Err(e)) => e.to_string(),
        _ => "accepted".to_string(),
    }
}

fn row(out: &mut String, c: &Cell) {
    let verdict = if c.charges == 1 { "ok" } else { "DUPLICATE" };
    let _ = writeln!(
        out,
        "  {:<20} charges={}  {:<9}  agent said: {}",
        c.strategy.name(),
        c.charges,
        verdict,
        c.agent_said
    );
}

/// The terminal rendering. Its reference part (the four reference strategies' rows in the
/// four reference faults, the summary and the key-reuse lines) is reference 000's expected
/// output character for character; the `idemcheck` rows and the section after
/// "Beyond the reference" are additions.
pub fn render_matrix(cells: &[Cell]) -> String {
    let mut out = String::new();
    out.push_str("Task: charge acme $49.00 exactly once (MOCK billing, no API key)\n\n");
    let block = |out: &mut String, fault: MatrixFault| {
        let _ = writeln!(out, "Fault: {}", fault.name());
        for c in cells.iter().filter(|c| c.fault == fault) {
            row(out, c);
        }
        out.push('\n');
    };
    for &f in MatrixFault::ALL.iter().filter(|f| f.in_reference()) {
        block(&mut out, f);
    }
    let reference: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.strategy.in_reference() && c.fault.in_reference())
        .collect();
    let dups = reference.iter().filter(|c| c.duplicate()).count();
    let quiet = reference
        .iter()
        .filter(|c| c.duplicate() && c.agent_said == "completed")
        .count();
    let _ = writeln!(out, "Duplicates: {dups} of {} runs", reference.len());
    let _ = writeln!(out, "Duplicates the agent reported as completed: {quiet}\n");
    let _ = writeln!(
        out,
        "Key reuse with a different amount:\n  {}",
        key_reuse_refusal()
    );
    out.push_str("\nBeyond the reference: the faults it did not cover\n\n");
    for &f in MatrixFault::ALL.iter().filter(|f| !f.in_reference()) {
        block(&mut out, f);
    }
    for s in [Strategy::Idemcheck, Strategy::IdemcheckNoServerKey] {
        let mine: Vec<&Cell> = cells.iter().filter(|c| c.strategy == s).collect();
        let d: Vec<&str> = mine
            .iter()
            .filter(|c| c.duplicate())
            .map(|c| c.fault.name())
            .collect();
        let _ = writeln!(
            out,
            "{}: {} duplicate(s) in {} runs{}",
            s.name(),
            d.len(),
            mine.len(),
            if d.is_empty() {
                String::new()
            } else {
                format!(
                    " ({}: without a server-side key nothing can deduplicate a request the wire delivers twice)",
                    d.join(", ")
                )
            }
        );
    }
    out
}

/// The Markdown rendering: strategies × faults, charges per cell.
pub fn render_matrix_markdown(cells: &[Cell]) -> String {
    let mut out = String::new();
    out.push_str("| strategy |");
    for f in MatrixFault::ALL {
        let _ = write!(
            out,
            " {}{} |",
            f.name(),
            if f.in_reference() { "" } else { "*" }
        );
    }
    out.push_str("\n|---|");
    for _ in MatrixFault::ALL {
        out.push_str("---|");
    }
    out.push('\n');
    for s in Strategy::ALL {
        let _ = write!(out, "| {} |", s.name());
        for f in MatrixFault::ALL {
            let c = cells
                .iter()
                .find(|c| c.strategy == s && c.fault == f)
                .expect("every cell");
            if c.duplicate() {
                let _ = write!(out, " **{} DUPLICATE** |", c.charges);
            } else {
                let _ = write!(out, " {} ok |", c.charges);
            }
        }
        out.push('\n');
    }
    out.push_str("\n\\* not covered by the reference. Cells: real charges once everything in flight has landed.\n");
    out
}

// ------------------------------------------------------------------ the paper's shape

/// A task of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Activate a customer account (slow to become visible).
    ActivateCustomer,
    /// Record an invoice.
    RecordInvoice,
}

impl Task {
    /// Both.
    pub const ALL: [Task; 2] = [Task::ActivateCustomer, Task::RecordInvoice];

    /// `activate_customer`, `record_invoice`.
    pub fn name(self) -> &'static str {
        match self {
            Task::ActivateCustomer => "activate_customer",
            Task::RecordInvoice => "record_invoice",
        }
    }

    fn timeout_ms(self) -> u64 {
        match self {
            Task::ActivateCustomer => 10_000,
            Task::RecordInvoice => 5_000,
        }
    }

    /// In-flight plus visibility bound (the idemcheck contract's settle window).
    fn bound_ms(self) -> u64 {
        match self {
            Task::ActivateCustomer => 60_000,
            Task::RecordInvoice => 20_000,
        }
    }

    fn intent(self, n: u64) -> String {
        match self {
            Task::ActivateCustomer => format!("cust-{n}"),
            Task::RecordInvoice => format!("inv-{n}"),
        }
    }
}

/// A method of the paper's comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The baseline: retry failed calls directly (up to 2 retries), no key, no check.
    RetryOnly,
    /// Check the postcondition right after a failure, retry once if not done (the paper's
    /// wrapper: no settle window, no key).
    VerifyOnly,
    /// `#[side_effect]`: the same, with the settle window (the API takes no key).
    Idemcheck,
}

impl Method {
    /// All three.
    pub const ALL: [Method; 3] = [Method::RetryOnly, Method::VerifyOnly, Method::Idemcheck];

    /// Label.
    pub fn name(self) -> &'static str {
        match self {
            Method::RetryOnly => "retry-only",
            Method::VerifyOnly => "verify-only",
            Method::Idemcheck => "idemcheck",
        }
    }
}

/// The simulated service of a task.
#[derive(Debug, Clone)]
pub struct TaskWorld {
    net: Net,
    task: Task,
}

/// Arguments of a task's write.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TaskArgs {
    /// Business id.
    pub id: String,
    /// Payload.
    pub value: u64,
}

async fn task_write(w: &TaskWorld, a: &TaskArgs, key: Option<&str>) -> Result<u64, SimError> {
    w.net
        .write(
            &a.id,
            &json!({ "task": w.task.name(), "value": a.value }),
            key,
        )
        .await
        .map(|e| e.id)
}

async fn task_find(w: &TaskWorld, a: &TaskArgs) -> Result<Option<u64>, SimError> {
    Ok(w.net.read(&a.id).await?.first().map(|e| e.id))
}

const fn task_contract(name: &'static str, timeout_ms: u64, settle_ms: Option<u64>) -> Contract {
    Contract {
        name,
        function: "idemcheck::sim::experiments",
        kind: ToolKind::Write,
        key: KeySpec::Fields(&["id"]),
        chosen_key_fields: &[],
        key_context: &[],
        verify: Some("find"),
        no_postcondition: false,
        max_retries: Some(1),
        timeout_ms: Some(timeout_ms),
        settle_ms,
        ttl_hours: 24,
        server_dedup: false,
        suppressions: &[],
    }
}

async fn task_guarded(
    contract: &Contract,
    ctx: &Context,
    w: &TaskWorld,
    a: TaskArgs,
) -> Outcome<u64, SimError> {
    crate::executor::run(
        ctx,
        contract,
        Material::new().field("id", &a.id),
        Material::new().field("args", &a),
        || {
            let a = a.clone();
            async move {
                let key = current_key();
                let _ = key;
                task_write(w, &a, None).await
            }
        },
        || task_find(w, &a),
    )
    .await
}

async fn task_retry_only(ctx: &Context, w: &TaskWorld, a: TaskArgs) -> Outcome<u64, SimError> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        match task_write(w, &a, None).await {
            Ok(id) => return Outcome::Completed(id),
            Err(e) if attempts >= 3 => {
                return Outcome::NotCompleted(NotCompleted {
                    key: None,
                    attempts,
                    reason: Failure::NotDone {
                        last_error: AttemptError::Tool(e),
                    },
                });
            }
            Err(_) => pause(ctx).await,
        }
    }
}

/// One cell of the fault-level experiment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelCell {
    /// Task.
    pub task: Task,
    /// Fault level.
    pub level: FaultLevel,
    /// Method.
    pub method: Method,
    /// Episodes.
    pub episodes: u64,
    /// Episodes with more than one real effect.
    pub duplicates: u64,
    /// Episodes whose agent was told completed and whose effect exists.
    pub successes: u64,
    /// Episodes answered unknown (escalated to a person).
    pub unknown: u64,
}

impl LevelCell {
    /// Duplicate rate, %.
    pub fn duplicate_rate(&self) -> f64 {
        100.0 * self.duplicates as f64 / self.episodes.max(1) as f64
    }

    /// Success rate, %.
    pub fn success_rate(&self) -> f64 {
        100.0 * self.successes as f64 / self.episodes.max(1) as f64
    }
}

fn level_cell<FC>(
    task: Task,
    level: FaultLevel,
    method: Method,
    episodes: u64,
    seed: u64,
    call: FC,
    contract: Contract,
) -> LevelCell
where
    FC: AsyncFn(&Context, &TaskWorld, TaskArgs) -> Outcome<u64, SimError>,
{
    let proof = Proof {
        contract,
        world: |net: &Net| TaskWorld {
            net: net.clone(),
            task,
        },
        intent: |n: u64, _v: u32| TaskArgs {
            id: task.intent(n),
            value: n,
        },
        call,
        effects: |w: &TaskWorld, a: &TaskArgs| w.net.effects(&a.id).len(),
    };
    let env = Env {
        timeout_ms: task.timeout_ms(),
        bound_ms: task.bound_ms(),
        server_keys: false,
        wire_redelivery: false,
        ..Env::for_contract(&contract)
    };
    let mut cell = LevelCell {
        task,
        level,
        method,
        episodes,
        duplicates: 0,
        successes: 0,
        unknown: 0,
    };
    for n in 0..episodes {
        // The same faults for every method: the stream depends on task, level, episode.
        let mut rng = SplitMix64::derive(seed, ((task as u64) << 40) | ((level as u64) << 32) | n);
        let schedule = level.draw(&mut rng, 4, env.timeout_ms, env.bound_ms, false);
        let ep = proof.episode(&env, n, &schedule);
        if ep.effects[0] > 1 {
            cell.duplicates += 1;
        }
        match ep.final_status() {
            "completed" if ep.effects[0] >= 1 => cell.successes += 1,
            "unknown" => cell.unknown += 1,
            _ => {}
        }
    }
    cell
}

/// Run the experiment: every task × level × method, `episodes` each (the paper ran 25).
pub fn fault_levels(episodes: u64, seed: u64) -> Vec<LevelCell> {
    let mut out = Vec::new();
    for task in Task::ALL {
        for level in FaultLevel::ALL {
            let t = task.timeout_ms();
            let verify_only = task_contract("verify_only", t, None);
            let wrapped = task_contract(task.name(), t, Some(task.bound_ms()));
            out.push(level_cell(
                task,
                level,
                Method::RetryOnly,
                episodes,
                seed,
                task_retry_only,
                verify_only,
            ));
            out.push(level_cell(
                task,
                level,
                Method::VerifyOnly,
                episodes,
                seed,
                async |ctx: &Context, w: &TaskWorld, a: TaskArgs| {
                    task_guarded(&verify_only, ctx, w, a).await
                },
                verify_only,
            ));
            out.push(level_cell(
                task,
                level,
                Method::Idemcheck,
                episodes,
                seed,
                async |ctx: &Context, w: &TaskWorld, a: TaskArgs| {
                    task_guarded(&wrapped, ctx, w, a).await
                },
                wrapped,
            ));
        }
    }
    out
}

fn pct(n: u64, d: u64) -> String {
    format!("{n}/{d} ({:.0}%)", 100.0 * n as f64 / d.max(1) as f64)
}

/// The terminal table.
pub fn render_levels(cells: &[LevelCell], seed: u64) -> String {
    let mut out = String::new();
    let episodes = cells.first().map_or(0, |c| c.episodes);
    let _ = writeln!(
        out,
        "Fault levels (seed {seed}, {episodes} episodes per cell; per call: timeouts 5/20/35%, delayed visibility 5/15/25%)\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<7} {:<12} {:>16} {:>16} {:>10}",
        "task", "level", "method", "duplicates", "success", "unknown"
    );
    for c in cells {
        let _ = writeln!(
            out,
            "{:<18} {:<7} {:<12} {:>16} {:>16} {:>10}",
            c.task.name(),
            c.level.as_str(),
            c.method.name(),
            pct(c.duplicates, c.episodes),
            pct(c.successes, c.episodes),
            c.unknown
        );
    }
    out
}

/// The Markdown table.
pub fn render_levels_markdown(cells: &[LevelCell], seed: u64) -> String {
    let mut out = String::new();
    let episodes = cells.first().map_or(0, |c| c.episodes);
    let _ = writeln!(
        out,
        "Seed {seed}, {episodes} episodes per cell; per call: timeouts 5/20/35 %, delayed visibility 5/15/25 %.\n"
    );
    out.push_str("| task | level | method | duplicates | success | unknown |\n|---|---|---|---:|---:|---:|\n");
    for c in cells {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            c.task.name(),
            c.level.as_str(),
            c.method.name(),
            pct(c.duplicates, c.episodes),
            pct(c.successes, c.episodes),
            c.unknown
        );
    }
    out
}

/// A hand-written SVG bar chart: duplicate rate per level, one panel per task, one bar per
/// method (no dependency).
pub fn render_levels_svg(cells: &[LevelCell]) -> String {
    const W: u32 = 860;
    const H: u32 = 360;
    const PANEL_W: u32 = 400;
    const TOP: u32 = 60;
    const PLOT_H: u32 = 220;
    const COLORS: [&str; 3] = ["#d62728", "#ff7f0e", "#2ca02c"];
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(s, r##"<rect width="{W}" height="{H}" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">Duplicate actions by fault level (idemcheck simulator)</text>"##,
        W / 2
    );
    for (pi, task) in Task::ALL.iter().enumerate() {
        let x0 = 40 + pi as u32 * (PANEL_W + 20);
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"##,
            x0 + PANEL_W / 2,
            TOP - 12,
            task.name()
        );
        for tick in [0u32, 25, 50, 75, 100] {
            let y = TOP + PLOT_H - PLOT_H * tick / 100;
            let _ = writeln!(
                s,
                r##"<line x1="{x0}" y1="{y}" x2="{}" y2="{y}" stroke="#dddddd"/><text x="{}" y="{}" text-anchor="end" fill="#555555">{tick}%</text>"##,
                x0 + PANEL_W,
                x0 - 4,
                y + 4
            );
        }
        let group_w = PANEL_W / 3;
        for (li, level) in FaultLevel::ALL.iter().enumerate() {
            let gx = x0 + li as u32 * group_w;
            for (mi, method) in Method::ALL.iter().enumerate() {
                let Some(c) = cells
                    .iter()
                    .find(|c| c.task == *task && c.level == *level && c.method == *method)
                else {
                    continue;
                };
                let rate = c.duplicate_rate();
                let h = (f64::from(PLOT_H) * rate / 100.0).round() as u32;
                let bx = gx + 14 + mi as u32 * 34;
                let by = TOP + PLOT_H - h;
                let _ = writeln!(
                    s,
                    r##"<rect x="{bx}" y="{by}" width="30" height="{h}" fill="{}"><title>{} {} {}: {}/{} duplicates</title></rect>"##,
                    COLORS[mi],
                    task.name(),
                    level.as_str(),
                    method.name(),
                    c.duplicates,
                    c.episodes
                );
                let _ = writeln!(
                    s,
                    r##"<text x="{}" y="{}" text-anchor="middle" font-size="10">{:.0}</text>"##,
                    bx + 15,
                    by.saturating_sub(3),
                    rate
                );
            }
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="middle">{}</text>"##,
                gx + group_w / 2,
                TOP + PLOT_H + 16,
                level.as_str()
            );
        }
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>"##,
            TOP + PLOT_H,
            x0 + PANEL_W,
            TOP + PLOT_H
        );
    }
    for (mi, method) in Method::ALL.iter().enumerate() {
        let lx = 200 + mi as u32 * 170;
        let _ = writeln!(
            s,
            r##"<rect x="{lx}" y="{}" width="14" height="14" fill="{}"/><text x="{}" y="{}">{}</text>"##,
            H - 34,
            COLORS[mi],
            lx + 20,
            H - 22,
            method.name()
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Unused-import guard for `Timestamp` in some cfgs.
#[allow(dead_code)]
fn _ts(t: Timestamp) -> u64 {
    t.0
}
