//! The StatefulSet controller end to end through the controllers' harness on virtual time
//! (pkg/controller/statefulset): `OrderedReady` pods made web-0, web-1, web-2 strictly one
//! after the other (checked at every instant) with their host names, subdomain and revision
//! label, published by name in the headless Service's endpoints; `Parallel` all at once;
//! scale-down from the highest ordinal, one at a time; the scale subresource `kubectl scale`
//! uses; the rolling update highest first down to a partition; `OnDelete`; a failed pod
//! replaced; the node-failure story (a pod Terminating on a dead node holds its ordinal until
//! it is force-deleted); the update rule's refusal; and a cluster without StatefulSets costing
//! the controller nothing.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::kinds::statefulset::UPDATE_FORBIDDEN;
use watchlab_engine::api::pod::{is_pod_ready, Pod};
use watchlab_engine::api::Kind;
use watchlab_engine::controllers::statefulset::StatefulSetController;
use watchlab_engine::controllers::{Harness, Profile};

const STS: &str = "/apis/apps/v1/namespaces/default/statefulsets";
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

fn cluster() -> Harness {
    let mut h = Harness::new(7, &Profile::training(), &NODES);
    h.run_for(2_000);
    h
}

/// The headless Service `nginx` selecting `app: nginx`.
fn headless_service(h: &mut Harness) {
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nginx"},
        "spec": {"clusterIP": "None", "selector": {"app": "nginx"},
                 "ports": [{"name": "web", "port": 80}]}});
    ok(h, "POST", "/api/v1/namespaces/default/services", Some(svc));
}

/// The StatefulSet `web` (`serviceName: nginx`, pods `app: nginx` running `image`), with
/// `extra` merged into its spec.
fn stateful_set(replicas: i32, image: &str, extra: Value) -> Value {
    let mut spec = json!({"replicas": replicas, "serviceName": "nginx",
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": image,
                                     "ports": [{"name": "web", "containerPort": 80}]}]}}});
    if let (Some(s), Value::Object(e)) = (spec.as_object_mut(), extra) {
        s.extend(e);
    }
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
           "spec": spec})
}

