//! Server-side apply and `managedFields` through the JSON edge: an apply creates, a re-apply
//! that drops a field removes it, a field another manager set is a 409 with the real text
//! unless forced, shared values are not conflicts, every write keeps `managedFields`, an
//! apply twice is an apply once (property), and a node lease's renewals move `renewTime`
//! between the writers that renew it.

use proptest::prelude::*;
use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const APPLY: &str = "application/apply-patch+yaml";
const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments/web";

fn deployment(replicas: u32, labels: Value, image: &str) -> Value {
    json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":labels},
        "spec":{"replicas":replicas,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
            {"name":"web","image":image}]}}}})
}

fn apply(s: &mut ApiServer, query: &str, body: &Value) -> (u16, Value) {
    let r = s.request(
        "PATCH",
        &format!("{DEPLOY}?{query}"),
        Some(APPLY),
        Some(&body.to_string()),
    );
    (r.code, serde_json::from_str(&r.body).unwrap())
}

fn managers(v: &Value) -> Vec<(String, String)> {
    v["metadata"]["managedFields"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["manager"].as_str().unwrap().to_string(),
                        e["operation"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn apply_creates_then_a_dropped_field_is_removed() {
    let mut s = ApiServer::new(1);
    let first = deployment(2, json!({"app":"web","tier":"front"}), "nginx:1.27");
    let (code, out) = apply(&mut s, "fieldManager=me", &first);
    assert_eq!(code, 201, "{out}");
    assert_eq!(managers(&out), [("me".to_string(), "Apply".to_string())]);
    let fields = &out["metadata"]["managedFields"][0];
    assert_eq!(fields["fieldsType"], "FieldsV1");
    assert_eq!(fields["apiVersion"], "apps/v1");
    assert_eq!(
        fields["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
            ["k:{\"name\":\"web\"}"],
        json!({".":{},"f:image":{},"f:name":{}})
    );
    assert_eq!(fields["fieldsV1"]["f:spec"]["f:selector"], json!({}));
    // Applied again without the label: it goes; the same apply again changes nothing.
    let second = deployment(2, json!({"app":"web"}), "nginx:1.27");
    let (code, out) = apply(&mut s, "fieldManager=me", &second);
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["metadata"]["labels"], json!({"app":"web"}));
    let rv = out["metadata"]["resourceVersion"].clone();
    let (_, again) = apply(&mut s, "fieldManager=me", &second);
    assert_eq!(again["metadata"]["resourceVersion"], rv);
}

#[test]
fn an_update_owns_what_it_set_and_an_apply_of_it_conflicts_unless_forced() {
    let mut s = ApiServer::new(1);
    let (code, _) = apply(
        &mut s,
        "fieldManager=me",
        &deployment(2, json!({"app":"web"}), "nginx:1.27"),
    );
    assert_eq!(code, 201);
    let r = s.request(
        "PATCH",
        &format!("{DEPLOY}/scale?fieldManager=kubectl-scale"),
        Some("application/merge-patch+json"),
        Some(r#"{"spec":{"replicas":5}}"#),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let r = s.request("GET", DEPLOY, None, None);
    let live: Value = serde_json::from_str(&r.body).unwrap();
    let scale = live["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "kubectl-scale")
        .cloned()
        .unwrap();
    assert_eq!(scale["operation"], "Update");
    assert_eq!(scale["subresource"], "scale");
    assert_eq!(scale["fieldsV1"], json!({"f:spec":{"f:replicas":{}}}));
    // The applier no longer owns replicas (the update took it over).
    let (code, out) = apply(
        &mut s,
        "fieldManager=me",
        &deployment(3, json!({"app":"web"}), "nginx:1.27"),
    );
    assert_eq!(code, 409, "{out}");
    assert_eq!(
        out["message"],
        "Apply failed with 1 conflict: conflict with \"kubectl-scale\" with subresource \"scale\" using apps/v1: .spec.replicas"
    );
    assert_eq!(out["reason"], "Conflict");
    assert_eq!(
        out["details"]["causes"],
        json!([{"reason":"FieldManagerConflict","message":"conflict with \"kubectl-scale\" with subresource \"scale\" using apps/v1","field":".spec.replicas"}])
    );
    // Nothing was written.
    let r = s.request("GET", DEPLOY, None, None);
    assert!(r.body.contains("\"replicas\":5"));
    // Applying the value it has is no conflict; forcing takes the field.
    let (code, _) = apply(
        &mut s,
        "fieldManager=me",
        &deployment(5, json!({"app":"web"}), "nginx:1.27"),
    );
    assert_eq!(code, 200);
    let (code, out) = apply(
        &mut s,
        "fieldManager=me&force=true",
        &deployment(3, json!({"app":"web"}), "nginx:1.27"),
    );
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["spec"]["replicas"], 3);
    assert!(!managers(&out).contains(&("kubectl-scale".to_string(), "Update".to_string())));
}

#[test]
fn apply_options_are_checked_with_the_real_texts() {
    let mut s = ApiServer::new(1);
    let body = deployment(1, json!({"app":"web"}), "nginx");
    let (code, out) = apply(&mut s, "", &body);
    assert_eq!(code, 422);
    assert_eq!(
        out["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let r = s.request(
        "PATCH",
        &format!("{DEPLOY}?force=true"),
        Some("application/merge-patch+json"),
        Some("{}"),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(r
        .body
        .contains("force: Forbidden: may not be specified for non-apply patch"));
    let mut bad = body.clone();
    bad["spec"]["replicaz"] = json!(1);
    let (code, out) = apply(&mut s, "fieldManager=me", &bad);
    assert_eq!(code, 500);
    assert_eq!(
        out["message"],
        "failed to create typed patch object (apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema"
    );
    // YAML bodies, as kubectl sends them.
    let yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";
    let r = s.request(
        "PATCH",
        &format!("{DEPLOY}?fieldManager=me"),
        Some(APPLY),
        Some(yaml),
    );
    assert_eq!(r.code, 201, "{}", r.body);
}

#[test]
fn every_write_records_its_manager() {
    let mut s = ApiServer::new(1);
    let pod = json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"}},
        "spec":{"containers":[{"name":"c","image":"nginx"}]}});
    let r = s
        .as_user("kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9")
        .request(
            "POST",
            "/api/v1/namespaces/default/pods?fieldManager=kubectl-create",
            None,
            Some(&pod.to_string()),
        );
    assert_eq!(r.code, 201, "{}", r.body);
    let out: Value = serde_json::from_str(&r.body).unwrap();
    let e = &out["metadata"]["managedFields"][0];
    assert_eq!(e["manager"], "kubectl-create");
    assert_eq!(e["operation"], "Update");
    assert_eq!(
        e["fieldsV1"]["f:metadata"],
        json!({"f:labels":{".":{},"f:a":{}}})
    );
    // A label patch by another agent: its own entry, without the field manager parameter.
    let r = s.as_user("kubectl-label/v1.32.0").request(
        "PATCH",
        "/api/v1/namespaces/default/pods/p",
        Some("application/merge-patch+json"),
        Some(r#"{"metadata":{"labels":{"b":"2"}}}"#),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let out: Value = serde_json::from_str(&r.body).unwrap();
    let m = managers(&out);
    assert!(
        m.contains(&("kubectl-label".to_string(), "Update".to_string())),
        "{m:?}"
    );
    assert!(
        m.contains(&("kubectl-create".to_string(), "Update".to_string())),
        "{m:?}"
    );
}

proptest! {
    /// Applying the same configuration twice leaves the object as applying it once.
    #[test]
    fn apply_twice_is_apply_once(replicas in 0u32..5, tier in proptest::option::of("[a-z]{1,5}"), image in "[a-z]{1,8}") {
        let mut s = ApiServer::new(1);
        let labels = match &tier {
            Some(t) => json!({"app":"web","tier":t}),
            None => json!({"app":"web"}),
        };
        let body = deployment(replicas, labels, &image);
        let (code, once) = apply(&mut s, "fieldManager=me", &body);
        prop_assert_eq!(code, 201);
        let (code, twice) = apply(&mut s, "fieldManager=me", &body);
        prop_assert_eq!(code, 200);
        prop_assert_eq!(once, twice);
    }
}

/// A writer's copy of a stored object, modified and serialized before anything read the stored
/// version, does not decide the stored version's `managedFields` (they are worked out lazily
/// from an update record the copy shares).
#[test]
fn a_modified_copy_read_first_leaves_the_stored_managed_fields_alone() {
    use watchlab_engine::api::{Kind, Object};
    let mut s = ApiServer::new(1);
    let (code, _) = apply(
        &mut s,
        "fieldManager=me",
        &deployment(1, json!({"app":"web"}), "nginx"),
    );
    assert_eq!(code, 201);
    let live = s.get(Kind::Deployment, Some("default"), "web").unwrap();
    let mut scaled = (*live).clone();
    if let Object::Deployment(d) = &mut scaled {
        d.spec.replicas = Some(3);
    }
    let stored = s.update("alice", scaled).unwrap();
    // A copy of the stored version, changed again and read first.
    let mut copy = (*stored).clone();
    if let Object::Deployment(d) = &mut copy {
        d.spec.min_ready_seconds = Some(30);
    }
    let copy_json = serde_json::to_value(&copy).unwrap();
    let stored_json = serde_json::to_value(&*stored).unwrap();
    let alice = |v: &Value| {
        v["metadata"]["managedFields"]
            .as_array()
            .and_then(|a| a.iter().find(|e| e["manager"] == "alice").cloned())
            .unwrap_or_default()
    };
    assert_eq!(
        alice(&stored_json)["fieldsV1"],
        json!({"f:spec":{"f:replicas":{}}})
    );
    // The copy carries the stored version's entries, as a deep copy of them would.
    assert_eq!(alice(&copy_json), alice(&stored_json));
}

/// The `spec` fields an entry owns.
fn spec_fields(entry: &Value) -> Vec<String> {
    entry["fieldsV1"]["f:spec"]
        .as_object()
        .map(|m| m.keys().filter(|k| k.starts_with("f:")).cloned().collect())
        .unwrap_or_default()
}

/// The kubelet's write of a node lease: a PUT of the lease with a new `renewTime`.
fn renew(s: &mut ApiServer, lease: &Value, manager: &str, at_ms: u64) -> Value {
    let mut l = lease.clone();
    l["spec"]["renewTime"] = json!(format!(
        "2026-01-01T00:00:{:02}.{:03}000Z",
        at_ms / 1000,
        at_ms % 1000
    ));
    let path = format!(
        "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1?fieldManager={manager}"
    );
    let r = s.request("PUT", &path, None, Some(&l.to_string()));
    assert_eq!(r.code, 200, "{}", r.body);
    serde_json::from_str(&r.body).unwrap()
}

#[test]
fn lease_renewals_keep_one_entry_per_writer_and_move_renew_time_between_them() {
    let mut s = ApiServer::new(1);
    let _ = s.request(
        "POST",
        "/api/v1/namespaces",
        None,
        Some(
            &json!({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-node-lease"}})
                .to_string(),
        ),
    );
    let lease = json!({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
        "metadata":{"name":"n1","namespace":"kube-node-lease"},
        "spec":{"holderIdentity":"n1","leaseDurationSeconds":40,"renewTime":"2026-01-01T00:00:00.000000Z"}});
    let r = s.request(
        "POST",
        "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?fieldManager=kubelet",
        None,
        Some(&lease.to_string()),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    let mut lease: Value = serde_json::from_str(&r.body).unwrap();
    // More renewals than a chain of unread updates holds, at later and later instants.
    for i in 1..=12u64 {
        s.set_now(watchlab_engine::clock::Timestamp::from_secs(i * 2));
        lease = renew(&mut s, &lease, "kubelet", i * 1_500);
    }
    assert_eq!(
        managers(&lease),
        [("kubelet".to_string(), "Update".to_string())]
    );
    let kubelet = &lease["metadata"]["managedFields"][0];
    assert_eq!(
        kubelet["time"], "2026-01-01T00:00:24Z",
        "the last renewal's time"
    );
    assert_eq!(
        spec_fields(kubelet),
        ["f:holderIdentity", "f:leaseDurationSeconds", "f:renewTime"]
    );
    // Another writer renewing takes `renewTime` from the kubelet, which keeps the rest.
    s.set_now(watchlab_engine::clock::Timestamp::from_secs(30));
    let taken = renew(&mut s, &lease, "other", 29_000);
    let entry = |who: &str| {
        taken["metadata"]["managedFields"]
            .as_array()
            .and_then(|a| a.iter().find(|e| e["manager"] == who).cloned())
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        spec_fields(&entry("kubelet")),
        ["f:holderIdentity", "f:leaseDurationSeconds"]
    );
    assert_eq!(spec_fields(&entry("other")), ["f:renewTime"]);
    // A write that changes nothing the manager tracks leaves the entries as they were.
    let same = {
        let path =
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1?fieldManager=third";
        let r = s.request("PUT", path, None, Some(&taken.to_string()));
        assert_eq!(r.code, 200, "{}", r.body);
        serde_json::from_str::<Value>(&r.body).unwrap()
    };
    assert_eq!(
        same["metadata"]["managedFields"],
        taken["metadata"]["managedFields"]
    );
}
