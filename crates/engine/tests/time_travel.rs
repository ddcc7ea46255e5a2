//! The time-travel checker (kubernetes/kubernetes#59848) on the HA story: two API servers, two
//! replicas of kube-controller-manager; kube-apiserver-1's caches cut from etcd while the
//! leader, on kube-apiserver-0, sees a pod labelled and another deleted (and replaced); the
//! leader pauses and the standby, on kube-apiserver-1, takes over. Without the fix (client-go's
//! first list at `resourceVersion=0`) its informers list from the frozen cache, below what
//! kube-controller-manager had reached: flagged, the deleted pod seen again. With the fix (the
//! first list a consistent read, `resourceVersion=""`) the same story is silent.

use watchlab_apimachinery::client::ApiClient;
use watchlab_engine::api::{Kind, Object};
use watchlab_engine::cluster::{Action, Cluster, ClusterConfig};

const VICTIM: &str = "orders-api-6cffd967f6-6dsbw";

fn request(c: &mut Cluster, method: &str, path: &str, body: Option<&str>) {
    let patch = body.map(|_| "application/merge-patch+json");
    let r = c.session("kubectl").request(method, path, patch, body);
    assert_eq!(r.code, 200, "{method} {path}: {}", r.body);
}

fn holder(c: &Cluster) -> String {
    match c
        .api()
        .get(Kind::Lease, Some("kube-system"), "kube-controller-manager")
        .as_deref()
    {
        Ok(Object::Lease(l)) => l.spec.holder_identity.clone().unwrap_or_default(),
        other => panic!("the Lease: {other:?}"),
    }
}

fn advance(c: &mut Cluster, secs: u64) {
    let until = c.now().plus_secs(secs);
    c.advance_to(until);
}

/// The story up to 40 s after the leader paused.
fn story(fix: bool) -> Cluster {
    let mut c = Cluster::new(ClusterConfig {
        apiservers: 2,
        controller_replicas: 2,
        consistent_first_list: fix,
        ..ClusterConfig::default()
    });
    advance(&mut c, 30);
    assert_eq!(c.api().time_travels().total(), 0, "nothing went back yet");
    c.apply(Action::CutApiserver("kube-apiserver-1".into()))
        .expect("cut");
    request(
        &mut c,
        "PATCH",
        "/api/v1/namespaces/production/pods/orders-api-6cffd967f6-rdkm5",
        Some(r#"{"metadata":{"labels":{"checked":"yes"}}}"#),
    );
    request(
        &mut c,
        "DELETE",
        &format!("/api/v1/namespaces/production/pods/{VICTIM}?gracePeriodSeconds=0"),
        None,
    );
    advance(&mut c, 3);
    c.apply(Action::PauseComponent("kube-controller-manager-0".into()))
        .expect("pause");
    advance(&mut c, 40);
    assert!(
        holder(&c).starts_with("kube-controller-manager-1_"),
        "the standby took over"
    );
    c
}

#[test]
fn without_the_fix_the_new_leader_lists_from_the_past_and_sees_a_deleted_pod_again() {
    let c = story(false);
    let flags: Vec<_> = c.api().time_travels().since(0).collect();
    let pods = flags
        .iter()
        .find(|f| f.kind == Kind::Pod)
        .unwrap_or_else(|| panic!("the pods list is flagged: {flags:?}"));
    assert_eq!(&*pods.component, "kube-controller-manager");
    assert_eq!(pods.apiserver, "kube-apiserver-1");
    assert!(pods.listed < pods.reached, "{pods:?}");
    assert_eq!(pods.resurrected, [format!("production/{VICTIM}")]);
    // The page's informers view marks the new leader's pod informer.
    let marked = c
        .informers()
        .into_iter()
        .find(|i| i.resource == "pods" && i.went_back.is_some())
        .expect("a pods informer marked");
    assert_eq!(
        marked.went_back.as_ref().map(|f| f.listed),
        Some(pods.listed)
    );
}

#[test]
fn with_the_fix_the_same_story_is_silent() {
    let c = story(true);
    let flags: Vec<_> = c.api().time_travels().since(0).collect();
    assert!(flags.is_empty(), "{flags:?}");
    assert!(c.informers().iter().all(|i| i.went_back.is_none()));
}

/// After the story, the roles swapped: kube-controller-manager-0 comes back, finds it lost the
/// Lease and starts afresh on kube-apiserver-0 — after the fix was turned on, or not; then that
/// API server is cut, the pod labelled, and the leader paused. The flags of the second story.
fn second_story(fix: bool) -> Vec<watchlab_engine::apiserver::time_travel::TimeTravel> {
    let mut c = story(false);
    let before = c.api().time_travels().total();
    assert!(before > 0);
    c.apply(Action::RestoreApiserver("kube-apiserver-1".into()))
        .expect("restore");
    c.apply(Action::ConsistentFirstList(fix)).expect("fix");
    c.apply(Action::ResumeComponent("kube-controller-manager-0".into()))
        .expect("resume");
    advance(&mut c, 30);
    c.apply(Action::CutApiserver("kube-apiserver-0".into()))
        .expect("cut");
    request(
        &mut c,
        "PATCH",
        "/api/v1/namespaces/production/pods/orders-api-6cffd967f6-rdkm5",
        Some(r#"{"metadata":{"labels":{"checked":"again"}}}"#),
    );
    advance(&mut c, 3);
    c.apply(Action::PauseComponent("kube-controller-manager-1".into()))
        .expect("pause");
    advance(&mut c, 40);
    assert!(holder(&c).starts_with("kube-controller-manager-0_"));
    c.api().time_travels().since(before).cloned().collect()
}

#[test]
fn the_fix_turned_on_later_holds_for_the_processes_started_after() {
    let unfixed = second_story(false);
    assert!(
        unfixed
            .iter()
            .any(|f| f.kind == Kind::Pod && f.apiserver == "kube-apiserver-0"),
        "without the fix the second story goes back too: {unfixed:?}"
    );
    let fixed = second_story(true);
    assert!(fixed.is_empty(), "{fixed:?}");
}