/// The set's pods by name.
fn pods(h: &Harness) -> BTreeMap<String, Pod> {
    h.api
        .list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.metadata.labels.get("app").is_some_and(|a| a == "nginx"))
                .map(|p| (p.metadata.name.clone(), p.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn running_ready(p: &Pod) -> bool {
    &*p.status.phase == "Running" && is_pod_ready(p) && p.metadata.deletion_timestamp.is_none()
}

/// The names of the live (not terminating) pods.
fn live(h: &Harness) -> Vec<String> {
    pods(h)
        .into_iter()
        .filter(|(_, p)| p.metadata.deletion_timestamp.is_none())
        .map(|(n, _)| n)
        .collect()
}

fn all_ready(h: &Harness, names: &[&str]) -> bool {
    let pods = pods(h);
    names
        .iter()
        .all(|n| pods.get(*n).is_some_and(running_ready))
        && live(h).len() == names.len()
}

fn status(h: &mut Harness) -> Value {
    ok(h, "GET", &format!("{STS}/web"), None)["status"].clone()
}

fn events(h: &mut Harness, reason: &str) -> Vec<String> {
    let v = ok(h, "GET", "/api/v1/namespaces/default/events", None);
    v["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["reason"] == reason && e["involvedObject"]["kind"] == "StatefulSet")
        .map(|e| {
            assert_eq!(e["source"]["component"], "statefulset-controller");
            e["message"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

fn wait(h: &mut Harness, secs: u64, what: &str, done: impl FnMut(&Harness) -> bool) {
    let deadline = h.now().plus_secs(secs);
    assert!(h.run_until_true(deadline, done), "{what}: {:?}", live(h));
}

/// Creates `web` and waits for `names` to be Running and Ready.
fn create(h: &mut Harness, body: Value, names: &[&str]) {
    ok(h, "POST", STS, Some(body));
    wait(h, 180, "the set never came up", |h| all_ready(h, names));
    h.run_for(1_000);
}

fn revision_of(p: &Pod) -> String {
    p.metadata
        .labels
        .get("controller-revision-hash")
        .cloned()
        .unwrap_or_default()
}

#[test]
fn ordered_ready_makes_each_pod_only_once_the_one_before_is_ready() {
    let mut h = cluster();
    headless_service(&mut h);
    ok(
        &mut h,
        "POST",
        STS,
        Some(stateful_set(3, "nginx:1.25", json!({}))),
    );
    // At every instant: a pod exists only if the one before it is Running and Ready (or was
    // when it appeared: nothing here makes one unready again).
    let mut seen: Vec<String> = Vec::new();
    let deadline = h.now().plus_secs(180);
    let came_up = h.run_until_true(deadline, |h| {
        let pods = pods(h);
        for (i, name) in ["web-0", "web-1", "web-2"].iter().enumerate() {
            if pods.contains_key(*name) && !seen.iter().any(|s| s == name) {
                if i > 0 {
                    let before = format!("web-{}", i - 1);
                    assert!(
                        pods.get(&before).is_some_and(running_ready),
                        "{name} made before {before} was Ready"
                    );
                }
                seen.push(name.to_string());
            }
        }
        assert!(pods
            .keys()
            .all(|n| ["web-0", "web-1", "web-2"].contains(&n.as_str())));
        all_ready(h, &["web-0", "web-1", "web-2"])
    });
    assert!(came_up, "{:?}", live(&h));
    assert_eq!(seen, ["web-0", "web-1", "web-2"], "made in ordinal order");
    h.run_for(2_000);

    let pods = pods(&h);
    let web1 = &pods["web-1"];
    assert_eq!(web1.spec.hostname, "web-1");
    assert_eq!(web1.spec.subdomain, "nginx");
    assert_eq!(&*web1.metadata.generate_name, "web-");
    let label = |k: &str| web1.metadata.labels.get(k).cloned().unwrap_or_default();
    assert_eq!(label("statefulset.kubernetes.io/pod-name"), "web-1");
    assert_eq!(label("apps.kubernetes.io/pod-index"), "1");
    let owner = web1.metadata.controller_ref().expect("controlled");
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("StatefulSet", "web")
    );

    let s = status(&mut h);
    assert_eq!(
        (
            &s["replicas"],
            &s["readyReplicas"],
            &s["currentReplicas"],
            &s["updatedReplicas"]
        ),
        (&json!(3), &json!(3), &json!(3), &json!(3))
    );
    assert_eq!(s["availableReplicas"], 3);
    assert_eq!(s["observedGeneration"], 1);
    assert_eq!(s["collisionCount"], 0);
    let rev = s["updateRevision"].as_str().unwrap_or_default().to_string();
    assert_eq!(s["currentRevision"], rev.as_str());
    assert!(rev.starts_with("web-"), "{rev}");
    assert!(pods.values().all(|p| revision_of(p) == rev));
    let cr = ok(
        &mut h,
        "GET",
        &format!("/apis/apps/v1/namespaces/default/controllerrevisions/{rev}"),
        None,
    );
    assert_eq!(cr["revision"], 1);
    assert_eq!(cr["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    assert_eq!(cr["data"]["spec"]["template"]["$patch"], "replace");

    let created = events(&mut h, "SuccessfulCreate");
    assert_eq!(
        created,
        [
            "create Pod web-0 in StatefulSet web successful",
            "create Pod web-1 in StatefulSet web successful",
            "create Pod web-2 in StatefulSet web successful"
        ]
    );

    // The per-pod DNS names: the headless Service's endpoints carry the host names.
    let ep = ok(
        &mut h,
        "GET",
        "/api/v1/namespaces/default/endpoints/nginx",
        None,
    );
    let mut names: Vec<&str> = ep["subsets"][0]["addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["hostname"].as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["web-0", "web-1", "web-2"], "{ep}");
    let slices = ok(
        &mut h,
        "GET",
        "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices\
         ?labelSelector=kubernetes.io%2Fservice-name%3Dnginx",
        None,
    );
    let mut names: Vec<&str> = slices["items"][0]["endpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["hostname"].as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["web-0", "web-1", "web-2"]);
}

#[test]
fn parallel_makes_every_pod_at_once() {
    let mut h = cluster();
    let body = stateful_set(3, "nginx:1.25", json!({"podManagementPolicy": "Parallel"}));
    ok(&mut h, "POST", STS, Some(body));
    wait(&mut h, 30, "no pod", |h| !pods(h).is_empty());
    let now = pods(&h);
    assert_eq!(
        now.len(),
        3,
        "all three at the same instant: {:?}",
        now.keys()
    );
    assert!(
        now.values().all(|p| !running_ready(p)),
        "before any is Ready"
    );
    wait(&mut h, 180, "parallel set", |h| {
        all_ready(h, &["web-0", "web-1", "web-2"])
    });
}

#[test]
fn scale_down_goes_from_the_highest_ordinal_one_at_a_time() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", json!({})),
        &["web-0", "web-1", "web-2"],
    );
    ok(
        &mut h,
        "PATCH",
        &format!("{STS}/web"),
        Some(json!({"spec": {"replicas": 1}})),
    );
    // At every instant: web-1 is not deleted while web-2 still exists.
    let deadline = h.now().plus_secs(180);
    let mut web2_gone_at = None;
    let done = h.run_until_true(deadline, |h| {
        let pods = pods(h);
        if !pods.contains_key("web-2") && web2_gone_at.is_none() {
            web2_gone_at = Some(h.now());
        }
        if let Some(w1) = pods.get("web-1") {
            if w1.metadata.deletion_timestamp.is_some() {
                assert!(
                    !pods.contains_key("web-2"),
                    "web-1 deleted while web-2 exists"
                );
            }
        }
        assert!(pods.get("web-0").is_some_and(running_ready), "web-0 stays");
        pods.len() == 1
    });
    assert!(done, "{:?}", live(&h));
    assert!(web2_gone_at.is_some());
    let deleted = events(&mut h, "SuccessfulDelete");
    assert_eq!(
        deleted,
        [
            "delete Pod web-2 in StatefulSet web successful",
            "delete Pod web-1 in StatefulSet web successful"
        ]
    );
    h.run_for(2_000);
    let s = status(&mut h);
    assert_eq!(
        (&s["replicas"], &s["readyReplicas"]),
        (&json!(1), &json!(1))
    );
}

#[test]
fn kubectl_scale_goes_through_the_scale_subresource() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(2, "nginx:1.25", json!({})),
        &["web-0", "web-1"],
    );
    let scale = ok(&mut h, "GET", &format!("{STS}/web/scale"), None);
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["apiVersion"], "autoscaling/v1");
    assert_eq!(scale["spec"]["replicas"], 2);
    assert_eq!(scale["status"]["replicas"], 2);
    assert_eq!(scale["status"]["selector"], "app=nginx");
    // What `kubectl scale statefulset web --replicas=4` sends.
    let out = ok(
        &mut h,
        "PATCH",
        &format!("{STS}/web/scale"),
        Some(json!({"spec": {"replicas": 4}})),
    );
    assert_eq!(out["spec"]["replicas"], 4);
    assert_eq!(
        ok(&mut h, "GET", &format!("{STS}/web"), None)["spec"]["replicas"],
        4
    );
    wait(&mut h, 180, "scaled to 4", |h| {
        all_ready(h, &["web-0", "web-1", "web-2", "web-3"])
    });
    // A Scale PUT with a stale resourceVersion is a conflict, as for a Deployment.
    let mut stale = scale.clone();
    stale["spec"]["replicas"] = json!(1);
    let (code, _) = call(&mut h, "PUT", &format!("{STS}/web/scale"), Some(stale));
    assert_eq!(code, 409);
}

/// Patches the template's image and returns the update revision once the status shows it.
fn set_image(h: &mut Harness, image: &str) -> String {
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "image": image, "ports": [{"name": "web", "containerPort": 80}]}]}}}});
    let old = status(h)["updateRevision"].clone();
    ok(h, "PATCH", &format!("{STS}/web"), Some(patch));
    wait(h, 30, "no update revision", |h| {
        h.api
            .get(Kind::StatefulSet, Some("default"), "web")
            .ok()
            .and_then(|o| {
                o.as_stateful_set()
                    .map(|s| s.status.update_revision.clone())
            })
            .is_some_and(|r| json!(r) != old)
    });
    status(h)["updateRevision"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn image_of(p: &Pod) -> String {
    p.spec
        .containers
        .first()
        .map(|c| c.image.clone())
        .unwrap_or_default()
}

#[test]
fn rolling_update_goes_highest_first_down_to_the_partition() {
    let mut h = cluster();
    let body = stateful_set(
        3,
        "nginx:1.25",
        json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}}),
    );
    create(&mut h, body, &["web-0", "web-1", "web-2"]);
    let old_rev = status(&mut h)["currentRevision"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let new_rev = set_image(&mut h, "nginx:1.26");
    assert_ne!(old_rev, new_rev);
    // At every instant: web-1 is touched only once web-2 runs the new image and is Ready;
    // web-0, below the partition, is never touched.
    let web0_uid = pods(&h)["web-0"].metadata.uid.clone();
    let deadline = h.now().plus_secs(240);
    let done = h.run_until_true(deadline, |h| {
        let pods = pods(h);
        let new = |n: &str| pods.get(n).is_some_and(|p| image_of(p) == "nginx:1.26");
        let web1_touched = pods
            .get("web-1")
            .is_none_or(|p| p.metadata.deletion_timestamp.is_some() || image_of(p) == "nginx:1.26");
        if web1_touched {
            assert!(
                new("web-2") && pods.get("web-2").is_some_and(running_ready),
                "web-1 updated before web-2 was"
            );
        }
        let web0 = pods.get("web-0");
        assert!(web0.is_some_and(|p| p.metadata.uid == web0_uid && image_of(p) == "nginx:1.25"));
        new("web-1") && all_ready(h, &["web-0", "web-1", "web-2"])
    });
    assert!(done, "{:?}", live(&h));
    h.run_for(2_000);
    let pods_now = pods(&h);
    assert_eq!(revision_of(&pods_now["web-0"]), old_rev);
    assert_eq!(revision_of(&pods_now["web-1"]), new_rev);
    assert_eq!(revision_of(&pods_now["web-2"]), new_rev);
    let s = status(&mut h);
    assert_eq!(
        s["currentRevision"],
        old_rev.as_str(),
        "the rollout is not complete"
    );
    assert_eq!(s["updateRevision"], new_rev.as_str());
    assert_eq!(
        (&s["currentReplicas"], &s["updatedReplicas"]),
        (&json!(1), &json!(2))
    );

    // Partition 0: web-0 follows, and the update revision becomes the current one.
    let patch = json!({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}});
    ok(&mut h, "PATCH", &format!("{STS}/web"), Some(patch));
    wait(&mut h, 180, "web-0 updated", |h| {
        pods(h)
            .get("web-0")
            .is_some_and(|p| image_of(p) == "nginx:1.26" && running_ready(p))
    });
    h.run_for(2_000);
    let s = status(&mut h);
    assert_eq!(s["currentRevision"], new_rev.as_str());
    assert_eq!(
        (&s["currentReplicas"], &s["updatedReplicas"]),
        (&json!(3), &json!(3))
    );
    let list = ok(
        &mut h,
        "GET",
        "/apis/apps/v1/namespaces/default/controllerrevisions",
        None,
    );
    let mut numbers: Vec<i64> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["revision"].as_i64())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2], "one revision per template");
}

