//! Deployment rollouts through the controllers' harness on virtual time: the Recreate strategy
//! (old pods all gone before a new one starts), revisions on the ReplicaSets, a rollback by
//! copying an old ReplicaSet's template back (what `kubectl rollout undo` sends), and
//! revisionHistoryLimit pruning the oldest empty ReplicaSets.

use serde_json::{json, Value};
use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::Kind;
use watchlab_engine::controllers::{Harness, Profile};

const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments/web";

fn ok(h: &mut Harness, method: &str, path: &str, ct: Option<&str>, body: Value) -> Value {
    let r = h.api.request(method, path, ct, Some(&body.to_string()));
    assert!((200..300).contains(&r.code), "{method} {path}: {}", r.body);
    serde_json::from_str(&r.body).unwrap_or_default()
}

fn set_image(h: &mut Harness, image: &str) {
    let patch =
        json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": image}]}}}});
    ok(
        h,
        "PATCH",
        DEPLOY,
        Some("application/merge-patch+json"),
        patch,
    );
}

/// (image, pod-template-hash, terminating) of every pod.
fn pods(h: &Harness) -> Vec<(String, String, bool)> {
    h.api
        .list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod())
                .map(|p| {
                    (
                        p.spec
                            .containers
                            .first()
                            .map(|c| c.image.clone())
                            .unwrap_or_default(),
                        p.metadata
                            .labels
                            .get("pod-template-hash")
                            .cloned()
                            .unwrap_or_default(),
                        p.metadata.deletion_timestamp.is_some(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn running(h: &Harness, image: &str) -> usize {
    h.api
        .list(Kind::Pod, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| {
                    p.status.phase == "Running"
                        && p.metadata.deletion_timestamp.is_none()
                        && p.spec.containers.first().is_some_and(|c| c.image == image)
                })
                .count()
        })
        .unwrap_or_default()
}

/// (name, revision, replicas) of every ReplicaSet, by revision.
fn replica_sets(h: &Harness) -> Vec<(String, i64, i32)> {
    let mut out: Vec<(String, i64, i32)> = h
        .api
        .list(Kind::ReplicaSet, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_replica_set())
                .map(|rs| {
                    let rev = rs
                        .metadata
                        .annotations
                        .get("deployment.kubernetes.io/revision")
                        .and_then(|r| r.parse().ok())
                        .unwrap_or(0);
                    (rs.metadata.name.clone(), rev, rs.spec.replicas.unwrap_or(0))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by_key(|r| r.1);
    out
}

fn web(h: &mut Harness, strategy: Value, history: i64) {
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
      "spec": {"replicas": 3, "strategy": strategy, "revisionHistoryLimit": history,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
          "spec": {"containers": [{"name": "app", "image": "nginx:1.26"}]}}}});
    ok(
        h,
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        None,
        d,
    );
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| running(h, "nginx:1.26") == 3));
}

#[test]
fn recreate_stops_every_old_pod_before_the_new_replica_set_starts() {
    let mut h = Harness::new(21, &Profile::training(), &["node-a", "node-b"]);
    web(&mut h, json!({"type": "Recreate"}), 10);
    set_image(&mut h, "nginx:1.27");
    let deadline = h.now().plus_secs(120);
    let mut overlap = None;
    let done = h.run_until_true(deadline, |h| {
        let p = pods(h);
        let new = p.iter().any(|x| x.0 == "nginx:1.27");
        if new && p.iter().any(|x| x.0 == "nginx:1.26") && overlap.is_none() {
            overlap = Some(p.clone());
        }
        running(h, "nginx:1.27") == 3
    });
    assert!(done, "the new pods never ran: {:?}", pods(&h));
    assert_eq!(overlap, None, "old and new pods existed together");
    let rses = replica_sets(&h);
    assert_eq!(
        rses.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(),
        [(1, 0), (2, 3)]
    );
    // The scaling events say so, in order.
    let events: Vec<String> = h
        .api
        .list(Kind::Event, Some("default"), &Default::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| match &**o {
                    watchlab_engine::api::Object::Event(e) if e.reason == "ScalingReplicaSet" => {
                        Some(e.message.to_string())
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let old = &rses[0].0;
    let new = &rses[1].0;
    assert!(
        events.ends_with(&[
            format!("Scaled down replica set {old} from 3 to 0"),
            format!("Scaled up replica set {new} from 0 to 3"),
        ]),
        "{events:?}"
    );
}

#[test]
fn a_rollback_reuses_the_old_replica_set_under_a_new_revision_and_history_is_pruned() {
    let mut h = Harness::new(22, &Profile::training(), &["node-a", "node-b"]);
    web(&mut h, json!({"type": "RollingUpdate"}), 1);
    set_image(&mut h, "nginx:1.27");
    let deadline = h.now().plus_secs(120);
    assert!(h.run_until_true(deadline, |h| running(h, "nginx:1.27") == 3
        && pods(h).len() == 3));
    let first = replica_sets(&h);
    assert_eq!(first.iter().map(|r| r.1).collect::<Vec<_>>(), [1, 2]);
    // `kubectl rollout undo`: revision 1's template copied back with a JSON patch.
    let rs1 = ok(
        &mut h,
        "GET",
        &format!(
            "/apis/apps/v1/namespaces/default/replicasets/{}",
            first[0].0
        ),
        None,
        Value::Null,
    );
    let mut template = rs1["spec"]["template"].clone();
    if let Some(labels) = template["metadata"]["labels"].as_object_mut() {
        labels.remove("pod-template-hash");
    }
    let patch = json!([{"op": "replace", "path": "/spec/template", "value": template}]);
    ok(
        &mut h,
        "PATCH",
        DEPLOY,
        Some("application/json-patch+json"),
        patch,
    );
    let deadline = h.now().plus_secs(120);
    assert!(h.run_until_true(deadline, |h| running(h, "nginx:1.26") == 3
        && pods(h).len() == 3));
    let after = replica_sets(&h);
    // The same ReplicaSet came back as revision 3.
    assert_eq!(
        after.last().map(|r| (r.0.clone(), r.1)),
        Some((first[0].0.clone(), 3))
    );
    // A third template: with revisionHistoryLimit 1 only one empty old ReplicaSet stays.
    set_image(&mut h, "nginx:1.28");
    let deadline = h.now().plus_secs(120);
    assert!(h.run_until_true(deadline, |h| running(h, "nginx:1.28") == 3
        && replica_sets(h).len() == 2));
    let last = replica_sets(&h);
    assert_eq!(
        last.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>(),
        [(3, 0), (4, 3)]
    );
}
