//! One controller behaviour at a time, end to end through the harness: the scheduler's filters,
//! FailedScheduling message and backoff, assumed pods; the ReplicaSet's expectations and
//! adoption; the kubelet's graceful deletion; and convergence after an etcd outage.

use watchlab_apimachinery::quantity::Quantity;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::apps::{PodTemplateSpec, ReplicaSet, ReplicaSetSpec};
use watchlab_engine::api::meta::LabelSelector;
use watchlab_engine::api::node::Taint;
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Event, Kind, Namespace, Object, ObjectMeta};
use watchlab_engine::apiserver::{ApiServer, DeleteOptions, EtcdFault, WatchEventType};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::{Harness, Profile};

fn cluster(seed: u64) -> Harness {
    let mut h = Harness::new(seed, &Profile::training(), &["node-a", "node-b", "node-c"]);
    let ns = Object::Namespace(Namespace {
        metadata: ObjectMeta::named("", "production"),
        ..Default::default()
    });
    h.api.create("kubectl", ns).expect("namespace");
    h.run_for(5_000);
    h
}

fn pod(name: &str, labels: &[(&str, &str)], cpu: Option<&str>) -> Pod {
    let mut c = Container {
        name: "app".into(),
        image: "app:1.0".into(),
        ..Default::default()
    };
    if let Some(cpu) = cpu {
        c.resources
            .requests
            .insert("cpu".into(), Quantity::parse(cpu).expect("quantity"));
    }
    Pod {
        metadata: ObjectMeta {
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..ObjectMeta::named("production", name)
        },
        spec: PodSpec {
            containers: vec![c].into(),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    }
}

fn get_pod(api: &ApiServer, name: &str) -> Option<Pod> {
    api.get(Kind::Pod, Some("production"), name)
        .ok()
        .and_then(|o| o.as_pod().cloned())
}

fn events(api: &ApiServer, reason: &str) -> Vec<Event> {
    api.list(Kind::Event, None, &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| match &**o {
                    Object::Event(e) if e.reason == reason => Some(e.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn update_node(
    api: &mut ApiServer,
    name: &str,
    change: impl FnOnce(&mut watchlab_engine::api::Node),
) {
    let mut n = api
        .get(Kind::Node, None, name)
        .ok()
        .and_then(|o| o.as_node().cloned())
        .expect("node");
    change(&mut n);
    api.update("kubectl", Object::Node(n)).expect("update node");
}

#[test]
fn assumed_pods_prevent_double_booking_and_the_last_one_waits_with_backoff() {
    let mut h = cluster(1);
    // Four pods of 3 cpu on three 4-cpu nodes, created in the same instant.
    for i in 0..4 {
        let p = pod(&format!("big-{i}"), &[], Some("3"));
        h.api.create("kubectl", Object::Pod(p)).expect("create");
    }
    h.run_for(20_000);
    let placed: Vec<String> = (0..4)
        .filter_map(|i| get_pod(&h.api, &format!("big-{i}")))
        .map(|p| p.spec.node_name.clone())
        .collect();
    let mut bound: Vec<&String> = placed.iter().filter(|n| !n.is_empty()).collect();
    bound.sort();
    bound.dedup();
    assert_eq!(bound.len(), 3, "three distinct nodes: {placed:?}");
    let waiting = (0..4)
        .filter_map(|i| get_pod(&h.api, &format!("big-{i}")))
        .find(|p| p.spec.node_name.is_empty())
        .expect("one pod left");
    let failed = events(&h.api, "FailedScheduling");
    assert_eq!(failed.len(), 1, "one event, counted up");
    let e = &failed[0];
    assert_eq!(e.type_, "Warning");
    assert_eq!(e.involved_object.name, waiting.metadata.name);
    assert_eq!(
        &*e.message,
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: \
         3 No preemption victims found for incoming pod."
    );
    // Backoff 1 s, 2 s, 4 s, 8 s, 10 s...: a handful of attempts in 20 s, not hundreds.
    let count = e.count.unwrap_or(0);
    assert!((3..=8).contains(&count), "attempts: {count}");
    let cond = waiting.condition("PodScheduled").expect("condition");
    assert_eq!((&*cond.status, &*cond.reason), ("False", "Unschedulable"));

    // Freeing a node lets it in.
    let victim = (0..4)
        .filter_map(|i| get_pod(&h.api, &format!("big-{i}")))
        .find(|p| !p.spec.node_name.is_empty())
        .expect("a bound pod");
    let opts = DeleteOptions {
        grace_period_seconds: Some(0),
        ..Default::default()
    };
    h.api
        .delete(
            "kubectl",
            Kind::Pod,
            Some("production"),
            &victim.metadata.name,
            &opts,
        )
        .expect("delete");
    let name = waiting.metadata.name.clone();
    let deadline = h.now().plus_secs(15);
    assert!(h.run_until_true(deadline, |h| get_pod(&h.api, &name)
        .is_some_and(|p| p.spec.node_name == victim.spec.node_name)));
}

#[test]
fn filters_report_taints_selectors_and_unschedulable_nodes() {
    let mut h = cluster(2);
    update_node(&mut h.api, "node-a", |n| {
        n.spec.taints.push(Taint {
            key: "dedicated".into(),
            value: "gpu".into(),
            effect: "NoSchedule".into(),
            time_added: None,
        })
    });
    update_node(&mut h.api, "node-b", |n| n.spec.unschedulable = true);
    update_node(&mut h.api, "node-c", |n| {
        n.metadata.labels.insert("disk".into(), "hdd".into());
    });
    // Let the scheduler's node cache catch up (its informer lags by up to 200 ms).
    h.run_for(1_000);
    let mut p = pod("picky", &[], None);
    p.spec_mut()
        .node_selector
        .insert("disk".into(), "ssd".into());
    h.api.create("kubectl", Object::Pod(p)).expect("create");
    h.run_for(3_000);
    let failed = events(&h.api, "FailedScheduling");
    assert_eq!(
        failed.first().map(|e| &*e.message),
        Some(
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, \
             1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. \
             preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )
    );
    // Relabel node-c: the node update moves the pod back to the queue.
    update_node(&mut h.api, "node-c", |n| {
        n.metadata.labels.insert("disk".into(), "ssd".into());
    });
    let deadline = h.now().plus_secs(5);
    assert!(h.run_until_true(deadline, |h| get_pod(&h.api, "picky")
        .is_some_and(|p| p.spec.node_name == "node-c")));
}

fn replica_set(name: &str, replicas: i32) -> Object {
    let labels: std::collections::BTreeMap<String, String> =
        [("app".to_string(), name.to_string())].into();
    Object::ReplicaSet(Box::new(ReplicaSet {
        metadata: ObjectMeta::named("production", name),
        spec: ReplicaSetSpec {
            replicas: Some(replicas),
            min_ready_seconds: None,
            selector: Some(LabelSelector {
                match_labels: labels.clone(),
                ..Default::default()
            }),
            template: PodTemplateSpec {
                metadata: ObjectMeta {
                    labels: labels.into(),
                    ..Default::default()
                },
                spec: (*pod("x", &[], None).spec).clone(),
            },
        },
        status: Default::default(),
    }))
}

fn pods_of(api: &ApiServer, app: &str) -> Vec<Pod> {
    api.list(Kind::Pod, Some("production"), &ListOptions::default())
        .map(|l| {
            l.items
                .iter()
                .filter_map(|o| o.as_pod().cloned())
                .filter(|p| p.metadata.labels.get("app").map(String::as_str) == Some(app))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_replica_set_creating_sixty_pods_writes_twenty_five_events_then_one_per_five_minutes() {
    // client-go's correlator: the 10th distinct message on aggregates into one combined Event,
    // and the spam filter passes 25 events about one object from one source, then refills one
    // token per 5 minutes.
    let mut h = cluster(4);
    h.api
        .create("kubectl", replica_set("many", 60))
        .expect("rs");
    h.run_for(30_000);
    assert_eq!(pods_of(&h.api, "many").len(), 60, "every pod is created");
    let written = |h: &Harness| -> (usize, i32) {
        let evs = events(&h.api, "SuccessfulCreate");
        (evs.len(), evs.iter().map(|e| e.count.unwrap_or(1)).sum())
    };
    assert_eq!(written(&h), (10, 25), "nine single events and one combined");
    let combined = events(&h.api, "SuccessfulCreate")
        .into_iter()
        .find(|e| e.message.starts_with("(combined from similar events): "))
        .expect("combined");
    assert_eq!(combined.count, Some(16));

    // Five minutes later the bucket holds one token: one more create is written.
    h.run_for(300_000);
    let mut rs = h
        .api
        .get(Kind::ReplicaSet, Some("production"), "many")
        .expect("rs")
        .as_ref()
        .clone();
    if let Object::ReplicaSet(r) = &mut rs {
        r.spec.replicas = Some(62);
    }
    h.api.update("kubectl", rs).expect("scale");
    h.run_for(30_000);
    assert_eq!(pods_of(&h.api, "many").len(), 62);
    assert_eq!(written(&h), (10, 26));
}

#[test]
fn a_replica_sets_pods_share_its_templates_containers_through_every_version() {
    // Bound, started and ready, each pod is a new version; none copied the container list.
    let mut h = cluster(5);
    h.api.create("kubectl", replica_set("web", 6)).expect("rs");
    h.run_for(30_000);
    let pods = pods_of(&h.api, "web");
    assert_eq!(pods.len(), 6);
    assert!(pods
        .iter()
        .all(|p| p.status.phase == "Running" && !p.spec.node_name.is_empty()));
    let rs = h
        .api
        .get(Kind::ReplicaSet, Some("production"), "web")
        .expect("rs");
    let Object::ReplicaSet(rs) = &*rs else {
        panic!("a ReplicaSet")
    };
    let template = &rs.spec.template.spec.containers;
    assert!(pods.iter().all(|p| p.spec.containers.shares_with(template)));
}

#[test]
fn replica_set_adopts_orphans_and_never_overshoots_despite_lag() {
    let mut h = cluster(3);
    let orphan = pod("orphan", &[("app", "web")], None);
    h.api
        .create("kubectl", Object::Pod(orphan))
        .expect("orphan");
    h.run_for(1_000);
    h.api.create("kubectl", replica_set("web", 5)).expect("rs");
    h.run_for(30_000);
    let pods = pods_of(&h.api, "web");
    assert_eq!(pods.len(), 5, "4 created + the adopted orphan");
    let rs = h
        .api
        .get(Kind::ReplicaSet, Some("production"), "web")
        .expect("rs");
    assert!(pods.iter().all(|p| p
        .metadata
        .controller_ref()
        .is_some_and(|r| r.uid == rs.meta().uid && r.block_owner_deletion == Some(true))));
    assert_eq!(
        events(&h.api, "SuccessfulCreate").len(),
        4,
        "expectations: no double create"
    );
    let created = pods
        .iter()
        .find(|p| p.metadata.name != "orphan")
        .expect("created");
    assert!(created.metadata.name.starts_with("web-") && created.metadata.name.len() == 9);
    assert_eq!(
        created.spec.tolerations.len(),
        2,
        "DefaultTolerationSeconds"
    );
    let status = rs.as_replica_set().expect("rs").status.clone();
    assert_eq!(
        (
            status.replicas,
            status.ready_replicas,
            status.available_replicas,
            status.fully_labeled_replicas
        ),
        (5, 5, 5, 5)
    );
    assert_eq!(status.observed_generation, 1);

    // Relabel one pod out of the selector: released, and replaced.
    let mut moved = created.clone();
    moved.metadata.labels.insert("app".into(), "debug".into());
    h.api
        .update("kubectl", Object::Pod(moved.clone()))
        .expect("relabel");
    h.run_for(20_000);
    let released = get_pod(&h.api, &moved.metadata.name).expect("kept running");
    assert!(released.metadata.owner_references.is_empty(), "released");
    assert_eq!(pods_of(&h.api, "web").len(), 5, "replaced");
    let rs = h
        .api
        .get(Kind::ReplicaSet, Some("production"), "web")
        .expect("rs");

    // Scale down to 2: three deletions, graceful, then gone once the kubelets confirm.
    let mut r = rs.as_replica_set().cloned().expect("rs");
    r.spec.replicas = Some(2);
    h.api
        .update("kubectl", Object::ReplicaSet(Box::new(r)))
        .expect("scale");
    h.run_for(20_000);
    assert_eq!(pods_of(&h.api, "web").len(), 2);
    assert_eq!(events(&h.api, "SuccessfulDelete").len(), 3);
    assert!(events(&h.api, "Killing").len() >= 3);
}

#[test]
fn kubelet_stops_a_deleted_pod_then_removes_it_with_grace_zero() {
    let mut h = cluster(4);
    h.api
        .create("kubectl", Object::Pod(pod("job", &[], None)))
        .expect("create");
    let deadline = h.now().plus_secs(20);
    assert!(h.run_until_true(deadline, |h| get_pod(&h.api, "job")
        .is_some_and(|p| p.status.phase == "Running")));
    let watch = h
        .api
        .watch(
            "kubectl",
            Kind::Pod,
            Some("production"),
            &ListOptions {
                resource_version: Some(h.api.revision().to_string()),
                ..Default::default()
            },
        )
        .expect("watch");
    h.api
        .delete(
            "kubectl",
            Kind::Pod,
            Some("production"),
            "job",
            &DeleteOptions::default(),
        )
        .expect("delete");
    let terminating = get_pod(&h.api, "job").expect("still there");
    assert!(terminating.metadata.deletion_timestamp.is_some());
    h.run_for(10_000);
    assert!(get_pod(&h.api, "job").is_none(), "removed by the kubelet");
    let types: Vec<WatchEventType> = h
        .api
        .poll(watch)
        .expect("open")
        .iter()
        .map(|e| e.event_type)
        .collect();
    assert_eq!(types, [WatchEventType::Modified, WatchEventType::Deleted]);
    let killing = events(&h.api, "Killing");
    assert_eq!(
        killing.first().map(|e| &*e.message),
        Some("Stopping container app")
    );
}

#[test]
fn an_etcd_outage_fails_writes_without_busy_looping_and_the_cluster_converges_after() {
    let mut h = cluster(5);
    for m in ["etcd-1", "etcd-2"] {
        h.api.etcd_fault(&EtcdFault::Kill(m.into())).unwrap();
    }
    let before = h.api.revision();
    for m in ["etcd-1", "etcd-2"] {
        h.api.etcd_fault(&EtcdFault::Restore(m.into())).unwrap();
    }
    h.api.create("kubectl", replica_set("api", 3)).expect("rs");
    for m in ["etcd-1", "etcd-2"] {
        h.api.etcd_fault(&EtcdFault::Kill(m.into())).unwrap();
    }
    let rounds = h.rounds;
    h.run_for(60_000);
    assert_eq!(
        h.api.revision(),
        before + 1,
        "nothing written during the outage"
    );
    let spent = h.rounds - rounds;
    assert!(
        spent < 20_000,
        "backing off, not spinning: {spent} steps in a minute"
    );
    for m in ["etcd-1", "etcd-2"] {
        h.api.etcd_fault(&EtcdFault::Restore(m.into())).unwrap();
    }
    let deadline = h.now().plus_secs(90);
    assert!(
        h.run_until_true(deadline, |h| {
            let ready = pods_of(&h.api, "api")
                .iter()
                .filter(|p| p.status.phase == "Running")
                .count();
            ready == 3
        }),
        "converged after the outage"
    );
    assert_eq!(pods_of(&h.api, "api").len(), 3);
    let nodes_ready = h
        .api
        .list(Kind::Node, None, &ListOptions::default())
        .expect("nodes")
        .items
        .iter()
        .filter_map(|o| o.as_node())
        .filter(|n| n.condition("Ready").is_some_and(|c| c.status == "True"))
        .count();
    let _ = Timestamp::ZERO;
    assert_eq!(nodes_ready, 3, "kubelets kept or regained Ready");
}

#[test]
fn old_replica_sets_beyond_the_revision_history_limit_are_deleted() {
    use watchlab_engine::api::apps::{Deployment, DeploymentSpec};
    let mut h = cluster(6);
    let labels: std::collections::BTreeMap<String, String> =
        [("app".to_string(), "hist".to_string())].into();
    let d = Deployment {
        metadata: ObjectMeta::named("production", "hist"),
        spec: DeploymentSpec {
            replicas: Some(1),
            revision_history_limit: Some(1),
            selector: Some(LabelSelector {
                match_labels: labels.clone(),
                ..Default::default()
            }),
            template: PodTemplateSpec {
                metadata: ObjectMeta {
                    labels: labels.into(),
                    ..Default::default()
                },
                spec: (*pod("x", &[], None).spec).clone(),
            },
            ..Default::default()
        },
        status: Default::default(),
    };
    h.api
        .create("kubectl", Object::Deployment(Box::new(d)))
        .expect("create");
    h.run_for(15_000);
    for v in 2..=4 {
        let mut d = h
            .api
            .get(Kind::Deployment, Some("production"), "hist")
            .ok()
            .and_then(|o| o.as_deployment().cloned())
            .expect("d");
        d.spec.template.spec.containers[0].image = format!("app:{v}.0");
        h.api
            .update("kubectl", Object::Deployment(Box::new(d)))
            .expect("update");
        h.run_for(30_000);
    }
    let mut revisions: Vec<String> = h
        .api
        .list(
            Kind::ReplicaSet,
            Some("production"),
            &ListOptions::default(),
        )
        .expect("list")
        .items
        .iter()
        .filter_map(|o| {
            o.meta()
                .annotations
                .get("deployment.kubernetes.io/revision")
                .cloned()
        })
        .collect();
    revisions.sort();
    assert_eq!(revisions, ["3", "4"], "the current one plus one old");
    assert_eq!(pods_of(&h.api, "hist").len(), 1);
}

#[test]
fn a_short_kubelet_outage_goes_unnoticed_and_a_restored_kubelet_keeps_its_pods() {
    let mut h = cluster(8);
    let mut p = pod("steady", &[], None);
    p.spec_mut().node_name = "node-b".into();
    h.api.create("kubectl", Object::Pod(p)).expect("create");
    let deadline = h.now().plus_secs(20);
    assert!(h.run_until_true(deadline, |h| get_pod(&h.api, "steady")
        .is_some_and(|p| p.status.phase == "Running")));
    let before = get_pod(&h.api, "steady").expect("pod");
    h.kubelet_mut("node-b").expect("kubelet").set_running(false);
    h.run_for(12_000); // less than the 20 s grace period
    h.kubelet_mut("node-b").expect("kubelet").set_running(true);
    h.run_for(30_000);
    assert!(events(&h.api, "NodeNotReady").is_empty());
    let after = get_pod(&h.api, "steady").expect("pod");
    assert_eq!(after.metadata.uid, before.metadata.uid);
    assert_eq!(after.status.phase, "Running");
    assert_eq!(after.status.pod_ip, before.status.pod_ip);
    assert_eq!(events(&h.api, "Started").len(), 1, "not restarted");
}

/// The kubelet writes all ten `status.nodeInfo` fields (none is `omitempty` in the Go type; the
/// official clients refuse a Node that lacks one), each node with its own machine identities.
#[test]
fn kubelets_report_every_node_system_info_field() {
    let h = cluster(7);
    let mut machine_ids = Vec::new();
    for name in ["node-a", "node-b", "node-c"] {
        let node = h.api.get(Kind::Node, None, name).expect("node");
        let json = serde_json::to_value(&*node).expect("json");
        let info = &json["status"]["nodeInfo"];
        for field in [
            "machineID",
            "systemUUID",
            "bootID",
            "kernelVersion",
            "osImage",
            "containerRuntimeVersion",
            "kubeletVersion",
            "kubeProxyVersion",
            "operatingSystem",
            "architecture",
        ] {
            let value = info[field].as_str().unwrap_or_default();
            assert!(!value.is_empty(), "{name} nodeInfo.{field}: {info}");
        }
        machine_ids.push(info["machineID"].to_string());
    }
    machine_ids.dedup();
    assert_eq!(machine_ids.len(), 3, "{machine_ids:?}");
}