#[test]
fn on_delete_replaces_only_the_pods_someone_deletes() {
    let mut h = cluster();
    let body = stateful_set(
        3,
        "nginx:1.25",
        json!({"updateStrategy": {"type": "OnDelete"}}),
    );
    create(&mut h, body, &["web-0", "web-1", "web-2"]);
    let uids: BTreeMap<String, String> = pods(&h)
        .into_iter()
        .map(|(n, p)| (n, p.metadata.uid.clone()))
        .collect();
    let new_rev = set_image(&mut h, "nginx:1.26");
    h.run_for(60_000);
    let now = pods(&h);
    for (name, uid) in &uids {
        assert_eq!(&now[name].metadata.uid, uid, "{name} left alone");
        assert_eq!(image_of(&now[name]), "nginx:1.25");
    }
    ok(&mut h, "DELETE", &format!("{PODS}/web-1"), None);
    wait(&mut h, 180, "web-1 back", |h| {
        pods(h)
            .get("web-1")
            .is_some_and(|p| p.metadata.uid != uids["web-1"] && running_ready(p))
    });
    let now = pods(&h);
    assert_eq!(image_of(&now["web-1"]), "nginx:1.26");
    assert_eq!(revision_of(&now["web-1"]), new_rev);
    assert_eq!(now["web-0"].metadata.uid, uids["web-0"]);
    assert_eq!(now["web-2"].metadata.uid, uids["web-2"]);
    h.run_for(2_000);
    let s = status(&mut h);
    assert_eq!(
        (&s["currentReplicas"], &s["updatedReplicas"]),
        (&json!(2), &json!(1))
    );
}

