//! `kubectl drain` through the real kubectl: it cordons the node, evicts its pods one by one
//! (`pods/eviction`, a `policy/v1` Eviction sent as protobuf by kubectl's typed client) or, with
//! `--disable-eviction`, deletes them (each DELETE carrying its `DeleteOptions` as protobuf),
//! then waits until they are gone and their ReplicaSet has put them elsewhere.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;

/// The pods of `web` on each node, as `kubectl get pods -o wide` shows them.
fn web_pods_on(s: &TestServer, node: &str) -> Vec<String> {
    s.ok(&[
        "get",
        "pods",
        "-l",
        "app=web",
        "--field-selector",
        &format!("spec.nodeName={node}"),
        "-o",
        "jsonpath={range .items[*]}{.metadata.name} {.status.phase}{\"\\n\"}{end}",
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

/// Six pods of `web` running, some on node-b: those (name and phase).
fn six_pods_some_on_node_b(s: &TestServer) -> Vec<String> {
    s.create_deployment("web", "nginx:1.27", 6, &[]);
    wait_until(
        "6 running pods, some on node-b",
        Duration::from_secs(30),
        || {
            let running = s
                .ok(&["get", "pods", "-l", "app=web", "--no-headers"])
                .lines()
                .filter(|l| l.contains("Running"))
                .count();
            let on_b = web_pods_on(s, "node-b");
            (running == 6 && !on_b.is_empty()).then_some(on_b)
        },
    )
}

#[test]
fn drain_with_eviction_disabled_cordons_and_deletes_the_nodes_pods() {
    if !common::kubectl_available("drain_with_eviction_disabled") {
        return;
    }
    let s = TestServer::at_speed(5.0);
    let on_b = six_pods_some_on_node_b(&s);
    let drained = s.kubectl(&[
        "drain",
        "node-b",
        "--disable-eviction",
        "--ignore-daemonsets",
        "--delete-emptydir-data",
        "--timeout=60s",
    ]);
    assert_eq!(drained.code, 0, "{}\n{}", drained.stdout, drained.stderr);
    assert!(
        drained.stdout.starts_with("node/node-b cordoned\n"),
        "{}",
        drained.stdout
    );
    for line in &on_b {
        let pod = line.split(' ').next().unwrap_or_default();
        assert!(
            drained.stdout.contains(&format!("pod/{pod} deleted\n")),
            "{pod}: {}",
            drained.stdout
        );
    }
    assert!(
        drained.stdout.ends_with("node/node-b drained\n"),
        "{}",
        drained.stdout
    );
    assert_eq!(
        s.ok(&[
            "get",
            "node",
            "node-b",
            "-o",
            "jsonpath={.spec.unschedulable}"
        ]),
        "true"
    );
    assert!(web_pods_on(&s, "node-b").is_empty());
    wait_until("6 running pods again", Duration::from_secs(30), || {
        let running = s
            .ok(&["get", "pods", "-l", "app=web", "--no-headers"])
            .lines()
            .filter(|l| l.contains("Running"))
            .count();
        (running == 6).then_some(())
    });
    assert!(web_pods_on(&s, "node-b").is_empty());
}

/// Without flags kubectl finds `pods/eviction` in discovery and evicts each pod (a `policy/v1`
/// Eviction, protobuf); no PodDisruptionBudget is served, so every eviction is allowed.
#[test]
fn drain_evicts_the_nodes_pods() {
    if !common::kubectl_available("drain_evicts_the_nodes_pods") {
        return;
    }
    let s = TestServer::at_speed(5.0);
    let on_b = six_pods_some_on_node_b(&s);
    let drained = s.kubectl(&[
        "drain",
        "node-b",
        "--ignore-daemonsets",
        "--delete-emptydir-data",
        "--timeout=60s",
    ]);
    assert_eq!(drained.code, 0, "{}\n{}", drained.stdout, drained.stderr);
    assert!(
        drained.stdout.starts_with("node/node-b cordoned\n"),
        "{}",
        drained.stdout
    );
    for line in &on_b {
        let pod = line.split(' ').next().unwrap_or_default();
        assert!(
            drained.stdout.contains(&format!("pod/{pod} evicted\n")),
            "{pod}: {}",
            drained.stdout
        );
        assert!(
            drained
                .stdout
                .contains(&format!("evicting pod default/{pod}\n")),
            "{pod}: {}",
            drained.stdout
        );
    }
    assert!(
        drained.stdout.ends_with("node/node-b drained\n"),
        "{}",
        drained.stdout
    );
    assert!(web_pods_on(&s, "node-b").is_empty());
}
