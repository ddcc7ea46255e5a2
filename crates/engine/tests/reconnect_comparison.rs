//! The second text's §7 risk through the Cluster façade: a naive watcher that reconnects without
//! its resourceVersion against an informer that resumes from it. After a dropped connection the
//! naive one gets every pod again (duplicates) and never hears of the pod deleted meanwhile
//! (missed); after a compaction the informer relists (410) and still misses nothing.

use watchlab_engine::api::Kind;
use watchlab_engine::cluster::{Action, Cluster};
use watchlab_engine::reconnect_comparison::{ComparisonView, INFORMER_USER, NAIVE_USER};

fn act(c: &mut Cluster, a: Action) {
    c.apply(a).unwrap_or_else(|s| panic!("{}", s.message()));
}

fn run(c: &mut Cluster, secs: u64) {
    let t = c.now().plus_secs(secs);
    c.advance_to(t);
}

fn view(c: &Cluster) -> ComparisonView {
    c.reconnect_comparison()
        .unwrap_or_else(|| panic!("no comparison running"))
}

fn pod(name: &str) -> Action {
    Action::CreatePod {
        namespace: "production".into(),
        name: name.into(),
        image: "nginx".into(),
        labels: vec![],
    }
}

/// Starts the comparison on production, cuts the connections, writes in the gap (a create, a
/// label, a delete), optionally compacts, restores, and lets both catch up.
/// `busy`: while the clients are away, a busy minute and more (the Deployment scaled to 30 and
/// back) moves the pods' watch cache window past their resourceVersion.
fn gap(busy: bool) -> ComparisonView {
    let mut c = Cluster::with_seed(7);
    run(&mut c, 30);
    act(&mut c, pod("gone"));
    act(&mut c, pod("kept"));
    act(
        &mut c,
        Action::CompareReconnects {
            namespace: "production".into(),
        },
    );
    run(&mut c, 5);
    let before = view(&c);
    assert_eq!(before.naive.missed, Some(0), "{before:#?}");
    assert_eq!(before.informer.missed, Some(0), "{before:#?}");
    assert_eq!(before.naive.duplicates, 0);
    let users: Vec<String> = c.api().streams().map(|s| s.user().to_string()).collect();
    assert!(users.iter().any(|u| u == NAIVE_USER), "{users:?}");
    assert!(users.iter().any(|u| u == INFORMER_USER), "{users:?}");

    act(&mut c, Action::CutWatchConnections);
    assert!(!view(&c).connected);
    assert_eq!(view(&c).naive.missed, None, "nothing to count while cut");
    act(&mut c, pod("new"));
    act(
        &mut c,
        Action::Label {
            kind: Kind::Pod.into(),
            namespace: "production".into(),
            name: "kept".into(),
            key: "team".into(),
            value: "orders".into(),
            overwrite: true,
        },
    );
    act(
        &mut c,
        Action::Delete {
            kind: Kind::Pod.into(),
            namespace: "production".into(),
            name: "gone".into(),
        },
    );
    run(&mut c, 40);
    if busy {
        run(&mut c, 40);
        for replicas in [30, 5] {
            act(
                &mut c,
                Action::Scale {
                    namespace: "production".into(),
                    name: "orders-api".into(),
                    replicas,
                },
            );
            run(&mut c, 15);
        }
    }
    act(&mut c, Action::RestoreWatchConnections);
    run(&mut c, 10);
    view(&c)
}

#[test]
fn after_a_dropped_connection_the_naive_watcher_duplicates_and_misses_the_informer_does_not() {
    let v = gap(false);
    assert!(v.connected);
    assert!(
        v.naive.duplicates >= 3,
        "every pod came again as ADDED: {v:#?}"
    );
    assert!(
        v.naive.missed.is_some_and(|m| m >= 1),
        "the deleted pod is a ghost: {v:#?}"
    );
    assert_eq!(
        v.naive.cached,
        v.truth + v.naive.missed.unwrap_or(0) as usize
    );
    assert_eq!(v.informer.missed, Some(0), "{v:#?}");
    assert_eq!(v.informer.duplicates, 0, "{v:#?}");
    assert_eq!(
        v.informer.relists, 0,
        "resumed from its RV, no relist: {v:#?}"
    );
    assert_eq!(v.informer.cached, v.truth);
    assert!(v.informer.reconnects >= 1);
}

#[test]
fn after_the_cache_window_moved_on_the_informer_relists_on_410_and_still_misses_nothing() {
    let v = gap(true);
    assert!(v.naive.missed.is_some_and(|m| m >= 1), "{v:#?}");
    assert!(v.naive.duplicates >= 3, "{v:#?}");
    assert!(
        v.informer.expired >= 1,
        "its RV left the watch cache's window: {v:#?}"
    );
    assert_eq!(v.informer.relists, 1, "{v:#?}");
    assert_eq!(v.informer.missed, Some(0), "{v:#?}");
    assert_eq!(v.informer.duplicates, 0, "{v:#?}");
}

#[test]
fn cutting_without_a_comparison_is_refused_and_changes_nothing() {
    let mut c = Cluster::with_seed(7);
    let before = c.api().revision();
    let err = c.apply(Action::CutWatchConnections).err();
    assert_eq!(err.map(|s| s.code()), Some(400));
    let missing = c.apply(Action::CompareReconnects {
        namespace: "nowhere".into(),
    });
    assert_eq!(missing.err().map(|s| s.code()), Some(404));
    assert!(c.reconnect_comparison().is_none());
    assert_eq!(c.api().revision(), before);
}

#[test]
fn the_comparison_replays_from_the_journal() {
    let mut c = Cluster::with_seed(7);
    act(
        &mut c,
        Action::CompareReconnects {
            namespace: "production".into(),
        },
    );
    run(&mut c, 5);
    act(&mut c, Action::CutWatchConnections);
    act(&mut c, pod("late"));
    act(&mut c, Action::RestoreWatchConnections);
    run(&mut c, 5);
    let text = c.export().unwrap_or_else(|e| panic!("{e}"));
    let back = Cluster::import(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.reconnect_comparison(), c.reconnect_comparison());
}