#[test]
fn a_failed_pod_is_deleted_and_made_again() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(2, "nginx:1.25", json!({})),
        &["web-0", "web-1"],
    );
    let old = pods(&h)["web-1"].clone();
    let mut failed = old.clone();
    failed.status.phase = "Failed".into();
    h.api
        .update_status("kubelet", failed.into())
        .expect("pod failed");
    wait(&mut h, 180, "web-1 replaced", |h| {
        pods(h)
            .get("web-1")
            .is_some_and(|p| p.metadata.uid != old.metadata.uid && running_ready(p))
    });
}

#[test]
fn a_pod_on_a_dead_node_holds_its_ordinal_until_it_is_force_deleted() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", json!({})),
        &["web-0", "web-1", "web-2"],
    );
    let before = pods(&h)["web-1"].clone();
    let dead = before.spec.node_name.clone();
    let killed_at = h.now();
    h.kubelet_mut(&dead).expect("kubelet").set_running(false);
    // NotReady after 20 s, evicted after the 60 s toleration: web-1 Terminating, forever.
    wait(&mut h, 150, "web-1 never Terminating", |h| {
        pods(h)
            .get("web-1")
            .is_some_and(|p| p.metadata.deletion_timestamp.is_some())
    });
    assert!(h.now().millis_since(killed_at) >= 60_000);
    h.run_for(5 * 60_000);
    let stuck = pods(&h);
    let web1 = &stuck["web-1"];
    assert_eq!(web1.metadata.uid, before.metadata.uid, "no second web-1");
    assert!(
        web1.metadata.deletion_timestamp.is_some(),
        "still Terminating"
    );
    assert_eq!(web1.spec.node_name, dead);
    assert_eq!(stuck.len(), 3, "no pod made meanwhile: {:?}", stuck.keys());
    // `kubectl delete pod web-1 --force --grace-period=0`.
    let opts = json!({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                      "propagationPolicy": "Background"});
    ok(&mut h, "DELETE", &format!("{PODS}/web-1"), Some(opts));
    wait(&mut h, 120, "web-1 made again", |h| {
        pods(h)
            .get("web-1")
            .is_some_and(|p| p.metadata.uid != before.metadata.uid && running_ready(p))
    });
    let again = &pods(&h)["web-1"];
    assert_ne!(again.spec.node_name, dead, "on a live node");
}

