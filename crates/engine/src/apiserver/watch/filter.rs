//! What one stream wants: a resource, maybe a namespace, a label and a field selector. The
//! decision rule is the watch cache's: an event is judged against both the previous and the new
//! state, so an object that starts matching arrives as ADDED and one that stops as DELETED.

use super::event::WatchEventType;
use crate::api::resource::field_value;
use crate::api::{Kind, Object};
use crate::store::Revision;
use std::sync::Arc;
use watchlab_apimachinery::fields::FieldSelector;
use watchlab_apimachinery::labels::LabelSelector;

/// A stream's filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub kind: Kind,
    pub namespace: Option<String>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
}

impl Filter {
    pub fn matches(&self, obj: &Object) -> bool {
        if let Some(ns) = &self.namespace {
            if obj.namespace() != ns {
                return false;
            }
        }
        (self.labels.is_empty() || self.labels.matches(&obj.meta().labels))
            && (self.fields.is_empty() || self.fields.matches(&|f| field_value(obj, f)))
    }

    /// The event this stream sees for `change`, if any.
    pub fn decide(&self, change: &Change) -> Option<WatchEventType> {
        let prev = change.prev.as_deref().is_some_and(|p| self.matches(p));
        match &change.cur {
            Some(cur) => match (prev, self.matches(cur)) {
                (false, true) => Some(WatchEventType::Added),
                (true, true) => Some(WatchEventType::Modified),
                (true, false) => Some(WatchEventType::Deleted),
                (false, false) => None,
            },
            None => prev.then_some(WatchEventType::Deleted),
        }
    }
}

/// One key's change in one revision, as the watch sees it.
#[derive(Debug, Clone)]
pub struct Change {
    pub kind: Kind,
    /// The etcd key (shared with the store).
    pub key: Arc<str>,
    pub revision: Revision,
    /// The state before (None for a creation).
    pub prev: Option<Arc<Object>>,
    /// The state after (None for a deletion).
    pub cur: Option<Arc<Object>>,
    /// For a deletion: the last state with `resourceVersion` set to the deletion's revision.
    pub tombstone: Option<Arc<Object>>,
}

impl Change {
    /// The object the change leaves behind: the new state, or the tombstone for a deletion.
    pub fn object_for(&self) -> Option<&Arc<Object>> {
        self.cur.as_ref().or(self.tombstone.as_ref())
    }

    /// The object an event of type `t` carries. ADDED and MODIFIED carry the new state; DELETED
    /// carries the previous state at the change's revision, as the cacher's
    /// `convertToWatchEvent` does: the tombstone for a deletion, and for an object that stops
    /// matching the filter (a relabel out of a label selector) its last state that matched,
    /// not the new one.
    pub fn object_for_event(&self, t: WatchEventType) -> Option<Arc<Object>> {
        match (t, &self.cur, &self.prev) {
            (WatchEventType::Deleted, Some(_), Some(prev)) => {
                let mut last = (**prev).clone();
                last.meta_mut().resource_version = self.revision.to_string();
                Some(Arc::new(last))
            }
            _ => self.object_for().cloned(),
        }
    }

    pub fn namespace(&self) -> &str {
        self.object_for()
            .or(self.prev.as_ref())
            .map_or("", |o| o.namespace())
    }

    pub fn name(&self) -> &str {
        self.object_for()
            .or(self.prev.as_ref())
            .map_or("", |o| o.name())
    }
}
