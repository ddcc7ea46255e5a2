//! End-to-end scenarios of the control plane through the controllers' harness: what a learner
//! would see with `kubectl get pods -w`, `kubectl get events --sort-by=.lastTimestamp`, and the
//! ledger.

use std::sync::Arc;

use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::apps::{Deployment, DeploymentSpec, PodTemplateSpec};
use watchlab_engine::api::meta::LabelSelector;
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Event, Kind, Namespace, Object, ObjectMeta};
use watchlab_engine::apiserver::{ApiServer, WatchEventType};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::{Harness, Profile};

const NODES: [&str; 3] = ["node-a", "node-b", "node-c"];

fn namespace(api: &mut ApiServer, name: &str) {
    let ns = Object::Namespace(Namespace {
        metadata: ObjectMeta::named("", name),
        ..Default::default()
    });
    api.create("kubectl", ns).expect("namespace");
}

fn container(name: &str, image: &str) -> Container {
    Container {
        name: name.into(),
        image: image.into(),
        ..Default::default()
    }
}

fn deployment(name: &str, replicas: i32, image: &str) -> Object {
    let mut labels = std::collections::BTreeMap::new();
    labels.insert("app".to_string(), name.to_string());
    Object::Deployment(
        Deployment {
            metadata: ObjectMeta::named("production", name),
            spec: DeploymentSpec {
                replicas: Some(replicas),
                selector: Some(LabelSelector {
                    match_labels: labels.clone(),
                    ..Default::default()
                }),
                template: PodTemplateSpec {
                    metadata: ObjectMeta {
                        labels: labels.into(),
                        ..Default::default()
                    },
                    spec: PodSpec {
                        containers: vec![container(name, image)].into(),
                        ..Default::default()
                    },
                },
                ..Default::default()
            },
            status: Default::default(),
        }
        .into(),
    )
}

fn pods(api: &ApiServer, ns: &str) -> Vec<Pod> {
    api.list(Kind::Pod, Some(ns), &ListOptions::default())
        .map(|l| l.items.iter().filter_map(|o| o.as_pod().cloned()).collect())
        .unwrap_or_default()
}