#[test]
fn the_update_rule_refuses_other_fields() {
    let mut h = cluster();
    ok(
        &mut h,
        "POST",
        STS,
        Some(stateful_set(1, "nginx:1.25", json!({}))),
    );
    let (code, v) = call(
        &mut h,
        "PATCH",
        &format!("{STS}/web"),
        Some(json!({"spec": {"serviceName": "other"}})),
    );
    assert_eq!(code, 422);
    assert_eq!(
        v["message"],
        format!("StatefulSet.apps \"web\" is invalid: spec: Forbidden: {UPDATE_FORBIDDEN}")
    );
    // The fields it lists may change.
    let patch = json!({"spec": {"replicas": 2, "minReadySeconds": 3, "revisionHistoryLimit": 4}});
    ok(&mut h, "PATCH", &format!("{STS}/web"), Some(patch));
}

#[test]
fn pods_of_other_controllers_never_wake_a_sync() {
    let mut h = cluster();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "api"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "api"}},
            "template": {"metadata": {"labels": {"app": "api"}},
                "spec": {"containers": [{"name": "api", "image": "api:1"}]}}}});
    ok(
        &mut h,
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        Some(deployment),
    );
    h.run_for(60_000);
    let syncs = |h: &Harness| {
        h.plane
            .reconciler::<StatefulSetController>()
            .map(StatefulSetController::syncs)
    };
    assert_eq!(
        syncs(&h),
        Some(0),
        "three pods came and went through their phases"
    );
    create(&mut h, stateful_set(1, "nginx:1.25", json!({})), &["web-0"]);
    let with_set = syncs(&h).unwrap_or_default();
    assert!(with_set > 0);
    // The Deployment's pods still wake nothing: delete one, the ReplicaSet makes another.
    let api_pod = h
        .api
        .list(Kind::Pod, Some("default"), &Default::default())
        .ok()
        .and_then(|l| {
            l.items
                .iter()
                .find(|o| o.name().starts_with("api-"))
                .map(|o| o.name().to_string())
        })
        .expect("an api pod");
    ok(&mut h, "DELETE", &format!("{PODS}/{api_pod}"), None);
    h.run_for(30_000);
    assert_eq!(syncs(&h), Some(with_set));
}

