//! The API server through its JSON edge, with real paths: CRUD, the exact error texts and codes,
//! generateName, generation, the status subresource, binding, graceful deletion, finalizers,
//! paging and resourceVersion semantics.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::{ApiServer, EtcdFault};
use watchlab_engine::clock::Timestamp;

const PODS: &str = "/api/v1/namespaces/default/pods";
const DEPLOYS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn call(s: &mut ApiServer, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    let ct = (method == "PATCH").then_some("application/merge-patch+json");
    let r = s.request(method, path, ct, body.as_deref());
    let v = serde_json::from_str(&r.body).unwrap_or(Value::String(r.body.clone()));
    (r.code, v)
}

fn pod(name: &str) -> Value {
    json!({"apiVersion":"v1","kind":"Pod","metadata":{"name":name,"labels":{"app":"web"}},
           "spec":{"containers":[{"name":"web","image":"nginx:1.25"}]}})
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":name},
           "spec":{"replicas":2,"selector":{"matchLabels":{"app":name}},
                   "template":{"metadata":{"labels":{"app":name}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})
}

fn msg(v: &Value) -> &str {
    v["message"].as_str().unwrap_or_default()
}

#[test]
fn create_get_and_the_server_filled_fields() {
    let mut s = ApiServer::new(1);
    s.set_now(Timestamp::from_secs(5));
    let (code, created) = call(&mut s, "POST", PODS, Some(pod("web")));
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["namespace"], "default");
    assert_eq!(
        created["metadata"]["creationTimestamp"],
        "2026-01-01T00:00:05Z"
    );
    assert_eq!(created["metadata"]["uid"].as_str().map(str::len), Some(36));
    assert_eq!(
        created["metadata"]["resourceVersion"],
        s.revision().to_string()
    );
    assert_eq!(created["status"]["phase"], "Pending");
    assert_eq!(created["status"]["qosClass"], "BestEffort");
    assert_eq!(created["spec"]["restartPolicy"], "Always");
    assert_eq!(created["spec"]["terminationGracePeriodSeconds"], 30);
    assert_eq!(created["spec"]["schedulerName"], "default-scheduler");
    assert!(created["metadata"].get("generation").is_none());
    let (code, got) = call(&mut s, "GET", &format!("{PODS}/web"), None);
    assert_eq!((code, &got), (200, &created));

    let (code, err) = call(&mut s, "GET", &format!("{PODS}/nope"), None);
    assert_eq!(code, 404);
    assert_eq!(msg(&err), "pods \"nope\" not found");
    assert_eq!(err["reason"], "NotFound");

    let rev = s.revision();
    let (code, err) = call(&mut s, "POST", PODS, Some(pod("web")));
    assert_eq!((code, msg(&err)), (409, "pods \"web\" already exists"));
    assert_eq!(err["reason"], "AlreadyExists");
    assert_eq!(s.revision(), rev, "a rejected request writes nothing");
}