fn events(api: &ApiServer) -> Vec<Event> {
    let mut evs: Vec<Event> = api
        .list(Kind::Event, None, &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| match &**o {
                    Object::Event(e) => Some(e.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    evs.sort_by_key(|e| {
        (
            e.last_timestamp,
            e.metadata.resource_version.parse::<u64>().unwrap_or(0),
        )
    });
    evs
}

fn ready_nodes(h: &Harness) -> usize {
    h.api
        .list(Kind::Node, None, &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_node())
                .filter(|n| n.condition("Ready").is_some_and(|c| c.status == "True"))
                .count()
        })
        .unwrap_or(0)
}

fn cluster(seed: u64) -> Harness {
    let mut h = Harness::new(seed, &Profile::training(), &NODES);
    namespace(&mut h.api, "production");
    assert!(h.run_until_true(Timestamp::from_secs(30), |h| ready_nodes(h) == 3));
    h
}

#[test]
fn kubectl_run_shows_pending_container_creating_running_as_separate_writes() {
    kubectl_run_story(7);
}

/// Scenario 1 with the cluster seeded by `seed`.
fn kubectl_run_story(seed: u64) {
    let mut h = cluster(seed);
    let watch = h
        .api
        .watch(
            "kubectl",
            Kind::Pod,
            Some("production"),
            &ListOptions::default(),
        )
        .expect("watch");
    let pod = Object::Pod(Pod {
        metadata: ObjectMeta {
            labels: [("run".to_string(), "debug-tools".to_string())].into(),
            ..ObjectMeta::named("production", "debug-tools")
        },
        spec: PodSpec {
            containers: vec![container("debug-tools", "debug-tools:1.0")].into(),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    });
    h.api.create("kubectl", pod).expect("create pod");
    let deadline = h.now().plus_secs(30);
    assert!(h.run_until_true(deadline, |h| pods(&h.api, "production")
        .iter()
        .any(|p| p.status.phase == "Running")));
    let seen: Vec<(WatchEventType, u64, Arc<Object>)> = h
        .api
        .poll(watch)
        .expect("stream open")
        .iter()
        .filter_map(|e| {
            e.object()
                .map(|o| (e.event_type, e.resource_version, o.clone()))
        })
        .collect();
    let summary: Vec<(WatchEventType, String, String, String)> = seen
        .iter()
        .map(|(t, _, o)| {
            let p = o.as_pod().expect("pod");
            let waiting = p
                .status
                .container_statuses
                .first()
                .and_then(|c| c.state.waiting.as_ref())
                .map(|w| w.reason.clone())
                .unwrap_or_default();
            (
                *t,
                p.spec.node_name.clone(),
                p.status.phase.to_string(),
                waiting,
            )
        })
        .collect();
    assert_eq!(summary.len(), 4, "{summary:?}");
    assert_eq!(summary[0].0, WatchEventType::Added);
    assert_eq!(summary[0].1, "");
    assert_eq!(summary[1].0, WatchEventType::Modified);
    assert!(!summary[1].1.is_empty(), "bound to a node");
    assert_eq!(summary[1].2, "Pending");
    assert_eq!(summary[2].3, "ContainerCreating");
    assert_eq!(summary[2].2, "Pending");
    assert_eq!(summary[3].2, "Running");
    assert!(seen.windows(2).all(|w| w[0].1 < w[1].1), "increasing RVs");
    let evs = events(&h.api);
    let node = &summary[1].1;
    let scheduled = evs
        .iter()
        .find(|e| e.reason == "Scheduled")
        .expect("Scheduled");
    assert_eq!(
        scheduled.message.to_string(),
        format!("Successfully assigned production/debug-tools to {node}")
    );
    assert_eq!(scheduled.source.component, "default-scheduler");
    let reasons: Vec<&str> = evs
        .iter()
        .filter(|e| e.involved_object.name == "debug-tools")
        .map(|e| &*e.reason)
        .collect();
    assert_eq!(
        reasons,
        ["Scheduled", "Pulling", "Pulled", "Created", "Started"]
    );
    let started = evs.iter().find(|e| e.reason == "Started").expect("Started");
    assert_eq!(started.source.component, "kubelet");
    assert_eq!(&*started.source.host, node.as_str());
}

fn deployment_status(api: &ApiServer, name: &str) -> (i32, i32, i32) {
    api.get(Kind::Deployment, Some("production"), name)
        .ok()
        .and_then(|o| {
            o.as_deployment().map(|d| {
                (
                    d.status.replicas,
                    d.status.ready_replicas,
                    d.status.available_replicas,
                )
            })
        })
        .unwrap_or_default()
}

fn live_pods_by_node(api: &ApiServer) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pods(api, "production")
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| (p.spec.node_name.clone(), p.metadata.name.clone()))
        .collect();
    v.sort();
    v
}

#[test]
fn node_c_lost_its_pod_is_replaced_on_another_node_within_two_minutes() {
    node_c_story(11);
}

