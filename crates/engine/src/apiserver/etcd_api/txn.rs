//! `Txn` asked of one member (`etcdctl txn`): compares on keys' values, versions, create and
//! mod revisions and leases, then one branch's requests — gets, puts and deletes, the writes
//! at one revision, proposed through the log as one entry. A get answers from before the
//! branch's writes.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::api::Object;
use crate::apiserver::ApiServer;
use crate::store::KeyValue;

/// What a compare reads of its key, and the value it is compared with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EtcdCompareTarget {
    /// The stored JSON, as `etcdctl get` prints it.
    Value(String),
    Version(i64),
    Create(i64),
    Mod(i64),
    Lease(i64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EtcdCompareOp {
    Equal,
    NotEqual,
    Greater,
    Less,
}

/// One of a txn's compares (etcd's `Compare`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcdCompare {
    pub key: String,
    pub op: EtcdCompareOp,
    pub target: EtcdCompareTarget,
}

/// One request of a branch (etcd's `RequestOp`); a range end as [`super::EtcdRange`]'s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EtcdRequestOp {
    Get {
        key: String,
        range_end: Option<String>,
    },
    Put {
        key: String,
        value: String,
    },
    Delete {
        key: String,
        range_end: Option<String>,
    },
}

/// What one request answered (etcd's `ResponseOp`).
#[derive(Debug, Clone)]
pub enum EtcdOpAnswer {
    Got(Vec<KeyValue<Arc<Object>>>),
    Put,
    Deleted(usize),
}

/// Which branch ran and what each of its requests answered.
#[derive(Debug, Clone)]
pub struct EtcdTxnAnswer {
    pub succeeded: bool,
    pub responses: Vec<EtcdOpAnswer>,
}

impl ApiServer {
    /// Whether `c` holds now. A missing key has version, revisions and lease 0, and no value
    /// (a value compare on it fails, as etcd's `applyCompare`).
    fn compare_holds(&self, c: &EtcdCompare) -> bool {
        let kv = self.store.get(&c.key);
        let ordering = match (&c.target, kv) {
            (EtcdCompareTarget::Value(_), None) => return false,
            (EtcdCompareTarget::Value(v), Some(kv)) => kv.value.to_stored_json().as_str().cmp(v),
            (EtcdCompareTarget::Version(n), kv) => kv.map_or(0, |kv| kv.version as i64).cmp(n),
            (EtcdCompareTarget::Create(n), kv) => {
                kv.map_or(0, |kv| kv.create_revision as i64).cmp(n)
            }
            (EtcdCompareTarget::Mod(n), kv) => kv.map_or(0, |kv| kv.mod_revision as i64).cmp(n),
            (EtcdCompareTarget::Lease(n), kv) => kv.map_or(0, |kv| kv.lease).cmp(n),
        };
        match c.op {
            EtcdCompareOp::Equal => ordering.is_eq(),
            EtcdCompareOp::NotEqual => ordering.is_ne(),
            EtcdCompareOp::Greater => ordering.is_gt(),
            EtcdCompareOp::Less => ordering.is_lt(),
        }
    }

    /// What the txn would answer now, without writing: the branch and each request's answer.
    pub fn etcd_txn_preview(
        &self,
        member: &str,
        compares: &[EtcdCompare],
        success: &[EtcdRequestOp],
        failure: &[EtcdRequestOp],
    ) -> Result<EtcdTxnAnswer, String> {
        self.check_etcd_write(member)?;
        let succeeded = compares.iter().all(|c| self.compare_holds(c));
        let branch = if succeeded { success } else { failure };
        let mut responses = Vec::with_capacity(branch.len());
        for op in branch {
            responses.push(match op {
                EtcdRequestOp::Get { key, range_end } => {
                    EtcdOpAnswer::Got(self.keys_in(key, range_end.as_deref(), None)?)
                }
                EtcdRequestOp::Put { .. } => EtcdOpAnswer::Put,
                EtcdRequestOp::Delete { key, range_end } => {
                    EtcdOpAnswer::Deleted(self.delete_ops(key, range_end.as_deref())?.len())
                }
            });
        }
        Ok(EtcdTxnAnswer {
            succeeded,
            responses,
        })
    }

    /// The txn: the branch its compares choose, its writes applied at one revision. A put
    /// whose value is not its key's kind refuses the whole txn, nothing written.
    pub fn etcd_txn_request(
        &mut self,
        member: &str,
        compares: &[EtcdCompare],
        success: &[EtcdRequestOp],
        failure: &[EtcdRequestOp],
    ) -> Result<(), String> {
        self.check_etcd_write(member)?;
        let succeeded = compares.iter().all(|c| self.compare_holds(c));
        let branch = if succeeded { success } else { failure };
        let mut writes = Vec::new();
        for op in branch {
            match op {
                EtcdRequestOp::Get { .. } => {}
                EtcdRequestOp::Put { key, value } => writes.push(self.put_op(key, value, None)?),
                EtcdRequestOp::Delete { key, range_end } => {
                    writes.extend(self.delete_ops(key, range_end.as_deref())?);
                }
            }
        }
        if !writes.is_empty() {
            self.etcd_txn(member, "txn", writes)?;
        }
        Ok(())
    }
}
