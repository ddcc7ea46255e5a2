//! A bounded map that forgets its least recently used entry: the `k8s.io/utils/lru` cache in
//! which client-go's event correlator keeps what it has seen (4,096 entries each). A key is
//! found by hash (the correlator's keys are long joined strings sharing their first parts, which
//! a tree would compare byte by byte at every level); recency is an ordered map of use ticks, so
//! an eviction does not scan and the order is deterministic.

use std::collections::BTreeMap;
use std::hash::Hash;

use crate::hash::FixedHashMap;

/// Entries of each of the correlator's caches (client-go `maxLruCacheEntries`).
pub const MAX_CACHE_ENTRIES: usize = 4096;

/// At most `capacity` entries; inserting beyond it drops the least recently used one.
#[derive(Debug)]
pub struct Lru<K, V> {
    capacity: usize,
    entries: FixedHashMap<K, (u64, V)>,
    /// Last use → key, oldest first.
    order: BTreeMap<u64, K>,
    tick: u64,
}

impl<K: Hash + Eq + Clone, V> Lru<K, V> {
    pub fn new(capacity: usize) -> Self {
        Lru {
            capacity: capacity.max(1),
            entries: FixedHashMap::default(),
            order: BTreeMap::new(),
            tick: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under `key`, which becomes the most recently used.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let (used, value) = self.entries.get_mut(key)?;
        self.order.remove(used);
        self.tick += 1;
        *used = self.tick;
        self.order.insert(self.tick, key.clone());
        Some(value)
    }

    /// Stores `value` under `key` as the most recently used, evicting the least recently used
    /// entry when full.
    pub fn insert(&mut self, key: K, value: V) {
        self.tick += 1;
        if let Some((used, _)) = self.entries.insert(key.clone(), (self.tick, value)) {
            self.order.remove(&used);
        }
        self.order.insert(self.tick, key);
        while self.entries.len() > self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.entries.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut lru = Lru::new(2);
        lru.insert("a", 1);
        lru.insert("b", 2);
        // Reading "a" makes "b" the oldest.
        assert_eq!(lru.get_mut(&"a").copied(), Some(1));
        lru.insert("c", 3);
        assert_eq!(lru.len(), 2);
        assert!(lru.get_mut(&"b").is_none());
        assert_eq!(lru.get_mut(&"a").copied(), Some(1));
        assert_eq!(lru.get_mut(&"c").copied(), Some(3));
        // Re-inserting a key replaces it without growing.
        lru.insert("c", 4);
        assert_eq!(lru.len(), 2);
        assert_eq!(lru.get_mut(&"c").copied(), Some(4));
    }
}
