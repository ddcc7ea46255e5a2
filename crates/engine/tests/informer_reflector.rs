//! The reflector and informer against the fake ledger: list then watch, resume after a stream
//! ends, relist after `410 Expired`, bookmarks, backoff, and the cache's delivery lag.

use std::rc::Rc;

use watchlab_engine::client::fake::{FakeLedger, FakeObject};
use watchlab_engine::client::{
    ClientError, Deleted, DeletedFinalStateUnknown, IndexFunc, Informer, InformerConfig,
    ListResourceVersion, Notification, ObjectKey, ReflectorPhase,
};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::rng::SimRng;

const NS: Option<&str> = Some("default");

fn config(delay_ms: u64) -> InformerConfig {
    InformerConfig {
        delivery_delay_min_ms: delay_ms,
        delivery_delay_max_ms: delay_ms,
        ..InformerConfig::default()
    }
}

fn informer(delay_ms: u64) -> Informer<FakeObject> {
    Informer::new(config(delay_ms), Vec::new(), SimRng::seed_from_u64(42))
}

fn names(objs: &[FakeObject]) -> Vec<&str> {
    objs.iter().map(|o| o.name.as_str()).collect()
}

fn added(n: &Notification<FakeObject>) -> Option<&str> {
    match n {
        Notification::Add(o) => Some(o.name.as_str()),
        _ => None,
    }
}

/// Steps the informer every `tick` ms from `from` for `span` ms, keeping the ledger's clock in
/// step, and returns every notification.
fn run(
    inf: &mut Informer<FakeObject>,
    ledger: &mut FakeLedger,
    from: Timestamp,
    span: u64,
    tick: u64,
) -> Vec<Notification<FakeObject>> {
    let mut notes = Vec::new();
    let mut t = from;
    while t <= from.plus_millis(span) {
        ledger.set_now(t);
        notes.extend(inf.step(t, ledger));
        t = t.plus_millis(tick);
    }
    notes
}

