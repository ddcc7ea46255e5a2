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

#[test]
fn version_is_v1_32() {
    let mut s = ApiServer::new(1);
    let (code, v) = call(&mut s, "GET", "/version", None);
    assert_eq!(code, 200);
    assert_eq!(
        (&v["major"], &v["minor"], &v["gitVersion"]),
        (&json!("1"), &json!("32"), &json!("v1.32.0"))
    );
    assert_eq!(v["platform"], "linux/amd64");
    assert_eq!(v["compiler"], "gc");
    let (code, _) = call(&mut s, "GET", "/version/?timeout=32s", None);
    assert_eq!(code, 200);
    let (code, body) = call(&mut s, "POST", "/version", Some(json!({})));
    assert_eq!((code, body), (405, json!("405: Method Not Allowed")));
    let (code, _) = call(&mut s, "GET", "/versions", None);
    assert_eq!(code, 404);
}

const DEPLOYS: &str = "/apis/apps/v1/namespaces/default/deployments";
const REPLICASETS: &str = "/apis/apps/v1/namespaces/default/replicasets";

fn workload(kind: &str, name: &str, replicas: i32) -> Value {
    json!({"apiVersion":"apps/v1","kind":kind,"metadata":{"name":name},
           "spec":{"replicas":replicas,"selector":{"matchLabels":{"app":name}},
                   "template":{"metadata":{"labels":{"app":name}},
                               "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})
}

fn msg(v: &Value) -> &str {
    v["message"].as_str().unwrap_or_default()
}

#[test]
fn scale_get_put_and_patch_for_both_workloads() {
    for (base, kind) in [(DEPLOYS, "Deployment"), (REPLICASETS, "ReplicaSet")] {
        let mut s = ApiServer::new(1);
        let (code, created) = call(&mut s, "POST", base, Some(workload(kind, "web", 2)));
        assert_eq!(code, 201, "{created}");
        let path = format!("{base}/web/scale");

        let (code, scale) = call(&mut s, "GET", &path, None);
        assert_eq!(code, 200, "{scale}");
        assert_eq!(scale["kind"], "Scale");
        assert_eq!(scale["apiVersion"], "autoscaling/v1");
        assert_eq!(scale["metadata"]["uid"], created["metadata"]["uid"]);
        assert_eq!(
            scale["metadata"]["resourceVersion"],
            created["metadata"]["resourceVersion"]
        );
        assert_eq!(scale["spec"], json!({"replicas": 2}));
        assert_eq!(
            scale["status"],
            json!({"replicas": 0, "selector": "app=web"})
        );

        // What `kubectl scale --replicas=5` sends.
        let (code, patched) = call(&mut s, "PATCH", &path, Some(json!({"spec":{"replicas":5}})));
        assert_eq!(code, 200, "{patched}");
        assert_eq!(patched["spec"]["replicas"], 5);
        let (_, parent) = call(&mut s, "GET", &format!("{base}/web"), None);
        assert_eq!(parent["spec"]["replicas"], 5);
        assert_eq!(
            parent["metadata"]["resourceVersion"],
            patched["metadata"]["resourceVersion"]
        );
        assert_eq!(
            s.ledger().iter().last().map(|e| e.resource.to_string()),
            Some(format!(
                "{}/scale",
                base.rsplit('/').next().unwrap_or_default()
            ))
        );

        // PUT with a stale resourceVersion conflicts on the parent; with none it applies.
        let mut stale = scale.clone();
        stale["spec"]["replicas"] = json!(1);
        let (code, err) = call(&mut s, "PUT", &path, Some(stale.clone()));
        assert_eq!(code, 409, "{err}");
        assert!(
            msg(&err).starts_with("Operation cannot be fulfilled on "),
            "{err}"
        );
        stale["metadata"]
            .as_object_mut()
            .map(|m| m.remove("resourceVersion"));
        let (code, put) = call(&mut s, "PUT", &path, Some(stale));
        assert_eq!(
            (code, &put["spec"]),
            (200, &json!({"replicas": 1})),
            "{put}"
        );
    }
}

#[test]
fn scale_errors_are_the_real_ones() {
    let mut s = ApiServer::new(1);
    call(
        &mut s,
        "POST",
        DEPLOYS,
        Some(workload("Deployment", "web", 2)),
    );
    let path = format!("{DEPLOYS}/web/scale");

    let (code, err) = call(&mut s, "GET", &format!("{DEPLOYS}/nope/scale"), None);
    assert_eq!(code, 404);
    assert_eq!(msg(&err), "deployments/scale.apps \"nope\" not found");

    let rev = s.revision();
    let (code, err) = call(
        &mut s,
        "PATCH",
        &path,
        Some(json!({"spec":{"replicas":-1}})),
    );
    assert_eq!(code, 422);
    assert_eq!(
        msg(&err),
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
    let (code, err) = call(
        &mut s,
        "PUT",
        &path,
        Some(
            json!({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"other"},"spec":{"replicas":1}}),
        ),
    );
    assert_eq!(code, 400);
    assert_eq!(
        msg(&err),
        "the name of the object (other) does not match the name on the URL (web)"
    );
    let (code, _) = call(
        &mut s,
        "PUT",
        &path,
        Some(json!({"kind":"Deployment","apiVersion":"autoscaling/v1","metadata":{"name":"web"}})),
    );
    assert_eq!(code, 400);
    assert_eq!(s.revision(), rev, "rejected scale writes write nothing");

    let (code, err) = call(
        &mut s,
        "PUT",
        &path,
        Some(json!({"metadata":{"name":"web","uid":"u-1"},"spec":{"replicas":1}})),
    );
    assert_eq!(code, 409);
    assert!(
        msg(&err).starts_with("Operation cannot be fulfilled on deployments/scale.apps \"web\": Precondition failed: UID in precondition: u-1, UID in object meta: "),
        "{err}"
    );
    assert_eq!(s.revision(), rev, "rejected scale writes write nothing");

    // Pods have no scale subresource.
    let (code, _) = call(&mut s, "POST", PODS, Some(pod("p", json!([]))));
    assert_eq!(code, 201);
    let (code, err) = call(&mut s, "GET", &format!("{PODS}/p/scale"), None);
    assert_eq!(code, 404, "{err}");
}

#[test]
fn the_training_cluster_gives_controller_pods_its_60_seconds() {
    use watchlab_engine::cluster::{Cluster, ClusterConfig};
    let mut c = Cluster::new(ClusterConfig::default());
    c.advance_to(watchlab_engine::clock::Timestamp::from_secs(30));
    let r = c
        .session("kubectl")
        .request("GET", "/api/v1/namespaces/production/pods", None, None);
    let pods: Value = serde_json::from_str(&r.body).unwrap_or_default();
    let items = pods["items"].as_array().cloned().unwrap_or_default();
    assert!(!items.is_empty(), "{}", r.body);
    for p in items {
        assert_eq!(
            p["spec"]["tolerations"],
            json!([
                default_toleration("node.kubernetes.io/not-ready", 60),
                default_toleration("node.kubernetes.io/unreachable", 60),
            ])
        );
    }
}
