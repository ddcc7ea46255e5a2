//! etcd's leases asked of one member: grant and revoke through the log, keep-alive at the
//! leader, and what a lease has left.

use std::sync::Arc;

use super::{etcdserver_text, ETCDCTL_WRITER};
use crate::apiserver::ApiServer;
use crate::store::{LeaseId, StoreError};

/// A lease as `LeaseTimeToLive` answers it (TTLs in whole seconds, as etcd counts them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdLease {
    pub id: LeaseId,
    pub granted_ttl_secs: i64,
    /// Truncated, as etcd's `Remaining().Seconds()` is.
    pub remaining_secs: i64,
    pub keys: Vec<Arc<str>>,
}

impl ApiServer {
    /// `LeaseGrant` asked of member `member`: proposed through the log; the TTL is raised to
    /// etcd's minimum (2 s) as its lessor does. Returns the new lease's id.
    pub fn etcd_lease_grant(&mut self, member: &str, ttl_secs: i64) -> Result<LeaseId, String> {
        self.check_etcd_write(member)?;
        if self.etcd.has_alarm() {
            return Err(etcdserver_text(&StoreError::NoSpace));
        }
        let committed = self
            .replicate(|| format!("LeaseGrant {ttl_secs}s"))
            .map_err(|e| e.text().to_string())?;
        let ttl_ms = u64::try_from(ttl_secs.max(0))
            .unwrap_or(0)
            .saturating_mul(1000);
        let id = self.store.lease_grant(ttl_ms, self.now);
        self.applied(committed);
        Ok(id)
    }

    /// `LeaseRevoke`: the lease goes, and every key attached to it at one revision (the API
    /// server's watchers see them DELETED).
    pub fn etcd_lease_revoke(&mut self, member: &str, id: LeaseId) -> Result<(), String> {
        self.check_etcd_write(member)?;
        if self.store.lease(id).is_none() {
            return Err(etcdserver_text(&StoreError::LeaseNotFound(id)));
        }
        let committed = self
            .replicate(|| format!("LeaseRevoke {id:016x}"))
            .map_err(|e| e.text().to_string())?;
        let before = self.store.revision();
        let done = self.store.lease_revoke(id);
        self.applied(committed);
        done.map_err(|e| etcdserver_text(&e))?;
        self.publish_range(before, ETCDCTL_WRITER, "delete");
        Ok(())
    }

    /// `LeaseKeepAlive` (once): the leader restarts the lease's TTL (a renewal is the leader's
    /// alone, not a log entry). Returns the TTL in seconds.
    pub fn etcd_lease_keep_alive(&mut self, member: &str, id: LeaseId) -> Result<i64, String> {
        self.check_etcd_write(member)?;
        self.store
            .lease_keep_alive(id, self.now)
            .map_err(|e| etcdserver_text(&e))?;
        Ok(self.store.lease(id).map_or(0, |l| (l.ttl_ms / 1000) as i64))
    }

    /// `LeaseTimeToLive` (answered by the leader): `None` for a lease that is gone.
    pub fn etcd_lease(&self, member: &str, id: LeaseId) -> Result<Option<EtcdLease>, String> {
        self.check_etcd_write(member)?;
        Ok(self.store.lease(id).map(|l| EtcdLease {
            id,
            granted_ttl_secs: (l.ttl_ms / 1000) as i64,
            remaining_secs: (l.deadline.millis_since(self.now) / 1000) as i64,
            keys: l.keys.iter().cloned().collect(),
        }))
    }

    /// `LeaseLeases` (answered by the leader): every live lease's id.
    pub fn etcd_leases(&self, member: &str) -> Result<Vec<LeaseId>, String> {
        self.check_etcd_write(member)?;
        Ok(self.store.lease_ids().collect())
    }
}
