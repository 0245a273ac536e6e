//! Where a guarded call gets its ledger, clock, scope and owner identity.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::clock::Clock;
use crate::key::{Key, Scope};
use crate::ledger::{Ledger, Resolution, StoredFailure};

/// How long a call waits, by default, for another owner's lease on the same operation to
/// run out before answering [`crate::Outcome::Unknown`] with
/// [`crate::Postcondition::InFlightElsewhere`] (who holds it, until when, how long this call
/// waited, and what the postcondition answered). While it waits, the call polls the record
/// every tenth of the lease (at least 100 ms), so it returns soon after the other call
/// resolves. Set per context with [`Context::with_max_wait`]; docs/contract.md, "Right answers
/// when something else fails".
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(30);

/// Everything a guarded call needs besides its arguments. Cheap to clone.
///
/// The agent harness that owns a run builds one per run (and narrows it per step with
/// [`Context::step`]); the scope is part of every key and never comes from the model.
#[derive(Clone)]
pub struct Context {
    ledger: Arc<dyn Ledger>,
    clock: Arc<dyn Clock>,
    scope: Scope,
    owner: Arc<str>,
    max_wait: Duration,
    escalations: Escalations,
    redaction: Option<Redaction>,
}

/// A user's redaction of the error texts a [`Context`] writes to its ledger.
type Redaction = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// How a guarded method whose success type is a tool result the model reads (rmcp's
/// `CallToolResult`) answers an outcome that is not completed: a divergent payload, a replayed
/// definite failure, the retry cap reached, a ledger failure, or Unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Escalations {
    /// The default: a tool result with `isError: true` whose text says what happened and what
    /// to do, and whose `_meta` carries the same data as JSON (`{"idemcheck": {..}}`; not its
    /// structured content, which a declared output schema describes). MCP clients show such
    /// results to the model, which can act on them; the tool's own errors still pass through
    /// unchanged.
    #[default]
    ToolResults,
    /// The opt-out: `Err(E::from(Escalation))`, which for rmcp's `ErrorData` is a JSON-RPC
    /// internal error with the same data (an MCP client may not show it to the model).
    Errors,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("scope", &self.scope)
            .field("owner", &self.owner)
            .field("max_wait", &self.max_wait)
            .field("escalations", &self.escalations)
            .field("redaction", &self.redaction.as_ref().map(|_| "custom"))
            .finish_non_exhaustive()
    }
}

fn default_owner() -> Arc<str> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "pid{}-{nanos:x}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
    .into()
}

impl Context {
    /// A context on the system clock for the run `scope`.
    #[cfg(feature = "tokio")]
    pub fn new(ledger: impl Ledger, scope: Scope) -> Context {
        Context::with_clock(ledger, Arc::new(crate::clock::SystemClock::new()), scope)
    }

    /// A context reading time from `clock`.
    pub fn with_clock(ledger: impl Ledger, clock: Arc<dyn Clock>, scope: Scope) -> Context {
        Context {
            ledger: Arc::new(ledger),
            clock,
            scope,
            owner: default_owner(),
            max_wait: DEFAULT_MAX_WAIT,
            escalations: Escalations::default(),
            redaction: None,
        }
    }

    /// The same run, narrowed to a step.
    pub fn step(&self, step: impl Into<String>) -> Context {
        Context {
            scope: self.scope.step(step),
            ..self.clone()
        }
    }

    /// The same context for another scope.
    pub fn with_scope(&self, scope: Scope) -> Context {
        Context {
            scope,
            ..self.clone()
        }
    }

    /// Set the owner identity written into ledger records (default: process id and a
    /// counter). Workers of a fleet should use a stable, unique name.
    pub fn with_owner(mut self, owner: impl Into<String>) -> Context {
        self.owner = owner.into().into();
        self
    }

    /// Set how long a call waits for another owner's lease before answering Unknown
    /// (default [`DEFAULT_MAX_WAIT`], 30 s). A server answering an interactive client may want
    /// less; a batch worker may wait the whole lease ([`crate::Contract::lease`]).
    pub fn with_max_wait(mut self, max_wait: Duration) -> Context {
        self.max_wait = max_wait;
        self
    }

