//! `?dryRun=All` through the JSON edge, verb by verb: the whole request runs (defaults,
//! validation, admission, the resourceVersion precondition, managedFields, apply's conflicts)
//! and answers the object as it would be stored, while the store's revision, the ledger, the
//! open watch streams and the stored object stay as they were (kube-apiserver's
//! `registry/generic/registry/dryrun.go`). Errors are the real request's, byte for byte.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::ApiServer;

const PODS: &str = "/api/v1/namespaces/default/pods";
const DEPLOYS: &str = "/apis/apps/v1/namespaces/default/deployments";
const SERVICES: &str = "/api/v1/namespaces/default/services";
const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";
const JSON_PATCH: &str = "application/json-patch+json";
const APPLY: &str = "application/apply-patch+yaml";

/// Collections watched to prove a dry run broadcasts nothing.
const WATCHED: [&str; 4] = [
    "/api/v1/pods",
    "/apis/apps/v1/deployments",
    "/api/v1/services",
    "/api/v1/namespaces",
];

fn call(
    s: &mut ApiServer,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let r = s.request(method, path, content_type, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn get(s: &mut ApiServer, path: &str) -> (u16, Value) {
    call(s, "GET", path, None, None)
}

fn pod(name: &str) -> Value {
    json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":name,"labels":{"app":"web"}},
           "spec":{"containers":[{"name":"web","image":"nginx:1.25"}]}})
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":name},
           "spec":{"replicas":2,"selector":{"matchLabels":{"app":name}},
                   "template":{"metadata":{"labels":{"app":name}},"spec":{"containers":[
                       {"name":"web","image":"nginx:1.25"},{"name":"sidecar","image":"envoy:1.30"}]}}}})
}

fn created(s: &mut ApiServer, collection: &str, body: Value) -> Value {
    let (code, out) = call(s, "POST", collection, None, Some(body));
    assert_eq!(code, 201, "{out}");
    out
}

fn dry(path: &str) -> String {
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("{path}{sep}dryRun=All")
}

/// What a dry run must leave alone: the revision, the ledger, watch streams opened before it
/// (their initial events drained) and the object at `path` as a GET answers it.
struct Untouched {
    revision: u64,
    ledger: usize,
    streams: Vec<u64>,
    path: String,
    object: (u16, Value),
}

impl Untouched {
    fn before(s: &mut ApiServer, path: &str) -> Self {
        let streams = WATCHED
            .iter()
            .map(|w| {
                let id = ApiClient::watch(s, &format!("{w}?watch=true")).expect("watch");
                let _initial = s.poll_watch(id);
                id
            })
            .collect();
        Untouched {
            revision: s.revision(),
            ledger: s.ledger().len(),
            streams,
            path: path.to_string(),
            object: get(s, path),
        }
    }

    fn check(self, s: &mut ApiServer) {
        assert_eq!(s.revision(), self.revision, "a dry run spent a revision");
        assert_eq!(
            s.ledger().len(),
            self.ledger,
            "a dry run wrote a ledger line"
        );
        for id in self.streams {
            let lines = s.poll_watch(id).unwrap_or_default();
            assert!(lines.is_empty(), "a dry run was broadcast: {lines:?}");
            ApiClient::stop_watch(s, id);
        }
        assert_eq!(get(s, &self.path), self.object, "{}", self.path);
    }
}

#[test]
fn a_dry_run_create_answers_the_object_as_it_would_be_stored_and_stores_nothing() {
    let mut s = ApiServer::new(1);
    let quiet = Untouched::before(&mut s, &format!("{PODS}/web"));
    let (code, out) = call(&mut s, "POST", &dry(PODS), None, Some(pod("web")));
    assert_eq!(code, 201, "{out}");
    let meta = &out["metadata"];
    assert_eq!(meta["name"], "web");
    assert_eq!(meta["namespace"], "default");
    // `DryRunnableStorage.Create` copies the object it was given: no resourceVersion.
    assert!(meta.get("resourceVersion").is_none(), "{out}");
    assert!(meta["uid"].as_str().is_some_and(|u| !u.is_empty()), "{out}");
    assert!(meta["creationTimestamp"].is_string(), "{out}");
    assert_eq!(meta["managedFields"][0]["manager"], "kubectl", "{out}");
    assert_eq!(meta["managedFields"][0]["operation"], "Update", "{out}");
    // Defaults and admission ran.
    assert_eq!(out["spec"]["restartPolicy"], "Always", "{out}");
    assert_eq!(out["spec"]["tolerations"].as_array().map(Vec::len), Some(2));
    quiet.check(&mut s);
    assert_eq!(get(&mut s, &format!("{PODS}/web")).0, 404);
    // The name is still free.
    created(&mut s, PODS, pod("web"));
}

