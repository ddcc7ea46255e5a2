//! Several kube-apiserver instances on one etcd, each with its own watch caches, behind a load
//! balancer: a client keeps its instance; an instance whose caches are cut from etcd's watch
//! keeps serving them, frozen — a list at `resourceVersion=0` through it shows a pod deleted
//! since (the time travel of kubernetes/kubernetes#59848), while a consistent read through it
//! reads etcd and is right — and catches up when restored; a stopped instance's clients move to another and the cluster
//! goes on.

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::apiserver::instance::Health;
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};

fn cluster() -> Cluster {
    let mut c = Cluster::new(ClusterConfig {
        apiservers: 2,
        ..ClusterConfig::default()
    });
    let until = c.now().plus_secs(30);
    c.advance_to(until);
    c
}

fn pod_names(c: &mut Cluster, user: &str, query: &str) -> (u16, String) {
    let path = format!("/api/v1/namespaces/production/pods{query}");
    let r = c.session(user).request("GET", &path, None, None);
    (r.code, r.body)
}

/// Deletes the first pod of `production` through the console's kubectl, at once (grace
/// period 0); its name.
fn delete_first_pod(c: &mut Cluster) -> String {
    let (_, list) = pod_names(c, "kubectl", "");
    let victim = list
        .split("\"name\":\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a pod")
        .to_string();
    let path = format!("/api/v1/namespaces/production/pods/{victim}?gracePeriodSeconds=0");
    let r = c.session("kubectl").request("DELETE", &path, None, None);
    assert_eq!(r.code, 200, "{}", r.body);
    victim
}

#[test]
fn clients_are_spread_over_the_instances_and_keep_theirs() {
    let c = cluster();
    let api = c.api();
    assert_eq!(api.instances().len(), 2);
    let (a, b) = (api.clients_of(0), api.clients_of(1));
    assert!(!a.is_empty() && !b.is_empty(), "{a:?} {b:?}");
    assert!(a.iter().all(|x| !b.contains(x)), "one instance each");
    assert!(a.iter().chain(&b).any(|x| x == "kubelet/node-a"));
}

