//! Per-request settings end with their request (issue #31): a request's `fieldManager`,
//! `fieldValidation` and warnings travel in its own context, so the next request, through the
//! JSON edge or the typed face, by the same user agent or another, never inherits them. Each
//! test fails if any of the three were server-wide state that some path forgot to reset.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::Kind;
use watchlab_engine::apiserver::ApiServer;

const PODS: &str = "/api/v1/namespaces/default/pods";
const MERGE: &str = "application/merge-patch+json";

fn pod(name: &str, extra: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}"}},
        "spec":{{"containers":[{{"name":"app","image":"nginx"{extra}}}]}}}}"#
    )
}

/// The `(manager, operation, subresource)` of each `managedFields` entry of `obj`'s JSON.
fn managers(obj: &Value) -> Vec<(String, String, String)> {
    let field = |e: &Value, f: &str| e[f].as_str().unwrap_or_default().to_string();
    obj["metadata"]["managedFields"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        field(e, "manager"),
                        field(e, "operation"),
                        field(e, "subresource"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn entry(manager: &str) -> (String, String, String) {
    (manager.to_string(), "Update".to_string(), String::new())
}

fn stored(s: &mut ApiServer, name: &str) -> Value {
    let obj = s.get(Kind::Pod, Some("default"), name).expect("the pod");
    serde_json::from_str(&obj.to_json()).unwrap()
}

#[test]
fn a_field_manager_is_the_requests_alone() {
    let mut s = ApiServer::new(1);
    let r = s.request("POST", PODS, None, Some(&pod("web", "")));
    assert_eq!(r.code, 201, "{}", r.body);

    // PATCH ?fieldManager=x: the write is x's.
    let r = s.request(
        "PATCH",
        &format!("{PODS}/web?fieldManager=x"),
        Some(MERGE),
        Some(r#"{"metadata":{"labels":{"by":"x"}}}"#),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let out: Value = serde_json::from_str(&r.body).unwrap();
    assert!(managers(&out).contains(&entry("x")), "{:?}", managers(&out));

    // A refused request with a manager of its own (stale resourceVersion: 409).
    let r = s.request(
        "PATCH",
        &format!("{PODS}/web?fieldManager=y"),
        Some(MERGE),
        Some(r#"{"metadata":{"resourceVersion":"1","labels":{"by":"y"}}}"#),
    );
    assert_eq!(r.code, 409, "{}", r.body);

    // The typed face's writes are their user agent's, whatever the requests before set.
    let mut obj = (*s.get(Kind::Pod, Some("default"), "web").unwrap()).clone();
    obj.meta_mut()
        .labels
        .insert("updated".into(), "by-kubelet".into());
    s.update("kubelet/node-a", obj).expect("update");
    s.merge_patch(
        "replicaset-controller",
        Kind::Pod,
        Some("default"),
        "web",
        &json!({"metadata":{"labels":{"patched":"by-rs"}}}),
        false,
    )
    .expect("merge patch");
    let m = managers(&stored(&mut s, "web"));
    assert!(m.contains(&entry("kubelet")), "{m:?}");
    assert!(m.contains(&entry("kube-controller-manager")), "{m:?}");
    assert!(
        !m.contains(&entry("y")),
        "a refused request wrote nothing: {m:?}"
    );

    // A create through the typed face right after a request with a manager.
    let r = s.request(
        "PATCH",
        &format!("{PODS}/web?fieldManager=x"),
        Some(MERGE),
        Some(r#"{"metadata":{"labels":{"again":"x"}}}"#),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let mut other = (*s.get(Kind::Pod, Some("default"), "web").unwrap()).clone();
    let meta = other.meta_mut();
    meta.name = "other".into();
    meta.resource_version.clear();
    meta.uid.clear();
    meta.managed_fields = Default::default();
    s.create("kube-scheduler", other).expect("create");
    assert_eq!(
        managers(&stored(&mut s, "other")),
        [entry("kube-scheduler")]
    );

    // And the next HTTP request without one is its user agent's.
    let r = s.as_user("kubectl-label/v1.32.0").request(
        "PATCH",
        &format!("{PODS}/other"),
        Some(MERGE),
        Some(r#"{"metadata":{"labels":{"b":"2"}}}"#),
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let out: Value = serde_json::from_str(&r.body).unwrap();
    assert!(
        managers(&out).contains(&entry("kubectl-label")),
        "{:?}",
        managers(&out)
    );
    assert!(!managers(&out).contains(&entry("x")));
}

#[test]
fn a_field_validation_is_the_requests_alone() {
    let mut s = ApiServer::new(1);
    let r = s.request("POST", PODS, None, Some(&pod("web", "")));
    assert_eq!(r.code, 201, "{}", r.body);
    let strict = s.request(
        "PATCH",
        &format!("{PODS}/web?fieldValidation=Strict"),
        Some(MERGE),
        Some(r#"{"spec":{"bogus":1}}"#),
    );
    assert_eq!(strict.code, 422, "{}", strict.body);
    // A controller's patch checks nothing (the typed face has no fieldValidation).
    s.merge_patch(
        "kubectl",
        Kind::Pod,
        Some("default"),
        "web",
        &json!({"spec":{"bogus":1}}),
        false,
    )
    .expect("an unknown field is dropped, not refused");
    // A PATCH without the parameter gets the default, Warn.
    let warned = s.request(
        "PATCH",
        &format!("{PODS}/web"),
        Some(MERGE),
        Some(r#"{"spec":{"bogus":2}}"#),
    );
    assert_eq!(warned.code, 200, "{}", warned.body);
    assert_eq!(s.take_warnings(), [r#"unknown field "spec.bogus""#]);
}

#[test]
fn warnings_go_to_the_request_that_earned_them() {
    let mut s = ApiServer::new(1);
    let warned = [r#"unknown field "spec.containers[0].bogus""#];

    // Another user agent's session never sees them, whether it asks at once, after a watch
    // or after a request of its own.
    let r = s
        .as_user("alice")
        .request("POST", PODS, None, Some(&pod("a", r#","bogus":1"#)));
    assert_eq!(r.code, 201, "{}", r.body);
    let mut bob = s.as_user("bob");
    assert!(bob.take_warnings().is_empty());
    bob.watch(&format!("{PODS}?watch=true")).expect("watch");
    assert!(bob.take_warnings().is_empty());
    assert_eq!(bob.request("GET", PODS, None, None).code, 200);
    assert!(bob.take_warnings().is_empty());

    // In one session: the request's own, handed over once; a watch or a clean request after
    // it earns none.
    let mut alice = s.as_user("alice");
    let r = alice.request("POST", PODS, None, Some(&pod("b", r#","bogus":1"#)));
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(alice.take_warnings(), warned);
    assert!(alice.take_warnings().is_empty(), "handed over once");
    alice.request("POST", PODS, None, Some(&pod("c", r#","bogus":1"#)));
    alice.watch(&format!("{PODS}?watch=true")).expect("watch");
    assert!(alice.take_warnings().is_empty());
    alice.request("POST", PODS, None, Some(&pod("d", r#","bogus":1"#)));
    alice.request("POST", PODS, None, Some(&pod("e", "")));
    assert!(alice.take_warnings().is_empty());

    // The server as its own client: a controller's write in between does not take or clear
    // the answer's warnings.
    let r = s.request("POST", PODS, None, Some(&pod("f", r#","bogus":1"#)));
    assert_eq!(r.code, 201, "{}", r.body);
    s.merge_patch(
        "kubelet/node-a",
        Kind::Pod,
        Some("default"),
        "f",
        &json!({"metadata":{"labels":{"seen":"yes"}}}),
        false,
    )
    .expect("merge patch");
    assert_eq!(s.take_warnings(), warned);
}
