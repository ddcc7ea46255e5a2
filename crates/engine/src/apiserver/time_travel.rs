//! The time-travel checker: whether a component's informers went back in time
//! (kubernetes/kubernetes#59848). For each component — a user agent, whatever replica or
//! process of it is running, so a restarted kubelet or a new leader of kube-controller-manager
//! is the same component as its predecessor — and each resource it reads, the highest
//! resourceVersion its informers reached (a list's, a watch event's, a bookmark's). An
//! informer's first list answered below that is flagged: the component now acts on a past older
//! than one it already acted on. (A relist asks for NotOlderThan the informer's own last
//! revision and cannot go back; one of a paused process that resumed behind its successor is
//! that process catching up, not a new start.) The flag names the objects the list shows that etcd had deleted by the revision
//! the component had reached: objects it sees again after their deletion.
//!
//! A running informer cannot go back on its own (its relists ask for resourceVersionMatch
//! NotOlderThan its last revision, client-go's fix of kubernetes#67998); a fresh process's first
//! list at `resourceVersion=0` can, when its API server's watch cache is behind. The fix
//! kubernetes#83520 adopted for a while — the first list a consistent read, `resourceVersion=""`
//! — never lists below etcd's current revision, so the checker stays silent with it
//! ([`crate::controllers::profile::Profile::consistent_first_list`]).
//!
//! The engine's informers report here (`controllers/adapter.rs`); it is kept beside the API
//! server's other records ([`super::conflicts`]) because every client passes through the
//! server. The server itself never reads it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::record::Record;
use crate::api::{Kind, Object};
use crate::clock::Timestamp;
use crate::store::{EventType, Revision, Store};

/// Flags kept for reading back.
pub const TIME_TRAVEL_LIMIT: usize = 256;

/// A list that went back in time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeTravel {
    pub time: Timestamp,
    /// etcd's revision when the list was answered.
    pub revision: Revision,
    /// The component's user agent (`kube-controller-manager`, `kubelet/node-a`).
    pub component: Arc<str>,
    pub kind: Kind,
    /// The list's resourceVersion.
    pub listed: Revision,
    /// The highest resourceVersion the component's informers of `kind` had reached before.
    pub reached: Revision,
    /// The API server instance that answered (`kube-apiserver-1`).
    pub apiserver: String,
    /// `namespace/name` of the listed objects etcd had deleted by `reached`, in list order.
    pub resurrected: Vec<String>,
}

/// The checker's record.
#[derive(Debug, Clone, Default)]
pub struct TimeTravels {
    /// The highest resourceVersion reached, by component and resource.
    reached: HashMap<(Arc<str>, Kind), Revision>,
    flags: Record<TimeTravel, TIME_TRAVEL_LIMIT>,
}

impl TimeTravels {
    /// The component's informer of `kind` received something at `rv` (a watch event or
    /// bookmark).
    pub fn reached(&mut self, component: &Arc<str>, kind: Kind, rv: Revision) {
        match self.reached.get_mut(&(component.clone(), kind)) {
            Some(r) => *r = (*r).max(rv),
            None => {
                self.reached.insert((component.clone(), kind), rv);
            }
        }
    }

    /// The component's informer of `kind` listed `items` at `listed`, answered by
    /// `apiserver`: flags it if that is below what the component had reached, reading `store`
    /// for the deletions it went back over. Returns the flag.
    #[allow(clippy::too_many_arguments)]
    pub fn listed(
        &mut self,
        time: Timestamp,
        component: &Arc<str>,
        kind: Kind,
        listed: Revision,
        items: &[Arc<Object>],
        apiserver: &str,
        store: &Store<Arc<Object>>,
    ) -> Option<TimeTravel> {
        let key = (component.clone(), kind);
        let reached = self.reached.get(&key).copied().unwrap_or(0);
        self.reached.insert(key, reached.max(listed));
        if listed >= reached {
            return None;
        }
        let flag = TimeTravel {
            time,
            revision: store.revision(),
            component: component.clone(),
            kind,
            listed,
            reached,
            apiserver: apiserver.to_string(),
            resurrected: resurrected(kind, items, listed, reached, store),
        };
        self.flags.push(flag.clone());
        Some(flag)
    }

    /// Flags since the server started.
    pub fn total(&self) -> u64 {
        self.flags.total()
    }

    /// The flags after the first `since` of [`TimeTravels::total`] (as many as are kept).
    pub fn since(&self, since: u64) -> impl DoubleEndedIterator<Item = &TimeTravel> {
        self.flags.since(since)
    }
}

/// The listed objects whose uid etcd deleted after `listed` and by `reached` (none if that
/// history was compacted away).
fn resurrected(
    kind: Kind,
    items: &[Arc<Object>],
    listed: Revision,
    reached: Revision,
    store: &Store<Arc<Object>>,
) -> Vec<String> {
    let prefix = kind.resource().prefix(None);
    let Ok(events) = store.events_after(&prefix, listed) else {
        return Vec::new();
    };
    let deleted: HashSet<&str> = events
        .into_iter()
        .filter(|e| e.kind == EventType::Delete && e.kv.mod_revision <= reached)
        .map(|e| e.kv.value.meta().uid.as_str())
        .collect();
    items
        .iter()
        .filter(|o| deleted.contains(o.meta().uid.as_str()))
        .map(|o| {
            let m = o.meta();
            if m.namespace.is_empty() {
                m.name.clone()
            } else {
                format!("{}/{}", m.namespace, m.name)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kcm() -> Arc<str> {
        Arc::from("kube-controller-manager")
    }

    #[test]
    fn a_list_below_what_the_component_reached_is_flagged_per_resource() {
        let store = Store::new();
        let mut t = TimeTravels::default();
        let at = Timestamp::ZERO;
        assert!(t
            .listed(at, &kcm(), Kind::Pod, 10, &[], "a", &store)
            .is_none());
        t.reached(&kcm(), Kind::Pod, 40);
        // Another resource's revisions are its own: a quiet resource lists at its last write.
        assert!(t
            .listed(at, &kcm(), Kind::Node, 12, &[], "a", &store)
            .is_none());
        // Another component is not this one.
        let sched: Arc<str> = Arc::from("kube-scheduler");
        assert!(t
            .listed(at, &sched, Kind::Pod, 12, &[], "a", &store)
            .is_none());
        let flag = t
            .listed(at, &kcm(), Kind::Pod, 30, &[], "kube-apiserver-1", &store)
            .expect("flagged");
        assert_eq!((flag.listed, flag.reached), (30, 40));
        assert_eq!(flag.apiserver, "kube-apiserver-1");
        // At or above what was reached: fine.
        assert!(t
            .listed(at, &kcm(), Kind::Pod, 40, &[], "a", &store)
            .is_none());
        assert_eq!(t.total(), 1);
        assert_eq!(t.since(0).count(), 1);
        assert_eq!(t.since(1).count(), 0);
    }

    #[test]
    fn the_record_keeps_the_last_flags() {
        let store = Store::new();
        let mut t = TimeTravels::default();
        t.reached(&kcm(), Kind::Pod, u64::MAX);
        for rv in 0..(TIME_TRAVEL_LIMIT as u64 + 10) {
            t.listed(Timestamp::ZERO, &kcm(), Kind::Pod, rv, &[], "a", &store);
        }
        assert_eq!(t.total(), TIME_TRAVEL_LIMIT as u64 + 10);
        assert_eq!(t.since(0).count(), TIME_TRAVEL_LIMIT);
        assert_eq!(t.since(0).next().map(|f| f.listed), Some(10));
    }
}
