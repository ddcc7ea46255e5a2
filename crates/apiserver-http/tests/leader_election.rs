//! Leader election through the real kubectl: the server runs two replicas of kube-scheduler
//! and kube-controller-manager (`--controller-replicas 2`) and pauses the controller manager's
//! leader (`--pause-component kube-controller-manager-0@5s`); `kubectl get leases -n
//! kube-system` shows replica 0 holding both Leases, then replica 1 taking the controller
//! manager's once replica 0's record is 15 s old, and `kubectl get events` the LeaderElection
//! events as the real components write them.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;
use watchlab_apiserver_http::faults::Fault;
use watchlab_apiserver_http::Args;
use watchlab_engine::cluster::Action;

/// `kubectl get leases -n kube-system` rows as (name, holder).
fn leases(s: &TestServer) -> Vec<(String, String)> {
    s.ok(&["get", "leases", "-n", "kube-system", "--no-headers"])
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((f.first()?.to_string(), f.get(1)?.to_string()))
        })
        .collect()
}

fn holder(s: &TestServer, lease: &str) -> String {
    leases(s)
        .into_iter()
        .find(|(n, _)| n == lease)
        .map(|(_, h)| h)
        .unwrap_or_default()
}

#[test]
fn kubectl_sees_the_paused_leaders_lease_taken_over() {
    if !common::kubectl_available("kubectl_sees_the_paused_leaders_lease_taken_over") {
        return;
    }
    let s = TestServer::start_with(Args {
        port: 0,
        // 20 virtual seconds a real second: the takeover (~20 virtual s) in about a second.
        speed: 20.0,
        controller_replicas: 2,
        faults: vec![Fault {
            after_ms: 5_000,
            action: Action::PauseComponent("kube-controller-manager-0".into()),
        }],
        ..Args::default()
    });
    let first = holder(&s, "kube-controller-manager");
    assert!(
        first.starts_with("kube-controller-manager-0_"),
        "{:?}",
        leases(&s)
    );
    assert!(holder(&s, "kube-scheduler").starts_with("kube-scheduler-0_"));
    let second = wait_until(
        "replica 1 holds the controller manager's Lease",
        Duration::from_secs(30),
        || {
            let h = holder(&s, "kube-controller-manager");
            h.starts_with("kube-controller-manager-1_").then_some(h)
        },
    );
    let transitions = s.ok(&[
        "get",
        "lease",
        "kube-controller-manager",
        "-n",
        "kube-system",
        "-o",
        "jsonpath={.spec.leaseTransitions} {.spec.leaseDurationSeconds}",
    ]);
    assert_eq!(transitions, "1 15");
    let events = s.ok(&[
        "get",
        "events",
        "-n",
        "kube-system",
        "--field-selector",
        "reason=LeaderElection",
        "-o",
        "jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name}: {.message}{\"\\n\"}{end}",
    ]);
    for line in [
        format!("Lease/kube-controller-manager: {first} became leader"),
        format!("Lease/kube-controller-manager: {second} became leader"),
    ] {
        assert!(
            events.lines().any(|l| l == line),
            "no {line:?} in\n{events}"
        );
    }
    // The scheduler's leader was never paused: it still holds its Lease.
    assert!(holder(&s, "kube-scheduler").starts_with("kube-scheduler-0_"));
}
