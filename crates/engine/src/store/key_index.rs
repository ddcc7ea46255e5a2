//! The key index (etcd's `treeIndex` of `keyIndex`es): for every key, the ordered positions of
//! its writes, puts and tombstones alike. It answers "which write was this key's state at
//! revision r?" without touching values, which live in [`super::history`]. Keys sit in an
//! ordered map so prefix ranges and paginated lists are a walk over one subtree.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use super::revision::{Rev, Revision};

/// One write of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRev {
    pub rev: Rev,
    /// A delete: the key does not exist from this revision on.
    pub tombstone: bool,
}

/// The writes of one key, oldest first (etcd keeps them in generations; a tombstone closes one).
#[derive(Debug, Clone, Default)]
pub struct KeyIndex {
    revs: Vec<KeyRev>,
}

/// What compacting one key index left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    /// The put that is the key's state at the compaction revision, whose value must be kept.
    pub keep: Option<Rev>,
    /// Nothing of the key remains: drop it from the index.
    pub empty: bool,
}

impl KeyIndex {
    /// The write that is the key's state at revision `at` (None: no write at or before `at`).
    #[must_use]
    pub fn at(&self, at: Revision) -> Option<KeyRev> {
        let n = self.revs.partition_point(|r| r.rev.main <= at);
        n.checked_sub(1).and_then(|i| self.revs.get(i)).copied()
    }

    /// The latest write.
    #[must_use]
    pub fn latest(&self) -> Option<KeyRev> {
        self.revs.last().copied()
    }

    /// Records a write; `rev` must follow every recorded one.
    pub fn record(&mut self, rev: Rev, tombstone: bool) {
        debug_assert!(self.revs.last().is_none_or(|last| last.rev < rev));
        self.revs.push(KeyRev { rev, tombstone });
    }

    /// Forgets every write that no read at or after `at` can need (etcd's keyIndex.compact):
    /// writes before the key's state at `at`, and that state itself when it is a tombstone.
    pub fn compact(&mut self, at: Revision) -> Compacted {
        let n = self.revs.partition_point(|r| r.rev.main <= at);
        let mut keep = None;
        if let Some(state) = n.checked_sub(1).and_then(|i| self.revs.get(i)).copied() {
            let drop = if state.tombstone { n } else { n - 1 };
            self.revs.drain(..drop);
            keep = (!state.tombstone).then_some(state.rev);
        }
        Compacted {
            keep,
            empty: self.revs.is_empty(),
        }
    }
}

/// Every key's index, ordered by key.
#[derive(Debug, Clone, Default)]
pub struct Index {
    keys: BTreeMap<Arc<str>, KeyIndex>,
}

impl Index {
    pub fn get(&self, key: &str) -> Option<&KeyIndex> {
        self.keys.get(key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut KeyIndex> {
        self.keys.get_mut(key)
    }

    /// The shared key and its index, created empty if the key was never written.
    pub fn entry(&mut self, key: &str) -> (Arc<str>, &mut KeyIndex) {
        // Reuse the key's existing allocation, so index and history share one `Arc<str>`.
        let shared = match self.keys.get_key_value(key) {
            Some((k, _)) => Arc::clone(k),
            None => Arc::from(key),
        };
        let index = self.keys.entry(Arc::clone(&shared)).or_default();
        (shared, index)
    }

    /// Keys starting with `prefix`, strictly after `start_after` if given, in key order.
    pub fn prefix<'a>(
        &'a self,
        prefix: &'a str,
        start_after: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a Arc<str>, &'a KeyIndex)> + 'a {
        let lower = match start_after {
            Some(after) if after >= prefix => Bound::Excluded(after),
            _ => Bound::Included(prefix),
        };
        self.keys
            .range::<str, _>((lower, Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(prefix))
    }

    /// Compacts every key at `at`; returns the puts whose values must be kept, ascending.
    pub fn compact(&mut self, at: Revision) -> Vec<Rev> {
        let mut keep = Vec::new();
        self.keys.retain(|_, index| {
            let c = index.compact(at);
            keep.extend(c.keep);
            !c.empty
        });
        keep.sort_unstable();
        keep
    }
}
