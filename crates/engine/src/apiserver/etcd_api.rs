//! The etcd API beside the API server: what an etcd client such as etcdctl asks of one member.
//! A range is linearizable (through the member's leader, confirmed by a majority) or
//! serializable (from what the member applied, however stale); a watch is served from the
//! member's own applied history, so a member cut off from the others goes quiet, and one
//! without a leader for three election timeouts cancels it (etcd's `monitorLeader`, for the
//! `WithRequireLeader` watches etcdctl and the API server open); a compaction is a write,
//! proposed through the log.

use std::sync::Arc;

use super::{errors, ApiServer};
use crate::api::managed_fields::ManagedFields;
use crate::api::Object;
use crate::etcd::{ELECTION_TIMEOUT_MS, NO_LEADER};
use crate::store::{EventType, KeyValue, LeaseId, Op, Revision, Snapshot, Store, StoreError, Txn};
use watchlab_apimachinery::status::Status;

/// The most events one poll of a watch hands out (whole revisions: the next poll goes on from
/// there), so a watch from an old revision of a big cluster catches up over several polls
/// rather than in one long pause of the page.
const WATCH_BATCH: usize = 1000;

/// etcd's `maxNoLeaderCnt` (`api/v3rpc/interceptor.go`): a member cancels its
/// leader-requiring streams after this many election timeouts without a leader.
const NO_LEADER_CHECKS: u64 = 3;

/// The keys a request names, etcd's way: the key alone (`range_end` `None`), every key from
/// `key` on (`"\0"`), or `[key, range_end)`.
struct KeyRange<'a> {
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
fn etcdserver_text(e: &StoreError) -> String {
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

/// An alarm as etcd prints it (protobuf's text form of an `AlarmMember`, trailing space
/// included).
pub fn alarm_text(member_id: u64, alarm: &str) -> String {
    format!("memberID:{member_id} alarm:{alarm} ")
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
        let keys = KeyRange {
            key: &req.key,
            range_end: req.range_end.as_deref(),
        };
        let resp = self
            .store
            .range_prefix(keys.shared_prefix(), None, Some(at), None)
            .map_err(|e| etcdserver_text(&e))?;
        let matching: Vec<KeyValue<Arc<Object>>> = resp
            .kvs
            .into_iter()
            .filter(|kv| keys.contains(&kv.key))
            .collect();
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
            errors: self
                .etcd
                .alarms()
                .into_iter()
                .map(|(id, alarm)| alarm_text(id, alarm))
                .collect(),
        })
    }
}

/// What `etcdctl watch` asks of one member (etcd's WatchCreateRequest), polled: each poll
/// asks for what the member has applied since the last.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EtcdWatch {
    pub key: String,
    /// As [`EtcdRange::range_end`].
    pub range_end: Option<String>,
    /// The first revision wanted; 0: the next one the member applies.
    pub start_revision: Revision,
    pub prev_kv: bool,
    /// The request that opens the watch (a member without a leader refuses it at once; an
    /// open watch is cancelled only after [`NO_LEADER_CHECKS`] election timeouts).
    pub opening: bool,
}

/// One change a watch delivers (`mvccpb.Event`).
#[derive(Debug, Clone)]
pub struct EtcdWatchEvent {
    pub kind: EventType,
    /// For a delete, the key and the delete's revision (etcd sends no value).
    pub kv: KeyValue<Arc<Object>>,
    pub prev_kv: Option<KeyValue<Arc<Object>>>,
}

/// What a member delivered on a watch.
#[derive(Debug, Clone)]
pub struct EtcdWatchAnswer {
    pub events: Vec<EtcdWatchEvent>,
    /// The header's revision: how far this answer goes (what the member has applied, or the
    /// last revision delivered when the batch was full); the next poll starts after it.
    pub revision: Revision,
    pub member_id: u64,
    pub raft_term: u64,
}

