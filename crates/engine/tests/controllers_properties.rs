//! Convergence as a property: whatever the seed, the scale changes and the node outages, once
//! the cluster is left alone the Deployment ends with exactly the desired number of Running,
//! ready pods, all on live nodes, and its status says so.

use proptest::prelude::*;
use watchlab_apimachinery::request::ListOptions;
use watchlab_engine::api::apps::{Deployment, DeploymentSpec, PodTemplateSpec};
use watchlab_engine::api::meta::LabelSelector;
use watchlab_engine::api::pod::{Container, PodSpec};
use watchlab_engine::api::{Kind, Namespace, Object, ObjectMeta};
use watchlab_engine::controllers::{Harness, Profile};

const NODES: [&str; 3] = ["node-a", "node-b", "node-c"];

#[derive(Debug, Clone)]
enum Action {
    Scale(i32),
    SetImage(u8),
    Kill(usize),
    Restore(usize),
    Wait(u64),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        (0..6i32).prop_map(Action::Scale),
        (1..4u8).prop_map(Action::SetImage),
        (0..3usize).prop_map(Action::Kill),
        (0..3usize).prop_map(Action::Restore),
        (100..20_000u64).prop_map(Action::Wait),
    ]
}

fn deployment(replicas: i32) -> Object {
    let labels: std::collections::BTreeMap<String, String> =
        [("app".to_string(), "web".to_string())].into();
    Object::Deployment(Box::new(Deployment {
        metadata: ObjectMeta::named("production", "web"),
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
                    containers: vec![Container {
                        name: "web".into(),
                        image: "web:0".into(),
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                },
            },
            ..Default::default()
        },
        status: Default::default(),
    }))
}

fn edit(h: &mut Harness, change: impl Fn(&mut Deployment)) {
    // Read-modify-write; a conflict with the controller is simply retried.
    for _ in 0..5 {
        let Some(mut d) = h
            .api
            .get(Kind::Deployment, Some("production"), "web")
            .ok()
            .and_then(|o| o.as_deployment().cloned())
        else {
            return;
        };
        change(&mut d);
        if h.api
            .update("kubectl", Object::Deployment(Box::new(d)))
            .is_ok()
        {
            return;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn deployments_converge(seed in 0u64..1000, actions in proptest::collection::vec(action(), 1..8)) {
        let mut h = Harness::new(seed, &Profile::training(), &NODES);
        let ns = Object::Namespace(Namespace { metadata: ObjectMeta::named("", "production"), ..Default::default() });
        h.api.create("kubectl", ns).expect("namespace");
        h.api.create("kubectl", deployment(3)).expect("deployment");
        h.run_for(10_000);
        let mut desired = 3;
        for a in &actions {
            match a {
                Action::Scale(n) => { desired = *n; edit(&mut h, |d| d.spec.replicas = Some(*n)); }
                Action::SetImage(v) => edit(&mut h, |d| d.spec.template.spec.containers[0].image = format!("web:{v}")),
                Action::Kill(i) => { if let Some(k) = h.kubelet_mut(NODES[*i]) { k.set_running(false) } }
                Action::Restore(i) => { if let Some(k) = h.kubelet_mut(NODES[*i]) { k.set_running(true) } }
                Action::Wait(ms) => h.run_for(*ms),
            }
        }
        for n in NODES {
            if let Some(k) = h.kubelet_mut(n) { k.set_running(true) }
        }
        h.run_for(240_000);
        let pods: Vec<_> = h.api.list(Kind::Pod, Some("production"), &ListOptions::default())
            .expect("list").items.iter().filter_map(|o| o.as_pod().cloned()).collect();
        prop_assert_eq!(pods.len() as i32, desired, "no leftovers, no missing: {:?}",
            pods.iter().map(|p| (&p.metadata.name, &p.spec.node_name, &p.status.phase, p.metadata.deletion_timestamp)).collect::<Vec<_>>());
        prop_assert!(pods.iter().all(|p| p.status.phase == "Running" && p.metadata.deletion_timestamp.is_none()));
        let d = h.api.get(Kind::Deployment, Some("production"), "web").expect("d");
        let d = d.as_deployment().expect("d");
        prop_assert_eq!(d.status.available_replicas, desired);
        prop_assert_eq!(d.status.updated_replicas, desired);
        prop_assert_eq!(d.status.observed_generation, d.metadata.generation.unwrap_or(0));
    }
}
