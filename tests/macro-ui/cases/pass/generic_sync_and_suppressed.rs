//! Generic tools, sync tools, `key_fn`, and a suppressed rule.
#![deny(warnings)]

use idemcheck::{Outcome, side_effect};
use std::sync::Mutex;

pub trait Store: Send + Sync {
    fn put(&self, k: &str) -> usize;
    fn has(&self, k: &str) -> Option<usize>;
}

#[derive(Default)]
pub struct Mem(Mutex<Vec<String>>);

impl Store for Mem {
    fn put(&self, k: &str) -> usize {
        let mut v = self.0.lock().unwrap();
        v.push(k.to_string());
        v.len()
    }
    fn has(&self, k: &str) -> Option<usize> {
        self.0.lock().unwrap().iter().position(|x| x == k).map(|i| i + 1)
    }
}

#[derive(Clone, serde::Serialize)]
pub struct PutArgs {
    pub bucket: String,
    pub name: String,
}

fn object_key(args: &PutArgs) -> String {
    format!("{}/{}", args.bucket, args.name)
}

fn find_object<S: Store>(store: &S, args: &PutArgs) -> Result<Option<usize>, String> {
    Ok(store.has(&object_key(args)))
}

/// A sync, generic tool with a key function.
#[side_effect(key_fn = object_key, verify = find_object, max_retries = 0)]
pub fn put_object<S: Store>(store: &S, args: PutArgs) -> Result<usize, String> {
    Ok(store.put(&object_key(&args)))
}

/// No read API exists: the postcondition is suppressed with a reason.
#[side_effect(key = [name], max_retries = 0, allow(missing_verify, reason = "the audit log has no read API"))]
pub async fn append_audit(store: &Mem, name: String) -> Result<usize, String> {
    Ok(store.put(&name))
}

fn main() {
    let clock = idemcheck::VirtualClock::new();
    let ledger = idemcheck::MemoryLedger::with_clock(std::sync::Arc::new(clock.clone()));
    let ctx = idemcheck::Context::with_clock(ledger, std::sync::Arc::new(clock.clone()), idemcheck::Scope::run("r"));
    let store = Mem::default();
    let args = PutArgs { bucket: "b".into(), name: "n".into() };
    assert_eq!(clock.block_on(put_object::call(&ctx, &store, args.clone())), Some(Outcome::Completed(1)));
    assert_eq!(clock.block_on(put_object::call(&ctx, &store, args)), Some(Outcome::Completed(1)));
    assert_eq!(clock.block_on(append_audit::call(&ctx, &store, "x".into())), Some(Outcome::Completed(2)));
    assert_eq!(append_audit::CONTRACT.suppressions[0].reason, "the audit log has no read API");
}
