//! Several kube-apiserver instances through the real kubectl (`--apiservers 2`): the server
//! answers each client as the instance the load balancer connected it to, a client being a
//! User-Agent (client-go's default one begins with the binary's `argv[0]`, so kubectl started
//! as `kubectl-a` and as `kubectl-b` are two client processes, as two kubeconfigs on two
//! laptops would be). Two such clients, connected one after the other, land on the two
//! instances (round-robin) and keep them.
//!
//! - `--cut-apiserver kube-apiserver-1@10s`: kube-apiserver-1's watch caches stop hearing etcd.
//!   A pod deleted (`kubectl delete pod … --grace-period=0 --force`) is gone from a consistent
//!   `kubectl get pods` through either instance (it reads etcd), but `kubectl get --raw
//!   '…/pods?resourceVersion=0'` through the cut one still lists it, from its frozen cache —
//!   kubernetes/kubernetes#59848 as the real kubectl shows it; `--restore-apiserver
//!   kube-apiserver-1@4m` and the same list catches up.
//! - `--stop-apiserver kube-apiserver-1@2m`: its client reconnects to kube-apiserver-0 and
//!   kubectl goes on answering; the cluster too (a deleted pod is replaced).

#[macro_use]
mod common;

use common::{wait_until, TestServer};
use std::time::Duration;
use watchlab_apiserver_http::faults::Fault;
use watchlab_apiserver_http::Args;
use watchlab_engine::apiserver::instance::Health;
use watchlab_engine::cluster::Action;

/// The two kubectl "processes" of these tests (their User-Agents' products).
const CLIENTS: [&str; 2] = ["kubectl-a", "kubectl-b"];

/// A server of two API server instances at 10 virtual seconds a real second, with `faults`.
fn two_apiservers(faults: Vec<(u64, Action)>) -> TestServer {
    TestServer::start_with(Args {
        port: 0,
        speed: 10.0,
        apiservers: 2,
        faults: faults
            .into_iter()
            .map(|(after_ms, action)| Fault { after_ms, action })
            .collect(),
        ..Args::default()
    })
}

/// The health of instance `i`, as the cluster has it.
fn health(s: &TestServer, i: usize) -> Health {
    s.with_cluster(move |c| c.api().instances()[i].health)
}

/// The clients (User-Agent products) the load balancer connected to instance `i`.
fn clients_of(s: &TestServer, i: usize) -> Vec<String> {
    s.with_cluster(move |c| c.api().clients_of(i))
}

/// `kubectl get pods -n production` through `client`: a consistent list (no resourceVersion,
/// `?limit=500`), read from etcd whatever the instance's cache holds. The pods' names.
fn pods(s: &TestServer, client: &str) -> Vec<String> {
    s.ok_as(
        client,
        &[
            "get",
            "pods",
            "-n",
            "production",
            "-o",
            "jsonpath={.items[*].metadata.name}",
        ],
    )
    .split_whitespace()
    .map(str::to_string)
    .collect()
}

/// `kubectl get --raw '/api/v1/namespaces/production/pods?resourceVersion=0'` through
/// `client`: a list served from its instance's watch cache. The raw PodList.
fn pods_at_rv0(s: &TestServer, client: &str) -> String {
    s.ok_as(
        client,
        &[
            "get",
            "--raw",
            "/api/v1/namespaces/production/pods?resourceVersion=0",
        ],
    )
}

/// Connects both [`CLIENTS`] (one request each, one after the other) and returns them as
/// (the client of kube-apiserver-0, the client of kube-apiserver-1).
fn connect_one_client_to_each_instance(s: &TestServer) -> (String, String) {
    for client in CLIENTS {
        pods(s, client);
    }
    let on = |i: usize| {
        let connected = clients_of(s, i);
        CLIENTS
            .iter()
            .find(|c| connected.iter().any(|x| x == *c))
            .map(|c| c.to_string())
    };
    match (on(0), on(1)) {
        (Some(a), Some(b)) if a != b => (a, b),
        (a, b) => panic!(
            "two new clients, one after the other, should land on the two instances \
             (round-robin): kube-apiserver-0 has {a:?}, kube-apiserver-1 has {b:?}"
        ),
    }
}

