//! The DaemonSet controller end to end through the controllers' harness on virtual time
//! (pkg/controller/daemon): one pod per node bound by its node-name affinity, nodes added,
//! selected out and tainted, the status counts, the rolling update with maxUnavailable and
//! with maxSurge checked at every instant, OnDelete, the ControllerRevisions across updates and
//! a revert, failed daemon pods replaced, and the node-affinity rules the API server and the
//! scheduler apply to any pod.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::pod::{is_pod_ready, Pod};
use watchlab_engine::api::Kind;
use watchlab_engine::controllers::daemonset::DaemonSetController;
use watchlab_engine::controllers::{Harness, Profile};

const DS: &str = "/apis/apps/v1/namespaces/default/daemonsets";
const PODS: &str = "/api/v1/namespaces/default/pods";
const NODES: [&str; 3] = ["node-a", "node-b", "node-c"];

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

/// A DaemonSet `name` running `image`, with `spec` merged into its spec and `pod` into its
/// pod template's spec.
fn daemon_set(name: &str, image: &str, spec: Value, pod: Value) -> Value {
    let mut template_spec = json!({"containers": [{"name": "agent", "image": image}]});
    merge(&mut template_spec, pod);
    let mut s = json!({"selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": template_spec}});
    merge(&mut s, spec);
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name}, "spec": s})
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(a), Value::Object(b)) = (into.as_object_mut(), from) {
        a.extend(b);
    }
}

fn cluster(nodes: &[&str]) -> Harness {
    let mut h = Harness::new(11, &Profile::training(), nodes);
    h.run_for(2_000);
    h
}

fn pods_of(h: &Harness, ds: &str) -> Vec<Pod> {
    h.api
        .list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.metadata.labels.get("app").is_some_and(|a| a == ds))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// The node each live pod of `ds` is for (its affinity's one name), sorted.
fn nodes_of(h: &Harness, ds: &str) -> Vec<String> {
    let mut nodes: Vec<String> = pods_of(h, ds)
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter_map(affinity_node)
        .collect();
    nodes.sort();
    nodes
}

fn affinity_node(p: &Pod) -> Option<String> {
    let terms = &p.spec.required_node_affinity()?.node_selector_terms;
    let r = terms.first()?.match_fields.first()?;
    assert_eq!(
        (r.key.as_str(), r.operator.as_str()),
        ("metadata.name", "In")
    );
    r.values.first().cloned()
}

fn ready_on_every(h: &Harness, ds: &str, nodes: &[&str]) -> bool {
    let pods = pods_of(h, ds);
    nodes.iter().all(|n| {
        pods.iter().any(|p| {
            p.spec.node_name == *n && is_pod_ready(p) && p.metadata.deletion_timestamp.is_none()
        })
    })
}

fn status(h: &mut Harness, ds: &str) -> Value {
    ok(h, "GET", &format!("{DS}/{ds}"), None)["status"].clone()
}

