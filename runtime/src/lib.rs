//! # idemcheck
//!
//! Make AI-agent write tools safe to retry. A timeout is not a failure: when a tool that
//! charges a card times out, the charge may already have happened. `#[side_effect]` gives
//! the tool a **contract** — a stable key derived from the logical operation, a
//! postcondition read that asks the system of record "did it happen?", and a retry cap —
//! and this runtime enforces it: a two-phase ledger, verify before any retry, the same key
//! on every attempt, and an honest [`Outcome`]: completed, not completed, or unknown.
//!
//! ```
//! use idemcheck::{side_effect, Context, MemoryLedger, Outcome, Scope, VirtualClock};
//! use std::sync::{Arc, Mutex};
//!
//! #[derive(Default)]
//! pub struct Billing { charges: Mutex<Vec<(String, u64)>> }
//!
//! #[derive(Clone, serde::Serialize)]
//! pub struct ChargeArgs { customer: String, order_id: String, amount_cents: u64 }
//!
//! #[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
//! async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<String, String> {
//!     let mut charges = billing.charges.lock().unwrap();
//!     charges.push((args.order_id.clone(), args.amount_cents));
//!     Ok(format!("ch_{}", charges.len()))
//! }
//!
//! async fn find_charge(billing: &Billing, args: &ChargeArgs) -> Result<Option<String>, String> {
//!     let charges = billing.charges.lock().unwrap();
//!     Ok(charges.iter().position(|c| c.0 == args.order_id).map(|i| format!("ch_{}", i + 1)))
//! }
//!
//! let clock = Arc::new(VirtualClock::new());
//! let ctx = Context::with_clock(MemoryLedger::with_clock(clock.clone()), clock.clone(), Scope::run("task-42"));
//! let billing = Billing::default();
//! let args = ChargeArgs { customer: "acme".into(), order_id: "o-1".into(), amount_cents: 4900 };
//! clock.block_on(async {
//!     let first = create_charge::call(&ctx, &billing, args.clone()).await;
//!     let again = create_charge::call(&ctx, &billing, args.clone()).await; // the agent retries
//!     assert_eq!(first, Outcome::Completed("ch_1".to_string()));
//!     assert_eq!(again, Outcome::Completed("ch_1".to_string()));       // replayed, not re-run
//! });
//! assert_eq!(billing.charges.lock().unwrap().len(), 1);
//! ```

mod adapt;
pub mod clock;
pub mod context;
pub mod contract;
pub mod executor;
mod finish;
pub mod key;
pub mod ledger;
pub mod outcome;
#[cfg(feature = "sim")]
pub mod sim;

#[cfg(feature = "tokio")]
pub use clock::SystemClock;
pub use clock::{Clock, Timestamp, VirtualClock};
pub use context::{
    Context, ContextProvider, Escalations, KeyContext, META_RUN, META_STEP, RequestScope,
    current_key, scope_from_meta,
};
pub use contract::{Contract, GuardedTool, KeySpec, StaticSuppression, ToolKind};
pub use idemcheck_macros::side_effect;
pub use key::{Fingerprint, Key, KeyError, Scope};
#[cfg(feature = "postgres")]
pub use ledger::PostgresLedger;
#[cfg(feature = "sqlite")]
pub use ledger::SqliteLedger;
pub use ledger::{Ledger, LedgerAdmin, LedgerError, MemoryLedger};
pub use outcome::{
    Answer, AttemptError, Classify, ErrorClass, Escalation, Failure, Feedback, KeyWords,
    NotCompleted, Outcome, Postcondition, Unknown,
};

