//! The informer's local cache (client-go's `Indexer`, kube-rs's reflector store): objects by
//! `namespace/name` plus named secondary indexes (pods by `spec.nodeName`, by owner uid...).
//! Split in two: the informer holds the only [`Writer`]; controllers get cloneable read-only
//! [`Store`] handles. A relist is gathered in a side buffer and swapped in whole at `InitDone`,
//! so a reader never sees half a list.
//!
//! Single-threaded (wasm), so the shared state is an `Rc<RefCell<_>>`. The writer never calls an
//! index function while it holds the borrow, and no borrow escapes a method, so borrows cannot
//! collide.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::rc::Rc;

use super::notification::{Deleted, DeletedFinalStateUnknown, Notification};
use super::reflector::WatcherEvent;
use super::resource::{ObjectKey, Resource};
use crate::hash::FixedHashMap;
use crate::sorted_set::LazySortedSet;

/// Computes the values an object is filed under in one index (`cache.IndexFunc`).
pub type IndexFunc<K> = Rc<dyn for<'a> Fn(&'a K) -> IndexValues<'a>>;

/// The values one index files an object under (`cache.IndexFunc`'s `[]string`). Most objects
/// have one (their namespace, node, owner's uid), borrowed from the object: filing an update,
/// which compares an object's values before and after, then allocates nothing.
#[derive(Debug, Clone, Default)]
pub enum IndexValues<'a> {
    #[default]
    None,
    One(Cow<'a, str>),
    Many(Vec<String>),
}

impl<'a> IndexValues<'a> {
    /// Filed under `value` alone.
    pub fn one(value: impl Into<Cow<'a, str>>) -> Self {
        IndexValues::One(value.into())
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let (one, many) = match self {
            IndexValues::None => (None, &[][..]),
            IndexValues::One(v) => (Some(v.as_ref()), &[][..]),
            IndexValues::Many(vs) => (None, vs.as_slice()),
        };
        one.into_iter().chain(many.iter().map(String::as_str))
    }
}

/// The same values in the same order, however held.
impl PartialEq for IndexValues<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for IndexValues<'_> {}

impl FromIterator<String> for IndexValues<'_> {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        let mut all: Vec<String> = iter.into_iter().collect();
        match all.len() {
            0 => IndexValues::None,
            1 => all.pop().map_or(IndexValues::None, IndexValues::one),
            _ => IndexValues::Many(all),
        }
    }
}

/// client-go's `cache.NamespaceIndex`.
pub const NAMESPACE_INDEX: &str = "namespace";

/// client-go's `cache.MetaNamespaceIndexFunc`: files an object under its namespace
/// (cluster-scoped objects under `""`).
pub fn namespace_index<K: Resource>() -> (String, IndexFunc<K>) {
    let f: IndexFunc<K> = Rc::new(|o: &K| IndexValues::one(o.namespace().unwrap_or("")));
    (NAMESPACE_INDEX.to_string(), f)
}

/// Errors reading the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The index was not registered when the informer was built.
    IndexNotFound(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // client-go's text (`threadSafeMap.ByIndex`).
            StoreError::IndexNotFound(name) => write!(f, "Index with name {name} does not exist"),
        }
    }
}

impl std::error::Error for StoreError {}

/// index name → indexed value → the keys filed under it, in key order. Keys only: an update
/// that keeps an object's values (most updates: a status write keeps a pod's node, owner and
/// namespace) changes no index at all. The keys of a value are filed in order when it is next
/// read ([`LazySortedSet`]): 150,000 pods created under one namespace and one owner are each
/// a push, not a search down a tree of 150,000 keys comparing their long common prefixes.
type Indices = BTreeMap<String, Index>;

/// One index: value → keys. Values are found by hash (a bind files its pod under one of 5,000
/// node names); [`Store::index_values`] sorts what it lists.
type Index = FixedHashMap<String, LazySortedSet<ObjectKey>>;

/// Objects by key. A hash map, because an informer's commonest write, an update of an object it
/// already holds, then finds it with one hash instead of a search comparing keys down a tree
/// (each key's bytes elsewhere in memory: at 150,000 pods the searches were a fifth of the whole
/// control plane's time). [`Cache::order`] gives key order.
type Items<K> = FixedHashMap<ObjectKey, K>;

