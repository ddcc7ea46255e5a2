//! The Actions panel's *Drain node* ([`Action::DrainNode`]): what `kubectl drain NODE
//! --ignore-daemonsets --delete-emptydir-data --force` does at one instant — the node cordoned,
//! each of its pods evicted through `pods/eviction` as `kubectl` — with a PodDisruptionBudget
//! refusing the eviction that would break it (the pod stays, the outcome carries the 429's
//! message), the ledger's writers, and the session restored from its journal.

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig, DrainReport, Outcome};
use watchlab_engine::journal::history_digest;

const BUDGET_VIOLATION: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

const PDB: &str = r#"{"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
  "metadata":{"name":"orders-api","namespace":"production"},
  "spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"orders-api"}}}}"#;

/// Two nodes, orders-api's three replicas ready, and a budget of `minAvailable: 2` whose
/// status the disruption controller has written.
fn cluster_with_budget() -> Cluster {
    let mut c = Cluster::new(ClusterConfig {
        seed: 21,
        nodes: vec!["node-a".into(), "node-b".into()],
        ..ClusterConfig::default()
    });
    let until = c.now().plus_secs(40);
    c.advance_to(until);
    let r = c.session("kubectl").request(
        "POST",
        "/apis/policy/v1/namespaces/production/poddisruptionbudgets",
        None,
        Some(PDB),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    let until = c.now().plus_secs(5);
    c.advance_to(until);
    assert_eq!(disruptions_allowed(&mut c), 1);
    c
}

fn disruptions_allowed(c: &mut Cluster) -> i64 {
    let r = c.session("kubectl").request(
        "GET",
        "/apis/policy/v1/namespaces/production/poddisruptionbudgets/orders-api",
        None,
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
    v["status"]["disruptionsAllowed"].as_i64().unwrap_or(-1)
}

/// The node with two of the three replicas, and their `namespace/name`s.
fn busiest_node(c: &Cluster) -> (String, Vec<String>) {
    let pods = c.pods();
    ["node-a", "node-b"]
        .iter()
        .map(|n| {
            let on: Vec<String> = pods
                .iter()
                .filter(|p| p.node.as_deref() == Some(*n) && p.namespace == "production")
                .map(|p| format!("{}/{}", p.namespace, p.name))
                .collect();
            (n.to_string(), on)
        })
        .max_by_key(|(_, on)| on.len())
        .unwrap_or_default()
}

fn drain(c: &mut Cluster, node: &str) -> DrainReport {
    match c.apply(Action::DrainNode(node.into())) {
        Ok(Outcome::Drained(report)) => report,
        other => panic!("{other:?}"),
    }
}

#[test]
fn drain_cordons_evicts_and_reports_the_pod_a_budget_refused() {
    let mut c = cluster_with_budget();
    let (node, pods) = busiest_node(&c);
    assert_eq!(pods.len(), 2);
    let before = c.api().revision();
    let report = drain(&mut c, &node);
    assert_eq!(report.node, node);
    assert!(!report.already_cordoned);
    assert_eq!(report.evicted, [pods[0].clone()]);
    assert_eq!(
        report.refused,
        [(pods[1].clone(), BUDGET_VIOLATION.to_string())]
    );
    assert_eq!(report.revision, c.api().revision());

    let view = c.nodes().into_iter().find(|n| n.name == node).unwrap();
    assert!(!view.schedulable, "cordoned");
    let status = |c: &Cluster, who: &str| {
        c.pods()
            .into_iter()
            .find(|p| format!("{}/{}", p.namespace, p.name) == who)
    };
    assert!(status(&c, &pods[0]).is_some_and(|p| p.deleting));
    assert!(status(&c, &pods[1]).is_some_and(|p| !p.deleting));
    // The ledger: the cordon and the eviction's delete are kubectl's; the budget's
    // `disruptedPods` entry the API server's own.
    let writers: Vec<(String, String)> = c
        .api()
        .ledger()
        .iter()
        .filter(|e| e.revision > before)
        .map(|e| (e.key(), e.user.to_string()))
        .collect();
    assert!(
        writers.contains(&(format!("/registry/minions/{node}"), "kubectl".into())),
        "{writers:?}"
    );
    assert!(writers.contains(&(format!("/registry/pods/{}", pods[0]), "kubectl".into())));
    assert!(writers.contains(&(
        "/registry/poddisruptionbudgets/production/orders-api".into(),
        "kube-apiserver".into()
    )));

    // Again later: already cordoned; the budget allows the second eviction once the
    // replacement is ready.
    let until = c.now().plus_secs(60);
    c.advance_to(until);
    let report = drain(&mut c, &node);
    assert!(report.already_cordoned);
    assert_eq!(report.evicted, [pods[1].clone()]);
    assert!(report.refused.is_empty());
}

#[test]
fn an_unknown_node_is_refused_and_a_drained_session_restores() {
    let mut c = cluster_with_budget();
    let err = c.apply(Action::DrainNode("node-z".into())).unwrap_err();
    assert_eq!(err.code(), 404);
    let (node, _) = busiest_node(&c);
    drain(&mut c, &node);
    let until = c.now().plus_secs(30);
    c.advance_to(until);
    let text = c.export().unwrap();
    assert!(text.contains(r#""DrainNode""#), "journaled by name");
    let restored = Cluster::import(&text).unwrap();
    assert_eq!(history_digest(&restored), history_digest(&c));
    assert_eq!(restored.export().unwrap(), text);
}