#[test]
fn missing_namespace_unknown_resource_and_bad_bodies() {
    let mut s = ApiServer::new(1);
    let (code, err) = call(
        &mut s,
        "POST",
        "/api/v1/namespaces/nope/pods",
        Some(pod("web")),
    );
    assert_eq!((code, msg(&err)), (404, "namespaces \"nope\" not found"));
    let (code, err) = call(&mut s, "GET", "/api/v1/namespaces/default/widgets", None);
    assert_eq!(
        (code, msg(&err)),
        (404, "the server could not find the requested resource")
    );
    let (code, err) = call(
        &mut s,
        "GET",
        "/api/v1/namespaces/default/pods?fieldSelector=spec.color%3Dred",
        None,
    );
    assert_eq!(
        (code, msg(&err)),
        (400, "field label not supported: spec.color")
    );
    let mut wrong = pod("x");
    wrong["apiVersion"] = json!("apps/v1");
    let (code, err) = call(&mut s, "POST", PODS, Some(wrong));
    assert_eq!(code, 400);
    assert_eq!(
        msg(&err),
        "the API version in the data (apps/v1) does not match the expected API version (v1)"
    );
    let mut other_ns = pod("x");
    other_ns["metadata"]["namespace"] = json!("kube-system");
    let (code, err) = call(&mut s, "POST", PODS, Some(other_ns));
    assert_eq!(code, 400);
    assert_eq!(
        msg(&err),
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    let (code, ns) = call(&mut s, "GET", "/api/v1/namespaces/kube-node-lease", None);
    assert_eq!((code, &ns["status"]["phase"]), (200, &json!("Active")));
}

#[test]
fn validation_errors_are_422_with_causes() {
    let mut s = ApiServer::new(1);
    let rev = s.revision();
    let (code, err) = call(&mut s, "POST", PODS, Some(pod("Bad_Name")));
    assert_eq!(code, 422);
    assert_eq!(err["reason"], "Invalid");
    assert!(msg(&err).starts_with("Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"), "{err}");
    assert_eq!(err["details"]["causes"][0]["field"], "metadata.name");
    assert_eq!(err["details"]["causes"][0]["reason"], "FieldValueInvalid");

    let mut d = deployment("api");
    d["spec"]["template"]["metadata"]["labels"] = json!({"app":"other"});
    let (code, err) = call(&mut s, "POST", DEPLOYS, Some(d));
    assert_eq!(code, 422);
    assert_eq!(
        msg(&err),
        "Deployment.apps \"api\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"
    );
    assert_eq!(s.revision(), rev);
}

#[test]
fn generate_name_gets_a_five_character_suffix() {
    let mut s = ApiServer::new(1);
    let mut p = pod("");
    p["metadata"] = json!({"generateName":"web-"});
    let (code, a) = call(&mut s, "POST", PODS, Some(p.clone()));
    let (_, b) = call(&mut s, "POST", PODS, Some(p));
    assert_eq!(code, 201);
    let (a, b) = (
        a["metadata"]["name"].as_str().unwrap_or(""),
        b["metadata"]["name"].as_str().unwrap_or(""),
    );
    assert!(a.starts_with("web-") && a.len() == 9, "{a}");
    assert_ne!(a, b);
}

#[test]
fn optimistic_concurrency_on_update() {
    let mut s = ApiServer::new(1);
    let (_, created) = call(&mut s, "POST", DEPLOYS, Some(deployment("api")));
    assert_eq!(created["metadata"]["generation"], 1);
    let path = format!("{DEPLOYS}/api");
    let mut first = created.clone();
    first["spec"]["replicas"] = json!(3);
    let (code, updated) = call(&mut s, "PUT", &path, Some(first));
    assert_eq!(code, 200, "{updated}");
    assert_eq!(updated["metadata"]["generation"], 2);
    // A writer still holding the old copy loses.
    let rev = s.revision();
    let mut stale = created.clone();
    stale["spec"]["replicas"] = json!(5);
    let (code, err) = call(&mut s, "PUT", &path, Some(stale));
    assert_eq!(code, 409);
    assert_eq!(err["reason"], "Conflict");
    assert_eq!(
        msg(&err),
        "Operation cannot be fulfilled on deployments.apps \"api\": the object has been modified; please apply your changes to the latest version and try again"
    );
    assert_eq!(s.revision(), rev);
    // Without a resourceVersion the update is unconditional.
    let mut blind = updated.clone();
    blind["metadata"]
        .as_object_mut()
        .map(|m| m.remove("resourceVersion"));
    blind["spec"]["replicas"] = json!(4);
    let (code, blind) = call(&mut s, "PUT", &path, Some(blind));
    assert_eq!((code, &blind["spec"]["replicas"]), (200, &json!(4)));
    // Labels only: no generation bump. Status through the main resource: ignored.
    let mut labels = blind.clone();
    labels["metadata"]["labels"] = json!({"team":"a"});
    labels["status"] = json!({"replicas": 9});
    let (_, labelled) = call(&mut s, "PUT", &path, Some(labels));
    assert_eq!(labelled["metadata"]["generation"], 3);
    assert!(labelled["status"].get("replicas").is_none(), "{labelled}");
    // Status subresource: status kept, spec ignored, generation unchanged.
    let mut st = labelled.clone();
    st["status"] = json!({"replicas": 4, "observedGeneration": 3});
    st["spec"]["replicas"] = json!(100);
    let (code, with_status) = call(&mut s, "PUT", &format!("{path}/status"), Some(st));
    assert_eq!(code, 200, "{with_status}");
    assert_eq!(with_status["status"]["replicas"], 4);
    assert_eq!(with_status["spec"]["replicas"], 4);
    assert_eq!(with_status["metadata"]["generation"], 3);
    // A no-op update writes nothing.
    let rev = s.revision();
    let (code, same) = call(&mut s, "PUT", &path, Some(with_status.clone()));
    assert_eq!((code, s.revision()), (200, rev));
    assert_eq!(
        same["metadata"]["resourceVersion"],
        with_status["metadata"]["resourceVersion"]
    );
    // The selector is immutable.
    let mut sel = with_status;
    sel["spec"]["selector"] = json!({"matchLabels":{"app":"x"}});
    sel["spec"]["template"]["metadata"]["labels"] = json!({"app":"x"});
    let (code, err) = call(&mut s, "PUT", &path, Some(sel));
    assert_eq!(code, 422);
    assert!(msg(&err).ends_with("field is immutable"), "{err}");
}

#[test]
fn pod_conflict_text_and_merge_patch() {
    let mut s = ApiServer::new(1);
    let (_, created) = call(&mut s, "POST", PODS, Some(pod("web")));
    let path = format!("{PODS}/web");
    let (code, patched) = call(
        &mut s,
        "PATCH",
        &path,
        Some(json!({"metadata":{"labels":{"tier":"front","app":null}}})),
    );
    assert_eq!(code, 200, "{patched}");
    assert_eq!(patched["metadata"]["labels"], json!({"tier":"front"}));
    let stale_rv = created["metadata"]["resourceVersion"].clone();
    let (code, err) = call(
        &mut s,
        "PATCH",
        &path,
        Some(json!({"metadata":{"resourceVersion":stale_rv,"labels":{"x":"y"}}})),
    );
    assert_eq!(code, 409);
    assert_eq!(
        msg(&err),
        "Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again"
    );
    // Server-side apply names its field manager.
    let r = s.request(
        "PATCH",
        &path,
        Some("application/apply-patch+yaml"),
        Some("{}"),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(r
        .body
        .contains("fieldManager: Required value: is required for apply patch"));
    let r = s.request("PATCH", &path, Some("application/yaml"), Some("{}"));
    assert_eq!(r.code, 415);
    let (code, st) = call(
        &mut s,
        "PATCH",
        &format!("{path}/status"),
        Some(json!({"status":{"phase":"Running"}})),
    );
    assert_eq!((code, &st["status"]["phase"]), (200, &json!("Running")));
    let mut image = st.clone();
    image["spec"]["containers"][0]["name"] = json!("renamed");
    let (code, err) = call(&mut s, "PUT", &path, Some(image));
    assert_eq!(code, 422);
    assert!(
        msg(&err).contains("pod updates may not change fields other than"),
        "{err}"
    );
}

#[test]
fn binding_sets_node_and_condition_once() {
    let mut s = ApiServer::new(1);
    call(&mut s, "POST", PODS, Some(pod("web")));
    let binding = json!({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"node-a"}});
    let (code, ok) = call(
        &mut s,
        "POST",
        &format!("{PODS}/web/binding"),
        Some(binding.clone()),
    );
    assert_eq!(code, 201, "{ok}");
    assert_eq!(ok["status"], "Success");
    let (_, p) = call(&mut s, "GET", &format!("{PODS}/web"), None);
    assert_eq!(p["spec"]["nodeName"], "node-a");
    assert_eq!(p["status"]["conditions"][0]["type"], "PodScheduled");
    assert_eq!(p["status"]["conditions"][0]["status"], "True");
    let (code, err) = call(
        &mut s,
        "POST",
        &format!("{PODS}/web/binding"),
        Some(binding),
    );
    assert_eq!(code, 409);
    assert_eq!(
        msg(&err),
        "Operation cannot be fulfilled on pods/binding \"web\": pod web is already assigned to node \"node-a\""
    );
    assert_eq!(
        s.ledger().iter().last().map(|e| &*e.resource),
        Some("pods/binding")
    );
}

#[test]
fn graceful_pod_deletion_and_finalizers() {
    let mut s = ApiServer::new(1);
    call(&mut s, "POST", PODS, Some(pod("unbound")));
    let (code, gone) = call(&mut s, "DELETE", &format!("{PODS}/unbound"), None);
    assert_eq!(code, 200);
    assert_eq!(gone["metadata"]["name"], "unbound");
    assert_eq!(
        call(&mut s, "GET", &format!("{PODS}/unbound"), None).0,
        404,
        "unbound pods go at once"
    );

    call(&mut s, "POST", PODS, Some(pod("web")));
    let b = json!({"kind":"Binding","apiVersion":"v1","metadata":{"name":"web"},"target":{"name":"node-a"}});
    call(&mut s, "POST", &format!("{PODS}/web/binding"), Some(b));
    s.set_now(Timestamp::from_secs(100));
    let (code, terminating) = call(&mut s, "DELETE", &format!("{PODS}/web"), None);
    assert_eq!(code, 200);
    assert_eq!(
        terminating["metadata"]["deletionTimestamp"],
        "2026-01-01T00:02:10Z"
    );
    assert_eq!(terminating["metadata"]["deletionGracePeriodSeconds"], 30);
    assert_eq!(call(&mut s, "GET", &format!("{PODS}/web"), None).0, 200);
    // The kubelet confirms with grace 0.
    let (code, _) = call(
        &mut s,
        "DELETE",
        &format!("{PODS}/web?gracePeriodSeconds=0"),
        None,
    );
    assert_eq!(code, 200);
    assert_eq!(call(&mut s, "GET", &format!("{PODS}/web"), None).0, 404);

    // Finalizers hold a deleted object until the last one is removed.
    let mut d = deployment("held");
    d["metadata"]["finalizers"] = json!(["example.com/hold"]);
    call(&mut s, "POST", DEPLOYS, Some(d));
    let path = format!("{DEPLOYS}/held");
    let (code, pending) = call(&mut s, "DELETE", &path, None);
    assert_eq!(code, 200);
    assert!(
        pending["metadata"]["deletionTimestamp"].is_string(),
        "{pending}"
    );
    let (_, cur) = call(&mut s, "GET", &path, None);
    let (code, _) = call(
        &mut s,
        "PATCH",
        &path,
        Some(json!({"metadata":{"finalizers":null}})),
    );
    assert_eq!(code, 200);
    assert_eq!(call(&mut s, "GET", &path, None).0, 404, "{cur}");

    // Deleting a deployment answers with a Status.
    call(&mut s, "POST", DEPLOYS, Some(deployment("plain")));
    let (code, st) = call(&mut s, "DELETE", &format!("{DEPLOYS}/plain"), None);
    assert_eq!(
        (code, &st["status"], &st["details"]["kind"]),
        (200, &json!("Success"), &json!("deployments"))
    );
    // Preconditions.
    call(&mut s, "POST", PODS, Some(pod("pre")));
    let opts = json!({"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"nope"}});
    let (code, err) = call(&mut s, "DELETE", &format!("{PODS}/pre"), Some(opts));
    assert_eq!(code, 409);
    assert!(msg(&err).starts_with("Operation cannot be fulfilled on pods \"pre\": Precondition failed: UID in precondition: nope, UID in object meta: "), "{err}");
    let (code, err) = call(&mut s, "DELETE", "/api/v1/namespaces/default", None);
    assert_eq!(
        (code, msg(&err)),
        (
            403,
            "namespaces \"default\" is forbidden: this namespace may not be deleted"
        )
    );
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn paging_covers_every_object_exactly_once() {
    let mut s = ApiServer::new(1);
    for i in 0..25 {
        call(&mut s, "POST", PODS, Some(pod(&format!("p{i:02}"))));
    }
    let list_rv = s.revision();
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let path = match &token {
            Some(t) => format!("{PODS}?limit=10&continue={t}"),
            None => format!("{PODS}?limit=10"),
        };
        let (code, page) = call(&mut s, "GET", &path, None);
        assert_eq!(code, 200, "{page}");
        assert_eq!(page["kind"], "PodList");
        assert_eq!(page["metadata"]["resourceVersion"], list_rv.to_string());
        seen.extend(names(&page));
        // Writes between pages do not show up: the pages read the first page's revision.
        call(
            &mut s,
            "POST",
            PODS,
            Some(pod(&format!("late{}", seen.len()))),
        );
        match page["metadata"]["continue"].as_str() {
            Some(t) => {
                assert_eq!(
                    page["metadata"]["remainingItemCount"],
                    25 - seen.len() as u64
                );
                token = Some(t.to_string());
            }
            None => break,
        }
    }
    let want: Vec<String> = (0..25).map(|i| format!("p{i:02}")).collect();
    assert_eq!(seen, want);

    // A selector filters server side and still pages.
    let (_, filtered) = call(
        &mut s,
        "GET",
        &format!("{PODS}?labelSelector=app%3Dweb&limit=100"),
        None,
    );
    assert_eq!(names(&filtered).len(), 28);
    let (_, none) = call(
        &mut s,
        "GET",
        &format!("{PODS}?labelSelector=app%3Ddb"),
        None,
    );
    assert_eq!(names(&none).len(), 0);

    // A continue token whose revision was compacted is 410.
    let (_, first) = call(&mut s, "GET", &format!("{PODS}?limit=5"), None);
    let t = first["metadata"]["continue"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    call(&mut s, "POST", PODS, Some(pod("after")));
    call(&mut s, "POST", PODS, Some(pod("z-after")));
    s.compact_now().ok();
    let (code, err) = call(&mut s, "GET", &format!("{PODS}?limit=5&continue={t}"), None);
    assert_eq!(code, 410);
    assert_eq!(err["reason"], "Expired");
    assert_eq!(
        msg(&err),
        "The provided continue parameter is too old to display a consistent list result. \
         You can start a new list without the continue parameter, or use the continue token in \
         this response to retrieve the remainder of the results. Continuing with the provided \
         token results in an inconsistent list - objects that were created, modified, or deleted \
         between the time the first chunk was returned and now may show up in the list."
    );
    // The 410 carries a fresh token: the rest after the same key, read at the latest revision
    // ("z-after", created since the first page, shows up; "after" sorts before that key).
    let fresh = err["metadata"]["continue"].as_str().unwrap_or_default();
    assert!(!fresh.is_empty(), "{err}");
    let (code, rest) = call(
        &mut s,
        "GET",
        &format!("{PODS}?limit=100&continue={fresh}"),
        None,
    );
    assert_eq!(code, 200, "{rest}");
    assert_eq!(
        rest["metadata"]["resourceVersion"],
        s.revision().to_string()
    );
    let rest = names(&rest);
    let last_of_first = names(&first).last().cloned().unwrap_or_default();
    assert!(rest.iter().all(|n| *n > last_of_first), "{rest:?}");
    assert!(rest.contains(&"z-after".to_string()), "{rest:?}");
    let (code, _) = call(&mut s, "GET", &format!("{PODS}?continue=garbage!"), None);
    assert_eq!(code, 400);
}

#[test]
fn list_resource_version_semantics() {
    let mut s = ApiServer::new(1);
    call(&mut s, "POST", PODS, Some(pod("a")));
    let at_a = s.revision();
    call(&mut s, "POST", PODS, Some(pod("b")));
    let (_, now) = call(&mut s, "GET", PODS, None);
    assert_eq!(names(&now), vec!["a", "b"]);
    let (_, exact) = call(
        &mut s,
        "GET",
        &format!("{PODS}?resourceVersion={at_a}&resourceVersionMatch=Exact"),
        None,
    );
    assert_eq!(names(&exact), vec!["a"]);
    assert_eq!(exact["metadata"]["resourceVersion"], at_a.to_string());
    let (_, any) = call(
        &mut s,
        "GET",
        &format!("{PODS}?resourceVersion=0&limit=1"),
        None,
    );
    assert_eq!(
        names(&any).len(),
        2,
        "limit is ignored for resourceVersion=0"
    );
    let (_, not_older) = call(
        &mut s,
        "GET",
        &format!("{PODS}?resourceVersion={at_a}&resourceVersionMatch=NotOlderThan"),
        None,
    );
    assert_eq!(names(&not_older), vec!["a", "b"]);
    let future = s.revision() + 10;
    let (code, err) = call(
        &mut s,
        "GET",
        &format!("{PODS}?resourceVersion={future}&resourceVersionMatch=NotOlderThan"),
        None,
    );
    assert_eq!(code, 504);
    assert_eq!(
        msg(&err),
        format!(
            "Timeout: Too large resource version: {future}, current: {}",
            s.revision()
        )
    );
    s.compact_now().ok();
    let (code, err) = call(
        &mut s,
        "GET",
        &format!("{PODS}?resourceVersion={at_a}&resourceVersionMatch=Exact"),
        None,
    );
    assert_eq!(
        (code, msg(&err)),
        (410, "The resourceVersion for the provided list is too old.")
    );
    let (code, _) = call(
        &mut s,
        "GET",
        &format!("{PODS}?resourceVersionMatch=Exact"),
        None,
    );
    assert_eq!(code, 422);
}

#[test]
fn without_etcd_quorum_writes_and_quorum_reads_fail_and_cache_reads_answer() {
    let mut s = ApiServer::new(1);
    call(&mut s, "POST", PODS, Some(pod("a")));
    for m in ["etcd-1", "etcd-2"] {
        s.etcd_fault(&EtcdFault::Kill(m.into())).unwrap();
    }
    let rev = s.revision();
    let (code, err) = call(&mut s, "POST", PODS, Some(pod("b")));
    assert_eq!((code, msg(&err)), (500, "etcdserver: request timed out"));
    assert_eq!(call(&mut s, "DELETE", &format!("{PODS}/a"), None).0, 500);
    // A GET and a LIST without a resourceVersion are quorum reads of etcd (kube-apiserver
    // v1.32); a LIST at resourceVersion 0 is the watch cache's and answers.
    let (code, err) = call(&mut s, "GET", &format!("{PODS}/a"), None);
    assert_eq!((code, msg(&err)), (500, "etcdserver: request timed out"));
    assert_eq!(call(&mut s, "GET", PODS, None).0, 500);
    let (code, list) = call(&mut s, "GET", &format!("{PODS}?resourceVersion=0"), None);
    assert_eq!(code, 200);
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(s.revision(), rev);
    for m in ["etcd-1", "etcd-2"] {
        s.etcd_fault(&EtcdFault::Restore(m.into())).unwrap();
    }
    assert_eq!(call(&mut s, "POST", PODS, Some(pod("b"))).0, 201);
}

#[test]
fn users_are_recorded_in_the_ledger() {
    let mut s = ApiServer::new(1);
    let body = pod("a").to_string();
    let r = s
        .as_user("kube-scheduler")
        .request("POST", PODS, None, Some(&body));
    assert_eq!(r.code, 201);
    let e = s.ledger().iter().last().cloned();
    let e = e.as_ref();
    assert_eq!(
        e.map(|e| (&*e.user, e.verb, &*e.resource, e.name())),
        Some(("kube-scheduler", "create", "pods", "a"))
    );
    assert_eq!(e.map(|e| e.revision), Some(s.revision()));
}

#[test]
fn delete_collection_by_label() {
    let mut s = ApiServer::new(1);
    call(&mut s, "POST", PODS, Some(pod("a")));
    let mut other = pod("b");
    other["metadata"]["labels"] = json!({"app": "db"});
    call(&mut s, "POST", PODS, Some(other));
    let (code, list) = call(
        &mut s,
        "DELETE",
        &format!("{PODS}?labelSelector=app%3Dweb"),
        None,
    );
    assert_eq!(code, 200, "{list}");
    assert_eq!(names(&list), vec!["a"]);
    let (_, left) = call(&mut s, "GET", PODS, None);
    assert_eq!(names(&left), vec!["b"]);
}

/// `deletecollection` is advertised where the collection answers DELETE, and namespaces (whose
/// storage has none) answer it with go-restful's 405, changing nothing.
#[test]
fn deletecollection_is_discovered_where_served_and_namespaces_refuse_it() {
    let mut s = ApiServer::new(1);
    let (_, core) = call(&mut s, "GET", "/api/v1", None);
    let verbs = |list: &Value, name: &str| -> Vec<String> {
        list["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["name"] == name)
            .and_then(|r| serde_json::from_value(r["verbs"].clone()).ok())
            .unwrap_or_default()
    };
    assert_eq!(
        verbs(&core, "pods"),
        [
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch"
        ]
    );
    assert_eq!(
        verbs(&core, "namespaces"),
        ["create", "delete", "get", "list", "patch", "update", "watch"]
    );
    let before = s.revision();
    let (code, refused) = call(&mut s, "DELETE", "/api/v1/namespaces", None);
    assert_eq!(code, 405, "{refused}");
    assert_eq!(refused["reason"], "MethodNotAllowed");
    assert_eq!(
        msg(&refused),
        "the server does not allow this method on the requested resource"
    );
    assert_eq!(s.revision(), before, "nothing was deleted");
    let (_, apps) = call(&mut s, "GET", "/apis/apps/v1", None);
    assert!(verbs(&apps, "deployments").contains(&"deletecollection".to_string()));
    let (code, list) = call(&mut s, "DELETE", DEPLOYS, None);
    assert_eq!(code, 200, "{list}");
}

/// Clients write RFC 3339 with numeric offsets (the Python client sends `+00:00`): every time is
/// decoded as Go's `time.Parse(time.RFC3339, …)` does and written back in UTC with `Z`.
#[test]
fn times_with_numeric_offsets_are_accepted_and_written_in_utc() {
    let mut s = ApiServer::new(1);
    s.set_now(Timestamp::from_secs(5));
    let (code, mut created) = call(&mut s, "POST", PODS, Some(pod("web")));
    assert_eq!(code, 201, "{created}");
    // Read and written back as the Python client does it.
    created["metadata"]["creationTimestamp"] = json!("2026-01-01T00:00:05+00:00");
    let (code, replaced) = call(&mut s, "PUT", &format!("{PODS}/web"), Some(created));
    assert_eq!(code, 200, "{replaced}");
    assert_eq!(
        replaced["metadata"]["creationTimestamp"],
        "2026-01-01T00:00:05Z"
    );

    let node = json!({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},
        "spec":{"taints":[{"key":"k","effect":"NoExecute","timeAdded":"2026-01-01T09:00:07+09:00"}]}});
    let (code, created) = call(&mut s, "POST", "/api/v1/nodes", Some(node));
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["taints"][0]["timeAdded"],
        "2026-01-01T00:00:07Z"
    );

    let lease = json!({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},
        "spec":{"renewTime":"2026-01-01T01:00:08.250000+01:00"}});
    let path = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    let (code, created) = call(&mut s, "POST", path, Some(lease));
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["renewTime"], "2026-01-01T00:00:08.250000Z");

    let bad = json!({"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"},
        "spec":{"taints":[{"key":"k","effect":"NoExecute","timeAdded":"2026-01-01T00:00:07+0900"}]}});
    let (code, err) = call(&mut s, "POST", "/api/v1/nodes", Some(bad));
    assert_eq!(code, 400, "{err}");
    assert!(msg(&err).contains("invalid RFC 3339 time"), "{err}");
}

#[test]
fn ports_are_checked_as_a_service_s_and_the_protocol_defaults_to_tcp() {
    let mut api = ApiServer::new(1);
    let endpoints = |ports: serde_json::Value| {
        watchlab_engine::api::Object::from_value(
            watchlab_engine::api::Kind::Endpoints,
            serde_json::json!({"metadata": {"name": "bad", "namespace": "default"},
                "subsets": [{"addresses": [{"ip": "10.244.0.9"}], "ports": ports}]}),
        )
        .unwrap_or_else(|e| panic!("{}", e.message()))
    };
    let refused = api
        .create(
            "t",
            endpoints(serde_json::json!([{"port": 0, "protocol": "HTTP"}])),
        )
        .err()
        .map(|s| s.message().to_string());
    assert_eq!(
        refused.as_deref(),
        Some("Endpoints \"bad\" is invalid: [subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, subsets[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"]")
    );
    let created = api
        .create("t", endpoints(serde_json::json!([{"port": 8080}])))
        .ok();
    let protocol = match created.as_deref() {
        Some(watchlab_engine::api::Object::Endpoints(e)) => e.subsets[0].ports[0].protocol.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(protocol, "TCP");
}