struct Cache<K> {
    items: Items<K>,
    /// The keys of `items`, in key order (filed at the next walk): lists, resyncs and relists go
    /// by it.
    order: LazySortedSet<ObjectKey>,
    indices: Indices,
    /// The revision the cache reflects: the last event or list applied.
    resource_version: u64,
    /// The first list has been applied (`HasSynced`).
    synced: bool,
}

/// A read-only, cloneable view of the cache, for controllers (a client-go `Lister`).
pub struct Store<K> {
    cache: Rc<RefCell<Cache<K>>>,
}

impl<K> Clone for Store<K> {
    fn clone(&self) -> Self {
        Store {
            cache: Rc::clone(&self.cache),
        }
    }
}

impl<K: Resource> Store<K> {
    pub fn get(&self, key: &ObjectKey) -> Option<K> {
        self.cache.borrow().items.get(key).cloned()
    }

    /// The object `name` in `namespace` (`None` for cluster-scoped kinds).
    pub fn get_by_name(&self, namespace: Option<&str>, name: &str) -> Option<K> {
        self.get(&ObjectKey::new(namespace, name))
    }

    /// Every cached object, in key order.
    pub fn list(&self) -> Vec<K> {
        let cache = settled(&self.cache);
        cache.in_order(cache.order.sorted().into_iter().flatten())
    }

    pub fn keys(&self) -> Vec<ObjectKey> {
        let cache = settled(&self.cache);
        cache
            .order
            .sorted()
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }

    pub fn len(&self) -> usize {
        self.cache.borrow().items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The objects filed under `value` in `index` (`Indexer.ByIndex`), in key order.
    pub fn by_index(&self, index: &str, value: &str) -> Result<Vec<K>, StoreError> {
        self.filed(index, value, |cache, keys| cache.in_order(keys.iter()))
    }

    /// The keys filed under `value` in `index` (`Indexer.IndexKeys`).
    pub fn index_keys(&self, index: &str, value: &str) -> Result<Vec<ObjectKey>, StoreError> {
        self.filed(index, value, |_, keys| keys.iter().cloned().collect())
    }

    /// Every value with at least one object in `index` (`Indexer.ListIndexFuncValues`), sorted.
    pub fn index_values(&self, index: &str) -> Result<Vec<String>, StoreError> {
        let cache = self.cache.borrow();
        let idx = cache
            .indices
            .get(index)
            .ok_or_else(|| StoreError::IndexNotFound(index.to_string()))?;
        let mut values: Vec<String> = idx.keys().cloned().collect();
        values.sort_unstable();
        Ok(values)
    }

    /// The revision the cache reflects (compare with the reflector's latest RV received to see
    /// the informer's lag).
    pub fn resource_version(&self) -> u64 {
        self.cache.borrow().resource_version
    }

    /// The first full list has reached the cache (client-go `HasSynced`): controllers wait for
    /// it before acting, or they would think everything is missing.
    pub fn has_synced(&self) -> bool {
        self.cache.borrow().synced
    }

    /// `read` of the keys filed under `value` in `index`, in key order (filed first); empty
    /// when none are.
    fn filed<R: Default>(
        &self,
        index: &str,
        value: &str,
        read: impl FnOnce(&Cache<K>, &BTreeSet<ObjectKey>) -> R,
    ) -> Result<R, StoreError> {
        let not_found = || StoreError::IndexNotFound(index.to_string());
        {
            let mut cache = self.cache.borrow_mut();
            let idx = cache.indices.get_mut(index).ok_or_else(not_found)?;
            if let Some(keys) = idx.get_mut(value) {
                keys.settle();
            }
        }
        let cache = self.cache.borrow();
        let idx = cache.indices.get(index).ok_or_else(not_found)?;
        let keys = idx.get(value).and_then(LazySortedSet::sorted);
        Ok(keys.map(|keys| read(&cache, keys)).unwrap_or_default())
    }
}

/// The cache with its key order filed, borrowed for a walk.
fn settled<K>(cache: &RefCell<Cache<K>>) -> std::cell::Ref<'_, Cache<K>> {
    cache.borrow_mut().order.settle();
    cache.borrow()
}

impl<K: Clone> Cache<K> {
    /// The objects of `keys` (each a key of `items`), in the keys' order.
    fn in_order<'a>(&self, keys: impl Iterator<Item = &'a ObjectKey>) -> Vec<K> {
        keys.filter_map(|k| self.items.get(k)).cloned().collect()
    }
}

