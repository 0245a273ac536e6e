//! What a call told the agent: the harness judges every call by its answer, whether it is the
//! typed [`Outcome`] of a free function's generated `call`, or the framework's own return
//! value of a method guarded in place (an rmcp `#[tool]` method's
//! `Result<CallToolResult, _>`, a rig `Tool::call`'s `Result<Output, Error>`), read back the
//! way the agent reads it.

use serde::Serialize;
use serde_json::Value;

use super::*;

/// What one call told the agent, as the harness judges it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    /// `completed`, `not_completed` or `unknown`.
    pub status: &'static str,
    /// The guard's reason word (`divergent`, `not_done`, `replayed_failure`, `ledger`,
    /// `key`, `unknown`; `tool_error` for the tool's own error) when the answer says it.
    pub reason: Option<String>,
    /// What the answer said besides its status (empty for completed).
    pub detail: String,
}

impl Told {
    /// A completed answer.
    pub fn completed() -> Told {
        Told {
            status: "completed",
            reason: None,
            detail: String::new(),
        }
    }

    /// Whether the call was refused because its key was stored with other arguments.
    pub fn is_divergent(&self) -> bool {
        self.reason.as_deref() == Some("divergent")
    }
}

/// The answer of a call under proof: what [`Proof`]'s `call` hook returns. Implemented for
///
/// - [`Outcome`], the answer of a free function's generated `my_tool::call`;
/// - `Result<R, E>`, the answer of a method guarded in place, read as the agent reads it
///   (see [`in_place`]): `Ok` is completed unless the value's JSON form is an error result
///   (`"isError": true`, as rmcp's `CallToolResult`); the guard's refusals and Unknowns are
///   recognised by their `{"idemcheck": {status, reason, detail, ..}}` details — in the
///   result's `_meta` or its `structuredContent`, or in an error's text (rmcp's `ErrorData`
///   shows its `data`) — or by the text of an [`Escalation`] (an error type wrapping it with
///   `#[error(transparent)]` shows that text); any other error, and an error result without
///   the guard's details, is the tool's own error: not completed.
#[diagnostic::on_unimplemented(
    message = "the fault simulator cannot read `{Self}` as a call's answer",
    label = "the `call` hook of a `Proof` returns this",
    note = "return an `Outcome` (a free function's `my_tool::call`) or a `Result<T, E>` with `T: serde::Serialize` and `E: Display` (a method guarded in place: `idemcheck::sim::in_place`)"
)]
pub trait CallAnswer {
    /// What the call told the agent; `contract` is the proof's.
    fn told(&self, contract: &Contract) -> Told;
}

impl<T, E: Display> CallAnswer for Outcome<T, E> {
    fn told(&self, contract: &Contract) -> Told {
        match self {
            Outcome::Completed(_) => Told::completed(),
            other => {
                let esc = Escalation::of(contract.name, other);
                Told {
                    status: other.status(),
                    reason: Some(esc.reason.to_string()),
                    detail: esc.detail,
                }
            }
        }
    }
}

impl<R: Serialize, E: Display> CallAnswer for Result<R, E> {
    #[track_caller]
    fn told(&self, contract: &Contract) -> Told {
        match self {
            Ok(value) => {
                let json = serde_json::to_value(value).unwrap_or_else(|e| {
                    panic!(
                        "idemcheck::sim: the answer of `{}` cannot be read: its success value does not serialise to JSON ({e}); the harness reads a method's result in its JSON form",
                        contract.name
                    )
                });
                told_by_result(&json, contract)
            }
            Err(error) => told_by_error(&error.to_string(), contract),
        }
    }
}

/// A successful return value, in its JSON form.
fn told_by_result(json: &Value, contract: &Contract) -> Told {
    let is_error = json.get("isError").and_then(Value::as_bool) == Some(true);
    if let Some(details) = guard_details(json) {
        return told_by_details(details, contract);
    }
    if !is_error {
        return Told::completed();
    }
    // The tool's own error result: what the agent reads is its text.
    let text: Vec<&str> = json
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    Told {
        status: "not_completed",
        reason: Some("tool_error".into()),
        detail: if text.is_empty() {
            "an error result (isError) without text".into()
        } else {
            text.join("; ")
        },
    }
}