impl ApiServer {
    /// A watch polled at member `member`: `Ok(None)` while the member is down (the client
    /// keeps trying to reach it, and resumes where it was once it is back), `Err` with etcd's
    /// text when the member cancels the watch (its history was compacted past the start, or
    /// it has had no leader too long).
    pub fn etcd_watch(
        &self,
        member: &str,
        req: &EtcdWatch,
    ) -> Result<Option<EtcdWatchAnswer>, String> {
        let Ok(m) = self.reachable_member(member) else {
            return Ok(None);
        };
        if let Ok(Some(since)) = self.etcd.leaderless_since(member) {
            let patience = if req.opening {
                0
            } else {
                NO_LEADER_CHECKS * ELECTION_TIMEOUT_MS
            };
            if self.now >= since.plus_millis(patience) {
                return Err(NO_LEADER.to_string());
            }
        }
        let applied = m.applied_revision;
        let start = if req.start_revision == 0 {
            applied + 1
        } else {
            req.start_revision
        };
        let keys = KeyRange {
            key: &req.key,
            range_end: req.range_end.as_deref(),
        };
        let matching = self
            .store
            .events_after(keys.shared_prefix(), start - 1)
            .map_err(|e| etcdserver_text(&e))?
            .into_iter()
            .take_while(|e| e.kv.mod_revision <= applied)
            .filter(|e| keys.contains(&e.kv.key));
        let mut events = Vec::new();
        let mut through = applied.max(start - 1);
        for e in matching {
            let last = events.last().map(|l: &EtcdWatchEvent| l.kv.mod_revision);
            if events.len() >= WATCH_BATCH && last != Some(e.kv.mod_revision) {
                through = last.unwrap_or(through);
                break;
            }
            events.push(EtcdWatchEvent {
                kind: e.kind,
                kv: e.kv.clone(),
                prev_kv: req
                    .prev_kv
                    .then(|| self.store.prev_kv(e).cloned())
                    .flatten(),
            });
        }
        Ok(Some(EtcdWatchAnswer {
            events,
            revision: through,
            member_id: m.id,
            raft_term: m.term,
        }))
    }

    /// `Compact` asked of member `member` (`etcdctl compaction REV`): forwarded to its leader
    /// and proposed through the log like any write; etcd's texts for a revision already
    /// compacted or not yet written.
    pub fn etcd_compact(&mut self, member: &str, revision: Revision) -> Result<(), Status> {
        let refused = |text: &str| errors::unknown(text);
        self.reachable_member(member).map_err(|t| refused(&t))?;
        self.etcd
            .can_read_via(member)
            .map_err(|e| refused(e.text()))?;
        let (compacted, current) = (self.store.compact_revision(), self.store.revision());
        let refusal = if revision <= compacted {
            Some(StoreError::Compacted {
                requested: revision,
                compact_revision: compacted,
            })
        } else if revision > current {
            Some(StoreError::FutureRevision {
                requested: revision,
                current,
            })
        } else {
            None
        };
        if let Some(e) = refusal {
            return Err(refused(&etcdserver_text(&e)));
        }
        self.compact_to(revision)
    }
}

/// What `etcdctl put` or `del` wrote: the revision of the write (the store's, unchanged
/// when nothing matched a delete), and the member that answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdWritten {
    pub revision: Revision,
    pub member_id: u64,
    pub raft_term: u64,
}

/// The user the ledger names for writes made with etcdctl, around the API server.
pub const ETCDCTL_WRITER: &str = "etcdctl";

impl ApiServer {
    /// `Put` asked of member `member` (`etcdctl put KEY VALUE`), as a write straight to etcd:
    /// no admission, no validation, no defaulting — the API server only sees the change on
    /// its watch. This store holds the API server's objects, so the key must name a served
    /// resource and the value be that kind's JSON (an object without `metadata.uid` or
    /// `creationTimestamp` gets them here, where the real one would be served without).
    pub fn etcd_put(
        &mut self,
        member: &str,
        key: &str,
        value: &str,
        lease: Option<LeaseId>,
    ) -> Result<EtcdWritten, String> {
        self.check_etcd_write(member)?;
        if let Some(id) = lease.filter(|&id| self.store.lease(id).is_none()) {
            return Err(etcdserver_text(&StoreError::LeaseNotFound(id)));
        }
        let (kind, namespace, name) = self.registry.by_key(key).ok_or_else(|| {
            format!("this etcd holds the API server's objects only: {key:?} names no served resource (keys are /registry/<resource>/[<namespace>/]<name>)")
        })?;
        let mut obj = Object::decode(kind, value).map_err(|s| s.message().to_string())?;
        let meta = obj.meta_mut();
        if kind.resource().namespaced && meta.namespace.is_empty() {
            meta.namespace = namespace.to_string();
        }
        if meta.name != name || meta.namespace != namespace {
            return Err(format!(
                "the value is {}/{} but the key names {namespace}/{name}: the API server would serve it under the key's name",
                meta.namespace, meta.name
            ));
        }
        if meta.uid.is_empty() {
            meta.uid = self.rng.uuid();
        }
        meta.creation_timestamp.get_or_insert(self.now);
        meta.resource_version = (self.store.revision() + 1).to_string();
        let obj = Arc::new(obj);
        ManagedFields::mark_stored(&obj);
        self.etcd_txn(
            member,
            "put",
            vec![Op::Put {
                key: key.to_string(),
                value: obj,
                lease,
            }],
        )
    }