/// Scenario 2 with the cluster seeded by `seed`.
fn node_c_story(seed: u64) {
    let mut h = cluster(seed);
    h.api
        .create("kubectl", deployment("orders-api", 3, "orders-api:1.0"))
        .expect("deploy");
    let deadline = h.now().plus_secs(60);
    assert!(
        h.run_until_true(deadline, |h| deployment_status(&h.api, "orders-api")
            == (3, 3, 3))
    );
    let placed = live_pods_by_node(&h.api);
    let nodes: std::collections::BTreeSet<&str> = placed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        nodes.len(),
        3,
        "LeastAllocated spreads the replicas: {placed:?}"
    );
    let victim = placed
        .iter()
        .find(|(n, _)| n == "node-c")
        .map(|(_, p)| p.clone())
        .expect("pod on node-c");

    let killed_at = h.now();
    h.kubelet_mut("node-c").expect("kubelet").set_running(false);
    // NotReady after the grace period (20 s in training, + up to one 5 s monitor period).
    let deadline = killed_at.plus_secs(40);
    assert!(h.run_until_true(deadline, |h| h
        .api
        .get(Kind::Node, None, "node-c")
        .ok()
        .and_then(|n| n
            .as_node()
            .and_then(|n| n.condition("Ready").map(|c| c.status == "Unknown")))
        .unwrap_or(false)));
    let not_ready_at = h.now();
    // The grace period runs from the lease's last renewal, up to one renew interval (2.5 s)
    // before the kill.
    assert!(
        not_ready_at.millis_since(killed_at) >= 20_000 - 2_500,
        "not before the grace period: {} ms (seed {seed})",
        not_ready_at.millis_since(killed_at)
    );
    let node = h.api.get(Kind::Node, None, "node-c").expect("node");
    let node = node.as_node().expect("node");
    let ready = node.condition("Ready").expect("Ready");
    assert_eq!(ready.reason, "NodeStatusUnknown");
    assert_eq!(ready.message, "Kubelet stopped posting node status.");
    // Terminating after the 60 s toleration; replaced; 3 ready again.
    let deadline = killed_at.plus_secs(150);
    assert!(
        h.run_until_true(deadline, |h| {
            let live = live_pods_by_node(&h.api);
            deployment_status(&h.api, "orders-api").1 == 3
                && live.len() == 3
                && live.iter().all(|(n, _)| n != "node-c")
        }),
        "recovered: {:?}",
        live_pods_by_node(&h.api)
    );
    let recovered = h.now().millis_since(killed_at);
    assert!(
        recovered <= 120_000,
        "about two minutes, took {recovered} ms"
    );
    let old = h
        .api
        .get(Kind::Pod, Some("production"), &victim)
        .expect("still there: node-c cannot confirm");
    assert!(old.meta().deletion_timestamp.is_some(), "Terminating");
    let node = h.api.get(Kind::Node, None, "node-c").expect("node");
    let taints: Vec<String> = node
        .as_node()
        .expect("node")
        .spec
        .taints
        .iter()
        .map(|t| format!("{}:{}", t.key, t.effect))
        .collect();
    assert_eq!(
        taints,
        [
            "node.kubernetes.io/unreachable:NoSchedule",
            "node.kubernetes.io/unreachable:NoExecute"
        ]
    );

    // The events, by lastTimestamp, tell the story.
    let story: Vec<String> = events(&h.api)
        .iter()
        .filter(|e| e.last_timestamp.is_some_and(|t| t >= killed_at))
        .map(|e| format!("{} {}", e.reason, e.message))
        .collect();
    let pos = |needle: &str| {
        story
            .iter()
            .position(|s| s.starts_with(needle))
            .unwrap_or_else(|| panic!("{needle} missing in {story:#?}"))
    };
    eprintln!(
        "recovered after {recovered} ms; story:\n{}",
        story.join("\n")
    );
    // The eviction waits out the 60 s toleration, counted from the taint (NotReady).
    let evicted_at = events(&h.api)
        .iter()
        .find(|e| e.reason == "TaintManagerEviction")
        .and_then(|e| e.last_timestamp)
        .expect("eviction event");
    assert!(
        evicted_at.millis_since(not_ready_at) >= 55_000,
        "evicted {} ms after NotReady",
        evicted_at.millis_since(not_ready_at)
    );
    let order = [
        pos("NodeNotReady Node node-c status is now: NodeNotReady"),
        pos(&format!(
            "TaintManagerEviction Marking for deletion Pod production/{victim}"
        )),
        pos("SuccessfulCreate Created pod: orders-api-"),
        pos("Scheduled Successfully assigned production/orders-api-"),
        pos("Started"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{story:#?}");

    // node-c comes back: Ready again, taints gone, the Terminating pod finally removed.
    h.kubelet_mut("node-c").expect("kubelet").set_running(true);
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| {
        let n = h.api.get(Kind::Node, None, "node-c").ok();
        let n = n.as_ref().and_then(|n| n.as_node());
        n.is_some_and(|n| {
            n.spec.taints.is_empty() && n.condition("Ready").is_some_and(|c| c.status == "True")
        }) && h.api.get(Kind::Pod, Some("production"), &victim).is_err()
    }));
    assert_eq!(deployment_status(&h.api, "orders-api"), (3, 3, 3));
}