fn events(h: &mut Harness, reason: &str) -> Vec<String> {
    let v = ok(h, "GET", "/api/v1/namespaces/default/events", None);
    v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["reason"] == reason)
        .map(|e| {
            assert_eq!(e["source"]["component"], "daemonset-controller");
            e["message"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

fn create_and_settle(h: &mut Harness, body: Value, nodes: &[&str]) {
    let name = body["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    ok(h, "POST", DS, Some(body));
    let deadline = h.now().plus_secs(120);
    assert!(
        h.run_until_true(deadline, |h| ready_on_every(h, &name, nodes)),
        "{name} never ran on {nodes:?}: {:?}",
        nodes_of(h, &name)
    );
    h.run_for(2_000);
}

#[test]
fn one_pod_per_node_bound_by_its_node_name_affinity_and_counted() {
    let mut h = cluster(&NODES);
    create_and_settle(
        &mut h,
        daemon_set("agent", "fluentd:1", json!({}), json!({})),
        &NODES,
    );
    let pods = pods_of(&h, "agent");
    assert_eq!(pods.len(), 3);
    for p in &pods {
        assert!(p.metadata.name.starts_with("agent-"), "{}", p.metadata.name);
        assert_eq!(affinity_node(p).as_deref(), Some(p.spec.node_name.as_str()));
        let owner = p
            .metadata
            .controller_ref()
            .map(|r| (r.kind.clone(), r.name.clone()));
        assert_eq!(owner, Some(("DaemonSet".into(), "agent".into())));
        assert_eq!(
            p.metadata
                .labels
                .get("pod-template-generation")
                .map(String::as_str),
            Some("1")
        );
        assert!(p.metadata.labels.contains_key("controller-revision-hash"));
        let tolerated: Vec<(&str, &str)> = p
            .spec
            .tolerations
            .iter()
            .map(|t| (&*t.key, &*t.effect))
            .collect();
        for t in [
            ("node.kubernetes.io/not-ready", "NoExecute"),
            ("node.kubernetes.io/unreachable", "NoExecute"),
            ("node.kubernetes.io/disk-pressure", "NoSchedule"),
            ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ] {
            assert!(tolerated.contains(&t), "{t:?} in {tolerated:?}");
        }
        assert!(p
            .spec
            .tolerations
            .iter()
            .all(|t| t.toleration_seconds.is_none()));
    }
    assert_eq!(nodes_of(&h, "agent"), NODES);
    let s = status(&mut h, "agent");
    for (field, n) in [
        ("desiredNumberScheduled", 3),
        ("currentNumberScheduled", 3),
        ("numberReady", 3),
        ("numberAvailable", 3),
        ("updatedNumberScheduled", 3),
        ("numberMisscheduled", 0),
        ("observedGeneration", 1),
    ] {
        assert_eq!(s[field], n, "{field}: {s}");
    }
    assert!(s.get("numberUnavailable").is_none(), "{s}");
    let created = events(&mut h, "SuccessfulCreate");
    assert_eq!(created.len(), 3);
    assert!(
        created.iter().all(|m| m.starts_with("Created pod: agent-")),
        "{created:?}"
    );
}

fn label_node(h: &mut Harness, node: &str, value: Value) {
    let body = json!({"metadata": {"labels": {"disk": value}}});
    ok(h, "PATCH", &format!("/api/v1/nodes/{node}"), Some(body));
}

#[test]
fn a_node_selector_picks_nodes_and_a_node_that_comes_or_stops_matching_gains_or_loses_its_pod() {
    let mut h = cluster(&NODES);
    label_node(&mut h, "node-a", json!("ssd"));
    label_node(&mut h, "node-b", json!("ssd"));
    let ds = daemon_set(
        "ssd",
        "agent:1",
        json!({}),
        json!({"nodeSelector": {"disk": "ssd"}}),
    );
    create_and_settle(&mut h, ds, &["node-a", "node-b"]);
    assert_eq!(nodes_of(&h, "ssd"), ["node-a", "node-b"]);
    assert_eq!(status(&mut h, "ssd")["desiredNumberScheduled"], 2);
    // node-c gets the label: it gets a pod; node-a loses it: its pod is deleted.
    label_node(&mut h, "node-c", json!("ssd"));
    label_node(&mut h, "node-a", Value::Null);
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| nodes_of(h, "ssd") == ["node-b", "node-c"]));
    let deleted = events(&mut h, "SuccessfulDelete");
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    assert!(deleted.iter().all(|m| m.starts_with("Deleted pod: ssd-")));
    // A node registered now gets its pod at once (bound by the scheduler while it is Ready).
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-d", "labels": {"disk": "ssd"}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}],
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    ok(&mut h, "POST", "/api/v1/nodes", Some(node));
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| nodes_of(h, "ssd").len() == 3));
    assert_eq!(nodes_of(&h, "ssd"), ["node-b", "node-c", "node-d"]);
    let deadline = h.now().plus_secs(5);
    assert!(h.run_until_true(deadline, |h| pods_of(h, "ssd")
        .iter()
        .any(|p| p.spec.node_name == "node-d")));
    assert_eq!(status(&mut h, "ssd")["desiredNumberScheduled"], 3);
}

fn taint(h: &mut Harness, node: &str, taints: Value) {
    let body = json!({"spec": {"taints": taints}});
    ok(h, "PATCH", &format!("/api/v1/nodes/{node}"), Some(body));
}

