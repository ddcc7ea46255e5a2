//! Deletion through the real kubectl: a namespace with contents goes Terminating, refuses new
//! content with the NamespaceLifecycle text, and is gone once the namespace controller has
//! emptied it and removed its `kubernetes` finalizer; `kubectl delete --cascade` in each mode
//! (background, foreground, orphan) as the garbage collector carries it out.

mod common;

use common::{wait_until, TestServer};
use std::time::Duration;

/// A server whose virtual clock runs `speed` times faster than the wall clock.
fn running_pods(s: &TestServer, ns: &str) -> usize {
    s.ok(&["get", "pods", "-n", ns, "--no-headers"])
        .lines()
        .filter(|l| l.contains("Running"))
        .count()
}

#[test]
fn deleting_a_namespace_terminates_it_refuses_new_content_then_removes_it() {
    if !common::kubectl_available("deleting_a_namespace_terminates_it") {
        return;
    }
    // 5 virtual seconds a real second: the pods' 30 s grace period takes 6 s.
    let s = TestServer::at_speed(5.0);
    assert_eq!(
        s.ok(&["create", "namespace", "team"]),
        "namespace/team created\n"
    );
    s.create_deployment("web", "nginx:1.27", 2, &["-n", "team"]);
    wait_until("2 running pods", Duration::from_secs(20), || {
        (running_pods(&s, "team") == 2).then_some(())
    });

    assert_eq!(
        s.ok(&["delete", "namespace", "team", "--wait=false"]),
        "namespace \"team\" deleted\n"
    );
    assert_eq!(
        s.ok(&[
            "get",
            "ns",
            "team",
            "-o",
            "jsonpath={.status.phase} {.spec.finalizers}"
        ]),
        "Terminating [\"kubernetes\"]"
    );
    let refused = s.kubectl(&["run", "x", "--image=nginx", "-n", "team"]);
    assert_eq!(refused.code, 1);
    assert_eq!(
        refused.stderr,
        "Error from server (Forbidden): pods \"x\" is forbidden: unable to create new content in namespace team because it is being terminated\n"
    );
    let conditions = wait_until("the content conditions", Duration::from_secs(10), || {
        let out = s.ok(&[
            "get",
            "ns",
            "team",
            "-o",
            "jsonpath={range .status.conditions[*]}{.type}={.status}{\"\\n\"}{end}",
        ]);
        (!out.is_empty()).then_some(out)
    });
    assert!(
        conditions.contains("NamespaceContentRemaining=True"),
        "{conditions}"
    );

    // kubectl's own wait for the deletion returns once the namespace is gone.
    let waited = s.kubectl(&["wait", "--for=delete", "namespace/team", "--timeout=60s"]);
    assert_eq!(waited.code, 0, "{}{}", waited.stdout, waited.stderr);
    let gone = s.kubectl(&["get", "ns", "team"]);
    assert_eq!(
        gone.stderr,
        "Error from server (NotFound): namespaces \"team\" not found\n"
    );
    let protected = s.kubectl(&["delete", "ns", "default"]);
    assert_eq!(
        protected.stderr,
        "Error from server (Forbidden): namespaces \"default\" is forbidden: this namespace may not be deleted\n"
    );
}

fn pods_of(s: &TestServer, app: &str) -> Vec<String> {
    s.ok(&["get", "pods", "-l", &format!("app={app}"), "--no-headers"])
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn kubectl_delete_cascades_in_each_mode() {
    if !common::kubectl_available("kubectl_delete_cascades_in_each_mode") {
        return;
    }
    let s = TestServer::at_speed(5.0);
    for name in ["fg", "orphaned", "bg"] {
        s.create_deployment(name, "nginx:1.27", 2, &[]);
    }
    wait_until("6 running pods", Duration::from_secs(30), || {
        (running_pods(&s, "default") == 6).then_some(())
    });

    // Foreground: the Deployment stays, with the finalizer, while its pods terminate.
    assert_eq!(
        s.ok(&[
            "delete",
            "deployment",
            "fg",
            "--cascade=foreground",
            "--wait=false"
        ]),
        "deployment.apps \"fg\" deleted\n"
    );
    // kubectl's DELETE left it in place with the finalizer (read from the ledger: under load
    // the whole cascade may be over before another kubectl starts).
    let marked: Vec<String> = s.with_cluster(|c| {
        c.api()
            .ledger()
            .iter()
            .filter(|e| e.verb == "delete" && &*e.resource == "deployments" && e.name() == "fg")
            .filter_map(|e| e.after.as_ref())
            .flat_map(|o| o.meta().finalizers.clone())
            .collect()
    });
    assert_eq!(marked, ["foregroundDeletion"]);
    let waited = s.kubectl(&["wait", "--for=delete", "deployment/fg", "--timeout=60s"]);
    assert_eq!(waited.code, 0, "{}{}", waited.stdout, waited.stderr);
    assert!(pods_of(&s, "fg").is_empty());
    // In the ledger: the Deployment was removed after the last of its pods and its ReplicaSet.
    let removals: Vec<(String, String)> = s.with_cluster(|c| {
        c.api()
            .ledger()
            .iter()
            .filter(|e| e.verb == "delete" && e.after.is_none() && e.name().starts_with("fg"))
            .map(|e| (e.resource.to_string(), e.name().to_string()))
            .collect()
    });
    assert_eq!(
        removals.last().map(|r| r.0.as_str()),
        Some("deployments"),
        "{removals:?}"
    );
    assert_eq!(removals.len(), 4, "{removals:?}");

    // Orphan: the ReplicaSet stays without an owner, its pods keep running.
    assert_eq!(
        s.ok(&["delete", "deployment", "orphaned", "--cascade=orphan"]),
        "deployment.apps \"orphaned\" deleted\n"
    );
    let rs = s.ok(&[
        "get",
        "rs",
        "-l",
        "app=orphaned",
        "-o",
        "jsonpath={range .items[*]}{.metadata.name} owners={.metadata.ownerReferences}{end}",
    ]);
    assert!(
        rs.starts_with("orphaned-") && rs.ends_with(" owners="),
        "{rs}"
    );
    assert_eq!(
        pods_of(&s, "orphaned")
            .iter()
            .filter(|l| l.contains("Running"))
            .count(),
        2
    );

    // Background (the default): the Deployment goes at once, the collector takes the rest.
    assert_eq!(
        s.ok(&["delete", "deployment", "bg"]),
        "deployment.apps \"bg\" deleted\n"
    );
    wait_until("bg's ReplicaSet collected", Duration::from_secs(20), || {
        s.ok(&["get", "rs", "-l", "app=bg", "-o", "name"])
            .is_empty()
            .then_some(())
    });
}
