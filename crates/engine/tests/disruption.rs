//! PodDisruptionBudgets as `kubectl drain` meets them, through the controllers' harness on
//! virtual time: the disruption controller's status (`pkg/controller/disruption`), the
//! eviction subresource spending it and refusing with 429 once it is spent
//! (`pkg/registry/core/pod/storage/eviction.go`), the budget coming back when the
//! replacement pod is Ready, unready pods, two budgets, a status behind its spec, dry runs,
//! validation, and the Table.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::pod::is_pod_ready;
use watchlab_engine::api::Kind;
use watchlab_engine::controllers::{Harness, Profile};

const PDBS: &str = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
const PODS: &str = "/api/v1/namespaces/default/pods";

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

fn deployment(name: &str, replicas: i32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
      "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
          "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}})
}

fn budget(name: &str, app: &str, bound: Value) -> Value {
    let mut spec = json!({"selector": {"matchLabels": {"app": app}}});
    if let (Some(spec), Some(bound)) = (spec.as_object_mut(), bound.as_object()) {
        spec.extend(bound.clone());
    }
    json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": name}, "spec": spec})
}

/// A cluster of three nodes running `web` (3 replicas, all Ready) and the budget `web`.
fn cluster_with(bound: Value) -> Harness {
    let mut h = Harness::new(7, &Profile::training(), &["node-a", "node-b", "node-c"]);
    h.run_for(2_000);
    ok(
        &mut h,
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        Some(deployment("web", 3)),
    );
    ok(&mut h, "POST", PDBS, Some(budget("web", "web", bound)));
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| ready_pods(h).len() == 3
        && allowed(h, "web") >= 0));
    h.run_for(1_000);
    h
}

fn status(h: &mut Harness, name: &str) -> Value {
    ok(h, "GET", &format!("{PDBS}/{name}"), None)["status"].clone()
}

fn allowed(h: &Harness, name: &str) -> i64 {
    let Some(obj) = h.api.peek(Kind::PodDisruptionBudget, Some("default"), name) else {
        return -1;
    };
    match obj.as_pod_disruption_budget() {
        Some(p) if p.status.observed_generation >= 1 => i64::from(p.status.disruptions_allowed),
        _ => -1,
    }
}

/// The Ready pods not terminating, by name.
fn ready_pods(h: &Harness) -> Vec<String> {
    h.api
        .peek_all(Kind::Pod)
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.metadata.deletion_timestamp.is_none() && is_pod_ready(p))
        .map(|p| p.metadata.name.clone())
        .collect()
}

fn evict(h: &mut Harness, pod: &str, query: &str) -> (u16, Value) {
    let body = json!({"apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": pod, "namespace": "default"}});
    call(
        h,
        "POST",
        &format!("{PODS}/{pod}/eviction{query}"),
        Some(body),
    )
}

