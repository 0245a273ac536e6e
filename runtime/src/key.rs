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

/// A stable idempotency key: 64 lowercase hex characters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Key(String);

/// A digest of all of a call's inputs, to tell a replay from a divergent payload.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(String);

macro_rules! hex_newtype {
    ($t:ident) => {
        impl $t {
            /// The hex text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Wrap a stored value (as read back from a ledger).
            pub fn from_stored(text: impl Into<String>) -> Self {
                $t(text.into())
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
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
    let mut out = String::with_capacity(64);
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        Value::String(s) => write_string(s, out),
        other => out.push_str(&other.to_string()),
    }
}

fn write_string(s: &str, out: &mut String) {
    // serde_json escapes exactly what JSON requires; its output for a string is canonical.
    out.push_str(&serde_json::to_string(s).expect("a string serialises"));
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
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let [("", whole)] = self.fields.iter().map(|(k, v)| (*k, v)).collect::<Vec<_>>()[..] {
            return Ok(canonical_json(whole));
        }
        let mut out = String::from("{");
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_string(k, &mut out);
            out.push(':');
            write_canonical(v, &mut out);
        }
        out.push('}');
        Ok(out)
    }
}

impl Key {
    /// Derive the key of one logical operation.
    pub fn derive(scope: &Scope, tool: &str, key_fields: &Material) -> Result<Key, KeyError> {
        Ok(Key::from_canonical(scope, tool, &key_fields.canonical()?))
    }

    /// Derive the key from the canonical JSON of the key fields.
    pub fn from_canonical(scope: &Scope, tool: &str, canonical_fields: &str) -> Key {
        let mut text = String::with_capacity(canonical_fields.len() + 64);
        text.push('[');
        write_string(&scope.run, &mut text);
        text.push(',');
        match &scope.step {
            Some(step) => write_string(step, &mut text),
            None => text.push_str("null"),
        }
        text.push(',');
        write_string(tool, &mut text);
        text.push(',');
        text.push_str(canonical_fields);
        text.push(']');
        Key(sha256_hex(text.as_bytes()))
    }
}

impl Fingerprint {
    /// Fingerprint all inputs of a call.
    pub fn of(inputs: &Material) -> Result<Fingerprint, KeyError> {
        Ok(Fingerprint(sha256_hex(inputs.canonical()?.as_bytes())))
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
