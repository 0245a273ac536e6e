use idemcheck::{side_effect, Context, ContextProvider};

#[derive(Clone, serde::Serialize)]
pub struct TicketArgs {
    pub reference: String,
}

pub struct Desk {
    ctx: Context,
}

impl ContextProvider for Desk {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl Desk {
    #[side_effect(key = [reference], verify = find, max_retries = 0)]
    pub fn open_ticket(&self, args: TicketArgs) -> Result<usize, String> {
        Ok(args.reference.len())
    }

    async fn find(&self, args: &TicketArgs) -> Result<Option<usize>, String> {
        Ok(Some(args.reference.len()))
    }
}

fn main() {}
