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
    Object::Deployment(Deployment {
        metadata: ObjectMeta::named("production", name),
        spec: DeploymentSpec {
            replicas: Some(replicas),
            selector: Some(LabelSelector {
                match_labels: labels.clone(),
                ..Default::default()
            }),
            template: PodTemplateSpec {
                metadata: ObjectMeta {
                    labels,
                    ..Default::default()
                },
                spec: PodSpec {
                    containers: vec![container(name, image)],
                    ..Default::default()
                },
            },
            ..Default::default()
        },
        status: Default::default(),
    })
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
    evs.sort_by_key(|e| (e.last_timestamp, e.metadata.resource_version.parse::<u64>().unwrap_or(0)));
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
    let mut h = cluster(7);
    let watch = h
        .api
        .watch("kubectl", Kind::Pod, Some("production"), &ListOptions::default())
        .expect("watch");
    let pod = Object::Pod(Pod {
        metadata: ObjectMeta {
            labels: [("run".to_string(), "debug-tools".to_string())].into(),
            ..ObjectMeta::named("production", "debug-tools")
        },
        spec: PodSpec {
            containers: vec![container("debug-tools", "debug-tools:1.0")],
            ..Default::default()
        },
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
        .filter_map(|e| e.object().map(|o| (e.event_type, e.resource_version, o.clone())))
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
            (*t, p.spec.node_name.clone(), p.status.phase.clone(), waiting)
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
    let scheduled = evs.iter().find(|e| e.reason == "Scheduled").expect("Scheduled");
    assert_eq!(
        scheduled.message,
        format!("Successfully assigned production/debug-tools to {node}")
    );
    assert_eq!(scheduled.source.component, "default-scheduler");
    let reasons: Vec<&str> = evs
        .iter()
        .filter(|e| e.involved_object.name == "debug-tools")
        .map(|e| e.reason.as_str())
        .collect();
    assert_eq!(reasons, ["Scheduled", "Pulling", "Pulled", "Created", "Started"]);
    let started = evs.iter().find(|e| e.reason == "Started").expect("Started");
    assert_eq!(started.source.component, "kubelet");
    assert_eq!(&started.source.host, node);
}

fn deployment_status(api: &ApiServer, name: &str) -> (i32, i32, i32) {
    api.get(Kind::Deployment, Some("production"), name)
        .ok()
        .and_then(|o| o.as_deployment().map(|d| (d.status.replicas, d.status.ready_replicas, d.status.available_replicas)))
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
    let mut h = cluster(11);
    h.api.create("kubectl", deployment("orders-api", 3, "orders-api:1.0")).expect("deploy");
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| deployment_status(&h.api, "orders-api") == (3, 3, 3)));
    let placed = live_pods_by_node(&h.api);
    let nodes: std::collections::BTreeSet<&str> = placed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(nodes.len(), 3, "LeastAllocated spreads the replicas: {placed:?}");
    let victim = placed.iter().find(|(n, _)| n == "node-c").map(|(_, p)| p.clone()).expect("pod on node-c");

    let killed_at = h.now();
    h.kubelet_mut("node-c").expect("kubelet").set_running(false);
    // NotReady after the grace period (20 s in training, + up to one 5 s monitor period).
    let deadline = killed_at.plus_secs(40);
    assert!(h.run_until_true(deadline, |h| h.api.get(Kind::Node, None, "node-c").ok().and_then(|n| n.as_node().and_then(|n| n.condition("Ready").map(|c| c.status == "Unknown"))).unwrap_or(false)));
    let not_ready_at = h.now();
    assert!(not_ready_at.millis_since(killed_at) >= 20_000, "not before the grace period");
    let node = h.api.get(Kind::Node, None, "node-c").expect("node");
    let node = node.as_node().expect("node");
    let ready = node.condition("Ready").expect("Ready");
    assert_eq!(ready.reason, "NodeStatusUnknown");
    assert_eq!(ready.message, "Kubelet stopped posting node status.");
    // Terminating after the 60 s toleration; replaced; 3 ready again.
    let deadline = killed_at.plus_secs(150);
    assert!(h.run_until_true(deadline, |h| {
        let live = live_pods_by_node(&h.api);
        deployment_status(&h.api, "orders-api").1 == 3
            && live.len() == 3
            && live.iter().all(|(n, _)| n != "node-c")
    }), "recovered: {:?}", live_pods_by_node(&h.api));
    let recovered = h.now().millis_since(killed_at);
    assert!(recovered <= 120_000, "about two minutes, took {recovered} ms");
    let old = h.api.get(Kind::Pod, Some("production"), &victim).expect("still there: node-c cannot confirm");
    assert!(old.meta().deletion_timestamp.is_some(), "Terminating");
    let node = h.api.get(Kind::Node, None, "node-c").expect("node");
    let taints: Vec<String> = node.as_node().expect("node").spec.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect();
    assert_eq!(taints, ["node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]);

    // The events, by lastTimestamp, tell the story.
    let story: Vec<String> = events(&h.api)
        .iter()
        .filter(|e| e.last_timestamp.is_some_and(|t| t >= killed_at))
        .map(|e| format!("{} {}", e.reason, e.message))
        .collect();
    let pos = |needle: &str| story.iter().position(|s| s.starts_with(needle)).unwrap_or_else(|| panic!("{needle} missing in {story:#?}"));
    eprintln!("recovered after {recovered} ms; story:\n{}", story.join("\n"));
    let order = [
        pos("NodeNotReady Node node-c status is now: NodeNotReady"),
        pos(&format!("TaintManagerEviction Marking for deletion Pod production/{victim}")),
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
        n.is_some_and(|n| n.spec.taints.is_empty() && n.condition("Ready").is_some_and(|c| c.status == "True"))
            && h.api.get(Kind::Pod, Some("production"), &victim).is_err()
    }));
    assert_eq!(deployment_status(&h.api, "orders-api"), (3, 3, 3));
}