/// The informer's writing side of the cache: applies reflector events and says what changed.
pub struct Writer<K> {
    cache: Rc<RefCell<Cache<K>>>,
    indexers: Vec<(String, IndexFunc<K>)>,
    /// A relist being gathered (between `Init` and `InitDone`).
    relist: Option<BTreeMap<ObjectKey, K>>,
}

impl<K: Resource> Writer<K> {
    /// An empty cache with the given named indexes.
    pub fn new(indexers: Vec<(String, IndexFunc<K>)>) -> Self {
        let indices = indexers
            .iter()
            .map(|(name, _)| (name.clone(), Index::default()))
            .collect();
        let cache = Cache {
            items: Items::default(),
            order: LazySortedSet::default(),
            indices,
            resource_version: 0,
            synced: false,
        };
        Writer {
            cache: Rc::new(RefCell::new(cache)),
            indexers,
            relist: None,
        }
    }

    /// A read-only handle on the same cache.
    pub fn store(&self) -> Store<K> {
        Store {
            cache: Rc::clone(&self.cache),
        }
    }

    /// Applies one reflector event, returning the handler notifications it causes.
    pub fn apply(&mut self, event: WatcherEvent<K>) -> Vec<Notification<K>> {
        match event {
            WatcherEvent::Init => {
                self.relist = Some(BTreeMap::new());
                Vec::new()
            }
            WatcherEvent::InitApply(obj) => {
                match self.relist.as_mut() {
                    Some(buffer) => {
                        buffer.insert(ObjectKey::of(&obj), obj);
                        Vec::new()
                    }
                    // An item outside a relist is an ordinary upsert.
                    None => vec![self.upsert(obj)],
                }
            }
            WatcherEvent::InitDone { resource_version } => {
                let fresh = self.relist.take().unwrap_or_default();
                self.replace(fresh, resource_version)
            }
            WatcherEvent::Apply(obj) => vec![self.upsert(obj)],
            WatcherEvent::Delete(obj) => {
                self.remove(&obj);
                vec![Notification::Delete(Deleted::Object(obj))]
            }
            WatcherEvent::Bookmark { resource_version } => {
                self.cache.borrow_mut().resource_version = resource_version;
                Vec::new()
            }
        }
    }

    /// Re-delivers every cached object as an update with `old == new` (a resync).
    pub fn resync(&self) -> Vec<Notification<K>> {
        let cache = settled(&self.cache);
        cache
            .in_order(cache.order.sorted().into_iter().flatten())
            .into_iter()
            .map(|o| Notification::Update {
                old: o.clone(),
                new: o.clone(),
            })
            .collect()
    }

    /// Moves `key` from the values `old` is filed under to those of `new` (`None`: not filed
    /// before, or no longer) in each index whose values differ: a status write keeps a pod's
    /// node, owner and namespace and touches no index. The index functions run before the
    /// cache is borrowed.
    fn refile(&self, key: &ObjectKey, old: Option<&K>, new: Option<&K>) {
        let moves: Vec<(&str, IndexValues<'_>, IndexValues<'_>)> = self
            .indexers
            .iter()
            .filter_map(|(name, f)| {
                let before = old.map(|o| f(o)).unwrap_or_default();
                let after = new.map(|o| f(o)).unwrap_or_default();
                (before != after).then_some((name.as_str(), before, after))
            })
            .collect();
        if moves.is_empty() {
            return;
        }
        let mut cache = self.cache.borrow_mut();
        for (name, before, after) in moves {
            if let Some(idx) = cache.indices.get_mut(name) {
                unindex(idx, key, &before);
                index(idx, key, &after);
            }
        }
    }

    fn upsert(&mut self, obj: K) -> Notification<K> {
        let mut cache = self.cache.borrow_mut();
        // An update finds its key by text: only a new object's key is allocated.
        let held = ObjectKey::joined(obj.namespace(), obj.name(), |k| {
            cache.items.get_key_value(k).map(|(key, _)| key.clone())
        });
        let key = held.unwrap_or_else(|| ObjectKey::of(&obj));
        let old = cache.items.insert(key.clone(), obj.clone());
        if old.is_none() {
            cache.order.insert_new(key.clone());
        }
        cache.resource_version = obj.resource_version();
        drop(cache);
        self.refile(&key, old.as_ref(), Some(&obj));
        match old {
            Some(old) => Notification::Update { old, new: obj },
            None => Notification::Add(obj),
        }
    }

