//! `POST pods/<name>/eviction` through the JSON edge: the pod is deleted with the eviction's
//! `DeleteOptions` (graceful when bound, at once when not, a dry run when asked) and the answer
//! is the real `Status Success`; the URL's and the body's names must agree; discovery lists
//! the subresource as `kubectl drain` looks for it (group `policy`, kind `Eviction`).

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const PODS: &str = "/api/v1/namespaces/default/pods";

fn call(s: &mut ApiServer, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let r = s.request(method, path, None, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn create_pod(s: &mut ApiServer, name: &str, node: Option<&str>) {
    let mut pod = json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":name},
        "spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}});
    if let Some(node) = node {
        pod["spec"]["nodeName"] = json!(node);
    }
    let (code, out) = call(s, "POST", PODS, Some(pod));
    assert_eq!(code, 201, "{out}");
}

fn eviction(name: &str, options: Option<Value>) -> Value {
    let mut e = json!({"apiVersion":"policy/v1","kind":"Eviction",
        "metadata":{"name":name,"namespace":"default"}});
    if let Some(o) = options {
        e["deleteOptions"] = o;
    }
    e
}

fn evict(s: &mut ApiServer, name: &str, query: &str, body: Value) -> (u16, Value) {
    call(
        s,
        "POST",
        &format!("{PODS}/{name}/eviction{query}"),
        Some(body),
    )
}

#[test]
fn an_evicted_pod_is_deleted_and_the_answer_is_success() {
    let mut s = ApiServer::new(1);
    create_pod(&mut s, "loose", None);
    let (code, out) = evict(&mut s, "loose", "", eviction("loose", None));
    assert_eq!(code, 201, "{out}");
    assert_eq!(
        out,
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})
    );
    // Not on a node: removed at once, as a delete removes it.
    assert_eq!(call(&mut s, "GET", &format!("{PODS}/loose"), None).0, 404);
}

#[test]
fn a_bound_pod_is_deleted_with_the_evictions_grace_period() {
    let mut s = ApiServer::new(1);
    create_pod(&mut s, "a", Some("node-b"));
    create_pod(&mut s, "b", Some("node-b"));
    // Without options: the pod's own grace period (30 s), deletionTimestamp set.
    assert_eq!(evict(&mut s, "a", "", eviction("a", None)).0, 201);
    let (_, a) = call(&mut s, "GET", &format!("{PODS}/a"), None);
    assert_eq!(a["metadata"]["deletionGracePeriodSeconds"], 30);
    assert!(a["metadata"]["deletionTimestamp"].is_string(), "{a}");
    // With a grace period of 5 in the eviction's DeleteOptions.
    let five = eviction("b", Some(json!({"gracePeriodSeconds": 5})));
    assert_eq!(evict(&mut s, "b", "", five).0, 201);
    let (_, b) = call(&mut s, "GET", &format!("{PODS}/b"), None);
    assert_eq!(b["metadata"]["deletionGracePeriodSeconds"], 5);
}

#[test]
fn a_dry_run_eviction_leaves_the_pod() {
    let mut s = ApiServer::new(1);
    create_pod(&mut s, "p", None);
    let (code, _) = evict(&mut s, "p", "?dryRun=All", eviction("p", None));
    assert_eq!(code, 201);
    let in_options = eviction("p", Some(json!({"dryRun": ["All"]})));
    assert_eq!(evict(&mut s, "p", "", in_options).0, 201);
    let (code, pod) = call(&mut s, "GET", &format!("{PODS}/p"), None);
    assert_eq!(code, 200);
    assert!(pod["metadata"]["deletionTimestamp"].is_null(), "{pod}");
}

#[test]
fn refusals_are_the_real_servers() {
    let mut s = ApiServer::new(1);
    create_pod(&mut s, "p", None);
    let (code, out) = evict(&mut s, "p", "", eviction("q", None));
    assert_eq!(code, 400);
    assert_eq!(
        out["message"],
        "name in URL does not match name in Eviction object"
    );
    let (code, out) = evict(&mut s, "gone", "", eviction("gone", None));
    assert_eq!(code, 404);
    assert_eq!(out["message"], "pods \"gone\" not found");
    let bad = eviction("p", Some(json!({"propagationPolicy": "Sideways"})));
    assert_eq!(evict(&mut s, "p", "", bad).0, 422);
    // A uid precondition that does not hold: 409, the pod stays.
    let stale = eviction("p", Some(json!({"preconditions": {"uid": "not-its-uid"}})));
    assert_eq!(evict(&mut s, "p", "", stale).0, 409);
    assert_eq!(call(&mut s, "GET", &format!("{PODS}/p"), None).0, 200);
}

#[test]
fn discovery_lists_pods_eviction_for_kubectl_drain() {
    let mut s = ApiServer::new(1);
    let (code, list) = call(&mut s, "GET", "/api/v1", None);
    assert_eq!(code, 200);
    let entry = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "pods/eviction")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        entry,
        json!({"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy",
            "version":"v1","kind":"Eviction","verbs":["create"]})
    );
}
