//! Object decoding from JSON, the path every `POST`/`PUT` body and `apply -f` document takes:
//! random JSON built from the real field names (so that it reaches deep into the typed
//! objects) never panics, a decoded object re-encodes to JSON that decodes to the same object,
//! and the API server refuses what it cannot take with a `Status` and no write. The proptest
//! twin of the `decode_json` fuzz target (`./x fuzz decode_json`).

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::apiserver::ApiServer;

/// Field names of the served objects, so random documents hit real fields.
const KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "ownerReferences",
    "controller",
    "finalizers",
    "spec",
    "status",
    "replicas",
    "selector",
    "matchLabels",
    "matchExpressions",
    "key",
    "operator",
    "values",
    "template",
    "containers",
    "image",
    "resources",
    "requests",
    "limits",
    "cpu",
    "memory",
    "nodeName",
    "tolerations",
    "effect",
    "tolerationSeconds",
    "taints",
    "unschedulable",
    "conditions",
    "type",
    "phase",
    "lastTransitionTime",
    "strategy",
    "rollingUpdate",
    "maxSurge",
    "maxUnavailable",
    "allocatable",
    "capacity",
    "count",
    "firstTimestamp",
    "lastTimestamp",
    "involvedObject",
    "holderIdentity",
    "leaseDurationSeconds",
    "renewTime",
    "ports",
    "containerPort",
    "x",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e20f64..1e20).prop_map(|f| json!(f)),
        Just(json!("2026-01-01T00:00:05Z")),
        Just(json!("500m")),
        Just(json!("v1")),
        Just(json!("apps/v1")),
        Just(json!("Pod")),
        "[ -~]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..6).prop_map(
                |kvs| {
                    let m: Map<String, Value> =
                        kvs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                    Value::Object(m)
                }
            ),
        ]
    })
}

/// A valid object of each kind, one field of which a random value replaces.
fn valid(kind: Kind) -> Value {
    if kind == Kind::Pod {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"app": "a"}},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}})
    } else if kind == Kind::Deployment {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}},
                     "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    } else if kind == Kind::Node {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    } else {
        json!({"apiVersion": kind.resource().api_version, "kind": kind.resource().kind_name, "metadata": {"name": "o"}})
    }
}

/// The JSON pointers of every field of `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

fn collection(kind: Kind) -> String {
    let r = kind.resource();
    let base = if r.group.is_empty() {
        format!("/api/{}", r.version)
    } else {
        format!("/apis/{}/{}", r.group, r.version)
    };
    if r.namespaced {
        format!("{base}/namespaces/default/{}", r.plural)
    } else {
        format!("{base}/{}", r.plural)
    }
}

fn check(kind: Kind, text: &str) -> Result<(), TestCaseError> {
    if let Ok(obj) = Object::decode(kind, text) {
        prop_assert_eq!(Object::decode(kind, &obj.to_json()), Ok(obj.clone()));
        prop_assert_eq!(Object::from_json(&obj.to_json()), Ok(obj));
    }
    let mut api = ApiServer::new(1);
    let before = api.revision();
    let r = api.request("POST", &collection(kind), None, Some(text));
    prop_assert!((200..600).contains(&r.code));
    if r.code >= 300 {
        prop_assert_eq!(api.revision(), before, "{}", r.body);
        let status: Value = serde_json::from_str(&r.body).unwrap_or_default();
        prop_assert_eq!(&status["kind"], "Status");
        prop_assert!(status["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_documents_decode_or_are_refused(kind in proptest::sample::select(Kind::ALL.to_vec()), v in value()) {
        check(kind, &v.to_string())?;
        let _ = Object::from_json(&v.to_string());
    }

    #[test]
    fn valid_objects_with_one_field_replaced(kind in proptest::sample::select(Kind::ALL.to_vec()), pick in any::<usize>(), v in value()) {
        let mut doc = valid(kind);
        let mut ps = Vec::new();
        pointers(&doc, String::new(), &mut ps);
        if let Some(p) = ps.get(pick % ps.len().max(1)) {
            if let Some(slot) = doc.pointer_mut(p) {
                *slot = v;
            }
        }
        check(kind, &doc.to_string())?;
    }
}

#[test]
fn the_valid_documents_are_created() {
    for kind in [Kind::Pod, Kind::Deployment, Kind::Node] {
        let mut api = ApiServer::new(1);
        let r = api.request(
            "POST",
            &collection(kind),
            None,
            Some(&valid(kind).to_string()),
        );
        assert_eq!(r.code, 201, "{kind:?}: {}", r.body);
    }
}
