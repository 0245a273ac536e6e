//! Property tests: canonical JSON and the key do not depend on field order, and differ
//! when any key field differs.

use idemcheck::key::{Material, canonical_json};
use idemcheck::{Key, Scope};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        "[a-zA-Z0-9 _é\"\\\\]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// The same value with every object's entries inserted in reverse order.
fn reorder(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> =
                m.iter().map(|(k, v)| (k.clone(), reorder(v))).collect();
            entries.reverse();
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k, v);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(reorder).collect()),
        other => other.clone(),
    }
}

proptest! {
    #[test]
    fn canonical_json_is_invariant_under_field_order(v in json_value()) {
        prop_assert_eq!(canonical_json(&v), canonical_json(&reorder(&v)));
    }

    #[test]
    fn canonical_json_round_trips_to_the_same_value(v in json_value()) {
        let back: Value = serde_json::from_str(&canonical_json(&v)).unwrap();
        prop_assert_eq!(canonical_json(&back), canonical_json(&v));
    }

    #[test]
    fn key_is_invariant_under_field_order(a in json_value(), b in json_value(), run in "[a-z0-9-]{1,12}") {
        let scope = Scope::run(run);
        let k1 = Key::derive(&scope, "t", &Material::new().field("a", &a).field("b", &b)).unwrap();
        let k2 = Key::derive(&scope, "t", &Material::new().field("b", &reorder(&b)).field("a", &reorder(&a))).unwrap();
        prop_assert_eq!(k1.as_str().len(), 64);
        prop_assert_eq!(k1, k2);
    }

    #[test]
    fn key_differs_when_any_key_field_differs(a in json_value(), b in json_value(), c in json_value()) {
        prop_assume!(canonical_json(&b) != canonical_json(&c));
        let scope = Scope::run("r");
        let k1 = Key::derive(&scope, "t", &Material::new().field("a", &a).field("b", &b)).unwrap();
        let k2 = Key::derive(&scope, "t", &Material::new().field("a", &a).field("b", &c)).unwrap();
        prop_assert_ne!(k1, k2);
    }
}
