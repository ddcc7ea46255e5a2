//! The apiserver's etcd lease manager (`storage/etcd3/lease_manager.go`): an object written with
//! a TTL (an Event, `--event-ttl`) is attached to a lease, and granting one lease per write
//! would cost etcd a lease per Event. So the apiserver reuses its previous lease while that
//! lease would still outlive the new object's TTL by less than the reuse window, for at most
//! 1,000 objects; a new lease is granted with the window added to its TTL. An Event therefore
//! lives between `--event-ttl` and `--event-ttl` + 60 s, as it does on a real cluster, and a
//! cluster writing 600,000 Events holds hundreds of leases, not 600,000.

use crate::clock::Timestamp;
use crate::store::{LeaseId, Store};

/// `--lease-reuse-duration-seconds` default (`defaultLeaseReuseDurationSeconds`): 60 s.
pub const DEFAULT_LEASE_REUSE_DURATION_MS: u64 = 60_000;
/// The reuse window is also at most this share of the TTL (`leaseReuseDurationPercent`, 0.05).
const LEASE_REUSE_DURATION_PERCENT: u64 = 5;
/// `defaultLeaseMaxObjectCount`: objects attached to one lease before a new one is granted.
pub const DEFAULT_LEASE_MAX_OBJECT_COUNT: u64 = 1_000;

/// The previous lease and how many objects have asked for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeaseManager {
    previous: Option<(LeaseId, Timestamp)>,
    attached: u64,
}

impl LeaseManager {
    /// A lease for one object that must live `ttl_ms`: the previous one if it still fits (alive
    /// past `now + ttl_ms`, but by no more than the reuse window, and under the object count),
    /// else a new lease of `ttl_ms` plus the window.
    pub fn lease<V: Clone + crate::store::Encoded>(
        &mut self,
        store: &mut Store<V>,
        ttl_ms: u64,
        now: Timestamp,
    ) -> LeaseId {
        let reuse_ms =
            (ttl_ms / 100 * LEASE_REUSE_DURATION_PERCENT).min(DEFAULT_LEASE_REUSE_DURATION_MS);
        self.attached = self.attached.saturating_add(1);
        if let Some((id, expires)) = self.previous {
            let needed = now.plus_millis(ttl_ms);
            let valid = needed < expires;
            // `>=` where the real one has `>`: its clock always moved since the grant, the
            // virtual one writes many objects in one millisecond.
            let sufficient = needed.plus_millis(reuse_ms) >= expires;
            // Unlike the real one, also checks the lease is still there (an `etcdctl lease
            // revoke` from the console would otherwise fail every Event write until it is
            // replaced).
            if valid
                && sufficient
                && self.attached <= DEFAULT_LEASE_MAX_OBJECT_COUNT
                && store.lease(id).is_some()
            {
                return id;
            }
        }
        let granted = ttl_ms.saturating_add(reuse_ms);
        let id = store.lease_grant(granted, now);
        self.previous = Some((id, now.plus_millis(granted)));
        self.attached = 1;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: u64 = 3_600_000;

    #[test]
    fn reuses_the_previous_lease_within_the_window_and_the_object_count() {
        let mut store: Store<u32> = Store::new();
        let mut m = LeaseManager::default();
        let first = m.lease(&mut store, HOUR, Timestamp::from_millis(0));
        // Granted for the TTL plus the window: 1 h + 60 s.
        assert_eq!(store.lease(first).map(|l| l.ttl_ms), Some(HOUR + 60_000));
        assert_eq!(m.lease(&mut store, HOUR, Timestamp::from_millis(0)), first);
        assert_eq!(
            m.lease(&mut store, HOUR, Timestamp::from_millis(59_999)),
            first
        );
        // 60 s later the lease would not outlive a new object's hour.
        let second = m.lease(&mut store, HOUR, Timestamp::from_millis(60_000));
        assert_ne!(second, first);
        // The 1,001st object on one lease gets a new one.
        for _ in 1..1_000 {
            assert_eq!(
                m.lease(&mut store, HOUR, Timestamp::from_millis(60_000)),
                second
            );
        }
        assert_ne!(
            m.lease(&mut store, HOUR, Timestamp::from_millis(60_000)),
            second
        );
    }

    #[test]
    fn the_window_is_at_most_five_percent_of_a_short_ttl() {
        let mut store: Store<u32> = Store::new();
        let mut m = LeaseManager::default();
        let id = m.lease(&mut store, 100_000, Timestamp::from_millis(0));
        assert_eq!(store.lease(id).map(|l| l.ttl_ms), Some(105_000));
        assert_eq!(
            m.lease(&mut store, 100_000, Timestamp::from_millis(4_999)),
            id
        );
        assert_ne!(
            m.lease(&mut store, 100_000, Timestamp::from_millis(5_000)),
            id
        );
    }

    #[test]
    fn a_revoked_lease_is_not_reused() {
        let mut store: Store<u32> = Store::new();
        let mut m = LeaseManager::default();
        let id = m.lease(&mut store, HOUR, Timestamp::from_millis(0));
        assert!(store.lease_revoke(id).is_ok());
        assert_ne!(m.lease(&mut store, HOUR, Timestamp::from_millis(1)), id);
    }
}
