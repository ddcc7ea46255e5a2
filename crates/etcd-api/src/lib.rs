//! The cluster's etcd members as an etcd v3 client reaches them: an [`EtcdClient`] over a
//! [`Cluster`]. Each member has the client and peer URLs of etcd's own local three-member
//! cluster (`Procfile`: clients on 2379, 22379, 32379, peers on 2380, 22380, 32380; then 42379
//! and 52379 for five); a range is answered by the member asked (linearizable through its
//! leader, or serializable from what it applied), a watch from what it applied, and every write
//! (put, del, compaction, leases, `move-leader`) is one of the cluster's journaled actions. The
//! page's console (etcdctl) and the native server's gRPC face both go through here.

use std::sync::Arc;

use watchlab_engine::api::Object;
use watchlab_engine::apiserver::{
    EtcdCompare, EtcdCompareOp, EtcdCompareTarget, EtcdOpAnswer, EtcdRange, EtcdRequestOp,
    EtcdWatch,
};
use watchlab_engine::cluster::{Action, Cluster};
use watchlab_engine::store::{self, EventType as StoreEvent, Snapshot};
use watchlab_etcdctl::{
    Compare, CompareOp, CompareTarget, DeleteRangeResponse, EtcdClient, EtcdError, Event,
    EventType, KeyValue, LeaseTimeToLiveResponse, Member, PutResponse, RangeRequest, RangeResponse,
    RequestOp, ResponseHeader, ResponseOp, SnapshotStatus, StatusResponse, TxnResponse,
    WatchRequest, WatchResponse, VERSION,
};

/// Member `i`'s port: 2379 for the first, then 22379, 32379… (`base` 2380 for peers).
pub fn port(base: u32, i: usize) -> u32 {
    if i == 0 {
        base
    } else {
        base + 10_000 * (i as u32 + 1)
    }
}

/// The cluster's etcd members as an etcd client reaches them.
pub struct ClusterEtcd<'a> {
    pub cluster: &'a mut Cluster,
}

impl ClusterEtcd<'_> {
    fn name(&self, member: usize) -> Option<String> {
        self.cluster
            .etcd()
            .members()
            .get(member)
            .map(|m| m.name.clone())
    }

    fn header(&self, member_id: u64, revision: u64, raft_term: u64) -> ResponseHeader {
        ResponseHeader {
            cluster_id: self.cluster_id(),
            member_id,
            revision: revision as i64,
            raft_term,
        }
    }
}

impl ClusterEtcd<'_> {
    fn member_name(&self, member: usize) -> Result<String, EtcdError> {
        self.name(member)
            .ok_or_else(|| EtcdError(watchlab_etcdctl::DEADLINE_EXCEEDED.into()))
    }

    /// What a write will replace (etcd answers it with `prev_kv`; read first here, nothing
    /// writes in between).
    fn keys_before(
        &mut self,
        member: usize,
        key: &str,
        range_end: Option<&str>,
    ) -> Result<Vec<KeyValue>, EtcdError> {
        let req = RangeRequest {
            key: key.to_string(),
            range_end: range_end.map(str::to_string),
            ..RangeRequest::default()
        };
        Ok(self.range(member, &req)?.kvs)
    }

    /// A write as the cluster's journaled action; the header of its answer.
    fn write(&mut self, member: usize, action: Action) -> Result<ResponseHeader, EtcdError> {
        self.cluster
            .apply(action)
            .map_err(|s| EtcdError(s.message().to_string()))?;
        let m = &self.cluster.etcd().members()[member];
        Ok(self.header(m.id, self.cluster.api().revision(), m.term))
    }
}

