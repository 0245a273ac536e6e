//! Tools with `#[side_effect]` contracts: the lint must agree with the macro.

use idemcheck::side_effect;

pub mod billing;

pub struct Mailer {
    http: reqwest::Client,
}

#[derive(serde::Serialize)]
pub struct WelcomeArgs {
    pub customer_id: String,
}

/// Complete contract: no findings.
#[side_effect(key = [customer_id], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
pub async fn send_welcome(mail: &Mailer, args: WelcomeArgs) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/send").json(&args).send().await?.text().await
}

pub async fn find_welcome(mail: &Mailer, args: &WelcomeArgs) -> Result<Option<String>, reqwest::Error> {
    let r = mail
        .http
        .get(format!("https://mail.example/sent?customer={}", args.customer_id))
        .send()
        .await?;
    Ok(Some(r.text().await?))
}

/// Missing verify and cap: IDEM002, IDEM003.
#[side_effect(key = [customer_id])]
pub async fn send_reminder(mail: &Mailer, args: WelcomeArgs) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/remind").json(&args).send().await?.text().await
}

/// Malformed: a typo in a key (IDEM011) with a suggestion.
#[side_effect(key = [customer_id], verfy = find_welcome, max_retries = 1)]
pub async fn send_survey(mail: &Mailer, args: WelcomeArgs) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/survey").json(&args).send().await?.text().await
}

/// Cap too high (IDEM005) and no settle window (IDEM009).
#[side_effect(key = [customer_id], verify = find_welcome, max_retries = 3)]
pub async fn send_digest(mail: &Mailer, args: WelcomeArgs) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/digest").json(&args).send().await?.text().await
}

/// A read tool needs no contract.
#[side_effect(kind = "read")]
pub async fn count_sent(mail: &Mailer) -> Result<String, reqwest::Error> {
    mail.http.get("https://mail.example/count").send().await?.text().await
}

/// Suppressed (with a reason) and an unused suppression (IDEM010).
#[side_effect(
    key = [customer_id],
    verify = find_welcome,
    max_retries = 1,
    allow(unbounded_in_flight, reason = "the provider dedupes on the message id"),
    allow(missing_key, reason = "left over from before the key existed")
)]
pub async fn send_receipt(mail: &Mailer, args: WelcomeArgs) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/receipt").json(&args).send().await?.text().await
}

/// `allow` without a reason is malformed (IDEM011).
#[side_effect(key = [customer_id], verify = find_welcome, max_retries = 0, allow(missing_verify))]
pub async fn send_notice(mail: &Mailer, args: WelcomeArgs) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/notice").json(&args).send().await?.text().await
}

/// Through `cfg_attr` and a full path; the model supplies the key (IDEM004).
#[cfg_attr(feature = "guard", idemcheck::side_effect(key = [request_id], verify = find_welcome, max_retries = 0))]
pub async fn send_alert(mail: &Mailer, request_id: String, text: String) -> Result<String, reqwest::Error> {
    mail.http.post("https://mail.example/alert").json(&(request_id, text)).send().await?.text().await
}