#[test]
fn kubectl_through_a_cut_api_server_lists_a_deleted_pod_at_resource_version_0() {
    need_kubectl!("kubectl_through_a_cut_api_server_lists_a_deleted_pod_at_resource_version_0");
    // kube-apiserver-1 is cut 10 virtual seconds (1 s) after start-up and restored at 4m: 23
    // real seconds to delete the pod and read it back through both instances (a few seconds'
    // work), then the restore.
    let s = two_apiservers(vec![
        (10_000, Action::CutApiserver("kube-apiserver-1".into())),
        (240_000, Action::RestoreApiserver("kube-apiserver-1".into())),
    ]);
    wait_until(
        "kube-apiserver-1 to be cut",
        Duration::from_secs(30),
        || (health(&s, 1) == Health::Cut).then_some(()),
    );
    let (fresh, stale) = connect_one_client_to_each_instance(&s);
    let before = pods(&s, &stale);
    assert_eq!(before.len(), 3, "{before:?}");
    let victim = before[0].clone();
    assert!(victim.starts_with("orders-api-"), "{victim}");
    assert!(pods_at_rv0(&s, &stale).contains(&victim));

    // The delete goes through the cut instance: its writes still reach etcd.
    let deleted = s.ok_as(
        &stale,
        &[
            "delete",
            "pod",
            &victim,
            "-n",
            "production",
            "--grace-period=0",
            "--force",
        ],
    );
    assert!(
        deleted.contains(&format!("pod \"{victim}\" force deleted")),
        "{deleted}"
    );
    // A consistent read through either instance goes to etcd: the pod is gone.
    for client in [&stale, &fresh] {
        let now = pods(&s, client);
        assert!(!now.contains(&victim), "{client}: {now:?}");
    }
    // At resourceVersion=0 the healthy instance answers from a cache that heard the delete...
    wait_until(
        "kube-apiserver-0's cache to drop the pod",
        Duration::from_secs(10),
        || (!pods_at_rv0(&s, &fresh).contains(&victim)).then_some(()),
    );
    // ...the cut one from its frozen cache: the pod is still there, back in time.
    let frozen = pods_at_rv0(&s, &stale);
    assert!(
        frozen.contains(&victim),
        "kube-apiserver-1 (health now {:?}) forgot {victim} at resourceVersion=0:\n{frozen}",
        health(&s, 1)
    );
    assert_eq!(
        health(&s, 1),
        Health::Cut,
        "the stale read above must come before the restore"
    );
    // The client keeps its instance: asked again, the same past.
    assert!(pods_at_rv0(&s, &stale).contains(&victim));
    assert!(clients_of(&s, 1).contains(&stale));

    // Restored at 4m, its caches catch up from etcd's history.
    wait_until(
        "the restored kube-apiserver-1 to drop the pod at resourceVersion=0",
        Duration::from_secs(60),
        || (!pods_at_rv0(&s, &stale).contains(&victim)).then_some(()),
    );
    assert_eq!(health(&s, 1), Health::Serving);
}

#[test]
fn kubectl_keeps_answering_when_its_api_server_stops() {
    need_kubectl!("kubectl_keeps_answering_when_its_api_server_stops");
    // kube-apiserver-1 stops two virtual minutes (12 s) after start-up: time enough to connect
    // both clients first.
    let s = two_apiservers(vec![(
        120_000,
        Action::StopApiserver("kube-apiserver-1".into()),
    )]);
    let (other, moved) = connect_one_client_to_each_instance(&s);
    assert_eq!(
        health(&s, 1),
        Health::Serving,
        "both clients connected before the stop"
    );
    let before = pods(&s, &moved);
    assert_eq!(before.len(), 3, "{before:?}");
    wait_until("kube-apiserver-1 to stop", Duration::from_secs(30), || {
        (health(&s, 1) == Health::Stopped).then_some(())
    });

    // Its client reconnects to the one left: kubectl answers as before, reads and writes.
    assert_eq!(pods(&s, &moved), before);
    assert!(pods_at_rv0(&s, &moved).contains(&before[0]));
    assert!(clients_of(&s, 1).is_empty(), "{:?}", clients_of(&s, 1));
    let on_0 = clients_of(&s, 0);
    assert!(on_0.contains(&moved) && on_0.contains(&other), "{on_0:?}");
    let victim = &before[0];
    s.ok_as(
        &moved,
        &[
            "delete",
            "pod",
            victim,
            "-n",
            "production",
            "--grace-period=0",
            "--force",
        ],
    );
    // The cluster goes on with one API server: the ReplicaSet controller (whichever instance
    // it was on) replaces the pod, and the Deployment is whole again.
    let after = wait_until(
        "a replacement pod and 3 ready replicas",
        Duration::from_secs(60),
        || {
            let ready = s
                .kubectl_as(
                    &moved,
                    &[
                        "get",
                        "deploy",
                        "orders-api",
                        "-n",
                        "production",
                        "-o",
                        "jsonpath={.status.readyReplicas}",
                    ],
                )
                .stdout;
            let now = pods(&s, &moved);
            (ready == "3" && now.len() == 3 && !now.contains(victim)).then_some(now)
        },
    );
    assert!(after.iter().any(|p| !before.contains(p)), "{after:?}");
    // The other client saw nothing of it: same instance as before, same answers.
    assert_eq!(pods(&s, &other), after);
}
