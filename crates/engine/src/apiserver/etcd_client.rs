//! The API server's side of etcd: every write is proposed to the members and applied to the
//! store only once a majority has it in their logs; every read kube-apiserver v1.32 sends to
//! etcd is a linearizable one, which fails when the members cannot confirm a leader through a
//! majority. The faults a trainer causes (kill, isolate, partition, heal, move the leader) reach
//! the members through here, and what they do to the membership is kept for the timeline.
//!
//! Which reads reach etcd follows kube-apiserver v1.32 (`storage/cacher/cacher.go`, with
//! `ConsistentListFromCache` on by default since v1.31): a GET without a resourceVersion goes
//! to etcd; a LIST without one is served from the watch cache only after a linearizable read of
//! etcd's current revision; a LIST with a limit and a resourceVersion, with
//! `resourceVersionMatch=Exact`, or with a continue token reads etcd at that revision. A LIST
//! with resourceVersion "0", or one not older than a revision without a limit, is the cache's
//! alone: it keeps answering while etcd has no majority (stale, as the real one is). This
//! server has no watch cache yet, so those reads come from the store at its revision, and
//! watches keep running; the real cacher's etcd watch (opened `WithRequireLeader`) is cancelled
//! when its member loses the leader, and the cache stops moving until it can list again.

use std::sync::Arc;

use super::{errors, ApiServer};
use crate::api::Object;
use crate::clock::Timestamp;
use crate::etcd::{self, EtcdCluster, MembershipEvent};
use crate::store::{KeyValue, Revision};
use watchlab_apimachinery::status::Status;

/// A fault or operation on the etcd members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EtcdFault {
    Kill(String),
    Restore(String),
    /// Cut every link of a member.
    Isolate(String),
    /// Cut the links between these members and the others.
    Partition(Vec<String>),
    /// Restore every link of one member (`Some`) or of all.
    Heal(Option<String>),
    /// Hand the leadership to a member (`etcdctl move-leader`).
    MoveLeader(String),
}

impl ApiServer {
    /// The etcd members.
    pub fn etcd(&self) -> &EtcdCluster {
        &self.etcd
    }

    /// Whether a write would commit now (a leader reaching a majority).
    pub fn store_writable(&self) -> bool {
        self.etcd.can_commit()
    }

    /// Applies a fault to the members at the current time.
    pub fn etcd_fault(&mut self, fault: &EtcdFault) -> Result<(), etcd::Error> {
        let (now, rev) = (self.now, self.store.revision());
        let e = &mut self.etcd;
        let events = match fault {
            EtcdFault::Kill(m) => e.kill(m, now, rev)?,
            EtcdFault::Restore(m) => e.restore(m, now, rev)?,
            EtcdFault::Isolate(m) => e.isolate(m, now, rev)?,
            EtcdFault::Partition(group) => e.partition(group, now, rev)?,
            EtcdFault::Heal(m) => e.heal(m.as_deref(), now, rev)?,
            EtcdFault::MoveLeader(m) => {
                e.move_leader(m, now, rev)?;
                e.take_events()
            }
        };
        self.note_membership(now, events);
        Ok(())
    }

    /// The membership changes since the last call, with when they happened.
    pub fn take_membership_events(&mut self) -> Vec<(Timestamp, MembershipEvent)> {
        let now = self.now;
        let late = self.etcd.take_events();
        self.note_membership(now, late);
        std::mem::take(&mut self.membership_events)
    }

    fn note_membership(&mut self, at: Timestamp, events: Vec<MembershipEvent>) {
        self.membership_events
            .extend(events.into_iter().map(|e| (at, e)));
    }

    /// Runs the members' clock to the server's time.
    pub(super) fn advance_etcd(&mut self) {
        let (now, rev) = (self.now, self.store.revision());
        let events = self.etcd.advance_to(now, rev);
        self.note_membership(now, events);
    }

    /// Fails fast when no member the client can reach has a leader (the request would wait
    /// for one until it timed out).
    pub(super) fn check_writable(&self) -> Result<(), Status> {
        match self.etcd.client_member() {
            Some(_) => Ok(()),
            None => Err(errors::etcd_unavailable()),
        }
    }

    /// Proposes a write; on `Ok` the caller applies it to the store and calls
    /// [`ApiServer::applied`].
    pub(super) fn replicate(
        &mut self,
        what: impl FnOnce() -> String,
    ) -> Result<etcd::Committed, etcd::RequestError> {
        let rev = self.store.revision();
        self.etcd.propose(rev, what)
    }

    pub(super) fn applied(&mut self, committed: etcd::Committed) {
        let rev = self.store.revision();
        self.etcd.applied(committed, rev);
    }

    /// A linearizable read's check: answered only while a leader confirms through a majority.
    pub(super) fn check_consistent_read(&self) -> Result<(), Status> {
        self.etcd.can_read().map_err(|_| errors::etcd_unavailable())
    }

    /// The store revision a member has applied: what a serializable read there sees.
    pub fn etcd_applied_revision(&self, member: &str) -> Result<Revision, etcd::Error> {
        self.etcd.applied_revision(member)
    }
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
        // The keys to walk: the key's own (one key), every key (from a key on), or those under
        // what the two ends of a range share (a prefix's range shares the prefix but its last
        // byte).
        let prefix = match req.range_end.as_deref() {
            None => req.key.as_str(),
            Some("\0") => "",
            Some(end) => {
                let shared = req
                    .key
                    .char_indices()
                    .zip(end.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(req.key.len().min(end.len()), |((i, _), _)| i);
                &req.key[..shared]
            }
        };
        let resp = self
            .store
            .range_prefix(prefix, None, Some(at), None)
            .map_err(|e| {
                format!(
                    "etcdserver: {}",
                    e.to_string().trim_start_matches("etcdserver: ")
                )
            })?;
        let within = |k: &str| match req.range_end.as_deref() {
            None => k == req.key,
            Some("\0") => k >= req.key.as_str(),
            Some(end) => k >= req.key.as_str() && k < end,
        };
        let matching: Vec<KeyValue<Arc<Object>>> =
            resp.kvs.into_iter().filter(|kv| within(&kv.key)).collect();
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
        })
    }
}
