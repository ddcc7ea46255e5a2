//! Everything a user can grow hits the real bound with the real answer, and a refused write
//! changes nothing: request bodies (413), one object (etcd's request size, 500), the store's
//! space quota (etcd's NOSPACE, 500), label values and names (422), annotations (422).

use serde_json::{json, Map, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::limits::MAX_REQUEST_BODY_BYTES;
use watchlab_engine::apiserver::ApiServer;
use watchlab_engine::controllers::{Harness, Profile};
use watchlab_engine::store::{StoreError, MAX_REQUEST_BYTES};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

/// `n` labels with 63-character values (the longest allowed), about 80 bytes each.
fn many_labels(n: usize, tag: &str) -> Value {
    let m: Map<String, Value> = (0..n)
        .map(|i| (format!("{tag}{i:05}"), json!("v".repeat(63))))
        .collect();
    Value::Object(m)
}

fn status(body: &str) -> (String, String) {
    let v: Value = serde_json::from_str(body).unwrap_or_default();
    (
        v["kind"].as_str().unwrap_or_default().to_string(),
        v["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// The store's revision and the pod's JSON (or the 404), to show nothing changed.
fn snapshot(s: &mut ApiServer, name: &str) -> (u64, String) {
    let r = s.request("GET", &format!("{PODS}/{name}"), None, None);
    (s.revision(), r.body)
}

#[test]
fn a_body_over_3_mib_is_413_and_writes_nothing() {
    let mut s = ApiServer::new(1);
    let before = snapshot(&mut s, "big");
    let mut body = pod("big", json!({})).to_string();
    body.push_str(&" ".repeat(MAX_REQUEST_BODY_BYTES));
    let r = s.request("POST", PODS, None, Some(&body));
    assert_eq!(r.code, 413);
    assert_eq!(
        status(&r.body),
        (
            "Status".into(),
            "Request entity too large: limit is 3145728".into()
        )
    );
    assert_eq!(snapshot(&mut s, "big"), before);
    // Just under the limit, the same object is fine.
    let r = s.request("POST", PODS, None, Some(&pod("big", json!({})).to_string()));
    assert_eq!(r.code, 201, "{}", r.body);
}

#[test]
fn an_object_over_etcds_request_size_is_refused_as_etcd_refuses_it() {
    let mut s = ApiServer::new(1);
    // 21,000 labels: ~1.7 MB, under the body limit, over etcd's 1.5 MiB.
    let body = pod("labelled", many_labels(21_000, "l")).to_string();
    assert!(body.len() > MAX_REQUEST_BYTES && body.len() < MAX_REQUEST_BODY_BYTES);
    let before = snapshot(&mut s, "labelled");
    let r = s.request("POST", PODS, None, Some(&body));
    assert_eq!(r.code, 500);
    assert_eq!(
        status(&r.body),
        ("Status".into(), "etcdserver: request is too large".into())
    );
    assert_eq!(snapshot(&mut s, "labelled"), before);

    // Grown by patches: the first fits, the second would not, and leaves the first in place.
    let r = s.request(
        "POST",
        PODS,
        None,
        Some(&pod("labelled", json!({})).to_string()),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    let patch = |labels| json!({"metadata": {"labels": labels}}).to_string();
    let url = format!("{PODS}/labelled");
    let ct = Some("application/merge-patch+json");
    let r = s.request("PATCH", &url, ct, Some(&patch(many_labels(12_000, "a"))));
    assert_eq!(r.code, 200);
    let grown = snapshot(&mut s, "labelled");
    let r = s.request("PATCH", &url, ct, Some(&patch(many_labels(12_000, "b"))));
    assert_eq!(r.code, 500);
    assert_eq!(status(&r.body).1, "etcdserver: request is too large");
    assert_eq!(snapshot(&mut s, "labelled"), grown);
}

#[test]
fn label_values_names_and_annotations_have_the_validation_bounds() {
    let mut s = ApiServer::new(1);
    let before = s.revision();
    let r = s.request(
        "POST",
        PODS,
        None,
        Some(&pod("p", json!({"app": "v".repeat(64)})).to_string()),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(
        status(&r.body)
            .1
            .contains("must be no more than 63 characters"),
        "{}",
        r.body
    );
    let r = s.request(
        "POST",
        PODS,
        None,
        Some(&pod(&"n".repeat(254), json!({})).to_string()),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(
        status(&r.body)
            .1
            .contains("must be no more than 253 characters"),
        "{}",
        r.body
    );
    assert_eq!(s.revision(), before);

    let r = s.request("POST", PODS, None, Some(&pod("p", json!({})).to_string()));
    assert_eq!(r.code, 201);
    let before = snapshot(&mut s, "p");
    let ann = json!({"metadata": {"annotations": {"big": "x".repeat(256 * 1024)}}}).to_string();
    let r = s.request(
        "PATCH",
        &format!("{PODS}/p"),
        Some("application/merge-patch+json"),
        Some(&ann),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(
        status(&r.body)
            .1
            .ends_with("metadata.annotations: Too long: may not be more than 262144 bytes"),
        "{}",
        r.body
    );
    assert_eq!(snapshot(&mut s, "p"), before);
}

#[test]
fn a_full_store_refuses_puts_but_not_deletes_until_compaction_and_an_alarm_disarm() {
    let mut s = ApiServer::new(1);
    for i in 0..5 {
        let r = s.request(
            "POST",
            PODS,
            None,
            Some(&pod(&format!("p{i}"), json!({})).to_string()),
        );
        assert_eq!(r.code, 201);
    }
    // Room for less than a put: any put costs its key, its JSON and etcd's 256 bytes.
    s.set_quota_bytes(s.store().bytes_in_use() + 100);
    let before = snapshot(&mut s, "p9");
    let r = s.request("POST", PODS, None, Some(&pod("p9", json!({})).to_string()));
    assert_eq!(r.code, 500);
    assert_eq!(
        status(&r.body),
        ("Status".into(), StoreError::NoSpace.to_string())
    );
    assert_eq!(snapshot(&mut s, "p9"), before);
    // An unbound pod is removed at once: a delete, which etcd still takes.
    let r = s.request("DELETE", &format!("{PODS}/p0"), None, None);
    assert_eq!(r.code, 200, "{}", r.body);
    assert!(s.get(Kind::Pod, Some("default"), "p0").is_err());
    // The refusal raised etcd's NOSPACE alarm: compaction drops the history, but puts stay
    // refused until the alarm is disarmed.
    assert_eq!(s.etcd().alarms().len(), 1);
    s.compact_now().ok();
    let r = s.request("POST", PODS, None, Some(&pod("p9", json!({})).to_string()));
    assert_eq!(
        (r.code, status(&r.body).1),
        (500, StoreError::NoSpace.to_string())
    );
    assert_eq!(s.etcd_alarm_disarm("etcd-0").map(|a| a.len()), Ok(1));
    let r = s.request("POST", PODS, None, Some(&pod("p9", json!({})).to_string()));
    assert_eq!(r.code, 201, "{}", r.body);
}

#[test]
fn scaling_past_the_quota_leaves_a_working_cluster_with_etcds_error() {
    let mut h = Harness::new(4, &Profile::training(), &["node-a"]);
    h.run_for(5_000);
    // Room for the writes of a few dozen pods (each costs a few KB a revision).
    let quota = h.api.store().bytes_in_use() + 400 * 1024;
    h.api.set_quota_bytes(quota);
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "many", "namespace": "default"},
        "spec": {"replicas": 100000, "selector": {"matchLabels": {"app": "many"}},
                 "template": {"metadata": {"labels": {"app": "many"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let r = h.api.request(
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        None,
        Some(&d.to_string()),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    h.run_for(60_000);
    let used = h.api.store().bytes_in_use();
    assert!(used < quota, "{used} bytes kept, quota {quota}");
    let pods = h
        .api
        .list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| l.items.len())
        .unwrap_or_default();
    assert!(pods > 0 && pods < 400, "{pods} pods");
    // Reads still work, and a user's put gets etcd's answer.
    let r = h.api.request(
        "POST",
        PODS,
        None,
        Some(&pod("one-more", json!({})).to_string()),
    );
    assert_eq!(
        (r.code, status(&r.body).1),
        (500, StoreError::NoSpace.to_string())
    );
}