#[test]
fn a_dry_run_create_is_refused_as_the_real_one_is() {
    let mut s = ApiServer::new(1);
    let mut invalid = pod("Bad_Name");
    invalid["spec"]["containers"][0]["image"] = json!("");
    let quiet = Untouched::before(&mut s, &format!("{PODS}/Bad_Name"));
    let dry_answer = call(&mut s, "POST", &dry(PODS), None, Some(invalid.clone()));
    quiet.check(&mut s);
    let real_answer = call(&mut s, "POST", PODS, None, Some(invalid));
    assert_eq!(dry_answer.0, 422, "{}", dry_answer.1);
    assert_eq!(dry_answer, real_answer);

    // AlreadyExists, and NamespaceLifecycle's NotFound.
    created(&mut s, PODS, pod("web"));
    let dry_answer = call(&mut s, "POST", &dry(PODS), None, Some(pod("web")));
    assert_eq!(dry_answer.0, 409, "{}", dry_answer.1);
    assert_eq!(
        dry_answer,
        call(&mut s, "POST", PODS, None, Some(pod("web")))
    );
    let elsewhere = "/api/v1/namespaces/nowhere/pods";
    let dry_answer = call(&mut s, "POST", &dry(elsewhere), None, Some(pod("web")));
    assert_eq!(dry_answer.0, 404, "{}", dry_answer.1);
    assert_eq!(
        dry_answer,
        call(&mut s, "POST", elsewhere, None, Some(pod("web")))
    );
}

#[test]
fn a_dry_run_service_shows_a_cluster_ip_that_is_not_kept() {
    let mut s = ApiServer::new(1);
    let svc = json!({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},
        "spec":{"selector":{"app":"web"},"ports":[{"port":80}]}});
    let quiet = Untouched::before(&mut s, &format!("{SERVICES}/web"));
    let (code, out) = call(&mut s, "POST", &dry(SERVICES), None, Some(svc.clone()));
    assert_eq!(code, 201, "{out}");
    assert!(
        out["spec"]["clusterIP"]
            .as_str()
            .is_some_and(|ip| !ip.is_empty()),
        "{out}"
    );
    quiet.check(&mut s);
    // Asking for the same address twice is no conflict: the dry run allocated nothing.
    let ip = out["spec"]["clusterIP"].clone();
    let mut pinned = svc;
    pinned["spec"]["clusterIP"] = ip.clone();
    let again = call(&mut s, "POST", &dry(SERVICES), None, Some(pinned.clone()));
    assert_eq!(again.0, 201, "{}", again.1);
    let real = created(&mut s, SERVICES, pinned);
    assert_eq!(real["spec"]["clusterIP"], ip);
}

#[test]
fn a_dry_run_update_answers_the_new_object_with_the_stored_resource_version() {
    let mut s = ApiServer::new(1);
    let stored = created(&mut s, DEPLOYS, deployment("web"));
    let path = format!("{DEPLOYS}/web");
    let mut body = stored.clone();
    body["spec"]["replicas"] = json!(5);
    body["metadata"]["labels"] = json!({"tier":"front"});
    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(&mut s, "PUT", &dry(&path), None, Some(body.clone()));
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["spec"]["replicas"], 5);
    assert_eq!(out["metadata"]["labels"]["tier"], "front");
    assert_eq!(out["metadata"]["generation"], 2, "{out}");
    assert_eq!(
        out["metadata"]["resourceVersion"], stored["metadata"]["resourceVersion"],
        "no revision is spent"
    );
    quiet.check(&mut s);

    // A stale resourceVersion gets the real 409.
    let (code, _) = call(&mut s, "PUT", &path, None, Some(body.clone()));
    assert_eq!(code, 200);
    let dry_answer = call(&mut s, "PUT", &dry(&path), None, Some(body.clone()));
    assert_eq!(dry_answer.0, 409, "{}", dry_answer.1);
    assert_eq!(
        dry_answer,
        call(&mut s, "PUT", &path, None, Some(body.clone()))
    );

    // So does an invalid update.
    let mut invalid = get(&mut s, &path).1;
    invalid["spec"]["replicas"] = json!(-1);
    let dry_answer = call(&mut s, "PUT", &dry(&path), None, Some(invalid.clone()));
    assert_eq!(dry_answer.0, 422, "{}", dry_answer.1);
    assert_eq!(dry_answer, call(&mut s, "PUT", &path, None, Some(invalid)));
}

