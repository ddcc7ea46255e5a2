//! The etcd API beside the API server: what an etcd client such as etcdctl asks of one member.
//! A range is linearizable (through the member's leader, confirmed by a majority) or
//! serializable (from what the member applied, however stale); a watch is served from the
//! member's own applied history, so a member cut off from the others goes quiet, and one
//! without a leader for three election timeouts cancels it (etcd's `monitorLeader`, for the
//! `WithRequireLeader` watches etcdctl and the API server open); a compaction is a write,
//! proposed through the log.
//!
//! One file per part of etcd's API: reads here (range, status), [`watch`], [`writes`] (put,
//! delete, compaction), [`txn`], [`leases`], [`maintenance`] (snapshot and restore, alarms,
//! defragmentation).

mod leases;
mod maintenance;
mod txn;
mod watch;
mod writes;

pub use leases::EtcdLease;
pub use maintenance::alarm_text;
pub use txn::{
    EtcdCompare, EtcdCompareOp, EtcdCompareTarget, EtcdOpAnswer, EtcdRequestOp, EtcdTxnAnswer,
};
pub use watch::{EtcdWatch, EtcdWatchAnswer, EtcdWatchEvent};
pub use writes::{EtcdWritten, ETCDCTL_WRITER};

use std::sync::Arc;

use super::ApiServer;
use crate::api::Object;
use crate::store::{KeyValue, Revision, StoreError};

/// The keys a request names, etcd's way: the key alone (`range_end` `None`), every key from
/// `key` on (`"\0"`), or `[key, range_end)`.
pub(super) struct KeyRange<'a> {
    key: &'a str,
    range_end: Option<&'a str>,
}

impl KeyRange<'_> {
    /// What every key in the range starts with: the store walks those keys (a prefix's range
    /// shares the prefix but its last byte).
    fn shared_prefix(&self) -> &str {
        match self.range_end {
            None => self.key,
            Some("\0") => "",
            Some(end) => {
                let shared = self
                    .key
                    .char_indices()
                    .zip(end.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(self.key.len().min(end.len()), |((i, _), _)| i);
                &self.key[..shared]
            }
        }
    }

    fn contains(&self, k: &str) -> bool {
        match self.range_end {
            None => k == self.key,
            Some("\0") => k >= self.key,
            Some(end) => k >= self.key && k < end,
        }
    }
}

/// A store error as etcd's server answers it (`etcdserver: mvcc: ...`).
pub(super) fn etcdserver_text(e: &StoreError) -> String {
    format!(
        "etcdserver: {}",
        e.to_string().trim_start_matches("etcdserver: ")
    )
}

/// What `etcdctl get` asks of one member (etcd's RangeRequest).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EtcdRange {
    pub key: String,
    /// `None`: the key alone; `"\0"`: every key from `key` on; else `[key, range_end)`.
    pub range_end: Option<String>,
    pub limit: usize,
    /// 0: the revision the read is served at (the store's, or the member's applied one).
    pub revision: Revision,
    pub serializable: bool,
}

/// A member's answer to an [`EtcdRange`].
#[derive(Debug, Clone)]
pub struct EtcdRangeAnswer {
    pub kvs: Vec<KeyValue<Arc<Object>>>,
    pub more: bool,
    pub count: usize,
    /// The header's revision: what the member has applied.
    pub revision: Revision,
    pub member_id: u64,
    pub raft_term: u64,
}

/// One member's `Status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdStatus {
    pub member_id: u64,
    /// The member it believes leads (0: none).
    pub leader: u64,
    pub raft_term: u64,
    pub raft_index: u64,
    pub raft_applied_index: u64,
    /// The store revision its applied entries reached.
    pub revision: Revision,
    pub db_size: u64,
    /// The active alarms, as etcd's status lists them.
    pub errors: Vec<String>,
}

impl ApiServer {
    /// A range read asked of member `member` (an etcd client's, such as etcdctl's): a
    /// linearizable one needs the member's leader to confirm through a majority; a
    /// serializable one is answered from what the member has applied, however stale.
    pub fn etcd_range(&self, member: &str, req: &EtcdRange) -> Result<EtcdRangeAnswer, String> {
        let m = self.reachable_member(member)?;
        let served_at = if req.serializable {
            m.applied_revision
        } else {
            self.etcd
                .can_read_via(member)
                .map_err(|_| crate::etcd::DEADLINE_EXCEEDED.to_string())?;
            self.store.revision()
        };
        if req.revision > served_at {
            return Err("etcdserver: mvcc: required revision is a future revision".into());
        }
        let at = if req.revision == 0 {
            served_at
        } else {
            req.revision
        };
        let matching = self.keys_in(&req.key, req.range_end.as_deref(), Some(at))?;
        let count = matching.len();
        let limit = if req.limit == 0 {
            usize::MAX
        } else {
            req.limit
        };
        let kvs: Vec<_> = matching.into_iter().take(limit).collect();
        Ok(EtcdRangeAnswer {
            more: count > kvs.len(),
            kvs,
            count,
            revision: served_at,
            member_id: m.id,
            raft_term: m.term,
        })
    }

    /// A write asked of `member` commits only through a leader that reaches a majority;
    /// etcdctl gives up first (its 5 s command timeout, before the server's 7 s).
    fn check_etcd_write(&self, member: &str) -> Result<(), String> {
        self.reachable_member(member)?;
        self.etcd
            .can_read_via(member)
            .map_err(|_| crate::etcd::DEADLINE_EXCEEDED.to_string())
    }

    /// Every live key of `[key, range_end)` (etcd's range forms, as [`KeyRange`]) at `at`
    /// (`None`: now), in key order.
    fn keys_in(
        &self,
        key: &str,
        range_end: Option<&str>,
        at: Option<Revision>,
    ) -> Result<Vec<KeyValue<Arc<Object>>>, String> {
        let keys = KeyRange { key, range_end };
        Ok(self
            .store
            .range_prefix(keys.shared_prefix(), None, at, None)
            .map_err(|e| etcdserver_text(&e))?
            .kvs
            .into_iter()
            .filter(|kv| keys.contains(&kv.key))
            .collect())
    }

    /// The member a client asks, if it is up (a member that is down does not answer: the
    /// client's deadline runs out).
    fn reachable_member(&self, name: &str) -> Result<&crate::etcd::Member, String> {
        self.etcd
            .members()
            .iter()
            .find(|m| m.name == name)
            .filter(|m| m.is_alive())
            .ok_or_else(|| crate::etcd::DEADLINE_EXCEEDED.to_string())
    }

    /// Member `member`'s `Status` (an error when it is down: the client cannot reach it).
    pub fn etcd_status(&self, member: &str) -> Result<EtcdStatus, String> {
        let m = self.reachable_member(member)?;
        Ok(EtcdStatus {
            member_id: m.id,
            leader: self.etcd.leader_seen_by(member).unwrap_or(0),
            raft_term: m.term,
            raft_index: m.last_index,
            raft_applied_index: m.commit,
            revision: m.applied_revision,
            db_size: self.store.bytes_in_use(),
            errors: self
                .etcd
                .alarms()
                .into_iter()
                .map(|(id, alarm)| alarm_text(id, alarm))
                .collect(),
        })
    }
}
