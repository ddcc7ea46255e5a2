//! The garbage collector and the cordon taint through the controllers' harness: deleting a
//! Deployment cascades (background) to its ReplicaSets and their pods; objects whose owner is
//! gone (controller reference or not) are collected, others left alone; cordon/uncordon add and remove the unschedulable taint.

use std::collections::BTreeMap;

use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::apps::{Deployment, DeploymentSpec, PodTemplateSpec};
use watchlab_engine::api::meta::{LabelSelector, OwnerReference};
use watchlab_engine::api::pod::{Container, Pod, PodSpec};
use watchlab_engine::api::{Kind, Namespace, Object, ObjectMeta};
use watchlab_engine::apiserver::{ApiServer, DeleteOptions};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::controllers::{Harness, Profile};

const NS: &str = "production";
const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

fn cluster(seed: u64) -> Harness {
    let mut h = Harness::new(seed, &Profile::training(), &["node-a", "node-b"]);
    let ns = Object::Namespace(Namespace {
        metadata: ObjectMeta::named("", NS),
        ..Default::default()
    });
    h.api.create("kubectl", ns).expect("namespace");
    h.run_for(5_000);
    h
}

fn pod_spec(image: &str) -> PodSpec {
    PodSpec {
        containers: vec![Container {
            name: "app".into(),
            image: image.into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    }
}

fn deployment(name: &str, replicas: i32) -> Object {
    let labels: BTreeMap<String, String> = [("app".to_string(), name.to_string())].into();
    Object::Deployment(
        Deployment {
            metadata: ObjectMeta::named(NS, name),
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
                    spec: pod_spec("nginx:1.27"),
                },
                ..Default::default()
            },
            status: Default::default(),
        }
        .into(),
    )
}

fn count(api: &ApiServer, kind: Kind) -> usize {
    api.list(kind, Some(NS), &ListOptions::default())
        .map(|l| l.items.len())
        .unwrap_or(0)
}

fn live_pods(api: &ApiServer) -> Vec<Pod> {
    api.list(Kind::Pod, Some(NS), &ListOptions::default())
        .map(|l| l.items.iter().filter_map(|o| o.as_pod().cloned()).collect())
        .unwrap_or_default()
}

fn delete(h: &mut Harness, kind: Kind, name: &str) {
    h.api
        .delete("kubectl", kind, Some(NS), name, &DeleteOptions::default())
        .expect("delete");
}

#[test]
fn deleting_a_deployment_removes_its_replica_set_and_pods() {
    for seed in [1, 7, 42] {
        let mut h = cluster(seed);
        h.api
            .create("kubectl", deployment("web", 3))
            .expect("create");
        let deadline = h.now().plus_secs(60);
        assert!(h.run_until_true(deadline, |h| live_pods(&h.api).len() == 3));
        assert_eq!(count(&h.api, Kind::ReplicaSet), 1);
        delete(&mut h, Kind::Deployment, "web");
        let deadline = h.now().plus_secs(15);
        let gone = h.run_until_true(deadline, |h| {
            count(&h.api, Kind::ReplicaSet) == 0 && count(&h.api, Kind::Pod) == 0
        });
        assert!(gone, "seed {seed}: rs/pods left behind");
        // Nothing recreates them afterwards.
        h.run_for(30_000);
        assert_eq!(count(&h.api, Kind::ReplicaSet), 0);
        assert_eq!(count(&h.api, Kind::Pod), 0);
    }
}

fn bare_pod(name: &str, owner: Option<OwnerReference>) -> Object {
    Object::Pod(Pod {
        metadata: ObjectMeta {
            owner_references: owner.into_iter().collect(),
            ..ObjectMeta::named(NS, name)
        },
        spec: pod_spec("busybox:1.36").into(),
        ..Default::default()
    })
}

fn owner_ref(kind: &str, name: &str, uid: &str, controller: bool) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: kind.into(),
        name: name.into(),
        uid: uid.into(),
        controller: Some(controller),
        block_owner_deletion: Some(true),
    }
}

