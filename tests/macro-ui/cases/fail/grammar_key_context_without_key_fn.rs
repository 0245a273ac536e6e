use idemcheck::side_effect;

#[derive(Clone, serde::Serialize)]
pub struct DigestArgs {
    pub customer: String,
}

pub struct Mail;

async fn find_digest(_mail: &Mail, _args: &DigestArgs) -> Result<Option<u64>, String> {
    Ok(None)
}

#[side_effect(key = [customer], key_context = [scope], verify = find_digest, max_retries = 0)]
pub async fn send_digest(mail: &Mail, args: DigestArgs) -> Result<u64, String> {
    let _ = (mail, args);
    Ok(1)
}

fn main() {}
