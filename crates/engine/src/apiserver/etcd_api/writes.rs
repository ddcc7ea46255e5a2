//! etcd's writes asked of one member, around the API server: put, delete (a range at one
//! revision) and compaction, each proposed through the log; the API server sees them on its
//! watch like any write.

use std::sync::Arc;

use super::etcdserver_text;
use crate::api::managed_fields::ManagedFields;
use crate::api::Object;
use crate::apiserver::{errors, ApiServer};
use crate::store::{LeaseId, Op, Revision, StoreError, Txn};
use watchlab_apimachinery::status::Status;

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
        let put = self.put_op(key, value, lease)?;
        self.etcd_txn(member, "put", vec![put])
    }

    /// The store write a put of `value` at `key` is: the value decoded as the kind the key
    /// names (refused with the reason otherwise).
    pub(super) fn put_op(
        &mut self,
        key: &str,
        value: &str,
        lease: Option<LeaseId>,
    ) -> Result<Op<Arc<Object>>, String> {
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
        Ok(Op::Put {
            key: key.to_string(),
            value: obj,
            lease,
        })
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
        let doomed = self.delete_ops(key, range_end)?;
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

    /// The store writes a delete of `[key, range_end)` is: one per key there now.
    pub(super) fn delete_ops(
        &self,
        key: &str,
        range_end: Option<&str>,
    ) -> Result<Vec<Op<Arc<Object>>>, String> {
        Ok(self
            .keys_in(key, range_end, None)?
            .into_iter()
            .map(|kv| Op::Delete {
                key: kv.key.to_string(),
            })
            .collect())
    }

    /// Proposes `ops` as one entry, applies them at one revision, and publishes the change to
    /// the ledger and the watchers like any write.
    pub(super) fn etcd_txn(
        &mut self,
        member: &str,
        verb: &'static str,
        ops: Vec<Op<Arc<Object>>>,
    ) -> Result<EtcdWritten, String> {
        let what = match ops.as_slice() {
            [Op::Put { key, .. }] => format!("Put {key}"),
            [Op::Delete { key }] => format!("DeleteRange {key}"),
            more if verb == "delete" => format!("DeleteRange ({} keys)", more.len()),
            more => format!("Txn ({} ops)", more.len()),
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