#[test]
fn dry_run_patches_of_every_type_answer_the_patched_object_and_store_nothing() {
    let mut s = ApiServer::new(1);
    created(&mut s, DEPLOYS, deployment("web"));
    let path = format!("{DEPLOYS}/web");
    let image =
        json!({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}});
    let cases = [
        (STRATEGIC, image.clone()),
        (MERGE, image),
        (
            JSON_PATCH,
            json!([{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.27"}]),
        ),
    ];
    for (content_type, patch) in cases {
        let quiet = Untouched::before(&mut s, &path);
        let (code, out) = call(
            &mut s,
            "PATCH",
            &dry(&path),
            Some(content_type),
            Some(patch),
        );
        assert_eq!(code, 200, "{content_type}: {out}");
        let containers = &out["spec"]["template"]["spec"]["containers"];
        assert_eq!(
            containers[0]["image"], "nginx:1.27",
            "{content_type}: {out}"
        );
        // Strategic merge keeps the sidecar; a merge patch replaces the list.
        let expected = if content_type == MERGE { 1 } else { 2 };
        assert_eq!(
            containers.as_array().map(Vec::len),
            Some(expected),
            "{content_type}"
        );
        quiet.check(&mut s);
    }
    // A label patch (what `kubectl label --dry-run=server` sends).
    let quiet = Untouched::before(&mut s, &path);
    let label = json!({"metadata":{"labels":{"tier":"front"}}});
    let (code, out) = call(&mut s, "PATCH", &dry(&path), Some(MERGE), Some(label));
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["metadata"]["labels"]["tier"], "front");
    quiet.check(&mut s);
    // The resourceVersion precondition holds in a dry run too.
    let stale = json!({"metadata":{"resourceVersion":"1","labels":{"tier":"x"}}});
    let dry_answer = call(
        &mut s,
        "PATCH",
        &dry(&path),
        Some(MERGE),
        Some(stale.clone()),
    );
    assert_eq!(dry_answer.0, 409, "{}", dry_answer.1);
    assert_eq!(
        dry_answer,
        call(&mut s, "PATCH", &path, Some(MERGE), Some(stale))
    );
}

#[test]
fn a_dry_run_scale_answers_the_scale_and_keeps_the_replicas() {
    let mut s = ApiServer::new(1);
    created(&mut s, DEPLOYS, deployment("web"));
    let quiet = Untouched::before(&mut s, &format!("{DEPLOYS}/web"));
    let (code, out) = call(
        &mut s,
        "PATCH",
        &dry(&format!("{DEPLOYS}/web/scale")),
        Some(MERGE),
        Some(json!({"spec":{"replicas":7}})),
    );
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["spec"]["replicas"], 7);
    quiet.check(&mut s);
}

#[test]
fn a_dry_run_apply_creates_updates_and_conflicts_as_a_real_one() {
    let mut s = ApiServer::new(1);
    let path = format!("{DEPLOYS}/web");
    let apply_path = |p: &str| format!("{p}?fieldManager=kubectl&dryRun=All");
    let config = deployment("web");

    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(
        &mut s,
        "PATCH",
        &apply_path(&path),
        Some(APPLY),
        Some(config.clone()),
    );
    assert_eq!(code, 201, "{out}");
    assert!(out["metadata"].get("resourceVersion").is_none(), "{out}");
    assert_eq!(
        out["metadata"]["managedFields"][0]["operation"], "Apply",
        "{out}"
    );
    quiet.check(&mut s);

    let (code, _) = call(
        &mut s,
        "PATCH",
        &format!("{path}?fieldManager=kubectl"),
        Some(APPLY),
        Some(config.clone()),
    );
    assert_eq!(code, 201);
    let mut more = config.clone();
    more["spec"]["replicas"] = json!(4);
    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(&mut s, "PATCH", &apply_path(&path), Some(APPLY), Some(more));
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["spec"]["replicas"], 4);
    quiet.check(&mut s);

    // Another manager's apply of a field kubectl owns: the real 409 listing the conflict.
    let mut other = config;
    other["spec"]["replicas"] = json!(9);
    let other_path = format!("{path}?fieldManager=helm");
    let dry_answer = call(
        &mut s,
        "PATCH",
        &dry(&other_path),
        Some(APPLY),
        Some(other.clone()),
    );
    assert_eq!(dry_answer.0, 409, "{}", dry_answer.1);
    assert_eq!(
        dry_answer,
        call(&mut s, "PATCH", &other_path, Some(APPLY), Some(other))
    );
}

