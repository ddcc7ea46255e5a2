//! Property: whatever the schedule of writes, deletes, compactions, dropped connections,
//! timeouts and errors, once the ledger is quiet the informer's cache equals the ledger exactly,
//! and the handler notifications replay to the same state without contradicting themselves
//! (no update before add, no delete of an unknown object, every `old` is what was last told).

use std::collections::BTreeMap;

use proptest::prelude::*;
use watchlab_engine::client::fake::{FakeLedger, FakeObject};
use watchlab_engine::client::{
    ClientError, Deleted, Informer, InformerConfig, Notification, ObjectKey, ReflectorPhase,
    Resource, WorkQueue,
};
use watchlab_engine::clock::Timestamp;
use watchlab_engine::rng::SimRng;

#[derive(Debug, Clone)]
enum Op {
    /// Writes; the bool says whether the informer steps right after.
    Create(u8, bool),
    Update(u8, bool),
    Delete(u8, bool),
    Compact,
    DropStreams,
    Bookmark,
    WriteElsewhere,
    FailNextWatch,
    FailNextList,
    Step,
    /// Advance the clock by this many ms (then step).
    Advance(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..8, any::<bool>()).prop_map(|(i, s)| Op::Create(i, s)),
        5 => (0u8..8, any::<bool>()).prop_map(|(i, s)| Op::Update(i, s)),
        3 => (0u8..8, any::<bool>()).prop_map(|(i, s)| Op::Delete(i, s)),
        1 => Just(Op::Compact),
        1 => Just(Op::DropStreams),
        1 => Just(Op::Bookmark),
        1 => Just(Op::WriteElsewhere),
        1 => Just(Op::FailNextWatch),
        1 => Just(Op::FailNextList),
        3 => Just(Op::Step),
        3 => (0u32..3000).prop_map(Op::Advance),
        // Past the client's watch timeout (at most 10 minutes).
        1 => Just(Op::Advance(600_000)),
    ]
}

fn name(i: u8) -> String {
    format!("obj-{i}")
}

/// What the notifications say the world is; panics (fails the property) on a contradiction.
#[derive(Default)]
struct Replay {
    known: BTreeMap<ObjectKey, FakeObject>,
}

impl Replay {
    fn apply(&mut self, n: Notification<FakeObject>) -> Result<(), TestCaseError> {
        match n {
            Notification::Add(o) => {
                let key = ObjectKey::of(&o);
                prop_assert!(!self.known.contains_key(&key), "add of known {key}");
                self.known.insert(key, o);
            }
            Notification::Update { old, new } => {
                let key = ObjectKey::of(&new);
                let prev = self.known.get(&key);
                prop_assert_eq!(
                    prev,
                    Some(&old),
                    "update's old is not what was last told for {}",
                    key
                );
                prop_assert!(
                    new.resource_version > old.resource_version,
                    "update went backwards"
                );
                self.known.insert(key, new);
            }
            Notification::Delete(d) => {
                let key = match &d {
                    Deleted::Object(o) => ObjectKey::of(o),
                    Deleted::FinalStateUnknown(t) => t.key.clone(),
                };
                let prev = self.known.remove(&key);
                prop_assert!(prev.is_some(), "delete of unknown {}", key);
                if let (Deleted::FinalStateUnknown(t), Some(prev)) = (&d, &prev) {
                    prop_assert_eq!(&t.obj, prev, "tombstone carries the last known state");
                }
                if let (Deleted::Object(o), Some(prev)) = (&d, &prev) {
                    prop_assert_eq!(o.uid(), prev.uid());
                    prop_assert!(o.resource_version() > prev.resource_version());
                }
            }
        }
        Ok(())
    }
}