#[test]
fn no_schedule_keeps_new_pods_off_unless_tolerated_and_no_execute_takes_the_pod_away() {
    let mut h = cluster(&NODES);
    taint(
        &mut h,
        "node-c",
        json!([{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]),
    );
    let tolerant = json!({"tolerations": [{"key": "dedicated", "operator": "Exists"}]});
    create_and_settle(
        &mut h,
        daemon_set("plain", "a:1", json!({}), json!({})),
        &NODES[..2],
    );
    create_and_settle(
        &mut h,
        daemon_set("tolerant", "a:1", json!({}), tolerant),
        &NODES,
    );
    assert_eq!(nodes_of(&h, "plain"), ["node-a", "node-b"]);
    assert_eq!(nodes_of(&h, "tolerant"), NODES);
    // A NoSchedule taint on a node that already runs the pod: it stays.
    taint(
        &mut h,
        "node-b",
        json!([{"key": "maintenance", "effect": "NoSchedule"}]),
    );
    h.run_for(10_000);
    assert_eq!(nodes_of(&h, "plain"), ["node-a", "node-b"]);
    let s = status(&mut h, "plain");
    assert_eq!(
        (
            s["desiredNumberScheduled"].clone(),
            s["numberMisscheduled"].clone()
        ),
        (json!(1), json!(1))
    );
    // NoExecute: the pod goes and is not recreated.
    taint(
        &mut h,
        "node-b",
        json!([{"key": "maintenance", "effect": "NoExecute"}]),
    );
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| nodes_of(h, "plain") == ["node-a"]));
    h.run_for(10_000);
    assert_eq!(nodes_of(&h, "plain"), ["node-a"]);
}

/// Nodes without a Ready, non-terminating pod of `ds`.
fn unavailable(h: &Harness, ds: &str, nodes: &[&str]) -> usize {
    nodes.len() - nodes.iter().filter(|n| ready_on_every(h, ds, &[n])).count()
}

fn images(h: &Harness, ds: &str) -> Vec<String> {
    let mut v: Vec<String> = pods_of(h, ds)
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter_map(|p| p.spec.containers.first().map(|c| c.image.clone()))
        .collect();
    v.sort();
    v
}

fn set_image(h: &mut Harness, ds: &str, image: &str) {
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "agent", "image": image}]}}}});
    ok(h, "PATCH", &format!("{DS}/{ds}"), Some(patch));
}

const FOUR: [&str; 4] = ["node-a", "node-b", "node-c", "node-d"];

