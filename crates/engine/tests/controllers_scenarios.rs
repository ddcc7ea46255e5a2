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
