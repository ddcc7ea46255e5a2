//! Deletion as a learner watches it through the controllers' harness on virtual time: a
//! namespace goes Terminating, its content (custom resources included) is deleted by the
//! namespace controller, creating in it is refused meanwhile, and it disappears once the
//! `kubernetes` finalizer is removed; the garbage collector's three propagation policies
//! (background, foreground with `blockOwnerDeletion`, orphan) and dangling owners of any kind.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::Kind;
use watchlab_engine::controllers::{Harness, Profile};

fn call(h: &mut Harness, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let ct = (method == "PATCH").then_some("application/merge-patch+json");
    let r = h.api.request(method, path, ct, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn ok(h: &mut Harness, method: &str, path: &str, body: Option<Value>) -> Value {
    let (code, v) = call(h, method, path, body);
    assert!((200..300).contains(&code), "{method} {path}: {code} {v}");
    v
}

fn cluster(seed: u64) -> Harness {
    let mut h = Harness::new(seed, &Profile::training(), &["node-a", "node-b"]);
    h.run_for(2_000);
    h
}

fn deployment(name: &str, replicas: i32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
      "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
          "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}})
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string))
        .collect()
}

fn count(h: &mut Harness, path: &str) -> usize {
    names(&ok(h, "GET", path, None)).len()
}

fn website_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "websites.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced",
        "names": {"plural": "websites", "singular": "website", "kind": "Website"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "schema": {"openAPIV3Schema": {"type": "object",
            "x-kubernetes-preserve-unknown-fields": true}}}]}})
}

