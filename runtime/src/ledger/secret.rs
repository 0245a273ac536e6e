//! Secret payloads: parts of a result that a ledger must not store in clear text.
//!
//! A tool marks a value secret by returning it inside [`Secret`] (an API key it issued, a
//! one-time password, a signed URL). The call that performed the effect gets the value as
//! usual ([`Secret::Revealed`]). Every store keeps only a SHA-256 digest of it, so a
//! replay — a retry with the same key, another worker, a restart — gets
//! [`Secret::Withheld`] with that digest: the operation is reported completed, and the
//! secret is shown once, as the APIs that issue secrets do. The digest lets the caller
//! check a value it still holds ([`Secret::matches`]).
//!
//! Stores apply [`seal`] to every result they write (`resolve` and `decide`); the
//! conformance suite checks it. The digest is unkeyed: it protects high-entropy secrets
//! (keys, tokens), not short guessable ones — do not return a PIN inside a result at all.
//!
//! On the wire (and in a stored result) a revealed secret is `{"$idemcheck_secret": v}` and
//! a withheld one `{"$idemcheck_withheld": "sha256:<hex>"}`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Resolution;
use crate::key::{canonical_json, sha256_hex};

/// The JSON member name of a revealed secret.
pub const SECRET_MARK: &str = "$idemcheck_secret";
/// The JSON member name of a withheld secret's digest.
pub const WITHHELD_MARK: &str = "$idemcheck_withheld";

/// A value that must not be stored in clear text by a ledger.
#[derive(Clone, PartialEq, Eq)]
pub enum Secret<T> {
    /// The value itself: what the call that performed the effect returns.
    Revealed(T),
    /// A replay: the ledger kept only the digest of the value.
    Withheld {
        /// `sha256:` and the hex SHA-256 of the value's canonical JSON.
        digest: String,
    },
}

impl<T> Secret<T> {
    /// Mark `value` secret.
    pub fn new(value: T) -> Self {
        Secret::Revealed(value)
    }

    /// The value, when this call performed the effect.
    pub fn revealed(&self) -> Option<&T> {
        match self {
            Secret::Revealed(v) => Some(v),
            Secret::Withheld { .. } => None,
        }
    }

    /// The value, when this call performed the effect.
    pub fn into_revealed(self) -> Option<T> {
        match self {
            Secret::Revealed(v) => Some(v),
            Secret::Withheld { .. } => None,
        }
    }

    /// Whether the value was withheld (a replay).
    pub fn is_withheld(&self) -> bool {
        matches!(self, Secret::Withheld { .. })
    }
}

impl<T: Serialize> Secret<T> {
    /// The digest the ledger stores for this secret.
    pub fn digest(&self) -> Option<String> {
        match self {
            Secret::Revealed(v) => serde_json::to_value(v).ok().map(|v| digest_of(&v)),
            Secret::Withheld { digest } => Some(digest.clone()),
        }
    }

    /// Whether `candidate` is the value this secret stands for.
    pub fn matches(&self, candidate: &T) -> bool {
        let Ok(candidate) = serde_json::to_value(candidate) else {
            return false;
        };
        self.digest().is_some_and(|d| d == digest_of(&candidate))
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Secret::Revealed(_) => f.write_str("Secret(<redacted>)"),
            Secret::Withheld { digest } => write!(f, "Secret(withheld {digest})"),
        }
    }
}

impl<T: Serialize> Serialize for Secret<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Secret::Revealed(v) => map.serialize_entry(SECRET_MARK, v)?,
            Secret::Withheld { digest } => map.serialize_entry(WITHHELD_MARK, digest)?,
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Secret<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SecretVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for SecretVisitor<T> {
            type Value = Secret<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an object with `{SECRET_MARK}` or `{WITHHELD_MARK}`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Secret<T>, A::Error> {
                let Some(name) = map.next_key::<String>()? else {
                    return Err(de::Error::invalid_length(0, &self));
                };
                let out = match name.as_str() {
                    SECRET_MARK => Secret::Revealed(map.next_value()?),
                    WITHHELD_MARK => Secret::Withheld {
                        digest: map.next_value()?,
                    },
                    other => {
                        return Err(de::Error::unknown_field(
                            other,
                            &[SECRET_MARK, WITHHELD_MARK],
                        ));
                    }
                };
                if map.next_key::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(2, &self));
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(SecretVisitor(std::marker::PhantomData))
    }
}