    /// Choose how a guarded method returning a tool result (rmcp's `CallToolResult`) answers
    /// an outcome that is not completed: as an `isError` result (the default) or as an error
    /// value ([`Escalations::Errors`], the opt-out).
    pub fn with_escalations(mut self, escalations: Escalations) -> Context {
        self.escalations = escalations;
        self
    }

    /// Pass every error text this context writes to its ledger through `redact` first: the
    /// message of a definite failure ([`StoredFailure::message`]), every string value of its
    /// stored error value ([`StoredFailure::value`]; member names are kept, so the value still
    /// reads back as the tool's error type unless `redact` changes an enum tag), and the note
    /// of an Unknown. Results (`Committed`) are not passed through it — mark secret parts of
    /// a result [`Secret`](crate::ledger::Secret). The caller that saw the failure still gets
    /// the error unredacted; later calls replay the redacted text. Default: none (stored as
    /// is).
    ///
    /// [`StoredFailure::message`]: crate::ledger::StoredFailure::message
    /// [`StoredFailure::value`]: crate::ledger::StoredFailure::value
    pub fn with_redaction(
        mut self,
        redact: impl Fn(&str) -> String + Send + Sync + 'static,
    ) -> Context {
        self.redaction = Some(Arc::new(redact));
        self
    }

    /// `resolution` as the ledger must store it: its error texts through the redaction hook
    /// ([`Context::with_redaction`]); unchanged without one, and for results.
    pub(crate) fn redacted(&self, resolution: Resolution) -> Resolution {
        let Some(redact) = &self.redaction else {
            return resolution;
        };
        match resolution {
            Resolution::Failed { error } => Resolution::Failed {
                error: StoredFailure {
                    message: redact(&error.message),
                    value: error.value.map(|v| redact_strings(v, &**redact)),
                },
            },
            Resolution::Unknown { note } => Resolution::Unknown {
                note: redact(&note),
            },
            committed @ Resolution::Committed { .. } => committed,
        }
    }

    /// How non-completed outcomes of tool-result methods are answered.
    pub fn escalations(&self) -> Escalations {
        self.escalations
    }

    /// The ledger.
    pub fn ledger(&self) -> &dyn Ledger {
        &*self.ledger
    }

    /// The clock.
    pub fn clock(&self) -> &dyn Clock {
        &*self.clock
    }

    /// The scope.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The owner identity.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The longest wait for another owner's lease.
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }
}

/// What a `key_fn` may read besides the tool's arguments, handed to it as its first
/// argument when the contract declares `key_context = [..]`:
///
/// ```text
/// #[side_effect(key_fn = digest_key, key_context = [scope], verify = find_digest, max_retries = 1)]
/// async fn send_digest(mail: &Mail, args: DigestArgs) -> Result<MessageId, MailError> { .. }
///
/// fn digest_key(ctx: &idemcheck::KeyContext, args: &DigestArgs) -> (String, String) {
///     (ctx.scope().run.clone(), args.customer.clone())
/// }
/// ```
///
/// The run scope is always there: it is the same for every retry, restart and worker of an
/// operation (and already part of every key). The clock ([`KeyContext::now`]) and the
/// worker's identity ([`KeyContext::worker`]) answer only when the contract declares them
/// (`key_context = [clock]`, `[worker]`) — and then `IDEM004` refuses the contract unless a
/// reason allows it: a key read from the clock changes when a repeated call crosses a
/// minute, an hour or midnight, and one read from the worker changes with a restart or a
/// second worker (the simulator's `clock_phase`, `crash` and `concurrent_callers` classes
/// show both). Undeclared, they answer `None`: a key cannot read them by accident.
#[derive(Debug, Clone, Copy)]
pub struct KeyContext<'a> {
    ctx: &'a Context,
    clock: bool,
    worker: bool,
}

impl<'a> KeyContext<'a> {
    /// The context a `key_fn` of a contract declaring `reads` (`scope`, `clock`, `worker`)
    /// sees.
    pub fn new(ctx: &'a Context, reads: &[&str]) -> KeyContext<'a> {
        KeyContext {
            ctx,
            clock: reads.contains(&"clock"),
            worker: reads.contains(&"worker"),
        }
    }

    /// The run (and step) the call belongs to.
    pub fn scope(&self) -> &'a Scope {
        &self.ctx.scope
    }