fn get_deployment(api: &ApiServer, name: &str) -> Deployment {
    api.get(Kind::Deployment, Some("production"), name)
        .ok()
        .and_then(|o| o.as_deployment().cloned())
        .expect("deployment")
}

#[test]
fn two_writers_one_conflict_and_retry_on_conflict_loses_nothing() {
    use watchlab_engine::client::{retry_on_conflict, Backoff};
    use watchlab_engine::controllers::adapter::client_error;
    use watchlab_engine::rng::SimRng;

    let mut h = cluster(3);
    h.api
        .create("kubectl", deployment("orders-api", 3, "orders-api:1.0"))
        .expect("deploy");
    h.run_for(20_000);
    // Both read the same version.
    let read_a = get_deployment(&h.api, "orders-api");
    let read_b = get_deployment(&h.api, "orders-api");
    assert_eq!(
        read_a.metadata.resource_version,
        read_b.metadata.resource_version
    );
    let mut a = read_a.clone();
    a.spec.replicas = Some(4);
    h.api
        .update("alice", Object::Deployment(a.into()))
        .expect("first writer wins");
    let mut b = read_b.clone();
    b.metadata.labels.insert("team".into(), "payments".into());
    let err = h
        .api
        .update("bob", Object::Deployment(b.into()))
        .expect_err("second writer is stale");
    assert_eq!(err.code(), 409);
    assert_eq!(
        err.message(),
        "Operation cannot be fulfilled on deployments.apps \"orders-api\": the object has been \
         modified; please apply your changes to the latest version and try again"
    );
    // Bob retries: attempt 1 is his stale copy, attempt 2 re-reads and re-applies.
    let mut rng = SimRng::seed_from_u64(1);
    let api = &mut h.api;
    let mut reads = Vec::new();
    let out = retry_on_conflict(
        Backoff::default_retry(),
        &mut rng,
        Timestamp::ZERO,
        |attempt| {
            let mut d = if attempt.number == 1 {
                read_b.clone()
            } else {
                get_deployment(api, "orders-api")
            };
            reads.push(d.metadata.resource_version.clone());
            d.metadata.labels.insert("team".into(), "payments".into());
            api.update("bob", Object::Deployment(d.into()))
                .map_err(|s| client_error(&s))
        },
    );
    assert!(out.result.is_ok(), "{:?}", out.result);
    assert_eq!(out.attempts, 2);
    assert_ne!(reads[0], reads[1], "attempt 2 read the latest version");
    let d = get_deployment(&h.api, "orders-api");
    assert_eq!(d.spec.replicas, Some(4), "alice's change kept");
    assert_eq!(
        d.metadata.labels.get("team").map(String::as_str),
        Some("payments"),
        "bob's change applied"
    );
    // The controllers converge on the merged object.
    let deadline = h.now().plus_secs(60);
    assert!(
        h.run_until_true(deadline, |h| deployment_status(&h.api, "orders-api")
            == (4, 4, 4))
    );
}

/// Every revision's key, type and value JSON, plus the events as kubectl shows them.
fn transcript(h: &Harness) -> (Vec<String>, Vec<String>) {
    let store = h.api.store();
    let ledger = (1..=h.api.revision())
        .flat_map(|rev| {
            store
                .events_at(rev)
                .iter()
                .map(move |e| format!("{rev} {:?} {} {}", e.kind, e.kv.key, e.kv.value.to_json()))
        })
        .collect();
    let evs = events(&h.api)
        .iter()
        .map(|e| {
            format!(
                "{:?} {} {} {} {:?}",
                e.last_timestamp, e.reason, e.involved_object.name, e.message, e.count
            )
        })
        .collect();
    (ledger, evs)
}