#[test]
fn a_rolling_update_never_leaves_more_than_max_unavailable_nodes_without_an_available_pod() {
    let mut h = cluster(&FOUR);
    let strategy = json!({"updateStrategy": {"type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1}}});
    create_and_settle(
        &mut h,
        daemon_set("roll", "agent:1", strategy, json!({})),
        &FOUR,
    );
    set_image(&mut h, "roll", "agent:2");
    let mut worst = 0;
    let deadline = h.now().plus_secs(300);
    let done = h.run_until_true(deadline, |h| {
        worst = worst.max(unavailable(h, "roll", &FOUR));
        images(h, "roll") == ["agent:2"; 4] && unavailable(h, "roll", &FOUR) == 0
    });
    assert!(done, "{:?}", images(&h, "roll"));
    assert_eq!(worst, 1, "one node at a time");
    h.run_for(2_000);
    let s = status(&mut h, "roll");
    assert_eq!(
        (
            s["updatedNumberScheduled"].clone(),
            s["numberAvailable"].clone()
        ),
        (json!(4), json!(4))
    );
    assert_eq!(s["observedGeneration"], 2);
}

#[test]
fn with_max_surge_the_new_pod_runs_before_the_old_one_is_deleted() {
    let mut h = cluster(&FOUR);
    let strategy = json!({"updateStrategy": {"type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}});
    create_and_settle(
        &mut h,
        daemon_set("surge", "agent:1", strategy, json!({})),
        &FOUR,
    );
    set_image(&mut h, "surge", "agent:2");
    let (mut worst, mut most_pods) = (0, 0);
    let deadline = h.now().plus_secs(300);
    let done = h.run_until_true(deadline, |h| {
        worst = worst.max(unavailable(h, "surge", &FOUR));
        let live = pods_of(h, "surge")
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .count();
        most_pods = most_pods.max(live);
        images(h, "surge") == ["agent:2"; 4] && unavailable(h, "surge", &FOUR) == 0
    });
    assert!(done, "{:?}", images(&h, "surge"));
    assert_eq!(worst, 0, "every node keeps an available pod");
    assert_eq!(most_pods, 5, "one node at a time runs two");
}

#[test]
fn on_delete_replaces_only_the_pods_that_are_deleted() {
    let mut h = cluster(&NODES);
    let strategy = json!({"updateStrategy": {"type": "OnDelete"}});
    create_and_settle(
        &mut h,
        daemon_set("lazy", "agent:1", strategy, json!({})),
        &NODES,
    );
    set_image(&mut h, "lazy", "agent:2");
    h.run_for(30_000);
    assert_eq!(images(&h, "lazy"), ["agent:1"; 3]);
    let victim = pods_of(&h, "lazy")
        .into_iter()
        .find(|p| p.spec.node_name == "node-b")
        .map(|p| p.metadata.name)
        .unwrap_or_default();
    ok(&mut h, "DELETE", &format!("{PODS}/{victim}"), None);
    let deadline = h.now().plus_secs(120);
    assert!(
        h.run_until_true(deadline, |h| ready_on_every(h, "lazy", &NODES)
            && images(h, "lazy") == ["agent:1", "agent:1", "agent:2"])
    );
    let on_b = pods_of(&h, "lazy")
        .into_iter()
        .find(|p| p.spec.node_name == "node-b" && p.metadata.deletion_timestamp.is_none());
    assert_eq!(
        on_b.and_then(|p| p.spec.containers.first().map(|c| c.image.clone()))
            .as_deref(),
        Some("agent:2")
    );
    h.run_for(2_000);
    assert_eq!(status(&mut h, "lazy")["updatedNumberScheduled"], 1);
}

/// (name, revision, hash label) of every ControllerRevision, by revision.
fn revisions(h: &mut Harness) -> Vec<(String, i64, String)> {
    let v = ok(
        h,
        "GET",
        "/apis/apps/v1/namespaces/default/controllerrevisions",
        None,
    );
    let mut out: Vec<(String, i64, String)> = v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            assert_eq!(r["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
            assert_eq!(r["data"]["spec"]["template"]["$patch"], "replace");
            let hash = r["metadata"]["labels"]["controller-revision-hash"]
                .as_str()
                .unwrap_or("");
            (
                r["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                r["revision"].as_i64().unwrap_or(0),
                hash.to_string(),
            )
        })
        .collect();
    out.sort_by_key(|r| r.1);
    out
}

#[test]
fn revisions_count_up_and_a_revert_reuses_its_revision_with_a_new_number() {
    let mut h = cluster(&NODES);
    let ds = daemon_set(
        "hist",
        "agent:1",
        json!({"revisionHistoryLimit": 2}),
        json!({}),
    );
    create_and_settle(&mut h, ds, &NODES);
    let first = revisions(&mut h);
    assert_eq!(first.len(), 1);
    let (name1, _, hash1) = first[0].clone();
    assert_eq!(name1, format!("hist-{hash1}"));
    assert_eq!(first[0].1, 1);
    for image in ["agent:2", "agent:3"] {
        set_image(&mut h, "hist", image);
        let deadline = h.now().plus_secs(300);
        assert!(
            h.run_until_true(deadline, |h| images(h, "hist") == [image; 3]
                && ready_on_every(h, "hist", &NODES))
        );
    }
    let revs = revisions(&mut h);
    assert_eq!(revs.iter().map(|r| r.1).collect::<Vec<_>>(), [1, 2, 3]);
    // Back to the first template: `kubectl rollout undo --to-revision=1` patches the
    // DaemonSet with the revision's data. Its revision is reused as number 4, no new one made.
    let path = format!("/apis/apps/v1/namespaces/default/controllerrevisions/{name1}");
    let data = ok(&mut h, "GET", &path, None)["data"].clone();
    let ct = Some("application/strategic-merge-patch+json");
    let r = h
        .api
        .request("PATCH", &format!("{DS}/hist"), ct, Some(&data.to_string()));
    assert_eq!(r.code, 200, "{}", r.body);
    let deadline = h.now().plus_secs(300);
    assert!(
        h.run_until_true(deadline, |h| images(h, "hist") == ["agent:1"; 3]
            && ready_on_every(h, "hist", &NODES))
    );
    h.run_for(2_000);
    let revs = revisions(&mut h);
    assert_eq!(
        revs.last().map(|r| (r.0.clone(), r.1)),
        Some((name1.clone(), 4))
    );
    assert_eq!(revs.len(), 3, "{revs:?}");
    // The pods carry the reused revision's hash.
    assert!(pods_of(&h, "hist")
        .iter()
        .all(|p| p.metadata.labels.get("controller-revision-hash") == Some(&hash1)));
    // One more template: four revisions, beyond the limit of two old ones: the oldest goes.
    set_image(&mut h, "hist", "agent:4");
    let deadline = h.now().plus_secs(300);
    assert!(
        h.run_until_true(deadline, |h| images(h, "hist") == ["agent:4"; 3]
            && ready_on_every(h, "hist", &NODES))
    );
    h.run_for(2_000);
    let numbers: Vec<i64> = revisions(&mut h).iter().map(|r| r.1).collect();
    assert_eq!(numbers, [3, 4, 5]);
}

#[test]
fn a_failed_daemon_pod_is_deleted_with_a_warning_and_replaced() {
    let mut h = cluster(&NODES);
    create_and_settle(
        &mut h,
        daemon_set("fail", "agent:1", json!({}), json!({})),
        &NODES,
    );
    let victim = pods_of(&h, "fail")
        .into_iter()
        .find(|p| p.spec.node_name == "node-a")
        .map(|p| p.metadata.name)
        .unwrap_or_default();
    let status = json!({"status": {"phase": "Failed"}});
    ok(
        &mut h,
        "PATCH",
        &format!("{PODS}/{victim}/status"),
        Some(status),
    );
    let deadline = h.now().plus_secs(120);
    assert!(h.run_until_true(deadline, |h| {
        pods_of(h, "fail").iter().all(|p| p.metadata.name != victim)
            && ready_on_every(h, "fail", &NODES)
    }));
    let warnings = events(&mut h, "FailedDaemonPod");
    assert_eq!(
        warnings,
        [format!(
            "Found failed daemon pod default/{victim} on node node-a, will try to kill it"
        )]
    );
}

#[test]
fn without_a_daemon_set_the_controller_keeps_no_state_and_writes_nothing() {
    let mut h = cluster(&NODES);
    ok(
        &mut h,
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        Some(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
          "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}})),
    );
    h.run_for(30_000);
    let c = h
        .plane
        .reconciler::<DaemonSetController>()
        .expect("in the list");
    assert_eq!(c.tracked(), 0);
    let writes = h
        .api
        .ledger()
        .iter()
        .filter(|e| &*e.user == "daemon-set-controller")
        .count();
    assert_eq!(writes, 0);
}

fn pod_with_affinity(name: &str, affinity: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], "affinity": affinity}})
}

#[test]
fn node_affinity_is_validated_with_the_real_texts() {
    let mut h = cluster(&["node-a"]);
    let bad = json!({"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [
                {"key": "zone", "operator": "In"},
                {"key": "zone", "operator": "Exists", "values": ["a"]},
                {"key": "size", "operator": "Gt", "values": ["1", "2"]},
                {"key": "zone", "operator": "Near", "values": ["a"]}],
             "matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["a", "b"]},
                {"key": "metadata.uid", "operator": "Exists"}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 0, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}]}});
    let (code, v) = call(&mut h, "POST", PODS, Some(pod_with_affinity("bad", bad)));
    assert_eq!(code, 422, "{v}");
    let msg = v["message"].as_str().unwrap_or_default();
    let t = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]";
    for want in [
        format!("{t}.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        format!("{t}.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        format!("{t}.matchExpressions[2].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"),
        format!("{t}.matchExpressions[3].operator: Invalid value: \"Near\": not a valid selector operator"),
        format!("{t}.matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
        format!("{t}.matchFields[1].operator: Invalid value: \"Exists\": not a valid selector operator"),
        format!("{t}.matchFields[1].key: Invalid value: \"metadata.uid\": not a valid field selector key"),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100".to_string(),
    ] {
        assert!(msg.contains(&want), "{want}\nnot in\n{msg}");
    }
    let empty = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}});
    let (code, v) = call(
        &mut h,
        "POST",
        PODS,
        Some(pod_with_affinity("empty", empty)),
    );
    assert_eq!(code, 422);
    assert!(v["message"].as_str().unwrap_or_default().contains(
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"
    ), "{v}");
}

