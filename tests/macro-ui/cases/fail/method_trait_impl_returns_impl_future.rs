//! A trait-impl method written as `fn call(..) -> impl Future`, as the trait declares it: the
//! guard needs `async fn`, and the error says the impl may use one.
use idemcheck::{side_effect, Context, ContextProvider};

pub trait Tool {
    type Args;
    fn call(&self, args: Self::Args) -> impl std::future::Future<Output = Result<String, String>> + Send;
}

#[derive(Clone, serde::Serialize)]
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
    async fn find(&self, _args: &InvoiceArgs) -> Result<Option<String>, String> {
        Ok(None)
    }
}

impl Tool for SendInvoice {
    type Args = InvoiceArgs;

    #[side_effect(key = [order_id], verify = find, max_retries = 1, timeout_ms = 1_000, settle_ms = 1_000)]
    fn call(&self, args: Self::Args) -> impl std::future::Future<Output = Result<String, String>> + Send {
        async move { Ok(args.order_id) }
    }
}

fn main() {}