    fn remove(&mut self, obj: &K) {
        let mut cache = self.cache.borrow_mut();
        cache.resource_version = obj.resource_version();
        let removed =
            ObjectKey::joined(obj.namespace(), obj.name(), |k| cache.items.remove_entry(k));
        let Some((key, old)) = removed else {
            return;
        };
        cache.order.remove(&key);
        drop(cache);
        self.refile(&key, Some(&old), None);
    }

    /// Swaps in a complete list (client-go `Replace`): new objects are adds, changed ones
    /// updates (unchanged ones, same resourceVersion, notify nobody), and cached objects absent
    /// from the list are deletes with a `DeletedFinalStateUnknown` tombstone.
    fn replace(
        &mut self,
        fresh: BTreeMap<ObjectKey, K>,
        resource_version: u64,
    ) -> Vec<Notification<K>> {
        let mut indices: Indices = self
            .indexers
            .iter()
            .map(|(n, _)| (n.clone(), Index::default()))
            .collect();
        for (key, obj) in &fresh {
            for (name, f) in &self.indexers {
                if let Some(idx) = indices.get_mut(name) {
                    index(idx, key, &f(obj));
                }
            }
        }
        let order: LazySortedSet<ObjectKey> = fresh.keys().cloned().collect();
        let mut notes = Vec::new();
        let mut cache = self.cache.borrow_mut();
        for (key, new) in &fresh {
            match cache.items.get(key) {
                Some(old) if old.resource_version() == new.resource_version() => {}
                Some(old) => notes.push(Notification::Update {
                    old: old.clone(),
                    new: new.clone(),
                }),
                None => notes.push(Notification::Add(new.clone())),
            }
        }
        let old_order = std::mem::replace(&mut cache.order, order);
        let mut old_items = std::mem::replace(&mut cache.items, fresh.into_iter().collect());
        cache.indices = indices;
        cache.resource_version = resource_version;
        cache.synced = true;
        for key in old_order {
            if cache.items.contains_key(&key) {
                continue;
            }
            if let Some(obj) = old_items.remove(&key) {
                let tombstone = DeletedFinalStateUnknown { key, obj };
                notes.push(Notification::Delete(Deleted::FinalStateUnknown(tombstone)));
            }
        }
        notes
    }
}

/// Files `key` under each of `values` in one index.
fn index(idx: &mut Index, key: &ObjectKey, values: &IndexValues<'_>) {
    for v in values.iter() {
        match idx.get_mut(v) {
            Some(keys) => keys.insert_new(key.clone()),
            None => {
                let mut keys = LazySortedSet::default();
                keys.insert_new(key.clone());
                idx.insert(v.to_string(), keys);
            }
        }
    }
}