#[test]
fn the_controller_counts_the_budget_and_an_eviction_spends_it_until_a_429() {
    let mut h = cluster_with(json!({"minAvailable": 2}));
    let s = status(&mut h, "web");
    assert_eq!(
        (
            &s["expectedPods"],
            &s["desiredHealthy"],
            &s["currentHealthy"],
            &s["disruptionsAllowed"]
        ),
        (&json!(3), &json!(2), &json!(3), &json!(1)),
        "{s}"
    );
    assert_eq!(s["observedGeneration"], 1);
    let cond = &s["conditions"][0];
    assert_eq!(
        (&cond["type"], &cond["status"]),
        (&json!("DisruptionAllowed"), &json!("True"))
    );
    assert_eq!(
        (&cond["reason"], &cond["message"]),
        (&json!("SufficientPods"), &json!(""))
    );

    let pods = ready_pods(&h);
    let (code, out) = evict(&mut h, &pods[0], "");
    assert_eq!(code, 201, "{out}");
    // The eviction itself spent the budget and named the pod, before any controller ran.
    let s = status(&mut h, "web");
    assert_eq!(s["disruptionsAllowed"], 0, "{s}");
    assert!(s["disruptedPods"][&pods[0]].is_string(), "{s}");
    assert_eq!(s["conditions"][0]["reason"], "InsufficientPods");

    // The controller sees the evicted pod terminating: 2 healthy now.
    h.run_for(100);
    let (code, out) = evict(&mut h, &pods[1], "");
    assert_eq!(code, 429, "{out}");
    assert_eq!(out["reason"], "TooManyRequests");
    assert_eq!(
        out["message"],
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(out["details"]["causes"][0]["reason"], "DisruptionBudget");
    assert_eq!(
        out["details"]["causes"][0]["message"],
        "The disruption budget web needs 2 healthy pods and has 2 currently"
    );
    // The pod is untouched.
    let pod = ok(&mut h, "GET", &format!("{PODS}/{}", pods[1]), None);
    assert!(pod["metadata"]["deletionTimestamp"].is_null());

    // The ReplicaSet replaces the evicted pod; once it is Ready the budget allows one again,
    // and the evicted pod, gone, has left disruptedPods.
    let deadline = h.now().plus_secs(120);
    assert!(h.run_until_true(deadline, |h| allowed(h, "web") == 1));
    let s = status(&mut h, "web");
    assert!(s["disruptedPods"].is_null(), "{s}");
    assert_eq!(evict(&mut h, &pods[1], "").0, 201);
}

#[test]
fn a_percentage_is_scaled_on_the_deployments_replicas() {
    let mut h = cluster_with(json!({"maxUnavailable": "34%"}));
    let s = status(&mut h, "web");
    // 34% of 3 rounds up to 2 unavailable: 1 must stay healthy, 2 may go.
    assert_eq!(
        (&s["expectedPods"], &s["desiredHealthy"]),
        (&json!(3), &json!(1)),
        "{s}"
    );
    assert_eq!(s["disruptionsAllowed"], 2);
    // A Table row as kubectl get pdb prints it.
    let r = h
        .api
        .get_accepting(PDBS, "application/json;as=Table;v=v1;g=meta.k8s.io");
    let table: Value = serde_json::from_str(&r.body).unwrap_or_default();
    let names: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Name",
            "Min Available",
            "Max Unavailable",
            "Allowed Disruptions",
            "Age"
        ]
    );
    let cells = &table["rows"][0]["cells"];
    assert_eq!(
        (&cells[1], &cells[2], &cells[3]),
        (&json!("N/A"), &json!("34%"), &json!(2))
    );
}

#[test]
fn a_dry_run_eviction_checks_the_budget_and_spends_nothing() {
    let mut h = cluster_with(json!({"minAvailable": 2}));
    let pods = ready_pods(&h);
    let before = ok(&mut h, "GET", &format!("{PDBS}/web"), None);
    assert_eq!(evict(&mut h, &pods[0], "?dryRun=All").0, 201);
    let after = ok(&mut h, "GET", &format!("{PDBS}/web"), None);
    assert_eq!(
        before["metadata"]["resourceVersion"],
        after["metadata"]["resourceVersion"]
    );
    assert_eq!(ready_pods(&h).len(), 3);
    // With the budget at zero, the dry run is refused as the real one would be.
    ok(
        &mut h,
        "PATCH",
        &format!("{PDBS}/web"),
        Some(json!({"spec": {"minAvailable": 3}})),
    );
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| allowed(h, "web") == 0));
    assert_eq!(evict(&mut h, &pods[0], "?dryRun=All").0, 429);
}

