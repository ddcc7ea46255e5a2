//! etcd's snapshot (`etcdctl snapshot save`) and its restore (`etcdutl snapshot restore`): the
//! live keys at one revision, with their own create and mod revisions and versions, and the
//! leases. A restored store holds exactly those keys; its revision is the snapshot's plus
//! `--bump-revision`, and with `--mark-compacted` everything before it counts as compacted —
//! what Kubernetes needs, so that every client's watch from an older resourceVersion gets 410
//! and lists again instead of waiting on revisions that will now never come.

use std::sync::Arc;

use super::kv::{Event, EventType, KeyValue};
use super::lease::LeaseId;
use super::quota::{self, Encoded};
use super::revision::Revision;
use super::{Store, StoreError};
use crate::clock::Timestamp;
use watchlab_apimachinery::sort;

/// What a snapshot file holds.
#[derive(Debug, Clone)]
pub struct Snapshot<V> {
    /// The revision it was taken at.
    pub revision: Revision,
    /// Every live key at that revision, in key order.
    pub kvs: Vec<KeyValue<V>>,
    /// Every live lease and its granted TTL.
    pub leases: Vec<(LeaseId, u64)>,
}

impl<V: Clone + Encoded> Store<V> {
    /// The live keys at `at` (the member's applied revision) and the leases now.
    pub fn snapshot(&self, at: Revision) -> Result<Snapshot<V>, StoreError> {
        let kvs = self.range_prefix("", None, Some(at), None)?.kvs;
        let leases = self
            .lessor
            .ids()
            .filter_map(|id| self.lessor.get(id).map(|l| (id, l.ttl_ms)))
            .collect();
        Ok(Snapshot {
            revision: at,
            kvs,
            leases,
        })
    }

    /// A store restored from `snapshot`: its keys keep their revisions and versions, leases
    /// start their TTLs again at `now` (as etcd's lessor does when it recovers), the store's
    /// revision is the snapshot's plus `bump`, and with `mark_compacted` every revision up to
    /// it counts as compacted. The space quota is `quota_bytes`.
    pub fn restored(
        snapshot: &Snapshot<V>,
        bump: Revision,
        mark_compacted: bool,
        now: Timestamp,
        quota_bytes: u64,
    ) -> Self {
        let mut s = Store::new();
        s.set_quota_bytes(quota_bytes);
        for &(id, ttl_ms) in &snapshot.leases {
            s.lessor.restore(id, ttl_ms, now);
        }
        let mut kvs: Vec<&KeyValue<V>> = snapshot.kvs.iter().collect();
        sort::sort_by(&mut kvs, |a, b| {
            (a.mod_revision, &a.key).cmp(&(b.mod_revision, &b.key))
        });
        for kv in kvs {
            let cost = quota::put_cost(&kv.key, &kv.value).unwrap_or(0);
            let (key, index) = s.index.entry(&kv.key);
            let rev = s.history.next_rev(kv.mod_revision);
            index.record(rev, false);
            if let Some(lease) = kv.attached_lease() {
                s.lessor.attach(lease, &key);
            }
            s.live += 1;
            let kv = KeyValue {
                key: Arc::clone(&key),
                ..kv.clone()
            };
            s.history.push(Event::new(EventType::Put, kv, None, cost));
        }
        s.revision = snapshot.revision.max(s.revision) + bump;
        if mark_compacted {
            // Compacting to the current revision only folds history into each key's state.
            let _ = s.compact(s.revision);
        }
        s
    }
}