/// The claim template `www` (1Gi, ReadWriteOnce, the default class).
fn www() -> Value {
    json!({"volumeClaimTemplates": [{"metadata": {"name": "www"},
        "spec": {"accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": "1Gi"}}}}]})
}

/// The claims by name: (uid, bound volume, owner kinds).
fn claims(h: &Harness) -> BTreeMap<String, (String, String, Vec<String>)> {
    h.api
        .list(
            Kind::PersistentVolumeClaim,
            Some("default"),
            &Default::default(),
        )
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_persistent_volume_claim())
                .map(|c| {
                    let owners = c.metadata.owner_references.iter().map(|r| r.kind.clone());
                    let v = (
                        c.metadata.uid.clone(),
                        c.spec.volume_name.clone(),
                        owners.collect(),
                    );
                    (c.metadata.name.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The node a bound volume lives on (its node affinity's one name).
fn volume_node(h: &Harness, pv: &str) -> String {
    let obj = h.api.get(Kind::PersistentVolume, None, pv).expect("volume");
    let pv = obj.as_persistent_volume().expect("a volume");
    let terms = &pv
        .spec
        .node_affinity
        .as_ref()
        .and_then(|a| a.required.as_ref())
        .expect("local")
        .node_selector_terms;
    terms[0].match_expressions[0].values[0].clone()
}

#[test]
fn each_pod_gets_its_own_claim_bound_to_a_volume_on_its_node() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", www()),
        &["web-0", "web-1", "web-2"],
    );
    let pods = pods(&h);
    let claims = claims(&h);
    for i in 0..3 {
        let (pod, claim) = (format!("web-{i}"), format!("www-web-{i}"));
        let p = &pods[&pod];
        let volumes: Vec<_> = p.spec.claim_volumes().collect();
        assert_eq!(volumes, [("www", claim.as_str())]);
        let (_, pv, owners) = &claims[&claim];
        assert!(!pv.is_empty(), "{claim} bound");
        assert!(owners.is_empty(), "Retain: no owner");
        assert_eq!(
            volume_node(&h, pv),
            p.spec.node_name,
            "a local volume on the pod's node"
        );
    }
    let created = events(&mut h, "SuccessfulCreate");
    assert_eq!(
        created[..2],
        [
            "create Claim www-web-0 Pod web-0 in StatefulSet web success",
            "create Pod web-0 in StatefulSet web successful",
        ]
    );
}

#[test]
fn scale_down_keeps_the_claims_and_scale_up_takes_them_back() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", www()),
        &["web-0", "web-1", "web-2"],
    );
    let before = claims(&h);
    let nodes: BTreeMap<String, String> = pods(&h)
        .into_iter()
        .map(|(n, p)| (n, p.spec.node_name.clone()))
        .collect();
    ok(
        &mut h,
        "PATCH",
        &format!("{STS}/web"),
        Some(json!({"spec": {"replicas": 1}})),
    );
    wait(&mut h, 180, "scaled to 1", |h| pods(h).len() == 1);
    h.run_for(30_000);
    assert_eq!(
        claims(&h),
        before,
        "whenScaled: Retain keeps every claim, bound"
    );
    ok(
        &mut h,
        "PATCH",
        &format!("{STS}/web"),
        Some(json!({"spec": {"replicas": 3}})),
    );
    wait(&mut h, 180, "scaled back to 3", |h| {
        all_ready(h, &["web-0", "web-1", "web-2"])
    });
    assert_eq!(claims(&h), before, "the same claims, no new one");
    for (name, p) in pods(&h) {
        assert_eq!(
            p.spec.node_name, nodes[&name],
            "{name} back beside its volume"
        );
    }
}

