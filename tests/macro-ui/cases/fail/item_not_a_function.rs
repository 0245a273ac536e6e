use idemcheck::side_effect;

#[side_effect(key = [id], verify = find, max_retries = 0)]
pub struct CreateCharge {
    pub id: String,
}

fn main() {}
