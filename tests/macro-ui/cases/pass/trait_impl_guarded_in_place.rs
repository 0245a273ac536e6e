//! `#[side_effect]` on a trait-impl method, rig's shape (`Tool::call` with associated types and
//! a `&mut` context lent by the caller), under `#![deny(warnings)]`: the macro adds nothing to
//! the trait impl, `?` in the body converts as in the method, the future is `Send`, and the
//! tool's identity (in its key) is the trait's `NAME`, not `call`.
#![deny(warnings)]

use idemcheck::{side_effect, Context, ContextProvider};

pub struct ToolContext {
    pub calls: u32,
}

pub trait Tool {
    const NAME: &'static str;
    type Args;
    type Output;
    type Error;
    fn call(
        &self,
        context: &mut ToolContext,
        args: Self::Args,
    ) -> impl std::future::Future<Output = Result<Self::Output, Self::Error>> + Send;
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct InvoiceArgs {
    pub order_id: String,
}

pub struct SendInvoice {
    ctx: Context,
}

impl ContextProvider for SendInvoice {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl SendInvoice {
    async fn find(&self, _context: &ToolContext, _args: &InvoiceArgs) -> Result<Option<String>, String> {
        Ok(None)
    }
}

fn parse(order: &str) -> Result<u32, std::num::ParseIntError> {
    order.trim_start_matches("o-").parse()
}

impl Tool for SendInvoice {
    const NAME: &'static str = "send_invoice";
    type Args = InvoiceArgs;
    type Output = String;
    type Error = String;

    #[side_effect(key = [order_id], verify = find, max_retries = 1, timeout_ms = 1_000, settle_ms = 1_000)]
    async fn call(&self, context: &mut ToolContext, args: Self::Args) -> Result<String, String> {
        context.calls += 1;
        let n = parse(&args.order_id).map_err(|e| e.to_string())?;
        Ok(format!("invoice {n} (call {})", context.calls))
    }
}

fn assert_send<T: Send>(_: &T) {}

fn main() {
    let clock = idemcheck::VirtualClock::new();
    let ledger = idemcheck::MemoryLedger::with_clock(std::sync::Arc::new(clock.clone()));
    let ctx = Context::with_clock(ledger, std::sync::Arc::new(clock.clone()), idemcheck::Scope::run("r"));
    let tool = SendInvoice { ctx };
    let mut context = ToolContext { calls: 0 };
    let args = InvoiceArgs { order_id: "o-7".into() };
    let fut = Tool::call(&tool, &mut context, args.clone());
    assert_send(&fut);
    let first = clock.block_on(fut).expect("virtual time only");
    assert_eq!(first, Ok("invoice 7 (call 1)".to_string()));
    // Replayed from the ledger: the body does not run again.
    let again = clock.block_on(Tool::call(&tool, &mut context, args)).expect("virtual time only");
    assert_eq!(again, first);
    assert_eq!(context.calls, 1);
}
