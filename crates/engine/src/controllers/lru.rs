//! The bounded maps that forget their least recently used entry: the `k8s.io/utils/lru` caches
//! in which client-go's event correlator keeps what it has seen (4,096 entries each). They are
//! the `lru` crate's cache (a hash map whose entries are linked in recency order, so a use or an
//! eviction moves pointers instead of searching), keyed by a fixed hasher: no random seed, the
//! same run on every platform.

use std::hash::Hash;

use crate::hash::FixedState;

/// Entries of each of the correlator's caches (client-go `maxLruCacheEntries`).
pub const MAX_CACHE_ENTRIES: usize = 4096;

/// At most `capacity` entries; `put` beyond it drops the least recently used one, and `get_mut`
/// makes an entry the most recently used. The map grows as entries come (a kubelet's recorder
/// holds a handful, and a thousand of them must not reserve 4,096 slots each).
pub struct Lru<K, V> {
    entries: ::lru::LruCache<K, V, FixedState>,
    capacity: usize,
}

impl<K: Hash + Eq, V> Lru<K, V> {
    /// An empty cache of `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Self {
        Lru {
            entries: ::lru::LruCache::unbounded_with_hasher(FixedState::default()),
            capacity: capacity.max(1),
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
        self.entries.get_mut(key)
    }

    /// Stores `value` under `key` as the most recently used, evicting the least recently used
    /// entry when full.
    pub fn put(&mut self, key: K, value: V) {
        self.entries.put(key, value);
        while self.entries.len() > self.capacity {
            self.entries.pop_lru();
        }
    }
}

impl<K: Hash + Eq, V> std::fmt::Debug for Lru<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lru")
            .field("len", &self.entries.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut lru = Lru::new(2);
        lru.put("a", 1);
        lru.put("b", 2);
        // Reading "a" makes "b" the oldest.
        assert_eq!(lru.get_mut(&"a").copied(), Some(1));
        lru.put("c", 3);
        assert_eq!(lru.len(), 2);
        assert!(lru.get_mut(&"b").is_none());
        assert_eq!(lru.get_mut(&"a").copied(), Some(1));
        assert_eq!(lru.get_mut(&"c").copied(), Some(3));
        // Re-inserting a key replaces it without growing.
        lru.put("c", 4);
        assert_eq!(lru.len(), 2);
        assert_eq!(lru.get_mut(&"c").copied(), Some(4));
        let mut one = Lru::new(0);
        one.put("a", 1);
        one.put("b", 2);
        assert_eq!(one.len(), 1, "never less than one entry");
    }
}
