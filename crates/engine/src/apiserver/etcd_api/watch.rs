//! `Watch` asked of one member: served from what that member has applied, in batches; a member
//! without a leader for three election timeouts cancels it, as etcd's `monitorLeader` does.

use std::sync::Arc;

use super::{etcdserver_text, KeyRange};
use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::etcd::{ELECTION_TIMEOUT_MS, NO_LEADER};
use crate::store::{EventType, KeyValue, Revision};

/// The most events one poll of a watch hands out (whole revisions: the next poll goes on from
/// there), so a watch from an old revision of a big cluster catches up over several polls
/// rather than in one long pause of the page.
const WATCH_BATCH: usize = 1000;

/// etcd's `maxNoLeaderCnt` (`api/v3rpc/interceptor.go`): a member cancels its
/// leader-requiring streams after this many election timeouts without a leader.
const NO_LEADER_CHECKS: u64 = 3;

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
}