fn story(seed: u64) -> (Vec<String>, Vec<String>) {
    let mut h = cluster(seed);
    h.api
        .create("kubectl", deployment("orders-api", 3, "orders-api:1.0"))
        .expect("deploy");
    h.run_for(30_000);
    h.kubelet_mut("node-b").expect("kubelet").set_running(false);
    h.run_for(100_000);
    transcript(&h)
}

#[test]
fn the_same_seed_gives_the_same_history_byte_for_byte() {
    let (ledger_1, events_1) = story(42);
    let (ledger_2, events_2) = story(42);
    assert!(ledger_1.len() > 100, "a real history: {}", ledger_1.len());
    assert_eq!(ledger_1, ledger_2);
    assert_eq!(events_1, events_2);
    let (ledger_3, _) = story(43);
    assert_ne!(
        ledger_1, ledger_3,
        "another seed, another history (uids, names, timings)"
    );
}

fn available_pods(api: &ApiServer) -> usize {
    pods(api, "production")
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter(|p| p.condition("Ready").is_some_and(|c| c.status == "True"))
        .count()
}

fn scale(h: &mut Harness, replicas: i32) {
    let mut d = get_deployment(&h.api, "orders-api");
    d.spec.replicas = Some(replicas);
    h.api
        .update("kubectl", Object::Deployment(d.into()))
        .expect("scale");
    let deadline = h.now().plus_secs(60);
    let want = (replicas, replicas, replicas);
    assert!(
        h.run_until_true(deadline, |h| deployment_status(&h.api, "orders-api")
            == want
            && live_pods_by_node(&h.api).len() == replicas as usize),
        "scaled to {replicas}"
    );
}

#[test]
fn scaling_and_a_rolling_update_keep_availability_and_end_on_one_replica_set() {
    rollout_story(5);
}

/// Scenario 5 with the cluster seeded by `seed`.
fn rollout_story(seed: u64) {
    let mut h = cluster(seed);
    h.api
        .create("kubectl", deployment("orders-api", 3, "orders-api:1.0"))
        .expect("deploy");
    let deadline = h.now().plus_secs(60);
    assert!(
        h.run_until_true(deadline, |h| deployment_status(&h.api, "orders-api")
            == (3, 3, 3))
    );
    scale(&mut h, 5);
    scale(&mut h, 2);
    scale(&mut h, 3);

    let mut d = get_deployment(&h.api, "orders-api");
    d.spec.template.spec.containers[0].image = "orders-api:2.0".into();
    h.api
        .update("kubectl", Object::Deployment(d.into()))
        .expect("set image");
    // maxUnavailable = 25% of 3 rounded down = 0: never fewer than 3 available;
    // maxSurge = 25% of 3 rounded up = 1: never more than 4 pods.
    let mut lowest = usize::MAX;
    let mut highest = 0;
    let deadline = h.now().plus_secs(120);
    let done = h.run_until_true(deadline, |h| {
        lowest = lowest.min(available_pods(&h.api));
        highest = highest.max(live_pods_by_node(&h.api).len());
        let d = get_deployment(&h.api, "orders-api");
        d.status.observed_generation == d.metadata.generation.unwrap_or(0)
            && d.status.updated_replicas == 3
            && d.status.available_replicas == 3
            && d.status.replicas == 3
            && live_pods_by_node(&h.api).len() == 3
    });
    assert!(done, "rollout finished");
    assert!(lowest >= 3, "availability dipped to {lowest}");
    assert!(highest <= 4, "surged to {highest} pods");
    let rss: Vec<(String, i32, String)> = h
        .api
        .list(
            Kind::ReplicaSet,
            Some("production"),
            &ListOptions::default(),
        )
        .expect("list")
        .items
        .iter()
        .filter_map(|o| o.as_replica_set())
        .map(|rs| {
            let image = rs.spec.template.spec.containers[0].image.clone();
            (
                image,
                rs.spec.replicas.unwrap_or(0),
                rs.metadata
                    .annotations
                    .get("deployment.kubernetes.io/revision")
                    .cloned()
                    .unwrap_or_default(),
            )
        })
        .collect();
    let mut rss = rss;
    rss.sort();
    assert_eq!(
        rss,
        [
            ("orders-api:1.0".to_string(), 0, "1".to_string()),
            ("orders-api:2.0".to_string(), 3, "2".to_string())
        ]
    );
    let d = get_deployment(&h.api, "orders-api");
    assert_eq!(
        d.metadata
            .annotations
            .get("deployment.kubernetes.io/revision")
            .map(String::as_str),
        Some("2")
    );
    let progressing = d
        .status
        .conditions
        .iter()
        .find(|c| c.type_ == "Progressing")
        .expect("Progressing");
    assert_eq!(progressing.reason, "NewReplicaSetAvailable");
    let scaled: Vec<String> = events(&h.api)
        .iter()
        .filter(|e| e.reason == "ScalingReplicaSet")
        .map(|e| e.message.to_string())
        .collect();
    assert!(
        scaled
            .first()
            .is_some_and(|m| m.starts_with("Scaled up replica set orders-api-")
                && m.ends_with(" from 0 to 3")),
        "{scaled:?}"
    );
    assert!(
        scaled.iter().any(|m| m.ends_with("from 3 to 5")),
        "{scaled:?}"
    );
    assert!(
        scaled
            .iter()
            .any(|m| m.starts_with("Scaled down") && m.ends_with("from 5 to 2")),
        "{scaled:?}"
    );
}

