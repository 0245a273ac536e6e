//! Without a read an interrupted call is never retried: a cap above zero contradicts
//! `verify = none` unless the API deduplicates on the key (`server_dedup = true`).

use idemcheck::side_effect;

pub struct Smtp;

#[side_effect(key = [reference], verify = none, max_retries = 2, settle_ms = 30_000)]
pub async fn send_mail(smtp: &Smtp, reference: String, body: String) -> Result<String, String> {
    let _ = (smtp, reference, body);
    Ok(String::new())
}

fn main() {}