#[test]
fn a_status_behind_its_spec_answers_still_being_processed() {
    let mut h = cluster_with(json!({"minAvailable": 1}));
    // A spec change bumps the generation; until the controller has seen it, evictions wait.
    ok(
        &mut h,
        "PATCH",
        &format!("{PDBS}/web"),
        Some(json!({"spec": {"minAvailable": 2}})),
    );
    let pods = ready_pods(&h);
    let (code, out) = evict(&mut h, &pods[0], "");
    assert_eq!(code, 429, "{out}");
    assert_eq!(out["details"]["retryAfterSeconds"], 10);
    assert_eq!(
        out["details"]["causes"][0]["message"],
        "The disruption budget web is still being processed by the server."
    );
    h.run_for(100);
    let s = status(&mut h, "web");
    assert_eq!(
        (&s["observedGeneration"], &s["disruptionsAllowed"]),
        (&json!(2), &json!(1))
    );
    assert_eq!(evict(&mut h, &pods[0], "").0, 201);
}

#[test]
fn two_budgets_on_one_pod_fail_the_eviction_and_an_unselected_pod_goes_freely() {
    let mut h = cluster_with(json!({"minAvailable": 3}));
    ok(
        &mut h,
        "POST",
        PDBS,
        Some(budget("also", "web", json!({"maxUnavailable": 1}))),
    );
    h.run_for(100);
    let pods = ready_pods(&h);
    let (code, out) = evict(&mut h, &pods[0], "");
    assert_eq!(code, 500, "{out}");
    assert_eq!(
        out["message"],
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    );
    // A budget with an empty selector selects nothing for the eviction.
    ok(&mut h, "DELETE", &format!("{PDBS}/also"), None);
    ok(&mut h, "DELETE", &format!("{PDBS}/web"), None);
    let mut empty = budget("none", "x", json!({"minAvailable": 3}));
    empty["spec"]["selector"] = json!({});
    ok(&mut h, "POST", PDBS, Some(empty));
    h.run_for(100);
    assert_eq!(evict(&mut h, &pods[0], "").0, 201);
}

/// A pod of `web` that runs and never turns Ready (its readiness probe answers 503).
fn sick_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"},
          "annotations": {"watchlab.dev/behaviour": "fail-readiness"}},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
          "readinessProbe": {"httpGet": {"path": "/ready", "port": 80}}}]}})
}

fn phase(h: &Harness, name: &str) -> String {
    h.api
        .peek(Kind::Pod, Some("default"), name)
        .and_then(|o| o.as_pod().map(|p| p.status.phase.to_string()))
        .unwrap_or_default()
}