#[test]
fn with_the_real_defaults_the_same_failure_takes_about_six_minutes() {
    let mut h = Harness::new(13, &Profile::kubernetes(), &NODES);
    namespace(&mut h.api, "production");
    h.run_for(15_000);
    h.api
        .create("kubectl", deployment("orders-api", 3, "orders-api:1.0"))
        .expect("deploy");
    let deadline = h.now().plus_secs(60);
    assert!(
        h.run_until_true(deadline, |h| deployment_status(&h.api, "orders-api")
            == (3, 3, 3))
    );
    let (_, victim) = live_pods_by_node(&h.api)
        .into_iter()
        .find(|(n, _)| n == "node-c")
        .expect("a replica on node-c");
    let killed_at = h.now();
    h.kubelet_mut("node-c").expect("kubelet").set_running(false);
    let unknown = |h: &Harness| {
        h.api
            .get(Kind::Node, None, "node-c")
            .ok()
            .and_then(|n| {
                n.as_node()
                    .and_then(|n| n.condition("Ready").map(|c| c.status == "Unknown"))
            })
            .unwrap_or(false)
    };
    assert!(h.run_until_true(killed_at.plus_secs(70), unknown));
    let not_ready = h.now().millis_since(killed_at);
    // Lease renewed every 10 s, grace 50 s, monitor every 5 s.
    assert!((40_000..=60_000).contains(&not_ready), "{not_ready} ms");
    let evicted = |h: &Harness| {
        h.api
            .get(Kind::Pod, Some("production"), &victim)
            .is_ok_and(|p| p.meta().deletion_timestamp.is_some())
    };
    // DefaultTolerationSeconds: 300 s after the taint.
    assert!(
        !h.run_until_true(h.now().plus_secs(290), evicted),
        "not before 300 s"
    );
    assert!(
        h.run_until_true(h.now().plus_secs(20), evicted),
        "evicted after 300 s"
    );
}

/// The stories do not depend on a lucky seed: the same order of writes, the same recovery
/// bound, the same availability through a rollout, whatever the rng draws.
#[test]
fn every_seed_tells_the_same_stories() {
    for seed in 100..110 {
        kubectl_run_story(seed);
        node_c_story(seed);
        rollout_story(seed);
    }
}