#[test]
fn a_cut_instance_serves_a_deleted_pod_from_its_cache_until_restored() {
    let mut c = cluster();
    // The console's kubectl and a client of the other instance.
    let _ = pod_names(&mut c, "kubectl", "");
    let mine = if c.api().clients_of(0).iter().any(|x| x == "kubectl") {
        0
    } else {
        1
    };
    let other = 1 - mine;
    let stale_client = c.api().clients_of(other)[0].clone();
    let (code, before) = pod_names(&mut c, "kubectl", "");
    assert_eq!(code, 200);
    let victim = before
        .split("\"name\":\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .filter(|n| n.starts_with("orders-api-"))
        .expect("an orders-api pod")
        .to_string();
    c.apply(Action::CutApiserver(format!("kube-apiserver-{other}")))
        .expect("cut");
    let path = format!("/api/v1/namespaces/production/pods/{victim}?gracePeriodSeconds=0");
    let r = c.session("kubectl").request("DELETE", &path, None, None);
    assert_eq!(r.code, 200, "{}", r.body);
    let until = c.now().plus_secs(1);
    c.advance_to(until);
    // Through the healthy instance the pod is gone, at any resourceVersion...
    let (_, fresh) = pod_names(&mut c, "kubectl", "?resourceVersion=0");
    assert!(!fresh.contains(&victim), "{fresh}");
    // ...through the cut one, a list from its cache still has it: back in time.
    let (code, stale) = pod_names(&mut c, &stale_client, "?resourceVersion=0");
    assert_eq!(code, 200, "{stale}");
    assert!(stale.contains(&victim), "{stale}");
    // A consistent read (no resourceVersion) goes to etcd: right, through either instance.
    let (code, body) = pod_names(&mut c, &stale_client, "");
    assert_eq!(code, 200, "{body}");
    assert!(!body.contains(&victim), "{body}");
    // Restored, its caches catch up from etcd's history.
    c.apply(Action::RestoreApiserver(format!("kube-apiserver-{other}")))
        .expect("restore");
    let until = c.now().plus_secs(1);
    c.advance_to(until);
    let (_, caught_up) = pod_names(&mut c, &stale_client, "?resourceVersion=0");
    assert!(!caught_up.contains(&victim), "{caught_up}");
}

#[test]
fn a_stopped_instances_clients_move_to_another_and_the_cluster_goes_on() {
    let mut c = cluster();
    let moved = c.api().clients_of(1);
    assert!(!moved.is_empty());
    c.apply(Action::StopApiserver("kube-apiserver-1".into()))
        .expect("stop");
    // Delete a pod: the ReplicaSet controller (wherever it was connected) must replace it.
    let victim = delete_first_pod(&mut c);
    let until = c.now().plus_secs(40);
    c.advance_to(until);
    assert!(
        c.api().clients_of(1).is_empty(),
        "{:?}",
        c.api().clients_of(1)
    );
    for client in &moved {
        assert!(c.api().clients_of(0).contains(client), "{client} moved");
    }
    let (_, list) = pod_names(&mut c, "kubectl", "");
    let running = list.matches("\"phase\":\"Running\"").count();
    assert_eq!(running, 3, "{list}");
    assert!(!list.contains(&victim));
    let err = c
        .apply(Action::CutApiserver("kube-apiserver-7".into()))
        .unwrap_err();
    assert_eq!(err.code(), 400);
    // The last one running cannot be stopped: nothing would answer.
    let before = c.api().revision();
    let err = c
        .apply(Action::StopApiserver("kube-apiserver-0".into()))
        .unwrap_err();
    assert!(
        err.message().contains("only API server left running"),
        "{}",
        err.message()
    );
    assert_eq!(c.api().revision(), before);
    assert_eq!(c.apiservers()[0].health, Health::Serving);
}

/// kubernetes/kubernetes#59848 with leader election: the standby kube-controller-manager is
/// connected to an instance whose caches froze; a pod is deleted; the leader is paused and the
/// standby takes over. Its new informers list at `resourceVersion=0` — from the frozen cache —
/// and its ReplicaSet controller counts the deleted pod as running: no replacement, until the
/// instance's caches hear etcd again.
#[test]
fn a_new_leader_listing_from_a_frozen_cache_acts_on_the_past() {
    let mut c = Cluster::new(ClusterConfig {
        apiservers: 2,
        controller_replicas: 2,
        ..ClusterConfig::default()
    });
    let until = c.now().plus_secs(30);
    c.advance_to(until);
    let on = |c: &Cluster, client: &str| {
        (0..2)
            .find(|&i| c.api().clients_of(i).iter().any(|x| x == client))
            .expect("connected")
    };
    let standby = on(&c, "kube-controller-manager-1/0");
    assert_ne!(
        on(&c, "kube-controller-manager-0/0"),
        standby,
        "spread over both"
    );
    let stale = format!("kube-apiserver-{standby}");
    c.apply(Action::CutApiserver(stale.clone())).expect("cut");
    let victim = delete_first_pod(&mut c);
    c.apply(Action::PauseComponent("kube-controller-manager-0".into()))
        .expect("pause");
    let until = c.now().plus_secs(40);
    c.advance_to(until);
    let holder = c
        .replicas()
        .into_iter()
        .find(|r| r.component == "kube-controller-manager" && r.holds_lease)
        .map(|r| r.name);
    assert_eq!(holder.as_deref(), Some("kube-controller-manager-1"));
    let (_, list) = pod_names(&mut c, "kubectl", "");
    assert_eq!(
        list.matches("\"phase\":\"Running\"").count(),
        2,
        "no replacement: the new leader's cache still has {victim}"
    );
    c.apply(Action::RestoreApiserver(stale)).expect("restore");
    let until = c.now().plus_secs(30);
    c.advance_to(until);
    let (_, list) = pod_names(&mut c, "kubectl", "");
    assert_eq!(list.matches("\"phase\":\"Running\"").count(), 3, "replaced");
}