#[test]
fn dependents_of_a_gone_owner_are_collected_whether_controller_or_not() {
    let mut h = cluster(3);
    h.api
        .create("kubectl", deployment("web", 1))
        .expect("create");
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| live_pods(&h.api).len() == 1));
    let rs = h
        .api
        .list(Kind::ReplicaSet, Some(NS), &ListOptions::default())
        .expect("list")
        .items[0]
        .clone();
    let rs_name = rs.meta().name.clone();
    let rs_uid = rs.meta().uid.clone();
    // No owner at all; a non-controller reference to a gone owner; a live controller owner;
    // a controller owner of that name with another uid (a recreated owner counts as gone).
    let pods = [
        bare_pod("standalone", None),
        bare_pod(
            "weak-ref",
            Some(owner_ref("ReplicaSet", "gone", "uid-gone", false)),
        ),
        bare_pod(
            "owned",
            Some(owner_ref("ReplicaSet", &rs_name, &rs_uid, true)),
        ),
        bare_pod(
            "stale-uid",
            Some(owner_ref("ReplicaSet", &rs_name, "uid-old", true)),
        ),
    ];
    for p in pods {
        h.api.create("kubectl", p).expect("pod");
    }
    let deadline = h.now().plus_secs(15);
    assert!(
        h.run_until_true(deadline, |h| !live_pods(&h.api).iter().any(|p| p
            .metadata
            .name
            == "stale-uid"
            || p.metadata.name == "weak-ref"))
    );
    h.run_for(20_000);
    let names: Vec<String> = live_pods(&h.api)
        .into_iter()
        .map(|p| p.metadata.name)
        .collect();
    assert!(names.iter().any(|n| n == "standalone"), "{names:?}");
    for collected in ["stale-uid", "weak-ref"] {
        assert!(!names.iter().any(|n| n == collected), "{names:?}");
    }
    assert_eq!(count(&h.api, Kind::ReplicaSet), 1);
}

fn taints(api: &ApiServer, node: &str) -> Vec<(String, String)> {
    api.get(Kind::Node, None, node)
        .ok()
        .and_then(|o| o.as_node().cloned())
        .map(|n| {
            n.spec
                .taints
                .into_iter()
                .map(|t| (t.key, t.effect))
                .collect()
        })
        .unwrap_or_default()
}

fn set_unschedulable(h: &mut Harness, node: &str, unschedulable: bool) {
    let patch = serde_json::json!({"spec": {"unschedulable": unschedulable}});
    h.api
        .merge_patch("kubectl", Kind::Node, None, node, &patch, false)
        .expect("cordon");
}

#[test]
fn cordon_adds_and_uncordon_removes_the_unschedulable_taint() {
    let mut h = cluster(5);
    let deadline = Timestamp::from_secs(30);
    let tainted = |h: &Harness| {
        taints(&h.api, "node-a").contains(&(UNSCHEDULABLE.to_string(), "NoSchedule".to_string()))
    };
    h.run_until(deadline);
    assert!(!tainted(&h));
    set_unschedulable(&mut h, "node-a", true);
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, tainted));
    assert!(!taints(&h.api, "node-b")
        .iter()
        .any(|(k, _)| k == UNSCHEDULABLE));
    set_unschedulable(&mut h, "node-a", false);
    let deadline = h.now().plus_secs(10);
    assert!(h.run_until_true(deadline, |h| !tainted(h)));
    assert!(taints(&h.api, "node-a").is_empty());
}

#[test]
fn a_custom_resource_owner_takes_its_deployment_with_it() {
    use watchlab_apimachinery::client::ApiClient;
    let mut h = cluster(5);
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "websites.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "websites", "kind": "Website"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let r = h.api.request(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        None,
        Some(&crd.to_string()),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    let site = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Website",
        "metadata": {"name": "blog"}, "spec": {"host": "blog.example.com"}});
    let sites = format!("/apis/example.com/v1/namespaces/{NS}/websites");
    let r = h.api.request("POST", &sites, None, Some(&site.to_string()));
    assert_eq!(r.code, 201, "{}", r.body);
    let created: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
    let uid = created["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut owned = deployment("blog", 2);
    owned.meta_mut().owner_references = vec![OwnerReference {
        api_version: "example.com/v1".into(),
        ..owner_ref("Website", "blog", &uid, true)
    }]
    .into();
    h.api.create("website-operator", owned).expect("create");
    let deadline = h.now().plus_secs(60);
    assert!(h.run_until_true(deadline, |h| live_pods(&h.api).len() == 2));
    // Nothing is collected while the owner exists.
    h.run_for(10_000);
    assert_eq!(count(&h.api, Kind::Deployment), 1);
    let r = h
        .api
        .request("DELETE", &format!("{sites}/blog"), None, None);
    assert_eq!(r.code, 200, "{}", r.body);
    let deadline = h.now().plus_secs(30);
    let gone = h.run_until_true(deadline, |h| {
        count(&h.api, Kind::Deployment) == 0
            && count(&h.api, Kind::ReplicaSet) == 0
            && count(&h.api, Kind::Pod) == 0
    });
    assert!(
        gone,
        "the Website's Deployment, ReplicaSet and pods are collected"
    );
}