/// `sha256:` and the hex SHA-256 of the canonical JSON of `value`.
pub fn digest_of(value: &Value) -> String {
    format!("sha256:{}", sha256_hex(canonical_json(value).as_bytes()))
}

fn is_marked(map: &Map<String, Value>) -> Option<&Value> {
    if map.len() == 1 {
        map.get(SECRET_MARK)
    } else {
        None
    }
}

fn contains_secret(value: &Value) -> bool {
    match value {
        Value::Object(map) => is_marked(map).is_some() || map.values().any(contains_secret),
        Value::Array(items) => items.iter().any(contains_secret),
        _ => false,
    }
}

fn seal_value(value: &Value) -> Value {
    match value {
        Value::Object(map) => match is_marked(map) {
            Some(secret) => {
                let mut out = Map::new();
                out.insert(WITHHELD_MARK.to_string(), Value::String(digest_of(secret)));
                Value::Object(out)
            }
            None => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), seal_value(v)))
                    .collect(),
            ),
        },
        Value::Array(items) => Value::Array(items.iter().map(seal_value).collect()),
        other => other.clone(),
    }
}

/// A result as a store must keep it: every [`Secret`] in it replaced by its digest.
/// Borrowed when there is nothing to seal.
pub fn seal(value: &Value) -> Cow<'_, Value> {
    if contains_secret(value) {
        Cow::Owned(seal_value(value))
    } else {
        Cow::Borrowed(value)
    }
}

impl Resolution {
    /// This resolution as a store must keep it (see [`seal`]).
    pub fn sealed(&self) -> Cow<'_, Resolution> {
        match self {
            Resolution::Committed { result } => match seal(result) {
                Cow::Borrowed(_) => Cow::Borrowed(self),
                Cow::Owned(result) => Cow::Owned(Resolution::Committed { result }),
            },
            other => Cow::Borrowed(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Issued {
        id: String,
        key: Secret<String>,
    }

    #[test]
    fn a_secret_is_stored_as_its_digest_and_replays_as_withheld() {
        let issued = Issued {
            id: "key_1".into(),
            key: Secret::new("sk_live_abc".into()),
        };
        let value = serde_json::to_value(&issued).unwrap();
        assert_eq!(value["key"][SECRET_MARK], "sk_live_abc");
        let stored = seal(&value).into_owned();
        assert!(!stored.to_string().contains("sk_live_abc"));
        let replayed: Issued = serde_json::from_value(stored).unwrap();
        assert_eq!(replayed.id, "key_1");
        assert!(replayed.key.is_withheld());
        assert!(replayed.key.matches(&"sk_live_abc".to_string()));
        assert!(!replayed.key.matches(&"sk_live_abd".to_string()));
        assert_eq!(replayed.key.digest(), issued.key.digest());
        assert_eq!(format!("{:?}", issued.key), "Secret(<redacted>)");
    }

    #[test]
    fn results_without_secrets_are_borrowed_unchanged() {
        let v = json!({"a": [1, {"b": null}], "$idemcheck_secret": 1, "c": 2});
        assert!(matches!(seal(&v), Cow::Borrowed(_)));
        let nested = json!([{"x": {"$idemcheck_secret": {"deep": [1, 2]}}}]);
        let sealed = seal(&nested).into_owned();
        assert_eq!(
            sealed[0]["x"][WITHHELD_MARK],
            Value::String(digest_of(&json!({"deep": [1, 2]})))
        );
    }
}