/// Takes `key` out of each of `values` in one index, dropping emptied values.
fn unindex(idx: &mut Index, key: &ObjectKey, values: &IndexValues<'_>) {
    for v in values.iter() {
        if let Some(keys) = idx.get_mut(v) {
            keys.remove(key);
            if keys.is_empty() {
                idx.remove(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::fake::FakeObject;

    fn pod(name: &str, node: Option<&str>, rv: u64) -> FakeObject {
        let mut p = FakeObject::new(Some("default"), name, &format!("uid-{name}"));
        p.node_name = node.map(str::to_string);
        p.resource_version = rv;
        p
    }

    fn writer() -> Writer<FakeObject> {
        let by_node: IndexFunc<FakeObject> =
            Rc::new(|p: &FakeObject| p.node_name.iter().cloned().collect());
        Writer::new(vec![namespace_index(), ("nodeName".to_string(), by_node)])
    }

    fn names(objs: Vec<FakeObject>) -> Vec<String> {
        objs.into_iter().map(|o| o.name).collect()
    }

    #[test]
    fn apply_and_delete_keep_indexes_current() {
        let mut w = writer();
        let s = w.store();
        assert_eq!(
            w.apply(WatcherEvent::Apply(pod("a", Some("node-a"), 2))),
            vec![Notification::Add(pod("a", Some("node-a"), 2))]
        );
        w.apply(WatcherEvent::Apply(pod("b", Some("node-a"), 3)));
        assert_eq!(names(s.by_index("nodeName", "node-a").unwrap()), ["a", "b"]);
        // Moving a pod to another node re-files it.
        let notes = w.apply(WatcherEvent::Apply(pod("a", Some("node-b"), 4)));
        assert!(
            matches!(&notes[..], [Notification::Update { old, new }] if old.resource_version == 2 && new.resource_version == 4)
        );
        assert_eq!(names(s.by_index("nodeName", "node-a").unwrap()), ["b"]);
        assert_eq!(names(s.by_index("nodeName", "node-b").unwrap()), ["a"]);
        w.apply(WatcherEvent::Delete(pod("b", Some("node-a"), 5)));
        assert_eq!(s.index_values("nodeName").unwrap(), ["node-b"]);
        assert_eq!(
            names(s.by_index(NAMESPACE_INDEX, "default").unwrap()),
            ["a"]
        );
        assert_eq!(s.resource_version(), 5);
        assert_eq!(
            s.get_by_name(Some("default"), "a")
                .map(|p| p.resource_version),
            Some(4)
        );
        assert_eq!(
            s.by_index("owner", "x"),
            Err(StoreError::IndexNotFound("owner".into()))
        );
        assert_eq!(
            StoreError::IndexNotFound("owner".into()).to_string(),
            "Index with name owner does not exist"
        );
    }

    #[test]
    fn an_update_under_the_same_index_values_is_what_the_indexes_hand_out() {
        let mut w = writer();
        let s = w.store();
        w.apply(WatcherEvent::Apply(pod("a", Some("node-a"), 2)));
        w.apply(WatcherEvent::Apply(pod("b", Some("node-a"), 3)));
        // A status write: same node, same namespace, a new version.
        w.apply(WatcherEvent::Apply(pod("a", Some("node-a"), 7)));
        let versions = |objs: Vec<FakeObject>| -> Vec<(String, u64)> {
            objs.into_iter()
                .map(|o| (o.name, o.resource_version))
                .collect()
        };
        let expected = vec![("a".to_string(), 7), ("b".to_string(), 3)];
        assert_eq!(
            versions(s.by_index("nodeName", "node-a").unwrap()),
            expected
        );
        assert_eq!(
            versions(s.by_index(NAMESPACE_INDEX, "default").unwrap()),
            expected
        );
        // Leaving the index altogether (unscheduled), then coming back.
        w.apply(WatcherEvent::Apply(pod("a", None, 8)));
        assert_eq!(names(s.by_index("nodeName", "node-a").unwrap()), ["b"]);
        w.apply(WatcherEvent::Apply(pod("a", Some("node-a"), 9)));
        assert_eq!(
            versions(s.by_index("nodeName", "node-a").unwrap()),
            [("a".to_string(), 9), ("b".to_string(), 3)]
        );
    }

    #[test]
    fn relist_is_swapped_in_at_init_done_with_tombstones() {
        let mut w = writer();
        let s = w.store();
        w.apply(WatcherEvent::Apply(pod("keep", None, 2)));
        w.apply(WatcherEvent::Apply(pod("changed", None, 3)));
        w.apply(WatcherEvent::Apply(pod("gone", Some("node-a"), 4)));
        assert!(!s.has_synced());
        w.apply(WatcherEvent::Init);
        w.apply(WatcherEvent::InitApply(pod("keep", None, 2)));
        w.apply(WatcherEvent::InitApply(pod("changed", None, 9)));
        w.apply(WatcherEvent::InitApply(pod("new", None, 10)));
        assert_eq!(s.len(), 3, "nothing visible before InitDone");
        assert!(s.get_by_name(Some("default"), "gone").is_some());
        let notes = w.apply(WatcherEvent::InitDone {
            resource_version: 12,
        });
        assert_eq!(
            notes,
            vec![
                Notification::Update {
                    old: pod("changed", None, 3),
                    new: pod("changed", None, 9)
                },
                Notification::Add(pod("new", None, 10)),
                Notification::Delete(Deleted::FinalStateUnknown(DeletedFinalStateUnknown {
                    key: ObjectKey::new(Some("default"), "gone"),
                    obj: pod("gone", Some("node-a"), 4),
                })),
            ]
        );
        assert_eq!(names(s.list()), ["changed", "keep", "new"]);
        assert_eq!(s.index_values("nodeName").unwrap(), Vec::<String>::new());
        assert!(s.has_synced());
        assert_eq!(s.resource_version(), 12);
    }

    #[test]
    fn resync_redelivers_everything_as_updates() {
        let mut w = writer();
        w.apply(WatcherEvent::Apply(pod("a", None, 2)));
        assert_eq!(
            w.resync(),
            vec![Notification::Update {
                old: pod("a", None, 2),
                new: pod("a", None, 2)
            }]
        );
    }
}