/// The guard's `{"idemcheck": {..}}` details in a result: in its `_meta` (under `idemcheck`,
/// or a namespaced key naming idemcheck) or in its `structuredContent`.
fn guard_details(json: &Value) -> Option<&serde_json::Map<String, Value>> {
    for place in ["_meta", "structuredContent"] {
        let Some(obj) = json.get(place).and_then(Value::as_object) else {
            continue;
        };
        if let Some(d) = obj.get("idemcheck").and_then(Value::as_object) {
            return Some(d);
        }
        for (name, value) in obj {
            if !name.contains("idemcheck") {
                continue;
            }
            let value = value.get("idemcheck").unwrap_or(value);
            if let Some(d) = value.as_object().filter(|d| d.contains_key("status")) {
                return Some(d);
            }
        }
    }
    None
}

/// The guard's details, checked: they name the proof's tool and a status the guard gives.
#[track_caller]
fn told_by_details(details: &serde_json::Map<String, Value>, contract: &Contract) -> Told {
    let text = |field: &str| details.get(field).and_then(Value::as_str);
    if let Some(tool) = text("tool")
        && tool != contract.name
    {
        panic!(
            "idemcheck::sim: the answer came from the guard of `{tool}`, but the proof's contract is `{}`: give `Proof::contract` the contract of the method the `call` hook calls",
            contract.name
        );
    }
    let status = match text("status") {
        // Details on a completed answer (a replay, say) change nothing.
        Some("completed") => return Told::completed(),
        Some("not_completed") => "not_completed",
        Some("unknown") => "unknown",
        other => panic!(
            "idemcheck::sim: the answer of `{}` carries the guard's details with status {other:?}, expected \"completed\", \"not_completed\" or \"unknown\": {}",
            contract.name,
            Value::Object(details.clone())
        ),
    };
    Told {
        status,
        reason: text("reason").map(str::to_string),
        detail: text("detail").unwrap_or_default().to_string(),
    }
}

/// An error, by its text: the guard's JSON details in it, or an [`Escalation`]'s own text;
/// else the tool's own error.
fn told_by_error(text: &str, contract: &Contract) -> Told {
    let mut from = 0;
    while let Some(at) = text[from..].find("{\"idemcheck\"") {
        let start = from + at;
        if let Some(Ok(Value::Object(outer))) = serde_json::Deserializer::from_str(&text[start..])
            .into_iter::<Value>()
            .next()
            && let Some(details) = outer.get("idemcheck").and_then(Value::as_object)
        {
            return told_by_details(details, contract);
        }
        from = start + 1;
    }
    // `Escalation`'s Display: "{tool}: {status}: {detail} (idempotency key {key})".
    for status in ["not_completed", "unknown"] {
        let head = format!("{}: {status}: ", contract.name);
        if let Some(at) = text.find(&head) {
            let rest = &text[at + head.len()..];
            let detail = rest
                .rfind(" (idempotency key ")
                .map_or(rest, |end| &rest[..end]);
            let reason = if status == "unknown" {
                Some("unknown".to_string())
            } else if detail == DIVERGENT {
                Some("divergent".to_string())
            } else {
                None
            };
            return Told {
                status,
                reason,
                detail: detail.to_string(),
            };
        }
    }
    Told {
        status: "not_completed",
        reason: Some("tool_error".into()),
        detail: text.to_string(),
    }
}

/// The detail of a divergent refusal ([`crate::outcome::Failure::Divergent`]'s text; a test
/// keeps them equal).
const DIVERGENT: &str = "idempotency key reused with different parameters";

/// The `call` hook of a [`Proof`] for a method guarded in place: `#[side_effect(..)]` on an
/// rmcp `#[tool]` method in a `#[tool_router]` impl, or on any method of an inherent impl
/// whose `Self` implements [`ContextProvider`](crate::ContextProvider) (its contract is
/// `Self::<NAME>_CONTRACT`).
///
/// - `server(ctx, &world)` builds the server (or tool) of a simulated process: from the
///   episode's world — the system of record its method writes to and its postcondition
///   reads, e.g. the `Arc<dyn Mailer>` or the client it holds — and from `ctx`, that
///   process's context, which its `ContextProvider` must return (its ledger, clock, scope and
///   owner are the harness's: a server built with a context of its own is not under proof);
/// - `method(&server, args)` calls the guarded method with episode arguments (for rmcp,
///   `server.send_receipt(Parameters(args)).await`).
///
/// Each simulated process builds its server at its first call and keeps it for its later
/// calls; a process restarted after a crash, or a second worker, builds its own. (Whatever
/// must outlive a process belongs in the world, as it lives in a database in production.)
/// What the method returns is read as the agent reads it ([`CallAnswer`] for `Result`): the
/// proof needs no mapping of outcomes by hand, and also checks the conversion of the guard's
/// answers into the method's return type. For [`Proof::prove`], which runs on several
/// threads, the server must be `Send + Sync` (rmcp servers are).
///
/// ```text
/// Proof {
///     contract: MailServer::<SimMail>::SEND_RECEIPT_CONTRACT,
///     world: |net: &Net| Arc::new(SimMail(net.clone())),
///     intent: receipt,
///     call: in_place(
///         |ctx, mail: &Arc<SimMail>| MailServer::new(mail.clone(), ctx),
///         async |server: &MailServer<SimMail>, mail| server.send_receipt(Parameters(mail)).await,
///     ),
///     effects: |mail: &Arc<SimMail>, r: &Receipt| mail.sent(r),
/// }
/// .prove();
/// ```
pub fn in_place<W, A, S, R>(
    server: impl Fn(Context, &W) -> S,
    method: impl AsyncFn(&S, A) -> R,
) -> impl AsyncFn(&Context, &W, A) -> R {
    let servers = Servers::default();
    async move |ctx: &Context, world: &W, args: A| {
        let server = servers.get_or_build(ctx, || server(ctx.clone(), world));
        method(&server, args).await
    }
}

