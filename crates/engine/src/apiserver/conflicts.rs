//! The writes the API server refused with 409 Conflict because their resourceVersion was not
//! the stored one: the optimistic concurrency that fences a stale writer. Kept (the last
//! [`CONFLICT_LIMIT`], and a running count) so the highly available control plane's story can
//! be told — a paused leader that comes back still believing it leads has its writes with a
//! precondition refused here, while those without one land in the ledger.

use std::sync::Arc;

use crate::clock::Timestamp;

/// Refusals kept for reading back.
pub const CONFLICT_LIMIT: usize = 256;

/// One refused write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub time: Timestamp,
    /// The user agent that wrote (`kube-controller-manager`, `replicaset-controller`).
    pub user: Arc<str>,
    /// `update`, `delete`, `patch`...
    pub verb: &'static str,
    /// The object's storage key (`/registry/leases/kube-system/kube-controller-manager`).
    pub key: String,
}

/// The refusals so far: their count and the last [`CONFLICT_LIMIT`].
pub type Conflicts = super::record::Record<Conflict, CONFLICT_LIMIT>;

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(n: u64) -> Conflict {
        Conflict {
            time: Timestamp::from_millis(n),
            user: Arc::from("kubectl"),
            verb: "update",
            key: format!("/registry/pods/default/p{n}"),
        }
    }

    #[test]
    fn counts_every_refusal_and_keeps_the_last_ones() {
        let mut c = Conflicts::default();
        for n in 0..(CONFLICT_LIMIT as u64 + 10) {
            c.push(conflict(n));
        }
        assert_eq!(c.total(), CONFLICT_LIMIT as u64 + 10);
        let since: Vec<u64> = c.since(c.total() - 2).map(|x| x.time.as_millis()).collect();
        assert_eq!(
            since,
            [CONFLICT_LIMIT as u64 + 8, CONFLICT_LIMIT as u64 + 9]
        );
        // Older than what is kept: what is kept.
        assert_eq!(c.since(0).count(), CONFLICT_LIMIT);
        assert_eq!(c.since(c.total()).count(), 0);
    }
}
