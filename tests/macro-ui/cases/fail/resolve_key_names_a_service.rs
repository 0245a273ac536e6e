use idemcheck::side_effect;

pub struct Mailer;

pub async fn find_sent(_mail: &Mailer, _to: &String, _body: &String) -> Result<Option<String>, String> {
    Ok(None)
}

#[side_effect(key = [mail], verify = find_sent, max_retries = 0)]
pub async fn send(mail: &Mailer, to: String, body: String) -> Result<String, String> {
    let _ = (mail, to, body);
    Ok(String::new())
}

fn main() {}