#[test]
fn delete_policies_hand_the_claims_to_the_garbage_collector() {
    let mut h = cluster();
    let mut spec = www();
    spec["persistentVolumeClaimRetentionPolicy"] =
        json!({"whenScaled": "Delete", "whenDeleted": "Delete"});
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", spec),
        &["web-0", "web-1", "web-2"],
    );
    wait(&mut h, 30, "claims owned by the set", |h| {
        let c = claims(h);
        c.len() == 3 && c.values().all(|(_, _, o)| o == &["StatefulSet"])
    });
    ok(
        &mut h,
        "PATCH",
        &format!("{STS}/web"),
        Some(json!({"spec": {"replicas": 1}})),
    );
    // The claims of web-1 and web-2 pass to their pods, and go with them.
    let mut handed = false;
    wait(&mut h, 240, "scaled-down claims deleted", |h| {
        let c = claims(h);
        handed |= c.get("www-web-2").is_some_and(|(_, _, o)| o == &["Pod"]);
        c.keys().collect::<Vec<_>>() == ["www-web-0"]
    });
    assert!(handed, "www-web-2 was owned by its pod");
    ok(&mut h, "DELETE", &format!("{STS}/web"), None);
    wait(&mut h, 240, "the last claim deleted with the set", |h| {
        claims(h).is_empty() && pods(h).is_empty()
    });
}