impl EtcdClient for ClusterEtcd<'_> {
    fn members(&self) -> Vec<Member> {
        self.cluster
            .etcd()
            .members()
            .iter()
            .enumerate()
            .map(|(i, m)| Member {
                id: m.id,
                name: m.name.clone(),
                peer_urls: vec![format!("http://127.0.0.1:{}", port(2380, i))],
                client_urls: vec![format!("http://127.0.0.1:{}", port(2379, i))],
                is_learner: false,
            })
            .collect()
    }

    fn cluster_id(&self) -> u64 {
        self.cluster.etcd().cluster_id()
    }

    fn range(&mut self, member: usize, req: &RangeRequest) -> Result<RangeResponse, EtcdError> {
        let name = self.member_name(member)?;
        let ask = EtcdRange {
            key: req.key.clone(),
            range_end: req.range_end.clone(),
            limit: usize::try_from(req.limit.max(0)).unwrap_or(usize::MAX),
            revision: u64::try_from(req.revision.max(0)).unwrap_or(0),
            serializable: req.serializable,
        };
        let answer = self
            .cluster
            .api()
            .etcd_range(&name, &ask)
            .map_err(EtcdError)?;
        let kvs = if req.count_only {
            Vec::new()
        } else {
            answer
                .kvs
                .iter()
                .map(|kv| key_value(kv, !req.keys_only))
                .collect()
        };
        Ok(RangeResponse {
            header: self.header(answer.member_id, answer.revision, answer.raft_term),
            kvs,
            more: answer.more,
            count: answer.count as i64,
        })
    }

    fn status(&mut self, member: usize) -> Result<StatusResponse, EtcdError> {
        let name = self.member_name(member)?;
        let s = self.cluster.api().etcd_status(&name).map_err(EtcdError)?;
        Ok(StatusResponse {
            header: self.header(s.member_id, s.revision, s.raft_term),
            version: VERSION.to_string(),
            db_size: s.db_size as i64,
            leader: s.leader,
            raft_index: s.raft_index,
            raft_term: s.raft_term,
            raft_applied_index: s.raft_applied_index,
            errors: s.errors.clone(),
            db_size_in_use: s.db_size as i64,
            is_learner: false,
        })
    }

    fn watch(
        &mut self,
        member: usize,
        req: &WatchRequest,
        opening: bool,
    ) -> Result<Option<WatchResponse>, EtcdError> {
        let Some(name) = self.name(member) else {
            return Ok(None);
        };
        let ask = EtcdWatch {
            key: req.key.clone(),
            range_end: req.range_end.clone(),
            start_revision: u64::try_from(req.start_revision.max(0)).unwrap_or(0),
            prev_kv: req.prev_kv,
            opening,
        };
        let Some(answer) = self
            .cluster
            .api()
            .etcd_watch(&name, &ask)
            .map_err(EtcdError)?
        else {
            return Ok(None);
        };
        let events = answer
            .events
            .iter()
            .map(|e| Event {
                kind: match e.kind {
                    StoreEvent::Put => EventType::Put,
                    StoreEvent::Delete => EventType::Delete,
                },
                kv: match e.kind {
                    StoreEvent::Put => key_value(&e.kv, true),
                    // etcd's delete event carries the key and the delete's revision alone.
                    StoreEvent::Delete => KeyValue {
                        key: e.kv.key.to_string(),
                        mod_revision: e.kv.mod_revision as i64,
                        ..KeyValue::default()
                    },
                },
                prev_kv: e.prev_kv.as_ref().map(|kv| key_value(kv, true)),
            })
            .collect();
        Ok(Some(WatchResponse {
            header: self.header(answer.member_id, answer.revision, answer.raft_term),
            events,
        }))
    }

    fn put(
        &mut self,
        member: usize,
        key: &str,
        value: &str,
        lease: i64,
    ) -> Result<PutResponse, EtcdError> {
        let before = self.keys_before(member, key, None)?;
        let name = self.member_name(member)?;
        let header = self.write(
            member,
            Action::EtcdPut {
                member: name,
                key: key.to_string(),
                value: value.to_string(),
                lease: (lease != 0).then_some(lease),
            },
        )?;
        Ok(PutResponse {
            header,
            prev_kv: before.into_iter().next(),
        })
    }

    fn delete_range(
        &mut self,
        member: usize,
        key: &str,
        range_end: Option<&str>,
    ) -> Result<DeleteRangeResponse, EtcdError> {
        let before = self.keys_before(member, key, range_end)?;
        let name = self.member_name(member)?;
        let header = self.write(
            member,
            Action::EtcdDelete {
                member: name,
                key: key.to_string(),
                range_end: range_end.map(str::to_string),
            },
        )?;
        Ok(DeleteRangeResponse {
            header,
            deleted: before.len() as i64,
            prev_kvs: before,
        })
    }

    fn lease_grant(&mut self, member: usize, ttl: i64) -> Result<(i64, i64), EtcdError> {
        let name = self.member_name(member)?;
        self.write(
            member,
            Action::EtcdLeaseGrant {
                member: name.clone(),
                ttl_secs: ttl,
            },
        )?;
        // Lease IDs only grow: the new one is the highest.
        let api = self.cluster.api();
        let id = api
            .etcd_leases(&name)
            .map_err(EtcdError)?
            .into_iter()
            .max()
            .unwrap_or(0);
        let granted = api
            .etcd_lease(&name, id)
            .map_err(EtcdError)?
            .map_or(0, |l| l.granted_ttl_secs);
        Ok((id, granted))
    }

    fn lease_revoke(&mut self, member: usize, id: i64) -> Result<(), EtcdError> {
        let name = self.member_name(member)?;
        self.write(member, Action::EtcdLeaseRevoke { member: name, id })
            .map(|_| ())
    }

    fn lease_keep_alive(&mut self, member: usize, id: i64) -> Result<i64, EtcdError> {
        let name = self.member_name(member)?;
        self.write(
            member,
            Action::EtcdLeaseKeepAlive {
                member: name.clone(),
                id,
            },
        )?;
        Ok(self.lease_time_to_live(member, id)?.granted_ttl)
    }

    fn lease_time_to_live(
        &mut self,
        member: usize,
        id: i64,
    ) -> Result<LeaseTimeToLiveResponse, EtcdError> {
        let name = self.member_name(member)?;
        let lease = self
            .cluster
            .api()
            .etcd_lease(&name, id)
            .map_err(EtcdError)?;
        Ok(match lease {
            Some(l) => LeaseTimeToLiveResponse {
                id,
                ttl: l.remaining_secs,
                granted_ttl: l.granted_ttl_secs,
                keys: l.keys.iter().map(|k| k.to_string()).collect(),
            },
            None => LeaseTimeToLiveResponse {
                id,
                ttl: -1,
                ..LeaseTimeToLiveResponse::default()
            },
        })
    }

    fn leases(&mut self, member: usize) -> Result<Vec<i64>, EtcdError> {
        let name = self.member_name(member)?;
        self.cluster.api().etcd_leases(&name).map_err(EtcdError)
    }

    fn txn(
        &mut self,
        member: usize,
        compares: &[Compare],
        success: &[RequestOp],
        failure: &[RequestOp],
    ) -> Result<TxnResponse, EtcdError> {
        let name = self.member_name(member)?;
        let compares: Vec<EtcdCompare> = compares.iter().map(engine_compare).collect();
        let success: Vec<EtcdRequestOp> = success.iter().map(engine_op).collect();
        let failure: Vec<EtcdRequestOp> = failure.iter().map(engine_op).collect();
        let answer = self
            .cluster
            .api()
            .etcd_txn_preview(&name, &compares, &success, &failure)
            .map_err(EtcdError)?;
        let branch = if answer.succeeded { &success } else { &failure };
        let writes = branch
            .iter()
            .any(|op| !matches!(op, EtcdRequestOp::Get { .. }));
        let header = if writes {
            self.write(
                member,
                Action::EtcdTxn {
                    member: name,
                    compares,
                    success: success.clone(),
                    failure: failure.clone(),
                },
            )?
        } else {
            self.status(member)?.header
        };
        let responses = answer
            .responses
            .into_iter()
            .map(|r| match r {
                EtcdOpAnswer::Got(kvs) => ResponseOp::Range(RangeResponse {
                    header,
                    count: kvs.len() as i64,
                    kvs: kvs.iter().map(|kv| key_value(kv, true)).collect(),
                    more: false,
                }),
                EtcdOpAnswer::Put => ResponseOp::Put(PutResponse {
                    header,
                    prev_kv: None,
                }),
                EtcdOpAnswer::Deleted(n) => ResponseOp::DeleteRange(DeleteRangeResponse {
                    header,
                    deleted: n as i64,
                    prev_kvs: Vec::new(),
                }),
            })
            .collect();
        Ok(TxnResponse {
            header,
            succeeded: answer.succeeded,
            responses,
        })
    }

    fn alarms(&mut self, member: usize) -> Result<Vec<(u64, String)>, EtcdError> {
        let name = self.member_name(member)?;
        let alarms = self.cluster.api().etcd_alarms(&name).map_err(EtcdError)?;
        Ok(alarms
            .into_iter()
            .map(|(id, a)| (id, a.to_string()))
            .collect())
    }

    fn alarm_disarm(&mut self, member: usize) -> Result<Vec<(u64, String)>, EtcdError> {
        let was = self.alarms(member)?;
        let name = self.member_name(member)?;
        self.write(member, Action::EtcdAlarmDisarm { member: name })?;
        Ok(was)
    }

    fn defragment(&mut self, member: usize) -> Result<(), EtcdError> {
        let name = self.member_name(member)?;
        self.cluster.api().etcd_defragment(&name).map_err(EtcdError)
    }

    fn snapshot_save(&mut self, member: usize, path: &str) -> Result<SnapshotStatus, EtcdError> {
        let name = self.member_name(member)?;
        self.write(
            member,
            Action::EtcdSnapshotSave {
                member: name,
                path: path.to_string(),
            },
        )?;
        self.snapshot_status(path)
            .ok_or_else(|| EtcdError(format!("open {path}: no such file or directory")))
    }

    fn snapshot_status(&self, path: &str) -> Option<SnapshotStatus> {
        self.cluster.etcd_snapshot(path).map(snapshot_status)
    }

    fn snapshot_restore(
        &mut self,
        path: &str,
        bump_revision: u64,
        mark_compacted: bool,
    ) -> Result<SnapshotStatus, EtcdError> {
        let status = self
            .snapshot_status(path)
            .ok_or_else(|| EtcdError(format!("open {path}: no such file or directory")))?;
        self.cluster
            .apply(Action::EtcdSnapshotRestore {
                path: path.to_string(),
                bump_revision,
                mark_compacted,
            })
            .map_err(|s| EtcdError(s.message().to_string()))?;
        Ok(status)
    }

    fn compact(&mut self, member: usize, revision: i64) -> Result<(), EtcdError> {
        let member = self.member_name(member)?;
        self.cluster
            .apply(Action::CompactEtcd {
                member,
                revision: u64::try_from(revision.max(0)).unwrap_or(0),
            })
            .map(|_| ())
            .map_err(|s| EtcdError(s.message().to_string()))
    }

    fn now_ms(&self) -> u64 {
        self.cluster.now().as_millis()
    }

    fn move_leader(&mut self, member: usize, target: u64) -> Result<ResponseHeader, EtcdError> {
        let bad = || EtcdError("etcdserver: bad leader transferee".into());
        let to = self
            .cluster
            .etcd()
            .members()
            .iter()
            .find(|m| m.id == target)
            .map(|m| m.name.clone())
            .ok_or_else(bad)?;
        let asked = self.name(member).ok_or_else(bad)?;
        self.cluster
            .apply(Action::MoveEtcdLeader(to.clone()))
            .map_err(|s| EtcdError(s.message().to_string()))?;
        let etcd = self.cluster.etcd();
        match etcd.leader() {
            Some(l) if l.name == to => Ok(self.header(
                etcd.members()
                    .iter()
                    .find(|m| m.name == asked)
                    .map_or(0, |m| m.id),
                self.cluster.api().revision(),
                l.term,
            )),
            _ => Err(bad()),
        }
    }
}

