use idemcheck::{KeyContext, side_effect};

#[derive(Clone, serde::Serialize)]
pub struct DigestArgs {
    pub customer: String,
}

pub struct Mail;

fn daily_key(ctx: &KeyContext, args: &DigestArgs) -> (String, Option<u64>) {
    (args.customer.clone(), ctx.now().map(|t| t.0 / 86_400_000))
}

async fn find_digest(_mail: &Mail, _args: &DigestArgs) -> Result<Option<u64>, String> {
    Ok(None)
}

#[side_effect(key_fn = daily_key, key_context = [clock], verify = find_digest, max_retries = 0)]
pub async fn send_digest(mail: &Mail, args: DigestArgs) -> Result<u64, String> {
    let _ = (mail, args);
    Ok(1)
}

fn main() {}
