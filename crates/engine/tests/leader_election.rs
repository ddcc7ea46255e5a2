//! Leader election of kube-scheduler and kube-controller-manager, end to end through the
//! cluster: each replica's elector writes the Lease `kube-system/<component>` as client-go's
//! does (lease 15 s, renew deadline 10 s, retry 2 s), only the leader's controllers run, a
//! paused leader is replaced within the lease duration and a retry, and when it resumes its
//! Lease update is fenced by 409 and it stops leading at its renew deadline.

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::lease::LeaseSpec;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};
use watchlab_engine::controllers::leader_election::{
    Phase, LEASE_DURATION_MS, RENEW_DEADLINE_MS, RETRY_PERIOD_MS,
};

const KCM: &str = "kube-controller-manager";

fn cluster(replicas: u32) -> Cluster {
    Cluster::new(ClusterConfig {
        controller_replicas: replicas,
        ..ClusterConfig::default()
    })
}

fn lease(c: &Cluster, name: &str) -> LeaseSpec {
    match c
        .api()
        .get(Kind::Lease, Some("kube-system"), name)
        .as_deref()
    {
        Ok(Object::Lease(l)) => l.spec.clone(),
        other => panic!("lease {name}: {other:?}"),
    }
}

fn holder(c: &Cluster, name: &str) -> String {
    lease(c, name).holder_identity.unwrap_or_default()
}

/// The LeaderElection Events' messages in kube-system, oldest first.
fn elections(c: &Cluster) -> Vec<String> {
    let list = c
        .api()
        .list(Kind::Event, Some("kube-system"), &Default::default())
        .expect("events");
    let mut events: Vec<(u64, String)> = list
        .items
        .iter()
        .filter_map(|o| match &**o {
            Object::Event(e) if e.reason == "LeaderElection" => Some((
                e.metadata.resource_version.parse().unwrap_or(0),
                e.message.to_string(),
            )),
            _ => None,
        })
        .collect();
    events.sort();
    events.into_iter().map(|(_, m)| m).collect()
}

fn advance(c: &mut Cluster, ms: u64) {
    let until = c.now().plus_millis(ms);
    c.advance_to(until);
}

fn ready_replicas(c: &mut Cluster) -> i64 {
    let r = c.session("kubectl").request(
        "GET",
        "/apis/apps/v1/namespaces/production/deployments/orders-api",
        None,
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&r.body).expect("json");
    v["status"]["readyReplicas"].as_i64().unwrap_or(0)
}

fn delete_one_orders_pod(c: &mut Cluster) -> String {
    let list = c
        .api()
        .list(Kind::Pod, Some("production"), &Default::default())
        .expect("pods");
    let name = list.items[0].meta().name.to_string();
    let path = format!("/api/v1/namespaces/production/pods/{name}");
    let r = c.session("kubectl").request("DELETE", &path, None, None);
    assert_eq!(r.code, 200, "{}", r.body);
    name
}

fn pod_names(c: &Cluster) -> Vec<String> {
    c.api()
        .list(Kind::Pod, Some("production"), &Default::default())
        .expect("pods")
        .items
        .iter()
        .map(|p| p.meta().name.to_string())
        .collect()
}

#[test]
fn one_replica_each_holds_its_lease_renews_it_and_says_so() {
    let mut c = cluster(1);
    for name in ["kube-scheduler", KCM] {
        let spec = lease(&c, name);
        let id = spec.holder_identity.clone().unwrap_or_default();
        assert!(id.starts_with(&format!("{name}-0_")), "{id}");
        assert_eq!(spec.lease_duration_seconds, Some(15));
        assert_eq!(spec.lease_transitions, Some(0));
    }
    let t = c.now();
    advance(&mut c, 10_000);
    assert_eq!(ready_replicas(&mut c), 3, "the leaders' controllers ran");
    let renewed = lease(&c, KCM).renew_time.expect("renewTime");
    assert!(
        renewed > t && c.now().millis_since(renewed) <= RETRY_PERIOD_MS,
        "renewed every retry period: {renewed:?} at {:?}",
        c.now()
    );
    let said = elections(&c);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said
        .iter()
        .any(|m| m == &format!("{} became leader", holder(&c, KCM))));
}

#[test]
fn only_the_leader_runs_its_controllers_and_a_paused_leader_is_replaced() {
    let mut c = cluster(2);
    let first = holder(&c, KCM);
    assert!(first.starts_with("kube-controller-manager-0_"), "{first}");
    assert!(holder(&c, "kube-scheduler").starts_with("kube-scheduler-0_"));
    // Replica 1 waits: its controllers have not started (no informer of theirs is open).
    let running: Vec<String> = c
        .control_plane()
        .running()
        .iter()
        .map(|r| r.name().to_string())
        .collect();
    let rs_controllers = running
        .iter()
        .filter(|n| *n == "replicaset-controller")
        .count();
    assert_eq!(rs_controllers, 1, "{running:?}");
    advance(&mut c, 5_000);
    let last_renew = lease(&c, KCM).renew_time.expect("renewTime");
    c.apply(Action::PauseComponent("kube-controller-manager-0".into()))
        .expect("pause");
    let paused = c.now();
    // Nobody leads the controllers: a deleted pod is not replaced...
    let deleted = delete_one_orders_pod(&mut c);
    advance(&mut c, LEASE_DURATION_MS - 3_000);
    assert_eq!(holder(&c, KCM), first);
    assert_eq!(pod_names(&c).len(), 2, "no ReplicaSet controller runs");
    assert!(!pod_names(&c).contains(&deleted));
    // ...until replica 1 takes the Lease: 15 s after it last saw the record change, at its
    // next try (every 2 s plus up to 1.2 × 2 s of jitter).
    let mut took = None;
    for _ in 0..200 {
        advance(&mut c, 100);
        if holder(&c, KCM).starts_with("kube-controller-manager-1_") {
            took = Some(c.now());
            break;
        }
    }
    let took = took.expect("replica 1 took the lease");
    assert!(
        took >= last_renew.plus_millis(LEASE_DURATION_MS),
        "{took:?}"
    );
    assert!(
        took <= paused.plus_millis(LEASE_DURATION_MS + RETRY_PERIOD_MS * 22 / 10 + 100),
        "{took:?} after a pause at {paused:?}"
    );
    let spec = lease(&c, KCM);
    assert_eq!(spec.lease_transitions, Some(1));
    assert!(
        spec.acquire_time
            .is_some_and(|t| t <= took && took.millis_since(t) < 100),
        "{spec:?}"
    );
    advance(&mut c, 10_000);
    assert_eq!(
        pod_names(&c).len(),
        3,
        "the new leader's ReplicaSet controller replaced it"
    );
    assert_eq!(ready_replicas(&mut c), 3);
    let new = holder(&c, KCM);
    assert!(elections(&c).contains(&format!("{new} became leader")));
}

