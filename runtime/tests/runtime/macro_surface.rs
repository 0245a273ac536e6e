//! What `#[side_effect]` generates: the contract as data, free functions (async and
//! sync), `key_fn`, reads, methods guarded in place (the rmcp shape), destructured
//! parameters.

use std::sync::{Arc, Mutex};

use idemcheck::{
    Context, Contract, GuardedTool, KeySpec, MemoryLedger, Outcome, Scope, ToolKind, VirtualClock,
    side_effect,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TicketArgs {
    pub desk: String,
    pub reference: String,
    pub title: String,
}

#[derive(Default)]
pub(crate) struct Desk {
    tickets: Mutex<Vec<TicketArgs>>,
}

fn ctx(clock: &VirtualClock) -> Context {
    Context::with_clock(
        MemoryLedger::with_clock(Arc::new(clock.clone())),
        Arc::new(clock.clone()),
        Scope::run("r"),
    )
}

/// Open a ticket (sync tool: sync postcondition).
#[side_effect(name = "open_ticket", key = [desk, reference], verify = find_ticket, max_retries = 0)]
pub(crate) fn open_ticket_sync(desk: &Desk, args: TicketArgs) -> Result<usize, String> {
    let mut t = desk.tickets.lock().unwrap();
    t.push(args);
    Ok(t.len())
}

pub(crate) fn find_ticket(desk: &Desk, args: &TicketArgs) -> Result<Option<usize>, String> {
    Ok(desk
        .tickets
        .lock()
        .unwrap()
        .iter()
        .position(|t| t.reference == args.reference)
        .map(|i| i + 1))
}

#[test]
fn contract_is_data() {
    let c: Contract = open_ticket_sync::CONTRACT;
    assert_eq!(c, <open_ticket_sync as GuardedTool>::CONTRACT);
    assert_eq!(c.name, "open_ticket");
    assert_eq!(c.function, "runtime::macro_surface::open_ticket_sync");
    assert_eq!(c.kind, ToolKind::Write);
    assert_eq!(c.key, KeySpec::Fields(&["desk", "reference"]));
    assert_eq!(c.verify, Some("find_ticket"));
    assert_eq!(c.max_retries, Some(0));
    assert_eq!(c.ttl_hours, 24);
    let json = serde_json::to_value(c.to_spec()).unwrap();
    assert_eq!(
        json["key"],
        serde_json::json!({"kind": "fields", "fields": ["desk", "reference"]})
    );
}

#[test]
fn sync_tools_are_guarded_too() {
    let clock = VirtualClock::new();
    let ctx = ctx(&clock);
    let desk = Desk::default();
    let a = TicketArgs {
        desk: "it".into(),
        reference: "INC-1".into(),
        title: "printer".into(),
    };
    assert_eq!(
        clock.block_on(open_ticket_sync::call(&ctx, &desk, a.clone())),
        Some(Outcome::Completed(1))
    );
    assert_eq!(
        clock.block_on(open_ticket_sync::call(&ctx, &desk, a)),
        Some(Outcome::Completed(1))
    );
    assert_eq!(desk.tickets.lock().unwrap().len(), 1);
    // The raw function stays callable.
    let b = TicketArgs {
        desk: "it".into(),
        reference: "INC-2".into(),
        title: "x".into(),
    };
    assert_eq!(open_ticket_sync(&desk, b), Ok(2));
}

fn ticket_key(args: &TicketArgs) -> (String, String) {
    (args.desk.clone(), args.reference.to_lowercase())
}

#[side_effect(key_fn = ticket_key, verify = find_ticket_async, max_retries = 0)]
async fn open_ticket_keyed(desk: &Desk, args: TicketArgs) -> Result<usize, String> {
    let mut t = desk.tickets.lock().unwrap();
    t.push(args);
    Ok(t.len())
}

async fn find_ticket_async(desk: &Desk, args: &TicketArgs) -> Result<Option<usize>, String> {
    find_ticket(desk, args)
}

#[test]
fn key_fn_derives_the_key() {
    let clock = VirtualClock::new();
    let ctx = ctx(&clock);
    let desk = Desk::default();
    let a = TicketArgs {
        desk: "it".into(),
        reference: "INC-1".into(),
        title: "printer".into(),
    };
    let mut b = a.clone();
    b.reference = "inc-1".into();
    assert_eq!(
        clock.block_on(open_ticket_keyed::call(&ctx, &desk, a)),
        Some(Outcome::Completed(1))
    );
    // Same key (the key function lowercases), other arguments: refused as divergent.
    let out = clock
        .block_on(open_ticket_keyed::call(&ctx, &desk, b))
        .unwrap();
    assert!(
        matches!(out, Outcome::NotCompleted(ref n) if matches!(n.reason, idemcheck::Failure::Divergent { .. })),
        "{out:?}"
    );
    assert_eq!(
        open_ticket_keyed::CONTRACT.key,
        KeySpec::Function("ticket_key")
    );
}

#[side_effect(kind = "read")]
async fn list_tickets(desk: &Desk) -> Result<usize, String> {
    Ok(desk.tickets.lock().unwrap().len())
}

#[test]
fn read_tools_bypass_the_ledger() {
    let clock = VirtualClock::new();
    let ledger = MemoryLedger::with_clock(Arc::new(clock.clone()));
    let ctx = Context::with_clock(ledger.clone(), Arc::new(clock.clone()), Scope::run("r"));
    let desk = Desk::default();
    assert_eq!(
        clock.block_on(list_tickets::call(&ctx, &desk)),
        Some(Outcome::Completed(0))
    );
    assert!(ledger.snapshot().is_empty());
    assert_eq!(list_tickets::CONTRACT.kind, ToolKind::Read);
}

// ----------------------------------------------------------- methods, rmcp-shaped

/// rmcp's `Parameters<T>` wrapper, as a local stand-in with the same shape.
#[derive(Debug, Clone)]
pub(crate) struct Parameters<T>(pub T);

pub(crate) struct TicketServer {
    ctx: Context,
    desk: Desk,
}

impl idemcheck::ContextProvider for TicketServer {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl TicketServer {
    /// Open a ticket; the signature stays what the framework expects.
    #[side_effect(key = [desk, reference], verify = find, max_retries = 0)]
    pub(crate) async fn open(
        &self,
        Parameters(args): Parameters<TicketArgs>,
    ) -> Result<String, String> {
        let mut t = self.desk.tickets.lock().unwrap();
        t.push(args);
        Ok(format!("T-{}", t.len()))
    }

    async fn find(&self, params: &Parameters<TicketArgs>) -> Result<Option<String>, String> {
        Ok(find_ticket(&self.desk, &params.0)?.map(|i| format!("T-{i}")))
    }

    #[side_effect(key = [args.reference], verify = Self::find, max_retries = 0)]
    pub(crate) async fn open_wrapped(
        &self,
        args: Parameters<TicketArgs>,
    ) -> Result<String, String> {
        self.open_unguarded(args).await
    }

    #[side_effect(key = [reference], verify = find_always_unknown, max_retries = 0)]
    pub(crate) async fn open_lost(&self, _args: Parameters<TicketArgs>) -> Result<String, String> {
        Err("gateway timeout".into())
    }

    async fn find_always_unknown(
        &self,
        _p: &Parameters<TicketArgs>,
    ) -> Result<Option<String>, String> {
        Err("search index unavailable".into())
    }
}

#[test]
fn methods_are_guarded_in_place_with_the_same_signature() {
    let clock = VirtualClock::new();
    let server = TicketServer {
        ctx: ctx(&clock),
        desk: Desk::default(),
    };
    let a = TicketArgs {
        desk: "it".into(),
        reference: "INC-7".into(),
        title: "vpn".into(),
    };
    let first = clock.block_on(server.open(Parameters(a.clone()))).unwrap();
    let again = clock.block_on(server.open(Parameters(a.clone()))).unwrap();
    assert_eq!(first, Ok("T-1".to_string()));
    assert_eq!(again, first);
    assert_eq!(server.desk.tickets.lock().unwrap().len(), 1);
    assert_eq!(TicketServer::OPEN_CONTRACT.name, "open");
    assert_eq!(
        TicketServer::OPEN_WRAPPED_CONTRACT.verify,
        Some("Self::find")
    );
    // Another field path through the wrapper type: same operation, different tool name.
    assert_eq!(
        clock.block_on(server.open_wrapped(Parameters(a))).unwrap(),
        Ok("T-2".to_string())
    );
}

#[test]
fn methods_report_unknown_through_the_error_type() {
    let clock = VirtualClock::new();
    let server = TicketServer {
        ctx: ctx(&clock),
        desk: Desk::default(),
    };
    let a = TicketArgs {
        desk: "it".into(),
        reference: "INC-8".into(),
        title: "vpn".into(),
    };
    let err = clock
        .block_on(server.open_lost(Parameters(a)))
        .unwrap()
        .unwrap_err();
    assert!(err.starts_with("open_lost: unknown: last error: gateway timeout; postcondition cannot tell: search index unavailable"), "{err}");
}

/// A definite failure of an error type that can be stored (`Serialize + Deserialize`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
pub(crate) enum PayError {
    /// The payment does not exist: nothing happened.
    #[error("payment {0} not found")]
    NotFound(String),
}

impl idemcheck::Classify for PayError {
    fn class(&self) -> idemcheck::ErrorClass {
        idemcheck::ErrorClass::Definite
    }
}

/// The same failure, of a type that cannot be stored.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("payment {0} not found")]
pub(crate) struct OpaqueError(String);

impl idemcheck::Classify for OpaqueError {
    fn class(&self) -> idemcheck::ErrorClass {
        idemcheck::ErrorClass::Definite
    }
}

#[side_effect(key = [payment_id], verify = no_capture, max_retries = 0)]
async fn capture(calls: &Mutex<u32>, payment_id: String) -> Result<String, PayError> {
    *calls.lock().unwrap() += 1;
    Err(PayError::NotFound(payment_id))
}

async fn no_capture(_calls: &Mutex<u32>, _payment_id: &String) -> Result<Option<String>, PayError> {
    Ok(None)
}

#[side_effect(key = [payment_id], verify = no_capture_opaque, max_retries = 0)]
async fn capture_opaque(calls: &Mutex<u32>, payment_id: String) -> Result<String, OpaqueError> {
    *calls.lock().unwrap() += 1;
    Err(OpaqueError(payment_id))
}

async fn no_capture_opaque(
    _calls: &Mutex<u32>,
    _payment_id: &String,
) -> Result<Option<String>, OpaqueError> {
    Ok(None)
}

#[test]
fn a_replayed_failure_keeps_the_error_type_when_it_can_be_stored() {
    use idemcheck::{Failure, NotCompleted};
    let clock = VirtualClock::new();
    let ctx = ctx(&clock);
    let calls = Mutex::new(0);
    let first = clock
        .block_on(capture::call(&ctx, &calls, "pay_404".into()))
        .unwrap();
    let again = clock
        .block_on(capture::call(&ctx, &calls, "pay_404".into()))
        .unwrap();
    let not_found = PayError::NotFound("pay_404".into());
    assert!(
        matches!(&first, Outcome::NotCompleted(NotCompleted { reason: Failure::Tool(e), attempts: 1, .. }) if *e == not_found),
        "{first:?}"
    );
    // Replayed, not run again, and of the tool's own error type.
    assert!(
        matches!(&again, Outcome::NotCompleted(NotCompleted { reason: Failure::Tool(e), attempts: 0, .. }) if *e == not_found),
        "{again:?}"
    );
    assert_eq!(*calls.lock().unwrap(), 1);

    // An error type that cannot be stored is replayed as its text.
    let again = {
        let first = clock
            .block_on(capture_opaque::call(&ctx, &calls, "pay_405".into()))
            .unwrap();
        assert!(
            matches!(first, Outcome::NotCompleted(_)),
            "the first call fails definitely: {first:?}"
        );
        clock
            .block_on(capture_opaque::call(&ctx, &calls, "pay_405".into()))
            .unwrap()
    };
    assert!(
        matches!(&again, Outcome::NotCompleted(NotCompleted { reason: Failure::Replayed(s), attempts: 0, .. }) if s.message == "payment pay_405 not found" && s.value.is_none()),
        "{again:?}"
    );
    assert_eq!(*calls.lock().unwrap(), 2);
}
