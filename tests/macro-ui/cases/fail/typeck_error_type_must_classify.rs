use idemcheck::side_effect;

#[derive(Clone, serde::Serialize)]
pub struct Args {
    pub to: String,
}

#[derive(Debug)]
pub struct SmtpError;

impl std::fmt::Display for SmtpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("smtp error")
    }
}

pub async fn find(_args: &Args) -> Result<Option<String>, SmtpError> {
    Ok(None)
}

#[side_effect(key = [to], verify = find, max_retries = 0)]
pub async fn notify(args: Args) -> Result<String, SmtpError> {
    Ok(args.to)
}

fn main() {}