#[test]
fn a_resumed_leader_still_believes_it_leads_until_a_409_and_its_renew_deadline() {
    let mut c = cluster(2);
    let old = holder(&c, KCM);
    c.apply(Action::PauseComponent("kube-controller-manager-0".into()))
        .expect("pause");
    advance(&mut c, 30_000);
    let new = holder(&c, KCM);
    assert!(new.starts_with("kube-controller-manager-1_"), "{new}");
    c.apply(Action::ResumeComponent("kube-controller-manager-0".into()))
        .expect("resume");
    let resumed = c.now();
    let replica0 = |c: &Cluster| {
        c.control_plane()
            .electors()
            .into_iter()
            .find(|e| e.replica_name() == "kube-controller-manager-0")
            .map(|e| {
                (
                    e.elector().identity().to_string(),
                    e.elector().phase(),
                    e.elector().believes_it_leads(),
                )
            })
            .expect("replica 0")
    };
    let (id, phase, believes) = replica0(&c);
    assert_eq!(id, old);
    assert!(
        matches!(phase, Phase::Leading { .. }) && believes,
        "{phase:?}"
    );
    // Its next try: the update with its old resourceVersion is refused (409), the read shows
    // replica 1's record; the Lease keeps replica 1. (It tries every 2 s of its clock.)
    advance(&mut c, RETRY_PERIOD_MS + 100);
    let (_, phase, believes) = replica0(&c);
    assert!(
        matches!(phase, Phase::Leading { .. }) && !believes,
        "{phase:?}"
    );
    assert_eq!(
        holder(&c, KCM),
        new,
        "fenced: the Lease was not overwritten"
    );
    // Its controllers still run until its renew poll times out: 10 s after the poll began on
    // its own clock, a retry period after its last renew before the pause (so at most 12 s
    // after it resumed); then it stops leading, exits, and comes back as a new candidate.
    let mut stopped = None;
    for _ in 0..200 {
        advance(&mut c, 100);
        if replica0(&c).0 != old {
            stopped = Some(c.now());
            break;
        }
    }
    let stopped = stopped.expect("replica 0 stopped leading");
    assert!(
        stopped.millis_since(resumed) <= RENEW_DEADLINE_MS + RETRY_PERIOD_MS + 100,
        "{stopped:?} after resuming at {resumed:?}"
    );
    let (id, phase, _) = replica0(&c);
    assert!(
        id.starts_with("kube-controller-manager-0_") && id != old,
        "{id}"
    );
    assert!(matches!(phase, Phase::Candidate { .. }), "{phase:?}");
    assert!(elections(&c).contains(&format!("{old} stopped leading")));
    // What it wrote meanwhile is on record: its Lease update, refused with 409 (the
    // resourceVersion precondition fenced it), and what needs no precondition, landed — its
    // "stopped leading" Event among them.
    let stale: Vec<_> = c.control_plane().stale_writes().iter().collect();
    assert!(
        stale
            .iter()
            .all(|w| w.replica == "kube-controller-manager-0"),
        "{stale:?}"
    );
    assert!(
        stale.iter().any(|w| w.revision.is_none()
            && w.verb == "update"
            && w.key == "/registry/leases/kube-system/kube-controller-manager"),
        "{stale:?}"
    );
    let stopped_event = stale
        .iter()
        .find(|w| w.verb == "create" && w.key.starts_with("/registry/events/kube-system/"))
        .expect("the Event landed");
    let rev = stopped_event.revision.expect("landed at a revision");
    let line = c
        .api()
        .ledger()
        .iter()
        .find(|l| l.revision == rev)
        .expect("in the ledger");
    assert_eq!(&*line.user, KCM);
    // Replica 1's writes are not stale.
    assert!(!stale.iter().any(|w| w.time < resumed), "{stale:?}");
    advance(&mut c, 30_000);
    assert_eq!(holder(&c, KCM), new, "replica 1 keeps leading");
}

#[test]
fn pausing_an_unknown_replica_is_refused_and_changes_nothing() {
    let mut c = cluster(1);
    let before = c.api().revision();
    let err = c
        .apply(Action::PauseComponent("kube-controller-manager-1".into()))
        .unwrap_err();
    assert_eq!(err.code(), 400);
    assert!(
        err.message().contains("kube-controller-manager-0"),
        "{}",
        err.message()
    );
    assert_eq!(c.api().revision(), before);
}
