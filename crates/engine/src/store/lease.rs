//! Leases (etcd's `lessor`): a TTL that keys can be attached to. When a lease is revoked, by
//! hand or because it was not kept alive before its deadline, every attached key is deleted.
//! Kubernetes uses them for objects that must vanish on their own (Events, `--event-ttl`).
//! Time is the caller's virtual clock; this module only keeps deadlines and attachments, and
//! [`super::Store`] turns a revoke into deletes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::clock::Timestamp;

/// etcd's lease ID (an `int64`; 0 means "no lease" there, so IDs start at 1).
pub type LeaseId = i64;

/// Shortest TTL granted: etcd's `minTTL`, 1.5 × the default election timeout (1 s) rounded up to
/// whole seconds = 2 s. Shorter requests are raised to it, as etcd's `lessor.Grant` does.
pub const MIN_LEASE_TTL_MS: u64 = 2_000;

/// Longest TTL granted: etcd's `MaxLeaseTTL` (9,000,000,000 s); longer requests are capped.
pub const MAX_LEASE_TTL_MS: u64 = 9_000_000_000_000;

/// One granted lease.
#[derive(Debug, Clone)]
pub struct Lease {
    pub ttl_ms: u64,
    pub deadline: Timestamp,
    /// Keys attached to the lease, deleted with it.
    pub keys: BTreeSet<Arc<str>>,
}

/// Every live lease and its expiry order.
#[derive(Debug, Clone)]
pub struct Lessor {
    next_id: LeaseId,
    leases: BTreeMap<LeaseId, Lease>,
    /// (deadline, id) of every lease, earliest first.
    expiry: BTreeSet<(Timestamp, LeaseId)>,
}

impl Default for Lessor {
    fn default() -> Self {
        Lessor {
            next_id: 1,
            leases: BTreeMap::new(),
            expiry: BTreeSet::new(),
        }
    }
}

impl Lessor {
    /// Grants a lease of `ttl_ms` (clamped to etcd's bounds) expiring `ttl` after `now`.
    pub fn grant(&mut self, ttl_ms: u64, now: Timestamp) -> LeaseId {
        let id = self.next_id;
        self.restore(id, ttl_ms.clamp(MIN_LEASE_TTL_MS, MAX_LEASE_TTL_MS), now);
        id
    }

    /// A lease under `id` (one from a snapshot keeps its own), its TTL starting at `now`; later
    /// grants take higher ids.
    pub fn restore(&mut self, id: LeaseId, ttl_ms: u64, now: Timestamp) {
        let deadline = now.plus_millis(ttl_ms);
        self.expiry.insert((deadline, id));
        self.leases.insert(
            id,
            Lease {
                ttl_ms,
                deadline,
                keys: BTreeSet::new(),
            },
        );
        self.next_id = self.next_id.max(id.saturating_add(1));
    }

    pub fn get(&self, id: LeaseId) -> Option<&Lease> {
        self.leases.get(&id)
    }