#[test]
fn the_scheduler_holds_a_pod_to_its_required_node_affinity() {
    let mut h = cluster(&NODES);
    let body = json!({"metadata": {"labels": {"zone": "b", "gen": "3"}}});
    ok(&mut h, "PATCH", "/api/v1/nodes/node-b", Some(body));
    let zone_b = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]},
            {"key": "gen", "operator": "Gt", "values": ["2"]}]}]}}});
    let nowhere = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["b"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-b"]}]}]}}});
    ok(
        &mut h,
        "POST",
        PODS,
        Some(pod_with_affinity("zoned", zone_b)),
    );
    ok(
        &mut h,
        "POST",
        PODS,
        Some(pod_with_affinity("nowhere", nowhere)),
    );
    h.run_for(10_000);
    let node = |h: &mut Harness, name: &str| {
        ok(h, "GET", &format!("{PODS}/{name}"), None)["spec"]["nodeName"].clone()
    };
    assert_eq!(node(&mut h, "zoned"), "node-b");
    assert_eq!(node(&mut h, "nowhere"), Value::Null);
    let v = ok(&mut h, "GET", "/api/v1/namespaces/default/events", None);
    let failed: Vec<&str> = v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["reason"] == "FailedScheduling")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert!(
        failed.contains(
            &"0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, \
        2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: \
        3 Preemption is not helpful for scheduling."
        ),
        "{failed:?}"
    );
}