/// The servers of the latest simulated processes, per thread running episodes.
///
/// A process is known by its ledger: each simulated process's [`Context`] has its own, and an
/// entry keeps that context, so the ledger's address is not reused while the entry lives. A thread runs one episode at a time, whose processes are a few: the latest
/// [`Servers::PER_THREAD`] are kept (an evicted process would build a new server).
struct Servers<S> {
    kept: std::sync::Mutex<Vec<Kept<S>>>,
}

/// A kept server: the thread and process it serves, the process's context (which keeps its
/// ledger, and so the process's identity, alive), the server.
struct Kept<S> {
    thread: std::thread::ThreadId,
    process: usize,
    _ctx: Context,
    server: Arc<S>,
}

impl<S> Default for Servers<S> {
    fn default() -> Self {
        Servers {
            kept: std::sync::Mutex::new(Vec::new()),
        }
    }
}

impl<S> Servers<S> {
    const PER_THREAD: usize = 16;

    fn get_or_build(&self, ctx: &Context, build: impl FnOnce() -> S) -> Arc<S> {
        let thread = std::thread::current().id();
        let process = ctx.ledger() as *const dyn crate::ledger::Ledger as *const () as usize;
        let lock = || self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = lock()
            .iter()
            .find(|k| k.thread == thread && k.process == process)
        {
            return k.server.clone();
        }
        let built = Arc::new(build());
        let mut kept = lock();
        if kept.iter().filter(|k| k.thread == thread).count() >= Self::PER_THREAD
            && let Some(oldest) = kept.iter().position(|k| k.thread == thread)
        {
            kept.remove(oldest);
        }
        kept.push(Kept {
            thread,
            process,
            _ctx: ctx.clone(),
            server: built.clone(),
        });
        built
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::KeySpec;
    use crate::key::{Fingerprint, Key};
    use crate::outcome::{Failure, NotCompleted, Postcondition, Unknown};
    use crate::sim::billing::write_contract;

    const CONTRACT: Contract = write_contract(
        "send_receipt",
        KeySpec::Fields(&["reference"]),
        Some("find_receipt"),
        1,
        Some(10_000),
        false,
    );

    fn divergent() -> Outcome<u64, String> {
        Outcome::NotCompleted(NotCompleted {
            key: None,
            attempts: 0,
            reason: Failure::Divergent {
                stored: Fingerprint::from_stored("a"),
                given: Fingerprint::from_stored("b"),
            },
        })
    }

    fn unknown() -> Outcome<u64, String> {
        Outcome::Unknown(Unknown {
            key: Key::from_stored("k"),
            attempts: 1,
            last_error: None,
            postcondition: Postcondition::CannotTell("503".into()),
        })
    }

    fn not_done() -> Outcome<u64, String> {
        Outcome::NotCompleted(NotCompleted {
            key: Some(Key::from_stored("k")),
            attempts: 2,
            reason: Failure::NotDone {
                last_error: crate::outcome::AttemptError::TimedOut {
                    after: std::time::Duration::from_secs(1),
                },
            },
        })
    }

    /// An rmcp error result as the guard builds it, in its JSON form, with the details at
    /// `place` (`structuredContent` today, `_meta` after the move).
    fn error_result(outcome: &Outcome<u64, String>, place: &str) -> Value {
        let esc = Escalation::for_contract(&CONTRACT, outcome);
        serde_json::json!({
            "content": [{ "type": "text", "text": esc.advice() }],
            "isError": true,
            place: esc.to_json(),
        })
    }

    #[test]
    fn the_typed_outcome_is_told_as_it_is() {
        let c = &CONTRACT;
        assert_eq!(
            Outcome::<u64, String>::Completed(1).told(c),
            Told::completed()
        );
        let d = divergent().told(c);
        assert_eq!((d.status, d.is_divergent()), ("not_completed", true));
        assert_eq!(
            d.detail, DIVERGENT,
            "DIVERGENT is Failure::Divergent's text"
        );
        assert_eq!(unknown().told(c).status, "unknown");
    }

    /// Every answer the guard gives reads the same from a result's `_meta`, its
    /// `structuredContent`, an error's JSON `data`, and an `Escalation`'s own text.
    #[test]
    fn a_method_result_is_read_as_the_agent_reads_it() {
        let c = &CONTRACT;
        for outcome in [divergent(), unknown(), not_done()] {
            let want = outcome.told(c);
            for place in ["_meta", "structuredContent"] {
                let json = error_result(&outcome, place);
                assert_eq!(told_by_result(&json, c), want, "{place}: {json}");
            }
            // A namespaced `_meta` key.
            let esc = Escalation::for_contract(c, &outcome);
            let json = serde_json::json!({ "isError": true, "_meta": { "dev.idemcheck/escalation": esc.to_json()["idemcheck"] } });
            assert_eq!(told_by_result(&json, c), want);
            // rmcp's `ErrorData` shows "{code}: {message}({data})"; a transparent wrapper
            // shows the escalation's text.
            let error_data = format!("-32603: {esc}({})", esc.to_json());
            let r: Result<u64, String> = Err(error_data);
            assert_eq!(r.told(c), want);
            let told = told_by_error(&esc.to_string(), c);
            assert_eq!(
                (told.status, told.detail.as_str()),
                (want.status, want.detail.as_str())
            );
            assert_eq!(told.is_divergent(), want.is_divergent());
        }
        // Completed, and the tool's own error result and error.
        let replay = serde_json::json!({ "_meta": { "idemcheck": { "tool": "send_receipt", "status": "completed" } } });
        assert_eq!(told_by_result(&replay, c), Told::completed());
        let ok: Result<Value, String> =
            Ok(serde_json::json!({ "content": [], "structuredContent": { "id": 7 } }));
        assert_eq!(ok.told(c), Told::completed());
        let own = serde_json::json!({ "content": [{ "type": "text", "text": "mailbox full" }], "isError": true });
        let told = told_by_result(&own, c);
        assert_eq!(
            (told.status, told.detail.as_str()),
            ("not_completed", "mailbox full")
        );
        let r: Result<u64, String> = Err("smtp: 550 rejected".into());
        assert_eq!(r.told(c).reason.as_deref(), Some("tool_error"));
    }

    #[test]
    #[should_panic(
        expected = "the answer came from the guard of `other_tool`, but the proof's contract is `send_receipt`"
    )]
    fn an_answer_of_another_tool_is_an_error() {
        let other = Contract {
            name: "other_tool",
            ..CONTRACT
        };
        let json = error_result(&unknown(), "_meta");
        let esc = Escalation::for_contract(&other, &unknown());
        let mut json = json;
        json["_meta"] = esc.to_json();
        told_by_result(&json, &CONTRACT);
    }

    /// A simulated process builds its server once; another process builds its own.
    #[test]
    fn a_process_keeps_its_server() {
        let servers = Servers::<u32>::default();
        let built = std::cell::Cell::new(0);
        let build = |n: u32| {
            built.set(built.get() + 1);
            n
        };
        let p1 = Context::new(MemoryLedger::new(), Scope::run("r"));
        let p2 = Context::new(MemoryLedger::new(), Scope::run("r"));
        assert_eq!(*servers.get_or_build(&p1, || build(1)), 1);
        assert_eq!(*servers.get_or_build(&p1.clone(), || build(9)), 1);
        assert_eq!(*servers.get_or_build(&p2, || build(2)), 2);
        assert_eq!(built.get(), 2);
        for _ in 0..2 * Servers::<u32>::PER_THREAD {
            let p = Context::new(MemoryLedger::new(), Scope::run("r"));
            servers.get_or_build(&p, || build(0));
        }
        let kept = servers.kept.lock().unwrap().len();
        assert_eq!(
            kept,
            Servers::<u32>::PER_THREAD,
            "the latest processes only"
        );
    }
}