#[test]
fn deleting_a_namespace_deletes_its_content_then_the_namespace() {
    let mut h = cluster(5);
    ok(
        &mut h,
        "POST",
        "/api/v1/namespaces",
        Some(json!({"metadata": {"name": "team"}})),
    );
    let ns = ok(&mut h, "GET", "/api/v1/namespaces/team", None);
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(ns["status"]["phase"], "Active");
    ok(
        &mut h,
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        Some(website_crd()),
    );
    ok(
        &mut h,
        "POST",
        "/apis/apps/v1/namespaces/team/deployments",
        Some(deployment("web", 3)),
    );
    ok(
        &mut h,
        "POST",
        "/apis/example.com/v1/namespaces/team/websites",
        Some(json!({"apiVersion": "example.com/v1", "kind": "Website",
            "metadata": {"name": "home"}, "spec": {"host": "example.com"}})),
    );
    h.run_for(20_000);
    assert_eq!(count(&mut h, "/api/v1/namespaces/team/pods"), 3);

    let deleted = ok(&mut h, "DELETE", "/api/v1/namespaces/team", None);
    assert_eq!(deleted["status"]["phase"], "Terminating");
    assert!(deleted["metadata"]["deletionTimestamp"].is_string());

    // Creating anything in it is refused with the NamespaceLifecycle text.
    let (code, status) = call(
        &mut h,
        "POST",
        "/api/v1/namespaces/team/pods",
        Some(json!({"metadata": {"name": "x"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}})),
    );
    assert_eq!(code, 403);
    assert_eq!(
        status["message"],
        "pods \"x\" is forbidden: unable to create new content in namespace team because it is being terminated"
    );
    assert_eq!(status["reason"], "Forbidden");
    assert_eq!(
        status["details"]["causes"][0]["reason"],
        "NamespaceTerminating"
    );

    // The controller deletes the content; the pods take their grace period, and meanwhile the
    // namespace says what remains.
    h.run_for(1_000);
    let ns = ok(&mut h, "GET", "/api/v1/namespaces/team", None);
    let remaining = ns["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "NamespaceContentRemaining")
        .cloned()
        .unwrap_or_default();
    assert_eq!(remaining["status"], "True", "{ns}");
    assert_eq!(
        remaining["message"],
        "Some resources are remaining: pods. has 3 resource instances"
    );
    assert_eq!(
        count(&mut h, "/apis/example.com/v1/namespaces/team/websites"),
        0
    );
    assert_eq!(
        count(&mut h, "/apis/apps/v1/namespaces/team/deployments"),
        0
    );

    let start = h.now();
    let gone = h.run_until_true(start.plus_secs(120), |h| {
        h.api.get(Kind::Namespace, None, "team").is_err()
    });
    assert!(gone, "the namespace is still there");
    assert_eq!(count(&mut h, "/api/v1/namespaces/team/pods"), 0);
    // The finalize removed it: the ledger's last namespace write is the controller's.
    let last = h
        .api
        .ledger()
        .iter()
        .rev()
        .find(|e| &*e.resource == "namespaces" && e.name() == "team")
        .map(|e| (e.verb, e.user.to_string()));
    assert_eq!(last, Some(("delete", "namespace-controller".to_string())));

    // The name can be used again.
    ok(
        &mut h,
        "POST",
        "/api/v1/namespaces",
        Some(json!({"metadata": {"name": "team"}})),
    );
}

#[test]
fn the_system_namespaces_may_not_be_deleted() {
    let mut h = cluster(1);
    for ns in ["default", "kube-system", "kube-public"] {
        let (code, status) = call(&mut h, "DELETE", &format!("/api/v1/namespaces/{ns}"), None);
        assert_eq!(code, 403);
        assert_eq!(
            status["message"],
            format!("namespaces \"{ns}\" is forbidden: this namespace may not be deleted")
        );
    }
}

#[test]
fn an_empty_namespace_goes_at_once_and_finalize_only_changes_finalizers() {
    let mut h = cluster(2);
    ok(
        &mut h,
        "POST",
        "/api/v1/namespaces",
        Some(json!({"metadata": {"name": "empty"}})),
    );
    // A main-resource update cannot drop the finalizer: only /finalize can.
    let mut ns = ok(&mut h, "GET", "/api/v1/namespaces/empty", None);
    ns["spec"]["finalizers"] = json!([]);
    let kept = ok(&mut h, "PUT", "/api/v1/namespaces/empty", Some(ns));
    assert_eq!(kept["spec"]["finalizers"], json!(["kubernetes"]));
    ok(&mut h, "DELETE", "/api/v1/namespaces/empty", None);
    let deadline = h.now().plus_secs(5);
    let gone = h.run_until_true(deadline, |h| {
        h.api.get(Kind::Namespace, None, "empty").is_err()
    });
    assert!(gone);
}

const DEPLOYS: &str = "/apis/apps/v1/namespaces/default/deployments";
const RSES: &str = "/apis/apps/v1/namespaces/default/replicasets";
const PODS: &str = "/api/v1/namespaces/default/pods";

/// A cluster with Deployment `web` (3 replicas) running.
fn with_web(seed: u64) -> Harness {
    let mut h = cluster(seed);
    ok(&mut h, "POST", DEPLOYS, Some(deployment("web", 3)));
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| {
        h.api
            .list(Kind::Pod, Some("default"), &Default::default())
            .is_ok_and(|l| {
                l.items
                    .iter()
                    .filter(|p| p.as_pod().is_some_and(|p| p.status.phase == "Running"))
                    .count()
                    == 3
            })
    }));
    h
}

fn delete_with(h: &mut Harness, path: &str, policy: &str) -> Value {
    ok(
        h,
        "DELETE",
        path,
        Some(json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": policy})),
    )
}

fn exists(h: &Harness, kind: Kind, name: &str) -> bool {
    h.api.get(kind, Some("default"), name).is_ok()
}

fn pod_count(h: &Harness) -> usize {
    h.api
        .list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| l.items.len())
        .unwrap_or_default()
}