fn check_step(
    replay: &mut Replay,
    inf: &Informer<FakeObject>,
    notes: Vec<Notification<FakeObject>>,
) -> Result<(), TestCaseError> {
    for n in notes {
        replay.apply(n)?;
    }
    let cached: Vec<FakeObject> = inf.store().list();
    let told: Vec<FakeObject> = replay.known.values().cloned().collect();
    prop_assert_eq!(cached, told, "handlers and cache disagree");
    prop_assert!(inf.cache_resource_version() <= inf.latest_resource_version());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn once_quiet_the_cache_equals_the_ledger(seed in any::<u64>(), ops in prop::collection::vec(op(), 1..80)) {
        let mut ledger = FakeLedger::new();
        let cfg = InformerConfig { delivery_delay_min_ms: 0, delivery_delay_max_ms: 300, ..InformerConfig::default() };
        let mut inf = Informer::new(cfg, Vec::new(), SimRng::seed_from_u64(seed));
        let mut replay = Replay::default();
        let mut now = Timestamp::ZERO;
        for op in ops {
            let mut step = true;
            match op {
                Op::Create(i, s) => { step = s; let _ = ledger.create(Some("default"), &name(i)); }
                Op::Update(i, s) => {
                    step = s;
                    let _ = ledger.update(Some("default"), &name(i), |o| o.generation += 1);
                }
                Op::Delete(i, s) => { step = s; let _ = ledger.delete(Some("default"), &name(i)); }
                Op::Compact => ledger.compact(),
                Op::DropStreams => ledger.drop_streams(),
                Op::Bookmark => ledger.send_bookmarks(),
                Op::WriteElsewhere => { ledger.write_elsewhere(); }
                Op::FailNextWatch => ledger.fail_next_watch(ClientError::internal("connection reset")),
                Op::FailNextList => ledger.fail_next_list(ClientError::timeout("etcdserver: request timed out")),
                Op::Step => {}
                Op::Advance(ms) => {
                    now = now.plus_millis(u64::from(ms));
                    ledger.set_now(now);
                }
            }
            if step {
                let notes = inf.step(now, &mut ledger);
                check_step(&mut replay, &inf, notes)?;
            }
        }
        // Quiet: no more writes; let backoffs (each under 60 s) and
        // deliveries run out, until the informer is watching with nothing in flight.
        let mut settled = 0;
        for _ in 0..5000 {
            now = now.plus_millis(500);
            ledger.set_now(now);
            let notes = inf.step(now, &mut ledger);
            check_step(&mut replay, &inf, notes)?;
            let watching = matches!(inf.reflector().phase(), ReflectorPhase::Watching { .. });
            if watching && inf.in_flight() == 0 {
                settled += 1;
                if settled > 3 {
                    break;
                }
            }
        }
        prop_assert!(settled > 3, "never settled: {:?}", inf.reflector().phase());
        prop_assert_eq!(inf.in_flight(), 0);
        prop_assert_eq!(inf.store().list(), ledger.objects());
        let told: Vec<FakeObject> = replay.known.into_values().collect();
        prop_assert_eq!(told, ledger.objects());
        prop_assert!(inf.has_synced());
    }

    /// The work queue never hands out a key that is being processed, never holds a key twice,
    /// and every key added is eventually processed after its last add.
    #[test]
    fn workqueue_never_processes_a_key_twice_at_once(
        actions in prop::collection::vec((0u8..4, 0u8..5, 0u32..50), 1..200)
    ) {
        let mut q: WorkQueue<u8> = WorkQueue::default();
        let mut now = Timestamp::ZERO;
        let mut in_hand: Vec<u8> = Vec::new();
        let mut needs: BTreeMap<u8, bool> = BTreeMap::new();
        for (action, key, ms) in actions {
            match action {
                0 => { q.add(key); needs.insert(key, true); }
                1 => { q.add_after(key, u64::from(ms), now); }
                2 => {
                    if let Some(k) = q.get(now) {
                        prop_assert!(!in_hand.contains(&k), "{} handed out twice", k);
                        in_hand.push(k);
                        needs.insert(k, false);
                    }
                }
                _ => {
                    if !in_hand.is_empty() {
                        let k = in_hand.remove(usize::from(key) % in_hand.len());
                        q.done(&k);
                    }
                }
            }
            now = now.plus_millis(1);
        }
        for k in in_hand.drain(..) {
            q.done(&k);
        }
        // Drain everything, including delayed keys.
        now = now.plus_millis(100);
        let mut seen = Vec::new();
        while let Some(k) = q.get(now) {
            prop_assert!(!seen.contains(&k), "{} queued twice", k);
            seen.push(k);
            q.done(&k);
        }
        for (k, pending) in needs {
            if pending {
                prop_assert!(seen.contains(&k), "{} was added but never processed", k);
            }
        }
        prop_assert_eq!(q.len() + q.waiting() + q.processing(), 0);
    }
}
