//! The same IDEM009 warning on rig's shape of `Tool::call`, under `#![deny(warnings)]`: the
//! deprecation warning (now an error) and nothing else — no `E0438` from a constant the macro
//! would have put in the trait impl.
#![deny(warnings)]

use idemcheck::{side_effect, Context, ContextProvider};

pub struct ToolContext;

pub trait Tool {
    const NAME: &'static str;
    type Args;
    fn call(
        &self,
        context: &mut ToolContext,
        args: Self::Args,
    ) -> impl std::future::Future<Output = Result<String, String>> + Send;
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct VoidArgs {
    pub order_id: String,
}

pub struct VoidInvoice {
    ctx: Context,
}

impl ContextProvider for VoidInvoice {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl VoidInvoice {
    async fn find(&self, _context: &ToolContext, _args: &VoidArgs) -> Result<Option<String>, String> {
        Ok(None)
    }
}

impl Tool for VoidInvoice {
    const NAME: &'static str = "void_invoice";
    type Args = VoidArgs;

    #[side_effect(key = [order_id], verify = find, max_retries = 1)]
    async fn call(&self, _context: &mut ToolContext, args: Self::Args) -> Result<String, String> {
        Ok(format!("voided {}", args.order_id))
    }
}

fn main() {}