#[test]
fn an_unready_pod_is_evicted_while_the_budget_is_healthy_or_when_it_always_allows() {
    let mut h = cluster_with(json!({"minAvailable": 4}));
    ok(&mut h, "POST", PODS, Some(sick_pod("sick-1")));
    ok(&mut h, "POST", PODS, Some(sick_pod("sick-2")));
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| {
        phase(h, "sick-1") == "Running" && phase(h, "sick-2") == "Running"
    }));
    h.run_for(1_000);
    let s = status(&mut h, "web");
    assert_eq!(
        (&s["expectedPods"], &s["currentHealthy"]),
        (&json!(5), &json!(3)),
        "{s}"
    );
    // 3 healthy of 4 desired: the budget is not healthy, so an unready pod is kept too.
    let (code, out) = evict(&mut h, "sick-1", "");
    assert_eq!(code, 429, "{out}");
    // AlwaysAllow lets an unready pod go whatever the budget, without spending it.
    let always = json!({"spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}});
    ok(&mut h, "PATCH", &format!("{PDBS}/web"), Some(always));
    h.run_for(100);
    let (code, out) = evict(&mut h, "sick-1", "");
    assert_eq!(code, 201, "{out}");
    assert!(status(&mut h, "web")["disruptedPods"].is_null());
    // IfHealthyBudget (the default) lets it go once the budget has its healthy pods.
    let healthy = json!({"spec": {"unhealthyPodEvictionPolicy": null, "minAvailable": 3}});
    ok(&mut h, "PATCH", &format!("{PDBS}/web"), Some(healthy));
    h.run_for(100);
    assert_eq!(status(&mut h, "web")["disruptionsAllowed"], 0);
    let (code, out) = evict(&mut h, "sick-2", "");
    assert_eq!(code, 201, "{out}");
    // A Ready pod is still held: the budget allows no disruption.
    let pods = ready_pods(&h);
    assert_eq!(evict(&mut h, &pods[0], "").0, 429);
}

#[test]
fn bad_budgets_are_refused_with_the_real_messages() {
    let mut h = Harness::new(1, &Profile::training(), &["node-a"]);
    let cases = [
        (json!({"minAvailable": 1, "maxUnavailable": 1}), "minAvailable and maxUnavailable cannot be both set"),
        (json!({"minAvailable": -1}), "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
        (json!({"maxUnavailable": "150%"}), "spec.maxUnavailable: Invalid value: \"150%\": must not be greater than 100%"),
        (json!({"unhealthyPodEvictionPolicy": "Sometimes"}), "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\""),
    ];
    for (bound, text) in cases {
        let (code, out) = call(&mut h, "POST", PDBS, Some(budget("bad", "web", bound)));
        assert_eq!(code, 422, "{out}");
        let msg = out["message"].as_str().unwrap_or_default();
        assert!(
            msg.starts_with("PodDisruptionBudget.policy \"bad\" is invalid"),
            "{msg}"
        );
        assert!(msg.contains(text), "{msg}");
    }
    assert_eq!(call(&mut h, "GET", &format!("{PDBS}/bad"), None).0, 404);
    // A status below zero is refused through the status subresource.
    ok(
        &mut h,
        "POST",
        PDBS,
        Some(budget("good", "web", json!({"minAvailable": 1}))),
    );
    let mut pdb = ok(&mut h, "GET", &format!("{PDBS}/good"), None);
    pdb["status"]["currentHealthy"] = json!(-1);
    let (code, out) = call(&mut h, "PUT", &format!("{PDBS}/good/status"), Some(pdb));
    assert_eq!(code, 422, "{out}");
}

#[test]
fn a_budget_of_unmanaged_pods_by_percentage_warns_and_a_missing_controller_fails_safe() {
    let mut h = Harness::new(3, &Profile::training(), &["node-a"]);
    h.run_for(2_000);
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "lonely", "labels": {"app": "solo"}},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}});
    ok(&mut h, "POST", PODS, Some(pod));
    ok(
        &mut h,
        "POST",
        PDBS,
        Some(budget("solo", "solo", json!({"minAvailable": "50%"}))),
    );
    h.run_for(5_000);
    let events = ok(&mut h, "GET", "/api/v1/namespaces/default/events", None);
    let reasons: Vec<&str> = events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["involvedObject"]["kind"] == "PodDisruptionBudget")
        .filter_map(|e| e["reason"].as_str())
        .collect();
    assert!(reasons.contains(&"UnmanagedPods"), "{reasons:?}");
    let s = status(&mut h, "solo");
    assert_eq!(
        (&s["expectedPods"], &s["disruptionsAllowed"]),
        (&json!(0), &json!(0)),
        "{s}"
    );
    // A pod whose controller is of no kind the controller can scale (a ConfigMap): the sync
    // fails safe.
    let holder = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "holder"}});
    let holder = ok(
        &mut h,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some(holder),
    );
    let orphan = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "orphan", "labels": {"app": "solo"},
          "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "holder",
            "uid": holder["metadata"]["uid"], "controller": true}]},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}});
    ok(&mut h, "POST", PODS, Some(orphan));
    h.run_for(2_000);
    let s = status(&mut h, "solo");
    let cond = &s["conditions"][0];
    assert_eq!(
        (&cond["status"], &cond["reason"]),
        (&json!("False"), &json!("SyncFailed")),
        "{s}"
    );
    assert_eq!(cond["message"], "found no controllers for pod \"orphan\"");
}