#[test]
fn list_then_watch_builds_the_cache() {
    let mut ledger = FakeLedger::new();
    for n in ["a", "b", "c"] {
        ledger.create(NS, n).unwrap();
    }
    let mut inf = informer(0);
    let store = inf.store();
    assert!(!inf.has_synced());
    let notes = inf.step(Timestamp::ZERO, &mut ledger);
    assert_eq!(
        notes.iter().filter_map(added).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert!(inf.has_synced());
    assert_eq!(
        ledger.list_calls,
        [ListResourceVersion::Any],
        "the first list asks for RV 0"
    );
    assert_eq!(ledger.watch_calls, [4], "then watches from the list's RV");

    ledger.update(NS, "b", |o| o.generation = 2).unwrap();
    ledger.delete(NS, "a").unwrap();
    ledger.create(NS, "d").unwrap();
    let notes = inf.step(Timestamp::from_millis(10), &mut ledger);
    assert!(
        matches!(&notes[0], Notification::Update { old, new } if old.generation == 1 && new.generation == 2)
    );
    assert!(
        matches!(&notes[1], Notification::Delete(Deleted::Object(o)) if o.name == "a" && o.resource_version == 6)
    );
    assert_eq!(added(&notes[2]), Some("d"));
    assert_eq!(store.list(), ledger.objects());
    assert_eq!(store.resource_version(), 7);
    assert_eq!(inf.reflector_stats().lists, 1);
}

#[test]
fn a_stream_timeout_resumes_from_the_last_rv_without_loss_or_duplicates() {
    let mut ledger = FakeLedger::new();
    ledger.create(NS, "a").unwrap();
    let mut inf = informer(0);
    inf.step(Timestamp::ZERO, &mut ledger);
    ledger.update(NS, "a", |o| o.generation = 2).unwrap(); // rv 3, delivered on stream 1
                                                           // The client asked for a timeout in [5, 10) minutes: at 10 minutes the stream has ended.
    let end = Timestamp::from_secs(600);
    ledger.set_now(end);
    ledger.create(NS, "b").unwrap(); // rv 4, written after the stream closed: not on it
    let notes = inf.step(end, &mut ledger);
    let kinds: Vec<String> = notes
        .iter()
        .map(|n| match n {
            Notification::Add(o) => format!("add {} {}", o.name, o.resource_version),
            Notification::Update { new, .. } => {
                format!("update {} {}", new.name, new.resource_version)
            }
            Notification::Delete(d) => format!("delete {}", d.object().name),
        })
        .collect();
    assert_eq!(kinds, ["update a 3", "add b 4"], "each change exactly once");
    assert_eq!(
        ledger.watch_calls,
        [2, 3],
        "rewatched from the last RV seen"
    );
    assert_eq!(ledger.list_calls.len(), 1, "no relist");
    let stats = inf.reflector_stats();
    assert_eq!(
        (stats.watch_restarts, stats.relists, stats.expired),
        (1, 0, 0)
    );
    assert_eq!(inf.store().list(), ledger.objects());
}

#[test]
fn compaction_while_disconnected_relists_and_reports_tombstones() {
    let mut ledger = FakeLedger::new();
    for n in ["keep", "gone", "changed"] {
        ledger.create(NS, n).unwrap();
    }
    let mut inf = informer(0);
    let store = inf.store();
    let t0 = Timestamp::from_secs(1);
    ledger.set_now(t0);
    inf.step(t0, &mut ledger);
    let last_known_gone = store.get_by_name(NS, "gone").unwrap();

    // The connection drops; meanwhile objects change and the history is compacted.
    ledger.drop_streams();
    ledger.delete(NS, "gone").unwrap();
    ledger.update(NS, "changed", |o| o.generation = 9).unwrap();
    ledger.create(NS, "new").unwrap();
    ledger.compact();

    let t1 = Timestamp::from_secs(5);
    ledger.set_now(t1);
    assert!(
        inf.step(t1, &mut ledger).is_empty(),
        "410: nothing delivered, backing off"
    );
    let stats = inf.reflector_stats().clone();
    assert_eq!(stats.expired, 1);
    assert_eq!(
        stats.last_error.as_ref().map(|e| &*e.message),
        Some("too old resource version: 4 (7)")
    );
    let ReflectorPhase::WaitingToList { at } = inf.reflector().phase() else {
        panic!(
            "expected a pending relist, got {:?}",
            inf.reflector().phase()
        );
    };
    let wait = at.millis_since(t1);
    assert!(
        (800..=1600).contains(&wait),
        "reflector backoff 800 ms, jitter 1.0: {wait}"
    );

    let notes = run(&mut inf, &mut ledger, t1.plus_millis(100), 2000, 100);
    assert_eq!(
        store.list(),
        ledger.objects(),
        "the relisted cache equals the ledger"
    );
    assert_eq!(inf.reflector_stats().relists, 1);
    assert_eq!(
        *ledger.list_calls.last().unwrap(),
        ListResourceVersion::NotOlderThan(4)
    );
    let tombstone = Notification::Delete(Deleted::FinalStateUnknown(DeletedFinalStateUnknown {
        key: ObjectKey::new(NS, "gone"),
        obj: last_known_gone,
    }));
    assert!(notes.contains(&tombstone), "{notes:?}");
    assert!(notes.iter().any(|n| added(n) == Some("new")));
    assert!(notes
        .iter()
        .any(|n| matches!(n, Notification::Update { new, .. } if new.name == "changed")));
    assert!(!notes
        .iter()
        .any(|n| matches!(n, Notification::Update { new, .. } if new.name == "keep")));
}

#[test]
fn bookmarks_advance_the_rv_so_a_resume_survives_compaction() {
    let mut ledger = FakeLedger::new();
    ledger.create(NS, "a").unwrap(); // rv 2
    let mut inf = informer(0);
    inf.step(Timestamp::ZERO, &mut ledger);
    for _ in 0..3 {
        ledger.write_elsewhere(); // other resources: rv 5
    }
    ledger.send_bookmarks();
    inf.step(Timestamp::from_millis(10), &mut ledger);
    assert_eq!(inf.latest_resource_version(), 5);
    assert_eq!(inf.cache_resource_version(), 5);
    ledger.compact(); // compacted at 5
    ledger.drop_streams();
    ledger.set_now(Timestamp::from_secs(3));
    inf.step(Timestamp::from_secs(3), &mut ledger);
    assert_eq!(ledger.watch_calls, [2, 5], "resumed from the bookmark's RV");
    assert_eq!(
        inf.reflector_stats().expired,
        0,
        "no 410 thanks to the bookmark"
    );
    assert_eq!(ledger.list_calls.len(), 1);
}

#[test]
fn the_cache_lags_by_the_delivery_delay() {
    let mut ledger = FakeLedger::new();
    ledger.create(NS, "web").unwrap();
    let mut inf = informer(100);
    let store = inf.store();
    inf.step(Timestamp::ZERO, &mut ledger);
    assert!(!inf.has_synced(), "the first list is still in flight");
    inf.step(Timestamp::from_millis(100), &mut ledger);
    assert!(inf.has_synced());

    let t = Timestamp::from_millis(1000);
    ledger.set_now(t);
    ledger.update(NS, "web", |o| o.generation = 2).unwrap();
    assert!(inf.step(t, &mut ledger).is_empty());
    assert_eq!(
        store.get_by_name(NS, "web").unwrap().generation,
        1,
        "a read right after the write is stale"
    );
    assert_eq!(
        (inf.latest_resource_version(), inf.cache_resource_version()),
        (3, 2)
    );
    assert_eq!(inf.in_flight(), 1);
    assert_eq!(inf.next_wakeup(), Some(Timestamp::from_millis(1100)));
    inf.step(Timestamp::from_millis(1099), &mut ledger);
    assert_eq!(store.get_by_name(NS, "web").unwrap().generation, 1);
    let notes = inf.step(Timestamp::from_millis(1100), &mut ledger);
    assert_eq!(notes.len(), 1);
    assert_eq!(
        store.get_by_name(NS, "web").unwrap().generation,
        2,
        "fresh after the delay"
    );
    assert_eq!(inf.cache_resource_version(), 3);
}

#[test]
fn list_errors_back_off_and_retry() {
    let mut ledger = FakeLedger::new();
    ledger.create(NS, "a").unwrap();
    ledger.fail_next_list(ClientError::timeout("etcdserver: request timed out"));
    ledger.fail_next_list(ClientError::timeout("etcdserver: request timed out"));
    let mut inf = informer(0);
    inf.step(Timestamp::ZERO, &mut ledger);
    assert!(!inf.has_synced());
    let first = inf.next_wakeup().unwrap();
    assert!((800..=1600).contains(&first.as_millis()), "{first:?}");
    inf.step(first.plus_millis(0), &mut ledger);
    let second = inf.next_wakeup().unwrap();
    let wait = second.millis_since(first);
    assert!((1600..=3200).contains(&wait), "doubled: {wait}");
    inf.step(Timestamp::from_millis(second.as_millis() - 1), &mut ledger);
    assert_eq!(
        ledger.list_calls.len(),
        2,
        "no list before the backoff ends"
    );
    inf.step(second, &mut ledger);
    assert!(inf.has_synced());
    assert_eq!(inf.reflector_stats().backoffs, 2);
}

#[test]
fn a_very_short_empty_watch_is_an_error_and_relists() {
    let mut ledger = FakeLedger::new();
    let mut inf = informer(0);
    inf.step(Timestamp::ZERO, &mut ledger);
    ledger.drop_streams();
    inf.step(Timestamp::from_millis(500), &mut ledger);
    let stats = inf.reflector_stats();
    assert_eq!(stats.watch_restarts, 0);
    assert!(stats
        .last_error
        .as_ref()
        .is_some_and(|e| e.message.starts_with("very short watch")));
    assert!(matches!(
        inf.reflector().phase(),
        ReflectorPhase::WaitingToList { .. }
    ));
}

#[test]
fn expired_watch_error_then_expired_list_falls_back_to_most_recent() {
    let mut ledger = FakeLedger::new();
    ledger.create(NS, "a").unwrap();
    let mut inf = informer(0);
    inf.step(Timestamp::ZERO, &mut ledger);
    ledger.fail_next_watch(ClientError::expired("too old resource version: 2 (3)"));
    ledger.fail_next_list(ClientError::expired(
        "The provided continue parameter is too old",
    ));
    ledger.drop_streams();
    run(&mut inf, &mut ledger, Timestamp::from_secs(2), 5000, 100);
    assert_eq!(
        ledger.list_calls,
        [
            ListResourceVersion::Any,
            ListResourceVersion::NotOlderThan(2),
            ListResourceVersion::MostRecent
        ]
    );
    assert_eq!(inf.reflector_stats().expired, 2);
    assert_eq!(inf.store().list(), ledger.objects());
}

#[test]
fn resync_redelivers_the_cache_periodically() {
    let mut ledger = FakeLedger::new();
    ledger.create(NS, "a").unwrap();
    let cfg = InformerConfig {
        resync_period_ms: Some(1000),
        ..config(0)
    };
    let mut inf = Informer::new(cfg, Vec::new(), SimRng::seed_from_u64(1));
    inf.step(Timestamp::ZERO, &mut ledger);
    assert!(inf
        .step(Timestamp::from_millis(999), &mut ledger)
        .is_empty());
    let notes = inf.step(Timestamp::from_millis(1000), &mut ledger);
    assert!(matches!(&notes[..], [Notification::Update { old, new }] if old == new));
}

#[test]
fn indexes_follow_the_watch() {
    let mut ledger = FakeLedger::new();
    let by_node: IndexFunc<FakeObject> =
        Rc::new(|o: &FakeObject| o.node_name.iter().cloned().collect());
    let mut inf = Informer::new(
        config(0),
        vec![("spec.nodeName".into(), by_node)],
        SimRng::seed_from_u64(3),
    );
    let store = inf.store();
    inf.step(Timestamp::ZERO, &mut ledger);
    for n in ["p1", "p2", "p3"] {
        ledger.create(NS, n).unwrap();
    }
    ledger
        .update(NS, "p1", |o| o.node_name = Some("node-a".into()))
        .unwrap();
    ledger
        .update(NS, "p3", |o| o.node_name = Some("node-a".into()))
        .unwrap();
    inf.step(Timestamp::from_millis(10), &mut ledger);
    assert_eq!(
        names(&store.by_index("spec.nodeName", "node-a").unwrap()),
        ["p1", "p3"]
    );
    ledger.delete(NS, "p1").unwrap();
    inf.step(Timestamp::from_millis(20), &mut ledger);
    assert_eq!(
        names(&store.by_index("spec.nodeName", "node-a").unwrap()),
        ["p3"]
    );
}
