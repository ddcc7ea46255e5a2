//! `apply -f` manifests (JSON or multi-document YAML): any text is read or refused with
//! kubectl's `error parsing ...` message, never a panic; a document printed as YAML reads back
//! as the same document. The proptest twin of the `decode_yaml` fuzz target
//! (`./x fuzz decode_yaml`).

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use watchlab_kubectl::manifest::{self, ManifestError};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[ -~]{0,10}".prop_map(Value::String),
        Just(json!("yes")),
        Just(json!("0x1F")),
        Just(json!("~")),
        Just(json!("- a")),
        Just(json!("a: b")),
        Just(json!("")),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(("[a-zA-Z0-9 :#-]{0,6}", inner), 0..5)
                .prop_map(|kvs| { Value::Object(kvs.into_iter().collect::<Map<String, Value>>()) }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_read_or_refused_with_kubectls_message(text in "[a-z:{}\\[\\]\\-&*!|>'\" #\n\t,.0-9]{0,80}") {
        match manifest::parse("m.yaml", &text) {
            Ok(_) => {}
            Err(e) => {
                let msg = e.to_string();
                let ok = match &e {
                    ManifestError::Parse { .. } => msg.starts_with("error parsing m.yaml: "),
                    ManifestError::Validation { .. } => msg.starts_with("error validating \"m.yaml\""),
                    ManifestError::Empty { .. } => msg.starts_with("no objects passed to apply"),
                };
                prop_assert!(ok, "{}", msg);
            }
        }
    }

    #[test]
    fn documents_printed_as_yaml_read_back(fields in proptest::collection::vec(("[a-z]{1,6}", value()), 0..5)) {
        let mut doc: Map<String, Value> = fields.into_iter().collect();
        doc.insert("apiVersion".into(), json!("v1"));
        doc.insert("kind".into(), json!("ConfigMap"));
        let doc = Value::Object(doc);
        let yaml = serde_yaml_ng::to_string(&doc).unwrap_or_default();
        let back = manifest::parse("m.yaml", &yaml);
        prop_assert_eq!(back, Ok(vec![doc.clone()]), "{}", yaml);
        let json_text = doc.to_string();
        prop_assert_eq!(manifest::parse("m.json", &json_text), Ok(vec![doc]));
    }
}