    /// Every live lease's id, ascending.
    pub fn ids(&self) -> impl Iterator<Item = LeaseId> + '_ {
        self.leases.keys().copied()
    }

    /// Whether `id` names a live lease.
    pub fn contains(&self, id: LeaseId) -> bool {
        self.leases.contains_key(&id)
    }

    /// Restarts the lease's TTL from `now`. False if unknown or already past its deadline (etcd
    /// answers "lease not found" to a keep-alive of an expired lease).
    #[must_use]
    pub fn renew(&mut self, id: LeaseId, now: Timestamp) -> bool {
        let Some(lease) = self.leases.get_mut(&id) else {
            return false;
        };
        if lease.deadline <= now {
            return false;
        }
        self.expiry.remove(&(lease.deadline, id));
        lease.deadline = now.plus_millis(lease.ttl_ms);
        self.expiry.insert((lease.deadline, id));
        true
    }

    /// Removes the lease, returning it with its attached keys.
    pub fn remove(&mut self, id: LeaseId) -> Option<Lease> {
        let lease = self.leases.remove(&id)?;
        self.expiry.remove(&(lease.deadline, id));
        Some(lease)
    }

    /// Ids of every lease whose deadline is <= `now`, ascending.
    #[must_use]
    pub fn expired(&self, now: Timestamp) -> Vec<LeaseId> {
        let mut ids: Vec<LeaseId> = self
            .expiry
            .iter()
            .take_while(|(deadline, _)| *deadline <= now)
            .map(|(_, id)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The earliest deadline of any lease.
    pub fn next_expiry(&self) -> Option<Timestamp> {
        self.expiry.first().map(|(deadline, _)| *deadline)
    }

    /// Attaches `key` to lease `id` (no-op if the lease is gone).
    pub fn attach(&mut self, id: LeaseId, key: &Arc<str>) {
        if let Some(lease) = self.leases.get_mut(&id) {
            lease.keys.insert(Arc::clone(key));
        }
    }

    /// Detaches `key` from lease `id` (no-op if either is gone).
    pub fn detach(&mut self, id: LeaseId, key: &str) {
        if let Some(lease) = self.leases.get_mut(&id) {
            lease.keys.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sequential_and_ttls_clamped_to_etcds_bounds() {
        let mut lessor = Lessor::default();
        let short = lessor.grant(10, Timestamp::from_millis(0));
        let long = lessor.grant(u64::MAX, Timestamp::from_millis(0));
        let normal = lessor.grant(60_000, Timestamp::from_millis(500));
        assert_eq!((short, long, normal), (1, 2, 3));
        assert_eq!(lessor.get(short).map(|l| l.ttl_ms), Some(MIN_LEASE_TTL_MS));
        assert_eq!(lessor.get(long).map(|l| l.ttl_ms), Some(MAX_LEASE_TTL_MS));
        assert_eq!(
            lessor.get(normal).map(|l| l.deadline),
            Some(Timestamp::from_millis(60_500))
        );
        assert_eq!(
            lessor.next_expiry(),
            Some(Timestamp::from_millis(MIN_LEASE_TTL_MS))
        );
    }

    #[test]
    fn renew_moves_the_deadline_unless_already_expired() {
        let mut lessor = Lessor::default();
        let id = lessor.grant(10_000, Timestamp::from_millis(0));
        assert!(lessor.renew(id, Timestamp::from_millis(9_999)));
        assert_eq!(lessor.next_expiry(), Some(Timestamp::from_millis(19_999)));
        assert!(lessor.expired(Timestamp::from_millis(19_998)).is_empty());
        assert_eq!(lessor.expired(Timestamp::from_millis(19_999)), [id]);
        assert!(
            !lessor.renew(id, Timestamp::from_millis(19_999)),
            "expired lease"
        );
        assert!(
            !lessor.renew(99, Timestamp::from_millis(0)),
            "unknown lease"
        );
    }

    #[test]
    fn expired_lists_ids_ascending_and_remove_forgets_the_lease() {
        let mut lessor = Lessor::default();
        let late = lessor.grant(5_000, Timestamp::from_millis(0));
        let early = lessor.grant(3_000, Timestamp::from_millis(0));
        assert_eq!(lessor.expired(Timestamp::from_millis(5_000)), [late, early]);
        let key: Arc<str> = Arc::from("/registry/events/default/e1");
        lessor.attach(early, &key);
        let removed = lessor.remove(early).map(|l| l.keys.len());
        assert_eq!(removed, Some(1));
        assert!(!lessor.contains(early));
        assert_eq!(lessor.expired(Timestamp::from_millis(5_000)), [late]);
        assert!(lessor.remove(early).is_none());
    }

    #[test]
    fn attach_and_detach_track_keys() {
        let mut lessor = Lessor::default();
        let id = lessor.grant(5_000, Timestamp::from_millis(0));
        let key: Arc<str> = Arc::from("/k");
        lessor.attach(id, &key);
        lessor.attach(77, &key);
        assert_eq!(lessor.get(id).map(|l| l.keys.len()), Some(1));
        lessor.detach(id, "/k");
        assert_eq!(lessor.get(id).map(|l| l.keys.len()), Some(0));
    }
}