    /// `DeleteRange` asked of member `member` (`etcdctl del`): every key in the range goes at
    /// one revision, with no graceful deletion and no finalizers — the API server's watchers
    /// see each object DELETED.
    pub fn etcd_delete(
        &mut self,
        member: &str,
        key: &str,
        range_end: Option<&str>,
    ) -> Result<EtcdWritten, String> {
        self.check_etcd_write(member)?;
        let keys = KeyRange { key, range_end };
        let doomed: Vec<Op<Arc<Object>>> = self
            .store
            .range_prefix(keys.shared_prefix(), None, None, None)
            .map_err(|e| etcdserver_text(&e))?
            .kvs
            .into_iter()
            .filter(|kv| keys.contains(&kv.key))
            .map(|kv| Op::Delete {
                key: kv.key.to_string(),
            })
            .collect();
        if doomed.is_empty() {
            // etcd writes no revision when nothing matched.
            let m = self.reachable_member(member)?;
            return Ok(EtcdWritten {
                revision: self.store.revision(),
                member_id: m.id,
                raft_term: m.term,
            });
        }
        self.etcd_txn(member, "delete", doomed)
    }

    /// A write asked of `member` commits only through a leader that reaches a majority;
    /// etcdctl gives up first (its 5 s command timeout, before the server's 7 s).
    fn check_etcd_write(&self, member: &str) -> Result<(), String> {
        self.reachable_member(member)?;
        self.etcd
            .can_read_via(member)
            .map_err(|_| crate::etcd::DEADLINE_EXCEEDED.to_string())
    }

    /// Proposes `ops` as one entry, applies them at one revision, and publishes the change to
    /// the ledger and the watchers like any write.
    fn etcd_txn(
        &mut self,
        member: &str,
        verb: &'static str,
        ops: Vec<Op<Arc<Object>>>,
    ) -> Result<EtcdWritten, String> {
        let what = match ops.as_slice() {
            [Op::Put { key, .. }] => format!("Put {key}"),
            [Op::Delete { key }] => format!("DeleteRange {key}"),
            more => format!("DeleteRange ({} keys)", more.len()),
        };
        self.check_space_alarm(&ops)
            .map_err(|e| etcdserver_text(&e))?;
        let committed = self.replicate(|| what).map_err(|e| e.text().to_string())?;
        let before = self.store.revision();
        let done = self.store.txn(Txn {
            compare: Vec::new(),
            success: ops,
            failure: Vec::new(),
        });
        self.applied(committed);
        done.inspect_err(|e| self.note_space_refusal(e))
            .map_err(|e| etcdserver_text(&e))?;
        self.publish_range(before, ETCDCTL_WRITER, verb);
        let m = self.reachable_member(member)?;
        Ok(EtcdWritten {
            revision: self.store.revision(),
            member_id: m.id,
            raft_term: m.term,
        })
    }
}

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
        if !self.etcd.alarms().is_empty() {
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

impl ApiServer {
    /// `Snapshot` asked of member `member` (`etcdctl snapshot save`): its keys at the revision
    /// it has applied.
    pub fn etcd_snapshot(&self, member: &str) -> Result<Snapshot<Arc<Object>>, String> {
        let m = self.reachable_member(member)?;
        self.store
            .snapshot(m.applied_revision)
            .map_err(|e| etcdserver_text(&e))
    }

    /// etcd restored from `snapshot` (`etcdutl snapshot restore`, every member's data directory
    /// from it) and the API server restarted on it: the store holds the snapshot's keys at their
    /// revisions, its revision bumped by `bump` (and everything before marked compacted with
    /// `mark_compacted`), and every watch stream ends as the old server goes away. Clients
    /// watch again from the resourceVersion they last saw.
    pub fn etcd_restore(
        &mut self,
        snapshot: &Snapshot<Arc<Object>>,
        bump: Revision,
        mark_compacted: bool,
    ) {
        let quota = self.store.quota_bytes();
        self.store = Store::restored(snapshot, bump, mark_compacted, self.now, quota);
        self.etcd.restored(self.store.revision());
        let streams: Vec<_> = self.watch.streams().map(|s| s.id()).collect();
        for id in streams {
            self.stop_watch(id);
        }
    }
}

impl ApiServer {
    /// `Alarm` (GET) asked of member `member`: the active alarms, as (member ID, type).
    pub fn etcd_alarms(&self, member: &str) -> Result<Vec<(u64, &'static str)>, String> {
        self.check_etcd_write(member)?;
        Ok(self.etcd.alarms())
    }

    /// `Alarm` (DEACTIVATE, every alarm) asked of member `member`, through the log: puts are
    /// taken again. Returns the alarms it disarmed.
    pub fn etcd_alarm_disarm(&mut self, member: &str) -> Result<Vec<(u64, &'static str)>, String> {
        self.check_etcd_write(member)?;
        let committed = self
            .replicate(|| "AlarmDisarm".to_string())
            .map_err(|e| e.text().to_string())?;
        self.applied(committed);
        Ok(self.etcd.disarm_alarms())
    }

    /// `Defragment` asked of member `member`: its backend file rewritten without free pages.
    /// The page measures the database by what its revisions hold, so nothing changes size.
    pub fn etcd_defragment(&self, member: &str) -> Result<(), String> {
        self.reachable_member(member).map(|_| ())
    }
}
