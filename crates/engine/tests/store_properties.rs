//! Property tests for the etcd-like store against a deliberately naive model: the full key
//! space snapshotted at every revision plus a flat event log. Random sequences of puts,
//! deletes, compare-and-swap transactions and compactions must keep the store and the model in
//! step: one revision per writing txn, identical reads at every retained revision, and watch
//! replay (`events_after`) that rebuilds the current state from any retained snapshot. A second
//! model follows leases: grants, attachments, keep-alives, revokes and expiry over virtual time.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use watchlab_engine::clock::Timestamp;
use watchlab_engine::store::{
    Compare, CompareOp, CompareTarget, EventType, LeaseId, Op, OpResponse, Revision, Store,
    StoreError, Txn, MIN_LEASE_TTL_MS,
};

/// Few keys sharing prefixes, so updates, deletes, recreations and prefix filters all happen.
const KEYS: [&str; 5] = ["/a/1", "/a/2", "/a/22", "/b/1", "/c"];
const PREFIXES: [&str; 5] = ["", "/a/", "/a/2", "/b/", "/z"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ModelKv {
    value: u32,
    create: Revision,
    modified: Revision,
    version: u64,
}

type Snapshot = BTreeMap<String, ModelKv>;

/// The naive model: `snapshots[i]` is the whole state at revision i + 1.
#[derive(Debug, Default)]
struct Model {
    snapshots: Vec<Snapshot>,
    /// (revision, key, kind) of every write ever made, in order.
    log: Vec<(Revision, String, EventType)>,
    compacted: Revision,
}

impl Model {
    fn new() -> Self {
        Model {
            snapshots: vec![Snapshot::new()],
            ..Model::default()
        }
    }

    fn revision(&self) -> Revision {
        self.snapshots.len() as Revision
    }

    fn at(&self, revision: Revision) -> &Snapshot {
        &self.snapshots[revision as usize - 1]
    }

    fn current(&self) -> &Snapshot {
        self.at(self.revision())
    }

    fn field(kv: Option<&ModelKv>, target: CompareTarget) -> u64 {
        kv.map_or(0, |kv| match target {
            CompareTarget::Version => kv.version,
            CompareTarget::CreateRevision => kv.create,
            CompareTarget::ModRevision => kv.modified,
        })
    }

    /// Applies a txn the slow, obvious way; returns (succeeded, get results) or the refusal.
    fn txn(&mut self, txn: &Txn<u32>) -> Result<(bool, Vec<Option<u32>>), StoreError> {
        for branch in [&txn.success, &txn.failure] {
            let mut written = BTreeSet::new();
            for op in branch.iter() {
                if !matches!(op, Op::Get { .. }) && !written.insert(op.key().to_string()) {
                    return Err(StoreError::DuplicateKey(op.key().to_string()));
                }
            }
        }
        let mut state = self.current().clone();
        let succeeded = txn.compare.iter().all(|c| {
            let actual = Self::field(state.get(&c.key), c.target);
            match c.op {
                CompareOp::Equal => actual == c.value,
                CompareOp::NotEqual => actual != c.value,
                CompareOp::Greater => actual > c.value,
                CompareOp::Less => actual < c.value,
            }
        });
        let rev = self.revision() + 1;
        let mut gets = Vec::new();
        let mut wrote = Vec::new();
        for op in if succeeded {
            &txn.success
        } else {
            &txn.failure
        } {
            match op {
                Op::Get { key } => gets.push(state.get(key).map(|kv| kv.value)),
                Op::Put { key, value, .. } => {
                    let prev = state.get(key).copied();
                    state.insert(
                        key.clone(),
                        ModelKv {
                            value: *value,
                            create: prev.map_or(rev, |p| p.create),
                            modified: rev,
                            version: prev.map_or(1, |p| p.version + 1),
                        },
                    );
                    wrote.push((rev, key.clone(), EventType::Put));
                }
                Op::Delete { key } => {
                    if state.remove(key).is_some() {
                        wrote.push((rev, key.clone(), EventType::Delete));
                    }
                }
            }
        }
        if !wrote.is_empty() {
            self.snapshots.push(state);
            self.log.extend(wrote);
        }
        Ok((succeeded, gets))
    }
}

#[derive(Debug, Clone)]
enum Step {
    Put(usize, u32),
    Delete(usize),
    Txn(Txn<u32>),
    /// Compact at a revision chosen as a fraction (per mille) of the way to the current one.
    Compact(u16),
}

fn op() -> impl Strategy<Value = Op<u32>> {
    prop_oneof![
        (0..KEYS.len()).prop_map(|k| Op::Get {
            key: KEYS[k].into()
        }),
        (0..KEYS.len(), any::<u32>()).prop_map(|(k, value)| Op::Put {
            key: KEYS[k].into(),
            value,
            lease: None
        }),
        (0..KEYS.len()).prop_map(|k| Op::Delete {
            key: KEYS[k].into()
        }),
    ]
}

fn compare() -> impl Strategy<Value = Compare> {
    let target = prop_oneof![
        Just(CompareTarget::Version),
        Just(CompareTarget::CreateRevision),
        Just(CompareTarget::ModRevision),
    ];
    let cmp = prop_oneof![
        Just(CompareOp::Equal),
        Just(CompareOp::NotEqual),
        Just(CompareOp::Greater),
        Just(CompareOp::Less),
    ];
    (0..KEYS.len(), target, cmp, 0u64..8).prop_map(|(k, t, c, v)| Compare::new(KEYS[k], t, c, v))
}

fn step() -> impl Strategy<Value = Step> {
    let txn = (
        prop::collection::vec(compare(), 0..3),
        prop::collection::vec(op(), 0..4),
        prop::collection::vec(op(), 0..4),
    )
        .prop_map(|(compare, success, failure)| Txn {
            compare,
            success,
            failure,
        });
    prop_oneof![
        4 => (0..KEYS.len(), any::<u32>()).prop_map(|(k, v)| Step::Put(k, v)),
        2 => (0..KEYS.len()).prop_map(Step::Delete),
        3 => txn.prop_map(Step::Txn),
        1 => (0u16..=1000).prop_map(Step::Compact),
    ]
}

fn store_state(store: &Store<u32>, at: Option<Revision>) -> Result<Snapshot, StoreError> {
    let range = store.range_prefix("", None, at, None)?;
    Ok(range
        .kvs
        .iter()
        .map(|kv| {
            let model = ModelKv {
                value: kv.value,
                create: kv.create_revision,
                modified: kv.mod_revision,
                version: kv.version,
            };
            (kv.key.to_string(), model)
        })
        .collect())
}

fn with_prefix(snapshot: &Snapshot, prefix: &str) -> Snapshot {
    snapshot
        .iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// Everything the store must agree with the model on, at every step.
fn check(store: &Store<u32>, model: &Model) -> Result<(), TestCaseError> {
    prop_assert_eq!(store.revision(), model.revision());
    prop_assert_eq!(store.compact_revision(), model.compacted);
    prop_assert_eq!(store.len(), model.current().len());
    let oldest = model.compacted.max(1);
    for r in 1..oldest {
        let stale = store_state(store, Some(r));
        prop_assert!(
            matches!(stale, Err(StoreError::Compacted { .. })),
            "read at {}",
            r
        );
    }
    for r in oldest..=model.revision() {
        prop_assert_eq!(
            &store_state(store, Some(r))?,
            model.at(r),
            "read at revision {}",
            r
        );
    }
    prop_assert_eq!(&store_state(store, None)?, model.current());
    for at in [oldest, model.revision()] {
        for prefix in PREFIXES {
            check_pages(store, &with_prefix(model.at(at), prefix), prefix, at)?;
        }
    }
    for key in KEYS {
        let got = store.get(key).map(|kv| kv.value);
        prop_assert_eq!(got, model.current().get(key).map(|kv| kv.value));
    }
    let retained: Vec<_> = model
        .log
        .iter()
        .filter(|(r, _, _)| *r > model.compacted)
        .collect();
    prop_assert_eq!(store.history_len(), retained.len());
    for prefix in PREFIXES {
        for after in model.compacted..=model.revision() {
            let events = store.events_after(prefix, after)?;
            // No event lost or duplicated, strictly in (revision, op) order.
            let seen: Vec<_> = events
                .iter()
                .map(|e| (e.kv.mod_revision, e.kv.key.to_string(), e.kind))
                .collect();
            let expected: Vec<_> = retained
                .iter()
                .filter(|(r, k, _)| *r > after && k.starts_with(prefix))
                .map(|e| (*e).clone())
                .collect();
            prop_assert_eq!(&seen, &expected);
            // Replaying the events onto the snapshot at `after` gives the current state.
            let mut replayed = with_prefix(model.at(after.max(1)), prefix);
            for e in &events {
                match e.kind {
                    EventType::Put => {
                        let kv = ModelKv {
                            value: e.kv.value,
                            create: e.kv.create_revision,
                            modified: e.kv.mod_revision,
                            version: e.kv.version,
                        };
                        replayed.insert(e.kv.key.to_string(), kv);
                    }
                    EventType::Delete => {
                        let prev = store.prev_kv(e).map(|p| p.value);
                        let removed = replayed.remove(e.kv.key.as_ref()).map(|kv| kv.value);
                        prop_assert_eq!(removed, prev, "prev_kv is the state before");
                        prop_assert_eq!(Some(e.kv.value), prev, "delete carries the last value");
                    }
                }
            }
            prop_assert_eq!(&replayed, &with_prefix(model.current(), prefix));
        }
        if model.compacted > 0 {
            let stale = store.events_after(prefix, model.compacted - 1);
            prop_assert!(
                matches!(stale, Err(StoreError::Compacted { .. })),
                "watch {}",
                prefix
            );
        }
    }
    // Revision 1 is the empty store, written by no txn.
    for r in (model.compacted + 1).max(2)..=model.revision() {
        let at: Vec<_> = store
            .events_at(r)
            .iter()
            .map(|e| (e.kv.mod_revision, e.kv.key.to_string(), e.kind))
            .collect();
        let expected: Vec<_> = retained
            .iter()
            .filter(|e| e.0 == r)
            .map(|e| (*e).clone())
            .collect();
        prop_assert!(!at.is_empty(), "every revision wrote something");
        prop_assert_eq!(at, expected);
    }
    Ok(())
}

/// Paging through `prefix` at `at` with small limits yields exactly `expected`, and every page's
/// `count` and `more` describe what remains after its start.
fn check_pages(
    store: &Store<u32>,
    expected: &Snapshot,
    prefix: &str,
    at: Revision,
) -> Result<(), TestCaseError> {
    let all: Vec<&String> = expected.keys().collect();
    for limit in 1..=3 {
        let mut seen = Vec::new();
        let mut start_after: Option<String> = None;
        loop {
            let page = store.range_prefix(prefix, start_after.as_deref(), Some(at), Some(limit))?;
            let remaining = all.len() - seen.len();
            prop_assert_eq!(
                page.count,
                remaining,
                "count at {} after {:?}",
                at,
                start_after
            );
            prop_assert_eq!(page.more, remaining > limit);
            prop_assert!(page.kvs.len() == remaining.min(limit));
            seen.extend(page.kvs.iter().map(|kv| kv.key.to_string()));
            match page.kvs.last() {
                Some(last) if page.more => start_after = Some(last.key.to_string()),
                _ => break,
            }
        }
        let seen: Vec<&String> = seen.iter().collect();
        prop_assert_eq!(&seen, &all);
    }
    Ok(())
}

fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let mut store = Store::new();
    let mut model = Model::new();
    for step in steps {
        let before = store.revision();
        match step {
            Step::Put(k, v) => {
                let rev = store.put(KEYS[k], v, None);
                let txn = Txn {
                    success: vec![Op::Put {
                        key: KEYS[k].into(),
                        value: v,
                        lease: None,
                    }],
                    ..Txn::default()
                };
                model.txn(&txn)?;
                prop_assert_eq!(rev, Ok(before + 1));
            }
            Step::Delete(k) => {
                let rev = store.delete(KEYS[k]);
                let existed = model.current().contains_key(KEYS[k]);
                let txn = Txn {
                    success: vec![Op::Delete {
                        key: KEYS[k].into(),
                    }],
                    ..Txn::default()
                };
                model.txn(&txn)?;
                prop_assert_eq!(rev, existed.then_some(before + 1));
            }
            Step::Txn(txn) => {
                let expected = model.txn(&txn);
                let got = store.txn(txn);
                match (got, expected) {
                    (Ok(got), Ok((succeeded, gets))) => {
                        prop_assert_eq!(got.succeeded, succeeded);
                        prop_assert_eq!(got.revision, model.revision());
                        let got_gets: Vec<_> = got
                            .responses
                            .iter()
                            .filter_map(|r| match r {
                                OpResponse::Get(kv) => Some(kv.as_ref().map(|kv| kv.value)),
                                _ => None,
                            })
                            .collect();
                        prop_assert_eq!(got_gets, gets);
                    }
                    (Err(got), Err(expected)) => prop_assert_eq!(got, expected),
                    (got, expected) => {
                        prop_assert!(
                            false,
                            "store {:?} vs model {:?}",
                            got.map(|r| r.revision),
                            expected
                        )
                    }
                }
            }
            Step::Compact(per_mille) => {
                let span = model.revision();
                let target = (span * Revision::from(per_mille) / 1000).max(1);
                let got = store.compact(target);
                if target <= model.compacted {
                    prop_assert!(
                        matches!(got, Err(StoreError::Compacted { .. })),
                        "{:?}",
                        got
                    );
                } else {
                    prop_assert_eq!(got, Ok(()));
                    model.compacted = target;
                }
            }
        }
        let step_revs = store.revision() - before;
        prop_assert!(step_revs <= 1, "one revision per writing txn at most");
        check(&store, &model)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn store_matches_a_snapshot_model(steps in prop::collection::vec(step(), 1..40)) {
        run(steps)?;
    }
}

/// A lease-only model: which key is attached to which lease, and every lease's deadline.
#[derive(Debug, Default)]
struct LeaseModel {
    now: u64,
    revision: Revision,
    /// id → (ttl, deadline, attached keys).
    leases: BTreeMap<LeaseId, (u64, u64, BTreeSet<String>)>,
    /// live key → its lease.
    keys: BTreeMap<String, Option<LeaseId>>,
    granted: Vec<LeaseId>,
}

impl LeaseModel {
    fn detach(&mut self, key: &str) {
        if let Some(Some(old)) = self.keys.get(key) {
            if let Some((_, _, keys)) = self.leases.get_mut(old) {
                keys.remove(key);
            }
        }
    }

    /// Revokes `id`: one revision if it had keys.
    fn revoke(&mut self, id: LeaseId) -> Option<Revision> {
        let (_, _, keys) = self.leases.remove(&id)?;
        for key in &keys {
            self.keys.remove(key);
        }
        (!keys.is_empty()).then(|| {
            self.revision += 1;
            self.revision
        })
    }
}

#[derive(Debug, Clone)]
enum LeaseStep {
    Grant(u64),
    /// Put key, attached to the n-th granted lease (which may be gone) or to none.
    Put(usize, Option<usize>),
    Delete(usize),
    KeepAlive(usize),
    Revoke(usize),
    Advance(u64),
}

fn lease_step() -> impl Strategy<Value = LeaseStep> {
    prop_oneof![
        2 => prop_oneof![Just(500u64), Just(2_000), Just(3_000), Just(10_000)].prop_map(LeaseStep::Grant),
        4 => (0..KEYS.len(), prop::option::of(0usize..6)).prop_map(|(k, l)| LeaseStep::Put(k, l)),
        1 => (0..KEYS.len()).prop_map(LeaseStep::Delete),
        2 => (0usize..6).prop_map(LeaseStep::KeepAlive),
        1 => (0usize..6).prop_map(LeaseStep::Revoke),
        // Round steps, so deadlines are hit exactly as well as passed.
        3 => prop_oneof![Just(0u64), Just(500), Just(1_000), Just(2_000), Just(3_000), 0u64..4_000]
            .prop_map(LeaseStep::Advance),
    ]
}

fn run_leases(steps: Vec<LeaseStep>) -> Result<(), TestCaseError> {
    let mut store: Store<u32> = Store::new();
    let mut model = LeaseModel {
        revision: 1,
        ..LeaseModel::default()
    };
    let nth =
        |model: &LeaseModel, n: usize| model.granted.get(n).copied().unwrap_or(1_000 + n as i64);
    for step in steps {
        match step {
            LeaseStep::Grant(ttl) => {
                let id = store.lease_grant(ttl, Timestamp::from_millis(model.now));
                prop_assert!(!model.granted.contains(&id), "lease ids are unique");
                let ttl = ttl.max(MIN_LEASE_TTL_MS);
                model
                    .leases
                    .insert(id, (ttl, model.now + ttl, BTreeSet::new()));
                model.granted.push(id);
            }
            LeaseStep::Put(k, lease) => {
                let lease = lease.map(|n| nth(&model, n));
                let got = store.put(KEYS[k], 0, lease);
                match lease.filter(|id| !model.leases.contains_key(id)) {
                    Some(gone) => prop_assert_eq!(got, Err(StoreError::LeaseNotFound(gone))),
                    None => {
                        model.detach(KEYS[k]);
                        if let Some(id) = lease {
                            if let Some((_, _, keys)) = model.leases.get_mut(&id) {
                                keys.insert(KEYS[k].to_string());
                            }
                        }
                        model.keys.insert(KEYS[k].to_string(), lease);
                        model.revision += 1;
                        prop_assert_eq!(got, Ok(model.revision));
                    }
                }
            }
            LeaseStep::Delete(k) => {
                let got = store.delete(KEYS[k]);
                model.detach(KEYS[k]);
                let expected = model.keys.remove(KEYS[k]).map(|_| {
                    model.revision += 1;
                    model.revision
                });
                prop_assert_eq!(got, expected);
            }
            LeaseStep::KeepAlive(n) => {
                let id = nth(&model, n);
                let got = store.lease_keep_alive(id, Timestamp::from_millis(model.now));
                let now = model.now;
                match model.leases.get_mut(&id) {
                    Some((ttl, deadline, _)) if *deadline > now => {
                        *deadline = now + *ttl;
                        prop_assert_eq!(got, Ok(()));
                    }
                    _ => prop_assert_eq!(got, Err(StoreError::LeaseNotFound(id))),
                }
            }
            LeaseStep::Revoke(n) => {
                let id = nth(&model, n);
                let got = store.lease_revoke(id);
                let known = model.leases.contains_key(&id);
                let expected = model.revoke(id);
                if known {
                    prop_assert_eq!(got, Ok(expected));
                } else {
                    prop_assert_eq!(got, Err(StoreError::LeaseNotFound(id)));
                }
            }
            LeaseStep::Advance(ms) => {
                model.now += ms;
                let now = model.now;
                let due: Vec<LeaseId> = model
                    .leases
                    .iter()
                    .filter(|(_, (_, deadline, _))| *deadline <= now)
                    .map(|(id, _)| *id)
                    .collect();
                let before = store.revision();
                let got = store.expire_leases(Timestamp::from_millis(now));
                let mut revoked_revisions = Vec::new();
                for id in &due {
                    revoked_revisions.extend(model.revoke(*id));
                }
                prop_assert_eq!(got, due);
                // Each revoke with keys is exactly one revision of deletes, in id order.
                let store_revisions: Vec<Revision> = (before + 1..=store.revision()).collect();
                prop_assert_eq!(store_revisions, revoked_revisions);
            }
        }
        prop_assert_eq!(store.revision(), model.revision);
        let live: BTreeMap<String, Option<LeaseId>> = store
            .range_prefix("", None, None, None)?
            .kvs
            .iter()
            .map(|kv| (kv.key.to_string(), kv.attached_lease()))
            .collect();
        prop_assert_eq!(&live, &model.keys);
        for (id, (ttl, deadline, keys)) in &model.leases {
            let lease = store.lease(*id);
            prop_assert_eq!(
                lease.map(|l| (l.ttl_ms, l.deadline)),
                Some((*ttl, Timestamp::from_millis(*deadline)))
            );
            let attached: BTreeSet<String> = lease
                .map(|l| l.keys.iter().map(|k| k.to_string()).collect())
                .unwrap_or_default();
            prop_assert_eq!(&attached, keys);
        }
        let next = model
            .leases
            .values()
            .map(|(_, deadline, _)| Timestamp::from_millis(*deadline))
            .min();
        prop_assert_eq!(store.next_lease_expiry(), next);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn leases_match_a_lease_model(steps in prop::collection::vec(lease_step(), 1..40)) {
        run_leases(steps)?;
    }
}
