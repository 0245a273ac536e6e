//! Property tests: canonical JSON and the key do not depend on field order, and differ
//! when any key field differs.

use idemcheck::key::{Material, canonical_json, canonical_object};
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
    /// Entries really out of order (serde_json's default `Map` is always sorted, so
    /// `reorder` alone never reaches the sorting code): a permutation of an object's entries
    /// gives the canonical text of the object.
    fn canonical_object_sorts_entries_in_any_order(
        entries in proptest::collection::btree_map("[a-z]{1,6}", json_value(), 2..8),
        seed in any::<u64>(),
    ) {
        let sorted: Vec<(&str, &Value)> = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut shuffled = sorted.clone();
        // A seeded Fisher-Yates shuffle (SplitMix64), so every case is out of order in its own way.
        let mut state = seed;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            shuffled.swap(i, (z % (i as u64 + 1)) as usize);
        }
        shuffled.reverse();
        prop_assume!(shuffled != sorted);
        let object = Value::Object(entries.clone().into_iter().collect());
        prop_assert_eq!(canonical_object(shuffled), canonical_json(&object));
    }

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