/// Support for the code `#[side_effect]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::adapt::{
        Answering, ClassOf, ClassViaClassify, Classed, EscalateTo, EscalateViaFrom, NotAToolResult,
        OutputSchema, SchemaAsIs, SchemaFromResult, ToolResultOf, answer, classed,
        jsonrpc_error_class, map_done, map_ok, scope_from_json, unclassed,
    };
    pub use crate::context::{Context, ContextProvider, KeyContext, RequestScope};
    pub use crate::contract::{Contract, GuardedTool, KeySpec, StaticSuppression, ToolKind};
    pub use crate::executor::{run, run_with};
    pub use crate::finish::{
        CodecFor, CodecViaSerde, CodecViaText, Finish, FinishAsError, Lend, Lent, attempt,
    };
    pub use crate::key::Material;
    pub use crate::outcome::{ErrorClass, Escalation, Outcome};
    pub use ::core;
    pub use ::serde_json;

    /// The `Ok` and `Err` types of a tool's declared return type.
    #[diagnostic::on_unimplemented(
        message = "a `#[side_effect]` tool must return `Result<T, E>`, found `{Self}`",
        label = "this return type"
    )]
    pub trait ToolResult {
        /// The success type.
        type Ok;
        /// The error type.
        type Err;
    }

    impl<T, E> ToolResult for ::core::result::Result<T, E> {
        type Ok = T;
        type Err = E;
    }

    /// What a postcondition returns, checked where the contract names it (`verify = path`),
    /// so a mismatch is reported there in the contract's words, not inside the executor.
    #[diagnostic::on_unimplemented(
        message = "the postcondition returns `{Self}`, but this tool's postcondition must return `Result<Option<{T}>, _>`",
        label = "the postcondition named here must return `Result<Option<{T}>, E>` with `E: Display`",
        note = "`Ok(Some(result))`: it happened, and `result` is what the tool itself returns on success (`{T}`; for an rmcp `#[tool]` method, the `CallToolResult` it answers with); `Ok(None)`: it did not happen; `Err(..)`: cannot tell"
    )]
    pub trait PostconditionOutput<T> {
        /// As the executor takes it: "cannot tell" as its message.
        fn into_result(
            self,
        ) -> ::core::result::Result<::core::option::Option<T>, ::std::string::String>;
    }

    impl<T, VE: ::core::fmt::Display> PostconditionOutput<T>
        for ::core::result::Result<::core::option::Option<T>, VE>
    {
        fn into_result(
            self,
        ) -> ::core::result::Result<::core::option::Option<T>, ::std::string::String> {
            self.map_err(|e| e.to_string())
        }
    }

    /// The postcondition's answer, its type checked against the tool's success type `T` here,
    /// once: the future it returns asks nothing more of that type, so a mismatch is one error
    /// at `verify = path`, not a second one wherever the future is awaited.
    pub fn postcondition<T, F>(future: F) -> Postcondition<F, T>
    where
        F: ::core::future::Future,
        F::Output: PostconditionOutput<T>,
    {
        Postcondition {
            future: ::std::boxed::Box::pin(future),
            convert: <F::Output as PostconditionOutput<T>>::into_result,
        }
    }

    /// The future [`postcondition`] returns: the postcondition's own future, its answer
    /// converted as the executor takes it.
    pub struct Postcondition<F: ::core::future::Future, T> {
        future: ::core::pin::Pin<::std::boxed::Box<F>>,
        convert: fn(
            F::Output,
        )
            -> ::core::result::Result<::core::option::Option<T>, ::std::string::String>,
    }

    impl<F: ::core::future::Future, T> ::core::future::Future for Postcondition<F, T> {
        type Output = ::core::result::Result<::core::option::Option<T>, ::std::string::String>;

        fn poll(
            self: ::core::pin::Pin<&mut Self>,
            cx: &mut ::core::task::Context<'_>,
        ) -> ::core::task::Poll<Self::Output> {
            let this = self.get_mut();
            this.future.as_mut().poll(cx).map(this.convert)
        }
    }

    /// `<R as ToolResult>::Ok`.
    pub type OkOf<R> = <R as ToolResult>::Ok;
    /// `<R as ToolResult>::Err`.
    pub type ErrOf<R> = <R as ToolResult>::Err;
}
