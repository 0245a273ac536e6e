use idemcheck::side_effect;

/// A handle that cannot be turned into JSON.
#[derive(Clone)]
pub struct Cursor(std::rc::Rc<u8>);

#[derive(Clone, serde::Serialize)]
pub struct Args {
    pub order_id: String,
}

pub async fn find(_cursor: &Cursor, _args: &Args) -> Result<Option<String>, String> {
    Ok(None)
}

#[side_effect(key = [cursor, args.order_id], verify = find, max_retries = 0)]
pub async fn place(cursor: Cursor, args: Args) -> Result<String, String> {
    let _ = cursor;
    Ok(args.order_id)
}

fn main() {}
