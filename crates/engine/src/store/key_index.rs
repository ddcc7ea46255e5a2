//! The key index (etcd's `treeIndex` of `keyIndex`es): for every key, the ordered positions of
//! its writes, puts and tombstones alike. It answers "which write was this key's state at
//! revision r?" without touching values, which live in [`super::history`]. Keys are kept in
//! order so prefix ranges and paginated lists are a walk over one subtree; each write finds its
//! key by hash.

use std::cell::RefCell;
use std::ops::Bound;
use std::sync::Arc;

use crate::hash::FixedState;
use crate::sorted_set::LazySortedSet;

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

    /// The latest write if it is a put: where the key's live value is (None: the key does not
    /// exist now).
    #[must_use]
    pub fn live(&self) -> Option<Rev> {
        self.latest().filter(|w| !w.tombstone).map(|w| w.rev)
    }

    /// Records a write; `rev` must follow every recorded one.
    pub fn record(&mut self, rev: Rev, tombstone: bool) {
        debug_assert!(self.revs.last().is_none_or(|last| last.rev < rev));
        if self.revs.len() == self.revs.capacity() {
            // Most keys are written once (an Event) or a few times (a pod's create, binding
            // and status writes): room for one more write up to eight, not the four a first
            // `push` reserves (at 150,000 pods, 600,000 Events each held three spare slots);
            // doubling beyond, for keys written on and on (a node's Lease).
            let len = self.revs.len();
            self.revs.reserve_exact(if len < 8 { 1 } else { len });
        }
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
///
/// Two structures over one set of keys: a hash map that every get and write goes through (a
/// write finds its key with one hash instead of a search comparing keys down a tree, keys that
/// share long prefixes such as `/registry/pods/default/`; the whole cluster at 1,000 × 30,000
/// converged 2–4% faster), and the keys in order for ranges, touched only when a key appears or
/// goes; a key that appears is filed at the next range ([`LazySortedSet`]). The hash map is
/// griddle's, which moves its entries to a grown table a few per insert: a standard one moves
/// them all in the insert that finds it full, at 458,752 keys a pause of 51 ms (90 in a tab).
#[derive(Debug, Clone, Default)]
pub struct Index {
    by_key: griddle::HashMap<Arc<str>, KeyIndex, FixedState>,
    /// Behind a cell because a range, a read, files the waiting keys first.
    order: RefCell<LazySortedSet<Arc<str>>>,
}

impl Index {
    pub fn get(&self, key: &str) -> Option<&KeyIndex> {
        self.by_key.get(key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut KeyIndex> {
        self.by_key.get_mut(key)
    }

    /// The shared key and its index, created empty if the key was never written.
    pub fn entry(&mut self, key: &str) -> (Arc<str>, &mut KeyIndex) {
        // One hash of the key either way; an existing key's allocation is reused, so index and
        // history share one `Arc<str>`.
        match self.by_key.raw_entry_mut().from_key(key) {
            griddle::hash_map::RawEntryMut::Occupied(o) => {
                let (k, index) = o.into_key_value();
                (Arc::clone(k), index)
            }
            griddle::hash_map::RawEntryMut::Vacant(v) => {
                let k: Arc<str> = Arc::from(key);
                self.order.get_mut().insert_new(Arc::clone(&k));
                let (_, index) = v.insert(Arc::clone(&k), KeyIndex::default());
                (k, index)
            }
        }
    }

    /// How many keys starting with `prefix` exist now. Counting needs no order: one pass over
    /// the hash map, without filing the keys that appeared since the last range.
    pub fn count_live(&self, prefix: &str) -> usize {
        self.by_key
            .iter()
            .filter(|(k, index)| k.starts_with(prefix) && index.live().is_some())
            .count()
    }

    /// Calls `visit` with each key starting with `prefix`, strictly after `start_after` if given,
    /// in key order, until it returns false.
    pub fn walk_prefix(
        &self,
        prefix: &str,
        start_after: Option<&str>,
        mut visit: impl FnMut(&Arc<str>, &KeyIndex) -> bool,
    ) {
        self.order.borrow_mut().settle();
        let order = self.order.borrow();
        let Some(sorted) = order.sorted() else {
            return;
        };
        let lower = match start_after {
            Some(after) if after >= prefix => Bound::Excluded(after),
            _ => Bound::Included(prefix),
        };
        let keys = sorted
            .range::<str, _>((lower, Bound::Unbounded))
            .take_while(|k| k.starts_with(prefix));
        for key in keys {
            if let Some(index) = self.by_key.get(key) {
                if !visit(key, index) {
                    break;
                }
            }
        }
    }

    /// Compacts every key at `at`; returns the puts whose values must be kept, ascending.
    pub fn compact(&mut self, at: Revision) -> Vec<Rev> {
        let mut keep = Vec::new();
        let order = self.order.get_mut();
        self.by_key.retain(|key, index| {
            let c = index.compact(at);
            keep.extend(c.keep);
            if c.empty {
                order.remove(key);
            }
            !c.empty
        });
        keep.sort_unstable();
        keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(main: Revision) -> (Rev, bool) {
        (Rev::new(main, 0), false)
    }

    fn del(main: Revision) -> (Rev, bool) {
        (Rev::new(main, 0), true)
    }

    #[test]
    fn room_grows_one_write_at_a_time_up_to_eight_then_doubles() {
        let mut k = KeyIndex::default();
        let mut rooms = Vec::new();
        for main in 1..=10 {
            k.record(Rev::new(main, main), false);
            rooms.push(k.revs.capacity());
        }
        assert_eq!(rooms, [1, 2, 3, 4, 5, 6, 7, 8, 16, 16]);
        assert_eq!(k.at(9).map(|w| w.rev.main), Some(9));
    }

    fn index(writes: &[(Rev, bool)]) -> KeyIndex {
        let mut index = KeyIndex::default();
        for (rev, tombstone) in writes {
            index.record(*rev, *tombstone);
        }
        index
    }

    #[test]
    fn at_finds_the_latest_write_not_after_the_revision() {
        let index = index(&[put(2), put(4), del(6), put(8)]);
        assert_eq!(index.at(1), None);
        assert_eq!(index.at(2).map(|w| w.rev.main), Some(2));
        assert_eq!(index.at(5).map(|w| w.rev.main), Some(4));
        assert_eq!(
            index.at(6),
            Some(KeyRev {
                rev: Rev::new(6, 0),
                tombstone: true
            })
        );
        assert_eq!(index.at(100).map(|w| w.rev.main), Some(8));
        assert_eq!(index.latest().map(|w| w.rev.main), Some(8));
    }

    #[test]
    fn compaction_keeps_the_state_at_the_revision_and_later_writes() {
        let mut live = index(&[put(2), put(4), put(8)]);
        let c = live.compact(5);
        assert_eq!(
            c,
            Compacted {
                keep: Some(Rev::new(4, 0)),
                empty: false
            }
        );
        assert_eq!(live.at(5).map(|w| w.rev.main), Some(4));
        assert_eq!(live.at(3), None, "writes before the kept state are gone");
        assert_eq!(live.at(9).map(|w| w.rev.main), Some(8));
    }

    #[test]
    fn compaction_drops_a_tombstone_and_empties_a_deleted_key() {
        let mut deleted = index(&[put(2), del(3)]);
        assert_eq!(
            deleted.compact(3),
            Compacted {
                keep: None,
                empty: true
            }
        );
        let mut recreated = index(&[put(2), del(3), put(5)]);
        assert_eq!(
            recreated.compact(4),
            Compacted {
                keep: None,
                empty: false
            }
        );
        assert_eq!(recreated.at(4), None);
        assert_eq!(recreated.at(5).map(|w| w.rev.main), Some(5));
        let mut untouched = index(&[put(7)]);
        assert_eq!(
            untouched.compact(4),
            Compacted {
                keep: None,
                empty: false
            }
        );
        assert_eq!(untouched.latest().map(|w| w.rev.main), Some(7));
    }

    #[test]
    fn prefix_walks_keys_in_order_after_the_start_key() {
        let mut tree = Index::default();
        for (i, key) in ["/a/1", "/a/2", "/a/3", "/b/1", "/a"].iter().enumerate() {
            let (_, index) = tree.entry(key);
            index.record(Rev::new(i as Revision + 2, 0), false);
        }
        let keys = |prefix, after| -> Vec<String> {
            let mut keys = Vec::new();
            tree.walk_prefix(prefix, after, |k, _| {
                keys.push(k.to_string());
                true
            });
            keys
        };
        assert_eq!(keys("/a/", None), ["/a/1", "/a/2", "/a/3"]);
        assert_eq!(keys("/a/", Some("/a/1")), ["/a/2", "/a/3"]);
        assert_eq!(keys("/a/", Some("/")), ["/a/1", "/a/2", "/a/3"]);
        assert!(keys("/a/", Some("/a/3")).is_empty());
        assert!(keys("/a/", Some("/z")).is_empty());
        assert_eq!(keys("", None).len(), 5);
        // Keys that appear after a range are in order at the next one, wherever they fall.
        tree.entry("/a/0").1.record(Rev::new(9, 0), false);
        tree.entry("/a/25").1.record(Rev::new(10, 0), false);
        let keys = |prefix| -> Vec<String> {
            let mut keys = Vec::new();
            tree.walk_prefix(prefix, None, |k, _| {
                keys.push(k.to_string());
                keys.len() < 4
            });
            keys
        };
        assert_eq!(
            keys("/a/"),
            ["/a/0", "/a/1", "/a/2", "/a/25"],
            "stops when told"
        );
    }

    #[test]
    fn entry_shares_one_allocation_per_key() {
        let mut tree = Index::default();
        let (first, _) = tree.entry("/registry/pods/default/web");
        let (second, _) = tree.entry("/registry/pods/default/web");
        assert!(Arc::ptr_eq(&first, &second));
    }

    #[test]
    fn tree_compaction_reports_kept_puts_ascending_and_drops_dead_keys() {
        let mut tree = Index::default();
        tree.entry("/b").1.record(Rev::new(2, 0), false);
        tree.entry("/a").1.record(Rev::new(3, 0), false);
        tree.entry("/c").1.record(Rev::new(3, 1), false);
        tree.entry("/c").1.record(Rev::new(4, 0), true);
        let keep = tree.compact(4);
        assert_eq!(keep, [Rev::new(2, 0), Rev::new(3, 0)]);
        assert!(tree.get("/c").is_none());
        assert!(tree.get("/a").is_some());
    }
}