#[test]
fn foreground_deletion_keeps_the_owner_until_its_blocking_dependents_are_gone() {
    let mut h = with_web(11);
    let d = delete_with(&mut h, &format!("{DEPLOYS}/web"), "Foreground");
    assert_eq!(d["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    assert!(d["metadata"]["deletionTimestamp"].is_string());
    // The ReplicaSet is deleted in the foreground too (it has dependents); the Deployment
    // stays while any pod is left.
    let mut rs_foreground = false;
    let start = h.now();
    let gone = h.run_until_true(start.plus_secs(120), |h| {
        rs_foreground |= h
            .api
            .list(Kind::ReplicaSet, Some("default"), &Default::default())
            .is_ok_and(|l| {
                l.items.iter().any(|rs| {
                    rs.meta()
                        .finalizers
                        .iter()
                        .any(|f| f == "foregroundDeletion")
                })
            });
        let deploy = exists(h, Kind::Deployment, "web");
        assert!(
            deploy || pod_count(h) == 0,
            "the Deployment went before its pods"
        );
        !deploy
    });
    assert!(gone, "the Deployment is still there");
    assert!(
        rs_foreground,
        "the ReplicaSet was not deleted in the foreground"
    );
    assert_eq!(pod_count(&h), 0);
    assert_eq!(count(&mut h, RSES), 0);
}

#[test]
fn orphan_deletion_leaves_the_replica_set_without_owner_and_its_pods_running() {
    let mut h = with_web(12);
    let d = delete_with(&mut h, &format!("{DEPLOYS}/web"), "Orphan");
    assert_eq!(d["metadata"]["finalizers"], json!(["orphan"]));
    let deadline = h.now().plus_secs(30);
    assert!(h.run_until_true(deadline, |h| !exists(h, Kind::Deployment, "web")));
    h.run_for(30_000);
    let rses = ok(&mut h, "GET", RSES, None);
    assert_eq!(names(&rses).len(), 1);
    assert_eq!(rses["items"][0]["metadata"]["ownerReferences"], Value::Null);
    // The pods keep their own owner, the ReplicaSet, and keep running.
    let pods = ok(&mut h, "GET", PODS, None);
    assert_eq!(names(&pods).len(), 3);
    for p in pods["items"].as_array().into_iter().flatten() {
        assert_eq!(p["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
        assert_eq!(p["status"]["phase"], "Running");
    }
}

#[test]
fn orphan_dependents_is_the_deprecated_spelling_of_orphan() {
    let mut h = with_web(13);
    let d = ok(
        &mut h,
        "DELETE",
        &format!("{DEPLOYS}/web"),
        Some(json!({"orphanDependents": true})),
    );
    assert_eq!(d["metadata"]["finalizers"], json!(["orphan"]));
    let (code, status) = call(
        &mut h,
        "DELETE",
        &format!("{RSES}/x"),
        Some(json!({"orphanDependents": false, "propagationPolicy": "Foreground"})),
    );
    assert_eq!(code, 422);
    assert_eq!(
        status["message"],
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Foreground\": orphanDependents and deletionPropagation cannot be both set"
    );
}

#[test]
fn dangling_owners_of_any_kind_are_collected_and_a_remaining_owner_keeps_its_dependent() {
    let mut h = cluster(14);
    ok(
        &mut h,
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        Some(website_crd()),
    );
    h.run_for(1_000);
    let site = ok(
        &mut h,
        "POST",
        "/apis/example.com/v1/namespaces/default/websites",
        Some(json!({"apiVersion": "example.com/v1", "kind": "Website",
            "metadata": {"name": "home"}, "spec": {"host": "example.com"}})),
    );
    let site_ref = json!({"apiVersion": "example.com/v1", "kind": "Website", "name": "home",
        "uid": site["metadata"]["uid"]});
    let keeper = ok(
        &mut h,
        "POST",
        "/api/v1/namespaces",
        Some(json!({"metadata": {"name": "keeper"}})),
    );
    let keeper_ref = json!({"apiVersion": "v1", "kind": "Namespace", "name": "keeper",
        "uid": keeper["metadata"]["uid"]});
    let pod = |name: &str, owners: Value| {
        json!({"metadata": {"name": name, "ownerReferences": owners},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    };
    let ghost = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "ghost",
        "uid": "0000-gone"});
    ok(
        &mut h,
        "POST",
        PODS,
        Some(pod("of-a-ghost", json!([ghost]))),
    );
    ok(
        &mut h,
        "POST",
        PODS,
        Some(pod("of-the-site", json!([site_ref]))),
    );
    ok(
        &mut h,
        "POST",
        PODS,
        Some(pod("of-both", json!([site_ref, keeper_ref]))),
    );
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| !exists(h, Kind::Pod, "of-a-ghost")));
    assert!(exists(&h, Kind::Pod, "of-the-site"));
    ok(
        &mut h,
        "DELETE",
        "/apis/example.com/v1/namespaces/default/websites/home",
        None,
    );
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| !exists(h, Kind::Pod, "of-the-site")));
    h.run_for(2_000);
    let both = ok(&mut h, "GET", &format!("{PODS}/of-both"), None);
    assert_eq!(both["metadata"]["ownerReferences"], json!([keeper_ref]));
}
