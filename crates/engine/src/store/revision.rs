//! Revisions, the store's only notion of time. etcd numbers every writing transaction with one
//! global, ever-increasing *main* revision and each write inside it with a *sub* revision, so
//! every change in the cluster has a unique, totally ordered position `(main, sub)`. Readers,
//! watchers and compaction all speak in these positions.

/// etcd's main revision (an `int64` there, never negative). A fresh store is at 1, so the first
/// write gets revision 2, as in etcd.
pub type Revision = u64;

/// The revision of a fresh store (etcd's `currentRev` starts at 1).
pub const INITIAL_REVISION: Revision = 1;

/// One write's exact position: the transaction's main revision and the write's sequence number
/// in the event log. etcd uses `revision{main, sub}` with `sub` the index inside the txn; a global
/// sequence orders writes the same way and also addresses the log in O(1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rev {
    pub main: Revision,
    /// Index of the write in the event log since the store was created (compaction included).
    pub seq: u64,
}

impl Rev {
    pub fn new(main: Revision, seq: u64) -> Self {
        Rev { main, seq }
    }
}
