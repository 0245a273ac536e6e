//! Key derivation: canonical JSON, the idempotency [`Key`] and the argument
//! [`Fingerprint`].
//!
//! `key = SHA-256(canonical_json([run, step, tool, key_fields]))` in lowercase hex (64
//! characters, well under Stripe's 255). `fingerprint = SHA-256(canonical_json(all inputs))`.
//! Canonical JSON sorts object keys (by code point) at every depth, writes no whitespace,
//! and formats numbers as `serde_json` does (integers exactly, floats shortest round-trip),
//! so it does not depend on field order or on `serde_json`'s `preserve_order` feature.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The run (and optionally step) a call belongs to. Part of every key, so two runs that
/// charge the same customer the same amount are never merged. Never comes from the model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Scope {
    /// Run or task id, assigned by the agent harness.
    pub run: String,
    /// Optional step id within the run.
    pub step: Option<String>,
}

impl Scope {
    /// A run scope.
    pub fn run(run: impl Into<String>) -> Self {
        Scope {
            run: run.into(),
            step: None,
        }
    }

    /// The same run, narrowed to a step.
    pub fn step(&self, step: impl Into<String>) -> Self {
        Scope {
            run: self.run.clone(),
            step: Some(step.into()),
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.step {
            Some(step) => write!(f, "{}/{}", self.run, step),
            None => f.write_str(&self.run),
        }
    }
}

/// A stable idempotency key: 64 lowercase hex characters. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(Arc<str>);

/// A digest of all of a call's inputs, to tell a replay from a divergent payload.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(Arc<str>);

macro_rules! hex_newtype {
    ($t:ident) => {
        impl $t {
            /// The hex text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Wrap a stored value (as read back from a ledger).
            pub fn from_stored(text: impl Into<String>) -> Self {
                $t(Arc::from(text.into()))
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d).map($t::from_stored)
            }
        }
    };
}
hex_newtype!(Key);
hex_newtype!(Fingerprint);

/// Arguments that could not be turned into JSON for the key or the fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot serialise `{field}` for the idempotency key: {message}")]
pub struct KeyError {
    /// The field or parameter.
    pub field: String,
    /// What serde said.
    pub message: String,
}

/// Write `value` as canonical JSON.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::with_capacity(64);
    write_canonical(value, &mut out);
    String::from_utf8(out).expect("JSON text is UTF-8")
}

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            // `serde_json::Map` iterates in key order unless some crate in the build turns on
            // `preserve_order`: the entries are sorted only when they are not.
            write_object(map.iter().map(|(k, v)| (k.as_str(), v)).collect(), out);
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(v, out);
            }
            out.push(b']');
        }
        // serde_json escapes strings exactly as JSON requires and formats numbers
        // canonically (integers exactly, floats shortest round-trip).
        other => serde_json::to_writer(&mut *out, other).expect("writing to a Vec cannot fail"),
    }
}

/// The canonical JSON of an object given as entries in any order (what a `serde_json::Map`
/// built with `preserve_order` iterates). Duplicate keys keep the last value, as JSON parsers
/// do.
pub fn canonical_object<'a>(entries: impl IntoIterator<Item = (&'a str, &'a Value)>) -> String {
    let mut out = Vec::with_capacity(64);
    write_object(entries.into_iter().collect(), &mut out);
    String::from_utf8(out).expect("JSON text is UTF-8")
}

/// Entries sorted by key (only when they are not already: a stable sort, keeping the last of
/// equal keys), written as a JSON object.
fn write_object(mut entries: Vec<(&str, &Value)>, out: &mut Vec<u8>) {
    if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let mut kept: Vec<(&str, &Value)> = Vec::with_capacity(entries.len());
        for e in entries {
            match kept.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => kept.push(e),
            }
        }
        entries = kept;
    }
    out.push(b'{');
    write_entries(entries.into_iter(), out);
    out.push(b'}');
}

fn write_entries<'a>(entries: impl Iterator<Item = (&'a str, &'a Value)>, out: &mut Vec<u8>) {
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(k, out);
        out.push(b':');
        write_canonical(v, out);
    }
}

fn write_string(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    out
}

/// Named JSON values (key fields, or all inputs) collected in a sorted map.
#[derive(Debug, Clone, Default)]
pub struct Material {
    fields: BTreeMap<&'static str, Value>,
    error: Option<KeyError>,
}

impl Material {
    /// An empty set.
    pub fn new() -> Self {
        Material::default()
    }

    /// Add a named value. A value that cannot be serialised is remembered as the error.
    pub fn field<T: Serialize + ?Sized>(mut self, name: &'static str, value: &T) -> Self {
        if self.error.is_none() {
            match serde_json::to_value(value) {
                Ok(v) => {
                    self.fields.insert(name, v);
                }
                Err(e) => {
                    self.error = Some(KeyError {
                        field: name.to_string(),
                        message: e.to_string(),
                    })
                }
            }
        }
        self
    }

