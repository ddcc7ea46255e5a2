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

use super::{errors, ApiServer};
use crate::clock::Timestamp;
use crate::etcd::{self, EtcdCluster, MembershipEvent};
use std::sync::Arc;

use crate::api::Object;
use crate::store::{Op, Revision, StoreError};
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
        self.membership_events.extend(events);
        Ok(())
    }

    /// The membership changes since the last call, with when they happened.
    pub fn take_membership_events(&mut self) -> Vec<(Timestamp, MembershipEvent)> {
        let late = self.etcd.take_events();
        self.membership_events.extend(late);
        std::mem::take(&mut self.membership_events)
    }

    /// Runs the members' clock to the server's time.
    pub(super) fn advance_etcd(&mut self) {
        let (now, rev) = (self.now, self.store.revision());
        let events = self.etcd.advance_to(now, rev);
        self.membership_events.extend(events);
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

    /// Under etcd's NOSPACE alarm a write that puts is refused before it is proposed (deletes,
    /// reads and compactions go on), however much room compaction has freed since.
    pub(super) fn check_space_alarm(&self, ops: &[Op<Arc<Object>>]) -> Result<(), StoreError> {
        let puts = ops.iter().any(|op| matches!(op, Op::Put { .. }));
        if puts && self.etcd.has_alarm() {
            Err(StoreError::NoSpace)
        } else {
            Ok(())
        }
    }

    /// A put the space quota refused raises the NOSPACE alarm.
    pub(super) fn note_space_refusal(&mut self, error: &StoreError) {
        if *error == StoreError::NoSpace {
            self.etcd.raise_nospace();
        }
    }
}
