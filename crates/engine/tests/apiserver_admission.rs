//! Admission and the small endpoints through the JSON edge: DefaultTolerationSeconds on pod
//! create (whoever creates the pod), `/version`, and the `scale` subresource.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::{ApiServer, ServerConfig};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn call(s: &mut ApiServer, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let ct = (method == "PATCH").then_some("application/merge-patch+json");
    let r = s.request(method, path, ct, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn pod(name: &str, tolerations: Value) -> Value {
    json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":name},
           "spec":{"containers":[{"name":"c","image":"nginx"}],"tolerations":tolerations}})
}

fn default_toleration(key: &str, secs: i64) -> Value {
    json!({"key":key,"operator":"Exists","effect":"NoExecute","tolerationSeconds":secs})
}

#[test]
fn pod_create_gets_both_default_tolerations() {
    let mut s = ApiServer::new(1);
    let (code, created) = call(&mut s, "POST", PODS, Some(pod("web", json!([]))));
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["tolerations"],
        json!([
            default_toleration("node.kubernetes.io/not-ready", 300),
            default_toleration("node.kubernetes.io/unreachable", 300),
        ])
    );
}

#[test]
fn configured_seconds_and_the_pods_own_toleration_win() {
    let cfg = ServerConfig {
        default_not_ready_toleration_seconds: 60,
        default_unreachable_toleration_seconds: 30,
        ..ServerConfig::default()
    };
    let mut s = ApiServer::with_config(1, cfg);
    let own = json!({"key":"node.kubernetes.io/unreachable","operator":"Exists",
                     "effect":"NoExecute","tolerationSeconds":5});
    let (code, created) = call(&mut s, "POST", PODS, Some(pod("web", json!([own]))));
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["tolerations"],
        json!([own, default_toleration("node.kubernetes.io/not-ready", 60)])
    );

    // A toleration of every taint (empty key, Exists) covers both: nothing added.
    let all = json!({"operator":"Exists"});
    let (_, created) = call(&mut s, "POST", PODS, Some(pod("all", json!([all]))));
    assert_eq!(created["spec"]["tolerations"], json!([all]));

    let cfg = ServerConfig::default().with_default_toleration_seconds(60);
    let mut s = ApiServer::with_config(1, cfg);
    let (_, created) = call(&mut s, "POST", PODS, Some(pod("web", json!([]))));
    assert_eq!(
        created["spec"]["tolerations"],
        json!([
            default_toleration("node.kubernetes.io/not-ready", 60),
            default_toleration("node.kubernetes.io/unreachable", 60),
        ])
    );
}

#[test]
fn only_pods_on_create_are_admitted() {
    let mut s = ApiServer::new(1);
    let (code, _) = call(&mut s, "POST", PODS, Some(pod("web", json!([]))));
    assert_eq!(code, 201);
    // A merge patch replaces the list: the plugin does not run again on update.
    let own = json!({"key":"node.kubernetes.io/not-ready","operator":"Exists",
                     "effect":"NoExecute","tolerationSeconds":300});
    let (code, patched) = call(
        &mut s,
        "PATCH",
        &format!("{PODS}/web"),
        Some(json!({"metadata":{"labels":{"a":"b"}}})),
    );
    assert_eq!(code, 200, "{patched}");
    assert_eq!(patched["spec"]["tolerations"][0], own);
    assert_eq!(
        patched["spec"]["tolerations"].as_array().map(Vec::len),
        Some(2)
    );
}