    /// Use the whole value returned by a `key_fn`.
    pub fn whole<T: Serialize + ?Sized>(value: &T) -> Self {
        Material::new().field("", value)
    }

    /// The canonical JSON of the collected values.
    pub fn canonical(&self) -> Result<String, KeyError> {
        let mut out = Vec::with_capacity(128);
        self.write_canonical(&mut out)?;
        Ok(String::from_utf8(out).expect("JSON text is UTF-8"))
    }

    fn write_canonical(&self, out: &mut Vec<u8>) -> Result<(), KeyError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.fields.len() == 1
            && let Some(whole) = self.fields.get("")
        {
            write_canonical(whole, out);
            return Ok(());
        }
        out.push(b'{');
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_string(k, out);
            out.push(b':');
            write_canonical(v, out);
        }
        out.push(b'}');
        Ok(())
    }
}

impl Key {
    /// Derive the key of one logical operation: SHA-256 of the canonical JSON array
    /// `[run, step or null, tool, {key fields}]`.
    pub fn derive(scope: &Scope, tool: &str, key_fields: &Material) -> Result<Key, KeyError> {
        let mut text = Vec::with_capacity(160);
        Key::write_prefix(scope, tool, &mut text);
        key_fields.write_canonical(&mut text)?;
        text.push(b']');
        Ok(Key(Arc::from(sha256_hex(&text))))
    }

    /// Derive the key from the canonical JSON of the key fields.
    pub fn from_canonical(scope: &Scope, tool: &str, canonical_fields: &str) -> Key {
        let mut text = Vec::with_capacity(canonical_fields.len() + 64);
        Key::write_prefix(scope, tool, &mut text);
        text.extend_from_slice(canonical_fields.as_bytes());
        text.push(b']');
        Key(Arc::from(sha256_hex(&text)))
    }

    fn write_prefix(scope: &Scope, tool: &str, text: &mut Vec<u8>) {
        text.push(b'[');
        write_string(&scope.run, text);
        text.push(b',');
        match &scope.step {
            Some(step) => write_string(step, text),
            None => text.extend_from_slice(b"null"),
        }
        text.push(b',');
        write_string(tool, text);
        text.push(b',');
    }
}

impl Fingerprint {
    /// Fingerprint all inputs of a call.
    pub fn of(inputs: &Material) -> Result<Fingerprint, KeyError> {
        let mut text = Vec::with_capacity(128);
        inputs.write_canonical(&mut text)?;
        Ok(Fingerprint(Arc::from(sha256_hex(&text))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let a = json!({"b": 1, "a": {"d": [1, {"z": 0, "y": 1}], "c": "x"}});
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"c":"x","d":[1,{"y":1,"z":0}]},"b":1}"#
        );
    }

    #[test]
    fn numbers_and_strings_are_stable() {
        assert_eq!(
            canonical_json(&json!([1.0, 0.1, -0, 1e21, "é\n\""])),
            r#"[1.0,0.1,0,1e+21,"é\n\""]"#
        );
    }

    #[test]
    fn key_is_64_hex_and_depends_on_scope_tool_and_fields() {
        let scope = Scope::run("task-42");
        let m = Material::new()
            .field("customer", "acme")
            .field("amount", &4900);
        let k = Key::derive(&scope, "create_charge", &m).unwrap();
        assert_eq!(k.as_str().len(), 64);
        assert!(
            k.as_str()
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_ne!(
            k,
            Key::derive(&Scope::run("task-43"), "create_charge", &m).unwrap()
        );
        assert_ne!(
            k,
            Key::derive(&scope.step("s1"), "create_charge", &m).unwrap()
        );
        assert_ne!(k, Key::derive(&scope, "refund", &m).unwrap());
        // Golden value: keys must not change across versions and platforms. Cross-checked
        // independently: python3 -c 'import hashlib; print(hashlib.sha256(
        //   b"[\"task-42\",null,\"create_charge\",{\"amount\":4900,\"customer\":\"acme\"}]").hexdigest())'
        assert_eq!(
            k.as_str(),
            Key::from_canonical(
                &scope,
                "create_charge",
                r#"{"amount":4900,"customer":"acme"}"#
            )
            .as_str()
        );
        assert_eq!(
            k.as_str(),
            "8399d4b6b86f2af09085ba450c1883f20e3dcf2630c73e76a429b45b47316548"
        );
    }

    #[test]
    fn unserialisable_fields_are_an_error() {
        let mut bad = std::collections::HashMap::new();
        bad.insert((1, 2), 3);
        let m = Material::new().field("map", &bad);
        let e = Key::derive(&Scope::run("r"), "t", &m).unwrap_err();
        assert_eq!(e.field, "map");
        assert!(e.message.contains("key must be a string"), "{}", e.message);
    }
}
