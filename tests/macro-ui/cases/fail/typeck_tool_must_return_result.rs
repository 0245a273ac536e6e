use idemcheck::side_effect;

#[derive(Clone, serde::Serialize)]
pub struct Args {
    pub to: String,
}

pub async fn find(_args: &Args) -> Result<Option<String>, String> {
    Ok(None)
}

#[side_effect(key = [to], verify = find, max_retries = 0)]
pub async fn notify(args: Args) -> String {
    args.to
}

fn main() {}
