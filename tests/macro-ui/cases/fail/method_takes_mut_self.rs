use idemcheck::{side_effect, Context, ContextProvider};

#[derive(Clone, serde::Serialize)]
pub struct TicketArgs {
    pub reference: String,
}

pub struct Desk {
    ctx: Context,
    open: Vec<String>,
}

impl ContextProvider for Desk {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

impl Desk {
    #[side_effect(key = [reference], verify = find, max_retries = 0)]
    pub async fn open_ticket(&mut self, args: TicketArgs) -> Result<usize, String> {
        self.open.push(args.reference);
        Ok(self.open.len())
    }

    async fn find(&self, args: &TicketArgs) -> Result<Option<usize>, String> {
        Ok(self.open.iter().position(|r| *r == args.reference))
    }
}

fn main() {}