#[test]
fn a_dry_run_delete_answers_what_would_go_and_removes_nothing() {
    let mut s = ApiServer::new(1);
    created(&mut s, PODS, pod("web"));
    let path = format!("{PODS}/web");
    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(&mut s, "DELETE", &dry(&path), None, None);
    // An unbound pod goes at once: the pod as stored is the answer (ReturnDeletedObject).
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["kind"], "Pod");
    assert!(out["metadata"].get("deletionTimestamp").is_none(), "{out}");
    quiet.check(&mut s);

    // A bound pod would be marked for graceful deletion: the answer shows the mark.
    let binding = json!({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},
        "target":{"kind":"Node","name":"node-a"}});
    let (code, _) = call(
        &mut s,
        "POST",
        &format!("{path}/binding"),
        None,
        Some(binding),
    );
    assert_eq!(code, 201);
    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(&mut s, "DELETE", &dry(&path), None, None);
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["metadata"]["deletionGracePeriodSeconds"], 30, "{out}");
    assert!(out["metadata"]["deletionTimestamp"].is_string(), "{out}");
    quiet.check(&mut s);

    // Foreground deletion of a Deployment: the finalizer it would get, nothing removed.
    created(&mut s, DEPLOYS, deployment("web"));
    let path = format!("{DEPLOYS}/web");
    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(
        &mut s,
        "DELETE",
        &dry(&format!("{path}?propagationPolicy=Foreground")),
        None,
        None,
    );
    assert_eq!(code, 200, "{out}");
    assert_eq!(
        out["metadata"]["finalizers"],
        json!(["foregroundDeletion"]),
        "{out}"
    );
    quiet.check(&mut s);
    // A Background delete would remove it: the real Status Success.
    let quiet = Untouched::before(&mut s, &path);
    let (code, out) = call(&mut s, "DELETE", &dry(&path), None, None);
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["status"], "Success", "{out}");
    assert_eq!(out["details"]["name"], "web", "{out}");
    quiet.check(&mut s);

    // A namespace would start terminating.
    created(
        &mut s,
        "/api/v1/namespaces",
        json!({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}),
    );
    let path = "/api/v1/namespaces/team";
    let quiet = Untouched::before(&mut s, path);
    let (code, out) = call(&mut s, "DELETE", &dry(path), None, None);
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["status"]["phase"], "Terminating", "{out}");
    quiet.check(&mut s);

    // Errors are the real ones: a missing object, a protected namespace, a failed precondition.
    let dry_answer = call(&mut s, "DELETE", &dry(&format!("{PODS}/nope")), None, None);
    assert_eq!(dry_answer.0, 404);
    assert_eq!(
        dry_answer,
        call(&mut s, "DELETE", &format!("{PODS}/nope"), None, None)
    );
    let dry_answer = call(
        &mut s,
        "DELETE",
        &dry("/api/v1/namespaces/default"),
        None,
        None,
    );
    assert_eq!(dry_answer.0, 403, "{}", dry_answer.1);
    let precondition = json!({"preconditions":{"resourceVersion":"1"}});
    let path = format!("{PODS}/web");
    let dry_answer = call(
        &mut s,
        "DELETE",
        &dry(&path),
        None,
        Some(precondition.clone()),
    );
    assert_eq!(dry_answer.0, 409, "{}", dry_answer.1);
    assert_eq!(
        dry_answer,
        call(&mut s, "DELETE", &path, None, Some(precondition))
    );
}

#[test]
fn a_dry_run_delete_collection_removes_nothing() {
    let mut s = ApiServer::new(1);
    created(&mut s, PODS, pod("a"));
    created(&mut s, PODS, pod("b"));
    let quiet = Untouched::before(&mut s, PODS);
    let (code, out) = call(&mut s, "DELETE", &dry(PODS), None, None);
    assert_eq!(code, 200, "{out}");
    assert_eq!(out["items"].as_array().map(Vec::len), Some(2), "{out}");
    quiet.check(&mut s);
}

#[test]
fn only_dry_run_all_is_accepted() {
    let mut s = ApiServer::new(1);
    let (code, out) = call(
        &mut s,
        "POST",
        &format!("{PODS}?dryRun=true"),
        None,
        Some(pod("web")),
    );
    assert_eq!(code, 422, "{out}");
    assert_eq!(
        out["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"true\"}: supported values: \"All\""
    );
    let (code, out) = call(
        &mut s,
        "DELETE",
        &format!("{PODS}/web?dryRun=Some"),
        None,
        None,
    );
    assert_eq!(code, 422, "{out}");
    assert_eq!(s.revision(), ApiServer::new(1).revision());
}

#[test]
fn a_dry_run_definition_is_neither_stored_nor_established() {
    let mut s = ApiServer::new(1);
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "websites.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced",
        "names": {"plural": "websites", "singular": "website", "kind": "Website"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"host": {"type": "string"}}}}}}}]}});
    let quiet = Untouched::before(&mut s, &format!("{crds}/websites.example.com"));
    let (code, out) = call(&mut s, "POST", &dry(crds), None, Some(crd));
    assert_eq!(code, 201, "{out}");
    assert!(out["status"]["conditions"].is_null(), "{out}");
    quiet.check(&mut s);
    let (code, _) = get(&mut s, "/apis/example.com/v1/namespaces/default/websites");
    assert_eq!(code, 404, "the resource is not served");
}
