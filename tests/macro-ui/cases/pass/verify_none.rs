//! A system that cannot be read back (an SMTP send): `verify = none` is a declared choice.
//! IDEM002 does not fire; the contract says it has no postcondition.

use idemcheck::side_effect;

#[derive(Clone, serde::Serialize)]
pub struct MailArgs {
    pub reference: String,
    pub to: String,
    pub body: String,
}

pub struct Smtp;

#[side_effect(key = [reference, to], verify = none, max_retries = 0, timeout_ms = 30_000)]
pub async fn send_mail(smtp: &Smtp, args: MailArgs) -> Result<String, String> {
    let _ = (smtp, args);
    Ok(String::new())
}

/// With an API that deduplicates on the key, retries are allowed.
#[side_effect(key = [reference], verify = none, max_retries = 1, settle_ms = 30_000, server_dedup = true)]
pub async fn post_webhook(smtp: &Smtp, reference: String) -> Result<String, String> {
    let _ = (smtp, reference);
    Ok(String::new())
}

fn main() {
    const C: idemcheck::Contract = send_mail::CONTRACT;
    assert!(C.no_postcondition);
    assert!(C.verify.is_none());
    assert_eq!(C.chosen_key_fields, &["reference"]);
    assert!(post_webhook::CONTRACT.no_postcondition && post_webhook::CONTRACT.server_dedup);
}
