//! The seed's node-c failure, observed through the real kubectl alone: the server is started
//! with `--kill-node node-c@5s` (the machine dies; kubectl has no verb for that), and kubectl
//! watches the node turn NotReady, the pod on it be marked for deletion, and the ReplicaSet
//! bring the Deployment back to three running replicas on the other nodes.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;
use watchlab_apiserver_http::faults::Fault;
use watchlab_apiserver_http::Args;
use watchlab_engine::cluster::Action;

/// Rows of `kubectl get pods -o wide` as (name, status, node).
fn pods(s: &TestServer) -> Vec<(String, String, String)> {
    s.ok(&[
        "get",
        "pods",
        "-n",
        "production",
        "-o",
        "wide",
        "--no-headers",
    ])
    .lines()
    .map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f[0].to_string(), f[2].to_string(), f[6].to_string())
    })
    .collect()
}

#[test]
fn node_c_dies_and_kubectl_sees_the_replicas_come_back_elsewhere() {
    if !common::kubectl_available("node_c_dies_and_kubectl_sees_the_replicas_come_back_elsewhere") {
        return;
    }
    let s = TestServer::start_with(Args {
        port: 0,
        // 30 virtual seconds a real second: the Training profile's ~2 virtual minutes in ~4 s.
        speed: 30.0,
        faults: vec![Fault {
            after_ms: 5_000,
            action: Action::KillNode("node-c".into()),
        }],
        ..Args::default()
    });
    let before = wait_until("3 running pods", Duration::from_secs(20), || {
        let p = pods(&s);
        (p.iter().filter(|r| r.1 == "Running").count() == 3).then_some(p)
    });
    let victim = before
        .iter()
        .find(|r| r.2 == "node-c")
        .map(|r| r.0.clone())
        .expect("a replica runs on node-c");
    let mut nodes = s.spawn(&["get", "nodes", "-w"]);
    let seen = nodes.wait_for(Duration::from_secs(30), |out| {
        out.lines()
            .any(|l| l.starts_with("node-c") && l.contains("NotReady"))
    });
    nodes.stop();
    assert!(seen.contains("Ready"), "{seen}");
    let after = wait_until(
        "3 running replicas off node-c",
        Duration::from_secs(30),
        || {
            let p = pods(&s);
            let running: Vec<_> = p.iter().filter(|r| r.1 == "Running").collect();
            (running.len() == 3 && running.iter().all(|r| r.2 != "node-c")).then_some(p)
        },
    );
    // The dead node's kubelet never confirms the deletion: its pod stays Terminating there.
    assert!(
        after
            .iter()
            .any(|r| r.0 == victim && r.1 == "Terminating" && r.2 == "node-c"),
        "{after:?}"
    );
    let events = s.ok(&[
        "get",
        "events",
        "-n",
        "production",
        "--sort-by=.lastTimestamp",
    ]);
    let lines: Vec<&str> = events.lines().collect();
    let first = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in\n{events}"))
    };
    let evicted = first("TaintManagerEviction");
    assert!(lines[evicted].contains(&victim), "{events}");
    // The replacement is created and scheduled after the eviction. lastTimestamp has whole
    // seconds, so events of one second tie in the sorted table (kubectl keeps the server's
    // order among them): compare the timestamps, not the rows.
    let stamps = s.ok(&[
        "get",
        "events",
        "-n",
        "production",
        "-o",
        "jsonpath={range .items[*]}{.reason} {.lastTimestamp}{\"\\n\"}{end}",
    ]);
    let latest = |reason: &str| {
        stamps
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(r, _)| *r == reason)
            .map(|(_, t)| t.to_string())
            .max()
            .unwrap_or_else(|| panic!("no {reason} in\n{stamps}"))
    };
    let eviction = latest("TaintManagerEviction");
    assert!(latest("SuccessfulCreate") >= eviction, "{stamps}");
    assert!(latest("Scheduled") >= eviction, "{stamps}");
    let node_events = s.ok(&[
        "get",
        "events",
        "--field-selector",
        "involvedObject.name=node-c",
    ]);
    assert!(node_events.contains("NodeNotReady"), "{node_events}");
}
