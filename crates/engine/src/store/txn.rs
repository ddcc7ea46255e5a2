//! etcd's transaction shape: `If(compares...).Then(ops...).Else(ops...)`. This module holds the
//! request/response types and the checks etcd makes before applying one (op count limit,
//! duplicate write keys, key sanity) plus compare evaluation; [`super::Store::txn`] applies it.

use super::error::StoreError;
use super::kv::KeyValue;
use super::quota::MAX_REQUEST_BYTES;
use super::revision::Revision;
use super::LeaseId;

/// Most compares or ops in one txn branch: etcd's `--max-txn-ops` default (128).
pub const MAX_TXN_OPS: usize = 128;

/// Which field of a key a [`Compare`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareTarget {
    Version,
    CreateRevision,
    ModRevision,
}

/// How a [`Compare`] relates the key's field (left) to the given value (right).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Equal,
    NotEqual,
    Greater,
    Less,
}

/// etcd's Compare; a missing key has version/create/mod revision 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compare {
    pub key: String,
    pub target: CompareTarget,
    pub op: CompareOp,
    pub value: u64,
}

impl Compare {
    /// `key`'s `target` compared with `op` to `value`.
    pub fn new(key: impl Into<String>, target: CompareTarget, op: CompareOp, value: u64) -> Self {
        Compare {
            key: key.into(),
            target,
            op,
            value,
        }
    }

    /// Whether the compare holds for the key's current state (`None`: missing key).
    #[must_use]
    pub fn holds<V>(&self, kv: Option<&KeyValue<V>>) -> bool {
        let actual = kv.map_or(0, |kv| match self.target {
            CompareTarget::Version => kv.version,
            CompareTarget::CreateRevision => kv.create_revision,
            CompareTarget::ModRevision => kv.mod_revision,
        });
        match self.op {
            CompareOp::Equal => actual == self.value,
            CompareOp::NotEqual => actual != self.value,
            CompareOp::Greater => actual > self.value,
            CompareOp::Less => actual < self.value,
        }
    }
}

/// One operation of a txn branch.
#[derive(Debug, Clone)]
pub enum Op<V> {
    Get {
        key: String,
    },
    Put {
        key: String,
        value: V,
        lease: Option<LeaseId>,
    },
    Delete {
        key: String,
    },
}

impl<V> Op<V> {
    /// The key the operation reads or writes.
    pub fn key(&self) -> &str {
        match self {
            Op::Get { key } | Op::Put { key, .. } | Op::Delete { key } => key,
        }
    }

    fn writes(&self) -> bool {
        !matches!(self, Op::Get { .. })
    }
}

/// The result of one [`Op`], in the same position as the op.
#[derive(Debug, Clone)]
pub enum OpResponse<V> {
    Get(Option<KeyValue<V>>),
    Put { prev: Option<KeyValue<V>> },
    Delete { deleted: Option<KeyValue<V>> },
}

/// A compare-and-swap transaction.
#[derive(Debug, Clone)]
pub struct Txn<V> {
    pub compare: Vec<Compare>,
    pub success: Vec<Op<V>>,
    pub failure: Vec<Op<V>>,
}

impl<V> Default for Txn<V> {
    fn default() -> Self {
        Txn {
            compare: Vec::new(),
            success: Vec::new(),
            failure: Vec::new(),
        }
    }
}

/// What a txn did: which branch ran, the store revision after it, one response per op.
#[derive(Debug, Clone)]
pub struct TxnResponse<V> {
    pub succeeded: bool,
    pub revision: Revision,
    pub responses: Vec<OpResponse<V>>,
}

/// Checks a key the way etcd's gRPC layer does before any request runs.
pub fn check_key(key: &str) -> Result<(), StoreError> {
    if key.is_empty() {
        return Err(StoreError::EmptyKey);
    }
    if key.len() > MAX_REQUEST_BYTES {
        return Err(StoreError::RequestTooLarge {
            len: key.len(),
            limit: MAX_REQUEST_BYTES,
        });
    }
    Ok(())
}

impl<V> Txn<V> {
    /// etcd's request checks, made on both branches before the compares run: op limits, key
    /// sanity, and no key written twice within a branch.
    pub fn validate(&self) -> Result<(), StoreError> {
        if self.compare.len() > MAX_TXN_OPS
            || self.success.len() > MAX_TXN_OPS
            || self.failure.len() > MAX_TXN_OPS
        {
            return Err(StoreError::TooManyOps { limit: MAX_TXN_OPS });
        }
        for compare in &self.compare {
            check_key(&compare.key)?;
        }
        validate_branch(&self.success)?;
        validate_branch(&self.failure)
    }
}

