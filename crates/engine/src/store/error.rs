//! Why a store request was refused. The variants and their texts are etcd's own (mvcc and
//! etcdserver errors), because the API server wraps them into the Status messages users see.

use std::fmt;

use super::revision::Revision;
use super::LeaseId;

/// A refused store request; `Display` prints etcd's exact message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// mvcc.ErrCompacted: the revision asked for was dropped by compaction.
    Compacted {
        requested: Revision,
        compact_revision: Revision,
    },
    /// mvcc.ErrFutureRev: the revision asked for has not been written yet.
    FutureRevision {
        requested: Revision,
        current: Revision,
    },
    /// rpctypes.ErrGRPCLeaseNotFound.
    LeaseNotFound(LeaseId),
    /// rpctypes.ErrGRPCDuplicateKey: one txn branch writes (put/delete) the same key twice.
    DuplicateKey(String),
    /// rpctypes.ErrGRPCTooManyOps: more than `limit` compares or ops in one branch.
    TooManyOps { limit: usize },
    /// rpctypes.ErrGRPCEmptyKey: an operation without a key.
    EmptyKey,
    /// rpctypes.ErrGRPCRequestTooLarge: a key, or a put's key and value, beyond the request
    /// size limit ([`super::MAX_REQUEST_BYTES`]).
    RequestTooLarge { len: usize, limit: usize },
    /// rpctypes.ErrGRPCNoSpace: the put would take the store past its space quota.
    NoSpace,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreError::Compacted { .. } => "mvcc: required revision has been compacted",
            StoreError::FutureRevision { .. } => "mvcc: required revision is a future revision",
            StoreError::LeaseNotFound(_) => "etcdserver: requested lease not found",
            StoreError::DuplicateKey(_) => "etcdserver: duplicate key given in txn request",
            StoreError::TooManyOps { .. } => "etcdserver: too many operations in txn request",
            StoreError::EmptyKey => "etcdserver: key is not provided",
            StoreError::RequestTooLarge { .. } => "etcdserver: request is too large",
            StoreError::NoSpace => "etcdserver: mvcc: database space exceeded",
        })
    }
}

impl std::error::Error for StoreError {}
