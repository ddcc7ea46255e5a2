//! What a controller's event handlers receive (client-go's `OnAdd` / `OnUpdate` / `OnDelete`):
//! as data, returned by each informer step, instead of callbacks. A delete the informer only
//! inferred from a relist carries a tombstone with the last state it knew.

use super::resource::{ObjectKey, Resource};

/// One handler notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notification<K> {
    /// `OnAdd`: an object entered the cache.
    Add(K),
    /// `OnUpdate(old, new)`: a cached object changed (or, on resync, `old == new`).
    Update { old: K, new: K },
    /// `OnDelete`: an object left the cache.
    Delete(Deleted<K>),
}

/// The payload of `OnDelete`: either the object's final state, or a tombstone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deleted<K> {
    /// A watch DELETED event: the final state at the deletion's revision.
    Object(K),
    /// The object vanished while the informer was not watching (seen on a relist).
    FinalStateUnknown(DeletedFinalStateUnknown<K>),
}

/// client-go's `cache.DeletedFinalStateUnknown`: the key and the last known (possibly stale)
/// state of an object whose deletion was missed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletedFinalStateUnknown<K> {
    pub key: ObjectKey,
    pub obj: K,
}

impl<K: Resource> Deleted<K> {
    /// The object as last known, whatever the kind of delete.
    pub fn object(&self) -> &K {
        match self {
            Deleted::Object(o) => o,
            Deleted::FinalStateUnknown(t) => &t.obj,
        }
    }
}

impl<K: Resource> Notification<K> {
    /// The key of the object the notification is about.
    pub fn key(&self) -> ObjectKey {
        match self {
            Notification::Add(o) | Notification::Update { new: o, .. } => ObjectKey::of(o),
            Notification::Delete(Deleted::FinalStateUnknown(t)) => t.key.clone(),
            Notification::Delete(Deleted::Object(o)) => ObjectKey::of(o),
        }
    }
}