fn validate_branch<V>(ops: &[Op<V>]) -> Result<(), StoreError> {
    for (i, op) in ops.iter().enumerate() {
        check_key(op.key())?;
        // Branches are short (<= MAX_TXN_OPS), so a quadratic scan beats allocating a set.
        let earlier = ops.get(..i).unwrap_or_default();
        if op.writes() && earlier.iter().any(|e| e.writes() && e.key() == op.key()) {
            return Err(StoreError::DuplicateKey(op.key().to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn kv(version: u64, create: Revision, modified: Revision) -> KeyValue<()> {
        KeyValue {
            key: Arc::from("k"),
            value: (),
            create_revision: create,
            mod_revision: modified,
            version,
            lease: crate::store::NO_LEASE,
        }
    }

    #[test]
    fn compares_read_the_chosen_field() {
        let state = kv(3, 2, 7);
        let holds = |target, op, value| Compare::new("k", target, op, value).holds(Some(&state));
        assert!(holds(CompareTarget::Version, CompareOp::Equal, 3));
        assert!(holds(CompareTarget::CreateRevision, CompareOp::Equal, 2));
        assert!(holds(CompareTarget::ModRevision, CompareOp::Equal, 7));
        assert!(holds(CompareTarget::ModRevision, CompareOp::Greater, 6));
        assert!(!holds(CompareTarget::ModRevision, CompareOp::Greater, 7));
        assert!(holds(CompareTarget::ModRevision, CompareOp::Less, 8));
        assert!(!holds(CompareTarget::ModRevision, CompareOp::Less, 7));
        assert!(holds(CompareTarget::Version, CompareOp::NotEqual, 4));
        assert!(!holds(CompareTarget::Version, CompareOp::NotEqual, 3));
    }

    #[test]
    fn a_missing_key_compares_as_zero() {
        let missing = |target, op, value| Compare::new("k", target, op, value).holds::<()>(None);
        for target in [
            CompareTarget::Version,
            CompareTarget::CreateRevision,
            CompareTarget::ModRevision,
        ] {
            assert!(missing(target, CompareOp::Equal, 0));
            assert!(!missing(target, CompareOp::Greater, 0));
            assert!(missing(target, CompareOp::Less, 1));
            assert!(missing(target, CompareOp::NotEqual, 5));
        }
    }

    fn put(key: &str) -> Op<()> {
        Op::Put {
            key: key.into(),
            value: (),
            lease: None,
        }
    }

    fn delete(key: &str) -> Op<()> {
        Op::Delete { key: key.into() }
    }

    fn get(key: &str) -> Op<()> {
        Op::Get { key: key.into() }
    }

    #[test]
    fn a_branch_may_not_write_a_key_twice() {
        let dup = |ops: Vec<Op<()>>| {
            Txn {
                success: ops,
                ..Txn::default()
            }
            .validate()
        };
        assert_eq!(
            dup(vec![put("a"), put("a")]),
            Err(StoreError::DuplicateKey("a".into()))
        );
        assert_eq!(
            dup(vec![put("a"), delete("a")]),
            Err(StoreError::DuplicateKey("a".into()))
        );
        assert_eq!(dup(vec![get("a"), put("a"), get("a")]), Ok(()));
        assert_eq!(dup(vec![put("a"), put("b")]), Ok(()));
        let failure = Txn {
            failure: vec![delete("x"), delete("x")],
            ..Txn::default()
        };
        assert_eq!(
            failure.validate(),
            Err(StoreError::DuplicateKey("x".into()))
        );
        let across = Txn {
            success: vec![put("a")],
            failure: vec![put("a")],
            ..Txn::default()
        };
        assert_eq!(
            across.validate(),
            Ok(()),
            "each branch is checked on its own"
        );
    }

    #[test]
    fn op_counts_are_capped_per_branch() {
        let ops = |n: usize| (0..n).map(|i| put(&format!("k{i}"))).collect::<Vec<_>>();
        let at_limit = Txn {
            success: ops(MAX_TXN_OPS),
            failure: ops(MAX_TXN_OPS),
            ..Txn::default()
        };
        assert_eq!(at_limit.validate(), Ok(()));
        let over = Txn {
            failure: ops(MAX_TXN_OPS + 1),
            ..Txn::default()
        };
        assert_eq!(over.validate(), Err(StoreError::TooManyOps { limit: 128 }));
        let compares = Txn::<()> {
            compare: vec![Compare::new("k", CompareTarget::Version, CompareOp::Equal, 0); 129],
            ..Txn::default()
        };
        assert_eq!(
            compares.validate(),
            Err(StoreError::TooManyOps { limit: 128 })
        );
    }

    #[test]
    fn keys_must_be_present_and_bounded() {
        assert_eq!(check_key(""), Err(StoreError::EmptyKey));
        assert_eq!(check_key("/registry/pods/default/web"), Ok(()));
        let huge = "k".repeat(MAX_REQUEST_BYTES + 1);
        assert_eq!(
            check_key(&huge),
            Err(StoreError::RequestTooLarge {
                len: MAX_REQUEST_BYTES + 1,
                limit: MAX_REQUEST_BYTES
            })
        );
        let empty_get = Txn {
            success: vec![get("")],
            ..Txn::default()
        };
        assert_eq!(empty_get.validate(), Err(StoreError::EmptyKey));
    }
}