/// A txn compare as the engine takes it.
fn engine_compare(c: &Compare) -> EtcdCompare {
    EtcdCompare {
        key: c.key.clone(),
        op: match c.op {
            CompareOp::Equal => EtcdCompareOp::Equal,
            CompareOp::NotEqual => EtcdCompareOp::NotEqual,
            CompareOp::Greater => EtcdCompareOp::Greater,
            CompareOp::Less => EtcdCompareOp::Less,
        },
        target: match &c.target {
            CompareTarget::Value(v) => EtcdCompareTarget::Value(v.clone()),
            CompareTarget::Version(n) => EtcdCompareTarget::Version(*n),
            CompareTarget::Create(n) => EtcdCompareTarget::Create(*n),
            CompareTarget::Mod(n) => EtcdCompareTarget::Mod(*n),
            CompareTarget::Lease(n) => EtcdCompareTarget::Lease(*n),
        },
    }
}

/// A txn request as the engine takes it.
fn engine_op(op: &RequestOp) -> EtcdRequestOp {
    match op.clone() {
        RequestOp::Get { key, range_end } => EtcdRequestOp::Get { key, range_end },
        RequestOp::Put { key, value } => EtcdRequestOp::Put { key, value },
        RequestOp::Delete { key, range_end } => EtcdRequestOp::Delete { key, range_end },
    }
}

/// What `etcdutl snapshot status` shows of a snapshot: its revision, keys, their size as the
/// space quota counts it, and a hash of its keys and revisions (not etcd's CRC of the file).
fn snapshot_status(s: &Snapshot<Arc<Object>>) -> SnapshotStatus {
    let mut hash: u32 = 0x811c_9dc5;
    let mut size: u64 = 0;
    for kv in &s.kvs {
        for b in kv.key.bytes().chain(kv.mod_revision.to_le_bytes()) {
            hash = (hash ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        size += u64::from(store::quota::put_cost(&kv.key, &kv.value).unwrap_or(0));
    }
    SnapshotStatus {
        hash,
        revision: s.revision as i64,
        total_keys: s.kvs.len() as i64,
        total_size: size as i64,
    }
}

/// A stored key as etcd's API shows it: the value is the JSON the API server stored.
fn key_value(kv: &store::KeyValue<Arc<Object>>, with_value: bool) -> KeyValue {
    KeyValue {
        key: kv.key.to_string(),
        create_revision: kv.create_revision as i64,
        mod_revision: kv.mod_revision as i64,
        version: kv.version as i64,
        value: if with_value {
            kv.value.to_stored_json()
        } else {
            String::new()
        },
        lease: kv.lease,
    }
}