    /// The clock's time now, if the contract declares `clock`.
    pub fn now(&self) -> Option<crate::clock::Timestamp> {
        self.clock.then(|| self.ctx.clock.now())
    }

    /// The worker's identity ([`Context::owner`]), if the contract declares `worker`.
    pub fn worker(&self) -> Option<&'a str> {
        self.worker.then_some(&*self.ctx.owner)
    }
}

/// Implemented once by a server type whose tool methods keep a signature a framework fixes
/// (rmcp `#[tool]` methods, rig `Tool::call`): `#[side_effect]` on such a method gets its
/// [`Context`] from `self`.
pub trait ContextProvider {
    /// The context for the call being made (scope included).
    fn idemcheck_context(&self) -> Context;
}

/// `_meta` key an MCP client (the agent harness, never the model) sets to the run id.
pub const META_RUN: &str = "dev.idemcheck/run";
/// `_meta` key for the step id within the run.
pub const META_STEP: &str = "dev.idemcheck/step";

/// A request object that may carry the run scope (an MCP request's `_meta`).
///
/// When a guarded method takes a parameter whose type is named `RequestContext`,
/// `RequestMetaObject` or `Meta` (rmcp's extractors), `#[side_effect]` asks it for the scope:
/// a request that carries one ([`META_RUN`], optionally [`META_STEP`]) is keyed under that
/// run; otherwise the server's default scope from [`ContextProvider`] applies. In a crate
/// that depends on rmcp the expansion reads rmcp's own types itself (their `_meta` as JSON,
/// whatever the rmcp version); this trait is for a crate's own request type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a request context, and `#[side_effect]` reads the run scope from it",
    note = "rmcp's `RequestContext`, `RequestMetaObject` and `Meta` are read when the crate depends on `rmcp` directly; for your own type, implement `idemcheck::RequestScope`"
)]
pub trait RequestScope {
    /// The scope this request carries, if any.
    fn request_scope(&self) -> Option<Scope>;
}

/// Read [`META_RUN`] / [`META_STEP`] from a JSON object (an MCP `_meta`).
pub fn scope_from_meta(meta: &serde_json::Map<String, serde_json::Value>) -> Option<Scope> {
    let run = meta.get(META_RUN)?.as_str()?;
    if run.is_empty() {
        return None;
    }
    let step = meta
        .get(META_STEP)
        .and_then(|s| s.as_str())
        .map(str::to_string);
    Some(Scope {
        run: run.to_string(),
        step,
    })
}

thread_local! {
    static CURRENT_KEY: std::cell::RefCell<Option<Key>> = const { std::cell::RefCell::new(None) };
}

/// The idempotency key of the guarded call being executed, inside a tool's body and inside
/// its postcondition: pass it to a downstream API that deduplicates on it
/// (`server_dedup = true`), e.g. as Stripe's `Idempotency-Key` header, and look the effect
/// up by it in the postcondition (a search on the key the request carried). `None` outside
/// a guarded call.
pub fn current_key() -> Option<Key> {
    CURRENT_KEY.with(|k| k.borrow().clone())
}

struct KeyGuard(Option<Key>);

impl KeyGuard {
    fn set(key: &Key) -> KeyGuard {
        KeyGuard(CURRENT_KEY.with(|k| k.borrow_mut().replace(key.clone())))
    }
}

impl Drop for KeyGuard {
    fn drop(&mut self) {
        let prev = self.0.take();
        CURRENT_KEY.with(|k| *k.borrow_mut() = prev);
    }
}

/// Run `fut` with [`current_key`] answering `key` whenever it is polled (on any thread).
pub(crate) async fn with_current_key<F: std::future::Future>(key: &Key, fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(|cx| {
        let _guard = KeyGuard::set(key);
        fut.as_mut().poll(cx)
    })
    .await
}

/// Every string value in `value` through `redact` (member names kept).
fn redact_strings(
    value: serde_json::Value,
    redact: &(dyn Fn(&str) -> String + Send + Sync),
) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(text) => Value::String(redact(&text)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| redact_strings(v, redact))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, redact_strings(v, redact)))
                .collect(),
        ),
        other => other,
    }
}