#[test]
fn a_pod_on_a_dead_node_with_a_local_volume_cannot_move() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", www()),
        &["web-0", "web-1", "web-2"],
    );
    let before = pods(&h)["web-1"].clone();
    let dead = before.spec.node_name.clone();
    h.kubelet_mut(&dead).expect("kubelet").set_running(false);
    wait(&mut h, 150, "web-1 never Terminating", |h| {
        pods(h)
            .get("web-1")
            .is_some_and(|p| p.metadata.deletion_timestamp.is_some())
    });
    let opts = json!({"gracePeriodSeconds": 0, "propagationPolicy": "Background"});
    ok(&mut h, "DELETE", &format!("{PODS}/web-1"), Some(opts));
    wait(&mut h, 60, "web-1 made again", |h| {
        pods(h)
            .get("web-1")
            .is_some_and(|p| p.metadata.uid != before.metadata.uid)
    });
    h.run_for(60_000);
    // Its claim is bound to a volume on the dead node: no other node can mount it. (v1.32's
    // VolumeBinding PreFilter narrows the nodes to the volume's; older schedulers said
    // "node(s) had volume node affinity conflict".)
    let again = &pods(&h)["web-1"];
    assert_eq!(&*again.status.phase, "Pending");
    assert!(again.spec.node_name.is_empty(), "not scheduled");
    let cond = again.condition("PodScheduled").expect("PodScheduled");
    assert_eq!((&*cond.status, &*cond.reason), ("False", "Unschedulable"));
    assert!(
        cond.message.starts_with(
            "0/3 nodes are available: 1 node(s) had untolerated taint \
             {node.kubernetes.io/unreachable: }, 2 node(s) didn't satisfy plugin(s) \
             [VolumeBinding]."
        ),
        "{}",
        cond.message
    );
}

#[test]
fn a_budget_in_percent_scales_on_the_sets_replicas() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(3, "nginx:1.25", json!({})),
        &["web-0", "web-1", "web-2"],
    );
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "nginx"}}}});
    let pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
    ok(&mut h, "POST", pdbs, Some(pdb));
    h.run_for(5_000);
    let s = ok(&mut h, "GET", &format!("{pdbs}/web"), None)["status"].clone();
    assert_eq!(s["expectedPods"], 3, "the set's replicas: {s}");
    assert_eq!(s["desiredHealthy"], 2, "50% of 3, rounded up");
    assert_eq!(
        (&s["currentHealthy"], &s["disruptionsAllowed"]),
        (&json!(3), &json!(1))
    );
    // Scaled to 5 (through the scale subresource), the budget expects 5 before they exist.
    let scale = json!({"spec": {"replicas": 5}});
    ok(&mut h, "PATCH", &format!("{STS}/web/scale"), Some(scale));
    h.run_for(500);
    let s = ok(&mut h, "GET", &format!("{pdbs}/web"), None)["status"].clone();
    assert_eq!(
        (&s["expectedPods"], &s["desiredHealthy"]),
        (&json!(5), &json!(3))
    );
}

#[test]
fn a_template_changed_back_moves_its_old_revision_forward() {
    let mut h = cluster();
    create(&mut h, stateful_set(1, "nginx:1.25", json!({})), &["web-0"]);
    let first = status(&mut h)["updateRevision"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let second = set_image(&mut h, "nginx:1.26");
    wait(&mut h, 120, "rolled to 1.26", |h| {
        pods(h)
            .get("web-0")
            .is_some_and(|p| image_of(p) == "nginx:1.26" && running_ready(p))
    });
    let back = set_image(&mut h, "nginx:1.25");
    assert_eq!(back, first, "the old revision is the update revision again");
    assert_ne!(back, second);
    let rev = |h: &mut Harness, name: &str| {
        let path = format!("/apis/apps/v1/namespaces/default/controllerrevisions/{name}");
        ok(h, "GET", &path, None)["revision"].clone()
    };
    assert_eq!(
        (rev(&mut h, &first), rev(&mut h, &second)),
        (json!(3), json!(2))
    );
}

#[test]
fn ordinals_start_where_the_spec_says() {
    let mut h = cluster();
    create(
        &mut h,
        stateful_set(2, "nginx:1.25", json!({"ordinals": {"start": 5}})),
        &["web-5", "web-6"],
    );
    ok(
        &mut h,
        "PATCH",
        &format!("{STS}/web"),
        Some(json!({"spec": {"replicas": 1}})),
    );
    wait(&mut h, 120, "web-6 removed", |h| live(h) == ["web-5"]);
}
